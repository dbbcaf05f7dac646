// Untimed set-up for the read and open scenarios: append events in batches,
// round-robin over streams, each append with the exact expected version.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "indelible/store.h"

namespace indelible::bench {

struct FillSpec {
  std::uint64_t events = 0;
  std::uint64_t streams = 1;     // streams account-000000 ... account-(streams-1)
  std::size_t per_append = 100;  // append a goes to stream a % streams
  std::size_t event_bytes = 200;
  std::string_view label;  // for the progress line
  // Called after each append with the events appended so far (may be empty).
  std::function<void(std::uint64_t)> after_append;
};

Status Fill(Store& store, const FillSpec& spec);

}  // namespace indelible::bench

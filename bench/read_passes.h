// The shape shared by `read` and `read-all`: fill a fresh store (untimed),
// time several full read passes, reopen the store (its memtables are then
// flushed to table files) and time the passes again.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "bench/common.h"

namespace indelible::bench {

// What one pass read: events and the sum of their payload sizes (consuming
// every event, so no read is optimised away, and checking it).
struct PassTotals {
  std::uint64_t events = 0;
  std::uint64_t data_bytes = 0;
};

struct ReadSpec {
  std::string_view bench;
  std::uint64_t default_events;
  std::uint64_t streams;  // the fill's round-robin streams
  Target target;
  // Reads everything once; an error if the read fails or sees a wrong event.
  std::function<Result<PassTotals>(Store& store)> read;
};

inline constexpr int kReadPasses = 5;

Status RunReadPasses(Context& context, const ReadSpec& spec);

}  // namespace indelible::bench

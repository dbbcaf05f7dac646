// One writer appending to one stream in a closed loop, `per_append` events
// per append, each with the exact expected version: the shape shared by the
// `append` (1 event) and `batch` (100 events) scenarios.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "bench/common.h"

namespace indelible::bench {

struct SingleWriterSpec {
  std::string_view bench;  // scenario name, for the report and the folder
  std::uint64_t default_events;
  std::size_t default_per_append;
  Target target;  // for events_per_s
};

Status RunSingleWriter(Context& context, const SingleWriterSpec& spec);

}  // namespace indelible::bench

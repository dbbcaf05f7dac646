// read-all: $all of 1,000,000 events (written first with batched appends
// over 1,000 streams, untimed), read from the beginning with one cursor.
// Target: >= 3,000,000 events/s.
#include <fmt/format.h>

#include "bench/read_passes.h"
#include "bench/scenarios.h"

namespace indelible::bench {
namespace {

Result<PassTotals> ReadAllOnce(Store& store) {
  auto cursor = store.ReadAll();
  if (!cursor.ok()) return cursor.status();
  PassTotals totals;
  for (; (*cursor)->Valid(); (*cursor)->Next()) {
    const EventView& event = (*cursor)->event();
    if (event.position.value() != totals.events + 1)
      return Status::Internal(fmt::format("read-all: position {} where {} was expected",
                                          event.position.value(), totals.events + 1));
    totals.data_bytes += event.data.size();
    ++totals.events;
  }
  if (Status s = (*cursor)->status(); !s.ok()) return s;
  return totals;
}

}  // namespace

Status RunReadAll(Context& context) {
  return RunReadPasses(context, {.bench = "read-all",
                                 .default_events = 1000000,
                                 .streams = 1000,
                                 .target = Target::AtLeast(3000000),
                                 .read = ReadAllOnce});
}

}  // namespace indelible::bench

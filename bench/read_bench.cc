// read: one stream of 100,000 events (written first with batched appends,
// untimed), read forward from the first event with one cursor.
// Target: >= 2,000,000 events/s.
#include <fmt/format.h>

#include "bench/events.h"
#include "bench/read_passes.h"
#include "bench/scenarios.h"

namespace indelible::bench {
namespace {

Result<PassTotals> ReadStreamOnce(Store& store) {
  auto cursor = store.ReadStream(AccountStream(0));
  if (!cursor.ok()) return cursor.status();
  PassTotals totals;
  for (; (*cursor)->Valid(); (*cursor)->Next()) {
    const EventView& event = (*cursor)->event();
    if (event.version.value() != static_cast<std::int64_t>(totals.events))
      return Status::Internal(fmt::format("read: version {} where {} was expected",
                                          event.version.value(), totals.events));
    totals.data_bytes += event.data.size();
    ++totals.events;
  }
  if (Status s = (*cursor)->status(); !s.ok()) return s;
  return totals;
}

}  // namespace

Status RunRead(Context& context) {
  return RunReadPasses(context, {.bench = "read",
                                 .default_events = 100000,
                                 .streams = 1,
                                 .target = Target::AtLeast(2000000),
                                 .read = ReadStreamOnce});
}

}  // namespace indelible::bench

// batch: one writer, 100 events per append (one sync each), exact expected
// version, closed loop. Target: >= 300,000 events/s.
#include "bench/scenarios.h"
#include "bench/single_writer.h"

namespace indelible::bench {

Status RunBatch(Context& context) {
  return RunSingleWriter(context, {.bench = "batch",
                                   .default_events = 1000000,
                                   .default_per_append = 100,
                                   .target = Target::AtLeast(300000)});
}

}  // namespace indelible::bench

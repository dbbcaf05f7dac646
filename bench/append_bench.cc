// append: one writer, one 200-byte JSON event per append, exact expected
// version, closed loop. Sync-bound: each append waits for its own fdatasync,
// so the target is a fraction of the disk's own rate (>= 0.7 x fsync/s), with
// one sync per append and never more.
#include "bench/scenarios.h"
#include "bench/single_writer.h"

namespace indelible::bench {

Status RunAppend(Context& context) {
  return RunSingleWriter(context, {.bench = "append",
                                   .default_events = 10000,
                                   .default_per_append = 1,
                                   .target = Target::RatioAtLeast(0.7)});
}

}  // namespace indelible::bench

// relay in a build without NATS (INDELIBLE_WITH_NATS=OFF): built instead of
// relay_bench.cc, which talks to libnats itself.
#include <indelible/config.h>

#include "bench/scenarios.h"

namespace indelible::bench {

Status RunRelay(Context&) { return Status::Invalid("nats", INDELIBLE_NO_NATS); }

}  // namespace indelible::bench

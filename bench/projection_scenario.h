// The projection scenario: ProjectionRunner with the todo example's
// projection (examples/todo/todo_projection.h), rebuild throughput and live
// lag into SQLite and PostgreSQL (projection_bench.cc). A library of its own
// (indelible_bench_projection), linked by indelible-bench only, so that the
// `indelible` binary carries no example code.
#pragma once

#include "bench/common.h"

namespace indelible::bench {

Status RunProjection(Context& context);

}  // namespace indelible::bench

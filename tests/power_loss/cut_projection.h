// The read model the power-cut suite keeps in SQLite while it cuts
// (power_cut_suite.cc): per workload stream, its event count and last
// version. After a cut its copy must equal a rebuild from $all: the
// runner's checkpoint and rows move in one SQLite transaction, and it only
// ever reads events the store made durable.
#pragma once

#include <indelible/projection.h>
#include <indelible/store.h>

#include <string>

#include "power_loss/cut_checks.h"

namespace indelible::power_loss {

Projection CountsProjection();

// Catches `runner` up, builds the same projection from the start of $all
// into a new SQLite file at `fresh_path`, and compares the two.
void CheckProjection(Store& store, ProjectionRunner& runner, const std::string& runner_url,
                     const std::string& fresh_path, CheckCounts& counts, Findings& findings);

}  // namespace indelible::power_loss

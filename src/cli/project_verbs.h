// The `project` verbs (project_verbs.cc), for the indelible CLI (no
// projections of its own) and for programs that define projections.
#pragma once

#include <CLI/CLI.hpp>
#include <vector>

#include "cli/cli.h"
#include "indelible/projection.h"

namespace indelible::cli {

// `projections` must outlive the parse and the run.
void AddProjectVerbs(CLI::App& app, Cli& cli, const std::vector<Projection>* projections);

}  // namespace indelible::cli

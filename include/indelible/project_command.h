// The `project` command line for a program that defines projections:
//
//   int main(int argc, char** argv) {
//     if (argc > 1 && std::string_view(argv[1]) == "project")
//       return indelible::RunProjectCommand(argc, argv, {MyProjection()});
//     ...
//   }
//
// gives `PROGRAM project list|run|rebuild|retry|skip [NAMES] [--data DIR]
// [--read-store URL]` (--data: a folder or a store URL), as `indelible
// project` (docs/CLI.md). rebuild draws a progress bar on a
// terminal and prints its events/s.
#pragma once

#include <vector>

#include "indelible/projection.h"

namespace indelible {

// Parses argv (argv[1] is "project") and runs the verb; returns the exit code.
int RunProjectCommand(int argc, char** argv, std::vector<Projection> projections);

}  // namespace indelible

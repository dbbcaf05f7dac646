// `indelible bench ...`: the benchmarks, run from the CLI.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "indelible/status.h"

namespace indelible::bench {

class Context;

// A scenario that a program adds to the built-in ones: indelible-bench adds
// `projection`, which rebuilds the todo example's read model, so that the
// `indelible` binary carries no example code.
struct ExtraScenario {
  std::string name;
  std::function<Status(Context&)> run;
};

// Runs `indelible bench <args...>` (args excludes "indelible" and "bench");
// returns the process exit code.
int Main(const std::vector<std::string>& args, const std::vector<ExtraScenario>& extra = {});

}  // namespace indelible::bench

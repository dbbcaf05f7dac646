// `indelible bench ...`: the benchmarks, run from the CLI.
#pragma once

#include <string>
#include <vector>

namespace indelible::bench {

// Runs `indelible bench <args...>` (args excludes "indelible" and "bench");
// returns the process exit code.
int Main(const std::vector<std::string>& args);

}  // namespace indelible::bench

// indelible-bench: runs `indelible bench` without the CLI, with the scenarios
// that need example code (projection), e.g.
//   indelible-bench all --data /var/tmp/bench --runs 3
#include <string>
#include <vector>

#include "bench/bench_main.h"
#include "bench/projection_scenario.h"

int main(int argc, char** argv) {
  using namespace indelible::bench;
  return Main(std::vector<std::string>(argv + 1, argv + argc),
              {ExtraScenario{"projection", RunProjection}});
}

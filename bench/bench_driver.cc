// indelible-bench: runs `indelible bench` without the CLI, e.g.
//   indelible-bench all --data /var/tmp/bench --runs 3
#include <string>
#include <vector>

#include "bench/bench_main.h"

int main(int argc, char** argv) {
  return indelible::bench::Main(std::vector<std::string>(argv + 1, argv + argc));
}

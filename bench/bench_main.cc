#include "bench/bench_main.h"

#include <cstdio>

namespace indelible::bench {

int Main(const std::vector<std::string>&) {
  std::fprintf(stderr, "indelible bench: not built yet\n");
  return 1;
}

}  // namespace indelible::bench

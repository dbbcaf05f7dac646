// FUZZ_CHECK: an invariant of a harness. A failure prints what broke and
// aborts, which libFuzzer reports as a crash and saves the input.
#pragma once

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(condition, what)                                                        \
  do {                                                                                     \
    if (!(condition)) {                                                                    \
      std::fprintf(stderr, "%s:%d: invariant failed: %s (%s)\n", __FILE__, __LINE__, what, \
                   #condition);                                                            \
      std::abort();                                                                        \
    }                                                                                      \
  } while (0)

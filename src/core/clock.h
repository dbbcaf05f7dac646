// The wall clock as the store reads it: Unix milliseconds, the unit of
// event timestamps, leases and lags. One definition, so that every layer
// stamps and compares the same way.
#pragma once

#include <chrono>
#include <cstdint>

namespace indelible {

inline std::int64_t UnixMillisNow() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace indelible

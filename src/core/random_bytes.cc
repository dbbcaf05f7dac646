#include "core/random_bytes.h"

#include <pthread.h>
#include <sys/random.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace indelible {
namespace {

// Bumped in a forked child, so that pools copied from the parent are
// refilled before use.
std::atomic<std::uint64_t> fork_generation{0};

void CountFork() { fork_generation.fetch_add(1, std::memory_order_relaxed); }

void Fill(std::uint8_t* out, std::size_t size) {
  while (size > 0) {
    const ssize_t got = ::getrandom(out, size, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      // No kernel generator (Linux before 3.17): there is no safe way to
      // make ids, and a store that made guessable ones would be worse.
      std::abort();
    }
    out += got;
    size -= static_cast<std::size_t>(got);
  }
}

// 4 KiB: one getrandom per 256 event ids.
struct Pool {
  std::array<std::uint8_t, 4096> bytes;
  std::size_t used = sizeof(bytes);
  std::uint64_t generation = 0;
};

}  // namespace

void RandomBytes(std::uint8_t* out, std::size_t size) {
  static std::once_flag at_fork;
  std::call_once(at_fork, [] { ::pthread_atfork(nullptr, nullptr, CountFork); });
  thread_local Pool pool;
  const std::uint64_t generation = fork_generation.load(std::memory_order_relaxed);
  if (pool.generation != generation) {
    pool.used = pool.bytes.size();
    pool.generation = generation;
  }
  while (size > 0) {
    if (pool.used == pool.bytes.size()) {
      Fill(pool.bytes.data(), pool.bytes.size());
      pool.used = 0;
    }
    const std::size_t take = std::min(size, pool.bytes.size() - pool.used);
    std::memcpy(out, pool.bytes.data() + pool.used, take);
    // What was handed out is not kept where a later fork or dump could find it.
    std::memset(pool.bytes.data() + pool.used, 0, take);
    pool.used += take;
    out += take;
    size -= take;
  }
}

}  // namespace indelible

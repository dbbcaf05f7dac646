#pragma once

#include <cstddef>
#include <cstdint>

namespace indelible {

// Fills `out` with `size` bytes from the kernel's cryptographic random
// generator (getrandom(2)), through a small per-thread pool so that making
// an event id costs a copy, not a system call. Safe to call from any
// thread; a child process made by fork() never reuses bytes its parent
// had pooled (the pools are dropped in the child).
//
// Why not std::mt19937 seeded from std::random_device: a 32-bit seed gives
// two threads or two processes the same id sequence with a birthday chance
// of about n^2 / 2^33 over n seeds (1 % by ten thousand restarts of a busy
// server), and its output can be predicted from a few hundred ids, letting
// a writer take the ids another writer is about to be given. RFC 9562
// (section 6.9) asks UUID v4 bits to come from a CSPRNG.
void RandomBytes(std::uint8_t* out, std::size_t size);

}  // namespace indelible

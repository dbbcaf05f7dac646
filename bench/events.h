// The events the benchmarks append: WORKLOAD.md's 200-byte ledger payload
//   {"accountId":"account-000042","seq":7,"amount":51234,"currency":"EUR","memo":"xx...x"}
// padded with memo characters to an exact size.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <string_view>

#include "indelible/event.h"

namespace indelible::bench {

// Stream name `account-NNNNNN` (6 digits).
std::string AccountStream(std::uint64_t index);

// The ledger payload of exactly `bytes` bytes, or an empty string when
// `bytes` is too small to hold the fixed fields.
std::string LedgerPayload(std::string_view stream, std::uint64_t seq, std::uint32_t amount,
                          std::size_t bytes);

// A `Deposited` event with a fresh UUID v4 id, no metadata, and the ledger
// payload (uniform random amount 1..100000 drawn from `rng`).
EventData DepositedEvent(std::string_view stream, std::uint64_t seq, std::size_t bytes,
                         std::mt19937& rng);

}  // namespace indelible::bench

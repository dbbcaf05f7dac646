#include "bench/engine_stats.h"

#include <cstdlib>
#include <string>
#include <string_view>

#include "storage/embedded/engine.h"
#include "store/forwarding_store.h"

namespace indelible::bench {
namespace {

// Parses RocksDB's NumberToHumanString ("9876", "12K", "3M") at text[at...].
std::optional<std::uint64_t> ParseHuman(std::string_view text, std::size_t& at, bool& rounded) {
  std::uint64_t n = 0;
  std::size_t start = at;
  while (at < text.size() && text[at] >= '0' && text[at] <= '9') n = n * 10 + (text[at++] - '0');
  if (at == start) return std::nullopt;
  if (at < text.size()) {
    std::uint64_t scale = 1;
    switch (text[at]) {
      case 'K':
        scale = 1000;
        break;
      case 'M':
        scale = 1000 * 1000;
        break;
      case 'G':
        scale = 1000 * 1000 * 1000;
        break;
      default:
        break;
    }
    if (scale != 1) {
      ++at;
      rounded = true;
      n *= scale;
    }
  }
  return n;
}

}  // namespace

std::optional<WalStats> ReadWalStats(Store& store) {
  // Store::Open's stores wrap the backend (store/forwarding_store.h).
  Store* backend = &store;
  while (auto* wrapped = dynamic_cast<store::ForwardingStore*>(backend))
    backend = &wrapped->inner();
  auto* embedded = dynamic_cast<storage::embedded::EmbeddedStore*>(backend);
  if (embedded == nullptr) return std::nullopt;
  std::string text;
  if (!embedded->db()->GetProperty("rocksdb.dbstats", &text)) return std::nullopt;
  // "Cumulative WAL: 12K writes, 12K syncs, 1.00 writes per sync, ..."
  static constexpr std::string_view kPrefix = "Cumulative WAL: ";
  std::size_t at = text.find(kPrefix);
  if (at == std::string::npos) return std::nullopt;
  at += kPrefix.size();
  WalStats stats;
  auto writes = ParseHuman(text, at, stats.approximate);
  static constexpr std::string_view kMiddle = " writes, ";
  if (!writes || std::string_view(text).substr(at, kMiddle.size()) != kMiddle) return std::nullopt;
  at += kMiddle.size();
  auto syncs = ParseHuman(text, at, stats.approximate);
  if (!syncs) return std::nullopt;
  stats.writes = *writes;
  stats.syncs = *syncs;
  return stats;
}

}  // namespace indelible::bench

#include "bench/events.h"

#include <fmt/format.h>

namespace indelible::bench {

std::string AccountStream(std::uint64_t index) { return fmt::format("account-{:06d}", index); }

std::string LedgerPayload(std::string_view stream, std::uint64_t seq, std::uint32_t amount,
                          std::size_t bytes) {
  std::string text = fmt::format(
      R"({{"accountId":"{}","seq":{},"amount":{},"currency":"EUR","memo":")", stream, seq, amount);
  static constexpr std::string_view kClose = "\"}";
  if (text.size() + kClose.size() > bytes) return {};
  text.append(bytes - text.size() - kClose.size(), 'x');
  text += kClose;
  return text;
}

EventData DepositedEvent(std::string_view stream, std::uint64_t seq, std::size_t bytes,
                         std::mt19937& rng) {
  std::uniform_int_distribution<std::uint32_t> amount(1, 100000);
  EventData event;
  event.id = EventId::Random();
  event.type = "Deposited";
  event.data = LedgerPayload(stream, seq, amount(rng), bytes);
  return event;
}

}  // namespace indelible::bench

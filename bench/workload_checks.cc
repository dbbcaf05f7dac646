// The workload's parameters and its checks (untimed after the append phase;
// inside the timed read phases, where they are part of what a reader does).
#include <fmt/format.h>

#include <cstdlib>
#include <random>

#include "bench/events.h"
#include "bench/workload.h"

namespace indelible::bench {
namespace {

Result<std::optional<std::uint64_t>> FromEnv(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return std::optional<std::uint64_t>();
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (*end != '\0' || value == 0 || text[0] == '-')
    return Status::Invalid(name, fmt::format("{}='{}' is not a positive integer", name, text));
  return std::optional<std::uint64_t>(value);
}

Status BadEvent(std::string_view where, const EventView& event, std::string_view why) {
  return Status::Internal(
      fmt::format("workload check failed in {}: event at position {} of '{}' "
                  "(version {}): {}",
                  where, event.position.value(), event.stream, event.version.value(), why));
}

// Stream index of `account-NNNNNN`, or streams when the name is not ours.
std::uint64_t StreamIndex(std::string_view stream, std::uint64_t streams) {
  static constexpr std::string_view kPrefix = "account-";
  if (!stream.starts_with(kPrefix) || stream.size() != kPrefix.size() + 6) return streams;
  std::uint64_t index = 0;
  for (char c : stream.substr(kPrefix.size())) {
    if (c < '0' || c > '9') return streams;
    index = index * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return index < streams ? index : streams;
}

}  // namespace

Result<WorkloadParams> ReadWorkloadParams(const Options& options) {
  WorkloadParams params;
  for (auto [name, target] : {std::pair{"EVENTS", &params.events}, {"STREAMS", &params.streams}}) {
    auto value = FromEnv(name);
    if (!value.ok()) return value.status();
    if (*value) *target = **value;
  }
  auto clients = FromEnv("CLIENTS");
  if (!clients.ok()) return clients.status();
  if (*clients) params.clients = static_cast<int>(**clients);
  auto page = FromEnv("PAGE");
  if (!page.ok()) return page.status();
  if (*page) params.page = static_cast<std::size_t>(**page);
  auto per_append = FromEnv("PER_APPEND");
  if (!per_append.ok()) return per_append.status();
  if (*per_append) params.per_append = **per_append;

  if (options.events) params.events = *options.events;
  if (options.streams) params.streams = *options.streams;
  if (options.clients) params.clients = *options.clients;
  if (options.page) params.page = *options.page;
  if (params.events == 0 || params.streams == 0 || params.clients < 1 || params.page == 0)
    return Status::Invalid("workload", "EVENTS, STREAMS, CLIENTS and PAGE must be positive");
  if (params.streams > 1000000)
    return Status::Invalid("STREAMS", "stream names have 6 digits: STREAMS <= 1000000");
  if (params.events % params.streams != 0)
    return Status::Invalid("EVENTS", fmt::format("EVENTS={} is not a multiple of STREAMS={}",
                                                 params.events, params.streams));
  if (params.per_append == 0 || params.per_stream() % params.per_append != 0)
    return Status::Invalid("PER_APPEND", fmt::format("PER_APPEND={} does not divide PER_STREAM={}",
                                                     params.per_append, params.per_stream()));
  if (params.streams % static_cast<std::uint64_t>(params.clients) != 0)
    return Status::Invalid("CLIENTS", fmt::format("CLIENTS={} does not divide STREAMS={}",
                                                  params.clients, params.streams));
  return params;
}

Status CheckStreamHeads(Store& store, const WorkloadParams& params) {
  const auto last_version = static_cast<std::int64_t>(params.per_stream()) - 1;
  auto check_head = [&](std::uint64_t s) -> Status {
    auto head = store.Head(AccountStream(s));
    if (!head.ok()) return head.status();
    if (head->version.value() != last_version || head->deleted)
      return Status::Internal(
          fmt::format("workload check failed: stream '{}' is at version {}, "
                      "expected {}",
                      AccountStream(s), head->version.value(), last_version));
    return Status::Ok();
  };
  for (std::uint64_t s = 0; s < params.streams; ++s)
    if (Status st = check_head(s); !st.ok()) return st;

  // A stale expected version must be rejected and write nothing.
  std::mt19937 rng(1);
  std::vector<EventData> stale;
  stale.push_back(
      DepositedEvent(AccountStream(0), params.per_stream(), kWorkloadPayloadBytes, rng));
  const Expected expected = last_version == 0 ? Expected::no_stream()
                                              : Expected::exactly(StreamVersion(last_version - 1));
  auto rejected = store.Append(AccountStream(0), expected, std::move(stale));
  if (rejected.ok() || rejected.status().code() != ErrorCode::kConflict ||
      rejected.status().actual_version() != last_version)
    return Status::Internal(fmt::format(
        "workload check failed: an append expecting {} on a stream at version {} returned {}",
        expected.ToString(), last_version, rejected.ok() ? "ok" : rejected.status().ToString()));
  if (Status st = check_head(0); !st.ok())
    return Status::Internal("workload check failed: the rejected append wrote events: " +
                            st.ToString());
  return Status::Ok();
}

Status CheckAllEvents(Store& store, const WorkloadParams& params) {
  // Exactly EVENTS: the rejected append of CheckStreamHeads wrote nothing.
  if (store.LastPosition().value() != params.events)
    return Status::Internal(fmt::format("workload check failed: last position {}, expected {}",
                                        store.LastPosition().value(), params.events));
  // Every event once, each stream's versions in order, every payload 200 bytes.
  std::vector<std::int64_t> next(params.streams, 0);
  auto cursor = store.ReadAll();
  if (!cursor.ok()) return cursor.status();
  std::uint64_t count = 0;
  for (; (*cursor)->Valid(); (*cursor)->Next(), ++count) {
    const EventView& event = (*cursor)->event();
    const std::uint64_t s = StreamIndex(event.stream, params.streams);
    if (s == params.streams) return BadEvent("$all", event, "not a workload stream");
    if (event.version.value() != next[s]++) return BadEvent("$all", event, "version out of order");
    if (event.data.size() != kWorkloadPayloadBytes)
      return BadEvent("$all", event, fmt::format("payload of {} bytes", event.data.size()));
  }
  if (Status s = (*cursor)->status(); !s.ok()) return s;
  if (count != params.events)
    return Status::Internal(fmt::format("workload check failed: $all has {} events, expected {}",
                                        count, params.events));
  return Status::Ok();
}

Status CheckAppended(Store& store, const WorkloadParams& params) {
  if (Status s = CheckStreamHeads(store, params); !s.ok()) return s;
  return CheckAllEvents(store, params);
}

Status ReadStreamsPaged(Store& store, const WorkloadParams& params, int client,
                        std::atomic<std::uint64_t>* done) {
  const auto per_stream = static_cast<std::int64_t>(params.per_stream());
  for (std::uint64_t s = static_cast<std::uint64_t>(client); s < params.streams;
       s += static_cast<std::uint64_t>(params.clients)) {
    const std::string stream = AccountStream(s);
    std::int64_t next = 0;
    for (;;) {
      ReadStreamOptions options;
      options.from = StreamVersion(next);
      options.limit = params.page;
      auto cursor = store.ReadStream(stream, options);
      if (!cursor.ok()) return cursor.status();
      std::size_t in_page = 0;
      for (; (*cursor)->Valid(); (*cursor)->Next(), ++in_page) {
        const EventView& event = (*cursor)->event();
        if (event.version.value() != next++) return BadEvent("read", event, "version out of order");
        if (event.data.size() != kWorkloadPayloadBytes)
          return BadEvent("read", event, fmt::format("payload of {} bytes", event.data.size()));
      }
      if (Status st = (*cursor)->status(); !st.ok()) return st;
      if (done != nullptr) done->fetch_add(in_page, std::memory_order_relaxed);
      if (in_page < params.page) break;
    }
    if (next != per_stream)
      return Status::Internal(
          fmt::format("workload check failed: read {} events of '{}', "
                      "expected {}",
                      next, stream, per_stream));
  }
  return Status::Ok();
}

Status ReadAllPaged(Store& store, const WorkloadParams& params, std::atomic<std::uint64_t>* done) {
  std::uint64_t count = 0;
  std::uint64_t last = 0;
  Position from(0);
  for (;;) {
    ReadAllOptions options;
    options.from = from;
    options.limit = params.page;
    auto cursor = store.ReadAll(options);
    if (!cursor.ok()) return cursor.status();
    std::size_t in_page = 0;
    for (; (*cursor)->Valid(); (*cursor)->Next(), ++in_page, ++count) {
      const EventView& event = (*cursor)->event();
      if (event.position.value() <= last) return BadEvent("read_all", event, "position repeated");
      last = event.position.value();
      if (event.data.size() != kWorkloadPayloadBytes)
        return BadEvent("read_all", event, fmt::format("payload of {} bytes", event.data.size()));
    }
    if (Status s = (*cursor)->status(); !s.ok()) return s;
    if (done != nullptr) done->fetch_add(in_page, std::memory_order_relaxed);
    from = (*cursor)->next_position();
    if (in_page < params.page) break;
  }
  if (count != params.events)
    return Status::Internal(fmt::format(
        "workload check failed: read_all got {} events, expected {}", count, params.events));
  return Status::Ok();
}

}  // namespace indelible::bench

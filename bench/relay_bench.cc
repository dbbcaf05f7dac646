// relay: NatsRelay (include/indelible/nats_relay.h) from an embedded store to
// a real nats-server -js given by --nats (scripts/bench-relay.sh starts one
// on a free loopback port). 200,000 stored events (written first, 100 per
// append over 1,000 streams, untimed; the store reopened) are relayed by a consumer group into
// a fresh JetStream stream on file storage: asynchronous publishes, every
// acknowledgement checked before the group's ack. Timed from Run to caught
// up; afterwards the stream must hold exactly that many messages.
// Target: >= 50,000 events/s.
#include <fmt/format.h>
#include <indelible/consumer_group.h>
#include <indelible/nats_relay.h>
#include <nats/nats.h>

#include "bench/scenarios.h"
#include "bench/stored_group.h"

namespace indelible::bench {
namespace {

// The message count of a JetStream stream; deletes the stream afterwards
// (a benchmark leaves nothing behind in the server).
Result<std::uint64_t> CountAndDelete(const std::string& url, const std::string& stream) {
  natsConnection* conn = nullptr;
  jsCtx* js = nullptr;
  jsStreamInfo* info = nullptr;
  jsErrCode code{};
  if (natsConnection_ConnectTo(&conn, url.c_str()) != NATS_OK)
    return Status::Unavailable(fmt::format("relay: cannot reconnect to {}", url));
  std::uint64_t count = 0;
  if (natsConnection_JetStream(&js, conn, nullptr) == NATS_OK &&
      js_GetStreamInfo(&info, js, stream.c_str(), nullptr, &code) == NATS_OK) {
    count = info->State.Msgs;
    jsStreamInfo_Destroy(info);
    (void)js_DeleteStream(js, stream.c_str(), nullptr, &code);
  }
  jsCtx_Destroy(js);
  natsConnection_Destroy(conn);
  return count;
}

}  // namespace

Status RunRelay(Context& context) {
  const Options& options = context.options();
  if (options.nats.empty())
    return Status::Invalid("nats",
                           "the relay benchmark needs a NATS server: give --nats URL, "
                           "or run scripts/bench-relay.sh, which starts one");
  const std::uint64_t events = options.events.value_or(200000);
  ScratchFolder folder(context, "relay");
  if (!folder.error().empty()) return Status::Unavailable(folder.error());
  auto stored = OpenStoredGroup(context, folder.path(), events, "relay: writing", "relay");
  if (!stored.ok()) return stored.status();
  auto source = GroupRelaySource(*stored->group, "relay");

  NatsRelayOptions relay_options;
  relay_options.nats_url = options.nats;
  const auto tag = std::chrono::steady_clock::now().time_since_epoch().count();
  relay_options.stream = fmt::format("BENCH{}", tag);
  relay_options.subject_prefix = fmt::format("bench{}", tag);
  relay_options.stop_when_idle = true;
  auto relay = NatsRelay::Connect(relay_options);
  if (!relay.ok()) return relay.status();

  Progress progress("relay: publishing", events);
  std::atomic<bool> stop{false};
  Stopwatch watch;
  Status run = (*relay)->Run(
      *source, stop, [&](const NatsRelayStats& stats) { progress.Update(stats.published); });
  const double seconds = watch.Seconds();
  const double cpu = watch.CpuSeconds();
  progress.Finish();
  if (!run.ok()) return run;
  const NatsRelayStats stats = (*relay)->stats();
  auto held = CountAndDelete(options.nats, relay_options.stream);
  if (!held.ok()) return held.status();
  if (stats.published != events || *held != events)
    return Status::Internal(fmt::format("relay: {} events, {} published, JetStream holds {}",
                                        events, stats.published, *held));
  const Conditions conditions{events, 1, options.event_bytes, 100, 1000};
  Line extra;
  extra.Add("batch", static_cast<std::uint64_t>(relay_options.batch))
      .Add("jetstream", "file")
      .Add("acks", "checked")
      .Add("cpu_s", cpu, 3)
      .Add("seconds", seconds, 3);
  context.AddFigure("relay", "events_per_s", static_cast<double>(events) / seconds, 0, conditions,
                    Target::AtLeast(50000), false, extra);
  return Status::Ok();
}

}  // namespace indelible::bench

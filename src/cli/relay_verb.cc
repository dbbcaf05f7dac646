// `indelible relay nats`: NatsRelay (include/indelible/nats_relay.h) from a
// terminal, until SIGINT/SIGTERM (or, with --until-caught-up, until the
// group has nothing more). Its progress is a consumer group: opened in this
// process with --data, or the server's with --url (pulled in order).
#include <fmt/format.h>
#include <indelible/client.h>
#include <indelible/consumer_group.h>
#include <indelible/nats_relay.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <thread>

#include "cli/cli.h"

namespace indelible::cli {
namespace {

using std::chrono::milliseconds;

std::atomic<bool> g_stop{false};
extern "C" void OnRelaySignal(int) { g_stop.store(true); }

struct RelayArgs {
  NatsRelayOptions relay;
  std::string group;  // default: relay-nats-<stream>
  AllFilter filter;
  std::int64_t lease_ms = 60000;
};

std::string UniqueConsumerName() {
  return fmt::format("relay-{}-{}", ::getpid(), EventId::Random().ToString().substr(0, 8));
}

// The server's group through the HTTP client, pulled in position order.
class RemoteSource final : public RelaySource {
 public:
  RemoteSource(std::unique_ptr<Client> client, std::string group)
      : client_(std::move(client)), group_(std::move(group)) {}
  Result<std::vector<Delivery>> Pull(std::size_t max, milliseconds wait) override {
    return client_->Pull(group_, consumer_, max, wait, /*in_order=*/true);
  }
  Status Ack(const std::vector<Position>& positions) override {
    return client_->Ack(group_, positions);
  }
  Result<bool> CaughtUp() override {
    auto info = client_->ConsumerGroupStatus(group_);
    if (!info.ok()) return info.status();
    return info->checkpoint >= info->last_position;
  }

 private:
  std::unique_ptr<Client> client_;
  const std::string group_;
  // Unique to this process: events a killed relay left in flight must not
  // count as ours (PullInOrder goes past a consumer's own deliveries).
  const std::string consumer_ = UniqueConsumerName();
};

// A status line on stderr when it is a terminal, at most once a second.
class RelayProgress {
 public:
  void operator()(const NatsRelayStats& stats) {
    if (!isatty(STDERR_FILENO)) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::seconds(1)) return;
    const double seconds = std::chrono::duration<double>(now - start_).count();
    std::fprintf(stderr,
                 "\r\033[Krelay: %llu published, %llu already there, position %llu, %.0f ev/s%s%s",
                 static_cast<unsigned long long>(stats.published),
                 static_cast<unsigned long long>(stats.skipped),
                 static_cast<unsigned long long>(stats.position.value()),
                 seconds > 0 ? static_cast<double>(stats.published) / seconds : 0.0,
                 stats.last_error.empty() ? "" : "; last error: ", stats.last_error.c_str());
    last_ = now;
    drawn_ = true;
  }
  ~RelayProgress() {
    if (drawn_) std::fprintf(stderr, "\n");
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
  bool drawn_ = false;
};

int RunRelay(const Cli& cli, RelayArgs args) {
  if (args.group.empty()) args.group = "relay-nats-" + args.relay.stream;
  ConsumerGroupOptions group_options;
  group_options.filter = args.filter;
  group_options.lease = milliseconds(args.lease_ms);
  // The relay waits out NATS outages itself; the group must not block it.
  group_options.max_attempts = 1000000;

  // NATS first: bad relay flags are refused before the group is created.
  std::signal(SIGINT, OnRelaySignal);
  std::signal(SIGTERM, OnRelaySignal);
  // A relay is a service: NATS not being up yet is waited out like an
  // outage later on (said once on stderr); anything else stops it.
  auto relay = NatsRelay::Connect(args.relay);
  for (auto backoff = milliseconds(100);
       !relay.ok() && relay.status().code() == ErrorCode::kUnavailable && !g_stop.load();
       backoff = std::min(backoff * 2, milliseconds(2000))) {
    static bool said = false;
    if (!said) std::fprintf(stderr, "indelible: %s; retrying\n", relay.status().message().c_str());
    said = true;
    std::this_thread::sleep_for(backoff);
    relay = NatsRelay::Connect(args.relay);
  }
  if (g_stop.load()) return 0;
  if (!relay.ok()) return cli.Fail(relay.status());
  std::unique_ptr<Store> store;
  std::unique_ptr<ConsumerGroup> group;
  std::unique_ptr<RelaySource> source;
  if (cli.remote()) {
    auto client = Client::Connect(cli.url, cli.client_options());
    if (!client.ok()) return cli.Fail(client.status());
    if (Status s = (*client)->CreateConsumerGroup(args.group, group_options); !s.ok())
      return cli.Fail(s);
    source = std::make_unique<RemoteSource>(std::move(*client), args.group);
  } else {
    auto opened = OpenCheckingWriter(cli);
    if (!opened.ok()) return cli.Fail(opened.status());
    store = std::move(*opened);
    if (Status s = ConsumerGroup::Create(*store, args.group, group_options); !s.ok())
      return cli.Fail(s);
    auto g = ConsumerGroup::Open(*store, args.group);
    if (!g.ok()) return cli.Fail(g.status());
    group = std::move(*g);
    source = GroupRelaySource(*group, UniqueConsumerName());
  }
  RelayProgress progress;
  Status s = (*relay)->Run(*source, g_stop, [&](const NatsRelayStats& st) { progress(st); });
  if (group) (void)group->Flush();
  if (!s.ok()) return cli.Fail(s);
  const NatsRelayStats stats = (*relay)->stats();
  if (cli.json)
    std::printf(R"({"published":%llu,"skipped":%llu,"position":%llu})"
                "\n",
                static_cast<unsigned long long>(stats.published),
                static_cast<unsigned long long>(stats.skipped),
                static_cast<unsigned long long>(stats.position.value()));
  else
    std::printf(
        "relayed %llu event(s) to JetStream stream %s (%llu already there), position %llu\n",
        static_cast<unsigned long long>(stats.published), args.relay.stream.c_str(),
        static_cast<unsigned long long>(stats.skipped),
        static_cast<unsigned long long>(stats.position.value()));
  return 0;
}

}  // namespace

void AddRelayVerb(CLI::App& app, Cli& cli) {
  CLI::App* relay = app.add_subcommand("relay", "relay events to another system");
  relay->require_subcommand(1);
  auto args = std::make_shared<RelayArgs>();
  CLI::App* nats = relay->add_subcommand(
      "nats", "publish events to NATS JetStream in position order, exactly once (docs/RELAY.md)");
  nats->add_option("--nats", args->relay.nats_url, "NATS server URL")->capture_default_str();
  nats->add_option("--stream", args->relay.stream, "JetStream stream (created if missing)")
      ->capture_default_str();
  nats->add_option("--subject-prefix", args->relay.subject_prefix,
                   "subjects are PREFIX.<category>.<type>")
      ->capture_default_str();
  nats->add_option(
      "--group", args->group,
      "the consumer group that keeps the relay's progress (default relay-nats-STREAM)");
  AddFilterFlags(nats, &args->filter);
  nats->add_option("--batch", args->relay.batch, "events per round trip")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  nats->add_option("--lease-ms", args->lease_ms,
                   "the group's lease: how soon a killed relay's events go out again")
      ->capture_default_str();
  nats->add_flag("--memory-storage", args->relay.memory_storage,
                 "create the JetStream stream in memory instead of on disk");
  nats->add_flag("--until-caught-up", args->relay.stop_when_idle,
                 "stop once every event so far is relayed");
  nats->callback([&cli, args] { cli.run = [&cli, args] { return RunRelay(cli, *args); }; });
}

}  // namespace indelible::cli

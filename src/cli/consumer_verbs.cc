// consumers: consumer groups from a terminal (docs/CLI.md).
//
// With --url every subcommand talks to the server, which holds the groups'
// leases and blocked state: that is how an operator retries or skips a
// blocked group, and how workers in other processes share a group. With
// --data the CLI opens the group itself, for one process at a time: create,
// list, status, delete, and `pull --ack` (a drain); ack, nack, retry and
// skip refer to deliveries and a blocked state that live in the process
// that made them, so they need --url.
#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "api/wire.h"
#include "cli/cli.h"
#include "core/event_json.h"
#include "indelible/client.h"
#include "indelible/consumer_group.h"

namespace indelible::cli {
namespace {

using std::chrono::milliseconds;

struct GroupArgs {
  std::string group;
  ConsumerGroupOptions options;
  std::int64_t start = 0;
  std::int64_t lease_ms = 30000;
  std::int64_t initial_backoff_ms = 100;
  std::int64_t max_backoff_ms = 10000;
  std::string consumer = "cli";
  std::size_t max = 100;
  std::int64_t wait_ms = 0;
  bool ack = false;
  std::vector<std::uint64_t> positions;
  std::string reason = "nacked from the CLI";
  std::int64_t wait_for = -1;
  std::int64_t timeout_ms = 5000;
  std::string policy = "block";
};

std::string InfoLine(const Cli& cli, const ConsumerGroupInfo& info) {
  if (cli.json) return api::ConsumerGroupInfoToJson(info);
  std::string line = fmt::format("{} checkpoint {} of {} (lag {} events, {:.1f} s), {} in flight",
                                 info.name, info.checkpoint.value(), info.last_position.value(),
                                 info.lag_events, info.lag_seconds, info.in_flight);
  if (info.blocked_at)
    line += fmt::format(", BLOCKED at {}: {}", info.blocked_at->value(), info.blocked_reason);
  if (info.parked_streams > 0 || info.replaying)
    line += fmt::format(", {} parked event(s) in {} stream(s){}", info.parked_events,
                        info.parked_streams, info.replaying ? ", replaying" : "");
  return line;
}

// The groups through the server (--url) or through a local folder (--data).
class Groups {
 public:
  virtual ~Groups() = default;
  virtual Status Create(const std::string& group, const ConsumerGroupOptions& options) = 0;
  virtual Result<std::vector<ConsumerGroupInfo>> List() = 0;
  virtual Result<ConsumerGroupInfo> Info(const std::string& group) = 0;
  virtual Result<bool> WaitFor(const std::string& group, Position position, milliseconds t) = 0;
  virtual Status Delete(const std::string& group) = 0;
  virtual Result<std::vector<Delivery>> Pull(const GroupArgs& args) = 0;
  virtual Status Ack(const std::string& group, const std::vector<Position>& positions) = 0;
  virtual Status Nack(const std::string& group, Position position, const std::string& why) = 0;
  virtual Status Retry(const std::string& group) = 0;
  virtual Status Skip(const std::string& group) = 0;
  virtual Status Replay(const std::string& group) = 0;
};

class RemoteGroups final : public Groups {
 public:
  explicit RemoteGroups(std::unique_ptr<Client> client) : client_(std::move(client)) {}
  Status Create(const std::string& g, const ConsumerGroupOptions& o) override {
    return client_->CreateConsumerGroup(g, o);
  }
  Result<std::vector<ConsumerGroupInfo>> List() override { return client_->ListConsumerGroups(); }
  Result<ConsumerGroupInfo> Info(const std::string& g) override {
    return client_->ConsumerGroupStatus(g);
  }
  Result<bool> WaitFor(const std::string& g, Position p, milliseconds t) override {
    return client_->WaitForConsumerGroup(g, p, t);
  }
  Status Delete(const std::string& g) override { return client_->DeleteConsumerGroup(g); }
  Result<std::vector<Delivery>> Pull(const GroupArgs& a) override {
    return client_->Pull(a.group, a.consumer, a.max, milliseconds(a.wait_ms));
  }
  Status Ack(const std::string& g, const std::vector<Position>& p) override {
    return client_->Ack(g, p);
  }
  Status Nack(const std::string& g, Position p, const std::string& why) override {
    return client_->Nack(g, p, why);
  }
  Status Retry(const std::string& g) override { return client_->RetryConsumerGroup(g); }
  Status Skip(const std::string& g) override { return client_->SkipConsumerGroup(g); }
  Status Replay(const std::string& g) override { return client_->ReplayParked(g); }

 private:
  std::unique_ptr<Client> client_;
};

class LocalGroups final : public Groups {
 public:
  explicit LocalGroups(std::unique_ptr<Store> store) : store_(std::move(store)) {}
  Status Create(const std::string& g, const ConsumerGroupOptions& o) override {
    return ConsumerGroup::Create(*store_, g, o);
  }
  Result<std::vector<ConsumerGroupInfo>> List() override {
    auto names = ConsumerGroup::List(*store_);
    if (!names.ok()) return names.status();
    std::vector<ConsumerGroupInfo> out;
    for (const auto& name : *names) {
      auto info = Info(name);
      if (!info.ok()) return info.status();
      out.push_back(std::move(*info));
    }
    return out;
  }
  Result<ConsumerGroupInfo> Info(const std::string& g) override {
    auto group = Open(g);
    if (!group.ok()) return group.status();
    return (*group)->info();
  }
  Result<bool> WaitFor(const std::string& g, Position p, milliseconds) override {
    auto info = Info(g);  // nothing acknowledges here: answer at once
    if (!info.ok()) return info.status();
    return info->checkpoint >= p;
  }
  Status Delete(const std::string& g) override {
    auto exists = ConsumerGroup::Exists(*store_, g);
    if (!exists.ok()) return exists.status();
    if (!*exists) return Status::NotFound(fmt::format("no consumer group '{}'", g));
    opened_.reset();
    return ConsumerGroup::Delete(*store_, g);
  }
  Result<std::vector<Delivery>> Pull(const GroupArgs& a) override {
    auto group = Open(a.group);
    if (!group.ok()) return group.status();
    return (*group)->Pull(a.consumer, a.max, milliseconds(a.wait_ms));
  }
  Status Ack(const std::string& g, const std::vector<Position>& p) override {
    if (!opened_) return NeedsServer("ack");
    auto group = Open(g);
    return group.ok() ? (*group)->Ack(p) : group.status();
  }
  Status Nack(const std::string&, Position, const std::string&) override {
    return NeedsServer("nack");
  }
  Status Retry(const std::string&) override { return NeedsServer("retry"); }
  Status Skip(const std::string&) override { return NeedsServer("skip"); }
  // The pass is saved with the group: the process that opens it next runs it.
  Status Replay(const std::string& g) override {
    auto group = Open(g);
    return group.ok() ? (*group)->ReplayParked() : group.status();
  }

 private:
  Result<ConsumerGroup*> Open(const std::string& g) {
    if (opened_ && opened_->name() == g) return opened_.get();
    auto group = ConsumerGroup::Open(*store_, g);
    if (!group.ok()) return group.status();
    opened_ = std::move(*group);
    return opened_.get();
  }
  static Status NeedsServer(std::string_view verb) {
    return Status::Invalid(
        "url", fmt::format("consumers {} acts on deliveries held by the process that has the "
                           "group open: run it with --url against that server",
                           verb));
  }
  std::unique_ptr<Store> store_;
  std::unique_ptr<ConsumerGroup> opened_;  // before store_ is destroyed
};

Result<std::unique_ptr<Groups>> OpenGroups(const Cli& cli) {
  if (cli.remote()) {
    auto client = Client::Connect(cli.url, cli.client_options());
    if (!client.ok()) return client.status();
    return std::unique_ptr<Groups>(new RemoteGroups(std::move(*client)));
  }
  auto store = OpenCheckingWriter(cli);
  if (!store.ok()) return store.status();
  return std::unique_ptr<Groups>(new LocalGroups(std::move(*store)));
}

int Run(const Cli& cli, const std::string& verb, GroupArgs& args) {
  auto groups = OpenGroups(cli);
  if (!groups.ok()) return cli.Fail(groups.status());
  Groups& g = **groups;
  auto print_info = [&](const Result<ConsumerGroupInfo>& info) {
    if (!info.ok()) return cli.Fail(info.status());
    std::printf("%s\n", InfoLine(cli, *info).c_str());
    return 0;
  };
  if (verb == "create") {
    args.options.start = Position(static_cast<std::uint64_t>(args.start));
    args.options.lease = milliseconds(args.lease_ms);
    args.options.initial_backoff = milliseconds(args.initial_backoff_ms);
    args.options.max_backoff = milliseconds(args.max_backoff_ms);
    args.options.policy = args.policy == "park" ? FailurePolicy::kPark : FailurePolicy::kBlock;
    if (Status s = g.Create(args.group, args.options); !s.ok()) return cli.Fail(s);
    return print_info(g.Info(args.group));
  }
  if (verb == "list") {
    auto list = g.List();
    if (!list.ok()) return cli.Fail(list.status());
    for (const auto& info : *list) std::printf("%s\n", InfoLine(cli, info).c_str());
    return 0;
  }
  if (verb == "status") {
    if (args.wait_for >= 0) {
      auto reached = g.WaitFor(args.group, Position(static_cast<std::uint64_t>(args.wait_for)),
                               milliseconds(args.timeout_ms));
      if (!reached.ok()) return cli.Fail(reached.status());
      if (!*reached)
        return cli.Fail(
            Status::Unavailable(fmt::format("the checkpoint of '{}' did not reach {} within {} ms",
                                            args.group, args.wait_for, args.timeout_ms)));
    }
    return print_info(g.Info(args.group));
  }
  if (verb == "delete") {
    if (Status s = g.Delete(args.group); !s.ok()) return cli.Fail(s);
    if (!cli.json) std::printf("deleted consumer group %s\n", args.group.c_str());
    return 0;
  }
  if (verb == "pull") {
    auto batch = g.Pull(args);
    if (!batch.ok()) return cli.Fail(batch.status());
    std::vector<Position> positions;
    for (const Delivery& d : *batch) {
      PrintEvent(cli, d.event.view());
      positions.push_back(d.event.position);
    }
    if (args.ack && !positions.empty())
      if (Status s = g.Ack(args.group, positions); !s.ok()) return cli.Fail(s);
    return 0;
  }
  if (verb == "ack" || verb == "nack") {
    if (args.positions.empty())
      return cli.Fail(Status::Invalid("positions", "give the positions to acknowledge"));
    std::vector<Position> positions;
    for (auto p : args.positions) positions.push_back(Position(p));
    Status s = verb == "ack" ? g.Ack(args.group, positions)
                             : g.Nack(args.group, positions.front(), args.reason);
    if (!s.ok()) return cli.Fail(s);
    return print_info(g.Info(args.group));
  }
  Status s = verb == "retry"  ? g.Retry(args.group)
             : verb == "skip" ? g.Skip(args.group)
                              : g.Replay(args.group);
  if (!s.ok()) return cli.Fail(s);
  return print_info(g.Info(args.group));
}

}  // namespace

void AddConsumerVerbs(CLI::App& app, Cli& cli) {
  CLI::App* consumers =
      app.add_subcommand("consumers", "Consumer groups: create, list, status, pull, ack, ...");
  consumers->require_subcommand(1);
  auto args = std::make_shared<GroupArgs>();
  auto sub = [&](const std::string& verb, const std::string& help) {
    CLI::App* s = consumers->add_subcommand(verb, help);
    if (verb != "list") s->add_option("group", args->group, "consumer group name")->required();
    s->callback(
        [&cli, args, verb] { cli.run = [&cli, args, verb] { return Run(cli, verb, *args); }; });
    return s;
  };
  CLI::App* create = sub("create", "create a group (ok if it exists with the same definition)");
  AddFilterFlags(create, &args->options.filter);
  create->add_option("--start", args->start, "exclusive start position (0: the beginning)");
  create->add_option("--max-attempts", args->options.max_attempts,
                     "deliveries before the policy applies");
  create->add_option("--policy", args->policy, "after the last attempt: block (default) or park")
      ->check(CLI::IsMember({"block", "park"}));
  create->add_option("--lease-ms", args->lease_ms, "how long a consumer may hold an event");
  create->add_option("--initial-backoff-ms", args->initial_backoff_ms, "first retry delay");
  create->add_option("--max-backoff-ms", args->max_backoff_ms, "longest retry delay");
  sub("list", "every group with its checkpoint, lag and state");
  CLI::App* status = sub("status", "checkpoint, lag, in flight, blocked reason");
  status->add_option("--wait-for", args->wait_for,
                     "wait until the checkpoint reaches this position (read-your-writes)");
  status->add_option("--timeout-ms", args->timeout_ms, "how long --wait-for waits");
  sub("delete", "remove the group");
  CLI::App* pull = sub("pull", "print a batch of events for a consumer");
  pull->add_option("--consumer", args->consumer, "the consumer (lease holder) name");
  pull->add_option("--max", args->max, "most events")->check(CLI::Range(1, 10000));
  pull->add_option("--wait-ms", args->wait_ms, "wait this long for events");
  pull->add_flag("--ack", args->ack, "acknowledge what was printed");
  CLI::App* ack = sub("ack", "acknowledge delivered events (--url)");
  ack->add_option("positions", args->positions, "positions")->required();
  CLI::App* nack = sub("nack", "report a failed event (--url)");
  nack->add_option("positions", args->positions, "position")->required()->expected(1);
  nack->add_option("--reason", args->reason, "why the handler failed");
  sub("retry", "deliver a blocked group's event again (--url)");
  sub("skip", "skip a blocked group's event (--url)");
  sub("replay", "deliver the parked events again (policy park)");
}

}  // namespace indelible::cli

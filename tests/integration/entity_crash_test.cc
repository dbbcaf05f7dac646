// Crash test of the entity outbox: entity_crash_writer appends commands whose
// rule publishes an outbound event for every inbound one, and the test kills
// it with SIGKILL at random moments. After each kill: every inbound event
// has exactly one outbound event naming it as its cause and every outbound
// event has its cause (never one without the other), the state record
// equals a replay of the events, nothing acknowledged is lost, and `check`
// passes.
#include <gtest/gtest.h>
#include <indelible/store.h>

#include <chrono>
#include <map>
#include <random>
#include <sstream>
#include <thread>

#include "integration/entity_crash_domain.h"
#include "testutil/child_writer.h"
#include "testutil/temp_dir.h"

namespace indelible {
namespace {

struct Ack {
  std::string stream;
  std::int64_t version;
};

// Runs the writer on `dir` until it has acknowledged a command (the store
// is growing), lets it go on for `then`, kills it with SIGKILL and returns
// the commands it acknowledged.
std::vector<Ack> RunAndKill(const std::string& dir, std::chrono::milliseconds then) {
  testutil::ChildWriter writer(ENTITY_CRASH_WRITER_PATH, {dir, "4"});
  EXPECT_TRUE(writer.ok());
  std::vector<Ack> acks;
  auto parse = [&acks](const std::string& line) {
    std::istringstream words(line);
    std::string tag;
    Ack ack;
    if (words >> tag >> ack.stream >> ack.version && tag == "ack") acks.push_back(ack);
  };
  std::string line;
  if (!writer.ReadLine(&line)) ADD_FAILURE() << "the writer did not start";
  while (acks.empty() && writer.ReadLine(&line)) parse(line);
  EXPECT_FALSE(acks.empty()) << "the writer stopped before its first command";
  std::this_thread::sleep_for(then);
  EXPECT_TRUE(writer.KillAndWait()) << "the writer exited on its own";
  while (writer.ReadLine(&line)) parse(line);
  return acks;
}

std::vector<RecordedEvent> ReadOrEmpty(Store& store, const std::string& stream) {
  auto events = ReadStreamEvents(store, stream);
  if (!events.ok()) {
    EXPECT_EQ(events.status().code(), ErrorCode::kNotFound) << events.status().ToString();
    return {};
  }
  return *events;
}

std::string CausationId(const RecordedEvent& event) {
  boost::system::error_code ec;
  const boost::json::value metadata = boost::json::parse(event.metadata, ec);
  if (ec || !metadata.is_object()) return "<bad metadata>";
  const boost::json::value* id = metadata.as_object().if_contains("causationId");
  return id != nullptr && id->is_string() ? std::string(id->as_string()) : "<no causationId>";
}

// Checks one tally stream and its outbox; returns its inbound events.
std::size_t VerifyTally(Store& store, const Rules<crash::Tally>& rules, const std::string& stream) {
  const auto inbound = ReadOrEmpty(store, stream);
  const auto outbox = ReadOrEmpty(store, "outbox-" + stream);
  std::map<std::string, const RecordedEvent*> causes;
  for (const auto& event : inbound) causes[event.id.ToString()] = &event;
  std::map<std::string, int> effects;
  for (const auto& event : outbox) {
    const std::string cause = CausationId(event);
    ++effects[cause];
    auto it = causes.find(cause);
    if (it == causes.end()) {
      ADD_FAILURE() << stream << ": outbound event at " << event.position.value()
                    << " without its cause " << cause;
      continue;
    }
    EXPECT_EQ(crash::IntegerField(event.data, "n").value(),
              crash::IntegerField(it->second->data, "n").value());
  }
  for (const auto& event : inbound)
    EXPECT_EQ(effects[event.id.ToString()], 1)
        << stream << ": inbound event " << event.version.value() << " has "
        << effects[event.id.ToString()] << " outbound events";
  EXPECT_EQ(outbox.size(), inbound.size()) << stream;
  if (inbound.empty()) return 0;

  // The state as the writer's entity loads it (from its record) equals a
  // replay of every event.
  const crash::Tally replayed_tally = [&] {
    crash::Tally t;
    for (const auto& event : inbound) {
      t.count += 1;
      t.sum += crash::IntegerField(event.data, "n").value();
    }
    return t;
  }();
  const Entity<crash::Tally> writer_view(store, rules, crash::OptionsFor(stream));
  EntityOptions none;
  none.snapshots = SnapshotPolicy::None();
  const Entity<crash::Tally> replay(store, rules, none);
  auto got = writer_view.Get(stream);
  auto all = replay.Get(stream);
  EXPECT_TRUE(got.ok() && all.ok()) << stream;
  if (!got.ok() || !all.ok()) return inbound.size();
  EXPECT_EQ(got->state, all->state) << stream;
  EXPECT_EQ(all->state, replayed_tally) << stream;
  EXPECT_EQ(got->version, all->version) << stream;
  EXPECT_EQ(all->events_read, static_cast<std::int64_t>(inbound.size()));
  if (stream.starts_with("tally-w-")) {
    // Written on every commit, with it: the record covers the head.
    EXPECT_EQ(got->events_read, 0) << stream << ": the state record lags its events";
    EXPECT_EQ(got->snapshot_version, got->version) << stream;
  } else {
    EXPECT_LT(got->events_read, 4) << stream;
  }
  return inbound.size();
}

TEST(EntityCrashTest, KillNineNeverSeparatesOutboundEventsFromTheirCause) {
  testutil::TempDir tmp;
  const std::string dir = tmp.Sub("data");
  const Rules<crash::Tally> rules = crash::TallyRules();
  std::mt19937 rng(std::random_device{}());
  std::vector<Ack> all_acks;
  std::size_t events = 0;
  for (int round = 0; round < 6; ++round) {
    auto acks = RunAndKill(dir, std::chrono::milliseconds(rng() % 300));
    all_acks.insert(all_acks.end(), acks.begin(), acks.end());

    auto opened = Store::Open("file:" + dir);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    Store& store = **opened;
    EXPECT_TRUE(store.Check().ok()) << store.Check().ToString();
    for (const Ack& ack : all_acks) {
      auto head = store.Head(ack.stream);
      EXPECT_TRUE(head.ok() && head->version.value() >= ack.version)
          << "acknowledged " << ack.stream << ":" << ack.version << " lost";
    }
    std::size_t now = 0;
    for (const char* kind : {"w", "n"})
      for (int i = 0; i < 3; ++i)
        now += VerifyTally(store, rules, "tally-" + std::string(kind) + "-" + std::to_string(i));
    EXPECT_GT(now, events) << "round " << round << ": the store did not grow";
    events = now;
    if (HasFailure()) break;
  }
  EXPECT_GT(all_acks.size(), 20u) << "the writer barely wrote: the test proves little";
  RecordProperty("inbound_events", std::to_string(events));
}

}  // namespace
}  // namespace indelible

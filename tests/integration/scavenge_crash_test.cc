// Scavenging under kill -9 (Store::Scavenge, docs/RETENTION.md): a child
// process appends to streams with and without retention (max_count = 50)
// while it scavenges over and over, and is killed at random moments, round
// after round on the same folder. Before each round the test gives the
// trimmed streams a backlog of hidden events, so kills land inside
// scavenge batches and compactions. After each kill:
//   - `check` passes (the scavenge bookkeeping included);
//   - every acknowledged event of a stream without retention is there, with
//     its id at its version;
//   - a trimmed stream reads as exactly its last 50 versions, the
//     acknowledged ones with their ids, and FindEvent agrees;
//   - $all rises strictly and holds each readable event once, as the
//     stream reads have it;
//   - with retention lifted, a trimmed stream is one run of versions from
//     its scavenge floor to its head: a scavenge removed a prefix and never
//     a retained event, and what it removed stays removed;
//   - the next append to each stream gets the next version.
// And scavenges did remove events: the test fails if they never ran.
#include <gtest/gtest.h>
#include <indelible/store.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <random>
#include <sstream>
#include <thread>

#include "testutil/child_writer.h"
#include "testutil/temp_dir.h"

namespace indelible {
namespace {

constexpr int kStreams = 4;
constexpr std::int64_t kMaxCount = 50;
// Hidden events each trimmed stream gets before round 1 and after every
// round: a few scavenge batches (1024 events) of work for the next child.
constexpr int kSeedEvents = 3000;
constexpr int kTopUpEvents = 1500;

std::string Kept(int i) { return "kept-" + std::to_string(i); }
std::string Trimmed(int i) { return "trimmed-" + std::to_string(i); }

// What the store must hold: the acknowledged ids of each stream, by version.
using Known = std::map<std::string, std::map<std::int64_t, EventId>>;

struct Ack {
  std::string stream;
  std::int64_t version = 0;
  EventId id;
};

struct Round {
  std::vector<Ack> acks;
  std::uint64_t scavenges = 0;
  std::uint64_t scavenged = 0;  // events the child's scavenges reported removed
};

Round RunAndKill(const std::string& dir, std::chrono::milliseconds run_for) {
  Round round;
  testutil::ChildWriter writer(SCAVENGE_CRASH_WRITER_PATH, {dir});
  EXPECT_TRUE(writer.ok());
  std::string line;
  if (!writer.ReadLine(&line) || line != "ready\n") {
    ADD_FAILURE() << "scavenge_crash_writer did not start: " << line;
    return round;
  }
  // The child prints faster than a pipe holds: read while it runs, or its
  // threads would wait on a full pipe instead of writing.
  std::vector<std::string> lines;
  std::thread reader([&] {
    std::string printed;
    while (writer.ReadLine(&printed)) lines.push_back(printed);
  });
  std::this_thread::sleep_for(run_for);
  EXPECT_TRUE(writer.KillAndWait()) << "scavenge_crash_writer exited on its own";
  reader.join();
  for (const std::string& printed : lines) {
    std::istringstream words(printed);
    std::string kind;
    words >> kind;
    if (kind == "scavenged") {
      std::uint64_t events = 0;
      words >> events;
      ++round.scavenges;
      round.scavenged += events;
      continue;
    }
    Ack ack;
    std::string id;
    words >> ack.stream >> ack.version >> id;
    auto parsed = EventId::Parse(id);
    EXPECT_TRUE(kind == "ack" && parsed.ok()) << printed;
    if (kind != "ack" || !parsed.ok()) continue;
    ack.id = *parsed;
    round.acks.push_back(ack);
  }
  return round;
}

// Appends `count` events to `stream` in commits of 100, adding them to `known`.
void AppendEvents(Store& store, const std::string& stream, int count, Known* known) {
  for (int done = 0; done < count;) {
    std::vector<EventData> events;
    for (; done < count && events.size() < 100; ++done) {
      EventData tick;
      tick.id = EventId::Random();
      tick.type = "Tick";
      tick.data = R"({"n":-1})";
      events.push_back(tick);
    }
    auto appended = store.Append(stream, Expected::any(), events);
    ASSERT_TRUE(appended.ok()) << appended.status().ToString();
    for (std::size_t i = 0; i < events.size(); ++i)
      (*known)[stream][appended->first_version.value() + static_cast<std::int64_t>(i)] =
          events[i].id;
  }
}

// The events of `stream` as a read returns them, by version.
std::map<std::int64_t, RecordedEvent> ReadByVersion(Store& store, const std::string& stream) {
  std::map<std::int64_t, RecordedEvent> read;
  auto events = ReadStreamEvents(store, stream);
  EXPECT_TRUE(events.ok()) << stream << ": " << events.status().ToString();
  if (!events.ok()) return read;
  for (RecordedEvent& event : *events) {
    const std::int64_t version = event.version.value();
    EXPECT_TRUE(read.emplace(version, std::move(event)).second)
        << stream << " returned version " << version << " twice";
  }
  return read;
}

// That `read` is the run of versions [first, last], and holds every
// acknowledged event of `known` in it with its id.
void ExpectRun(const std::string& what, const std::map<std::int64_t, RecordedEvent>& read,
               std::int64_t first, std::int64_t last,
               const std::map<std::int64_t, EventId>& known) {
  EXPECT_EQ(read.size(), static_cast<std::size_t>(last - first + 1))
      << what << ": expected versions " << first << ".." << last << ", read "
      << (read.empty()
              ? std::string("none")
              : std::to_string(read.begin()->first) + ".." + std::to_string(read.rbegin()->first));
  if (!read.empty()) {
    EXPECT_EQ(read.begin()->first, first) << what;
    EXPECT_EQ(read.rbegin()->first, last) << what;
  }
  for (auto it = known.lower_bound(first); it != known.end() && it->first <= last; ++it) {
    auto found = read.find(it->first);
    EXPECT_TRUE(found != read.end() && found->second.id == it->second)
        << what << ": acknowledged event " << it->second.ToString() << " at version " << it->first
        << (found == read.end() ? " is missing" : " has another id");
  }
}

Result<std::int64_t> HeadVersion(Store& store, const std::string& stream) {
  auto head = store.Head(stream);
  if (!head.ok()) return head.status();
  return head->version.value();
}

// Verifies the folder after a kill (the header's list); then appends one
// event to each stream and, unless `last`, a backlog to the trimmed ones.
// `floors`: each trimmed stream's first version left by scavenges, updated.
void Verify(const std::string& dir, const std::vector<Ack>& round_acks, bool last, Known* known,
            std::map<std::string, std::int64_t>* floors) {
  auto opened = Store::Open("file:" + dir);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  Store& store = **opened;
  const Status checked = store.Check();
  EXPECT_TRUE(checked.ok()) << checked.ToString();

  std::map<std::string, std::map<std::int64_t, RecordedEvent>> streams;
  std::map<std::string, std::int64_t> heads;
  for (int i = 0; i < kStreams; ++i) {
    for (const std::string& stream : {Kept(i), Trimmed(i)}) {
      auto head = HeadVersion(store, stream);
      ASSERT_TRUE(head.ok()) << stream << ": " << head.status().ToString();
      heads[stream] = *head;
      streams[stream] = ReadByVersion(store, stream);
    }
    ExpectRun(Kept(i), streams[Kept(i)], 0, heads[Kept(i)], (*known)[Kept(i)]);
    const std::int64_t first = std::max<std::int64_t>(0, heads[Trimmed(i)] - kMaxCount + 1);
    ExpectRun(Trimmed(i), streams[Trimmed(i)], first, heads[Trimmed(i)], (*known)[Trimmed(i)]);
    auto metadata = store.ReadStreamMetadata(Trimmed(i));
    ASSERT_TRUE(metadata.ok()) << metadata.status().ToString();
    EXPECT_EQ(metadata->metadata.max_count, std::optional<std::uint64_t>(kMaxCount));
  }

  // $all: strictly rising, each readable event once, as the streams read.
  auto all = ReadAllEvents(store);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  std::map<std::string, std::size_t> in_all;
  std::uint64_t previous = 0;
  for (const RecordedEvent& event : *all) {
    EXPECT_GT(event.position.value(), previous) << "$all goes back at " << event.stream;
    previous = event.position.value();
    if (event.stream.starts_with(kMetadataStreamPrefix)) continue;
    ++in_all[event.stream];
    auto stream = streams.find(event.stream);
    if (stream == streams.end()) {
      ADD_FAILURE() << "$all holds an event of an unknown stream " << event.stream;
      continue;
    }
    auto read = stream->second.find(event.version.value());
    EXPECT_TRUE(read != stream->second.end() && read->second.id == event.id &&
                read->second.position == event.position)
        << "$all holds " << event.stream << " version " << event.version.value() << " at position "
        << event.position.value() << ", which a read of the stream does not";
  }
  for (const auto& [stream, read] : streams)
    EXPECT_EQ(in_all[stream], read.size()) << stream << ": $all and the stream disagree";

  // FindEvent on this round's acknowledged events: hidden ones are not found.
  for (const Ack& ack : round_acks) {
    auto found = store.FindEvent(ack.id);
    ASSERT_TRUE(found.ok()) << found.status().ToString();
    const bool readable = streams[ack.stream].contains(ack.version);
    EXPECT_EQ(found->has_value(), readable)
        << ack.stream << " version " << ack.version << " " << ack.id.ToString();
    if (found->has_value()) {
      EXPECT_EQ((*found)->stream, ack.stream);
      EXPECT_EQ((*found)->version.value(), ack.version);
    }
  }

  // Retention lifted: what is left of a trimmed stream is one run from its
  // scavenge floor to its head, and the floor never goes back.
  for (int i = 0; i < kStreams; ++i) {
    const std::string stream = Trimmed(i);
    ASSERT_TRUE(store.WriteStreamMetadata(stream, StreamMetadata()).ok());
    const auto read = ReadByVersion(store, stream);
    ASSERT_FALSE(read.empty()) << stream;
    const std::int64_t floor = read.begin()->first;
    EXPECT_GE(floor, (*floors)[stream]) << stream << ": removed events came back";
    EXPECT_LE(floor, std::max<std::int64_t>(0, heads[stream] - kMaxCount + 1))
        << stream << ": a scavenge removed retained events";
    ExpectRun(stream + " (retention lifted)", read, floor, heads[stream], (*known)[stream]);
    (*floors)[stream] = floor;
    StreamMetadata retention;
    retention.max_count = kMaxCount;
    ASSERT_TRUE(store.WriteStreamMetadata(stream, retention).ok());
  }

  // The store writes on: the next version of each stream, then a backlog.
  for (const auto& [stream, head] : heads) {
    EventData tick;
    tick.id = EventId::Random();
    tick.type = "Tick";
    tick.data = R"({"n":-1})";
    auto appended = store.Append(stream, Expected::exactly(StreamVersion(head)), {tick});
    ASSERT_TRUE(appended.ok()) << stream << ": " << appended.status().ToString();
    EXPECT_EQ(appended->last_version.value(), head + 1) << stream;
    (*known)[stream][head + 1] = tick.id;
  }
  if (!last) {
    for (int i = 0; i < kStreams; ++i) AppendEvents(store, Trimmed(i), kTopUpEvents, known);
  }
}

std::int64_t FloorSum(const std::map<std::string, std::int64_t>& floors) {
  std::int64_t sum = 0;
  for (const auto& [stream, floor] : floors) sum += floor;
  return sum;
}

TEST(ScavengeCrashTest, KillNineDuringScavengeLosesNoRetainedEventAndKeepsTheFolderValid) {
  constexpr int kRounds = 12;
  unsigned seed = std::random_device{}();
  if (const char* given = std::getenv("SCAVENGE_CRASH_SEED")) seed = std::stoul(given);
  std::printf("seed %u (SCAVENGE_CRASH_SEED=%u repeats the kill times)\n", seed, seed);
  std::mt19937 rng(seed);

  testutil::TempDir tmp;
  const std::string dir = tmp.Sub("data");
  Known known;
  {
    auto store = Store::Open("file:" + dir);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    for (int i = 0; i < kStreams; ++i) AppendEvents(**store, Trimmed(i), kSeedEvents, &known);
  }
  std::map<std::string, std::int64_t> floors;
  std::size_t acks = 0;
  std::uint64_t scavenges = 0, scavenged = 0;
  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round) + ", seed " + std::to_string(seed));
    const auto run_for = std::chrono::milliseconds(150 + rng() % 751);
    Round ran = RunAndKill(dir, run_for);
    for (const Ack& ack : ran.acks) known[ack.stream][ack.version] = ack.id;
    acks += ran.acks.size();
    scavenges += ran.scavenges;
    scavenged += ran.scavenged;
    const std::int64_t floors_before = FloorSum(floors);
    Verify(dir, ran.acks, round + 1 == kRounds, &known, &floors);
    // Removed in the round: by its finished scavenges, and by the batches
    // of the one the kill cut short (the floors say both).
    std::printf(
        "round %d: killed after %lld ms, %zu acks, %llu scavenges finished removing %llu "
        "events, the floors rose by %lld\n",
        round, static_cast<long long>(run_for.count()), ran.acks.size(),
        static_cast<unsigned long long>(ran.scavenges),
        static_cast<unsigned long long>(ran.scavenged),
        static_cast<long long>(FloorSum(floors) - floors_before));
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_GT(acks, 200u) << "the writer barely wrote: the test proves little";
  EXPECT_GT(scavenged, 0u) << "no finished scavenge removed anything";
  const bool removed =
      std::any_of(floors.begin(), floors.end(), [](const auto& floor) { return floor.second > 0; });
  EXPECT_TRUE(removed) << "no trimmed stream lost its first events: scavenging never ran";
  std::printf("%zu acks, %llu scavenges, %llu events removed by finished ones\n", acks,
              static_cast<unsigned long long>(scavenges),
              static_cast<unsigned long long>(scavenged));
}

}  // namespace
}  // namespace indelible

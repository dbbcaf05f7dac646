// Conditional appends under kill -9 (docs/DCB.md): a child process enrols
// students in courses of a few seats with conditional appends from several
// threads, and is killed at random moments, round after round on the same
// folder. After each kill: every acknowledged enrolment is there with its
// tags, found by its query; no course holds more enrolments than its seats
// (a condition never broken, across restarts too); `check` passes, the tag
// index included.
#include <gtest/gtest.h>
#include <indelible/store.h>

#include <chrono>
#include <map>
#include <random>
#include <sstream>
#include <thread>

#include "testutil/child_writer.h"
#include "testutil/temp_dir.h"

namespace indelible {
namespace {

constexpr int kCapacity = 5;

struct Ack {
  EventId id;
  int course = 0;
};

std::vector<Ack> RunAndKill(const std::string& dir, std::chrono::milliseconds run_for, bool async) {
  std::vector<std::string> args = {dir, "6", std::to_string(kCapacity)};
  if (async) args.push_back("async");
  testutil::ChildWriter writer(DCB_CRASH_WRITER_PATH, args);
  EXPECT_TRUE(writer.ok());
  std::string line;
  if (!writer.ReadLine(&line)) ADD_FAILURE() << "dcb_crash_writer did not start";
  std::this_thread::sleep_for(run_for);
  EXPECT_TRUE(writer.KillAndWait()) << "dcb_crash_writer exited on its own";
  std::vector<Ack> acks;
  while (writer.ReadLine(&line)) {
    std::istringstream words(line);
    std::string tag, id;
    Ack ack;
    words >> tag >> id >> ack.course;
    auto parsed = EventId::Parse(id);
    EXPECT_TRUE(parsed.ok()) << line;
    if (parsed.ok()) ack.id = *parsed;
    acks.push_back(ack);
  }
  return acks;
}

// Returns the number of enrolments in the store.
std::size_t Verify(const std::string& dir, const std::vector<Ack>& acks) {
  auto opened = Store::Open("file:" + dir);
  EXPECT_TRUE(opened.ok()) << opened.status().ToString();
  if (!opened.ok()) return 0;
  Store& store = **opened;
  EXPECT_TRUE(store.Check().ok()) << store.Check().ToString();
  std::map<int, std::size_t> per_course;
  std::size_t total = 0;
  for (int course = 0;; ++course) {
    auto found = ReadQueryEvents(
        store, Query::Of({QueryItem{{"StudentEnrolled"}, {"course:" + std::to_string(course)}}}));
    EXPECT_TRUE(found.ok()) << found.status().ToString();
    if (!found.ok() || found->empty()) break;
    per_course[course] = found->size();
    total += found->size();
    EXPECT_LE(found->size(), static_cast<std::size_t>(kCapacity))
        << "course " << course << " holds more enrolments than seats: a condition was broken";
  }
  // Every enrolment in $all was found by its course's query (the tag index
  // holds what the log holds), and every acknowledged one is there.
  auto all = ReadAllEvents(store);
  EXPECT_TRUE(all.ok());
  if (all.ok()) {
    EXPECT_EQ(all->size(), total) << "events the tag index does not find";
  }
  for (const Ack& ack : acks) {
    auto found = store.FindEvent(ack.id);
    EXPECT_TRUE(found.ok() && found->has_value())
        << "acknowledged enrolment " << ack.id.ToString() << " lost";
    if (!found.ok() || !found->has_value()) continue;
    EXPECT_EQ((*found)->tags.size(), 2u);
    EXPECT_GE(per_course[ack.course], 1u);
  }
  return total;
}

void KillRounds(int rounds, bool async) {
  testutil::TempDir tmp;
  const std::string dir = tmp.Sub("data");
  std::mt19937 rng(std::random_device{}());
  std::vector<Ack> all_acks;
  std::size_t events = 0;
  for (int round = 0; round < rounds; ++round) {
    auto acks = RunAndKill(dir, std::chrono::milliseconds(50 + rng() % 250), async);
    all_acks.insert(all_acks.end(), acks.begin(), acks.end());
    const std::size_t now = Verify(dir, all_acks);
    EXPECT_GE(now, events) << "round " << round << ": the store shrank";
    events = now;
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_GT(all_acks.size(), 50u) << "the writer barely wrote: the test proves little";
}

TEST(DcbCrashTest, KillNineDuringConditionalAppendsBreaksNoConditionAndLosesNothing) {
  KillRounds(16, false);
}

TEST(DcbCrashTest, KillNineDuringAsyncConditionalAppendsBreaksNoConditionAndLosesNothing) {
  KillRounds(12, true);
}

}  // namespace
}  // namespace indelible

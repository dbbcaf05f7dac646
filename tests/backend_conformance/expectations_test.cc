// The expectation table of include/indelible/types.h, against a missing, a
// live and a deleted stream, and the soft-delete rules of DESIGN.md.
#include "backend_conformance/conformance.h"

namespace indelible::conformance {
namespace {

enum class State { kMissing, kLive, kDeleted };

struct Case {
  State state;
  Expected expected;
  bool ok;
};

TEST_P(ConformanceTest, ExpectationTable) {
  // Live streams are at version 1 (two events); deleted ones at version 2
  // (the tombstone).
  const Expected right = Expected::exactly(StreamVersion(1));
  const Expected wrong = Expected::exactly(StreamVersion(0));
  const Expected tomb = Expected::exactly(StreamVersion(2));
  const std::vector<Case> cases = {
      {State::kMissing, Expected::any(), true},
      {State::kMissing, Expected::no_stream(), true},
      {State::kMissing, Expected::exists(), false},
      {State::kMissing, right, false},
      {State::kLive, Expected::any(), true},
      {State::kLive, Expected::no_stream(), false},
      {State::kLive, Expected::exists(), true},
      {State::kLive, right, true},
      {State::kLive, wrong, false},
      {State::kDeleted, Expected::any(), true},
      {State::kDeleted, Expected::no_stream(), true},
      {State::kDeleted, Expected::exists(), false},
      {State::kDeleted, tomb, false},
      {State::kDeleted, right, false},
  };
  int n = 0;
  for (const Case& c : cases) {
    const std::string stream = "table-" + std::to_string(n++);
    if (c.state != State::kMissing) Put(stream, 2);
    if (c.state == State::kDeleted) {
      ASSERT_TRUE(store().Delete(stream).ok());
    }
    Settle();
    const Position before = store().LastPosition();
    auto head_before = store().Head(stream);
    auto result = store().Append(stream, c.expected, {Event()});
    SCOPED_TRACE(stream + " expected " + c.expected.ToString());
    if (c.ok) {
      ASSERT_TRUE(result.ok()) << result.status().ToString();
      const std::int64_t first = c.state == State::kMissing ? 0 : c.state == State::kLive ? 2 : 3;
      EXPECT_EQ(result->first_version.value(), first);
      // Where $all is built later (DynamoDB), results carry no position.
      EXPECT_EQ(result->position.value(), positions_at_commit() ? before.value() + 1 : 0);
    } else {
      ASSERT_EQ(result.status().code(), ErrorCode::kConflict) << result.status().ToString();
      if (c.state == State::kMissing) {
        EXPECT_FALSE(result.status().actual_version().has_value());
      } else {
        EXPECT_EQ(result.status().actual_version(), c.state == State::kLive ? 1 : 2);
      }
      EXPECT_EQ(result.status().deleted(), c.state == State::kDeleted);
      // Nothing written.
      EXPECT_EQ(store().LastPosition(), before);
      auto head_after = store().Head(stream);
      EXPECT_EQ(head_after.ok(), head_before.ok());
      if (head_after.ok()) {
        EXPECT_EQ(head_after->version, head_before->version);
      }
    }
  }
}

TEST_P(ConformanceTest, DeleteAppendsATombstoneThatStaysInAll) {
  Put("del-a", 2);
  auto deleted = store().Delete("del-a", Expected::exactly(StreamVersion(1)));
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_EQ(deleted->last_version.value(), 2);
  auto all = All();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[2].type, "$deleted");
  EXPECT_EQ(all[2].stream, "del-a");

  auto read = store().ReadStream("del-a");
  ASSERT_EQ(read.status().code(), ErrorCode::kNotFound);
  EXPECT_TRUE(read.status().deleted());
  auto head = store().Head("del-a");
  ASSERT_TRUE(head.ok());
  EXPECT_TRUE(head->deleted);
  EXPECT_EQ(head->version.value(), 2);

  ReadStreamOptions audit;
  audit.include_deleted = true;
  EXPECT_EQ(Read("del-a", audit).size(), 3u);
}

TEST_P(ConformanceTest, DeleteOfMissingOrDeletedStreamIsNotFound) {
  EXPECT_EQ(store().Delete("never").status().code(), ErrorCode::kNotFound);
  Put("twice");
  ASSERT_TRUE(store().Delete("twice").ok());
  auto again = store().Delete("twice");
  EXPECT_EQ(again.status().code(), ErrorCode::kNotFound);
  EXPECT_TRUE(again.status().deleted());
  EXPECT_EQ(store().Delete("twice", Expected::no_stream()).status().code(), ErrorCode::kInvalid);
  Put("stale", 2);
  EXPECT_EQ(store().Delete("stale", Expected::exactly(StreamVersion(0))).status().code(),
            ErrorCode::kConflict);
  EXPECT_EQ(store().Delete("$reserved").status().code(), ErrorCode::kInvalid);
}

TEST_P(ConformanceTest, RestartAfterDeleteContinuesNumberingAndReadsTheNewLife) {
  Put("life", 2);
  ASSERT_TRUE(store().Delete("life").ok());
  auto restarted = store().Append("life", Expected::no_stream(), {Event("Reborn")});
  ASSERT_TRUE(restarted.ok()) << restarted.status().ToString();
  EXPECT_EQ(restarted->first_version.value(), 3);
  auto events = Read("life");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, "Reborn");
  EXPECT_EQ(events[0].version.value(), 3);
  auto head = store().Head("life");
  ASSERT_TRUE(head.ok());
  EXPECT_FALSE(head->deleted);
  EXPECT_EQ(head->first_version.value(), 3);
  ReadStreamOptions backward;
  backward.direction = Direction::kBackward;
  ASSERT_EQ(Read("life", backward).size(), 1u);
  backward.include_deleted = true;
  auto whole = Read("life", backward);
  ASSERT_EQ(whole.size(), 4u);
  EXPECT_EQ(whole[1].type, "$deleted");
  // exists works again once restarted.
  EXPECT_TRUE(store().Append("life", Expected::exists(), {Event()}).ok());
}

}  // namespace
}  // namespace indelible::conformance

// DurableHeads (src/storage/embedded/durable_heads.h): the readers' head
// cache must answer a snapshot exactly its own heads, never a newer publish
// and never a head older than one it forgot.
#include "storage/embedded/durable_heads.h"

#include <gtest/gtest.h>

namespace indelible::storage::embedded {
namespace {

StreamHead At(std::int64_t version) {
  StreamHead head;
  head.version = StreamVersion(version);
  head.position = Position(static_cast<std::uint64_t>(version + 1));
  return head;
}

std::optional<std::int64_t> VersionIn(const DurableHeads& heads, std::string_view stream,
                                      DurableHeads::Sequence sequence) {
  auto found = heads.Find(stream, sequence);
  if (!found) return std::nullopt;
  return found->version.value();
}

TEST(DurableHeadsTest, ASnapshotSeesThePublishesUpToItsSequenceOnly) {
  DurableHeads heads(1024);
  heads.Publish({{"a-1", At(0)}}, 10);
  EXPECT_EQ(VersionIn(heads, "a-1", 10), 0);
  EXPECT_EQ(VersionIn(heads, "a-1", 11), 0);
  // Before the publish's snapshot: the reader must read its own snapshot.
  EXPECT_EQ(VersionIn(heads, "a-1", 9), std::nullopt);
  EXPECT_EQ(VersionIn(heads, "b-1", 10), std::nullopt);

  heads.Publish({{"a-1", At(1)}, {"a-1", At(2)}}, 20);  // the later wins
  EXPECT_EQ(VersionIn(heads, "a-1", 20), 2);
  EXPECT_EQ(VersionIn(heads, "a-1", 15), std::nullopt) << "a newer head to an older snapshot";
}

TEST(DurableHeadsTest, AReaderNeverReplacesAPublish) {
  DurableHeads heads(1024);
  // A reader of snapshot 5 read version 3 while a sync published version 4
  // at 8: its Remember comes late and must not win.
  heads.Publish({{"a-1", At(4)}}, 8);
  heads.Remember("a-1", At(3), 5);
  EXPECT_EQ(VersionIn(heads, "a-1", 8), 4);
  EXPECT_EQ(VersionIn(heads, "a-1", 5), std::nullopt);

  heads.Remember("c-1", At(7), 8);
  EXPECT_EQ(VersionIn(heads, "c-1", 8), 7);
  EXPECT_EQ(VersionIn(heads, "c-1", 7), std::nullopt);
  heads.Publish({{"c-1", At(8)}}, 9);
  EXPECT_EQ(VersionIn(heads, "c-1", 9), 8);
}

TEST(DurableHeadsTest, AfterAClearOlderSnapshotsMayNotRemember) {
  // One entry per shard: every publish of another stream in a shard clears it.
  DurableHeads heads(1);
  for (int i = 0; i < 64; ++i)
    heads.Publish({{"s-" + std::to_string(i), At(i)}},
                  static_cast<DurableHeads::Sequence>(100 + i));
  // At most one entry per shard is left: most streams were published and
  // then forgotten. A reader of snapshot 50 read such a stream before its
  // publish: that head must not be remembered, or a reader of snapshot 200
  // would be answered the head of 50.
  int forgotten = 0;
  for (int i = 0; i < 64; ++i) {
    const std::string stream = "s-" + std::to_string(i);
    if (heads.Find(stream, 200)) continue;
    ++forgotten;
    heads.Remember(stream, At(-1), 50);
    EXPECT_EQ(VersionIn(heads, stream, 200), std::nullopt) << stream;
  }
  EXPECT_GE(forgotten, 64 - 16);
  // A reader of a snapshot after every publish may.
  heads.Remember("t-1", At(5), 300);
  EXPECT_EQ(VersionIn(heads, "t-1", 300), 5);
}

}  // namespace
}  // namespace indelible::storage::embedded

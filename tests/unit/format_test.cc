// The embedded engine's record format: round trips and checksum failures.
#include "storage/embedded/format.h"

#include <gtest/gtest.h>

#include "storage/embedded/format_v1.h"

namespace indelible::storage::embedded {
namespace {

TEST(FormatTest, EventRecordRoundTripsAndItsChecksumCoversTheKey) {
  EventData e;
  e.id = EventId::Random();
  e.type = "Deposited";
  e.schema = "V1";
  e.data = R"({"amount":5})";
  e.metadata = R"({"u":1})";
  std::string record;
  EncodeEvent(e, "account-1", StreamVersion(7), Position(42), 1234, &record);
  EventView view;
  ASSERT_EQ(DecodeEvent(PositionKey(Position(42)), record, true, &view), "");
  EXPECT_EQ(view.stream, "account-1");
  EXPECT_EQ(view.version.value(), 7);
  EXPECT_EQ(view.position.value(), 42u);
  EXPECT_EQ(view.timestamp_ms, 1234);
  EXPECT_EQ(view.id, e.id);
  EXPECT_EQ(view.data, e.data);
  EXPECT_EQ(view.metadata, e.metadata);
  // Under another key, or with any byte flipped, the checksum fails.
  EXPECT_EQ(DecodeEvent(PositionKey(Position(43)), record, true, &view), "checksum mismatch");
  for (std::size_t i = 4; i < record.size(); i += 7) {
    std::string flipped = record;
    flipped[i] ^= 0x20;
    EXPECT_NE(DecodeEvent(PositionKey(Position(42)), flipped, true, &view), "") << i;
  }
  EXPECT_NE(DecodeEvent(PositionKey(Position(42)), record.substr(0, 20), true, &view), "");
}

TEST(FormatTest, AnEventsTagsRoundTripAndOnlyRecordsTheEncoderWritesDecode) {
  EventData e;
  e.id = EventId::Random();
  e.type = "Enrolled";
  e.data = "{}";
  e.metadata = "{}";
  e.tags = {"course:c1", "student:s1"};
  std::string record;
  EncodeEvent(e, "$dcb", StreamVersion(0), Position(9), 1, &record);
  EventView view;
  std::vector<std::string> tags;
  ASSERT_EQ(DecodeEvent(PositionKey(Position(9)), record, false, &view, &tags), "");
  EXPECT_EQ(tags, e.tags);
  ASSERT_EQ(view.tags.size(), 2u);
  EXPECT_EQ(view.tags[1], "student:s1");

  // The flags byte says tags follow; a record with the flag and no tag, or
  // with a flag the format does not know, was not written by the encoder
  // (found by fuzz_embedded_format: decode -> encode must give it back).
  EventData untagged = e;
  untagged.tags.clear();
  EncodeEvent(untagged, "$dcb", StreamVersion(0), Position(9), 1, &record);
  std::string empty_tags = record;
  empty_tags[5] = 1;
  empty_tags.push_back('\0');
  EXPECT_EQ(DecodeEvent(PositionKey(Position(9)), empty_tags, false, &view, &tags),
            "a tags section without tags");
  std::string unknown_flag = record;
  unknown_flag[5] = 2;
  EXPECT_EQ(DecodeEvent(PositionKey(Position(9)), unknown_flag, false, &view, &tags),
            "unknown record flags");
}

TEST(FormatTest, KeysSortNumericallyAndIndexValuesRoundTrip) {
  EXPECT_LT(PositionKey(Position(255)), PositionKey(Position(256)));
  EXPECT_LT(StreamVersionKey("a", 9), StreamVersionKey("a", 10));
  EXPECT_LT(StreamVersionKey("a", 1000), StreamVersionKey("a-", 0));
  std::string_view stream;
  std::int64_t version = 0;
  const std::string stream_key = StreamVersionKey("s/1", 5);  // the views point into it
  ASSERT_TRUE(DecodeStreamVersionKey(stream_key, &stream, &version));
  EXPECT_EQ(stream, "s/1");
  EXPECT_EQ(version, 5);

  // An append entry is sealed to its key, and is its stream's head.
  const std::string key = StreamVersionKey("s", 5);
  const AppendEntry written{Position(9), 3, StreamVersion(2), false};
  auto entry = DecodeAppendEntry(key, EncodeAppendEntry(key, written), true);
  ASSERT_TRUE(entry.has_value());
  EXPECT_EQ(entry->first_position.value(), 9u);
  EXPECT_EQ(entry->count, 3u);
  EXPECT_EQ(entry->life_first_version.value(), 2);
  EXPECT_FALSE(entry->deleted);
  EXPECT_FALSE(DecodeAppendEntry(StreamVersionKey("s", 6), EncodeAppendEntry(key, written), true));
  const StreamHead head = HeadAfter(StreamVersion(5), *entry);
  EXPECT_EQ(head.version.value(), 7);
  EXPECT_EQ(head.position.value(), 11u);
  EXPECT_EQ(head.first_version.value(), 2);
  // The end key sorts after every version of its stream, before the next.
  EXPECT_LT(StreamVersionKey("s", INT64_MAX), StreamEndKey("s"));
  EXPECT_LT(StreamEndKey("s"), StreamVersionKey("s-", 0));

  // An entry whose versions or positions cannot exist does not decode (a
  // damaged record must not make HeadAfter overflow).
  const std::string last = StreamVersionKey("s", INT64_MAX - 1);
  EXPECT_FALSE(DecodeAppendEntry(last, EncodeAppendEntry(last, written), true));
  EXPECT_TRUE(DecodeAppendEntry(last, EncodeAppendEntry(last, {Position(9), 1, {}, false}), true));
  EXPECT_FALSE(DecodeAppendEntry(key, EncodeAppendEntry(key, {Position(0), 1, {}, false}), true));
  EXPECT_FALSE(
      DecodeAppendEntry(key, EncodeAppendEntry(key, {Position(UINT64_MAX), 2, {}, false}), true));

  EventId id = EventId::Random();
  auto position = DecodeEventId(IdKey(id), EncodeEventId(id, Position(5)), true);
  ASSERT_TRUE(position.has_value());
  EXPECT_EQ(position->value(), 5u);
  EXPECT_FALSE(DecodeEventId(IdKey(EventId::Random()), EncodeEventId(id, Position(5)), true));
}

// Format 1's records, still read by the upgrade and by check of an old folder.
TEST(FormatTest, FormatOneRecordsRoundTrip) {
  const std::string key = StreamVersionKey("s", 5);
  auto entry = v1::DecodeStreamEntry(key, v1::EncodeStreamEntry(key, {Position(9), 3}), true);
  ASSERT_TRUE(entry.has_value());
  EXPECT_EQ(entry->position.value(), 9u);
  EXPECT_EQ(entry->run, 3u);
  EXPECT_FALSE(v1::DecodeStreamEntry(StreamVersionKey("s", 6),
                                     v1::EncodeStreamEntry(key, {Position(9), 3}), true));

  StreamHead head{StreamVersion(4), Position(10), true, StreamVersion(2)};
  auto decoded = v1::DecodeHead("s", v1::EncodeHead("s", head), true);
  ASSERT_TRUE(decoded.has_value());
  EXPECT_EQ(decoded->version.value(), 4);
  EXPECT_TRUE(decoded->deleted);
  EXPECT_EQ(decoded->first_version.value(), 2);

  EventId id = EventId::Random();
  v1::StoredId stored{Position(5), Position(4), StreamVersion(1), 3};
  auto back = v1::DecodeId(IdKey(id), v1::EncodeId(id, stored), true);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->append_first_position.value(), 4u);
  EXPECT_EQ(back->append_count, 3u);
}

}  // namespace
}  // namespace indelible::storage::embedded

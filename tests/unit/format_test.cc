// The embedded engine's record format: round trips and checksum failures.
#include "storage/embedded/format.h"

#include <gtest/gtest.h>

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

  const std::string key = StreamVersionKey("s", 5);
  auto entry = DecodeStreamEntry(key, EncodeStreamEntry(key, {Position(9), 3}), true);
  ASSERT_TRUE(entry.has_value());
  EXPECT_EQ(entry->position.value(), 9u);
  EXPECT_EQ(entry->run, 3u);
  EXPECT_FALSE(
      DecodeStreamEntry(StreamVersionKey("s", 6), EncodeStreamEntry(key, {Position(9), 3}), true));

  HeadState head{StreamVersion(4), Position(10), true, StreamVersion(2)};
  auto decoded = DecodeHead("s", EncodeHead("s", head), true);
  ASSERT_TRUE(decoded.has_value());
  EXPECT_EQ(decoded->version.value(), 4);
  EXPECT_TRUE(decoded->deleted);
  EXPECT_EQ(decoded->first_version.value(), 2);

  EventId id = EventId::Random();
  StoredId stored{Position(5), Position(4), StreamVersion(1), 3};
  auto back = DecodeId(IdKey(id), EncodeId(id, stored), true);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->append_first_position.value(), 4u);
  EXPECT_EQ(back->append_count, 3u);
}

}  // namespace
}  // namespace indelible::storage::embedded

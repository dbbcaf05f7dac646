// Item sizes and capacity units by AWS's sizing rules (src/aws/item_size.h):
// the worked examples of "DynamoDB item sizes and formats" and of
// "Capacity unit consumption" (docs.aws.amazon.com, CapacityUnitCalculations
// and read-write-operations), and the sizes DynamoDB Local bills for numbers,
// sets and nested values (measured at the 1 KB boundary; the same are
// checked on the live emulator in tests/dynamodb/capacity_test.cc).
#include "aws/item_size.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

namespace indelible::aws {
namespace {

namespace json = boost::json;

std::uint64_t SizeOf(const char* item) { return ItemSize(json::parse(item).as_object()); }
std::uint64_t ValueSize(const char* value) { return AttributeValueSize(json::parse(value)); }

TEST(ItemSize, StringsAreTheirNamesAndUtf8Bytes) {
  EXPECT_EQ(SizeOf(R"({"name":{"S":"Alice"}})"), 4u + 5u);
  EXPECT_EQ(SizeOf(R"({"q":{"S":""}})"), 1u);  // an empty string: its name alone
  // "é" is 2 bytes of UTF-8, "€" 3, and a name counts its bytes too.
  EXPECT_EQ(SizeOf(R"({"é":{"S":"€"}})"), 2u + 3u);
  EXPECT_EQ(SizeOf("{}"), 0u);
}

TEST(ItemSize, AnItemOfSeveralAttributes) {
  // 8+4, 2+7, 8+11, 8+17, 10+4, 9+16, 9+16, and 9 + 3 for the number 2099
  // ("20 99" and the exponent byte).
  EXPECT_EQ(SizeOf(R"({"itemType":{"S":"SLOT"},"id":{"S":"abc1231"},
                       "hostName":{"S":"Harry Mason"},"timeSlot":{"S":"February 23, 1999"},
                       "slotStatus":{"S":"OPEN"},"createdAt":{"S":"February 1, 1999"},
                       "updatedAt":{"S":"February 1, 1999"},"expiresAt":{"N":"2099"}})"),
            141u);
}

TEST(ItemSize, NumbersAreBase100DigitsAlignedOnThePoint) {
  EXPECT_EQ(NumberSize("0"), 1u);
  EXPECT_EQ(NumberSize("-0"), 1u);
  EXPECT_EQ(NumberSize("0.000"), 1u);
  EXPECT_EQ(NumberSize("1"), 2u);
  EXPECT_EQ(NumberSize("12"), 2u);
  EXPECT_EQ(NumberSize("99"), 2u);
  EXPECT_EQ(NumberSize("123"), 3u);
  EXPECT_EQ(NumberSize("1234"), 3u);
  EXPECT_EQ(NumberSize("12345"), 4u);
  // Leading and trailing zeros are trimmed, in pairs around the point.
  EXPECT_EQ(NumberSize("100"), 2u);
  EXPECT_EQ(NumberSize("1000"), 2u);
  EXPECT_EQ(NumberSize("1000000"), 2u);
  EXPECT_EQ(NumberSize("00012"), 2u);
  EXPECT_EQ(NumberSize("0.10"), 2u);
  EXPECT_EQ(NumberSize("1e10"), 2u);
  EXPECT_EQ(NumberSize("9.9e125"), 2u);
  EXPECT_EQ(NumberSize("1E-130"), 2u);
  EXPECT_EQ(NumberSize("0.001"), 2u);
  EXPECT_EQ(NumberSize("0.01"), 2u);
  EXPECT_EQ(NumberSize("0.0123"), 3u);
  // A digit either side of the point is a base-100 digit each side.
  EXPECT_EQ(NumberSize("1.5"), 3u);
  EXPECT_EQ(NumberSize("10.5"), 3u);
  EXPECT_EQ(NumberSize("12.3"), 3u);
  EXPECT_EQ(NumberSize("1.23"), 3u);
  EXPECT_EQ(NumberSize("123.456"), 5u);
  EXPECT_EQ(NumberSize("1.2e1"), NumberSize("12"));
  EXPECT_EQ(NumberSize("12345678901234567890"), 11u);
  // A negative number has a terminator byte more.
  EXPECT_EQ(NumberSize("-1"), 3u);
  EXPECT_EQ(NumberSize("-12"), 3u);
  EXPECT_EQ(NumberSize("-123"), 4u);
  EXPECT_EQ(NumberSize("-0.001"), 3u);
  EXPECT_EQ(NumberSize("-12345678901234567890123456789012345678"), 21u);  // 38 digits
  // Not a number: counted as its text rather than refused.
  EXPECT_EQ(NumberSize("abc"), 3u);
  EXPECT_EQ(NumberSize(""), 0u);
  EXPECT_EQ(NumberSize("1e"), 2u);
}

TEST(ItemSize, BinaryIsItsRawBytes) {
  EXPECT_EQ(ValueSize(R"({"B":"aGVsbG8="})"), 5u);  // "hello"
  EXPECT_EQ(ValueSize(R"({"B":"aGVsbG8"})"), 5u);   // unpadded
  EXPECT_EQ(ValueSize(R"({"B":"aGVsbG8h"})"), 6u);
  EXPECT_EQ(ValueSize(R"({"B":"aA=="})"), 1u);
  EXPECT_EQ(ValueSize(R"({"B":""})"), 0u);
}

TEST(ItemSize, BooleansAndNullsAreOneByte) {
  EXPECT_EQ(SizeOf(R"({"ok":{"BOOL":true},"no":{"BOOL":false},"z":{"NULL":true}})"),
            2u + 1 + 2 + 1 + 1 + 1);
}

TEST(ItemSize, MapsAndListsCost3BytesAndOnePerElement) {
  EXPECT_EQ(ValueSize(R"({"M":{}})"), 3u);
  EXPECT_EQ(ValueSize(R"({"L":[]})"), 3u);
  EXPECT_EQ(ValueSize(R"({"L":[{"S":"a"},{"S":"b"}]})"), 3u + 2 * (1 + 1));
  // A map's elements count their names.
  EXPECT_EQ(ValueSize(R"({"M":{"ab":{"S":"c"}}})"), 3u + 2 + 1 + 1);
  // Nested: 3 + "a" + (3 + "b" + "c" + 1) + 1.
  EXPECT_EQ(ValueSize(R"({"M":{"a":{"M":{"b":{"S":"c"}}}}})"), 11u);
  EXPECT_EQ(ValueSize(R"({"L":[{"N":"12345"},{"NULL":true},{"L":[]}]})"), 3u + 5 + 2 + 4);
}

TEST(ItemSize, SetsAreTheirElements) {
  EXPECT_EQ(ValueSize(R"({"SS":["a","bc"]})"), 3u);
  EXPECT_EQ(ValueSize(R"({"NS":["1","12","-1"]})"), 2u + 2 + 3);
  EXPECT_EQ(ValueSize(R"({"BS":["aGVsbG8=","aA=="]})"), 6u);
}

TEST(ItemSize, ShapesDynamoDbWouldRefuseCountNothing) {
  EXPECT_EQ(ValueSize(R"("plain")"), 0u);
  EXPECT_EQ(ValueSize(R"({"S":"a","N":"1"})"), 0u);
  EXPECT_EQ(ValueSize(R"({"X":"a"})"), 0u);
  EXPECT_EQ(ValueSize(R"({"N":12})"), 0u);
  EXPECT_EQ(ValueSize(R"({"M":[]})"), 0u);
}

TEST(CapacityUnits, WritesAreWholeKilobytesAtLeastOne) {
  EXPECT_EQ(WriteUnits(0), 1u);
  EXPECT_EQ(WriteUnits(1), 1u);
  EXPECT_EQ(WriteUnits(1023), 1u);
  EXPECT_EQ(WriteUnits(1024), 1u);
  EXPECT_EQ(WriteUnits(1025), 2u);
  // "if you put or delete an item of 1.6 KB, DynamoDB rounds the item size
  // up to 2 KB"; a batch of a 500-byte item and a 3.5 KB one is 1 + 4.
  EXPECT_EQ(WriteUnits(1638), 2u);
  EXPECT_EQ(WriteUnits(500) + WriteUnits(3584), 5u);
  EXPECT_EQ(WriteUnits(400 * 1024), 400u);
}

TEST(CapacityUnits, ReadsAreWhole4KilobytesHalvedWhenEventuallyConsistent) {
  // "reading a 3,500-byte item consumes the same throughput as reading a
  // 4 KB item"; an 8 KB item is 2 units strongly consistent, 1 eventually.
  EXPECT_DOUBLE_EQ(ReadUnits(3500, true), 1.0);
  EXPECT_DOUBLE_EQ(ReadUnits(3500, false), 0.5);
  EXPECT_DOUBLE_EQ(ReadUnits(8 * 1024, true), 2.0);
  EXPECT_DOUBLE_EQ(ReadUnits(8 * 1024, false), 1.0);
  EXPECT_DOUBLE_EQ(ReadUnits(8 * 1024 + 1, true), 3.0);
  // A query of 40.8 KB rounds to 44 KB; an eventually consistent 80 KB is 10.
  EXPECT_DOUBLE_EQ(ReadUnits(41779, true), 11.0);
  EXPECT_DOUBLE_EQ(ReadUnits(80 * 1024, false), 10.0);
  // Reading an item that is not there still costs a unit (or a half).
  EXPECT_DOUBLE_EQ(ReadUnits(0, true), 1.0);
  EXPECT_DOUBLE_EQ(ReadUnits(0, false), 0.5);
}

}  // namespace
}  // namespace indelible::aws

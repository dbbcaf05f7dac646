// Checkpoint records (Store::SaveRecord): named values beside the
// events, never in $all, the last save wins, durable across a reopen.
#include "backend_conformance/conformance.h"

namespace indelible::conformance {
namespace {

TEST_P(ConformanceTest, CheckpointsSaveLoadListAndDelete) {
  auto missing = store().LoadRecord("group/a");
  ASSERT_TRUE(missing.ok()) << missing.status().ToString();
  EXPECT_FALSE(missing->has_value());

  ASSERT_TRUE(store().SaveRecord("group/a", "1").ok());
  ASSERT_TRUE(store().SaveRecord("group/a", "2").ok());  // the last save wins
  ASSERT_TRUE(store().SaveRecord("group/b", std::string("\0bin", 4)).ok());
  ASSERT_TRUE(store().SaveRecord("other/c", "3").ok());
  auto a = store().LoadRecord("group/a");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->value_or(""), "2");

  auto listed = store().ListRecords("group/");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].first, "group/a");
  EXPECT_EQ((*listed)[1].first, "group/b");
  EXPECT_EQ((*listed)[1].second, std::string("\0bin", 4));

  ASSERT_TRUE(store().DeleteRecord("group/a").ok());
  ASSERT_TRUE(store().DeleteRecord("group/never").ok());
  EXPECT_FALSE(store().LoadRecord("group/a")->has_value());
  EXPECT_EQ(store().ListRecords("")->size(), 2u);

  // Not events: $all and the position are untouched.
  EXPECT_EQ(store().LastPosition().value(), 0u);
  EXPECT_TRUE(All().empty());
  EXPECT_TRUE(store().Check().ok());
}

TEST_P(DurableTest, CheckpointsSurviveAReopen) {
  Put("s-1");
  ASSERT_TRUE(store().SaveRecord("group/a", "{\"position\":1}").ok());
  Open();
  auto a = store().LoadRecord("group/a");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->value_or(""), "{\"position\":1}");
  EXPECT_TRUE(store().Check().ok()) << store().Check().ToString();
}

TEST_P(ConformanceTest, CheckpointsRejectBadNamesAndOversizedValues) {
  for (const std::string& name : {std::string(), std::string(257, 'n'), std::string("a\nb")}) {
    Status s = store().SaveRecord(name, "1");
    EXPECT_EQ(s.code(), ErrorCode::kInvalid) << s.ToString();
    EXPECT_EQ(store().LoadRecord(name).status().code(), ErrorCode::kInvalid);
  }
  Status big = store().SaveRecord("group/big", std::string(64 * 1024 + 1, 'x'));
  EXPECT_EQ(big.code(), ErrorCode::kTooLarge) << big.ToString();
  EXPECT_TRUE(store().ListRecords("")->empty());
}

}  // namespace
}  // namespace indelible::conformance

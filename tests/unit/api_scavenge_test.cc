// The documents of POST /scavenge (src/api/scavenge.h): the report the
// server answers reads back as it was; a request body with anything in it
// is invalid; an answer that is not a report is internal.
#include <gtest/gtest.h>

#include "api/scavenge.h"

namespace indelible {
namespace {

TEST(ApiScavengeTest, TheReportReadsBackAsWritten) {
  ScavengeReport report;
  report.streams = 2;
  report.events = 990;
  report.bytes = 123456;
  report.disk_bytes_before = 9007199254740991ULL;
  report.disk_bytes_after = 4096;
  const std::string text = api::ScavengeReportToJson(report, 1234);
  EXPECT_EQ(text, R"({"streams":2,"events":990,"bytes":123456,"diskBytesBefore":9007199254740991,)"
                  R"("diskBytesAfter":4096,"tookMs":1234})");
  std::int64_t took = -1;
  auto read = api::ScavengeReportFromJson(text, &took);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->streams, 2u);
  EXPECT_EQ(read->events, 990u);
  EXPECT_EQ(read->bytes, 123456u);
  EXPECT_EQ(read->disk_bytes_before, 9007199254740991ULL);
  EXPECT_EQ(read->disk_bytes_after, 4096u);
  EXPECT_EQ(took, 1234);
  EXPECT_TRUE(api::ScavengeReportFromJson(api::ScavengeReportToJson({}, 0)).ok());

  for (
      std::string_view body :
      {"", "<html>", "[]", R"({"streams":1})",
       R"({"streams":1,"events":1,"bytes":1,"diskBytesBefore":1,"diskBytesAfter":1})",
       R"({"streams":-1,"events":1,"bytes":1,"diskBytesBefore":1,"diskBytesAfter":1,"tookMs":0})",
       R"({"streams":1,"events":"1","bytes":1,"diskBytesBefore":1,"diskBytesAfter":1,"tookMs":0})"})
    EXPECT_EQ(api::ScavengeReportFromJson(body).status().code(), ErrorCode::kInternal) << body;
}

TEST(ApiScavengeTest, TheRequestTakesNoBodyOrAnEmptyObject) {
  for (std::string_view body : {"", " \r\n", "{}", " { } "})
    EXPECT_TRUE(api::ScavengeRequestFromJson(body).ok()) << body;
  for (std::string_view body : {"{", "[]", "null", R"({"maxCount":1})", "{} {}"}) {
    const Status s = api::ScavengeRequestFromJson(body);
    EXPECT_EQ(s.code(), ErrorCode::kInvalid) << body;
    EXPECT_EQ(s.field(), "body") << body;
  }
}

}  // namespace
}  // namespace indelible

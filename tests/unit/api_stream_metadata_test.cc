// The documents of the stream metadata routes (src/api/stream_metadata.h):
// what the server answers, the client reads back as it was; an answer that
// is not one is internal.
#include <gtest/gtest.h>

#include "api/stream_metadata.h"

namespace indelible {
namespace {

TEST(ApiStreamMetadataTest, AnswersReadBackAsWritten) {
  StoredStreamMetadata never;
  EXPECT_EQ(api::StoredStreamMetadataToJson("a\"b", never),
            R"({"stream":"a\"b","version":null,"metadata":{}})");
  auto none = api::StoredStreamMetadataFromJson(api::StoredStreamMetadataToJson("s", never));
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_FALSE(none->version);
  EXPECT_EQ(none->metadata, StreamMetadata{});

  StoredStreamMetadata stored;
  stored.version = StreamVersion(3);
  stored.metadata.max_age = std::chrono::seconds(86400);
  stored.metadata.max_count = 1000;
  stored.metadata.truncate_before = StreamVersion(17);
  stored.metadata.custom = R"({"owner":"billing","tags":[1,2]})";
  const std::string text = api::StoredStreamMetadataToJson("BANK/1", stored);
  EXPECT_EQ(text, R"({"stream":"BANK/1","version":3,"metadata":{"maxAge":86400,"maxCount":1000,)"
                  R"("truncateBefore":17,"custom":{"owner":"billing","tags":[1,2]}}})");
  auto read = api::StoredStreamMetadataFromJson(text);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->version, StreamVersion(3));
  EXPECT_EQ(read->metadata, stored.metadata);

  EXPECT_EQ(api::StreamMetadataWrittenToJson("s", StreamVersion(4)),
            R"({"stream":"s","version":4})");
  auto written = api::StreamMetadataWrittenFromJson(R"({"stream":"s","version":4})");
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(*written, StreamVersion(4));

  for (std::string_view body : {"<html>", "[]", R"({"stream":"s","version":1})",
                                R"({"stream":"s","version":"1","metadata":{}})",
                                R"({"stream":"s","version":1,"metadata":{"maxcount":1}})"})
    EXPECT_EQ(api::StoredStreamMetadataFromJson(body).status().code(), ErrorCode::kInternal)
        << body;
  for (std::string_view body :
       {"", R"({"stream":"s"})", R"({"version":null})", R"({"version":-1})"})
    EXPECT_EQ(api::StreamMetadataWrittenFromJson(body).status().code(), ErrorCode::kInternal)
        << body;
}

}  // namespace
}  // namespace indelible

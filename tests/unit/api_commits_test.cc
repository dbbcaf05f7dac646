// The documents of commits, state records and listings (src/api/commits.h):
// what the client encodes, the server decodes to the same requests; what the
// server answers, the client reads back; bad bodies are invalid with the
// path of the field.
#include <gtest/gtest.h>

#include "api/commits.h"

namespace indelible {
namespace {

EventData Event(std::string type, std::string data) {
  EventData event;
  event.id = EventId::Random();
  event.type = std::move(type);
  event.data = std::move(data);
  event.metadata = R"({"causationId":"x"})";
  return event;
}

TEST(ApiCommitsTest, ACommitDecodesToWhatWasEncoded) {
  std::vector<AppendRequest> sent;
  sent.push_back(AppendRequest{"BANK_ACCOUNT/1",
                               Expected::exactly(StreamVersion(4)),
                               {Event("TRANSACTION_ACCEPTED", R"({"amount":-300,"x":1.50})")}});
  sent.back().state = StateUpdate{R"({"balance":-275})", 7};
  sent.push_back(AppendRequest{"outbox-1", Expected::any(), {Event("accountOverdrawn", "{}")}});
  sent.push_back(AppendRequest{"b", Expected::no_stream(), {Event("T", "[]")}});
  sent.back().state = StateUpdate{std::string("\x01\x02 not json", 11), 0};
  sent.push_back(AppendRequest{"c", Expected::exists(), {Event("T", "null")}});

  auto got = api::CommitFromJson(api::CommitToJson(sent));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_FALSE(got->condition);
  ASSERT_EQ(got->appends.size(), sent.size());
  for (std::size_t i = 0; i < sent.size(); ++i) {
    const AppendRequest& a = sent[i];
    const AppendRequest& b = got->appends[i];
    EXPECT_EQ(b.stream, a.stream);
    EXPECT_EQ(b.expected.ToString(), a.expected.ToString());
    ASSERT_EQ(b.events.size(), a.events.size());
    EXPECT_EQ(b.events[0].id, a.events[0].id);
    EXPECT_EQ(b.events[0].data, a.events[0].data) << "data byte for byte";
    EXPECT_EQ(b.events[0].metadata, a.events[0].metadata);
    ASSERT_EQ(b.state.has_value(), a.state.has_value());
    if (a.state) {
      EXPECT_EQ(b.state->data, a.state->data);
      EXPECT_EQ(b.state->schema, a.state->schema);
    }
  }
}

TEST(ApiCommitsTest, AppendBodiesTakeOneEventAnArrayOrTheEnvelope) {
  auto one = api::AppendBodyFromJson(R"({"type":"A","data":{"events":1}})");
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(one->events.size(), 1u);
  EXPECT_FALSE(one->state);
  auto many = api::AppendBodyFromJson(R"([{"type":"A"},{"type":"B"}])");
  ASSERT_TRUE(many.ok());
  EXPECT_EQ(many->events.size(), 2u);
  auto envelope = api::AppendBodyFromJson(
      R"( {"events":[{"type":"A"}],"state":{"data": {"n": 1},"schema":2}})");
  ASSERT_TRUE(envelope.ok()) << envelope.status().ToString();
  ASSERT_TRUE(envelope->state);
  EXPECT_EQ(envelope->state->data, R"({"n":1})");
  EXPECT_EQ(envelope->state->schema, 2u);
  auto typo = api::AppendBodyFromJson(R"({"events":[{"type":"A"}],"sate":{}})");
  EXPECT_EQ(typo.status().code(), ErrorCode::kInvalid);
  EXPECT_EQ(typo.status().field(), "sate");
  auto bad_event = api::AppendBodyFromJson(R"({"events":[{"type":"A"},{"data":1}]})");
  EXPECT_EQ(bad_event.status().field(), "events[1].type");
}

TEST(ApiCommitsTest, AnswersReadBackAsWritten) {
  CommitResult result;
  result.position = Position(12);
  result.appends.push_back(
      AppendResult{"a/1", StreamVersion(3), StreamVersion(5), Position(8), Position(10), true});
  auto read = api::CommitResultFromJson(api::CommitResultToJson(result));
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->position, Position(12));
  ASSERT_EQ(read->appends.size(), 1u);
  EXPECT_EQ(read->appends[0].stream, "a/1");
  EXPECT_EQ(read->appends[0].first_position, Position(8));
  EXPECT_TRUE(read->appends[0].replayed);

  for (std::string data : {std::string(R"({"balance":1})"), std::string("\xff\x00z", 3)}) {
    StateRecord record{data, 4, StreamVersion(9), Position(77)};
    auto state = api::StateRecordFromJson(api::StateRecordToJson("s", record));
    ASSERT_TRUE(state.ok()) << state.status().ToString();
    EXPECT_EQ(state->data, data);
    EXPECT_EQ(state->schema, 4u);
    EXPECT_EQ(state->version, StreamVersion(9));
    EXPECT_EQ(state->position, Position(77));
  }

  StreamList list;
  list.streams.push_back(StreamInfo{"x\"y", StreamVersion(2), Position(5), true, 1700000000000});
  list.next = "x\"y";
  auto listed = api::StreamListFromJson(api::StreamListToJson(list));
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->streams.size(), 1u);
  EXPECT_EQ(listed->streams[0].stream, "x\"y");
  EXPECT_TRUE(listed->streams[0].deleted);
  EXPECT_EQ(listed->streams[0].last_write_ms, 1700000000000);
  EXPECT_EQ(listed->next, "x\"y");
  EXPECT_FALSE(api::StreamListFromJson(R"({"streams":[],"next":null})")->next);
  EXPECT_EQ(api::StreamListToJson(list).find("\"last\""), std::string::npos)
      << "no `last` member unless asked";

  // With `last`: the newest event's envelope, or null when there is none.
  const EventId id = EventId::Random();
  list.streams[0].last = LastEvent{id, "Had\"It", StreamVersion(2), Position(5), 1700000000000};
  list.streams.push_back(StreamInfo{"hidden", StreamVersion(4), Position(9), false, 1});
  const std::string with_last = api::StreamListToJson(list, /*with_last=*/true);
  EXPECT_NE(with_last.find(R"("stream":"hidden","version":4,"position":9,"deleted":false,)"
                           R"("lastWrite":1,"last":null})"),
            std::string::npos)
      << with_last;
  auto decoded = api::StreamListFromJson(with_last);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  ASSERT_EQ(decoded->streams.size(), 2u);
  ASSERT_TRUE(decoded->streams[0].last);
  EXPECT_EQ(decoded->streams[0].last->id, id);
  EXPECT_EQ(decoded->streams[0].last->type, "Had\"It");
  EXPECT_EQ(decoded->streams[0].last->version, StreamVersion(2));
  EXPECT_EQ(decoded->streams[0].last->position, Position(5));
  EXPECT_EQ(decoded->streams[0].last->timestamp_ms, 1700000000000);
  EXPECT_FALSE(decoded->streams[1].last);
  EXPECT_EQ(api::StreamListFromJson(R"({"streams":[{"stream":"s","last":{"type":"T"}}]})")
                .status()
                .code(),
            ErrorCode::kInternal)
      << "a `last` without an id is not ours";
  EXPECT_EQ(api::CommitResultFromJson("<html>").status().code(), ErrorCode::kInternal);
}

}  // namespace
}  // namespace indelible

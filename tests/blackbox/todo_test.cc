// indelible-todo end to end: the real binary on a free port, its whole
// REST flow as DESIGN.md states it, the standard API on the same port, and
// the read side (the todo-list projection, in SQLite by default or in a real
// PostgreSQL) kept across restarts, and read-your-writes with minPosition.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <memory>
#include <thread>

#include "projections/read_stores.h"
#include "server_fixture.h"
#include "testutil/dynamodb_server.h"

namespace indelible {
namespace {

using testutil::ReadStoreKind;

// Where the events live: an embedded folder with the read model in SQLite
// beside it (the default) or in PostgreSQL, or DynamoDB Local with the
// read model's default SQLite file: `--store dynamodb://...` is the one flag.
enum class TodoSetup { kSqlite, kPostgres, kDynamoDb };

std::string SetupName(const ::testing::TestParamInfo<TodoSetup>& info) {
  return info.param == TodoSetup::kSqlite     ? "Sqlite"
         : info.param == TodoSetup::kPostgres ? "Postgres"
                                              : "DynamoDb";
}

class TodoTest : public ::testing::TestWithParam<TodoSetup> {
 protected:
  void SetUp() override {
    store_url_ = "file:" + tmp_.Sub("data");
    read_store_ = "sqlite:" + tmp_.Sub("data") + ".read.db";  // the default
    if (GetParam() == TodoSetup::kPostgres)
      read_store_ = testutil::FreshReadStoreUrl(ReadStoreKind::kPostgres, tmp_);
    if (GetParam() == TodoSetup::kDynamoDb) {
      auto& server = testutil::SharedDynamoDbServer("local");
      ASSERT_FALSE(server.endpoint().empty()) << server.output();
      ::setenv("AWS_ACCESS_KEY_ID", "todo", 1);
      ::setenv("AWS_SECRET_ACCESS_KEY", "todo", 1);
      std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
      for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      const std::string prefix = "todo_" + name.substr(0, name.find('_')) + "_";
      store_url_ = "dynamodb://127.0.0.1:" + std::to_string(server.port()) +
                   "?region=us-east-1&tls=0&index_poll_ms=10&prefix=" + prefix;
      // The default read model of a dynamodb:// store: ./PREFIXread.db in
      // the working directory, which ServerProcess does not change.
      read_store_ = "sqlite:./" + prefix + "read.db";
      std::remove(("./" + prefix + "read.db").c_str());
    }
    ASSERT_FALSE(read_store_.empty());
    Start();
  }

  void Start() {
    if (server_) server_->Kill();
    std::vector<std::string> args{"--store", store_url_};
    if (GetParam() == TodoSetup::kPostgres) args.insert(args.end(), {"--read-store", read_store_});
    server_ = std::make_unique<testutil::ServerProcess>(INDELIBLE_TODO_PATH, args);
    ASSERT_TRUE(server_->Start()) << "indelible-todo did not start: " << server_->output();
    http_ = std::make_unique<HttpClient>(server_->port());
  }

  HttpClient& http() { return *http_; }

  HttpResponse Create(const std::string& id, const std::string& title) {
    return http().Post(
        "/todo", R"({"id":")" + id + R"(","title":")" + title + R"(","message":"from the test"})");
  }

  // The titles the read side lists, once it shows `expected` todos (the
  // projection follows the log asynchronously).
  std::vector<std::string> ListedTitles(std::size_t expected) {
    std::vector<std::string> titles;
    for (int attempt = 0; attempt < 100; ++attempt) {
      titles.clear();
      const json::value body = http().Get("/todo").Json();
      if (body.is_object() && body.as_object().contains("todos")) {
        for (const auto& todo : body.at("todos").as_array())
          titles.push_back(std::string(todo.at("title").as_string()));
      }
      if (titles.size() == expected) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return titles;
  }

  // The todo-list projection's row: generation and checkpoint.
  std::pair<std::int64_t, std::int64_t> Checkpoint() {
    auto db = ReadStore::Open(read_store_);
    if (!db.ok()) return {-1, -1};
    auto rows = (*db)->Query(
        "SELECT generation, position FROM indelible_projections WHERE name = 'todo-list'");
    if (!rows.ok() || rows->empty()) return {-1, -1};
    return {SqlInt(rows->front()[0]), SqlInt(rows->front()[1])};
  }

  testutil::TempDir tmp_;
  std::string store_url_;
  std::string read_store_;
  std::unique_ptr<testutil::ServerProcess> server_;
  std::unique_ptr<HttpClient> http_;
};

TEST_P(TodoTest, TheWholeReferenceFlow) {
  const std::string id = NewUuid();
  const std::string path = "/todo/" + id;

  HttpResponse created = Create(id, "milk");
  ASSERT_EQ(created.status, 201u) << created.body;
  EXPECT_EQ(created.Header("ETag"), "\"0\"");
  EXPECT_EQ(Member(created.Json(), "title"), "\"milk\"");
  EXPECT_TRUE(IsError(Create(id, "again"), 409, "conflict"));

  HttpResponse got = http().Get(path);
  ASSERT_EQ(got.status, 200u) << got.body;
  EXPECT_EQ(got.Header("ETag"), "\"0\"");
  EXPECT_EQ(Member(got.Json(), "message"), "\"from the test\"");

  HttpResponse updated = http().Post(path, R"({"title":"oat milk"})", {{"If-Match", "\"0\""}});
  ASSERT_EQ(updated.status, 200u) << updated.body;
  EXPECT_EQ(updated.Header("ETag"), "\"1\"");
  EXPECT_EQ(Member(updated.Json(), "title"), "\"oat milk\"");

  HttpResponse stale = http().Post(path, R"({"title":"soy milk"})", {{"If-Match", "\"0\""}});
  EXPECT_TRUE(IsError(stale, 409, "conflict"));
  EXPECT_EQ(stale.Header("ETag"), "\"1\"") << "a conflict tells the current version";
  EXPECT_EQ(http().Post(path, R"({"title":"soy milk"})").status, 428u);

  const std::string unknown = "/todo/" + NewUuid();
  EXPECT_TRUE(IsError(http().Get(unknown), 404, "not_found"));
  EXPECT_EQ(http().Post(unknown, R"({"title":"x"})", {{"If-Match", "\"0\""}}).status, 404u);

  HttpResponse deleted = http().Delete(path, {{"If-Match", "\"1\""}});
  ASSERT_EQ(deleted.status, 200u) << deleted.body;
  EXPECT_EQ(deleted.Header("ETag"), "\"2\"");
  EXPECT_TRUE(IsError(http().Get(path), 404, "not_found"));
  EXPECT_EQ(http().Post(path, R"({"title":"x"})", {{"If-Match", "\"2\""}}).status, 404u);

  // The events stay, readable with the standard API on the same port.
  HttpResponse events = http().Get("/streams/todo-" + id);
  ASSERT_EQ(events.status, 200u) << events.body;
  std::vector<std::string> types;
  for (const auto& event : EventsOf(events.Json())) types.push_back(StringOf(event, "type"));
  EXPECT_EQ(types, (std::vector<std::string>{"Todo.Created", "Todo.Updated", "Todo.Deleted"}));
  EXPECT_EQ(events.Header("ETag"), "\"2\"");
}

TEST_P(TodoTest, BadCommandsAre4xxAndWriteNothing) {
  EXPECT_TRUE(IsError(http().Post("/todo", R"({"id":"not-a-uuid","title":"x"})"), 400, "invalid"));
  EXPECT_TRUE(IsError(http().Post("/todo", R"({"id":")" + NewUuid() + R"("})"), 400, "invalid"));
  EXPECT_TRUE(IsError(http().Post("/todo", "{oops"), 400, "invalid"));
  const std::string id = NewUuid();
  ASSERT_EQ(Create(id, "milk").status, 201u);
  EXPECT_EQ(http().Post("/todo/" + id, R"({"title":"x"})", {{"If-Match", "zero"}}).status, 400u);
  HttpResponse all = http().Get("/all");
  // DynamoDB's $all follows the commit: wait for the one event to show.
  for (int i = 0; i < 100 && EventsOf(all.Json()).empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    all = http().Get("/all");
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // and for any wrong one
  all = http().Get("/all");
  EXPECT_EQ(EventsOf(all.Json()).size(), 1u) << all.body;
}

TEST_P(TodoTest, TheReadSideFollowsAndIsKeptAcrossARestart) {
  const std::string first = NewUuid(), second = NewUuid();
  ASSERT_EQ(Create(first, "milk").status, 201u);
  ASSERT_EQ(Create(second, "bread").status, 201u);
  ASSERT_EQ(http().Delete("/todo/" + first, {{"If-Match", "\"0\""}}).status, 200u);
  // The projection has applied the three events (on DynamoDB, once $all
  // has them: the listing alone could match on "milk" before "bread").
  for (int i = 0; i < 200 && Checkpoint().second < 3; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(ListedTitles(1), (std::vector<std::string>{"bread"}));
  EXPECT_EQ(Checkpoint(), (std::pair<std::int64_t, std::int64_t>{1, 3}));

  // kill -9 and start again: the read model resumes from its checkpoint
  // (the same copy), nothing applied twice.
  ASSERT_NO_FATAL_FAILURE(Start());
  EXPECT_EQ(ListedTitles(1), (std::vector<std::string>{"bread"}));
  EXPECT_EQ(http().Get("/todo/" + second).status, 200u);
  EXPECT_EQ(Checkpoint(), (std::pair<std::int64_t, std::int64_t>{1, 3}));
}

TEST_P(TodoTest, AWriteIsReadBackAtItsPosition) {
  if (GetParam() == TodoSetup::kDynamoDb) {
    // DynamoDB assigns positions after the commit: a write has none to
    // give (docs/DYNAMODB.md), so it sends no Indelible-Position.
    HttpResponse created = Create(NewUuid(), "item");
    ASSERT_EQ(created.status, 201u) << created.body;
    EXPECT_FALSE(created.Header("Indelible-Position").has_value());
    return;
  }
  for (int i = 0; i < 20; ++i) {
    HttpResponse created = Create(NewUuid(), "item " + std::to_string(i));
    ASSERT_EQ(created.status, 201u) << created.body;
    const auto position = created.Header("Indelible-Position");
    ASSERT_TRUE(position.has_value());
    // No polling: the query waits until the projection has passed the write.
    HttpResponse list = http().Get("/todo?minPosition=" + *position);
    ASSERT_EQ(list.status, 200u) << list.body;
    EXPECT_EQ(list.Json().at("todos").as_array().size(), static_cast<std::size_t>(i + 1));
  }
  EXPECT_TRUE(IsError(http().Get("/todo?minPosition=abc"), 400, "invalid"));
  // A position nobody wrote yet: a bounded wait, then 503.
  EXPECT_TRUE(IsError(http().Get("/todo?minPosition=1000000"), 503, "unavailable"));
}

INSTANTIATE_TEST_SUITE_P(Setups, TodoTest,
                         ::testing::Values(TodoSetup::kSqlite, TodoSetup::kPostgres,
                                           TodoSetup::kDynamoDb),
                         SetupName);

}  // namespace
}  // namespace indelible

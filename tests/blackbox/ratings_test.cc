// indelible-ratings end to end: the real binary on a free port, with its
// read models in SQLite (the default, beside the data folder) and in a real
// PostgreSQL (--read-store). Ratings and follows as commands checked by the
// user entity's rules, the read models (per link, per user, the feed) read
// with ?minPosition for read-your-writes, bad input, 16 racing follows, an
// event written around the rules, a deleted user, and the read models kept
// across restarts: resumed from their checkpoints, not rebuilt.
#include <gtest/gtest.h>
#include <indelible/read_store.h>
#include <indelible/store.h>

#include <algorithm>
#include <atomic>
#include <boost/json.hpp>
#include <cctype>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "projections/read_stores.h"
#include "server_fixture.h"

namespace indelible {
namespace {

using testutil::ReadStoreKind;

// Percent-encodes everything but the unreserved characters.
std::string Encoded(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char hex[4];
      std::snprintf(hex, sizeof(hex), "%%%02X", c);
      out += hex;
    }
  }
  return out;
}

// A list of ratings as "user link rating" lines (whichever of them it has),
// so that a failed comparison prints something readable.
std::vector<std::string> Lines(const json::value& body, std::string_view list) {
  std::vector<std::string> out;
  if (!body.is_object() || !body.as_object().contains(list))
    return {"<no " + std::string(list) + ">"};
  for (const auto& item : body.at(list).as_array()) {
    const json::object& o = item.as_object();
    std::string line;
    if (o.contains("user")) line += StringOf(o, "user") + " ";
    if (o.contains("link")) line += StringOf(o, "link") + " ";
    out.push_back(line + std::to_string(IntOf(o, "rating")));
  }
  return out;
}

class RatingsTest : public ::testing::TestWithParam<ReadStoreKind> {
 protected:
  void SetUp() override {
    read_store_ = GetParam() == ReadStoreKind::kSqlite
                      ? "sqlite:" + tmp_.Sub("data") + ".read.db"  // the default: no flag
                      : testutil::FreshReadStoreUrl(GetParam(), tmp_);
    ASSERT_FALSE(read_store_.empty());
    Start();
  }

  // (Re)starts the binary on the same store folder and read store, killing
  // it first.
  void Start() {
    if (server_) server_->Kill();
    std::vector<std::string> args{"--store", "file:" + tmp_.Sub("data")};
    if (GetParam() == ReadStoreKind::kPostgres)
      args.insert(args.end(), {"--read-store", read_store_});
    server_ = std::make_unique<testutil::ServerProcess>(INDELIBLE_RATINGS_PATH, args);
    ASSERT_TRUE(server_->Start()) << "indelible-ratings did not start: " << server_->output();
    http_ = std::make_unique<HttpClient>(server_->port());
  }

  HttpClient& http() { return *http_; }

  // A command that must succeed; remembers its position for the queries.
  void Ok(const HttpResponse& response, unsigned status) {
    ASSERT_EQ(response.status, status) << response.body << response.error;
    const std::int64_t position = IntOf(response.Json().as_object(), "position");
    ASSERT_GT(position, last_position_) << response.body;
    last_position_ = position;
  }

  HttpResponse Rate(const std::string& user, const std::string& link, int rating,
                    std::string_view method = "POST") {
    return http().Request(method, "/users/" + user + "/ratings",
                          {{"Content-Type", "application/json"}},
                          R"({"link":")" + link + R"(","rating":)" + std::to_string(rating) + "}");
  }
  HttpResponse Unrate(const std::string& user, const std::string& link) {
    return http().Delete("/users/" + user + "/ratings?link=" + Encoded(link));
  }
  HttpResponse Follow(const std::string& user, const std::string& other) {
    return http().Post("/users/" + user + "/follows", R"({"user":")" + other + R"("})");
  }
  HttpResponse Unfollow(const std::string& user, const std::string& other) {
    return http().Delete("/users/" + user + "/follows/" + other);
  }

  // A query once the read model has applied the last command.
  json::value Query(const std::string& target) {
    const char separator = target.find('?') == std::string::npos ? '?' : '&';
    const HttpResponse response =
        http().Get(target + separator + "minPosition=" + std::to_string(last_position_));
    EXPECT_EQ(response.status, 200u) << target << ": " << response.body << response.error;
    return response.Json();
  }
  std::vector<std::string> OfLink(const std::string& link) {
    return Lines(Query("/links/ratings?link=" + Encoded(link)), "ratings");
  }
  std::vector<std::string> OfUser(const std::string& user) {
    return Lines(Query("/users/" + user + "/ratings"), "ratings");
  }
  std::vector<std::string> FeedOf(const std::string& user) {
    return Lines(Query("/users/" + user + "/feed"), "feed");
  }

  std::vector<std::string> EventTypes(const std::string& stream) {
    std::vector<std::string> types;
    for (const auto& event : EventsOf(http().Get("/streams/" + stream).Json()))
      types.push_back(StringOf(event, "type"));
    return types;
  }

  // Each projection's copy and checkpoint, from its row in the read store:
  // "ratings g1@7 follows g1@7".
  std::string Checkpoints() {
    auto db = ReadStore::Open(read_store_);
    if (!db.ok()) return db.status().ToString();
    auto rows = (*db)->Query(
        "SELECT name, generation, position FROM indelible_projections ORDER BY name DESC");
    if (!rows.ok()) return rows.status().ToString();
    std::string out;
    for (const SqlRow& row : *rows)
      out += (out.empty() ? "" : " ") + SqlText(row[0]) + " g" + std::to_string(SqlInt(row[1])) +
             "@" + std::to_string(SqlInt(row[2]));
    return out;
  }
  std::string CheckpointsAt(std::int64_t position) {
    const std::string at = "@" + std::to_string(position);
    return "ratings g1" + at + " follows g1" + at;
  }

  testutil::TempDir tmp_;
  std::string read_store_;
  std::unique_ptr<testutil::ServerProcess> server_;
  std::unique_ptr<HttpClient> http_;
  std::int64_t last_position_ = 0;
};

using Strings = std::vector<std::string>;
const std::string kA = "https://example.com/a?x=1&y=2";
const std::string kB = "https://example.com/b";

TEST_P(RatingsTest, RateUpdateDeleteAndTheQueriesPerLinkAndPerUser) {
  Ok(Rate("alice", kA, 4), 201);
  const HttpResponse again = Rate("alice", kA, 3);
  EXPECT_TRUE(IsError(again, 422, "rejected"));
  EXPECT_NE(again.body.find("already rated"), std::string::npos) << again.body;
  Ok(Rate("alice", kA, 5, "PUT"), 200);
  EXPECT_TRUE(IsError(Rate("alice", kB, 5, "PUT"), 422, "rejected")) << "not rated yet";
  Ok(Rate("alice", kB, 3), 201);
  Ok(Rate("bob", kA, 2), 201);

  EXPECT_EQ(OfUser("alice"), (Strings{kA + " 5", kB + " 3"}));
  EXPECT_EQ(OfLink(kA), (Strings{"alice 5", "bob 2"}));
  EXPECT_EQ(OfUser("nobody"), Strings{});
  // Byte order, in both read stores, whatever PostgreSQL's locale.
  Ok(Rate("Zed", kB, 1), 201);
  EXPECT_EQ(OfLink(kB), (Strings{"Zed 1", "alice 3"}));

  Ok(Unrate("alice", kA), 200);
  EXPECT_TRUE(IsError(Unrate("alice", kA), 422, "rejected"));
  EXPECT_EQ(OfLink(kA), (Strings{"bob 2"}));
  EXPECT_EQ(OfUser("alice"), (Strings{kB + " 3"}));
  EXPECT_EQ(Member(Query("/links/ratings?link=" + Encoded(kA)), "count"), "1");

  // The events behind it, on the same port; the rejections wrote nothing.
  EXPECT_EQ(EventTypes("user-alice"),
            (Strings{"LINK_RATED", "RATING_UPDATED", "LINK_RATED", "RATING_DELETED"}));
}

TEST_P(RatingsTest, FollowAndUnfollowAreCheckedByTheRules) {
  Ok(Follow("alice", "bob"), 201);
  const HttpResponse twice = Follow("alice", "bob");
  EXPECT_TRUE(IsError(twice, 422, "rejected"));
  EXPECT_EQ(Member(twice.Json(), "message"), "\"already following bob\"");
  EXPECT_TRUE(IsError(Follow("alice", "alice"), 422, "rejected"));
  Ok(Follow("alice", "carol"), 201);
  EXPECT_EQ(Member(Query("/users/alice/follows"), "following"), R"(["bob","carol"])");

  Ok(Unfollow("alice", "bob"), 200);
  const HttpResponse again = Unfollow("alice", "bob");
  EXPECT_TRUE(IsError(again, 422, "rejected"));
  EXPECT_EQ(Member(again.Json(), "message"), "\"not following bob\"");
  EXPECT_TRUE(IsError(Unfollow("alice", "dave"), 422, "rejected")) << "never followed";
  EXPECT_EQ(Member(Query("/users/alice/follows"), "following"), R"(["carol"])");
  EXPECT_EQ(EventTypes("user-alice"),
            (Strings{"USER_FOLLOWED", "USER_FOLLOWED", "USER_UNFOLLOWED"}));
}

TEST_P(RatingsTest, ADuplicateWrittenAroundTheEntityDoesNotBreakIt) {
  Ok(Follow("alice", "bob"), 201);
  // The standard API on the same port skips the rules: a stored duplicate.
  const HttpResponse raw =
      http().Post("/streams/user-alice", EventJson("USER_FOLLOWED", R"({"user":"bob"})"));
  ASSERT_EQ(raw.status, 201u) << raw.body;
  last_position_ = IntOf(raw.Json().as_object(), "position");
  EXPECT_EQ(Member(Query("/users/alice/follows"), "following"), R"(["bob"])");
  Ok(Follow("alice", "carol"), 201);
  Ok(Unfollow("alice", "bob"), 200);
  EXPECT_TRUE(IsError(Unfollow("alice", "bob"), 422, "rejected"));
  EXPECT_EQ(Member(Query("/users/alice/follows"), "following"), R"(["carol"])");
}

TEST_P(RatingsTest, TheFeedShowsTheRatingsOfFollowedUsersNewestFirst) {
  Ok(Rate("bob", kA, 4), 201);
  Ok(Rate("carol", kB, 2), 201);
  EXPECT_EQ(FeedOf("alice"), Strings{});
  Ok(Follow("alice", "bob"), 201);
  EXPECT_EQ(FeedOf("alice"), (Strings{"bob " + kA + " 4"})) << "existing ratings come in";
  Ok(Rate("bob", kB, 5), 201);
  EXPECT_EQ(FeedOf("alice"), (Strings{"bob " + kB + " 5", "bob " + kA + " 4"}));
  Ok(Rate("bob", kA, 1, "PUT"), 200);
  EXPECT_EQ(FeedOf("alice"), (Strings{"bob " + kA + " 1", "bob " + kB + " 5"}));

  Ok(Unfollow("alice", "bob"), 200);
  EXPECT_EQ(FeedOf("alice"), Strings{}) << "unfollowing drops bob's ratings";
  Ok(Follow("alice", "carol"), 201);
  EXPECT_EQ(FeedOf("alice"), (Strings{"carol " + kB + " 2"}));
  Ok(Rate("bob", "https://example.com/c", 3), 201);  // while not followed
  Ok(Follow("alice", "bob"), 201);
  EXPECT_EQ(FeedOf("alice"), (Strings{"bob https://example.com/c 3", "bob " + kA + " 1",
                                      "bob " + kB + " 5", "carol " + kB + " 2"}));
  Ok(Unrate("bob", kA), 200);
  EXPECT_EQ(FeedOf("alice"),
            (Strings{"bob https://example.com/c 3", "bob " + kB + " 5", "carol " + kB + " 2"}));
  EXPECT_EQ(FeedOf("bob"), Strings{}) << "bob follows nobody";
}

TEST_P(RatingsTest, ADeletedUserStartsOverInTheReadModels) {
  Ok(Rate("bob", kA, 4), 201);
  Ok(Follow("bob", "carol"), 201);
  Ok(Rate("carol", kA, 2), 201);
  Ok(Follow("alice", "bob"), 201);
  EXPECT_EQ(FeedOf("alice"), (Strings{"bob " + kA + " 4"}));

  // The standard API deletes bob's stream: his ratings and follows go;
  // alice's follow of him stays, it lives in her stream.
  const HttpResponse deleted = http().Delete("/streams/user-bob");
  ASSERT_EQ(deleted.status, 200u) << deleted.body;
  last_position_ = IntOf(deleted.Json().as_object(), "position");
  EXPECT_EQ(OfLink(kA), (Strings{"carol 2"}));
  EXPECT_EQ(OfUser("bob"), Strings{});
  EXPECT_EQ(Member(Query("/users/bob/follows"), "following"), "[]");
  EXPECT_EQ(Member(Query("/users/alice/follows"), "following"), R"(["bob"])");
  EXPECT_EQ(FeedOf("alice"), Strings{});
  Ok(Rate("bob", kA, 1), 201);  // the entity starts over too
  EXPECT_EQ(FeedOf("alice"), (Strings{"bob " + kA + " 1"}));
}

TEST_P(RatingsTest, BadInputIs400NamingTheFieldAndWritesNothing) {
  struct Case {
    std::string method, target, body, field;
  };
  const std::string link = R"("link":"https://example.com/a")";
  const std::vector<Case> cases = {
      {"POST", "/users/alice/ratings", "{oops", "body"},
      {"POST", "/users/alice/ratings", "[1]", "body"},
      {"POST", "/users/alice/ratings", R"({"rating":3})", "link"},
      {"POST", "/users/alice/ratings", R"({"link":7,"rating":3})", "link"},
      {"POST", "/users/alice/ratings", R"({"link":"has space","rating":3})", "link"},
      {"POST", "/users/alice/ratings", R"({"link":")" + std::string(2049, 'x') + R"(","rating":3})",
       "link"},
      {"POST", "/users/alice/ratings", "{" + link + "}", "rating"},
      {"POST", "/users/alice/ratings", "{" + link + R"(,"rating":0})", "rating"},
      {"POST", "/users/alice/ratings", "{" + link + R"(,"rating":6})", "rating"},
      {"PUT", "/users/alice/ratings", "{" + link + R"(,"rating":4.5})", "rating"},
      {"PUT", "/users/alice/ratings", "{" + link + R"(,"rating":"5"})", "rating"},
      {"POST", "/users/a%20b/ratings", "{" + link + R"(,"rating":3})", "{user}"},
      {"POST", "/users//ratings", "{" + link + R"(,"rating":3})", "{user}"},
      {"POST", "/users/" + std::string(65, 'a') + "/ratings", "{" + link + R"(,"rating":3})",
       "{user}"},
      {"DELETE", "/users/alice/ratings", "", "link"},
      {"DELETE", "/users/alice/ratings?link=", "", "link"},
      {"POST", "/users/alice/follows", "{}", "user"},
      {"POST", "/users/alice/follows", R"({"user":["bob"]})", "user"},
      {"POST", "/users/alice/follows", R"({"user":"bob/x"})", "user"},
      {"DELETE", "/users/alice/follows/b%2Fc", "", "{other}"},
      {"GET", "/users/alice/feed?minPosition=abc", "", "minPosition"},
      {"GET", "/users/alice/ratings?minPosition=-1", "", "minPosition"},
      {"GET", "/links/ratings", "", "link"},
  };
  for (const Case& c : cases) {
    const HttpResponse response =
        http().Request(c.method, c.target, {{"Content-Type", "application/json"}}, c.body);
    EXPECT_TRUE(IsError(response, 400, "invalid")) << c.method << " " << c.target << " " << c.body;
    EXPECT_EQ(Member(response.Json(), "field"), "\"" + c.field + "\"") << c.target << " " << c.body;
  }
  // The users' events only: $all also holds the schema registry ($schemas)
  // the service writes at start-up.
  EXPECT_EQ(EventsOf(http().Get("/all?category=user").Json()).size(), 0u) << "nothing was written";
}

TEST_P(RatingsTest, SixteenConcurrentFollowsWriteOneEvent) {
  constexpr int kClients = 16;
  std::vector<unsigned> statuses(kClients);
  std::vector<std::string> messages(kClients);
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kClients; ++i) {
    threads.emplace_back([&, i] {
      HttpClient client(server_->port());
      // Connected first, so that the requests leave together.
      EXPECT_EQ(client.Get("/health").status, 200u);
      ++ready;
      while (ready < kClients) std::this_thread::yield();
      const HttpResponse response = client.Post("/users/alice/follows", R"({"user":"bob"})");
      statuses[i] = response.status;
      messages[i] = Member(response.Json(), "message");
    });
  }
  for (auto& thread : threads) thread.join();

  int created = 0, rejected = 0;
  for (int i = 0; i < kClients; ++i) {
    if (statuses[i] == 201) ++created;
    if (statuses[i] == 422 && messages[i] == "\"already following bob\"") ++rejected;
  }
  EXPECT_EQ(created, 1);
  EXPECT_EQ(rejected, kClients - 1);
  EXPECT_EQ(EventTypes("user-alice"), (Strings{"USER_FOLLOWED"}));
}

TEST_P(RatingsTest, EveryWriteIsVisibleInTheNextQueryAtItsPosition) {
  // Sixteen clients at once, more than the read side's pooled connections,
  // each reading back every write it makes.
  constexpr int kClients = 16, kRounds = 5;
  std::vector<std::thread> threads;
  for (int c = 0; c < kClients; ++c) {
    threads.emplace_back([this, c] {
      HttpClient client(server_->port());
      const std::string user = "u" + std::to_string(c);
      for (int i = 0; i < kRounds; ++i) {
        const std::string link = "https://example.com/" + std::to_string(i);
        const HttpResponse rated =
            client.Post("/users/" + user + "/ratings",
                        R"({"link":")" + link + R"(","rating":)" + std::to_string(i + 1) + "}");
        ASSERT_EQ(rated.status, 201u) << rated.body << rated.error;
        const std::string at =
            "minPosition=" + std::to_string(IntOf(rated.Json().as_object(), "position"));
        const HttpResponse mine = client.Get("/users/" + user + "/ratings?" + at);
        ASSERT_EQ(mine.status, 200u) << mine.body;
        EXPECT_EQ(Lines(mine.Json(), "ratings").size(), static_cast<std::size_t>(i + 1));
        const Strings of_link =
            Lines(client.Get("/links/ratings?link=" + Encoded(link) + "&" + at).Json(), "ratings");
        EXPECT_NE(std::find(of_link.begin(), of_link.end(), user + " " + std::to_string(i + 1)),
                  of_link.end())
            << user << " " << link;
      }
    });
  }
  for (auto& thread : threads) thread.join();

  for (int c = 1; c < kClients; ++c) Ok(Follow("u0", "u" + std::to_string(c)), 201);
  const Strings feed = FeedOf("u0");
  EXPECT_EQ(feed.size(), static_cast<std::size_t>((kClients - 1) * kRounds));
  // A position nobody wrote yet: the bounded wait, then 503.
  EXPECT_TRUE(IsError(http().Get("/users/u0/feed?minPosition=1000000"), 503, "unavailable"));
}

TEST_P(RatingsTest, TheReadModelsAreKeptAcrossRestarts) {
  Ok(Rate("bob", kA, 4), 201);
  Ok(Rate("bob", kB, 2), 201);
  Ok(Rate("carol", kA, 5), 201);
  Ok(Follow("alice", "bob"), 201);
  Ok(Follow("alice", "carol"), 201);
  Ok(Unfollow("alice", "carol"), 200);
  Ok(Rate("bob", kB, 3, "PUT"), 200);
  const Strings targets = {"/users/alice/feed",
                           "/users/alice/follows",
                           "/users/bob/ratings",
                           "/users/carol/ratings",
                           "/links/ratings?link=" + Encoded(kA),
                           "/links/ratings?link=" + Encoded(kB)};
  std::vector<std::string> before;
  for (const std::string& target : targets) before.push_back(json::serialize(Query(target)));
  EXPECT_EQ(FeedOf("alice"), (Strings{"bob " + kB + " 3", "bob " + kA + " 4"}));
  EXPECT_EQ(Checkpoints(), CheckpointsAt(last_position_));

  // kill -9, then the same store folder and read store: the tables are
  // there at once (no ?minPosition), the same copy (g1: not rebuilt) at
  // the same checkpoint (nothing applied again).
  ASSERT_NO_FATAL_FAILURE(Start());
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const HttpResponse response = http().Get(targets[i]);
    EXPECT_EQ(response.status, 200u) << targets[i] << ": " << response.body;
    EXPECT_EQ(json::serialize(response.Json()), before[i]) << targets[i];
  }
  EXPECT_EQ(Checkpoints(), CheckpointsAt(last_position_));

  // Stopped cleanly (the runners too), then events written while it is
  // down: the next start applies them from the checkpoint on.
  EXPECT_EQ(server_->Terminate(), 0) << server_->output();
  {
    auto store = Store::Open("file:" + tmp_.Sub("data"));
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    const auto event = [](std::string type, std::string data) {
      EventData e;
      e.type = std::move(type);
      e.data = std::move(data);
      return e;
    };
    ASSERT_TRUE((*store)
                    ->Append("user-dave", Expected::any(),
                             {event("LINK_RATED", R"({"link":")" + kA + R"(","rating":1})")})
                    .ok());
    auto appended = (*store)->Append("user-alice", Expected::any(),
                                     {event("USER_UNFOLLOWED", R"({"user":"bob"})")});
    ASSERT_TRUE(appended.ok()) << appended.status().ToString();
    last_position_ = static_cast<std::int64_t>(appended->position.value());
  }
  ASSERT_NO_FATAL_FAILURE(Start());
  EXPECT_EQ(OfLink(kA), (Strings{"bob 4", "carol 5", "dave 1"}));
  EXPECT_EQ(Member(Query("/links/ratings?link=" + Encoded(kB)), "count"), "1") << "not doubled";
  EXPECT_EQ(FeedOf("alice"), Strings{});
  EXPECT_EQ(Checkpoints(), CheckpointsAt(last_position_));
  // The rules see the same state: the entity is rebuilt from the events too.
  EXPECT_TRUE(IsError(Rate("bob", kA, 1), 422, "rejected"));
  EXPECT_TRUE(IsError(Rate("dave", kA, 2), 422, "rejected"));
  Ok(Follow("alice", "bob"), 201);
  EXPECT_EQ(FeedOf("alice"), (Strings{"bob " + kB + " 3", "bob " + kA + " 4"}));
}

INSTANTIATE_TEST_SUITE_P(ReadStores, RatingsTest,
                         ::testing::Values(ReadStoreKind::kSqlite, ReadStoreKind::kPostgres),
                         testutil::KindName);

}  // namespace
}  // namespace indelible

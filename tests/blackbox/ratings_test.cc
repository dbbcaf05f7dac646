// indelible-ratings end to end: the real binary on a free port. Ratings and
// follows as commands checked by the user entity's rules, the read models
// (per link, per user, the feed) read with ?minPosition for read-your-writes,
// bad input, 16 racing follows, an event written around the rules, and the
// read models rebuilt after a restart.
#include <gtest/gtest.h>

#include <atomic>
#include <boost/json.hpp>
#include <cctype>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "server_fixture.h"

namespace indelible {
namespace {

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

class RatingsTest : public ::testing::Test {
 protected:
  void SetUp() override { Start(); }

  // (Re)starts the binary on the same store folder, killing it first.
  void Start() {
    if (server_) server_->Kill();
    server_ = std::make_unique<testutil::ServerProcess>(
        INDELIBLE_RATINGS_PATH, std::vector<std::string>{"--store", "file:" + tmp_.Sub("data")});
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

  testutil::TempDir tmp_;
  std::unique_ptr<testutil::ServerProcess> server_;
  std::unique_ptr<HttpClient> http_;
  std::int64_t last_position_ = 0;
};

using Strings = std::vector<std::string>;
const std::string kA = "https://example.com/a?x=1&y=2";
const std::string kB = "https://example.com/b";

TEST_F(RatingsTest, RateUpdateDeleteAndTheQueriesPerLinkAndPerUser) {
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

  Ok(Unrate("alice", kA), 200);
  EXPECT_TRUE(IsError(Unrate("alice", kA), 422, "rejected"));
  EXPECT_EQ(OfLink(kA), (Strings{"bob 2"}));
  EXPECT_EQ(OfUser("alice"), (Strings{kB + " 3"}));
  EXPECT_EQ(Member(Query("/links/ratings?link=" + Encoded(kA)), "count"), "1");

  // The events behind it, on the same port; the rejections wrote nothing.
  EXPECT_EQ(EventTypes("user-alice"),
            (Strings{"LINK_RATED", "RATING_UPDATED", "LINK_RATED", "RATING_DELETED"}));
}

TEST_F(RatingsTest, FollowAndUnfollowAreCheckedByTheRules) {
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

TEST_F(RatingsTest, ADuplicateWrittenAroundTheEntityDoesNotBreakIt) {
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

TEST_F(RatingsTest, TheFeedShowsTheRatingsOfFollowedUsersNewestFirst) {
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

TEST_F(RatingsTest, BadInputIs400NamingTheFieldAndWritesNothing) {
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
  EXPECT_EQ(EventsOf(http().Get("/all").Json()).size(), 0u) << "nothing was written";
}

TEST_F(RatingsTest, SixteenConcurrentFollowsWriteOneEvent) {
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

TEST_F(RatingsTest, TheReadModelsAreRebuiltAfterARestart) {
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

  ASSERT_NO_FATAL_FAILURE(Start());  // kill -9, then the same store folder
  for (std::size_t i = 0; i < targets.size(); ++i)
    EXPECT_EQ(json::serialize(Query(targets[i])), before[i]) << targets[i];
  // The rules see the same state: the entity is rebuilt from the events too.
  EXPECT_TRUE(IsError(Follow("alice", "bob"), 422, "rejected"));
  EXPECT_TRUE(IsError(Rate("bob", kA, 1), 422, "rejected"));
}

}  // namespace
}  // namespace indelible

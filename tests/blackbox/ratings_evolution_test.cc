// indelible-ratings' rating events evolved from V1 {link, rating} to V2
// {link, stars, scale} (examples/ratings/README.md, "Evolving an event"):
// a history the previous version wrote (V1, unlabelled or labelled, straight
// into the store) and the evolved entity continued (V2) gives read models,
// live and rebuilt, equal to those of the same history written as V2
// throughout, while the stored V1 bytes stay as written. Then the real
// binary on such a store: the standard API reads V2, ?raw=1 the V1 bytes,
// appends are checked, and a restart registers nothing again.
#include <gtest/gtest.h>
#include <indelible/entity.h>
#include <indelible/read_store.h>
#include <indelible/schemas.h>
#include <indelible/store.h>

#include <algorithm>
#include <boost/json.hpp>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "ratings_projections.h"
#include "ratings_read_model.h"
#include "ratings_schemas.h"
#include "server_fixture.h"
#include "testutil/cli_runner.h"
#include "user.h"

namespace indelible {
namespace {

using Strings = std::vector<std::string>;
using Users = Entity<ratings::UserState>;

const std::string kA = "https://example.com/a?x=1&y=2";
const std::string kB = "https://example.com/b";
const std::string kC = "https://example.com/c";

EventData Event(std::string type, std::string data, std::string schema = "") {
  EventData event;
  event.type = std::move(type);
  event.data = std::move(data);
  event.schema = std::move(schema);
  return event;
}

std::string V1Data(const std::string& link, int rating) {
  return json::serialize(json::object{{"link", link}, {"rating", rating}});
}
std::string V2Data(const std::string& link, int stars) {
  return json::serialize(json::object{{"link", link}, {"stars", stars}, {"scale", 5}});
}

// A flat JSON object with its keys sorted: upcast data need not keep the
// stored order of keys.
std::string Canonical(const json::value& value) {
  if (!value.is_object()) return json::serialize(value);
  std::vector<std::string> keys;
  for (const auto& member : value.as_object()) keys.emplace_back(member.key());
  std::sort(keys.begin(), keys.end());
  std::string out = "{";
  for (const std::string& key : keys)
    out += (out.size() > 1 ? "," : "") + json::serialize(json::value(key)) + ":" +
           json::serialize(value.as_object().at(key));
  return out + "}";
}
std::string Canonical(const std::string& text) { return Canonical(json::parse(text)); }

// One event of the history before the evolution, as each store holds it.
struct OldEvent {
  std::string user;
  std::string type;
  std::string link_or_user;
  int rating = 0;        // 0: a follow
  std::string v1_label;  // the previous version wrote none; some say "V1"
};

// What the previous version of the example wrote, in this order.
const std::vector<OldEvent>& OldHistory() {
  static const std::vector<OldEvent> history = {
      {"alice", ratings::kLinkRated, kA, 4, ""},
      {"bob", ratings::kLinkRated, kA, 2, ""},
      {"alice", ratings::kLinkRated, kB, 3, ""},
      {"bob", ratings::kUserFollowed, "alice", 0, ""},
      {"alice", ratings::kRatingUpdated, kA, 5, ratings::kRatingV1},
      {"carol", ratings::kLinkRated, kB, 1, ratings::kRatingV1},
      {"carol", ratings::kUserFollowed, "bob", 0, ""},
      {"dave", ratings::kUserFollowed, "alice", 0, ""},
  };
  return history;
}

// One store and what runs on it, as indelible-ratings wires them: the
// SchemaStore around the store, the registration, the user entity.
class Ratings {
 public:
  // Writes the old history into the bare store (as V1, or as V2 for the
  // all-V2 twin), then starts as the evolved example does.
  static std::unique_ptr<Ratings> WithOldHistory(bool as_v1, const std::string& read_store) {
    auto app = std::unique_ptr<Ratings>(new Ratings(read_store));
    auto inner = Store::Open("memory:");
    EXPECT_TRUE(inner.ok()) << inner.status().ToString();
    if (!inner.ok()) return nullptr;
    app->inner_ = std::move(*inner);
    for (const OldEvent& e : OldHistory()) {
      EventData event =
          e.rating == 0 ? Event(e.type, json::serialize(json::object{{"user", e.link_or_user}}))
          : as_v1       ? Event(e.type, V1Data(e.link_or_user, e.rating), e.v1_label)
                        : Event(e.type, V2Data(e.link_or_user, e.rating), ratings::kRatingV2);
      auto appended =
          app->inner_->Append(ratings::UserStream(e.user), Expected::any(), {std::move(event)});
      EXPECT_TRUE(appended.ok()) << appended.status().ToString();
    }
    auto wrapped = SchemaStore::Wrap(*app->inner_);
    EXPECT_TRUE(wrapped.ok()) << wrapped.status().ToString();
    if (!wrapped.ok()) return nullptr;
    app->store_ = std::move(*wrapped);
    const Status registered = ratings::RegisterRatingSchemas(app->store_->schemas());
    EXPECT_TRUE(registered.ok()) << registered.ToString();
    app->users_ = std::make_unique<Users>(*app->store_, app->rules_, ratings::UserEntityOptions());
    return app;
  }

  Store& inner() { return *inner_; }
  SchemaStore& store() { return *store_; }
  const Users& users() const { return *users_; }

  Status Command(const std::string& user, EventData event) {
    auto change = users_->Append(ratings::UserStream(user), {std::move(event)});
    return change.ok() ? Status::Ok() : change.status();
  }
  Status Rate(const std::string& user, const char* type, const std::string& link, int stars) {
    return Command(user, ratings::RatingEvent(type, ratings::Rating{link, stars}));
  }

  // Every query of the read model, as "user link rating @position" lines:
  // the ratings of each link and user, each user's feed and follows.
  Strings ReadModel(std::string* error) {
    auto model = ratings::RatingsReadModel::Open(*store_, read_store_);
    if (!model.ok()) {
      *error = model.status().ToString();
      return {};
    }
    if (!(*model)->WaitFor(store_->LastPosition(), std::chrono::seconds(30))) {
      *error = "the projections did not reach " + std::to_string(store_->LastPosition().value());
      return {};
    }
    Strings out;
    const auto add = [&out](const std::string& what, const auto& views) {
      out.push_back(what + ":");
      if (!views.ok()) {
        out.push_back("  " + views.status().ToString());
        return;
      }
      for (const ratings::RatingView& r : *views)
        out.push_back("  " + r.user + " " + r.link + " " + std::to_string(r.rating) + " @" +
                      std::to_string(r.position));
    };
    for (const std::string& link : {kA, kB, kC}) add("link " + link, (*model)->ForLink(link));
    for (const char* user : {"alice", "bob", "carol", "dave"}) {
      add(std::string("user ") + user, (*model)->ForUser(user));
      add(std::string("feed ") + user, (*model)->Feed(user));
      auto following = (*model)->Following(user);
      std::string line = std::string("follows ") + user + ":";
      for (const std::string& f : following.ok() ? *following : Strings{"<error>"}) line += " " + f;
      out.push_back(line);
    }
    return out;
  }

  // Both projections rebuilt from the start of $all, as `indelible-ratings
  // project rebuild` does; "name gN@P" of each copy in the read store.
  std::string RebuildAll() {
    for (Projection& projection : ratings::ReadModelProjections()) {
      auto runner = ProjectionRunner::Open(*store_, read_store_, std::move(projection));
      if (!runner.ok()) return runner.status().ToString();
      if (Status s = (*runner)->Rebuild(); !s.ok()) return s.ToString();
    }
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

 private:
  explicit Ratings(std::string read_store) : read_store_(std::move(read_store)) {}

  const Rules<ratings::UserState> rules_ = ratings::UserRules();
  std::string read_store_;
  std::unique_ptr<Store> inner_;
  std::unique_ptr<SchemaStore> store_;
  std::unique_ptr<Users> users_;
};

// The commands of the evolved example after the old history; each rule
// decides on a state loaded from V1 and V2 events alike.
void ContinueAsV2(Ratings& r) {
  using namespace ratings;
  EXPECT_TRUE(r.Rate("alice", kRatingUpdated, kB, 1).ok()) << "rated in V1: an update is fine";
  const Status twice = r.Rate("alice", kLinkRated, kA, 2);
  EXPECT_EQ(twice.code(), ErrorCode::kRejected) << "rated in V1 already: " << twice.ToString();
  EXPECT_TRUE(r.Command("bob", MakeEvent(kRatingDeleted, RatingDeleted{kA})).ok());
  EXPECT_TRUE(r.Rate("bob", kLinkRated, kC, 4).ok());
  EXPECT_TRUE(r.Rate("carol", kRatingUpdated, kB, 5).ok()) << "labelled V1: an update is fine";
  EXPECT_TRUE(r.Rate("dave", kLinkRated, kA, 3).ok());
  EXPECT_TRUE(r.Command("alice", MakeEvent(kUserFollowed, Follow{"carol"})).ok());
}

class RatingsEvolutionTest : public ::testing::Test {
 protected:
  std::string ReadStoreUrl(const std::string& name) { return "sqlite:" + tmp_.Sub(name); }
  testutil::TempDir tmp_;
};

TEST_F(RatingsEvolutionTest, AV1HistoryReadsAsV2InTheEntityAndTheReadModelsLiveAndRebuilt) {
  auto evolved = Ratings::WithOldHistory(/*as_v1=*/true, ReadStoreUrl("evolved.db"));
  auto all_v2 = Ratings::WithOldHistory(/*as_v1=*/false, ReadStoreUrl("all_v2.db"));
  ASSERT_TRUE(evolved && all_v2);
  ContinueAsV2(*evolved);
  ContinueAsV2(*all_v2);
  ASSERT_EQ(evolved->store().LastPosition(), all_v2->store().LastPosition())
      << "the two histories line up, position for position";

  // The entity's state, loaded from each store.
  for (const char* user : {"alice", "bob", "carol", "dave"}) {
    auto a = evolved->users().Get(ratings::UserStream(user));
    auto b = all_v2->users().Get(ratings::UserStream(user));
    ASSERT_TRUE(a.ok() && b.ok()) << user;
    EXPECT_EQ(Codec<ratings::UserState>::Encode(a->state),
              Codec<ratings::UserState>::Encode(b->state))
        << user;
  }

  std::string error;
  const Strings live = evolved->ReadModel(&error);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_EQ(live, all_v2->ReadModel(&error)) << error;
  // Not empty by accident: the V1 ratings are there, as updated since.
  auto has = [&live](const std::string& prefix) {
    for (const std::string& line : live)
      if (line.starts_with(prefix)) return true;
    return false;
  };
  EXPECT_TRUE(has("  alice " + kA + " 5 @")) << ::testing::PrintToString(live);
  EXPECT_TRUE(has("  alice " + kB + " 1 @")) << ::testing::PrintToString(live);
  EXPECT_TRUE(has("  carol " + kB + " 5 @")) << ::testing::PrintToString(live);
  EXPECT_TRUE(has("  dave " + kA + " 3 @")) << ::testing::PrintToString(live);
  EXPECT_FALSE(has("  bob " + kA)) << "deleted: " << ::testing::PrintToString(live);

  // Rebuilt from the start of $all: new copies (g2), the same rows.
  const std::string last = "@" + std::to_string(evolved->store().LastPosition().value());
  EXPECT_EQ(evolved->RebuildAll(), "ratings g2" + last + " follows g2" + last);
  EXPECT_EQ(evolved->ReadModel(&error), live) << error;
  EXPECT_EQ(all_v2->RebuildAll(), "ratings g2" + last + " follows g2" + last);
  EXPECT_EQ(all_v2->ReadModel(&error), live) << error;
}

TEST_F(RatingsEvolutionTest, StoredBytesStayV1AndWhatTheAppWritesIsV2) {
  auto evolved = Ratings::WithOldHistory(/*as_v1=*/true, ReadStoreUrl("read.db"));
  ASSERT_TRUE(evolved);
  ASSERT_TRUE(evolved->Rate("alice", ratings::kRatingUpdated, kB, 1).ok());

  struct Seen {
    std::string schema, data;
  };
  const auto read_alice = [](Store& store, bool raw) {
    std::vector<Seen> out;
    ReadStreamOptions options;
    options.raw = raw;
    auto cursor = store.ReadStream("user-alice", options);
    EXPECT_TRUE(cursor.ok()) << cursor.status().ToString();
    if (!cursor.ok()) return out;
    for (; (*cursor)->Valid(); (*cursor)->Next())
      out.push_back({std::string((*cursor)->event().schema), std::string((*cursor)->event().data)});
    return out;
  };
  // alice: LINK_RATED kA 4, LINK_RATED kB 3 (unlabelled), RATING_UPDATED kA
  // 5 (V1), then the entity's RATING_UPDATED kB 1.
  for (bool raw : {true, false}) {
    for (Store* store : {&evolved->inner(), static_cast<Store*>(&evolved->store())}) {
      if (!raw && store == &evolved->inner()) continue;  // the bare store never upcasts
      const std::vector<Seen> seen = read_alice(*store, raw);
      ASSERT_EQ(seen.size(), 4u);
      const std::vector<std::pair<std::string, int>> old = {{kA, 4}, {kB, 3}, {kA, 5}};
      for (std::size_t i = 0; i < old.size(); ++i) {
        const auto& [link, stars] = old[i];
        if (raw) {
          EXPECT_EQ(seen[i].data, V1Data(link, stars)) << "the bytes as written, event " << i;
          EXPECT_EQ(seen[i].schema, i == 2 ? "V1" : "") << i;
        } else {
          EXPECT_EQ(json::parse(seen[i].data), json::parse(V2Data(link, stars))) << i;
          EXPECT_EQ(seen[i].schema, "V2") << i;
        }
      }
      EXPECT_EQ(seen[3].schema, "V2") << "the app writes V2";
      EXPECT_EQ(json::parse(seen[3].data), json::parse(V2Data(kB, 1)));
    }
  }

  // Starting again registers nothing: the registry's stream stays as it was.
  auto head = evolved->inner().Head(kSchemasStream);
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  ASSERT_TRUE(ratings::RegisterRatingSchemas(evolved->store().schemas()).ok());
  auto again = evolved->inner().Head(kSchemasStream);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->version, head->version);
  auto type = evolved->store().schemas().Find(ratings::kLinkRated);
  ASSERT_TRUE(type.has_value());
  ASSERT_EQ(type->versions.size(), 2u);
  EXPECT_EQ(type->versions[0].version, "V1");
  EXPECT_EQ(type->versions[1].version, "V2");
  EXPECT_EQ(type->settings.mode, SchemaMode::kEnforce);
  EXPECT_EQ(type->settings.compatibility, Compatibility::kNone);
  ASSERT_EQ(type->upcasters.size(), 1u);

  // Enforced: an unlabelled event is labelled V2 and must have V2's shape.
  auto refused = evolved->store().Append("user-erin", Expected::any(),
                                         {Event(ratings::kLinkRated, V1Data(kA, 4))});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kInvalid) << refused.status().ToString();
  auto six = evolved->store().Append("user-erin", Expected::any(),
                                     {Event(ratings::kLinkRated, V2Data(kA, 6), "V2")});
  EXPECT_EQ(six.status().code(), ErrorCode::kInvalid) << "stars above the scale";
  // The link's bounds are ValidateLink's: up to 2048 bytes of printable
  // ASCII without spaces.
  const std::string longest = "https://example.com/" + std::string(2048 - 20, 'x');
  EXPECT_TRUE(evolved->Rate("erin", ratings::kLinkRated, longest, 3).ok());
  for (const std::string& bad : {longest + "x", std::string("https://example.com/a b")}) {
    auto refused_link = evolved->store().Append("user-erin", Expected::any(),
                                                {Event(ratings::kLinkRated, V2Data(bad, 3), "V2")});
    EXPECT_EQ(refused_link.status().code(), ErrorCode::kInvalid) << bad.size();
  }
}

// The binary: a store the previous version left (V1 events, no registry),
// then indelible-ratings on it.
TEST_F(RatingsEvolutionTest, TheStandardApiOfTheBinaryReadsV2AndRawReadsV1) {
  const std::string data = tmp_.Sub("data");
  Position last_old{0};
  {
    auto store = Store::Open("file:" + data);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    for (const auto& [user, link, rating] :
         std::vector<std::tuple<std::string, std::string, int>>{{"alice", kA, 4}, {"bob", kA, 2}}) {
      auto appended = (*store)->Append(ratings::UserStream(user), Expected::any(),
                                       {Event(ratings::kLinkRated, V1Data(link, rating))});
      ASSERT_TRUE(appended.ok()) << appended.status().ToString();
      last_old = appended->position;
    }
  }
  auto server = std::make_unique<testutil::ServerProcess>(INDELIBLE_RATINGS_PATH,
                                                          Strings{"--store", "file:" + data});
  ASSERT_TRUE(server->Start()) << server->output();
  HttpClient http(server->port());

  const auto events = [&http](const std::string& target) {
    Strings out;
    for (const json::object& e : EventsOf(http.Get(target).Json()))
      out.push_back(StringOf(e, "type") + " " +
                    (e.contains("schema") ? StringOf(e, "schema") : "-") + " " +
                    (e.contains("data") ? Canonical(e.at("data")) : "<no data>"));
    return out;
  };
  EXPECT_EQ(events("/streams/user-alice"), (Strings{"LINK_RATED V2 " + Canonical(V2Data(kA, 4))}));
  EXPECT_EQ(events("/streams/user-alice?raw=1"),
            (Strings{"LINK_RATED - " + Canonical(V1Data(kA, 4))}));

  // The service's API is as it was: `rating` in, `rating` out.
  const HttpResponse updated =
      http.Request("PUT", "/users/alice/ratings", {{"Content-Type", "application/json"}},
                   R"({"link":")" + kA + R"(","rating":1})");
  ASSERT_EQ(updated.status, 200u) << updated.body;
  const std::int64_t position = IntOf(updated.Json().as_object(), "position");
  const std::string of_a = "/links/ratings?link=https%3A%2F%2Fexample.com%2Fa%3Fx%3D1%26y%3D2";
  const HttpResponse of_link = http.Get(of_a + "&minPosition=" + std::to_string(position));
  ASSERT_EQ(of_link.status, 200u) << of_link.body;
  EXPECT_EQ(Member(of_link.Json(), "ratings"), R"([{"user":"alice","rating":1,"position":)" +
                                                   std::to_string(position) +
                                                   R"(},{"user":"bob","rating":2,"position":)" +
                                                   std::to_string(last_old.value()) + "}]");
  EXPECT_EQ(events("/streams/user-alice?raw=1").back(),
            "RATING_UPDATED V2 " + Canonical(V2Data(kA, 1)));

  // The standard API appends through the same checks: V1's shape is
  // refused unlabelled (it is labelled V2), and taken labelled V1.
  const HttpResponse unlabelled =
      http.Post("/streams/user-carol", EventJson("LINK_RATED", V1Data(kA, 3)));
  EXPECT_TRUE(IsError(unlabelled, 400, "invalid")) << unlabelled.body;
  const HttpResponse labelled = http.Post(
      "/streams/user-carol", R"({"type":"LINK_RATED","schema":"V1","data":)" + V1Data(kA, 3) + "}");
  EXPECT_EQ(labelled.status, 201u) << labelled.body;
  EXPECT_EQ(events("/streams/user-carol"), (Strings{"LINK_RATED V2 " + Canonical(V2Data(kA, 3))}));

  const std::string labelled_at = std::to_string(IntOf(labelled.Json().as_object(), "position"));
  const HttpResponse before_rebuild = http.Get(of_a + "&minPosition=" + labelled_at);
  ASSERT_EQ(before_rebuild.status, 200u) << before_rebuild.body;
  EXPECT_EQ(Member(before_rebuild.Json(), "count"), "3");

  // A restart registers nothing again; `project rebuild` (the example's
  // tools, on the folder) reads the V1 events upcast too.
  ASSERT_EQ(server->Terminate(), 0) << server->output();
  const testutil::CliOutcome rebuilt = testutil::RunCli(
      INDELIBLE_RATINGS_PATH, "project", "rebuild ratings follows --data " + data, "", tmp_);
  EXPECT_EQ(rebuilt.exit_code, 0) << rebuilt.out << rebuilt.err;
  const auto schemas_head = [&data]() -> std::int64_t {
    auto store = Store::Open("file:" + data);
    if (!store.ok()) return -1;
    auto head = (*store)->Head(kSchemasStream);
    return head.ok() ? static_cast<std::int64_t>(head->version.value()) : -2;
  };
  const std::int64_t before = schemas_head();
  EXPECT_GE(before, 0);
  server = std::make_unique<testutil::ServerProcess>(INDELIBLE_RATINGS_PATH,
                                                     Strings{"--store", "file:" + data});
  ASSERT_TRUE(server->Start()) << server->output();
  HttpClient restarted(server->port());
  const HttpResponse after_rebuild = restarted.Get(of_a + "&minPosition=" + labelled_at);
  EXPECT_EQ(after_rebuild.body, before_rebuild.body) << "rebuilt: the same ratings";
  EXPECT_EQ(server->Terminate(), 0) << server->output();
  EXPECT_EQ(schemas_head(), before);
}

}  // namespace
}  // namespace indelible

#include "ratings_read_model.h"

#include <algorithm>

#include "ratings_projections.h"

namespace ratings {

using indelible::Result;
using indelible::SqlInt;
using indelible::SqlRow;
using indelible::SqlText;
using indelible::Status;

namespace {

// Connections for queries: a handful serve many handler threads, as each
// query holds one for a millisecond or so.
constexpr std::size_t kConnections = 8;
constexpr auto kConnectionWait = std::chrono::seconds(5);
RatingView FromRow(const SqlRow& row) {
  return RatingView{SqlText(row[0]), SqlText(row[1]), static_cast<int>(SqlInt(row[2])),
                    static_cast<std::uint64_t>(SqlInt(row[3]))};
}

// The SQL is the program's own, so a query fails only when the read store
// is unreachable (unavailable, 503: retry) or by a bug (internal, 500),
// never by the client's fault as the store's `invalid` would tell.
Status QueryError(const Status& error) {
  if (error.code() == indelible::ErrorCode::kUnavailable) return error;
  return Status::Internal("read model query: " + error.ToString());
}

Result<std::vector<RatingView>> Views(Result<std::vector<SqlRow>> rows) {
  if (!rows.ok()) return QueryError(rows.status());
  std::vector<RatingView> out;
  out.reserve(rows->size());
  for (const SqlRow& row : *rows) out.push_back(FromRow(row));
  return out;
}

}  // namespace

Result<std::unique_ptr<RatingsReadModel>> RatingsReadModel::Open(indelible::Store& store,
                                                                 const std::string& url) {
  std::vector<std::unique_ptr<indelible::ProjectionRunner>> runners;
  for (indelible::Projection& projection : ReadModelProjections()) {
    auto runner = indelible::ProjectionRunner::Open(store, url, std::move(projection));
    if (!runner.ok()) return runner.status();
    (*runner)->Start();
    // Open made the first copy, so the views exist for queries now.
    runners.push_back(std::move(*runner));
  }
  return std::unique_ptr<RatingsReadModel>(new RatingsReadModel(url, std::move(runners)));
}

RatingsReadModel::RatingsReadModel(
    const std::string& url, std::vector<std::unique_ptr<indelible::ProjectionRunner>> runners)
    : runners_(std::move(runners)), pool_(url, kConnections, kConnectionWait) {}

RatingsReadModel::~RatingsReadModel() {
  for (auto& runner : runners_) runner->Stop();
}

bool RatingsReadModel::WaitFor(indelible::Position position, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (auto& runner : runners_) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (!runner->WaitFor(position, std::max(left, std::chrono::milliseconds(0)))) return false;
  }
  return true;
}

// Each ORDER BY ends on a unique key, so equal sort values come in one order.
Result<std::vector<RatingView>> RatingsReadModel::ForLink(const std::string& link) {
  return Views(pool_.Query(
      "SELECT user_id, link, rating, position FROM ratings WHERE link = $1 ORDER BY user_id",
      {link}));
}

Result<std::vector<RatingView>> RatingsReadModel::ForUser(const std::string& user) {
  return Views(pool_.Query(
      "SELECT user_id, link, rating, position FROM ratings WHERE user_id = $1 ORDER BY link",
      {user}));
}

Result<std::vector<RatingView>> RatingsReadModel::Feed(const std::string& user) {
  return Views(
      pool_.Query("SELECT r.user_id, r.link, r.rating, r.position FROM follows f "
                  "JOIN ratings r ON r.user_id = f.followee WHERE f.follower = $1 "
                  "ORDER BY r.position DESC, r.user_id, r.link",
                  {user}));
}

Result<std::vector<std::string>> RatingsReadModel::Following(const std::string& user) {
  auto rows =
      pool_.Query("SELECT followee FROM follows WHERE follower = $1 ORDER BY followee", {user});
  if (!rows.ok()) return QueryError(rows.status());
  std::vector<std::string> out;
  out.reserve(rows->size());
  for (const SqlRow& row : *rows) out.push_back(SqlText(row[0]));
  return out;
}

}  // namespace ratings

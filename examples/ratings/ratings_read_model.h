// The ratings service's read side: the "ratings" and "follows" projections
// (ratings_projections.h) kept in a read store by runners in this process,
// and the queries on them, in SQL that both SQLite and PostgreSQL run:
//   - the ratings of a link (who rated it how);
//   - the ratings of a user;
//   - a user's feed: the current ratings of the users they follow, a join
//     of the two tables made at query time;
//   - whom a user follows.
// The tables stay in the read store across restarts: a new process resumes
// from the projections' checkpoints instead of replaying the log. A query
// fails with unavailable when the read store cannot be reached, and with
// internal otherwise (the SQL is the program's own: a bug).
//
// Concurrency: safe for concurrent use; queries take a connection from a
// small pool, each runner has its own.
#pragma once

#include <indelible/projection.h>
#include <indelible/store.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "read_store_pool.h"

namespace ratings {

struct RatingView {
  std::string user;
  std::string link;
  int rating = 0;
  std::uint64_t position = 0;  // of the event that set this rating
};

class RatingsReadModel {
 public:
  // Starts the runners (each first rebuilds if its stored copy is of an
  // older version) and returns once both have a copy to query. The Store
  // must outlive the model.
  static indelible::Result<std::unique_ptr<RatingsReadModel>> Open(indelible::Store& store,
                                                                   const std::string& url);
  ~RatingsReadModel();  // stops the runners
  RatingsReadModel(const RatingsReadModel&) = delete;
  RatingsReadModel& operator=(const RatingsReadModel&) = delete;

  // Waits up to `timeout` until both projections have applied every event
  // up to `position`, so a client reads its own writes. False on timeout.
  bool WaitFor(indelible::Position position, std::chrono::milliseconds timeout);

  indelible::Result<std::vector<RatingView>> ForLink(const std::string& link);  // by user
  indelible::Result<std::vector<RatingView>> ForUser(const std::string& user);  // by link
  indelible::Result<std::vector<RatingView>> Feed(const std::string& user);     // newest first
  indelible::Result<std::vector<std::string>> Following(const std::string& user);

 private:
  RatingsReadModel(const std::string& url,
                   std::vector<std::unique_ptr<indelible::ProjectionRunner>> runners);

  std::vector<std::unique_ptr<indelible::ProjectionRunner>> runners_;
  examples::ReadStorePool pool_;
};

}  // namespace ratings

// Projections: read models kept in a read store (read_store.h) by a runner
// that follows $all, applying each event exactly once.
//
// Operation:
//
//   Projection todos{
//       .name = "todo-list", .version = 1,
//       .filter = {.categories = {"todo"}},
//       .tables = {"todos"},
//       .setup = [](ProjectionTransaction& tx) {
//         return tx.Execute("CREATE TABLE {todos} (id TEXT PRIMARY KEY, title TEXT)");
//       },
//       .apply = [](ProjectionTransaction& tx, const RecordedEvent& e) {
//         return tx.Execute("INSERT INTO {todos} VALUES ($1, $2) ON CONFLICT (id) DO ...", {...});
//       }};
//   auto runner = ProjectionRunner::Open(store, "sqlite:./data.read.db", todos);
//   (*runner)->Start();                 // a thread of its own, until Stop()
//   ... SELECT * FROM todos ...         // from any connection to the read store
//
// Exactly once. The runner applies a batch of events and moves the
// projection's checkpoint in the same read-store transaction, so after any
// crash the read model and its checkpoint agree: nothing is applied twice
// or lost. Every transaction first locks the projection's row and checks it
// still owns the copy it writes to, so two runners of one projection (two
// processes, or a rebuild switching over) never both apply an event.
//
// Copies and rebuild. The tables a projection names in `tables` (and the
// indexes in `indexes`) are written in SQL as {name}; the runner replaces
// that with the physical table of the current copy, `name__gN` (N, the
// copy's generation), and keeps a view `name` on the live copy for
// queries. A rebuild creates copy N+1, replays $all into it from the
// start while copy N keeps serving (and, if a runner is live, keeps being
// updated), then in one transaction catches up with the last events,
// points the views at copy N+1, moves the checkpoint and drops copy N:
// readers see the old copy or the new one, never a mix. A runner that
// finds a different `version` stored rebuilds before it goes live.
//
// Failure. An apply that returns an error (or throws) rolls its batch back;
// the events before it are applied again without it, and it is retried
// with back-off up to `max_attempts` times. Then the policy applies: kBlock
// (the default) stops this projection at that event, saved in the read
// store, until Retry or Skip (also from `indelible project retry|skip`);
// kPark records the event in the table indelible_parked and goes on. Other
// projections, with runners of their own, are never held up.
//
// Concurrency: a ProjectionRunner is safe for concurrent use; its thread
// uses a read-store connection of its own. The Store must outlive it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "indelible/consumer_group.h"
#include "indelible/event.h"
#include "indelible/read_store.h"
#include "indelible/result.h"
#include "indelible/store.h"
#include "indelible/types.h"

namespace indelible {

// What setup and apply write through: SQL of the read store's dialect, in
// which {name} stands for the current copy of a table or index the
// projection declared. Belongs to the transaction it was given with.
class ProjectionTransaction {
 public:
  virtual ~ProjectionTransaction() = default;
  virtual Status Execute(std::string_view sql, const std::vector<SqlValue>& params = {}) = 0;
  virtual Result<std::vector<SqlRow>> Query(std::string_view sql,
                                            const std::vector<SqlValue>& params = {}) = 0;
  virtual SqlDialect dialect() const = 0;
  // True while a rebuild replays history into a new copy.
  virtual bool rebuilding() const = 0;
};

struct Projection {
  // 1 to 64 bytes of [a-z0-9_-]: the key of its checkpoint.
  std::string name;
  // Change it whenever setup or apply change what they write: the next
  // runner to start rebuilds the read model.
  int version = 1;
  AllFilter filter;
  // Names written {name} in SQL; each table gets a view `name` for readers.
  // Letters, digits and '_', starting with a letter.
  std::vector<std::string> tables;
  std::vector<std::string> indexes;
  // Creates the tables and indexes of a fresh copy (CREATE TABLE {name}).
  std::function<Status(ProjectionTransaction&)> setup;
  // Applies one event. Store events ('$' streams) are never passed.
  std::function<Status(ProjectionTransaction&, const RecordedEvent&)> apply;
};

struct ProjectionOptions {
  FailurePolicy policy = FailurePolicy::kBlock;
  // Applications of one event (the first and the retries) before the policy.
  int max_attempts = 5;
  std::chrono::milliseconds initial_backoff{100};
  std::chrono::milliseconds max_backoff{10000};
  // Events per read-store transaction, at most: larger batches amortise the
  // commit (SQLite's sync, PostgreSQL's round trips).
  std::size_t batch_events = 1000;
};

struct ProjectionStatus {
  std::string name;
  int version = 0;                     // of the live copy
  std::int64_t generation = 0;         // of the live copy
  Position position{0};                // everything at or below is applied
  std::optional<Position> blocked_at;  // set while blocked, with the reason
  std::string blocked_reason;
  std::int64_t parked = 0;                          // events recorded in indelible_parked
  std::optional<std::int64_t> building_generation;  // a rebuild under way
  Position building_position{0};
  // ProjectionRunner::status() only: the error of this runner's last step
  // (read store or event store unreachable), empty when it went well.
  std::string last_error;
};

// What a rebuild reports after each batch.
struct RebuildProgress {
  Position position{0};      // applied up to here
  Position target{0};        // the store's last position when the rebuild began
  std::uint64_t events = 0;  // applied so far
  double events_per_second = 0;
};

class ProjectionRunner {
 public:
  // Connects to the read store (its errors show here), checks the
  // projection (invalid for a bad name or declared table) and creates its
  // first copy if it has none, so its views exist for queries at once.
  static Result<std::unique_ptr<ProjectionRunner>> Open(Store& store,
                                                        std::string_view read_store_url,
                                                        Projection projection,
                                                        ProjectionOptions options = {});
  ~ProjectionRunner();  // Stop()
  ProjectionRunner(const ProjectionRunner&) = delete;
  ProjectionRunner& operator=(const ProjectionRunner&) = delete;

  // Runs in a thread of its own until Stop: rebuilds first if the stored
  // version differs, then follows $all. Errors of the read store are
  // retried with back-off (status() has the last one).
  void Start();
  void Stop();
  // Applies what is committed now, on the calling thread, and returns the
  // number of events applied (for tools and tests; not while started).
  Result<std::uint64_t> CatchUp();
  // Builds a new copy from the start of $all and switches to it (see
  // above), on the calling thread; a started runner keeps the old copy up
  // to date meanwhile. `progress` is called after each batch.
  Status Rebuild(const std::function<void(const RebuildProgress&)>& progress = {});
  // Waits until the live copy has applied every event at or below
  // `position` or the timeout passes; true if it has. Read-your-writes for
  // queries served by this process.
  bool WaitFor(Position position, std::chrono::milliseconds timeout);
  Result<ProjectionStatus> status();
  // Operator decisions on a blocked projection (the runner may be in
  // another process): apply the event again with fresh attempts, or skip it.
  Status Retry();
  Status Skip();

  const Projection& projection() const;

 private:
  class Impl;
  explicit ProjectionRunner(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The status of every projection with a checkpoint in the read store.
Result<std::vector<ProjectionStatus>> ListProjections(ReadStore& read_store);
// Operator decisions without the projection's code (indelible project).
Status RetryProjection(ReadStore& read_store, std::string_view name);
Status SkipProjection(ReadStore& read_store, std::string_view name);

}  // namespace indelible

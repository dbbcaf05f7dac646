// The Store over HTTP (OpenRemoteStore in client.h says what differs from a
// local store, and why).
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "api/limits.h"
#include "client/remote_cursors.h"
#include "indelible/client.h"

namespace indelible {
namespace {

class RemoteStore final : public Store {
 public:
  // Sizes are the server's to judge (its limits may not be the defaults);
  // Store::Commit still checks names, JSON and ids here, which makes a
  // resent request an idempotent retry.
  explicit RemoteStore(std::shared_ptr<Client> client)
      : Store(Limits{SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX}), client_(std::move(client)) {}

  Result<CommitResult> CommitValidated(std::vector<AppendRequest> appends,
                                       const CommitOptions& options) override {
    if (options.start_version && options.start_version->value() > 0)
      return Status::Invalid(
          "startVersion",
          "the HTTP API cannot start a stream past version 0: import a stream whose first "
          "versions were removed into a local store (--data), or lift its retention before "
          "the export");
    if (options.keep_timestamps)
      return Status::Invalid(
          "keep_timestamps",
          "the server stamps every event with its own commit time; the HTTP API cannot keep "
          "original timestamps (use a local store, --data, to keep them)");
    // Store::Delete commits a tombstone; the API has a route for it.
    const bool tombstone = options.allow_reserved && appends.size() == 1 &&
                           appends.front().events.size() == 1 &&
                           appends.front().events.front().type == kDeletedEventType;
    if (tombstone) {
      auto deleted = client_->Delete(appends.front().stream, appends.front().expected);
      if (!deleted.ok()) return deleted.status();
      Remember(deleted->position);
      CommitResult commit;
      commit.position = deleted->position;
      commit.appends.push_back(std::move(*deleted));
      return commit;
    }
    // A condition, or events without a stream ($dcb, a reserved name no
    // stream route takes): POST /commits.
    const bool streamless = std::any_of(appends.begin(), appends.end(), [](const auto& append) {
      return append.stream == kStreamlessStream;
    });
    if (options.condition || streamless) {
      auto result = client_->Commit(std::move(appends), options.condition);
      if (!result.ok()) return result.status();
      Remember(result->position);
      return result;
    }
    // One stream without a state record: POST /streams/{stream}, which
    // servers before /commits have too.
    if (appends.size() == 1 && !appends.front().state) {
      AppendRequest& append = appends.front();
      auto appended = client_->Append(append.stream, append.expected, std::move(append.events));
      if (!appended.ok()) return appended.status();
      Remember(appended->position);
      CommitResult commit;
      commit.position = appended->position;
      commit.appends.push_back(std::move(*appended));
      return commit;
    }
    // Several streams, or state records: one POST /commits, all or nothing
    // on the server.
    auto result = client_->Commit(std::move(appends));
    if (!result.ok()) return result.status();
    Remember(result->position);
    return result;
  }

  Result<std::optional<StateRecord>> ReadState(std::string_view stream) override {
    return client_->ReadState(stream);
  }

  // The API has routes for these; Store's defaults would commit to the
  // `$$` stream, which the server refuses to a client.
  Result<StoredStreamMetadata> ReadStreamMetadata(std::string_view stream) override {
    return client_->ReadStreamMetadata(stream);
  }
  Result<StreamVersion> WriteStreamMetadata(std::string_view stream, const StreamMetadata& metadata,
                                            Expected expected) override {
    return client_->WriteStreamMetadata(stream, metadata, expected);
  }

  // The server erases and scavenges its own store: Store::Erase would
  // commit to the `$$` stream, which the server refuses to a client, and
  // Store::Scavenge answers invalid.
  Result<AppendResult> Erase(std::string_view stream, Expected expected) override {
    auto erased = client_->Erase(stream, expected);
    if (erased.ok()) Remember(erased->position);
    return erased;
  }
  Result<ScavengeReport> Scavenge(const ProgressFn&) override { return client_->Scavenge(); }
  Result<ShredReport> ShredSubject(std::string_view subject) override {
    return client_->ShredSubject(subject);
  }

  Result<std::optional<RecordedEvent>> FindEvent(const EventId& id) override {
    return client_->FindEvent(id);
  }

  Result<StreamList> ListStreams(const ListStreamsOptions& options) override {
    return client_->ListStreams(options);
  }

  Result<StreamHead> Head(std::string_view stream) override { return client_->Head(stream); }

  StoreTraits traits() const override {
    StoreTraits traits;
    traits.local_reads = false;  // every read is a request to the server
    return traits;
  }

  Result<std::unique_ptr<StreamCursor>> ReadStream(std::string_view stream,
                                                   const ReadStreamOptions& options) override {
    return client::OpenRemoteStreamCursor(client_, stream, options);
  }

  Result<std::unique_ptr<AllCursor>> ReadAll(const ReadAllOptions& options) override {
    auto health = client_->Health();
    if (!health.ok()) return health.status();
    Remember(health->last_position);
    return client::OpenRemoteAllCursor(client_, options, health->last_position);
  }

  Result<std::unique_ptr<AllCursor>> ReadQuery(const Query& query,
                                               const ReadQueryOptions& options) override {
    if (Status s = ValidateQuery(query); !s.ok()) return s;
    auto health = client_->Health();
    if (!health.ok()) return health.status();
    Remember(health->last_position);
    return client::OpenRemoteQueryCursor(client_, query, options, health->last_position);
  }

  Position LastPosition() const override {
    if (auto health = client_->Health(); health.ok()) Remember(health->last_position);
    return Position(last_known_.load());
  }

  Position WaitForCommit(Position after, std::chrono::milliseconds timeout) override {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      ReadAllOptions options;
      options.from = after.next();
      options.limit = 1;
      auto page =
          client_->ReadAll(options, std::clamp(left, std::chrono::milliseconds(0), api::kMaxWait));
      if (page.ok() && !page->events.empty()) break;
      if (left.count() <= 0) break;
      // A failing server answers at once; do not turn the wait into a spin.
      if (!page.ok()) std::this_thread::sleep_for(std::min(left, std::chrono::milliseconds(100)));
    }
    return LastPosition();
  }

  Status Check(const ProgressFn&) override {
    return Status::Invalid("url",
                           "check verifies a local data folder; run it with --data on the "
                           "machine that holds the server's folder");
  }

 private:
  void Remember(Position position) const {
    std::uint64_t known = last_known_.load();
    while (known < position.value() &&
           !last_known_.compare_exchange_weak(known, position.value())) {
    }
  }

  const std::shared_ptr<Client> client_;
  mutable std::atomic<std::uint64_t> last_known_{0};
};

}  // namespace

Result<std::unique_ptr<Store>> OpenRemoteStore(std::string_view url, const ClientOptions& options) {
  auto client = Client::Connect(url, options);
  if (!client.ok()) return client.status();
  return std::unique_ptr<Store>(
      std::make_unique<RemoteStore>(std::shared_ptr<Client>(std::move(*client))));
}

}  // namespace indelible

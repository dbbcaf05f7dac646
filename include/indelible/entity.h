// Entity: an aggregate kept as a stream of events plus its current state.
//
// An Entity<State> puts Rules<State> (rules.h) on a Store. Appending through
// it reads the entity's state, applies each new event's rule, and commits in
// one atomic step, with the expected version it read:
//   - the events, to the entity's stream;
//   - the new state record, per the snapshot policy;
//   - the outbound events the rules published, to the outbox stream, each
//     with {"causationId": <inbound event id>} in its metadata.
// A crash leaves all three or none. A rule's rejection writes nothing.
//
// Operation, for an account "BANK_ACCOUNT/1" at version 4 (balance 25):
//
//   Append("BANK_ACCOUNT/1", {Transaction -300})
//     load     state record (v4, balance 25) + events after v4 (none)
//     apply    rule(25, -300) -> -275, publishes accountOverdrawn
//     commit   BANK_ACCOUNT/1 expects exactly(4): event v5 + state record (v5)
//              outbox-BANK_ACCOUNT/1: accountOverdrawn {causationId: <v5's id>}
//     conflict (someone wrote v5 first): reload, reapply, commit again, up to
//              EntityOptions::max_attempts in all
//
// Loading is the latest usable state record (written by this state schema,
// under a policy that keeps one), then only the events after it; or, with
// no usable record, every event of the stream's current life from the
// initial state. Event types without a rule are skipped when loading, so a
// stream may also carry events the entity does not interpret.
//
// Backends: any Store that keeps state records and commits several streams
// atomically: memory, embedded, DynamoDB, and a remote store (client.h),
// whose commits are one POST /commits each.
//
// Concurrency: an Entity is safe to use from many threads at once, provided
// its rules are (pure rules are). The Store and the Rules must outlive it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "indelible/rules.h"
#include "indelible/store.h"

namespace indelible {

// An entity's state as read from the store.
template <class State>
struct Loaded {
  std::string stream;
  State state;
  // The stream's last version (the state covers it); nullopt if the stream
  // does not exist or is deleted (the state is then the initial one).
  std::optional<StreamVersion> version;
  Position position;  // of the last event (0 if none)
  // Stored events the load read (those without a rule included): 0 when
  // the state record was current.
  std::int64_t events_read = 0;
  // The version the state record it started from covers; nullopt if it
  // started from the initial state.
  std::optional<StreamVersion> snapshot_version;
};

// The outcome of a command (Append, AppendTo, Recalculate).
template <class State>
struct Change {
  Loaded<State> entity;                   // the state after the command
  std::vector<PublishedEvent> published;  // outbound events this command wrote
  int attempts = 1;                       // commits tried (more than 1 after conflicts)
  // The events were already written by an earlier attempt of this command
  // (same ids): nothing was written now; `entity` is the stored state.
  bool replayed = false;
};

namespace detail {

struct LoadOutcome {
  std::optional<StreamVersion> version;
  Position position;
  std::int64_t events_read = 0;
  std::optional<StreamVersion> snapshot_version;
  bool deleted = false;         // the stream exists only as a tombstone
  bool stale_snapshot = false;  // a record of another schema was ignored
};

struct ChangeOutcome {
  LoadOutcome entity;
  std::vector<PublishedEvent> published;
  int attempts = 1;
  bool replayed = false;
};

enum class ChangeKind : std::uint8_t { kAppend, kRecalculate };

// Loads the stream into `folder` (reset first). replay_all ignores the
// state record (recalculation).
Result<LoadOutcome> Load(Store& store, std::string_view stream, Folder& folder,
                         const EntityOptions& options, bool replay_all);

// Applies `events` and commits. `in_hand`: the folder already holds the
// state of that load (AppendTo) for the first attempt.
Result<ChangeOutcome> RunCommand(Store& store, const std::string& stream, Folder& folder,
                                 const EntityOptions& options, std::vector<EventData> events,
                                 std::optional<LoadOutcome> in_hand, ChangeKind kind);

}  // namespace detail

// An inbound event for a command: `value` encoded with Codec<T>.
template <class T>
EventData MakeEvent(std::string type, const T& value, std::string metadata = "{}") {
  EventData event;
  event.type = std::move(type);
  event.data = Codec<T>::Encode(value);
  event.metadata = std::move(metadata);
  return event;
}

template <class State>
class Entity {
 public:
  Entity(Store& store, const Rules<State>& rules, EntityOptions options = {})
      : store_(store), rules_(rules), options_(std::move(options)) {}

  // The entity's current state. not_found (deleted() set if so) when the
  // stream does not exist or is deleted.
  Result<Loaded<State>> Get(std::string_view stream) const {
    detail::TypedFolder<State> folder(rules_, rules_.initial());
    auto outcome = detail::Load(store_, stream, folder, options_, false);
    if (!outcome.ok()) return outcome.status();
    if (!outcome->version || outcome->deleted)
      return Status::NotFound("entity stream '" + std::string(stream) + "' does not exist",
                              outcome->deleted);
    return ToLoaded(std::string(stream), folder, *outcome);
  }

  // Loads the entity (the initial state if the stream does not exist yet),
  // applies `events` and commits them with the new state and the outbound
  // events, expecting the version it loaded. Events without an id get a
  // random one, kept across the retries.
  // Errors: rejected (a rule said no), invalid (an event type without a
  // rule, an event the codec cannot read), conflict (still after
  // max_attempts), and the store's errors. Nothing is written on error.
  Result<Change<State>> Append(const std::string& stream, std::vector<EventData> events) const {
    return Run(stream, std::move(events), std::nullopt, detail::ChangeKind::kAppend);
  }

  // Append from a state already in hand (from Get or an earlier command),
  // without reading the store first. A stale state is caught by the
  // expected version; then it reloads and retries like Append.
  Result<Change<State>> AppendTo(const Loaded<State>& from, std::vector<EventData> events) const {
    detail::LoadOutcome in_hand;
    in_hand.version = from.version;
    in_hand.position = from.position;
    in_hand.snapshot_version = from.snapshot_version;
    return Run(from.stream, std::move(events), std::move(in_hand), detail::ChangeKind::kAppend,
               &from.state);
  }

  // Replays every event of the stream from the initial state (ignoring the
  // state record), applies `events` if any, and writes the state record
  // (unless the policy is None) with them, or alone. Verifies a state and
  // repairs one written by buggy rules. not_found if the stream does not
  // exist and no events are given.
  Result<Change<State>> Recalculate(const std::string& stream,
                                    std::vector<EventData> events = {}) const {
    return Run(stream, std::move(events), std::nullopt, detail::ChangeKind::kRecalculate);
  }

  const EntityOptions& options() const { return options_; }

 private:
  Result<Change<State>> Run(const std::string& stream, std::vector<EventData> events,
                            std::optional<detail::LoadOutcome> in_hand, detail::ChangeKind kind,
                            const State* state_in_hand = nullptr) const {
    detail::TypedFolder<State> folder(rules_, state_in_hand ? *state_in_hand : rules_.initial());
    auto outcome = detail::RunCommand(store_, stream, folder, options_, std::move(events),
                                      std::move(in_hand), kind);
    if (!outcome.ok()) return outcome.status();
    Change<State> change;
    change.entity = ToLoaded(stream, folder, outcome->entity);
    change.published = std::move(outcome->published);
    change.attempts = outcome->attempts;
    change.replayed = outcome->replayed;
    return change;
  }

  static Loaded<State> ToLoaded(std::string stream, detail::TypedFolder<State>& folder,
                                const detail::LoadOutcome& outcome) {
    return Loaded<State>{std::move(stream),
                         std::move(folder.state()),
                         outcome.deleted ? std::nullopt : outcome.version,
                         outcome.deleted ? Position(0) : outcome.position,
                         outcome.events_read,
                         outcome.snapshot_version};
  }

  Store& store_;
  const Rules<State>& rules_;
  EntityOptions options_;
};

}  // namespace indelible

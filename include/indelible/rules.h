// Rules: how an entity's state follows from its events (see entity.h).
//
// A rule is `(state, event, ctx) -> state` for one event type. It receives
// the event decoded into its C++ type, returns the next state, and may
//   - reject the command: return Status::Rejected("insufficient funds").
//     Nothing of the command is written and the caller gets that status.
//   - publish outbound events: ctx.Publish("accountOverdrawn", value). They
//     are committed with the events that caused them (the outbox).
//
// Rules must be pure and quick: no I/O, no clocks, no randomness. They run
// again on every load, on every retry after a conflict and on recalculation,
// and they must reach the same state each time.
//
// Concurrency: a Rules object is immutable once handed to an Entity and may
// be used from many threads at once; so each rule must be safe to call
// concurrently (a pure function is).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "indelible/event.h"
#include "indelible/result.h"
#include "indelible/status.h"

namespace indelible {

// Codec<T>: how a value of T travels as JSON text. Specialize it, with any
// JSON library, for the state type and for every inbound and outbound event
// type:
//
//   template <> struct indelible::Codec<Transaction> {
//     static std::string Encode(const Transaction& value);
//     static Result<Transaction> Decode(std::string_view json);
//   };
//
// Decode answers invalid (naming the field) for text it cannot read.
template <class T>
struct Codec;

// An outbound event a rule published, as it is written to the outbox.
struct PublishedEvent {
  EventId id;            // derived from the cause: a retried command writes the same ids
  std::string type;      // "accountOverdrawn"
  std::string data;      // JSON, from Codec<T>::Encode
  EventId causation_id;  // the inbound event whose rule published it
};

// What a rule sees besides the state and the decoded event. Belongs to the
// one call of the rule it is passed to.
class RuleContext {
 public:
  // The inbound event being applied: its id, stream, version, type, schema
  // and metadata. For a new event of the command, position and timestamp
  // are 0 (the store sets them at commit).
  const EventView& event() const { return *event_; }

  // True while stored events are replayed (loading, recalculating): the
  // state is being rebuilt, and what a rule publishes is dropped, since it
  // was published when the event was first appended.
  bool replaying() const { return replaying_; }

  // Queues an outbound event; written only if the whole command succeeds.
  template <class T>
  void Publish(std::string type, const T& value) {
    PublishJson(std::move(type), Codec<T>::Encode(value));
  }
  // The same with the JSON text already made.
  void PublishJson(std::string type, std::string json);

  // Internal: made by the entity machinery for each rule call.
  RuleContext(const EventView& event, bool replaying, std::vector<PublishedEvent>* published)
      : event_(&event), replaying_(replaying), published_(published) {}

 private:
  const EventView* event_;
  bool replaying_;
  std::vector<PublishedEvent>* published_;
};

// The state type, its initial value, and one rule per event type.
//
//   Rules<Account> rules(Account{.minimum_balance = -1000});
//   rules.On<Transaction>("TRANSACTION_ACCEPTED",
//       [](Account a, const Transaction& t, RuleContext& ctx) -> Result<Account> {
//         if (a.balance + t.amount < a.minimum_balance)
//           return Status::Rejected("insufficient funds");
//         a.balance += t.amount;
//         return a;
//       });
template <class State>
class Rules {
 public:
  using Rule = std::function<Result<State>(State, const EventView&, RuleContext&)>;

  explicit Rules(State initial) : initial_(std::move(initial)) {}

  // Registers the rule for `type`; the event's data is decoded with
  // Codec<Event>. A later On for the same type replaces the earlier one.
  template <class Event, class F>
  Rules& On(std::string type, F rule) {
    rules_[std::move(type)] = [rule = std::move(rule)](State state, const EventView& event,
                                                       RuleContext& ctx) -> Result<State> {
      Result<Event> decoded = Codec<Event>::Decode(event.data);
      if (!decoded.ok()) return decoded.status();
      return rule(std::move(state), *decoded, ctx);
    };
    return *this;
  }

  const State& initial() const { return initial_; }
  // nullptr if no rule handles `type`.
  const Rule* Find(std::string_view type) const {
    auto it = rules_.find(type);
    return it == rules_.end() ? nullptr : &it->second;
  }

 private:
  State initial_;
  std::map<std::string, Rule, std::less<>> rules_;
};

// When an entity writes its state record (its snapshot).
class SnapshotPolicy {
 public:
  enum class Kind : std::uint8_t { kEveryWrite, kEveryN, kNone };

  // On every append: a load reads the state record and nothing else (the
  // default; the reference design's "state record").
  static SnapshotPolicy EveryWrite() { return SnapshotPolicy(Kind::kEveryWrite, 1); }
  // When an append brings the events since the last snapshot to n or more:
  // a load reads the snapshot and then at most n - 1 events.
  // REQUIRES: n >= 1
  static SnapshotPolicy Every(std::int64_t n) { return SnapshotPolicy(Kind::kEveryN, n); }
  // Never: a load replays the whole stream. For short-lived entities.
  static SnapshotPolicy None() { return SnapshotPolicy(Kind::kNone, 0); }

  Kind kind() const { return kind_; }
  std::int64_t n() const { return n_; }

 private:
  SnapshotPolicy(Kind kind, std::int64_t n) : kind_(kind), n_(n) {}
  Kind kind_;
  std::int64_t n_;
};

struct EntityOptions {
  // The version of the state's encoding (Codec<State>), stored with each
  // state record. A record written under another schema is never decoded:
  // the state is rebuilt from the events and the record is replaced at the
  // next write. Bump it whenever Codec<State> or the rules change meaning.
  std::uint32_t state_schema = 1;
  SnapshotPolicy snapshots = SnapshotPolicy::EveryWrite();
  // Append and AppendTo: attempts in all when another writer moves the
  // stream between our read and our commit (each reloads and reapplies);
  // after the last one the conflict is returned.
  int max_attempts = 5;
  // Outbound events of stream S are written to stream outbox_prefix + S
  // ("outbox-BANK_ACCOUNT/1", category "outbox"), in the same commit as
  // their cause. A consumer group or the NATS relay selects them with the
  // prefix filter.
  std::string outbox_prefix = "outbox-";
};

namespace detail {

// A typed state behind an untyped interface, so that loading, committing
// and retrying live once in src/entities rather than in every template
// instance.
class Folder {
 public:
  virtual ~Folder() = default;
  virtual void Reset() = 0;                          // back to the initial state
  virtual Status Decode(std::string_view json) = 0;  // a state record becomes the state
  virtual std::string Encode() const = 0;
  virtual bool HasRule(std::string_view type) const = 0;
  // Applies the event's rule to the state; ok without a change if none.
  virtual Status Apply(const EventView& event, RuleContext& ctx) = 0;
};

template <class State>
class TypedFolder final : public Folder {
 public:
  TypedFolder(const Rules<State>& rules, State state) : rules_(rules), state_(std::move(state)) {}

  void Reset() override { state_ = rules_.initial(); }
  Status Decode(std::string_view json) override {
    Result<State> decoded = Codec<State>::Decode(json);
    if (!decoded.ok()) return decoded.status();
    state_ = std::move(*decoded);
    return Status::Ok();
  }
  std::string Encode() const override { return Codec<State>::Encode(state_); }
  bool HasRule(std::string_view type) const override { return rules_.Find(type) != nullptr; }
  Status Apply(const EventView& event, RuleContext& ctx) override {
    const auto* rule = rules_.Find(event.type);
    if (rule == nullptr) return Status::Ok();
    // Moved, not copied: on failure the command is abandoned and the state reloaded.
    Result<State> next = (*rule)(std::move(state_), event, ctx);
    if (!next.ok()) return next.status();
    state_ = std::move(*next);
    return Status::Ok();
  }

  State& state() { return state_; }

 private:
  const Rules<State>& rules_;
  State state_;
};

}  // namespace detail
}  // namespace indelible

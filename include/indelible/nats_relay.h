// NatsRelay: publishes the events of a consumer group to NATS JetStream, in
// position order, exactly once in the JetStream stream.
//
// Operation:
//
//   ConsumerGroup::Create(store, "relay-nats", {.filter = {.categories = {"order"}}});
//   auto group = ConsumerGroup::Open(store, "relay-nats");
//   auto source = GroupRelaySource(**group, "relay");
//   auto relay = NatsRelay::Connect({.nats_url = "nats://127.0.0.1:4222"});
//   std::atomic<bool> stop{false};
//   Status s = (*relay)->Run(*source, stop);
//
// Each event becomes one JetStream message on the subject
// `<prefix>.<category>.<type>` (a type's dots stay token separators; in the
// category, and in any token, characters NATS does not allow in a token
// become '_'), with the event's data as payload, `Nats-Msg-Id` = the event
// id, and headers `Indelible-Stream`, `-Version`, `-Position`, `-Type`,
// `-Timestamp`, `-Schema` (if any), `-Metadata` (unless `{}`) and
// `Content-Type`.
//
// Exactly once, in order. The relay owns its JetStream stream: on start and
// after any failure it reads the stream's last message and its
// `Indelible-Position` P; events at or below P are acknowledged to the group
// without publishing (they are there). The rest are published
// asynchronously, each expecting the stream's last sequence to be the one
// before it, so a message lost in a NATS restart makes every later one of
// its batch fail instead of landing out of order; the relay then reads the
// last position again and goes on from there. `Nats-Msg-Id` lets JetStream
// drop a duplicate as well. Events are acknowledged to the group only once
// JetStream has acknowledged them: a relay killed at any moment resumes from
// the group's checkpoint and skips what JetStream already holds.
//
// Failure: NATS being down or slow is retried forever, with back-off; Run
// returns only when `stop` is set (Ok), when the stream holds messages the
// relay did not write, or on a store error.
//
// Concurrency: one thread runs a relay; run one relay per JetStream stream.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "indelible/consumer_group.h"
#include "indelible/result.h"
#include "indelible/types.h"

namespace indelible {

// Where the relay takes events from and reports them done.
class RelaySource {
 public:
  virtual ~RelaySource() = default;
  virtual Result<std::vector<Delivery>> Pull(std::size_t max, std::chrono::milliseconds wait) = 0;
  virtual Status Ack(const std::vector<Position>& positions) = 0;
  // Whether every event so far is acknowledged (the checkpoint is at the
  // store's last position): an empty pull alone does not say so while a
  // killed relay's leases still hold events.
  virtual Result<bool> CaughtUp() = 0;
};

// A source over a group opened in this process; `group` must outlive it.
// `consumer` must be a name no earlier relay used on this group object:
// in-order pulls go past events in flight to the same consumer, so a name
// reused while a dead relay's events are still leased would skip them.
std::unique_ptr<RelaySource> GroupRelaySource(ConsumerGroup& group, std::string consumer);

struct NatsRelayOptions {
  std::string nats_url = "nats://127.0.0.1:4222";
  // The JetStream stream; created (subjects `<subject_prefix>.>`) when
  // missing, checked to take those subjects when present.
  std::string stream = "INDELIBLE";
  std::string subject_prefix = "indelible";
  // When the relay creates the stream: file storage (default) or memory.
  bool memory_storage = false;
  // Events pulled and published per round trip.
  std::size_t batch = 4096;
  // How long to wait for JetStream's acknowledgements of a batch.
  std::chrono::milliseconds ack_timeout{5000};
  // Return from Run once the source is caught up (tests, one-shot catch-up).
  bool stop_when_idle = false;
};

struct NatsRelayStats {
  std::uint64_t published = 0;  // messages JetStream acknowledged
  std::uint64_t skipped = 0;    // events JetStream already held
  std::uint64_t resyncs = 0;    // failures after which the relay read the stream again
  Position position;            // the last event known to be in JetStream
  std::string last_error;       // the last transient failure, empty if none
};

class NatsRelay {
 public:
  // Connects (reconnecting forever once connected), creates or checks the
  // stream. unavailable if NATS cannot be reached; invalid if the stream
  // exists with other subjects.
  static Result<std::unique_ptr<NatsRelay>> Connect(const NatsRelayOptions& options);
  ~NatsRelay();
  NatsRelay(const NatsRelay&) = delete;
  NatsRelay& operator=(const NatsRelay&) = delete;

  // Relays until `stop` (see the top of this file). `progress` is called
  // after each batch and each failure.
  Status Run(RelaySource& source, const std::atomic<bool>& stop,
             const std::function<void(const NatsRelayStats&)>& progress = nullptr);

  NatsRelayStats stats() const;

 private:
  class Impl;
  explicit NatsRelay(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace indelible

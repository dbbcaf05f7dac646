// NatsRelay in a build without NATS (INDELIBLE_WITH_NATS=OFF, README "Build
// options"): built instead of nats_relay.cc, so that the relay's callers
// (the CLI's `relay` verb, its benchmark) compile unchanged and say what is
// missing when they are used.
#include <indelible/config.h>
#include <indelible/nats_relay.h>

namespace indelible {

class NatsRelay::Impl {};

Result<std::unique_ptr<NatsRelay>> NatsRelay::Connect(const NatsRelayOptions&) {
  return Status::Invalid("nats", INDELIBLE_NO_NATS);
}

NatsRelay::NatsRelay(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
NatsRelay::~NatsRelay() = default;

Status NatsRelay::Run(RelaySource&, const std::atomic<bool>&,
                      const std::function<void(const NatsRelayStats&)>&) {
  return Status::Invalid("nats", INDELIBLE_NO_NATS);
}

NatsRelayStats NatsRelay::stats() const { return {}; }

}  // namespace indelible

// GroupRelaySource (include/indelible/nats_relay.h): a relay's events from a
// consumer group of this process, pulled in position order. Apart from
// nats_relay.cc because it needs no NATS: it is built in every build.
#include <indelible/nats_relay.h>

namespace indelible {
namespace {

class GroupSource final : public RelaySource {
 public:
  GroupSource(ConsumerGroup& group, std::string consumer)
      : group_(group), consumer_(std::move(consumer)) {}
  Result<std::vector<Delivery>> Pull(std::size_t max, std::chrono::milliseconds wait) override {
    return group_.PullInOrder(consumer_, max, wait);
  }
  Status Ack(const std::vector<Position>& positions) override { return group_.Ack(positions); }
  Result<bool> CaughtUp() override {
    const ConsumerGroupInfo info = group_.info(false);
    return info.checkpoint >= info.last_position;
  }

 private:
  ConsumerGroup& group_;
  const std::string consumer_;
};

}  // namespace

std::unique_ptr<RelaySource> GroupRelaySource(ConsumerGroup& group, std::string consumer) {
  return std::make_unique<GroupSource>(group, std::move(consumer));
}

}  // namespace indelible

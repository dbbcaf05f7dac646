// A consumer group with policy park and back-off in milliseconds, for the
// parking tests (parking_test.cc, parked_decisions_test.cc).
#pragma once

#include <gtest/gtest.h>
#include <indelible/consumer_group.h>

#include <chrono>
#include <memory>
#include <string>

namespace indelible::conformance {

inline ConsumerGroupOptions ParkOptions(int max_attempts) {
  ConsumerGroupOptions options;
  options.policy = FailurePolicy::kPark;
  options.max_attempts = max_attempts;
  options.initial_backoff = std::chrono::milliseconds(1);
  options.max_backoff = std::chrono::milliseconds(2);
  return options;
}

// Creates and opens it; null (and a test failure) if either fails.
inline std::unique_ptr<ConsumerGroup> OpenParkGroup(Store& store, const std::string& name,
                                                    int max_attempts) {
  EXPECT_TRUE(ConsumerGroup::Create(store, name, ParkOptions(max_attempts)).ok());
  auto group = ConsumerGroup::Open(store, name);
  EXPECT_TRUE(group.ok()) << group.status().ToString();
  return group.ok() ? std::move(*group) : nullptr;
}

}  // namespace indelible::conformance

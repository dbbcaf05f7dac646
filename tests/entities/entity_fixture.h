// The entity suite's fixture: every test runs on the memory backend and on
// the embedded one (a fresh folder per test), through the public API only,
// with the profile domain of profile.h.
#pragma once

#include <gtest/gtest.h>
#include <indelible/entity.h>
#include <indelible/store.h>

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "entities/profile.h"
#include "testutil/dynamodb_server.h"
#include "testutil/temp_dir.h"

namespace indelible::entity_test {

struct Backend {
  std::string name;
  bool durable;  // embedded: data in a folder
};

// Names the backend in test listings instead of dumping the struct's bytes.
inline void PrintTo(const Backend& backend, std::ostream* out) { *out << backend.name; }

class EntityTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam().name == "dynamodb") {
      dynamodb_url_ = testutil::DynamoDbTestUrl("e", "&index_poll_ms=10");
      ASSERT_FALSE(dynamodb_url_.empty());
    }
    auto opened = Store::Open(Url());
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(*opened);
  }

  std::string Url() const {
    if (!dynamodb_url_.empty()) return dynamodb_url_;
    return GetParam().durable ? "file:" + dir_.Sub("data") : std::string("memory:");
  }
  Store& store() { return *store_; }
  bool positions_at_commit() const { return store_->traits().positions_at_commit; }
  // Where $all is built after the commit (DynamoDB), waits until every event
  // this test's store wrote is in it; a no-op elsewhere.
  void Settle() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (store_->LastPosition().value() < store_->stats().events &&
           std::chrono::steady_clock::now() < deadline)
      store_->WaitForCommit(store_->LastPosition(), std::chrono::milliseconds(100));
    ASSERT_GE(store_->LastPosition().value(), store_->stats().events) << "$all did not catch up";
  }
  const Rules<Profile>& rules() const { return rules_; }
  Entity<Profile> Profiles(EntityOptions options = {}) {
    return Entity<Profile>(store(), rules_, std::move(options));
  }

  static EventData Rename(std::string name) {
    return MakeEvent(kRenamed, Renamed{std::move(name)});
  }
  static EventData Follow(std::string user) {
    return MakeEvent(kFollowed, Followed{std::move(user)});
  }
  static EventData Points(std::int64_t amount) {
    return MakeEvent(kPointsAdded, PointsAdded{amount});
  }
  // An event with a client-made id, as a client that retries sends it.
  static EventData WithId(EventData event) {
    event.id = EventId::Random();
    return event;
  }

  // The stream's events; empty if it does not exist.
  std::vector<RecordedEvent> Read(const std::string& stream) {
    auto events = ReadStreamEvents(store(), stream);
    if (!events.ok()) {
      EXPECT_EQ(events.status().code(), ErrorCode::kNotFound) << events.status().ToString();
      return {};
    }
    return *events;
  }
  std::vector<RecordedEvent> Outbox(const std::string& stream) { return Read("outbox-" + stream); }
  // The stream's last version; -1 if it does not exist.
  std::int64_t HeadVersion(const std::string& stream) {
    auto head = store().Head(stream);
    return head.ok() ? head->version.value() : -1;
  }
  std::optional<StateRecord> StateOf(const std::string& stream) {
    auto record = store().ReadState(stream);
    EXPECT_TRUE(record.ok()) << record.status().ToString();
    return record.ok() ? *record : std::nullopt;
  }

 private:
  std::string dynamodb_url_;
  testutil::TempDir dir_;
  Rules<Profile> rules_ = ProfileRules();
  std::unique_ptr<Store> store_;
};

// Unwraps an ok Result or fails the test where it was called.
#define ASSERT_OK_AND_ASSIGN(lhs, expr)                               \
  auto lhs##_result = (expr);                                         \
  ASSERT_TRUE(lhs##_result.ok()) << lhs##_result.status().ToString(); \
  auto lhs = std::move(*lhs##_result)

}  // namespace indelible::entity_test

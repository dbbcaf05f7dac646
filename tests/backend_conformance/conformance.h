// One conformance suite for every backend: each test runs against memory,
// embedded and DynamoDB (on DynamoDB Local, started by scripts/dynamodb.sh),
// through the public API only.
#pragma once

#include <gtest/gtest.h>
#include <indelible/store.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "testutil/dynamodb_server.h"
#include "testutil/temp_dir.h"

namespace indelible::conformance {

struct Backend {
  std::string name;
  bool durable;  // an embedded folder: can be closed and reopened with its data
};

// Names the backend in test listings instead of dumping the struct's bytes.
inline void PrintTo(const Backend& backend, std::ostream* out) { *out << backend.name; }

class ConformanceTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam().name == "dynamodb") {
      dynamodb_url_ = testutil::DynamoDbTestUrl("c", "&index_poll_ms=10");
      ASSERT_FALSE(dynamodb_url_.empty());
    }
    Open();
  }

  // (Re)opens the store with `options`; durable backends keep the data.
  void Open(const StoreOptions& options = {}) {
    if (store_) written_before_ += store_->stats().events;
    store_.reset();
    auto opened = Store::Open(Url(), options);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(*opened);
  }
  std::string Url() const {
    if (!dynamodb_url_.empty()) return dynamodb_url_;
    return GetParam().durable ? "file:" + dir_.Sub("data") : std::string("memory:");
  }
  Store& store() { return *store_; }
  bool positions_at_commit() const { return store_->traits().positions_at_commit; }

  // Where $all is built after the commit (DynamoDB), waits until every
  // event this test wrote through store() has a position; a no-op elsewhere.
  void Settle() {
    if (positions_at_commit()) return;
    const std::uint64_t written = written_before_ + store_->stats().events;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (store_->LastPosition().value() < written && std::chrono::steady_clock::now() < deadline)
      store_->WaitForCommit(store_->LastPosition(), std::chrono::milliseconds(100));
    ASSERT_GE(store_->LastPosition().value(), written) << "the $all indexer did not catch up";
  }

  static EventData Event(std::string type = "Tested", std::string data = "{}") {
    EventData e;
    e.id = EventId::Random();
    e.type = std::move(type);
    e.data = std::move(data);
    return e;
  }
  static std::vector<EventData> Events(int n, const std::string& type = "Tested") {
    std::vector<EventData> events;
    for (int i = 0; i < n; ++i) events.push_back(Event(type, "{\"i\":" + std::to_string(i) + "}"));
    return events;
  }
  // Appends n events with `any`; fails the test on error. Where $all is
  // built after the commit, it also waits until they are indexed, so that
  // tests read what they wrote (appends made otherwise call Settle()).
  AppendResult Put(const std::string& stream, int n = 1) {
    auto r = store().Append(stream, Expected::any(), Events(n));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    Settle();
    return r.ok() ? *r : AppendResult{};
  }
  // Put's event's position: from the result, or where $all is built after
  // the commit, from $all once it is indexed (only this test writes).
  Position PutAt(const std::string& stream) {
    const Position at = Put(stream).position;
    if (positions_at_commit()) return at;
    Settle();
    return store().LastPosition();
  }
  std::vector<RecordedEvent> Read(const std::string& stream, ReadStreamOptions options = {}) {
    auto events = ReadStreamEvents(store(), stream, options);
    EXPECT_TRUE(events.ok()) << events.status().ToString();
    return events.ok() ? *events : std::vector<RecordedEvent>{};
  }
  std::vector<RecordedEvent> All(ReadAllOptions options = {}) {
    Settle();
    auto events = ReadAllEvents(store(), options);
    EXPECT_TRUE(events.ok()) << events.status().ToString();
    return events.ok() ? *events : std::vector<RecordedEvent>{};
  }

 private:
  testutil::TempDir dir_;
  std::string dynamodb_url_;
  std::uint64_t written_before_ = 0;  // by the stores this test closed
  std::unique_ptr<Store> store_;
};

// The versions of `events` (of `stream` only, if given), in their order.
inline std::vector<std::int64_t> VersionsOf(const std::vector<RecordedEvent>& events,
                                            const std::string& stream = {}) {
  std::vector<std::int64_t> versions;
  for (const auto& e : events)
    if (stream.empty() || e.stream == stream) versions.push_back(e.version.value());
  return versions;
}

// Retention that keeps a stream's newest n events (stream_metadata.h).
inline StreamMetadata KeepLast(std::uint64_t n) {
  StreamMetadata m;
  m.max_count = n;
  return m;
}

// The tests about what survives a close and reopen, for the backends that
// keep data (backends.cc instantiates it with those only): a memory store
// has nothing to reopen.
class DurableTest : public ConformanceTest {};

}  // namespace indelible::conformance

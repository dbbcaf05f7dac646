// One conformance suite for every backend: each test runs against memory
// and embedded (and, with issue 7, DynamoDB), through the public API only.
#pragma once

#include <gtest/gtest.h>
#include <indelible/store.h>

#include <memory>
#include <ostream>
#include <string>

#include "testutil/temp_dir.h"

namespace indelible::conformance {

struct Backend {
  std::string name;
  bool durable;  // can be closed and reopened with its data
};

// Names the backend in test listings instead of dumping the struct's bytes.
inline void PrintTo(const Backend& backend, std::ostream* out) { *out << backend.name; }

class ConformanceTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override { Open(); }

  // (Re)opens the store with `options`; for durable backends the data stays.
  void Open(const StoreOptions& options = {}) {
    store_.reset();
    auto opened = Store::Open(Url(), options);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(*opened);
  }
  std::string Url() const {
    return GetParam().durable ? "file:" + dir_.Sub("data") : std::string("memory:");
  }
  Store& store() { return *store_; }

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
  // Appends n events with `any`; fails the test on error.
  AppendResult Put(const std::string& stream, int n = 1) {
    auto r = store().Append(stream, Expected::any(), Events(n));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : AppendResult{};
  }
  std::vector<RecordedEvent> Read(const std::string& stream, ReadStreamOptions options = {}) {
    auto events = ReadStreamEvents(store(), stream, options);
    EXPECT_TRUE(events.ok()) << events.status().ToString();
    return events.ok() ? *events : std::vector<RecordedEvent>{};
  }
  std::vector<RecordedEvent> All(ReadAllOptions options = {}) {
    auto events = ReadAllEvents(store(), options);
    EXPECT_TRUE(events.ok()) << events.status().ToString();
    return events.ok() ? *events : std::vector<RecordedEvent>{};
  }

 private:
  testutil::TempDir dir_;
  std::unique_ptr<Store> store_;
};

// The tests about what survives a close and reopen, for the backends that
// keep data (backends.cc instantiates it with those only): a memory store
// has nothing to reopen.
class DurableTest : public ConformanceTest {};

}  // namespace indelible::conformance

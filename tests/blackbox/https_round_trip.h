// What the https tests check on any TLS path (the server's own TLS,
// server_tls_test.cc; a TLS-terminating proxy, client_https_test.cc): an
// append, a conflict, a read, and a Server-Sent Events subscription that
// gets the stored event, then a live one.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>

#include "indelible/client.h"

namespace indelible::testutil {

inline EventData Event(std::string type) {
  EventData event;
  event.type = std::move(type);
  event.data = "{}";
  return event;
}

// Fails the calling test (gtest assertions) on the first difference.
inline void AppendReadAndSubscribe(Client& client) {
  using std::chrono::milliseconds;
  auto appended = client.Append("order-1", Expected::no_stream(), {Event("Placed")});
  ASSERT_TRUE(appended.ok()) << appended.status().ToString();
  auto conflict = client.Append("order-1", Expected::no_stream(), {Event("Placed")});
  ASSERT_FALSE(conflict.ok());
  EXPECT_EQ(conflict.status().code(), ErrorCode::kConflict);

  auto page = client.ReadStream("order-1");
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->events.size(), 1u);
  EXPECT_EQ(page->events[0].type, "Placed");

  auto subscription = client.SubscribeAll();
  ASSERT_TRUE(subscription.ok()) << subscription.status().ToString();
  auto first = (*subscription)->Next(milliseconds(5000));
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_TRUE(first->has_value());
  EXPECT_EQ((*first)->stream, "order-1");
  ASSERT_TRUE(client.Append("order-2", Expected::any(), {Event("Live")}).ok());
  std::optional<RecordedEvent> live;
  for (int i = 0; i < 50 && !live; ++i) {
    auto next = (*subscription)->Next(milliseconds(100));
    ASSERT_TRUE(next.ok()) << next.status().ToString();
    live = std::move(*next);
  }
  ASSERT_TRUE(live.has_value()) << "the live event did not arrive over TLS";
  EXPECT_EQ(live->type, "Live");
}

}  // namespace indelible::testutil

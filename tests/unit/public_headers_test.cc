// Every public header in one translation unit: a program may include them
// all, so no two may declare the same name (the client once declared a
// Subscription of its own beside subscription.h's).
#include <gtest/gtest.h>
#include <indelible/client.h>
#include <indelible/consumer_group.h>
#include <indelible/event.h>
#include <indelible/nats_relay.h>
#include <indelible/options.h>
#include <indelible/result.h>
#include <indelible/server.h>
#include <indelible/status.h>
#include <indelible/store.h>
#include <indelible/subscription.h>
#include <indelible/types.h>

#include <type_traits>

namespace indelible {
namespace {

TEST(PublicHeadersTest, TheLibraryAndTheClientSubscriptionsAreDistinctTypes) {
  EXPECT_FALSE((std::is_same_v<Subscription, RemoteSubscription>));
  EXPECT_TRUE(std::is_abstract_v<RemoteSubscription>);
  EXPECT_FALSE(std::is_abstract_v<Subscription>);
}

}  // namespace
}  // namespace indelible

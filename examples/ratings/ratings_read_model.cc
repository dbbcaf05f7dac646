#include "ratings_read_model.h"

#include <indelible/subscription.h>

#include <algorithm>
#include <cstdio>

#include "user.h"

namespace ratings {

using indelible::Codec;
using indelible::Position;

RatingsReadModel::RatingsReadModel(indelible::Store& store) : store_(store) {
  thread_ = std::thread([this] { Run(); });
}

RatingsReadModel::~RatingsReadModel() {
  stopping_ = true;
  thread_.join();
}

void RatingsReadModel::Run() {
  indelible::SubscriptionOptions options;
  options.filter.categories = {"user"};
  indelible::Subscription subscription(store_, options);
  while (!stopping_) {
    // A short wait, so that shutting down never waits long for the thread.
    auto batch = subscription.Next(std::chrono::milliseconds(200));
    if (!batch.ok()) {
      // The position is unchanged: the next call retries the same read.
      std::fprintf(stderr, "indelible-ratings: read model: %s\n",
                   batch.status().ToString().c_str());
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      continue;
    }
    {
      std::lock_guard lock(mu_);
      for (const indelible::RecordedEvent& event : batch->events) Apply(event);
      // Past the events of other categories too, which the filter skipped.
      applied_ = subscription.position().value();
    }
    applied_cv_.notify_all();
  }
}

// Events that do not decode (written through the standard API, not the
// entity) are skipped: the views show what the rules would accept.
void RatingsReadModel::Apply(const indelible::RecordedEvent& event) {
  if (!event.stream.starts_with(kUserStreamPrefix)) return;  // "user" or "user/x"
  const std::string user = event.stream.substr(kUserStreamPrefix.size());
  if (event.type == kLinkRated || event.type == kRatingUpdated) {
    auto rated = Codec<Rating>::Decode(event.data);
    if (rated.ok()) Rate(user, rated->link, Stars{rated->rating, event.position.value()});
  } else if (event.type == kRatingDeleted) {
    auto deleted = Codec<RatingDeleted>::Decode(event.data);
    if (deleted.ok()) Unrate(user, deleted->link);
  } else if (event.type == kUserFollowed) {
    auto followed = Codec<Follow>::Decode(event.data);
    if (followed.ok()) following_[user].insert(followed->user);
  } else if (event.type == kUserUnfollowed) {
    auto unfollowed = Codec<Follow>::Decode(event.data);
    if (unfollowed.ok()) {
      auto it = following_.find(user);
      if (it != following_.end() && it->second.erase(unfollowed->user) && it->second.empty())
        following_.erase(it);
    }
  } else if (event.type == indelible::kDeletedEventType) {
    // The stream was deleted: the entity starts over from the initial
    // state, and so does the user here. Follows of this user by others
    // stay: they live in the followers' streams.
    auto it = by_user_.find(user);
    if (it != by_user_.end()) {
      for (const auto& [link, _] : it->second) {
        auto of_link = by_link_.find(link);
        of_link->second.erase(user);
        if (of_link->second.empty()) by_link_.erase(of_link);
      }
      by_user_.erase(it);
    }
    following_.erase(user);
  }
}

void RatingsReadModel::Rate(const std::string& user, const std::string& link, Stars stars) {
  by_user_[user][link] = stars;
  by_link_[link][user] = stars;
}

void RatingsReadModel::Unrate(const std::string& user, const std::string& link) {
  auto of_user = by_user_.find(user);
  if (of_user == by_user_.end() || of_user->second.erase(link) == 0) return;
  if (of_user->second.empty()) by_user_.erase(of_user);
  auto of_link = by_link_.find(link);
  of_link->second.erase(user);
  if (of_link->second.empty()) by_link_.erase(of_link);
}

bool RatingsReadModel::WaitFor(Position position, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return applied_cv_.wait_for(lock, timeout, [&] { return applied_ >= position.value(); });
}

std::vector<RatingView> RatingsReadModel::ForLink(const std::string& link) const {
  std::lock_guard lock(mu_);
  std::vector<RatingView> out;
  if (auto it = by_link_.find(link); it != by_link_.end())
    for (const auto& [user, stars] : it->second)
      out.push_back({user, link, stars.rating, stars.position});
  return out;
}

std::vector<RatingView> RatingsReadModel::ForUser(const std::string& user) const {
  std::lock_guard lock(mu_);
  std::vector<RatingView> out;
  if (auto it = by_user_.find(user); it != by_user_.end())
    for (const auto& [link, stars] : it->second)
      out.push_back({user, link, stars.rating, stars.position});
  return out;
}

std::vector<RatingView> RatingsReadModel::Feed(const std::string& user) const {
  std::lock_guard lock(mu_);
  std::vector<RatingView> out;
  auto followed = following_.find(user);
  if (followed == following_.end()) return out;
  for (const std::string& other : followed->second) {
    auto rated = by_user_.find(other);
    if (rated == by_user_.end()) continue;
    for (const auto& [link, stars] : rated->second)
      out.push_back({other, link, stars.rating, stars.position});
  }
  std::sort(out.begin(), out.end(),
            [](const RatingView& a, const RatingView& b) { return a.position > b.position; });
  return out;
}

std::vector<std::string> RatingsReadModel::Following(const std::string& user) const {
  std::lock_guard lock(mu_);
  auto it = following_.find(user);
  if (it == following_.end()) return {};
  return {it->second.begin(), it->second.end()};
}

}  // namespace ratings

#include "aws/refreshing_credentials.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>

namespace indelible::aws {

using std::chrono::system_clock;
using namespace std::chrono_literals;

system_clock::time_point RefreshTime(system_clock::time_point fetched,
                                     system_clock::time_point expiration) {
  const auto lifetime = std::max(system_clock::duration::zero(), expiration - fetched);
  return expiration - std::min<system_clock::duration>(5min, lifetime / 2);
}

system_clock::time_point UsableUntil(system_clock::time_point fetched,
                                     system_clock::time_point expiration) {
  const auto lifetime = std::max(system_clock::duration::zero(), expiration - fetched);
  return expiration - std::min<system_clock::duration>(15s, lifetime / 8);
}

RefreshingCredentials::Held RefreshingCredentials::Hold(Credentials credentials) {
  Held held;
  const auto now = system_clock::now();
  if (credentials.expiration) {
    held.refresh_at = RefreshTime(now, *credentials.expiration);
    held.usable_until = UsableUntil(now, *credentials.expiration);
  } else {
    held.refresh_at = held.usable_until = system_clock::time_point::max();
  }
  held.credentials = std::make_shared<const Credentials>(std::move(credentials));
  return held;
}

RefreshingCredentials::RefreshingCredentials(Loader load, Credentials first)
    : load_(std::move(load)), source_(first.source) {
  const bool temporary = first.expiration.has_value();
  {
    MutexLock lock(&mu_);
    held_ = Hold(std::move(first));
  }
  if (temporary) thread_ = std::thread([this] { Run(); });
}

RefreshingCredentials::~RefreshingCredentials() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  wake_.SignalAll();
  if (thread_.joinable()) thread_.join();
}

Result<std::shared_ptr<const Credentials>> RefreshingCredentials::Current() const {
  MutexLock lock(&mu_);
  if (system_clock::now() < held_.usable_until) return held_.credentials;
  return Status::Unavailable(
      fmt::format("the AWS credentials from {} expire at {:%FT%TZ} and could not be refreshed{}{}",
                  source_, std::chrono::floor<std::chrono::seconds>(*held_.credentials->expiration),
                  last_error_.empty() ? "" : ": ", last_error_));
}

std::string RefreshingCredentials::source() const { return source_; }

int RefreshingCredentials::refreshes() const {
  MutexLock lock(&mu_);
  return refreshes_;
}

int RefreshingCredentials::refresh_failures() const {
  MutexLock lock(&mu_);
  return failures_;
}

void RefreshingCredentials::Run() {
  auto backoff = 1s;
  MutexLock lock(&mu_);
  while (!stopping_) {
    const auto refresh_at = held_.refresh_at;
    if (system_clock::now() < refresh_at) {
      wake_.WaitUntil(&mu_, refresh_at);
      continue;
    }
    lock.Unlock();
    Result<Credentials> fresh = load_();
    lock.Lock();
    if (fresh.ok()) {
      // A source answering what it answered before (an endpoint that caches)
      // keeps its expiration: the next refresh is then due at once, so wait
      // a little between such answers rather than spin.
      const bool same = held_.credentials->access_key_id == fresh->access_key_id;
      held_ = Hold(std::move(*fresh));
      if (same) held_.refresh_at = std::max(held_.refresh_at, system_clock::now() + 1s);
      last_error_.clear();
      ++refreshes_;
      backoff = 1s;
    } else {
      last_error_ = fresh.status().message();
      ++failures_;
      held_.refresh_at = system_clock::now() + backoff;
      backoff = std::min<std::chrono::seconds>(backoff * 2, 30s);
    }
  }
}

}  // namespace indelible::aws

// RefreshingCredentials: temporary credentials kept fresh from their source
// by a thread of its own, so that signing never waits for STS, instance
// metadata or a container endpoint.
//
// Operation:
//   - Credentials fetched at F that expire at E (lifetime L = E - F) are
//     refreshed at E - min(5 min, L/2): the SDKs' five minutes for the usual
//     hour-long credentials, half the lifetime for short ones.
//   - A failed refresh is tried again after 1 s, 2 s, 4 s ... (at most 30 s),
//     while the credentials in hand are still handed out.
//   - Credentials are handed out until E - min(15 s, L/8) (the guard), so a
//     request signed with them reaches AWS before they expire; past that,
//     Current() answers unavailable with the last refresh's error until a
//     refresh succeeds. Nothing is ever signed with expired credentials.
//
// Concurrency: Current() and source() are thread-safe and never block on
// I/O (a mutex held only to copy a pointer). The refresh thread is the
// only caller of the loader.
//
// Lifetime: the destructor stops the thread (waiting for a refresh in
// progress, bounded by the loader's timeouts).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "aws/credentials.h"
#include "core/mutex.h"

namespace indelible::aws {

// When credentials fetched at `fetched` and expiring at `expiration` are
// refreshed, and until when they are handed out.
std::chrono::system_clock::time_point RefreshTime(std::chrono::system_clock::time_point fetched,
                                                  std::chrono::system_clock::time_point expiration);
std::chrono::system_clock::time_point UsableUntil(std::chrono::system_clock::time_point fetched,
                                                  std::chrono::system_clock::time_point expiration);

class RefreshingCredentials final : public CredentialsProvider {
 public:
  using Loader = std::function<Result<Credentials>()>;

  // `first`: the loader's first answer (fetched just now). A refresh thread
  // runs when they have an expiration.
  RefreshingCredentials(Loader load, Credentials first);
  ~RefreshingCredentials() override;

  Result<std::shared_ptr<const Credentials>> Current() const override;
  std::string source() const override;

  // Refreshes that succeeded and failed so far (tests, messages).
  int refreshes() const;
  int refresh_failures() const;

 private:
  struct Held {
    std::shared_ptr<const Credentials> credentials;
    std::chrono::system_clock::time_point refresh_at, usable_until;
  };
  static Held Hold(Credentials credentials);
  void Run();

  const Loader load_;
  const std::string source_;
  mutable Mutex mu_;
  CondVar wake_;
  Held held_ GUARDED_BY(mu_);
  std::string last_error_ GUARDED_BY(mu_);
  int refreshes_ GUARDED_BY(mu_) = 0;
  int failures_ GUARDED_BY(mu_) = 0;
  bool stopping_ GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace indelible::aws

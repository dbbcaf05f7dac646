// The writers the power-cut suite runs until the power goes
// (power_cut_suite.cc): two appenders (one with exact expected versions,
// one with `any`), a committer writing to two streams at once, a consumer
// group's consumer, the subjects' key store making and shredding keys, and
// optionally a projection runner into SQLite. What the store acknowledges
// goes into the CutLedger; an error while the power is still on is a
// finding (violations()).
//
// Every event's data names its commit: {"b":"<commit>","i":<index in its
// stream's part>,"n":<events per stream>,"s":<streams>}, so the checks can
// tell a whole commit from half of one, acknowledged or not.
#pragma once

#include <indelible/projection.h>
#include <indelible/store.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "power_loss/cut_ledger.h"

namespace indelible::power_loss {

inline constexpr char kGroup[] = "audit";
inline constexpr int kAppenders = 2;
inline constexpr int kStreamsPerAppender = 6;
inline constexpr int kPairStreams = 4;

// The streams the workload writes to, for the checks.
std::vector<std::string> WorkloadStreams();
// The consumer group's options (filter: the workload's categories).
ConsumerGroupOptions GroupOptions();

struct WorkloadCounts {
  std::uint64_t commits = 0;     // acknowledged
  std::uint64_t deliveries = 0;  // to the consumer group's consumer
  std::uint64_t keys = 0;        // subject keys made or shredded
};

class CutWorkload {
 public:
  // `tag` names this round's commits; `power_on` says whether an error is
  // expected; `runner`, when given, is started and stopped with the rest.
  CutWorkload(Store& store, CutLedger& ledger, std::string tag, std::uint64_t seed,
              std::vector<std::string> master_keys, std::function<bool()> power_on,
              ProjectionRunner* runner);
  ~CutWorkload();

  void Start();
  // Joins the threads; call once the power is off.
  void Stop();
  std::vector<std::string> violations() const;
  WorkloadCounts counts() const;

 private:
  void Append(int writer);
  void CommitPairs();
  void Consume();
  void Keys();
  // Records an error seen while the power was on; true if the thread should end.
  bool Failed(const Status& status, const std::string& what);
  std::string CommitName(int thread, std::uint64_t k) const;

  Store& store_;
  CutLedger& ledger_;
  const std::string tag_;
  const std::uint64_t seed_;
  const std::vector<std::string> master_keys_;
  const std::function<bool()> power_on_;
  ProjectionRunner* const runner_;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
  std::atomic<std::uint64_t> commits_{0};
  std::atomic<std::uint64_t> deliveries_{0};
  std::atomic<std::uint64_t> keys_{0};
  mutable std::mutex mu_;
  std::vector<std::string> violations_;
};

// Parses an event's data as the workload wrote it; false if it is not.
struct CommitMark {
  std::string commit;
  int index = 0;
  int events = 0;
  int streams = 0;
};
bool ParseCommitMark(const std::string& data, CommitMark* mark);

}  // namespace indelible::power_loss

#include "power_loss/cut_workload.h"

#include <fmt/format.h>
#include <indelible/consumer_group.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <random>

#include "shredding/subject_keys.h"

namespace indelible::power_loss {
namespace {

std::string AppenderStream(int writer, int j) { return fmt::format("acct{}-{}", writer, j); }
std::string PairStream(int k) { return fmt::format("pair-{}", k); }

std::vector<EventData> MarkedEvents(const std::string& commit, int n, int streams) {
  std::vector<EventData> events;
  for (int i = 0; i < n; ++i) {
    EventData e;
    e.id = EventId::Random();
    e.type = "Noted";
    e.data = fmt::format(R"({{"b":"{}","i":{},"n":{},"s":{}}})", commit, i, n, streams);
    events.push_back(std::move(e));
  }
  return events;
}

}  // namespace

std::vector<std::string> WorkloadStreams() {
  std::vector<std::string> streams;
  for (int w = 0; w < kAppenders; ++w)
    for (int j = 0; j < kStreamsPerAppender; ++j) streams.push_back(AppenderStream(w, j));
  for (int k = 0; k < kPairStreams; ++k) streams.push_back(PairStream(k));
  return streams;
}

ConsumerGroupOptions GroupOptions() {
  ConsumerGroupOptions options;
  for (int w = 0; w < kAppenders; ++w)
    options.filter.categories.push_back(fmt::format("acct{}", w));
  options.filter.categories.push_back("pair");
  // Saved often, so that cuts land on checkpoint writes.
  options.checkpoint_interval = std::chrono::milliseconds(5);
  return options;
}

bool ParseCommitMark(const std::string& data, CommitMark* mark) {
  char commit[96];
  if (std::sscanf(data.c_str(), R"({"b":"%95[^"]","i":%d,"n":%d,"s":%d})", commit, &mark->index,
                  &mark->events, &mark->streams) != 4)
    return false;
  mark->commit = commit;
  return true;
}

CutWorkload::CutWorkload(Store& store, CutLedger& ledger, std::string tag, std::uint64_t seed,
                         std::vector<std::string> master_keys, std::function<bool()> power_on,
                         ProjectionRunner* runner)
    : store_(store),
      ledger_(ledger),
      tag_(std::move(tag)),
      seed_(seed),
      master_keys_(std::move(master_keys)),
      power_on_(std::move(power_on)),
      runner_(runner) {}

CutWorkload::~CutWorkload() { Stop(); }

void CutWorkload::Start() {
  for (int w = 0; w < kAppenders; ++w) threads_.emplace_back([this, w] { Append(w); });
  threads_.emplace_back([this] { CommitPairs(); });
  threads_.emplace_back([this] { Consume(); });
  threads_.emplace_back([this] { Keys(); });
  if (runner_ != nullptr) runner_->Start();
}

void CutWorkload::Stop() {
  if (stop_.exchange(true)) return;  // stopped before: the runner may be gone since
  for (auto& t : threads_) t.join();
  threads_.clear();
  if (runner_ != nullptr) runner_->Stop();
}

std::vector<std::string> CutWorkload::violations() const {
  std::lock_guard lock(mu_);
  return violations_;
}

WorkloadCounts CutWorkload::counts() const {
  return {commits_.load(), deliveries_.load(), keys_.load()};
}

bool CutWorkload::Failed(const Status& status, const std::string& what) {
  if (!power_on_()) return true;  // the cut: errors from here on are expected
  std::lock_guard lock(mu_);
  violations_.push_back(fmt::format("{} failed with the power on: {}", what, status.ToString()));
  return true;
}

std::string CutWorkload::CommitName(int thread, std::uint64_t k) const {
  return fmt::format("{}-t{}-{}", tag_, thread, k);
}

// Writer 0 expects exact versions (read from the heads after the reopen:
// a wrong head after recovery shows as a conflict); writer 1 expects any.
void CutWorkload::Append(int writer) {
  std::mt19937_64 random(seed_ * 31 + static_cast<std::uint64_t>(writer));
  std::map<int, Expected> next;
  for (int j = 0; j < kStreamsPerAppender; ++j) {
    Expected expected = Expected::any();
    if (writer == 0) {
      auto head = store_.Head(AppenderStream(writer, j));
      if (head.ok())
        expected = Expected::exactly(head->version);
      else if (head.status().code() == ErrorCode::kNotFound)
        expected = Expected::no_stream();
      else if (Failed(head.status(), "reading a head"))
        return;
    }
    next.emplace(j, expected);
  }
  for (std::uint64_t k = 0; !stop_.load(); ++k) {
    const int j = static_cast<int>(random() % kStreamsPerAppender);
    const int n = 1 + static_cast<int>(random() % 5);
    std::vector<AppendRequest> commit{
        {AppenderStream(writer, j), next.at(j), MarkedEvents(CommitName(writer, k), n, 1)}};
    auto sent = commit;
    auto result = store_.Commit(std::move(commit));
    if (!result.ok()) {
      if (Failed(result.status(), "an append to " + AppenderStream(writer, j))) return;
      continue;
    }
    if (writer == 0) next.at(j) = Expected::exactly(result->appends[0].last_version);
    ledger_.Acked(std::move(sent), *result);
    ++commits_;
  }
}

// One commit, two streams: both parts or neither survive.
void CutWorkload::CommitPairs() {
  std::mt19937_64 random(seed_ * 31 + 7);
  for (std::uint64_t k = 0; !stop_.load(); ++k) {
    const int a = static_cast<int>(random() % kPairStreams);
    const int b = (a + 1 + static_cast<int>(random() % (kPairStreams - 1))) % kPairStreams;
    const int n = 1 + static_cast<int>(random() % 3);
    const std::string name = CommitName(kAppenders, k);
    std::vector<AppendRequest> commit{{PairStream(a), Expected::any(), MarkedEvents(name, n, 2)},
                                      {PairStream(b), Expected::any(), MarkedEvents(name, n, 2)}};
    auto sent = commit;
    auto result = store_.Commit(std::move(commit));
    if (!result.ok()) {
      if (Failed(result.status(), "a commit to two streams")) return;
      continue;
    }
    ledger_.Acked(std::move(sent), *result);
    ++commits_;
  }
}

// Pulls and acknowledges; each delivery is recorded first, as a consumer
// acts on an event before it acknowledges it.
void CutWorkload::Consume() {
  auto group = ConsumerGroup::Open(store_, kGroup, GroupOptions());
  if (!group.ok()) {
    Failed(group.status(), "opening the consumer group");
    return;
  }
  while (!stop_.load()) {
    auto batch = (*group)->Pull("consumer", 64, std::chrono::milliseconds(10));
    if (!batch.ok()) {
      if (Failed(batch.status(), "a pull")) break;
      continue;
    }
    std::vector<Position> positions;
    for (const Delivery& d : *batch) {
      if (!ledger_.Delivered(d.event.position, d.event.id)) {
        std::lock_guard lock(mu_);
        violations_.push_back(fmt::format("position {} was delivered as two different events",
                                          d.event.position.value()));
      }
      positions.push_back(d.event.position);
      ++deliveries_;
    }
    if (positions.empty()) continue;
    if (Status s = (*group)->Ack(positions); !s.ok() && Failed(s, "an ack")) break;
  }
  // The destructor's last checkpoint write is refused once the power is off.
}

// Makes a key for a new subject every few milliseconds, and shreds every
// third subject made.
void CutWorkload::Keys() {
  if (master_keys_.empty()) return;
  shredding::SubjectKeys keys(store_, master_keys_, /*shared=*/false, std::chrono::seconds(1));
  std::vector<std::string> made;
  for (std::uint64_t k = 0; !stop_.load(); ++k) {
    const std::string subject = fmt::format("subject-{}-{}", tag_, k);
    auto key = keys.ForSealing(subject);
    if (!key.ok()) {
      if (Failed(key.status(), "making the key of " + subject)) return;
      continue;
    }
    ledger_.KeyMade(subject, key->id, key->key);
    ++keys_;
    made.push_back(subject);
    if (k % 3 == 2) {
      const std::string victim = made[made.size() - 2];
      ledger_.Shredding(victim);
      auto shredded = keys.Shred(victim);
      if (!shredded.ok()) {
        if (Failed(shredded.status(), "shredding " + victim)) return;
      } else {
        ledger_.Shredded(victim);
        ++keys_;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
  }
}

}  // namespace indelible::power_loss

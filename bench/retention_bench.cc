// retention: what stream retention and scavenging cost on the embedded
// engine (issue 37, docs/RETENTION.md).
//
// A store of --events (1,000,000) events of 200 bytes in 1,000 streams,
// filled with appends of 100 at interval durability, reopened with the
// run's durability, then:
//   read_all       a whole $all pass with no retention set, events/s (the
//                  median of 3 passes)
//   read_all_retained
//                  the same pass once every stream keeps its newest tenth
//                  (maxCount), so nine events in ten are skipped: events
//                  looked at per second, and the ratio to read_all
//   appends        --clients (4) writers appending single events to
//                  streams of their own for 2 s before the scavenge: the
//                  baseline appends/s
//   scavenge       one Store::Scavenge of the nine tenths: seconds, events
//                  removed per second, MB of records per second, the
//                  folder's size before and after (its compaction included)
//   appends_during the same writers while the scavenge runs: appends/s and
//                  the ratio to the baseline (what it costs writers online)
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <thread>
#include <vector>

#include "bench/events.h"
#include "bench/fill.h"
#include "bench/scenarios.h"

namespace indelible::bench {
namespace {

constexpr std::uint64_t kStreams = 1000;
constexpr int kReadPasses = 3;
constexpr double kBaselineSeconds = 2.0;

// Events looked at per second by one whole $all pass.
Result<double> ReadAllPass(Store& store, std::uint64_t looked_at) {
  Stopwatch watch;
  auto cursor = store.ReadAll();
  if (!cursor.ok()) return cursor.status();
  std::uint64_t returned = 0;
  for (; (*cursor)->Valid(); (*cursor)->Next()) ++returned;
  if (Status s = (*cursor)->status(); !s.ok()) return s;
  if (returned == 0) return Status::Internal("the $all pass returned nothing");
  return static_cast<double>(looked_at) / watch.Seconds();
}

Result<double> MedianPass(Store& store, std::uint64_t looked_at) {
  std::vector<double> rates;
  for (int pass = 0; pass < kReadPasses; ++pass) {
    auto rate = ReadAllPass(store, looked_at);
    if (!rate.ok()) return rate.status();
    rates.push_back(*rate);
  }
  return Quantile(rates, 0.5);
}

// Writers appending single events to streams of their own until stopped.
class Writers {
 public:
  Writers(Store& store, int clients, std::size_t event_bytes) {
    for (int c = 0; c < clients; ++c)
      threads_.emplace_back([this, &store, c, event_bytes] {
        const std::string stream = fmt::format("writer-{}", c);
        std::mt19937 rng(static_cast<std::uint32_t>(c + 1));
        for (std::uint64_t seq = 0; !stop_; ++seq) {
          auto r = store.Append(stream, Expected::any(),
                                {DepositedEvent(stream, seq, event_bytes, rng)});
          if (!r.ok()) {
            failed_ = true;
            return;
          }
          ++appends_;
        }
      });
  }
  ~Writers() { Stop(); }
  std::uint64_t appends() const { return appends_; }
  bool failed() const { return failed_; }
  void Stop() {
    stop_ = true;
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<bool> failed_{false};
  std::atomic<std::uint64_t> appends_{0};
  std::vector<std::thread> threads_;
};

}  // namespace

Status RunRetention(Context& context) {
  const Options& options = context.options();
  const std::uint64_t events = options.events.value_or(1'000'000);
  const int clients = options.clients.value_or(4);
  // Appends of 100 go round-robin over the streams: a small store fills
  // fewer than kStreams.
  const std::uint64_t streams =
      std::min<std::uint64_t>(kStreams, std::max<std::uint64_t>(events / 100, 1));
  const std::uint64_t per_stream = events / streams;
  if (per_stream < 10)
    return Status::Invalid("events", "retention needs at least 1,000 events (--events)");
  ScratchFolder folder(context, "retention");
  if (!folder.error().empty()) return Status::Unavailable(folder.error());
  {
    StoreOptions fill_options;
    fill_options.durability = Durability::kInterval;
    auto store = Store::Open("file:" + folder.path(), fill_options);
    if (!store.ok()) return store.status();
    FillSpec spec;
    spec.events = events;
    spec.streams = streams;
    spec.per_append = 100;
    spec.event_bytes = options.event_bytes;
    spec.label = "retention: filling";
    if (Status s = Fill(**store, spec); !s.ok()) return s;
  }
  auto store = OpenStore(context, folder.path());
  if (!store.ok()) return store.status();

  Conditions conditions;
  conditions.events = events;
  conditions.clients = clients;
  conditions.event_bytes = options.event_bytes;
  conditions.per_append = 100;
  conditions.streams = streams;

  auto plain = MedianPass(**store, events);
  if (!plain.ok()) return plain.status();
  context.AddFigure("retention", "read_all_events_per_s", *plain, 0, conditions, Target::None(),
                    false, Line().Add("passes", kReadPasses));

  StreamMetadata tenth;
  tenth.max_count = per_stream / 10;
  for (std::uint64_t s = 0; s < streams; ++s)
    if (auto written = (*store)->WriteStreamMetadata(AccountStream(s), tenth); !written.ok())
      return written.status();
  auto retained = MedianPass(**store, events);
  if (!retained.ok()) return retained.status();
  context.AddFigure("retention", "read_all_retained_looked_at_per_s", *retained, 0, conditions,
                    Target::None(), false,
                    Line()
                        .Add("passes", kReadPasses)
                        .Add("kept", "1/10 by maxCount on every stream")
                        .Add("ratio_to_read_all", *retained / *plain, 3));

  double baseline = 0;
  {
    Writers writers(**store, clients, options.event_bytes);
    std::this_thread::sleep_for(std::chrono::duration<double>(kBaselineSeconds));
    writers.Stop();
    if (writers.failed()) return Status::Internal("a writer failed before the scavenge");
    baseline = static_cast<double>(writers.appends()) / kBaselineSeconds;
  }
  context.AddFigure("retention", "appends_per_s", baseline, 0, conditions, Target::None(), false);

  Writers writers(**store, clients, options.event_bytes);
  Progress progress("retention: scavenging", 0, "streams");
  Stopwatch watch;
  const std::uint64_t before = writers.appends();
  auto report = (*store)->Scavenge([&](std::uint64_t done, std::uint64_t total) {
    progress.set_total(total);
    progress.Update(done);
  });
  const double seconds = watch.Seconds();
  const std::uint64_t during = writers.appends() - before;
  writers.Stop();
  progress.Finish();
  if (!report.ok()) return report.status();
  if (writers.failed()) return Status::Internal("a writer failed during the scavenge");
  context.AddFigure(
      "retention", "scavenge_events_per_s", static_cast<double>(report->events) / seconds, 0,
      conditions, Target::None(), false,
      Line()
          .Add("seconds", seconds, 2)
          .Add("events_removed", report->events)
          .Add("mb_per_s", static_cast<double>(report->bytes) / 1e6 / seconds, 1)
          .Add("disk_mb_before", static_cast<double>(report->disk_bytes_before) / 1e6, 1)
          .Add("disk_mb_after", static_cast<double>(report->disk_bytes_after) / 1e6, 1));
  const double during_rate = static_cast<double>(during) / seconds;
  context.AddFigure("retention", "appends_during_scavenge_per_s", during_rate, 0, conditions,
                    Target::None(), false,
                    Line().Add("ratio_to_appends", baseline > 0 ? during_rate / baseline : 0, 3));
  return Status::Ok();
}

}  // namespace indelible::bench

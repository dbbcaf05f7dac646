// open: append 10,000,000 events (100 per append over 10,000 streams),
// sampling resident memory all along (target: < 512 MiB), close, then time
// the reopen: Store::Open plus the first LastPosition() (target: < 1 s).
// --open-events (or --events) scales it down.
#include <fmt/format.h>
#include <malloc.h>

#include <atomic>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <thread>

#include "bench/fill.h"
#include "bench/scenarios.h"

namespace indelible::bench {
namespace {

// Samples VmRSS every few milliseconds on its own thread, keeping the maximum.
class RssSampler {
 public:
  RssSampler() : thread_([this] { Loop(); }) {}
  ~RssSampler() { Stop(); }
  double Stop() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    return max_mib_.load();
  }

 private:
  void Loop() {
    std::unique_lock lock(mu_);
    while (!stopping_) {
      const double mib = ResidentMiB();
      if (mib > max_mib_.load()) max_mib_.store(mib);
      cv_.wait_for(lock, std::chrono::milliseconds(20));
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;  // GUARDED_BY(mu_)
  std::atomic<double> max_mib_{0};
  std::thread thread_;
};

// Resets VmHWM to the current RSS (Linux >= 4.0); false if not allowed.
bool ResetPeakRss() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.flush();
  return clear.good();
}

}  // namespace

Status RunOpen(Context& context) {
  if (Status s = context.EnsureFsync(); !s.ok()) return s;
  const Options& options = context.options();
  const std::uint64_t events = options.open_events.value_or(options.events.value_or(10000000));
  const std::uint64_t streams = options.streams.value_or(10000);
  const std::size_t per_append = options.per_append.value_or(100);
  ScratchFolder folder(context, "open");
  if (!folder.error().empty()) return Status::Unavailable(folder.error());

  malloc_trim(0);  // what earlier scenarios freed should not count here
  const bool peak_reset = ResetPeakRss();
  const double rss_before = ResidentMiB();
  double max_rss = 0;
  double fill_seconds = 0;
  double close_seconds = 0;
  {
    RssSampler sampler;
    auto store = OpenStore(context, folder.path());
    if (!store.ok()) return store.status();
    FillSpec fill;
    fill.events = events;
    fill.streams = streams;
    fill.per_append = per_append;
    fill.event_bytes = options.event_bytes;
    fill.label = "open: appending";
    Stopwatch fill_watch;
    if (Status s = Fill(**store, fill); !s.ok()) return s;
    fill_seconds = fill_watch.Seconds();
    Stopwatch close_watch;
    store->reset();
    close_seconds = close_watch.Seconds();
    max_rss = sampler.Stop();
  }
  const double peak_rss = ResidentMiB("VmHWM");
  const std::uint64_t disk_bytes = FolderBytes(folder.path());

  Stopwatch open_watch;
  auto store = OpenStore(context, folder.path());
  if (!store.ok()) return store.status();
  const Position last = (*store)->LastPosition();
  const double open_seconds = open_watch.Seconds();
  const double rss_after_open = ResidentMiB();
  store->reset();
  if (last.value() != events)
    return Status::Internal(fmt::format("open: reopened store's last position is {}, expected {}",
                                        last.value(), events));

  const Conditions conditions{events, 1, options.event_bytes, per_append, streams};
  Line fill_extra;
  fill_extra.Add("seconds", fill_seconds, 3);
  context.AddFigure("open", "append_events_per_s", static_cast<double>(events) / fill_seconds, 0,
                    conditions, Target::None(), true, fill_extra);
  Line rss_extra;
  rss_extra.Add("rss_before_mib", rss_before, 0).Add("sample_ms", 20);
  if (peak_reset) rss_extra.Add("vmhwm_mib", peak_rss, 0);
  context.AddFigure("open", "max_rss_mib", max_rss, 0, conditions, Target::AtMost(512), false,
                    rss_extra);
  Line open_extra;
  open_extra.Add("disk_mib", static_cast<double>(disk_bytes) / (1024.0 * 1024.0), 0)
      .Add("rss_after_open_mib", rss_after_open, 0)
      .Add("close_ms", close_seconds * 1000, 1);
  context.AddFigure("open", "open_ms", open_seconds * 1000, 1, conditions, Target::AtMost(1000),
                    false, open_extra);
  return Status::Ok();
}

}  // namespace indelible::bench

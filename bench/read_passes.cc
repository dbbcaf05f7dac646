#include "bench/read_passes.h"

#include <fmt/format.h>

#include "bench/fill.h"

namespace indelible::bench {
namespace {

struct Rates {
  double median = 0;
  double first = 0;
  double cpu_s = 0;  // CPU seconds per pass, on average
};

Result<Rates> TimePasses(const ReadSpec& spec, Store& store, std::uint64_t events,
                         std::size_t event_bytes) {
  std::vector<double> rates;
  Stopwatch all;
  for (int pass = 0; pass < kReadPasses; ++pass) {
    Stopwatch watch;
    auto totals = spec.read(store);
    const double seconds = watch.Seconds();
    if (!totals.ok()) return totals.status();
    if (totals->events != events || totals->data_bytes != events * event_bytes)
      return Status::Internal(fmt::format("{}: read {} events of {} bytes, expected {} of {}",
                                          spec.bench, totals->events, totals->data_bytes, events,
                                          events * event_bytes));
    rates.push_back(static_cast<double>(events) / seconds);
  }
  Rates result;
  result.first = rates.front();
  result.cpu_s = all.CpuSeconds() / kReadPasses;
  result.median = Quantile(rates, 0.5);
  return result;
}

}  // namespace

Status RunReadPasses(Context& context, const ReadSpec& spec) {
  const Options& options = context.options();
  const std::uint64_t events = options.events.value_or(spec.default_events);
  const std::size_t per_append = options.per_append.value_or(100);
  ScratchFolder folder(context, spec.bench);
  if (!folder.error().empty()) return Status::Unavailable(folder.error());
  auto store = OpenStore(context, folder.path());
  if (!store.ok()) return store.status();
  FillSpec fill;
  fill.events = events;
  fill.streams = spec.streams;
  fill.per_append = per_append;
  fill.event_bytes = options.event_bytes;
  fill.label = fmt::format("{}: writing", spec.bench);
  if (Status s = Fill(**store, fill); !s.ok()) return s;

  auto written = TimePasses(spec, **store, events, options.event_bytes);
  if (!written.ok()) return written.status();
  store->reset();
  store = OpenStore(context, folder.path());
  if (!store.ok()) return store.status();
  auto reopened = TimePasses(spec, **store, events, options.event_bytes);
  if (!reopened.ok()) return reopened.status();
  store->reset();

  const Conditions conditions{events, 1, options.event_bytes, per_append, spec.streams};
  Line extra;
  extra.Add("passes", kReadPasses)
      .Add("first_pass_events_per_s", reopened->first, 0)
      .Add("cpu_s_per_pass", reopened->cpu_s, 3)
      .Add("store", "reopened");
  context.AddFigure(spec.bench, "events_per_s", reopened->median, 0, conditions, spec.target, false,
                    extra);
  Line before;
  before.Add("passes", kReadPasses)
      .Add("first_pass_events_per_s", written->first, 0)
      .Add("cpu_s_per_pass", written->cpu_s, 3)
      .Add("store", "just_written");
  context.AddFigure(spec.bench, "events_per_s_before_reopen", written->median, 0, conditions,
                    spec.target, false, before);
  return Status::Ok();
}

}  // namespace indelible::bench

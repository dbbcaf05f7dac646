#include "bench/common.h"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench/scenarios.h"

namespace indelible::bench {

void Report::Add(Figure figure) {
  std::fputs((figure.line + "\n").c_str(), stdout);
  std::fflush(stdout);
  auto& runs = figures_[figure.key];
  if (runs.empty()) order_.push_back(figure.key);
  runs.push_back(std::move(figure));
}

void Report::PrintMedians(int runs) const {
  if (runs <= 1 || order_.empty()) return;
  std::fputs(
      fmt::format("# medians of {} runs (the median run's line of each figure)\n", runs).c_str(),
      stdout);
  for (const std::string& key : order_) {
    std::vector<Figure> sorted = figures_.at(key);
    std::sort(sorted.begin(), sorted.end(),
              [](const Figure& a, const Figure& b) { return a.value < b.value; });
    const Figure& median = sorted[(sorted.size() - 1) / 2];
    Line spread;
    spread.Add("runs", static_cast<std::uint64_t>(sorted.size()))
        .Add("min", sorted.front().value, sorted.front().value < 100 ? 3 : 0)
        .Add("max", sorted.back().value, sorted.back().value < 100 ? 3 : 0);
    std::fputs(fmt::format("{} {}\n", median.line, spread.str()).c_str(), stdout);
  }
  std::fflush(stdout);
}

Line& Line::Add(std::string_view key, std::string_view value) {
  if (!text_.empty()) text_ += ' ';
  text_ += key;
  text_ += '=';
  if (value.find(' ') != std::string_view::npos) {
    text_ += '"';
    text_ += value;
    text_ += '"';
  } else {
    text_ += value;
  }
  return *this;
}

Line& Line::Add(std::string_view key, double value, int decimals) {
  return Add(key, fmt::format("{:.{}f}", value, decimals));
}

Line& Line::Add(std::string_view key, std::uint64_t value) {
  return Add(key, fmt::format("{}", value));
}

void AddCpuPerEvent(Line& line, std::uint64_t events, double process_cpu_s,
                    const StoreStats& before, const StoreStats& after) {
  if (events == 0) return;
  const auto n = static_cast<double>(events);
  line.Add("cpu_us_per_event", process_cpu_s * 1e6 / n, 2)
      .Add("commit_cpu_us_per_event",
           static_cast<double>(after.commit_cpu_ns - before.commit_cpu_ns) / 1e3 / n, 2)
      .Add("sync_cpu_us_per_event",
           static_cast<double>(after.sync_cpu_ns - before.sync_cpu_ns) / 1e3 / n, 2)
      .Add("index_cpu_us_per_event",
           static_cast<double>(after.index_cpu_ns - before.index_cpu_ns) / 1e3 / n, 2);
  if (after.syncs > before.syncs)
    line.Add("events_per_sync", n / static_cast<double>(after.syncs - before.syncs), 2);
}

Context::Context(Options options)
    : options_(std::move(options)), filesystem_(FilesystemOf(options_.data)) {}

Status Context::EnsureFsync() {
  if (fsync_per_s_) return Status::Ok();
  return RunFsync(*this);
}

std::string Context::durability_name() const {
  return options_.durability == Durability::kSync
             ? "sync"
             : fmt::format("interval_{}ms", StoreOptions().sync_interval.count());
}

namespace {
// Bounds such as 100000 print as integers, ratios such as 0.7 with decimals.
bool Whole(double v) { return v == static_cast<double>(static_cast<std::int64_t>(v)); }
}  // namespace

void Context::AddFigure(std::string_view bench, std::string_view figure, double value, int decimals,
                        const Conditions& conditions, Target target, bool sync_bound,
                        const Line& extra) {
  Line line;
  line.Add("bench", bench).Add("figure", figure).Add("value", value, decimals);
  std::optional<double> ratio;
  if (sync_bound && fsync_per_s_ && *fsync_per_s_ > 0) {
    ratio = value / *fsync_per_s_;
    line.Add("ratio_to_fsync", *ratio, 2);
    if (growing_fsync_per_s_ && *growing_fsync_per_s_ > 0)
      line.Add("ratio_to_growing_fsync", value / *growing_fsync_per_s_, 2);
  }
  std::optional<bool> met;
  switch (target.kind) {
    case Target::Kind::kNone:
      break;
    case Target::Kind::kAtLeast:
      line.Add("target_min", target.bound, Whole(target.bound) ? 0 : 2);
      met = value >= target.bound;
      break;
    case Target::Kind::kAtMost:
      line.Add("target_max", target.bound, Whole(target.bound) ? 0 : 2);
      met = value <= target.bound;
      break;
    case Target::Kind::kRatioAtLeast:
      line.Add("target_min_ratio", target.bound, 2);
      if (ratio) met = *ratio >= target.bound;
      break;
  }
  if (met) line.Add("met", *met ? "yes" : "no");
  line.Add("durability", durability_name())
      .Add("events", conditions.events)
      .Add("clients", conditions.clients)
      .Add("event_bytes", static_cast<std::uint64_t>(conditions.event_bytes))
      .Add("per_append", static_cast<std::uint64_t>(conditions.per_append))
      .Add("streams", conditions.streams)
      .Add("ids", options_.store_ids ? "store" : "client")
      .Add("fs", filesystem_);
  std::string text = line.str();
  if (!extra.str().empty()) text += " " + extra.str();
  report_.Add(Figure{fmt::format("{} {}", bench, figure), value, std::move(text)});
}

ScratchFolder::ScratchFolder(const Context& context, std::string_view scenario)
    : keep_(context.options().keep) {
  static int counter = 0;
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(context.options().data, ec);
  if (ec) {
    error_ =
        fmt::format("cannot create data folder '{}': {}", context.options().data, ec.message());
    return;
  }
  path_ = (fs::path(context.options().data) /
           fmt::format("bench-{}-{}-{}", scenario, getpid(), ++counter))
              .string();
  if (!fs::create_directory(path_, ec)) {
    error_ =
        fmt::format("cannot create fresh folder '{}': {}", path_, ec ? ec.message() : "it exists");
    path_.clear();
  }
}

ScratchFolder::~ScratchFolder() {
  if (path_.empty()) return;
  if (keep_) {
    std::fputs(fmt::format("# kept {}\n", path_).c_str(), stderr);
    return;
  }
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

Result<std::unique_ptr<Store>> OpenStore(const Context& context, const std::string& folder) {
  StoreOptions options;
  options.durability = context.options().durability;
  return Store::Open("file:" + folder, options);
}

double ProcessCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

Stopwatch::Stopwatch()
    : start_(std::chrono::steady_clock::now()), cpu_start_(ProcessCpuSeconds()) {}

double Stopwatch::Seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

double Stopwatch::CpuSeconds() const { return ProcessCpuSeconds() - cpu_start_; }

double Quantile(std::vector<double>& values, double q) {
  if (values.empty()) return 0;
  auto index = static_cast<std::size_t>(q * static_cast<double>(values.size() - 1));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(index),
                   values.end());
  return values[index];
}

double ResidentMiB(std::string_view field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with(field) && line.size() > field.size() && line[field.size()] == ':') {
      std::istringstream fields(line.substr(field.size() + 1));
      double kib = 0;
      fields >> kib;
      return kib / 1024.0;
    }
  }
  return 0;
}

std::uint64_t FolderBytes(const std::string& path) {
  std::uint64_t bytes = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(path, ec))
    if (entry.is_regular_file(ec)) bytes += entry.file_size(ec);
  return bytes;
}

std::string FilesystemOf(const std::string& path) {
  std::error_code ec;
  std::filesystem::path probe = std::filesystem::absolute(path, ec);
  // The folder may not exist yet: look at its nearest existing ancestor.
  while (!probe.empty() && !std::filesystem::exists(probe, ec) && probe != probe.root_path())
    probe = probe.parent_path();
  const std::string target = std::filesystem::weakly_canonical(probe, ec).string();
  std::ifstream mounts("/proc/self/mounts");
  std::string device;
  std::string mount_point;
  std::string type;
  std::string rest;
  std::size_t best = 0;
  std::string found = "unknown";
  while (mounts >> device >> mount_point >> type && std::getline(mounts, rest)) {
    const bool inside = target == mount_point || mount_point == "/" ||
                        (target.starts_with(mount_point) && target[mount_point.size()] == '/');
    if (inside && mount_point.size() >= best) {
      best = mount_point.size();
      found = type;
    }
  }
  return found;
}

}  // namespace indelible::bench

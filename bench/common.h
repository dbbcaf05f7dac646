// What every benchmark scenario shares: the options of `indelible bench`,
// the report (one line per figure, with its conditions), scratch folders,
// timers and the progress line.
//
// Concurrency: a Context and its Report belong to the thread running the
// scenarios; worker threads a scenario starts touch neither.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/progress.h"
#include "indelible/options.h"
#include "indelible/store.h"

namespace indelible::bench {

// Parsed command line. Unset optionals mean "the scenario's default".
struct Options {
  std::string data;  // parent folder; each scenario works in a fresh subfolder
  // workload, index-lag: a dynamodb:// store URL to run on instead of the
  // embedded engine (scenario_store.h); empty: the embedded engine.
  std::string store;
  bool keep = false;
  int runs = 1;
  Durability durability = Durability::kSync;
  std::optional<std::uint64_t> events;
  std::optional<std::uint64_t> open_events;  // open only; beats events
  std::optional<int> clients;
  std::size_t event_bytes = 200;
  std::optional<std::size_t> per_append;
  // append, batch, concurrent: events go without ids, so the store makes
  // them (CommitOptions::ids_made_by_store) instead of checking the
  // client's for retries. Printed as ids=store (else ids=client).
  bool store_ids = false;
  std::optional<std::uint64_t> streams;  // workload, open
  std::optional<std::size_t> page;       // workload
  double fsync_seconds = 2.0;
  std::string nats;  // relay: the NATS server's URL
  // projection: PostgreSQL as a read store too, a throwaway cluster started
  // by scripts/postgres.sh (postgres) or an existing database (read_store).
  bool postgres = false;
  std::string read_store;
  std::optional<std::size_t> batch_events;  // projection: ProjectionOptions::batch_events
  std::optional<double> rate;               // projection lag, index-lag: appends/s
  std::optional<double> seconds;            // projection lag, index-lag: measured seconds
};

// One measured figure. `key` names it across runs (for medians); `line` is
// what was printed.
struct Figure {
  std::string key;
  double value = 0;
  std::string line;
};

// Collects the figures of every run and prints, at the end, the median run's
// line of each figure.
class Report {
 public:
  // Prints the line to stdout at once and keeps it.
  void Add(Figure figure);
  // For runs > 1: one line per figure, the run with the median value, with
  // runs=, min= and max= appended.
  void PrintMedians(int runs) const;

 private:
  std::vector<std::string> order_;
  std::map<std::string, std::vector<Figure>> figures_;
};

// key=value fields, in order; values with spaces are quoted.
class Line {
 public:
  Line& Add(std::string_view key, std::string_view value);
  Line& Add(std::string_view key, const char* value) { return Add(key, std::string_view(value)); }
  Line& Add(std::string_view key, double value, int decimals);
  Line& Add(std::string_view key, std::uint64_t value);
  Line& Add(std::string_view key, int value) { return Add(key, static_cast<std::uint64_t>(value)); }
  const std::string& str() const { return text_; }

 private:
  std::string text_;
};

// What a target asks of a figure.
struct Target {
  enum class Kind : std::uint8_t { kNone, kAtLeast, kAtMost, kRatioAtLeast };
  Kind kind = Kind::kNone;
  double bound = 0;

  static Target None() { return {}; }
  static Target AtLeast(double v) { return {Kind::kAtLeast, v}; }
  static Target AtMost(double v) { return {Kind::kAtMost, v}; }
  // value / fsync_per_s >= v
  static Target RatioAtLeast(double v) { return {Kind::kRatioAtLeast, v}; }
};

// The conditions printed with a figure.
struct Conditions {
  std::uint64_t events = 0;
  int clients = 1;
  std::size_t event_bytes = 200;
  std::size_t per_append = 1;
  std::uint64_t streams = 1;
};

class Context {
 public:
  explicit Context(Options options);

  const Options& options() const { return options_; }
  Options& mutable_options() { return options_; }
  Report& report() { return report_; }

  // The disk's fdatasync rate measured in this run; runs the fsync scenario
  // first if it has not run yet.
  std::optional<double> fsync_per_s() const { return fsync_per_s_; }
  void set_fsync_per_s(double v) { fsync_per_s_ = v; }
  // The same for records appended to a file that grows with each one (no
  // preallocation), where every sync also has to persist the new size.
  std::optional<double> growing_fsync_per_s() const { return growing_fsync_per_s_; }
  void set_growing_fsync_per_s(double v) { growing_fsync_per_s_ = v; }
  void StartRun() {
    fsync_per_s_.reset();
    growing_fsync_per_s_.reset();
  }
  Status EnsureFsync();

  // Filesystem type of the data folder ("ext4").
  const std::string& filesystem() const { return filesystem_; }
  std::string durability_name() const;

  // A figure of `bench`: prints `bench=... figure=... value=...`, the ratio
  // to fsync/s when `sync_bound`, the target and whether it is met, the
  // conditions and `extra` (already formatted key=value fields).
  void AddFigure(std::string_view bench, std::string_view figure, double value, int decimals,
                 const Conditions& conditions, Target target, bool sync_bound,
                 const Line& extra = Line());

 private:
  Options options_;
  Report report_;
  std::optional<double> fsync_per_s_;
  std::optional<double> growing_fsync_per_s_;
  std::string filesystem_;
};

// A fresh subfolder of --data, removed on destruction unless --keep.
// Destroy every Store in it first.
class ScratchFolder {
 public:
  ScratchFolder(const Context& context, std::string_view scenario);
  ~ScratchFolder();
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;

  const std::string& path() const { return path_; }
  // Empty when the folder could not be created.
  const std::string& error() const { return error_; }

 private:
  std::string path_;
  std::string error_;
  bool keep_;
};

// Opens the embedded engine in `folder` with the run's durability.
Result<std::unique_ptr<Store>> OpenStore(const Context& context, const std::string& folder);

// Wall time and CPU time (user + system, all threads) since construction.
// User and system CPU of the whole process, in seconds, since it started.
double ProcessCpuSeconds();

class Stopwatch {
 public:
  Stopwatch();
  double Seconds() const;
  double CpuSeconds() const;

 private:
  std::chrono::steady_clock::time_point start_;
  double cpu_start_;
};

// CPU per event beside a throughput figure, in microseconds: the whole
// process's (cpu_us_per_event: clients, engine, RocksDB's background
// work), and the engine's own two paths from StoreStats (the embedded
// engine reports them; 0 elsewhere): the commit path, deciding commits and
// writing their records (commit_cpu_us_per_event), and the I/O path, the
// syncs (sync_cpu_us_per_event: the system time of fdatasync). Where the
// engine synced, also events_per_sync: how many events one fdatasync
// acknowledged, which bounds a sync-bound figure at that many times the
// disk's sync rate.
void AddCpuPerEvent(Line& line, std::uint64_t events, double process_cpu_s,
                    const StoreStats& before, const StoreStats& after);

// The q-quantile (0..1) of `values`; reorders them. 0 when empty.
double Quantile(std::vector<double>& values, double q);

// Progress lines are the CLI's (cli/progress.h): one for every long operation.
using cli::Progress;

// A memory field of /proc/self/status ("VmRSS", resident memory; "VmHWM",
// its peak), in MiB; 0 if unknown.
double ResidentMiB(std::string_view field = "VmRSS");
// Bytes of the files under `path`.
std::uint64_t FolderBytes(const std::string& path);
// Filesystem type of the mount holding `path`, from /proc/self/mounts.
std::string FilesystemOf(const std::string& path);

}  // namespace indelible::bench

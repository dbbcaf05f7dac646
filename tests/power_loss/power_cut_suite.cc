// indelible-power-cuts: the embedded store through a thousand simulated
// power cuts (issue 38; docs/RELIABILITY.md).
//
// Each cut: the store opens on the power-cut file system (recovering from
// the cut before), every check of cut_checks.h runs, the projection's copy
// is compared with a rebuild, then the writers of cut_workload.h run until
// the power goes, at one of these moments:
//   - writes:   a random time into the writes (5 to 150 ms);
//   - counted:  the N-th change to the disk after the writes began (a
//               sync, a log append, a file made or renamed: inside a flush
//               or a checkpoint's write as often as between them);
//   - open:     the N-th change of the open itself (recovery, its flush
//               of the recovered log, the new manifest);
//   - close:    the N-th change of a clean close (its flush of every
//               memtable);
//   - upgrade:  the N-th change of a format upgrade of a folder of the
//               last format 1 or format 2 release (a folder of its own).
// Then every file's unsynced tail is dropped, torn or damaged (the cut's
// mode) and unsynced directory changes undone; SQLite's files likewise
// (power_cut_vfs.h). A folder lives through --rounds cuts, then its
// consumer group is drained and checked whole, and a new folder begins.
//
// Prints the counts at the end; exits 1 with the findings if any check
// failed. Deterministic in what it decides (moments, modes, seeds) for a
// given --seed; the threads' interleaving is not.
#include <fmt/format.h>
#include <indelible/consumer_group.h>
#include <rocksdb/env.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "core/event_json.h"
#include "power_loss/cut_checks.h"
#include "power_loss/cut_projection.h"
#include "power_loss/cut_workload.h"
#include "power_loss/power_cut_fs.h"
#include "power_loss/power_cut_vfs.h"
#include "storage/embedded/embedded_store.h"
#include "testutil/temp_dir.h"

namespace indelible::power_loss {
namespace {

using Clock = std::chrono::steady_clock;

enum class Moment { kWrites, kCounted, kOpen, kClose, kUpgrade };
constexpr const char* kMomentNames[] = {"writes", "counted changes", "open", "close", "upgrade"};
constexpr const char* kModeNames[] = {"drop", "tear", "corrupt"};

// The projections' SQLite files go through it: every sqlite3_open in this
// process does.
PowerCutVfs& Vfs() {
  static PowerCutVfs& vfs = PowerCutVfs::Install(/*make_default=*/true);
  return vfs;
}

struct SuiteOptions {
  std::uint64_t cuts = 1000;
  std::uint64_t seed = 1;
  std::uint64_t rounds = 20;         // cuts per data folder
  std::uint64_t upgrade_every = 25;  // every N-th cut is an upgrade's
  bool projection = true;
};

struct Totals {
  std::uint64_t cuts = 0;
  std::uint64_t by_moment[5] = {};
  std::uint64_t by_mode[3] = {};
  std::uint64_t folders = 0;
  std::uint64_t commits_acked = 0;
  std::uint64_t events_acked = 0;
  std::uint64_t deliveries = 0;
  std::uint64_t keys = 0;
  std::uint64_t failed_opens = 0;  // opens the power cut short
  CheckCounts checks;
  PowerCutStats layer;
  PowerCutVfsStats sqlite;
  Findings findings;
};

void Add(PowerCutStats& total, const PowerCutStats& s) {
  total.cuts += s.cuts;
  total.files_cut += s.files_cut;
  total.bytes_dropped += s.bytes_dropped;
  total.bytes_damaged += s.bytes_damaged;
  total.entries_undone += s.entries_undone;
  total.syncs += s.syncs;
  total.dir_syncs += s.dir_syncs;
  total.refused += s.refused;
  total.changes += s.changes;
}

void Add(PowerCutVfsStats& total, const PowerCutVfsStats& s) {
  total.cuts += s.cuts;
  total.files_cut += s.files_cut;
  total.writes_undone += s.writes_undone;
  total.bytes_undone += s.bytes_undone;
  total.bytes_damaged += s.bytes_damaged;
  total.names_undone += s.names_undone;
  total.deletes_undone += s.deletes_undone;
  total.syncs += s.syncs;
  total.refused += s.refused;
}

// One data folder's life through its cuts.
class Folder {
 public:
  Folder(const SuiteOptions& options, Totals& totals, std::vector<std::string> master_keys)
      : options_(options), totals_(totals), master_keys_(std::move(master_keys)) {
    ++totals_.folders;
  }
  ~Folder() {
    Add(totals_.layer, fs_->stats());
    Add(totals_.sqlite, Vfs().stats());
    Vfs().Reset();  // the folder's SQLite files go with it (Reset zeroes its counters)
  }

  // One cut, meant at `moment`; returns the moment it came at (an open
  // that ended before its count goes on to the writes).
  Moment Cut(Moment moment, CutMode mode, std::uint64_t seed) {
    std::mt19937_64 random(seed);
    const auto tag = fmt::format("c{}", seed);
    if (moment == Moment::kOpen) fs_->PowerOffAfter(random() % 150);
    auto store = storage::OpenEmbeddedStoreOnEnv(path_, {}, env_.get());
    if (!store.ok()) {
      if (fs_->active())
        Finding(seed, "open failed with the power on: " + store.status().ToString());
      ++totals_.failed_opens;
    } else if (fs_->active()) {
      if (moment == Moment::kOpen) moment = Moment::kWrites;
      fs_->SetActive(true);  // disarms a count the open did not reach
      RunRound(**store, moment, seed, tag, random);
    }
    if (store.ok()) store->reset();  // closed on a dead disk, or a close cut short
    PowerOff();
    if (rocksdb::Status s = fs_->Cut(seed, mode); !s.ok())
      Finding(seed, "the cut: " + s.ToString());
    // SQLite's files take every mode: zeroed or garbled spans and writes
    // put back out of order as well (its WAL's checksums survive them).
    const std::string e =
        seed % 4 == 3 ? Vfs().CutReordered(seed) : Vfs().Cut(seed, static_cast<CutMode>(seed % 4));
    if (!e.empty()) Finding(seed, "the SQLite cut: " + e);
    fs_->SetActive(true);
    Vfs().SetActive(true);
    last_cut_ = fmt::format("a {} cut at {}, seed {}", kModeNames[static_cast<int>(mode)],
                            kMomentNames[static_cast<int>(moment)], seed);
    return moment;
  }

  // The last open, with the power on to the end: the checks, then the
  // group drained and checked whole, then a clean close.
  void Finish(std::uint64_t seed) {
    auto store = storage::OpenEmbeddedStoreOnEnv(path_, {}, env_.get());
    if (!store.ok()) {
      Finding(seed, "the last open: " + store.status().ToString());
      return;
    }
    Findings found;
    CheckAfterCut(**store, ledger_, master_keys_, totals_.checks, found);
    if (auto exists = ConsumerGroup::Exists(**store, kGroup); exists.ok() && *exists)
      DrainAndCheckGroup(**store, ledger_, totals_.checks, found);
    for (auto& f : found) Finding(seed, f);
    totals_.events_acked += ledger_.acked_events();
  }

 private:
  void Finding(std::uint64_t seed, const std::string& what) {
    totals_.findings.push_back(fmt::format("folder {} cut seed {} (after {}): {}", totals_.folders,
                                           seed, last_cut_, what));
  }

  void PowerOff() {
    fs_->SetActive(false);
    Vfs().SetActive(false);
  }

  void RunRound(Store& store, Moment moment, std::uint64_t seed, const std::string& tag,
                std::mt19937_64& random) {
    Findings found;
    CheckAfterCut(store, ledger_, master_keys_, totals_.checks, found);
    if (Status s = ConsumerGroup::Create(store, kGroup, GroupOptions()); !s.ok())
      found.push_back("creating the consumer group: " + s.ToString());
    std::unique_ptr<ProjectionRunner> runner;
    if (options_.projection) {
      auto opened = ProjectionRunner::Open(store, read_url_, CountsProjection());
      if (!opened.ok()) {
        found.push_back("opening the projection: " + opened.status().ToString());
      } else {
        runner = std::move(*opened);
        CheckProjection(store, *runner, read_url_, tmp_.Sub("rebuilt-" + tag + ".db"),
                        totals_.checks, found);
      }
    }
    for (auto& f : found) Finding(seed, f);
    if (!found.empty()) return;  // the next cut would only bury what is wrong

    CutWorkload workload(
        store, ledger_, tag, seed, master_keys_, [this] { return fs_->active(); }, runner.get());
    workload.Start();
    switch (moment) {
      case Moment::kCounted: {
        fs_->PowerOffAfter(random() % 2000);
        const auto deadline = Clock::now() + std::chrono::seconds(2);
        while (fs_->active() && Clock::now() < deadline)
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        PowerOff();
        break;
      }
      case Moment::kClose:
        std::this_thread::sleep_for(std::chrono::milliseconds(5 + random() % 100));
        workload.Stop();  // the power stays on: a clean close follows
        break;
      default:
        std::this_thread::sleep_for(std::chrono::milliseconds(5 + random() % 146));
        PowerOff();
        break;
    }
    workload.Stop();
    for (auto& v : workload.violations()) Finding(seed, v);
    const WorkloadCounts counts = workload.counts();
    totals_.commits_acked += counts.commits;
    totals_.deliveries += counts.deliveries;
    totals_.keys += counts.keys;
    runner.reset();
    if (moment == Moment::kClose) fs_->PowerOffAfter(random() % 120);  // the close flushes
  }

  const SuiteOptions& options_;
  Totals& totals_;
  const std::vector<std::string> master_keys_;
  testutil::TempDir tmp_;
  const std::string path_ = tmp_.Sub("data");
  const std::string read_url_ = "sqlite:" + tmp_.Sub("read.db");
  std::shared_ptr<PowerCutFileSystem> fs_ = std::make_shared<PowerCutFileSystem>();
  std::unique_ptr<rocksdb::Env> env_ = rocksdb::NewCompositeEnv(fs_);
  CutLedger ledger_;
  std::string last_cut_ = "no cut";
};

// ---- format upgrades ----------------------------------------------------

// tests/fixtures/vN-store.tar.gz: the folder `vN-store` written by the last
// release of format N, and `vN-store.jsonl`, that release's export of it.
std::string ExtractFixture(const testutil::TempDir& tmp, int format) {
  const std::string name = fmt::format("v{}-store", format);
  const std::string command =
      fmt::format("tar -C '{}' -xzf '{}/{}.tar.gz'", tmp.path().string(), FIXTURE_DIR, name);
  if (std::system(command.c_str()) != 0) {
    std::fprintf(stderr, "cannot extract the fixture: %s\n", command.c_str());
    std::exit(2);
  }
  return tmp.Sub(name);
}

// The changes an uncut upgrade of that fixture makes: where a cut can land.
std::uint64_t UpgradeChanges(int format) {
  testutil::TempDir tmp;
  const std::string dir = ExtractFixture(tmp, format);
  auto fs = std::make_shared<PowerCutFileSystem>();
  auto env = rocksdb::NewCompositeEnv(fs);
  auto store = storage::OpenEmbeddedStoreOnEnv(dir, {}, env.get());
  if (!store.ok()) {
    std::fprintf(stderr, "cannot upgrade the format %d fixture: %s\n", format,
                 store.status().ToString().c_str());
    std::exit(2);
  }
  return fs->stats().changes;
}

// The upgrade cut at a random change of it, the folder opened again: it
// finishes the upgrade and reads as the release exported it.
void UpgradeCut(int format, std::uint64_t changes, CutMode mode, std::uint64_t seed,
                Totals& totals) {
  auto finding = [&](const std::string& what) {
    totals.findings.push_back(
        fmt::format("upgrade of format {} cut seed {}: {}", format, seed, what));
  };
  testutil::TempDir tmp;
  const std::string dir = ExtractFixture(tmp, format);
  auto fs = std::make_shared<PowerCutFileSystem>();
  auto env = rocksdb::NewCompositeEnv(fs);
  fs->PowerOffAfter(std::mt19937_64(seed)() % (changes + 1));
  {
    auto store = storage::OpenEmbeddedStoreOnEnv(dir, {}, env.get());
    if (!store.ok() && fs->active())
      finding("failed with the power on: " + store.status().ToString());
  }
  fs->SetActive(false);
  if (rocksdb::Status s = fs->Cut(seed, mode); !s.ok()) finding("the cut: " + s.ToString());
  fs->SetActive(true);
  Add(totals.layer, fs->stats());
  auto store = storage::OpenEmbeddedStoreOnEnv(dir, {}, env.get());
  if (!store.ok()) return finding("the open after the cut: " + store.status().ToString());
  ++totals.checks.upgrades;
  ++totals.checks.store_checks;
  if (Status s = (*store)->Check(); !s.ok()) finding("check: " + s.ToString());
  std::vector<ExportedEvent> exported;
  std::ifstream in(dir + ".jsonl");
  for (std::string line; std::getline(in, line);) {
    auto event = ExportedEventFromJson(line);
    if (!event.ok()) return finding("the fixture's export: " + event.status().ToString());
    exported.push_back(std::move(*event));
  }
  auto all = ReadAllEvents(**store);
  if (!all.ok()) return finding("reading $all: " + all.status().ToString());
  if (all->size() != exported.size())
    return finding(fmt::format("{} events, the release exported {}", all->size(), exported.size()));
  for (std::size_t i = 0; i < exported.size(); ++i) {
    const RecordedEvent& e = (*all)[i];
    const ExportedEvent& x = exported[i];
    if (e.id != x.event.id || e.stream != x.stream || e.version != x.version ||
        e.position != x.position || e.data != x.event.data)
      return finding(fmt::format("event {} reads as {}@{}, the release exported {}@{}", i, e.stream,
                                 e.version.value(), x.stream, x.version.value()));
    totals.checks.acked_events++;
  }
}

// ---- the run ------------------------------------------------------------

class Progress {
 public:
  explicit Progress(std::uint64_t total) : total_(total), tty_(isatty(STDERR_FILENO) != 0) {}
  void Show(const Totals& totals) {
    const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    if (tty_) {
      std::fprintf(stderr, "\rcut %llu/%llu  %.0f s  findings %zu   ",
                   static_cast<unsigned long long>(totals.cuts),
                   static_cast<unsigned long long>(total_), seconds, totals.findings.size());
      if (totals.cuts == total_) std::fprintf(stderr, "\n");
    } else if (totals.cuts % 100 == 0 || totals.cuts == total_) {
      std::fprintf(stderr, "cut %llu/%llu  %.0f s  findings %zu\n",
                   static_cast<unsigned long long>(totals.cuts),
                   static_cast<unsigned long long>(total_), seconds, totals.findings.size());
    }
  }
  double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

 private:
  const std::uint64_t total_;
  const bool tty_;
  const Clock::time_point start_ = Clock::now();
};

void Report(const SuiteOptions& options, const Totals& t, double seconds) {
  auto n = [](std::uint64_t v) { return static_cast<unsigned long long>(v); };
  std::printf(
      "indelible-power-cuts: %llu cuts in %.0f s (seed %llu; %llu folders of up to %llu cuts)\n",
      n(t.cuts), seconds, n(options.seed), n(t.folders), n(options.rounds));
  std::printf("  moments: writes %llu, counted changes %llu, open %llu, close %llu, upgrade %llu\n",
              n(t.by_moment[0]), n(t.by_moment[1]), n(t.by_moment[2]), n(t.by_moment[3]),
              n(t.by_moment[4]));
  std::printf(
      "  modes: drop %llu, tear %llu (SQLite's files: drop, tear, corrupt, reordered in "
      "turn); opens cut short %llu\n",
      n(t.by_mode[0]), n(t.by_mode[1]), n(t.failed_opens));
  std::printf("  acknowledged: %llu commits, %llu events; %llu acknowledged events looked up\n",
              n(t.commits_acked), n(t.events_acked), n(t.checks.acked_events));
  std::printf("  commits found whole: %llu; retries answered: %llu; check runs: %llu\n",
              n(t.checks.commits), n(t.checks.retries), n(t.checks.store_checks));
  std::printf("  consumer group: %llu deliveries, %llu resumes checked, %llu deliveries found\n",
              n(t.deliveries), n(t.checks.group_resumes), n(t.checks.delivered_checked));
  std::printf(
      "  key store: %llu keys made or shredded, %llu checked; projections compared: %llu; "
      "upgrades: %llu\n",
      n(t.keys), n(t.checks.keys_checked), n(t.checks.projections), n(t.checks.upgrades));
  std::printf(
      "  the layer: %llu changes, %llu syncs, %llu files cut, %llu bytes dropped, %llu "
      "damaged, %llu directory changes undone\n",
      n(t.layer.changes), n(t.layer.syncs), n(t.layer.files_cut), n(t.layer.bytes_dropped),
      n(t.layer.bytes_damaged), n(t.layer.entries_undone));
  const PowerCutVfsStats& sqlite = t.sqlite;
  std::printf(
      "  SQLite: %llu syncs, %llu files cut, %llu writes and %llu bytes undone, %llu "
      "names and %llu deletions undone\n",
      n(sqlite.syncs), n(sqlite.files_cut), n(sqlite.writes_undone), n(sqlite.bytes_undone),
      n(sqlite.names_undone), n(sqlite.deletes_undone));
  std::printf("  findings: %zu\n", t.findings.size());
  for (std::size_t i = 0; i < t.findings.size() && i < 40; ++i)
    std::printf("    %s\n", t.findings[i].c_str());
}

int Run(const SuiteOptions& options) {
  Vfs();
  std::vector<std::string> master_keys{std::string(32, '\0')};
  std::mt19937_64 plan(options.seed);
  for (char& c : master_keys[0]) c = static_cast<char>(plan());
  const std::uint64_t upgrade_changes[] = {UpgradeChanges(1), UpgradeChanges(2)};

  Totals totals;
  Progress progress(options.cuts);
  while (totals.cuts < options.cuts) {
    Folder folder(options, totals, master_keys);
    std::uint64_t seed = 0;
    for (std::uint64_t r = 0; r < options.rounds && totals.cuts < options.cuts; ++r) {
      seed = options.seed * 1000000 + totals.cuts;
      // RocksDB's files are cut as a file system with ordered data (ext4's
      // default, XFS) leaves them: each a prefix of its unsynced appends,
      // dropped or torn at any byte. Not with holes (kCorruptTail): RocksDB's
      // manifest refuses to open with a zeroed span in its unsynced tail
      // (docs/RELIABILITY.md, "What is not covered").
      const auto mode = static_cast<CutMode>(plan() % 2);
      Moment moment;
      if (options.upgrade_every > 0 && (totals.cuts + 1) % options.upgrade_every == 0) {
        const int format = 1 + static_cast<int>(plan() % 2);
        UpgradeCut(format, upgrade_changes[format - 1], mode, seed, totals);
        moment = Moment::kUpgrade;
      } else {
        const std::uint64_t pick = plan() % 10;
        moment = pick < 4   ? Moment::kWrites
                 : pick < 6 ? Moment::kCounted
                 : pick < 8 ? Moment::kOpen
                            : Moment::kClose;
        moment = folder.Cut(moment, mode, seed);
      }
      ++totals.cuts;
      ++totals.by_moment[static_cast<int>(moment)];
      ++totals.by_mode[static_cast<int>(mode)];
      progress.Show(totals);
    }
    folder.Finish(seed);
  }
  Report(options, totals, progress.seconds());
  return totals.findings.empty() ? 0 : 1;
}

}  // namespace
}  // namespace indelible::power_loss

int main(int argc, char** argv) {
  indelible::power_loss::SuiteOptions options;
  CLI::App app{
      "Simulated power cuts under concurrent writers against the embedded store (issue 38)",
      "indelible-power-cuts"};
  app.add_option("--cuts", options.cuts, "power cuts to make")->check(CLI::PositiveNumber);
  app.add_option("--seed", options.seed, "decides the moments, modes and cut seeds");
  app.add_option("--rounds", options.rounds, "cuts per data folder")->check(CLI::PositiveNumber);
  app.add_option("--upgrade-every", options.upgrade_every,
                 "every N-th cut is a format upgrade's (0: none)");
  app.add_flag("!--no-projection", options.projection, "leave the SQLite projection out");
  CLI11_PARSE(app, argc, argv);
  return indelible::power_loss::Run(options);
}

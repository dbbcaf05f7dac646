// fsync: the disk's own fdatasync rate in the data folder, the yardstick of
// every sync-bound figure, measured two ways with 256-byte records and an
// fdatasync after each:
//   syncs_per_s          into a file preallocated (fallocate) to its final
//                        size: no sync has to persist a size change. The
//                        disk's best case, and the figure targets are set
//                        against.
//   growing_syncs_per_s  appended to a file that grows with each record, as
//                        RocksDB's write-ahead log does (it preallocates with
//                        FALLOC_FL_KEEP_SIZE, so the size still changes on
//                        every write): each sync also writes the inode.
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "bench/scenarios.h"

namespace indelible::bench {
namespace {

constexpr std::size_t kRecordBytes = 256;
// Room for 200,000 syncs a second; the loop stops early when the file is full.
constexpr std::size_t kMaxRecordsPerSecond = 200000;

Status Errno(std::string_view what, const std::string& path) {
  return Status::Unavailable(fmt::format("{} '{}': {}", what, path, std::strerror(errno)));
}

struct SyncRun {
  std::size_t syncs = 0;
  double seconds = 0;
  std::vector<double> latencies_us;
};

Status MeasureSyncs(const std::string& path, bool preallocate, double seconds, SyncRun& run) {
  const auto records =
      static_cast<std::size_t>(seconds * static_cast<double>(kMaxRecordsPerSecond)) + 1;
  const int fd = open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("cannot create", path);
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  if (preallocate && fallocate(fd, 0, 0, static_cast<off_t>(records * kRecordBytes)) != 0)
    return Errno("cannot preallocate", path);
  if (fsync(fd) != 0) return Errno("cannot sync", path);

  char record[kRecordBytes];
  std::memset(record, 'r', sizeof(record));
  run.latencies_us.reserve(1 << 16);
  Stopwatch watch;
  while (run.syncs < records && watch.Seconds() < seconds) {
    const auto start = std::chrono::steady_clock::now();
    if (pwrite(fd, record, sizeof(record), static_cast<off_t>(run.syncs * kRecordBytes)) !=
        static_cast<ssize_t>(sizeof(record)))
      return Errno("cannot write", path);
    if (fdatasync(fd) != 0) return Errno("cannot fdatasync", path);
    run.latencies_us.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
            .count());
    ++run.syncs;
  }
  run.seconds = watch.Seconds();
  return Status::Ok();
}

}  // namespace

Status RunFsync(Context& context) {
  ScratchFolder folder(context, "fsync");
  if (!folder.error().empty()) return Status::Unavailable(folder.error());
  const std::string path = (std::filesystem::path(folder.path()) / "fsync.dat").string();
  const double seconds = context.options().fsync_seconds;

  SyncRun preallocated, growing;
  if (Status s = MeasureSyncs(path, true, seconds, preallocated); !s.ok()) return s;
  if (Status s = MeasureSyncs(path, false, seconds, growing); !s.ok()) return s;
  const double per_s = static_cast<double>(preallocated.syncs) / preallocated.seconds;
  const double growing_per_s = static_cast<double>(growing.syncs) / growing.seconds;
  context.set_fsync_per_s(per_s);
  context.set_growing_fsync_per_s(growing_per_s);

  Conditions conditions;
  conditions.events = preallocated.syncs;
  conditions.event_bytes = kRecordBytes;
  conditions.streams = 0;
  Line extra;
  extra.Add("seconds", preallocated.seconds, 3)
      .Add("p50_us", Quantile(preallocated.latencies_us, 0.5), 0)
      .Add("p99_us", Quantile(preallocated.latencies_us, 0.99), 0);
  context.AddFigure("fsync", "syncs_per_s", per_s, 0, conditions, Target::None(), false, extra);

  conditions.events = growing.syncs;
  Line growing_extra;
  growing_extra.Add("seconds", growing.seconds, 3)
      .Add("p50_us", Quantile(growing.latencies_us, 0.5), 0)
      .Add("p99_us", Quantile(growing.latencies_us, 0.99), 0);
  context.AddFigure("fsync", "growing_syncs_per_s", growing_per_s, 0, conditions, Target::None(),
                    false, growing_extra);
  return Status::Ok();
}

}  // namespace indelible::bench

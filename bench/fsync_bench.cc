// fsync: the disk's own fdatasync rate in the data folder, the yardstick of
// every sync-bound figure. Appends 256-byte records to a file preallocated
// (fallocate) to its final size, so no sync has to persist a size change,
// like RocksDB's preallocated write-ahead log; fdatasync after each record.
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

}  // namespace

Status RunFsync(Context& context) {
  ScratchFolder folder(context, "fsync");
  if (!folder.error().empty()) return Status::Unavailable(folder.error());
  const std::string path = (std::filesystem::path(folder.path()) / "fsync.dat").string();
  const double seconds = context.options().fsync_seconds;
  const auto records =
      static_cast<std::size_t>(seconds * static_cast<double>(kMaxRecordsPerSecond)) + 1;

  const int fd = open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("cannot create", path);
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  if (fallocate(fd, 0, 0, static_cast<off_t>(records * kRecordBytes)) != 0)
    return Errno("cannot preallocate", path);
  if (fsync(fd) != 0) return Errno("cannot sync", path);

  char record[kRecordBytes];
  std::memset(record, 'r', sizeof(record));
  std::vector<double> latencies_us;
  latencies_us.reserve(1 << 16);
  Stopwatch watch;
  std::size_t done = 0;
  while (done < records && watch.Seconds() < seconds) {
    const auto start = std::chrono::steady_clock::now();
    if (pwrite(fd, record, sizeof(record), static_cast<off_t>(done * kRecordBytes)) !=
        static_cast<ssize_t>(sizeof(record)))
      return Errno("cannot write", path);
    if (fdatasync(fd) != 0) return Errno("cannot fdatasync", path);
    latencies_us.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
            .count());
    ++done;
  }
  const double elapsed = watch.Seconds();
  const double per_s = static_cast<double>(done) / elapsed;
  context.set_fsync_per_s(per_s);

  Conditions conditions;
  conditions.events = done;
  conditions.event_bytes = kRecordBytes;
  conditions.streams = 0;
  Line extra;
  extra.Add("seconds", elapsed, 3)
      .Add("p50_us", Quantile(latencies_us, 0.5), 0)
      .Add("p99_us", Quantile(latencies_us, 0.99), 0);
  context.AddFigure("fsync", "syncs_per_s", per_s, 0, conditions, Target::None(), false, extra);
  return Status::Ok();
}

}  // namespace indelible::bench

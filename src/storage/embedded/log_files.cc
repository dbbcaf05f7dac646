#include "storage/embedded/log_files.h"

#include <rocksdb/file_system.h>

#include <algorithm>
#include <atomic>
#include <boost/crc.hpp>
#include <cctype>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/mutex.h"

namespace indelible::storage::embedded {
namespace {

// RocksDB's WAL format (its db/log_format.h, not installed): 32 KiB blocks
// of records, each a 7-byte header (masked CRC-32C of type and payload,
// 2-byte length, 1-byte type) and a payload that never crosses a block; a
// block's last 1-6 bytes, too few for a header, are zero padding. Type 0 is
// never written (zeros are preallocated space); types 5-8 are the
// recycled-file format, which we never enable (recycle_log_file_num = 0).
constexpr std::uint64_t kBlockSize = 32768;
constexpr std::uint64_t kHeaderSize = 7;

// "000123.log" in the folder (the info log is "LOG", other files differ).
bool IsLogFile(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (name.size() <= 4 || !name.ends_with(".log")) return false;
  return std::all_of(name.begin(), name.end() - 4,
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

std::uint32_t MaskedCrc(char type, std::string_view payload) {
  boost::crc_optimal<32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, true, true> crc;  // CRC-32C
  crc.process_byte(static_cast<unsigned char>(type));
  crc.process_bytes(payload.data(), payload.size());
  const std::uint32_t value = crc.checksum();
  return ((value >> 15) | (value << 17)) + 0xa282ead8u;  // RocksDB's crc32c::Mask
}

std::uint32_t Fixed32(const char* bytes) {
  std::uint32_t value = 0;
  for (int i = 3; i >= 0; --i) value = value << 8 | static_cast<unsigned char>(bytes[i]);
  return value;
}

// A WAL file read in order, up to the end of its last whole, checked record.
class WholeRecordsFile final : public rocksdb::FSSequentialFile {
 public:
  explicit WholeRecordsFile(std::unique_ptr<rocksdb::FSRandomAccessFile> file)
      : file_(std::move(file)) {}

  rocksdb::IOStatus Read(size_t n, const rocksdb::IOOptions& options, rocksdb::Slice* result,
                         char* scratch, rocksdb::IODebugContext* dbg) override {
    if (rocksdb::IOStatus s = CheckUpTo(offset_ + n, options, dbg); !s.ok()) return s;
    const std::uint64_t end = std::min<std::uint64_t>(offset_ + n, checked_);
    if (end <= offset_) {
      *result = rocksdb::Slice(scratch, 0);
      return rocksdb::IOStatus::OK();
    }
    rocksdb::IOStatus s = file_->Read(offset_, end - offset_, options, result, scratch, dbg);
    if (s.ok()) offset_ += result->size();
    return s;
  }

  rocksdb::IOStatus Skip(uint64_t n) override {
    offset_ += n;
    // Records are found from a block's start: check again from there.
    if (offset_ > checked_) checked_ = offset_ - offset_ % kBlockSize;
    return rocksdb::IOStatus::OK();
  }

 private:
  // Moves checked_ past every whole record that starts before `want`; a
  // block's padding counts once the next block starts with a record.
  rocksdb::IOStatus CheckUpTo(std::uint64_t want, const rocksdb::IOOptions& options,
                              rocksdb::IODebugContext* dbg) {
    while (checked_ < want) {
      const std::uint64_t left = kBlockSize - checked_ % kBlockSize;
      const std::uint64_t at = left < kHeaderSize ? checked_ + left : checked_;
      std::uint64_t end = 0;
      if (rocksdb::IOStatus s = RecordAt(at, options, dbg, &end); !s.ok() || end == 0) return s;
      checked_ = end;
    }
    return rocksdb::IOStatus::OK();
  }

  // The end of the record at `at` if it is whole and its checksum holds;
  // 0 if not (yet).
  rocksdb::IOStatus RecordAt(std::uint64_t at, const rocksdb::IOOptions& options,
                             rocksdb::IODebugContext* dbg, std::uint64_t* end) {
    *end = 0;
    char header[kHeaderSize];
    rocksdb::Slice got;
    rocksdb::IOStatus s = file_->Read(at, kHeaderSize, options, &got, header, dbg);
    if (!s.ok() || got.size() < kHeaderSize) return s;
    const std::uint64_t length = static_cast<unsigned char>(got[4]) |
                                 static_cast<std::uint64_t>(static_cast<unsigned char>(got[5]))
                                     << 8;
    const char type = got[6];
    if (type == 0 || kHeaderSize + length > kBlockSize - at % kBlockSize) return s;
    payload_.resize(length);
    rocksdb::Slice body;
    s = file_->Read(at + kHeaderSize, length, options, &body, payload_.data(), dbg);
    if (!s.ok() || body.size() < length) return s;
    if (MaskedCrc(type, std::string_view(body.data(), body.size())) != Fixed32(got.data()))
      return s;
    *end = at + kHeaderSize + length;
    return s;
  }

  std::unique_ptr<rocksdb::FSRandomAccessFile> file_;
  std::uint64_t offset_ = 0;  // the next byte Read hands out
  // Bytes before it are whole records (or padding); the next record to
  // check starts there.
  std::uint64_t checked_ = 0;
  std::string payload_;
};

// A writer's WAL file that answers a failed write at its next sync, as the
// kernel answers a failed write-back at fsync (LogWriteErrorsAtSync in
// log_files.h says why).
class SyncReportedLogFile final : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  using rocksdb::FSWritableFileOwnerWrapper::FSWritableFileOwnerWrapper;

  rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& options,
                           rocksdb::IODebugContext* dbg) override {
    return Failed() ? Ok() : Held(target()->Append(data, options, dbg));
  }
  rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& options,
                           const rocksdb::DataVerificationInfo& info,
                           rocksdb::IODebugContext* dbg) override {
    return Failed() ? Ok() : Held(target()->Append(data, options, info, dbg));
  }
  rocksdb::IOStatus PositionedAppend(const rocksdb::Slice& data, uint64_t offset,
                                     const rocksdb::IOOptions& options,
                                     rocksdb::IODebugContext* dbg) override {
    return Failed() ? Ok() : Held(target()->PositionedAppend(data, offset, options, dbg));
  }
  rocksdb::IOStatus PositionedAppend(const rocksdb::Slice& data, uint64_t offset,
                                     const rocksdb::IOOptions& options,
                                     const rocksdb::DataVerificationInfo& info,
                                     rocksdb::IODebugContext* dbg) override {
    return Failed() ? Ok() : Held(target()->PositionedAppend(data, offset, options, info, dbg));
  }
  rocksdb::IOStatus Flush(const rocksdb::IOOptions& options,
                          rocksdb::IODebugContext* dbg) override {
    return Failed() ? Ok() : Held(target()->Flush(options, dbg));
  }
  rocksdb::IOStatus Sync(const rocksdb::IOOptions& options, rocksdb::IODebugContext* dbg) override {
    return Failed() ? Failure() : target()->Sync(options, dbg);
  }
  rocksdb::IOStatus Fsync(const rocksdb::IOOptions& options,
                          rocksdb::IODebugContext* dbg) override {
    return Failed() ? Failure() : target()->Fsync(options, dbg);
  }
  rocksdb::IOStatus RangeSync(uint64_t offset, uint64_t nbytes, const rocksdb::IOOptions& options,
                              rocksdb::IODebugContext* dbg) override {
    return Failed() ? Failure() : target()->RangeSync(offset, nbytes, options, dbg);
  }
  rocksdb::IOStatus Close(const rocksdb::IOOptions& options,
                          rocksdb::IODebugContext* dbg) override {
    rocksdb::IOStatus closed = target()->Close(options, dbg);
    return Failed() ? Failure() : closed;
  }

 private:
  static rocksdb::IOStatus Ok() { return rocksdb::IOStatus::OK(); }
  bool Failed() const { return failed_.load(std::memory_order_acquire); }
  rocksdb::IOStatus Failure() const {
    MutexLock lock(&mu_);
    return failure_;
  }
  // Keeps the first failure for the next sync and answers ok; nothing is
  // written after it, so the log never holds a record past a hole.
  rocksdb::IOStatus Held(rocksdb::IOStatus s) {
    if (s.ok()) return s;
    MutexLock lock(&mu_);
    if (!failed_.load(std::memory_order_relaxed)) {
      failure_ = std::move(s);
      failed_.store(true, std::memory_order_release);
    }
    return Ok();
  }

  // RocksDB writes a log from its write thread and syncs it from another
  // (SyncWAL, concurrently: IsSyncThreadSafe). A sync that began before a
  // write failed covers only what was written before it, correctly; the
  // next one reports the failure.
  std::atomic<bool> failed_{false};
  mutable Mutex mu_;
  rocksdb::IOStatus failure_ GUARDED_BY(mu_);
};

class WriterFileSystem final : public rocksdb::FileSystemWrapper {
 public:
  using rocksdb::FileSystemWrapper::FileSystemWrapper;
  const char* Name() const override { return "IndelibleWriter"; }
  rocksdb::IOStatus NewWritableFile(const std::string& path, const rocksdb::FileOptions& options,
                                    std::unique_ptr<rocksdb::FSWritableFile>* file,
                                    rocksdb::IODebugContext* dbg) override {
    rocksdb::IOStatus s = target()->NewWritableFile(path, options, file, dbg);
    if (s.ok() && IsLogFile(path)) *file = std::make_unique<SyncReportedLogFile>(std::move(*file));
    return s;
  }
  rocksdb::IOStatus ReopenWritableFile(const std::string& path, const rocksdb::FileOptions& options,
                                       std::unique_ptr<rocksdb::FSWritableFile>* file,
                                       rocksdb::IODebugContext* dbg) override {
    rocksdb::IOStatus s = target()->ReopenWritableFile(path, options, file, dbg);
    if (s.ok() && IsLogFile(path)) *file = std::make_unique<SyncReportedLogFile>(std::move(*file));
    return s;
  }
  rocksdb::FileOptions OptimizeForLogWrite(const rocksdb::FileOptions& file_options,
                                           const rocksdb::DBOptions& db_options) const override {
    rocksdb::FileOptions sized = target()->OptimizeForLogWrite(file_options, db_options);
    sized.fallocate_with_keep_size = false;
    return sized;
  }
};

class FollowerFileSystem final : public rocksdb::FileSystemWrapper {
 public:
  using rocksdb::FileSystemWrapper::FileSystemWrapper;
  const char* Name() const override { return "IndelibleFollower"; }
  rocksdb::IOStatus NewSequentialFile(const std::string& path, const rocksdb::FileOptions& options,
                                      std::unique_ptr<rocksdb::FSSequentialFile>* file,
                                      rocksdb::IODebugContext* dbg) override {
    if (!IsLogFile(path)) return target()->NewSequentialFile(path, options, file, dbg);
    std::unique_ptr<rocksdb::FSRandomAccessFile> random;
    rocksdb::IOStatus s = target()->NewRandomAccessFile(path, options, &random, dbg);
    if (s.ok()) *file = std::make_unique<WholeRecordsFile>(std::move(random));
    return s;
  }
};

}  // namespace

namespace {
std::shared_ptr<rocksdb::FileSystem> FileSystemOf(rocksdb::Env* base) {
  return base != nullptr ? base->GetFileSystem() : rocksdb::FileSystem::Default();
}
}  // namespace

std::unique_ptr<rocksdb::Env> NewWriterEnv(rocksdb::Env* base) {
  return rocksdb::NewCompositeEnv(std::make_shared<WriterFileSystem>(FileSystemOf(base)));
}

std::unique_ptr<rocksdb::Env> NewFollowerEnv(rocksdb::Env* base) {
  return rocksdb::NewCompositeEnv(std::make_shared<FollowerFileSystem>(FileSystemOf(base)));
}

}  // namespace indelible::storage::embedded

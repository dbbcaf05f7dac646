// A RocksDB FileSystem that holds or fails the write-ahead log's syncs and
// writes on command: the fault hook of the embedded engine's tests (open the
// store with storage::OpenEmbeddedStoreOnEnv on rocksdb::NewCompositeEnv of
// a GatedFileSystem). Nothing like it exists in the production binary.
#pragma once

#include <rocksdb/env.h>
#include <rocksdb/file_system.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace indelible::testutil {

// Syncs of write-ahead log files (*.log) wait while the gate is closed, and
// fail while FailSyncs is set; writes to them fail while FailWrites is set.
// Everything else passes through.
class SyncGate {
 public:
  void Close() {
    std::lock_guard lock(mu_);
    open_ = false;
  }
  void Open() {
    {
      std::lock_guard lock(mu_);
      open_ = true;
    }
    cv_.notify_all();
  }
  void FailSyncs(bool fail) { fail_ = fail; }
  // Every sync that passes takes at least this long (a slow disk).
  void SlowSyncs(std::chrono::microseconds each) { slow_us_ = each.count(); }
  void FailWrites(bool fail) { fail_writes_ = fail; }
  rocksdb::IOStatus Write() {
    if (fail_writes_) return rocksdb::IOStatus::IOError("injected: the disk refused the write");
    return rocksdb::IOStatus::OK();
  }
  // Waits until at least `n` syncs are held at the closed gate.
  bool AwaitHeld(int n) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(10), [&] { return held_ >= n; });
  }
  rocksdb::IOStatus Pass() {
    std::unique_lock lock(mu_);
    ++held_;
    cv_.notify_all();
    cv_.wait(lock, [&] { return open_; });
    --held_;
    if (const std::int64_t us = slow_us_.load(); us > 0) {
      lock.unlock();
      std::this_thread::sleep_for(std::chrono::microseconds(us));
    }
    if (fail_) return rocksdb::IOStatus::IOError("injected: the disk refused the sync");
    return rocksdb::IOStatus::OK();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = true;
  int held_ = 0;
  std::atomic<bool> fail_{false};
  std::atomic<bool> fail_writes_{false};
  std::atomic<std::int64_t> slow_us_{0};
};

class GatedFile : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  GatedFile(std::unique_ptr<rocksdb::FSWritableFile> file, SyncGate& gate)
      : FSWritableFileOwnerWrapper(std::move(file)), gate_(gate) {}
  rocksdb::IOStatus Sync(const rocksdb::IOOptions& o, rocksdb::IODebugContext* d) override {
    if (auto s = gate_.Pass(); !s.ok()) return s;
    return FSWritableFileOwnerWrapper::Sync(o, d);
  }
  rocksdb::IOStatus Fsync(const rocksdb::IOOptions& o, rocksdb::IODebugContext* d) override {
    if (auto s = gate_.Pass(); !s.ok()) return s;
    return FSWritableFileOwnerWrapper::Fsync(o, d);
  }
  rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& o,
                           rocksdb::IODebugContext* d) override {
    if (auto s = gate_.Write(); !s.ok()) return s;
    return FSWritableFileOwnerWrapper::Append(data, o, d);
  }
  rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& o,
                           const rocksdb::DataVerificationInfo& info,
                           rocksdb::IODebugContext* d) override {
    if (auto s = gate_.Write(); !s.ok()) return s;
    return FSWritableFileOwnerWrapper::Append(data, o, info, d);
  }

 private:
  SyncGate& gate_;
};

class GatedFileSystem : public rocksdb::FileSystemWrapper {
 public:
  GatedFileSystem(SyncGate& gate)
      : FileSystemWrapper(rocksdb::FileSystem::Default()), gate_(gate) {}
  const char* Name() const override { return "GatedFileSystem"; }
  rocksdb::IOStatus NewWritableFile(const std::string& name, const rocksdb::FileOptions& options,
                                    std::unique_ptr<rocksdb::FSWritableFile>* result,
                                    rocksdb::IODebugContext* dbg) override {
    auto s = FileSystemWrapper::NewWritableFile(name, options, result, dbg);
    if (s.ok() && name.ends_with(".log"))
      *result = std::make_unique<GatedFile>(std::move(*result), gate_);
    return s;
  }

 private:
  SyncGate& gate_;
};

}  // namespace indelible::testutil

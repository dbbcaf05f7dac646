#pragma once

#include <rocksdb/env.h>

#include <memory>

namespace indelible::storage::embedded {

// The Envs a data folder is opened with, for the sake of RocksDB's
// write-ahead log (WAL) files: each wraps the file system of `base`
// (RocksDB's default when null; tests pass one that holds or fails syncs),
// which must outlive it. The Env must outlive the DB opened with it.
//
// A writer's WAL files are preallocated with their size set (fallocate
// without FALLOC_FL_KEEP_SIZE; RocksDB's own option, which its POSIX file
// system leaves off by a TODO). An append then no longer changes the
// file's size, so the fdatasync that acknowledges it writes the data alone,
// not the inode too: on ext4 one writer's appends went from 0.65 to 0.9 of
// the disk's fdatasync rate (docs/BENCHMARKS.md, "The log's inode").
// The bytes past the last record read as zeros; RocksDB's recovery skips
// them (as it does for its own preallocated files) and a clean close
// truncates the file to its records.
//
// A failed write of a WAL file answers ok and fails the file's next sync
// (and every later one; nothing more is written to it), as the kernel
// answers a failed write-back at fsync. Debian's RocksDB keeps its
// assertions, and its log writer asserts, aborting the process, when it is
// written or synced after a failed write (WritableFileWriter::
// AssertFalseAndGetStatusForPrevError; only a failed sync is expected
// there). The store stops writing after a failed write, but its syncs run
// beside the next group's write, and the id indexer writes through the same
// log: a disk error aborted the server (found by the power-cut suite,
// docs/RELIABILITY.md). Reported at the sync, the failure reaches every
// commit that waited for it, and the store stops writing (StopWriting). In
// interval mode a commit acknowledged before the sync that reports it may
// be lost, as a power loss may lose it there.
std::unique_ptr<rocksdb::Env> NewWriterEnv(rocksdb::Env* base);

// A follower tails the writer's newest WAL while it grows. Past the last
// record that file now holds zeros, not an end, and RocksDB's tailing
// reader skips the rest of a block on a zero header: records written there
// later would never reach the follower. Through this Env a WAL file reads
// only up to the end of its last whole record whose checksum holds, which
// looks to the reader like the end of a growing file; what follows shows
// once it is written. A torn or corrupt record also reads as that end.
std::unique_ptr<rocksdb::Env> NewFollowerEnv(rocksdb::Env* base);

}  // namespace indelible::storage::embedded

// SubjectKeys: the subjects' keys of crypto-shredding, kept in the
// store's records (Store::SaveRecord) wrapped by a master key
// (docs/FORMAT.md "Subject keys"):
//
//   subject-key/<subject>/<key id, 32 hex>  one per key, never rewritten
//                                           but by a master key rotation
//   subject-key/<subject>                   the key new events are sealed
//                                           with: the same value plus its id
//
// Values are "v1 <key id hex> <master fingerprint> <base64 box>", the box
// being the key sealed by that master key (aead.h) with the record's
// subject and key id as additional data. Two processes making a subject's
// first key at once each keep theirs under its own id: the pointer ends on
// one, and events sealed with either stay readable. Keys are cached; on a
// store other processes share, entries older than the refresh are loaded
// again, so a shred elsewhere takes effect here within it.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/mutex.h"
#include "indelible/store.h"

namespace indelible::shredding {

class SubjectKeys {
 public:
  struct Key {
    std::string id;   // kKeyIdBytes raw bytes
    std::string key;  // kKeyBytes raw bytes
  };

  // `records`: the backend, which must outlive this.
  SubjectKeys(Store& records, std::vector<std::string> master_keys, bool shared,
              std::chrono::milliseconds refresh);

  // The key to seal the subject's new events with, made on first use.
  Result<Key> ForSealing(std::string_view subject);
  // The subject's key of that id; nullopt once shredded (or never made).
  Result<std::optional<std::string>> Find(std::string_view subject, std::string_view key_id);
  // Deletes every key of the subject; returns how many there were.
  Result<std::uint64_t> Shred(std::string_view subject);
  // Wraps every key not under the first master key with it.
  Result<std::uint64_t> Rewrap(const ProgressFn& progress);

 private:
  struct Cached {
    std::string subject;
    std::optional<Key> key;      // nullopt: no such key (shredded)
    std::int64_t loaded_at = 0;  // steady_clock ticks
  };
  bool Fresh(const Cached& cached, std::int64_t now) const;
  // Parses and unwraps a record's value.
  Result<Key> Unwrap(std::string_view subject, std::string_view value) const;
  std::string Wrap(std::string_view subject, const Key& key) const;
  // Caches `key` under `id` (and as the subject's key to seal with when
  // `sealing`), unless a shred came in since `generation`.
  void Remember(std::string_view subject, std::string id, std::optional<Key> key, bool sealing,
                std::int64_t now, std::uint64_t generation);
  Mutex& MakingLock(std::string_view subject);

  Store& records_;
  const std::vector<std::string> master_keys_;
  std::vector<std::string> fingerprints_;
  const bool shared_;
  const std::int64_t refresh_ticks_;

  Mutex mu_;
  // By the key's raw id (random: unique across subjects), the lookup of
  // every sealed event read; and by subject, the key new events get.
  struct Hash {
    using is_transparent = void;  // found by string_view: no copy per read
    std::size_t operator()(std::string_view text) const {
      return std::hash<std::string_view>()(text);
    }
  };
  using Cache = std::unordered_map<std::string, Cached, Hash, std::equal_to<>>;
  Cache by_id_ GUARDED_BY(mu_);
  Cache sealing_ GUARDED_BY(mu_);
  // Bumped by every shred: a load that started before one does not cache.
  std::uint64_t generation_ GUARDED_BY(mu_) = 0;
  // Serialize making a subject's key (so one process makes one), striped
  // by subject so that new subjects' keys are written in parallel.
  std::array<Mutex, 64> making_;
};

// Checks a subject: 1 to kMaxSubjectBytes bytes (the tag already limits
// its characters).
Status ValidateSubject(std::string_view subject);

}  // namespace indelible::shredding

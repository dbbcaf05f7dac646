#include "shredding/subject_keys.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/event_json.h"
#include "core/random_bytes.h"
#include "core/text.h"
#include "shredding/aead.h"
#include "shredding/sealed_event.h"

namespace indelible::shredding {

namespace {

// A cache that grew past this is dropped whole and refilled as reads need
// it: it holds one key per subject read, and subjects may be millions.
constexpr std::size_t kMaxCached = 100'000;

constexpr std::string_view kRecordPrefix = "subject-key/";

std::int64_t Now() { return std::chrono::steady_clock::now().time_since_epoch().count(); }

std::string PointerName(std::string_view subject) {
  return fmt::format("{}{}", kRecordPrefix, subject);
}

std::string KeyName(std::string_view subject, std::string_view key_id) {
  return fmt::format("{}{}/{}", kRecordPrefix, subject, HexEncode(key_id));
}

std::string WrapAad(std::string_view subject, std::string_view key_id) {
  return fmt::format("indelible subject key\n{}\n{}", subject, HexEncode(key_id));
}

// The subject of a record name listed under `subject-key/`, and whether it
// names a key of an id (not the pointer). nullopt for other names.
struct ParsedName {
  std::string subject;
  bool keyed = false;
};
ParsedName ParseName(std::string_view name) {
  std::string_view rest = name.substr(kRecordPrefix.size());
  const std::size_t hex = kKeyIdBytes * 2;
  if (rest.size() > hex + 1 && rest[rest.size() - hex - 1] == '/' &&
      HexDecode(rest.substr(rest.size() - hex)).has_value())
    return {std::string(rest.substr(0, rest.size() - hex - 1)), true};
  return {std::string(rest), false};
}

}  // namespace

Status ValidateSubject(std::string_view subject) {
  if (subject.empty() || subject.size() > kMaxSubjectBytes)
    return Status::Invalid("subject", fmt::format("a subject is 1 to {} bytes, not {}",
                                                  kMaxSubjectBytes, subject.size()));
  return Status::Ok();
}

SubjectKeys::SubjectKeys(Store& records, std::vector<std::string> master_keys, bool shared,
                         std::chrono::milliseconds refresh)
    : records_(records),
      master_keys_(std::move(master_keys)),
      shared_(shared),
      refresh_ticks_(
          std::chrono::duration_cast<std::chrono::steady_clock::duration>(refresh).count()) {
  for (const std::string& key : master_keys_) fingerprints_.push_back(KeyFingerprint(key));
}

bool SubjectKeys::Fresh(const Cached& cached, std::int64_t now) const {
  return !shared_ || now - cached.loaded_at < refresh_ticks_;
}

Result<SubjectKeys::Key> SubjectKeys::Unwrap(std::string_view subject,
                                             std::string_view value) const {
  // "v1 <id hex> <fingerprint> <base64 box>"
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const std::size_t space = value.find(' ', start);
    parts.push_back(value.substr(start, space - start));
    if (space == std::string_view::npos) break;
    start = space + 1;
  }
  auto corrupt = [&] {
    return Status::Internal(fmt::format(
        "the key record of subject '{}' is not a wrapped key (run `indelible check`)", subject));
  };
  if (parts.size() != 4 || parts[0] != "v1") return corrupt();
  auto id = HexDecode(parts[1]);
  auto box = Base64Decode(parts[3]);
  if (!id || id->size() != kKeyIdBytes || !box) return corrupt();
  const auto master = std::find(fingerprints_.begin(), fingerprints_.end(), parts[2]);
  if (master == fingerprints_.end())
    return Status::NotFound(fmt::format(
        "subject '{}' has a key wrapped by master key {}, which this store was not given: add "
        "it after the current one (--master-key-file or INDELIBLE_MASTER_KEY)",
        subject, parts[2]));
  auto key = OpenBox(master_keys_[master - fingerprints_.begin()], WrapAad(subject, *id), *box);
  if (!key || key->size() != kKeyBytes) return corrupt();
  return Key{std::move(*id), std::move(*key)};
}

std::string SubjectKeys::Wrap(std::string_view subject, const Key& key) const {
  std::string box;
  SealBox(master_keys_.front(), WrapAad(subject, key.id), key.key, &box);
  return fmt::format("v1 {} {} {}", HexEncode(key.id), fingerprints_.front(), Base64Encode(box));
}

void SubjectKeys::Remember(std::string_view subject, std::string id, std::optional<Key> key,
                           bool sealing, std::int64_t now, std::uint64_t generation) {
  MutexLock lock(&mu_);
  if (generation != generation_) return;  // a shred came in between
  if (by_id_.size() >= kMaxCached) by_id_.clear();
  if (sealing_.size() >= kMaxCached) sealing_.clear();
  if (sealing) sealing_[std::string(subject)] = Cached{std::string(subject), key, now};
  by_id_[std::move(id)] = Cached{std::string(subject), std::move(key), now};
}

Mutex& SubjectKeys::MakingLock(std::string_view subject) {
  return making_[std::hash<std::string_view>()(subject) % making_.size()];
}

Result<SubjectKeys::Key> SubjectKeys::ForSealing(std::string_view subject) {
  if (Status s = ValidateSubject(subject); !s.ok()) return s;
  const std::int64_t now = Now();
  std::uint64_t generation;
  {
    MutexLock lock(&mu_);
    auto it = sealing_.find(subject);
    if (it != sealing_.end() && it->second.key && Fresh(it->second, now)) return *it->second.key;
    generation = generation_;
  }
  MutexLock making(&MakingLock(subject));
  const std::string pointer = PointerName(subject);
  auto stored = records_.LoadRecord(pointer);
  if (!stored.ok()) return stored.status();
  Key key;
  if (stored->has_value()) {
    auto unwrapped = Unwrap(subject, **stored);
    if (!unwrapped.ok()) return unwrapped.status();
    key = std::move(*unwrapped);
  } else {
    key.id.resize(kKeyIdBytes);
    key.key.resize(kKeyBytes);
    RandomBytes(reinterpret_cast<std::uint8_t*>(key.id.data()), kKeyIdBytes);
    RandomBytes(reinterpret_cast<std::uint8_t*>(key.key.data()), kKeyBytes);
    const std::string value = Wrap(subject, key);
    // The key of its id first: once the pointer names it, it exists.
    if (Status s = records_.SaveRecord(KeyName(subject, key.id), value); !s.ok()) return s;
    if (Status s = records_.SaveRecord(pointer, value); !s.ok()) return s;
  }
  Remember(subject, key.id, key, /*sealing=*/true, now, generation);
  return key;
}

Result<std::optional<std::string>> SubjectKeys::Find(std::string_view subject,
                                                     std::string_view key_id) {
  const std::int64_t now = Now();
  std::uint64_t generation;
  {
    MutexLock lock(&mu_);
    auto it = by_id_.find(key_id);
    if (it != by_id_.end() && it->second.subject == subject && Fresh(it->second, now)) {
      if (!it->second.key) return std::optional<std::string>();
      return std::optional<std::string>(it->second.key->key);
    }
    generation = generation_;
  }
  auto stored = records_.LoadRecord(KeyName(subject, key_id));
  if (!stored.ok()) return stored.status();
  if (!stored->has_value()) {
    Remember(subject, std::string(key_id), std::nullopt, false, now, generation);
    return std::optional<std::string>();
  }
  auto key = Unwrap(subject, **stored);
  if (!key.ok()) return key.status();
  if (key->id != key_id) return Status::Internal("a subject key record names another key's id");
  std::string raw = key->key;
  Remember(subject, std::string(key_id), std::move(*key), false, now, generation);
  return std::optional<std::string>(std::move(raw));
}

Result<std::uint64_t> SubjectKeys::Shred(std::string_view subject) {
  if (Status s = ValidateSubject(subject); !s.ok()) return s;
  const std::string pointer = PointerName(subject);
  MutexLock making(&MakingLock(subject));
  auto listed = records_.ListRecords(pointer + "/");
  if (!listed.ok()) return listed.status();
  std::vector<std::string> names;
  for (const auto& [name, value] : *listed) {
    ParsedName parsed = ParseName(name);
    if (parsed.keyed && parsed.subject == subject) names.push_back(name);
  }
  // The pointer first (a no-op when there is none): from then on no event
  // of this process is sealed with a key about to go.
  if (Status s = records_.DeleteRecord(pointer); !s.ok()) return s;
  for (const std::string& name : names)
    if (Status s = records_.DeleteRecord(name); !s.ok()) return s;
  MutexLock lock(&mu_);
  ++generation_;
  if (auto it = sealing_.find(subject); it != sealing_.end()) sealing_.erase(it);
  // Every key of the subject this process had cached, listed or not (one
  // made elsewhere after the listing is looked up again).
  std::erase_if(by_id_, [&](const auto& entry) { return entry.second.subject == subject; });
  return static_cast<std::uint64_t>(names.size());
}

Result<std::uint64_t> SubjectKeys::Rewrap(const ProgressFn& progress) {
  auto listed = records_.ListRecords(kRecordPrefix);
  if (!listed.ok()) return listed.status();
  std::uint64_t rewrapped = 0, done = 0;
  for (const auto& [name, value] : *listed) {
    ParsedName parsed = ParseName(name);
    if (progress) progress(++done, listed->size());
    // Names of other shapes (a subject with a slash and 32 hex digits
    // after it parses as keyed: its subject checks the AAD below).
    const std::size_t first = value.find(' ');
    const std::size_t second = value.find(' ', first + 1);
    const std::size_t third = value.find(' ', second + 1);
    if (first == std::string::npos || second == std::string::npos || third == std::string::npos)
      return Status::Internal(fmt::format("record '{}' is not a wrapped key", name));
    if (std::string_view(value).substr(second + 1, third - second - 1) == fingerprints_.front())
      continue;
    auto key = Unwrap(parsed.subject, value);
    if (!key.ok()) return key.status();
    if (Status s = records_.SaveRecord(name, Wrap(parsed.subject, *key)); !s.ok()) return s;
    ++rewrapped;
  }
  MutexLock lock(&mu_);
  by_id_.clear();
  sealing_.clear();
  return rewrapped;
}

}  // namespace indelible::shredding

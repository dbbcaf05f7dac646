// What the crypto-shredding marker tests share (docs/RETENTION.md; the
// issue's acceptance test: a subject's marker is found nowhere after a
// shred): master keys, markers, the events of a subject and of bystanders,
// the subject's key records as stored, and a byte-for-byte search of a
// folder.
//
// Markers are capital letters only. Nothing else the tests store has four
// capitals in a row where a compressor could meet them (names, types, tags
// and JSON keys are lower case or mixed; ids and ciphertext are binary), so
// RocksDB's LZ4 (on the folder's lower levels) finds no earlier bytes to
// stand in for any part of a marker: where a marker's bytes are, they are
// in one piece, and a search for the whole string finds them.
#pragma once

#include <gtest/gtest.h>
#include <indelible/store.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "testutil/files_holding.h"

namespace indelible::shredding_test {

inline std::string RandomBytes(std::size_t n) {
  static thread_local std::random_device device;
  std::string out(n, '\0');
  for (char& c : out) c = static_cast<char>(device() & 0xff);
  return out;
}

inline std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (char c : bytes) {
    out.push_back(kDigits[static_cast<unsigned char>(c) >> 4]);
    out.push_back(kDigits[static_cast<unsigned char>(c) & 15]);
  }
  return out;
}

// A raw master key (StoreOptions::master_keys); Hex() of it is what
// INDELIBLE_MASTER_KEY takes.
inline std::string NewMasterKey() { return RandomBytes(32); }

// `prefix` (capitals) and 24 random capitals.
inline std::string Marker(std::string_view prefix) {
  std::string out(prefix);
  for (char c : RandomBytes(24))
    out.push_back(static_cast<char>('A' + static_cast<unsigned char>(c) % 26));
  return out;
}

// "user-" and 16 hex digits: unique per test, so no two tests' subjects meet.
inline std::string NewSubject() { return "user-" + Hex(RandomBytes(8)); }

inline std::string SubjectTag(std::string_view subject) {
  return std::string(kSubjectTagPrefix) + std::string(subject);
}

// The metadata field the stores of these tests seal with the data.
inline constexpr std::string_view kSealedField = "note";

inline StoreOptions KeyedOptions(const std::string& master_key) {
  StoreOptions options;
  options.master_keys = {master_key};
  options.sealed_metadata_fields = {std::string(kSealedField)};
  return options;
}

// The events of a test: the subject's, with its marker in their data and in
// the sealed metadata field; another subject's, with a marker of its own;
// and plain events that declare no subject, whose marker is stored in the
// clear: the control that shows a search can find what is there.
struct Cast {
  std::string subject = NewSubject();
  std::string other = NewSubject();
  std::string marker = Marker("SHRED");
  std::string other_marker = Marker("OTHER");
  std::string plain_marker = Marker("PLAIN");

  std::string Person() const { return "person-" + subject; }
  std::string Note() const { return "note-" + subject; }
  std::string OtherPerson() const { return "person-" + other; }
  static std::string Log() { return "log-1"; }

  // The subject's events: 3 JSON events and 1 of text/plain.
  static constexpr std::size_t kSubjectEvents = 4;
  static constexpr std::size_t kOtherEvents = 2;
  static constexpr std::size_t kPlainEvents = 2;
  static constexpr std::size_t kEvents = kSubjectEvents + kOtherEvents + kPlainEvents;

  bool OfSubject(std::string_view stream) const { return stream == Person() || stream == Note(); }

  static EventData Personal(const std::string& subject, const std::string& marker, int n) {
    EventData e;
    e.id = EventId::Random();
    e.type = n == 0 ? "Registered" : "EmailChanged";
    e.data = R"({"email":")" + marker + R"(@example.com","n":)" + std::to_string(n) + "}";
    e.metadata = R"({")" + std::string(kSealedField) + R"(":")" + marker + R"(","trace":"t-)" +
                 std::to_string(n) + R"("})";
    e.tags = {"kind:person", SubjectTag(subject)};
    return e;
  }

  // One commit of every event, in the order above.
  std::vector<AppendRequest> Appends() const {
    std::vector<AppendRequest> appends;
    appends.push_back(AppendRequest{Person(), Expected::no_stream(), {}});
    for (int n = 0; n < 3; ++n) appends.back().events.push_back(Personal(subject, marker, n));
    EventData text;
    text.id = EventId::Random();
    text.type = "Noted";
    text.content_type = "text/plain";
    text.data = "remember " + marker + " by its name";
    text.metadata = R"({")" + std::string(kSealedField) + R"(":")" + marker + R"("})";
    text.tags = {SubjectTag(subject)};
    appends.push_back(AppendRequest{Note(), Expected::no_stream(), {text}});
    appends.push_back(AppendRequest{OtherPerson(), Expected::no_stream(), {}});
    for (int n = 0; n < 2; ++n) appends.back().events.push_back(Personal(other, other_marker, n));
    appends.push_back(AppendRequest{Log(), Expected::no_stream(), {}});
    for (int n = 0; n < 2; ++n) {
      EventData line;
      line.id = EventId::Random();
      line.type = "Logged";
      line.data = R"({"line":")" + plain_marker + R"(","n":)" + std::to_string(n) + "}";
      line.tags = {"kind:log"};
      appends.back().events.push_back(line);
    }
    return appends;
  }
};

// How many events of each kind a read held; each was checked on the way.
struct Tally {
  std::size_t subject = 0;
  std::size_t other = 0;
  std::size_t plain = 0;
};

// The subject's event as it reads once shredded: the redacted data as JSON,
// the sealed field gone, the envelope and the other metadata kept.
inline ::testing::AssertionResult IsRedacted(const RecordedEvent& e, const Cast& cast) {
  auto fail = [&](std::string_view why) {
    return ::testing::AssertionFailure()
           << e.stream << "@" << e.version.value() << " " << why << ": content type "
           << e.content_type << ", data " << e.data << ", metadata " << e.metadata;
  };
  if (e.data != kRedactedData) return fail("is not redacted");
  if (e.content_type != kJsonContentType) return fail("is not JSON");
  if (e.metadata.find(kSealedField) != std::string::npos) return fail("kept its sealed field");
  if (e.metadata.find(cast.marker) != std::string::npos) return fail("kept the marker");
  if (e.stream == cast.Person() && e.metadata.find("\"trace\":\"t-") == std::string::npos)
    return fail("lost its unsealed metadata");
  if (e.tags.empty() || e.tags.back() != SubjectTag(cast.subject)) return fail("lost its tags");
  return ::testing::AssertionSuccess();
}

// The subject's (or the other subject's) event as written: the marker in
// its data and in the sealed metadata field.
inline ::testing::AssertionResult IsOpened(const RecordedEvent& e, const std::string& marker) {
  const bool text = e.stream.starts_with("note-");
  if (e.data.find(marker) == std::string::npos ||
      e.metadata.find(R"(")" + std::string(kSealedField) + R"(":")" + marker) ==
          std::string::npos ||
      e.content_type != (text ? std::string_view("text/plain") : kJsonContentType))
    return ::testing::AssertionFailure()
           << e.stream << "@" << e.version.value() << " does not read as written: content type "
           << e.content_type << ", data " << e.data << ", metadata " << e.metadata;
  return ::testing::AssertionSuccess();
}

// Checks each event of a read (store streams, '$', and fillers written to
// give a scavenge something to remove are skipped): the
// subject's redacted once `shredded` and as written before, the others as
// written. Returns how many of each it saw.
inline Tally CheckEvents(const std::vector<RecordedEvent>& events, const Cast& cast,
                         bool shredded) {
  Tally tally;
  for (const RecordedEvent& e : events) {
    if (e.stream.starts_with("$") || e.stream.starts_with("filler-")) continue;
    if (cast.OfSubject(e.stream)) {
      ++tally.subject;
      if (shredded)
        EXPECT_TRUE(IsRedacted(e, cast));
      else
        EXPECT_TRUE(IsOpened(e, cast.marker));
    } else if (e.stream == cast.OtherPerson()) {
      ++tally.other;
      EXPECT_TRUE(IsOpened(e, cast.other_marker));
    } else if (e.stream == Cast::Log()) {
      ++tally.plain;
      EXPECT_NE(e.data.find(cast.plain_marker), std::string::npos) << e.data;
    } else {
      ADD_FAILURE() << "an event of an unknown stream: " << e.stream;
    }
  }
  return tally;
}

// A subject key record as the store keeps it: "v1 <key id hex> <master
// fingerprint> <base64 wrapped key>".
struct KeyRecord {
  std::string name;
  std::string value;
  std::string wrapped;  // the fourth field: the wrapped key, base64
};

// The records of `subject`'s keys: its pointer and each key of an id.
inline std::vector<KeyRecord> KeyRecordsOf(Store& store, const std::string& subject) {
  std::vector<KeyRecord> out;
  auto listed = store.ListRecords("subject-key/");
  EXPECT_TRUE(listed.ok()) << listed.status().ToString();
  if (!listed.ok()) return out;
  const std::string pointer = "subject-key/" + subject;
  for (const auto& [name, value] : *listed) {
    if (name != pointer && !name.starts_with(pointer + "/")) continue;
    KeyRecord record{name, value, value.substr(value.rfind(' ') + 1)};
    EXPECT_TRUE(value.starts_with("v1 ")) << name << ": " << value;
    EXPECT_GE(record.wrapped.size(), 40u) << name << ": " << value;
    out.push_back(std::move(record));
  }
  return out;
}

using testutil::FilesHolding;

}  // namespace indelible::shredding_test

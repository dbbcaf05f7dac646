// Status: the outcome of an operation, in the one error vocabulary shared by
// the library, the HTTP API and the CLI (see docs/ERRORS.md).
//
// A Status is a value: copy it, return it, compare its code. It is not
// thread-safe to mutate from several threads, like any value type.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace indelible {

// The enumerators' names are part of the public API (HTTP `error` field, CLI
// exit codes); their numeric values are not persisted anywhere.
enum class ErrorCode : std::uint8_t {
  kOk = 0,
  // The stream (or other named thing) does not exist, or was deleted.
  kNotFound,
  // An expectation failed: the stream's actual version differs from the one
  // the caller expected, or an event id was already used by another append.
  kConflict,
  // Bad input: a field is malformed or out of range. Nothing was written.
  kInvalid,
  // A configured limit (event size, append size, event count) was exceeded.
  kTooLarge,
  // A rule refused the command (entities). Nothing was written.
  kRejected,
  // The caller is not allowed to do this.
  kUnauthorized,
  // Storage or a dependency is down or overloaded; safe to retry.
  kUnavailable,
  // A bug or corruption: an invariant did not hold. Not safe to retry blindly.
  kInternal,
};

// "ok", "not_found", "conflict", "invalid", "too_large", "rejected",
// "unauthorized", "unavailable", "internal".
std::string_view ErrorCodeName(ErrorCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // ok

  static Status Ok() { return Status(); }
  static Status NotFound(std::string message, bool deleted = false);
  // actual_version: the stream's last version, or nullopt when the stream
  // does not exist. deleted: the stream exists only as a tombstone.
  // stream: the stream whose expectation failed (a commit names several).
  static Status Conflict(std::string message, std::optional<std::int64_t> actual_version,
                         bool deleted = false, std::string stream = {});
  // A conflict about event ids, not versions: event_id was already written
  // by another append, or a commit mixes retried appends with new ones (its
  // first retried event). stream: the stream of the append in this request
  // the id belongs to. Either may be empty when unknown. No actual version.
  static Status EventIdConflict(std::string message, std::string event_id, std::string stream);
  // An AppendCondition failed (query.h): an event matching its query was
  // written at `position`, the first such position after the condition's.
  // No stream, no actual version.
  static Status ConditionConflict(std::string message, std::uint64_t position);
  // field: the name of the offending input ("stream", "events[3].id", ...).
  static Status Invalid(std::string field, std::string message);
  static Status TooLarge(std::string field, std::string message);
  static Status Rejected(std::string message);
  static Status Unauthorized(std::string message);
  static Status Unavailable(std::string message);
  static Status Internal(std::string message);

  bool ok() const { return code_ == ErrorCode::kOk; }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // The input the error is about; empty when it concerns no single field.
  const std::string& field() const { return field_; }
  // Conflicts only: the stream's actual last version (nullopt: no stream).
  std::optional<std::int64_t> actual_version() const { return actual_version_; }
  // NotFound and Conflict: the stream exists only as a tombstone.
  bool deleted() const { return deleted_; }
  // Conflicts: the stream whose expectation failed (for an event id
  // conflict: the stream of the append that sent the id), when known.
  const std::string& stream() const { return stream_; }
  // Conflicts only: the conflict is about event ids (EventIdConflict).
  bool event_id_conflict() const { return event_id_conflict_; }
  // EventIdConflict: the id at fault, when known.
  const std::string& event_id() const { return event_id_; }

  // Conflicts of a failed AppendCondition only: the position of the first
  // event that broke it.
  std::optional<std::uint64_t> condition_position() const { return condition_position_; }

  // "conflict: stream 'a' is at version 3, expected 2" style, for humans.
  std::string ToString() const;

 private:
  Status(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  ErrorCode code_ = ErrorCode::kOk;
  std::string message_;
  std::string field_;
  std::optional<std::int64_t> actual_version_;
  bool deleted_ = false;
  std::string stream_;
  bool event_id_conflict_ = false;
  std::string event_id_;
  std::optional<std::uint64_t> condition_position_;
};

}  // namespace indelible

#include "indelible/status.h"

#include <fmt/format.h>

namespace indelible {

std::string_view ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk:
      return "ok";
    case ErrorCode::kNotFound:
      return "not_found";
    case ErrorCode::kConflict:
      return "conflict";
    case ErrorCode::kInvalid:
      return "invalid";
    case ErrorCode::kTooLarge:
      return "too_large";
    case ErrorCode::kRejected:
      return "rejected";
    case ErrorCode::kUnauthorized:
      return "unauthorized";
    case ErrorCode::kUnavailable:
      return "unavailable";
    case ErrorCode::kInternal:
      return "internal";
  }
  return "internal";
}

Status Status::NotFound(std::string message, bool deleted) {
  Status s(ErrorCode::kNotFound, std::move(message));
  s.deleted_ = deleted;
  return s;
}

Status Status::Conflict(std::string message, std::optional<std::int64_t> actual_version,
                        bool deleted, std::string stream) {
  Status s(ErrorCode::kConflict, std::move(message));
  s.actual_version_ = actual_version;
  s.deleted_ = deleted;
  s.stream_ = std::move(stream);
  return s;
}

Status Status::EventIdConflict(std::string message, std::string event_id, std::string stream) {
  Status s(ErrorCode::kConflict, std::move(message));
  s.event_id_conflict_ = true;
  s.event_id_ = std::move(event_id);
  s.stream_ = std::move(stream);
  return s;
}

Status Status::ConditionConflict(std::string message, std::uint64_t position) {
  Status s(ErrorCode::kConflict, std::move(message));
  s.condition_position_ = position;
  return s;
}

Status Status::Invalid(std::string field, std::string message) {
  Status s(ErrorCode::kInvalid, std::move(message));
  s.field_ = std::move(field);
  return s;
}

Status Status::TooLarge(std::string field, std::string message) {
  Status s(ErrorCode::kTooLarge, std::move(message));
  s.field_ = std::move(field);
  return s;
}

Status Status::Rejected(std::string message) {
  return Status(ErrorCode::kRejected, std::move(message));
}
Status Status::Unauthorized(std::string message) {
  return Status(ErrorCode::kUnauthorized, std::move(message));
}
Status Status::Unavailable(std::string message) {
  return Status(ErrorCode::kUnavailable, std::move(message));
}
Status Status::Internal(std::string message) {
  return Status(ErrorCode::kInternal, std::move(message));
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  return fmt::format("{}: {}", ErrorCodeName(code_), message_);
}

}  // namespace indelible

#include "aws/errors.h"

#include <fmt/format.h>

#include <array>
#include <boost/json/string.hpp>

namespace indelible::aws {
namespace {

std::string StringMember(const boost::json::object& o, std::string_view name) {
  const auto* v = o.if_contains(name);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

bool OneOf(std::string_view type, std::initializer_list<std::string_view> types) {
  for (auto t : types)
    if (t == type) return true;
  return false;
}

}  // namespace

std::string ErrorType(const boost::json::object& error) {
  std::string type = StringMember(error, "__type");
  const auto hash = type.rfind('#');
  return hash == std::string::npos ? type : type.substr(hash + 1);
}

std::string ErrorMessage(const boost::json::object& error) {
  std::string message = StringMember(error, "message");
  return message.empty() ? StringMember(error, "Message") : message;
}

bool IsThrottle(std::string_view type) {
  // The AWS SDKs' list of throttling codes, less those of other services.
  return OneOf(type, {"ProvisionedThroughputExceededException", "ThrottlingException", "Throttling",
                      "ThrottledException", "RequestThrottledException", "TooManyRequestsException",
                      "RequestLimitExceeded", "LimitExceededException", "RequestThrottled"});
}

bool IsRetryable(int http_status, std::string_view type) {
  return IsThrottle(type) || http_status >= 500 || type == "TransactionConflictException";
}

Status Annotate(const Status& status, std::string_view note) {
  std::string message = status.message() + std::string(note);
  switch (status.code()) {
    case ErrorCode::kOk:
      return status;
    case ErrorCode::kNotFound:
      return Status::NotFound(std::move(message), status.deleted());
    case ErrorCode::kConflict:
      if (status.event_id_conflict())
        return Status::EventIdConflict(std::move(message), status.event_id(), status.stream());
      return Status::Conflict(std::move(message), status.actual_version(), status.deleted(),
                              status.stream());
    case ErrorCode::kInvalid:
      return Status::Invalid(status.field(), std::move(message));
    case ErrorCode::kTooLarge:
      return Status::TooLarge(status.field(), std::move(message));
    case ErrorCode::kRejected:
      return Status::Rejected(std::move(message));
    case ErrorCode::kUnauthorized:
      return Status::Unauthorized(std::move(message));
    case ErrorCode::kUnavailable:
      return Status::Unavailable(std::move(message));
    case ErrorCode::kInternal:
      break;
  }
  return Status::Internal(std::move(message));
}

std::vector<CancellationReason> CancellationReasons(const boost::json::object& error) {
  std::vector<CancellationReason> reasons;
  const auto* list = error.if_contains("CancellationReasons");
  if (!list || !list->is_array()) return reasons;
  for (const auto& entry : list->get_array()) {
    if (!entry.is_object()) continue;
    const auto& o = entry.get_object();
    CancellationReason r{StringMember(o, "Code"), StringMember(o, "Message"), {}};
    if (const auto* item = o.if_contains("Item"); item && item->is_object())
      r.item = item->get_object();
    reasons.push_back(std::move(r));
  }
  return reasons;
}

Status MapError(std::string_view endpoint, std::string_view operation, int http_status,
                const boost::json::object& error) {
  const std::string type = ErrorType(error);
  const std::string message = ErrorMessage(error);
  const std::string said = fmt::format("DynamoDB {} failed: {}{}{}", operation,
                                       type.empty() ? fmt::format("HTTP {}", http_status) : type,
                                       message.empty() ? "" : ": ", message);
  if (type == "ConditionalCheckFailedException") return Status::Conflict(said, std::nullopt);
  if (type == "TransactionCanceledException") {
    const auto reasons = CancellationReasons(error);
    std::string codes;
    bool condition = false, throttled = false, invalid = false;
    for (const auto& r : reasons) {
      codes += (codes.empty() ? "" : ", ") + r.code;
      condition |= r.code == "ConditionalCheckFailed";
      throttled |= r.code == "ThrottlingError" || r.code == "ProvisionedThroughputExceeded" ||
                   r.code == "TransactionConflict";
      invalid |= r.code == "ValidationError";
    }
    const std::string text =
        fmt::format("DynamoDB {} was cancelled; reasons, item by item: [{}]", operation, codes);
    if (condition) return Status::Conflict(text, std::nullopt);
    if (invalid) return Status::Invalid("request", text);
    if (throttled) return Status::Unavailable(text);
    if (codes.find("ItemCollectionSizeLimitExceeded") != std::string::npos)
      return Status::TooLarge("request", text);
    return Status::Internal(text);
  }
  if (type == "ResourceNotFoundException") return Status::NotFound(said);
  if (type == "ValidationException") {
    // The item and transaction size limits come back as validation errors.
    if (message.find("Item size") != std::string::npos ||
        message.find("size has exceeded") != std::string::npos)
      return Status::TooLarge("request", said);
    return Status::Invalid("request", said);
  }
  if (type == "ItemCollectionSizeLimitExceededException") return Status::TooLarge("request", said);
  if (type == "ResourceInUseException") return Status::Conflict(said, std::nullopt);
  if (type == "UnknownOperationException")
    return Status::Invalid(
        "url",
        fmt::format("the DynamoDB endpoint {} does not support {} (UnknownOperationException)"
                    "; dynalite, for one, has no transactions, Streams or TTL",
                    endpoint, operation));
  if (OneOf(type,
            {"UnrecognizedClientException", "MissingAuthenticationTokenException",
             "InvalidSignatureException", "IncompleteSignatureException", "AccessDeniedException",
             "ExpiredTokenException", "InvalidClientTokenId", "MissingAuthenticationToken"}))
    return Status::Unauthorized(said);
  if (IsRetryable(http_status, type)) return Status::Unavailable(said);
  return Status::Internal(said);
}

}  // namespace indelible::aws

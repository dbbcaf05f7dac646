#include "store/decide.h"

#include <fmt/format.h>

#include "core/text.h"

namespace indelible::store {
namespace {

Status ConflictAt(const AppendRequest& append, const std::optional<StreamHead>& head,
                  std::string_view state) {
  std::optional<std::int64_t> actual;
  if (head) actual = head->version.value();
  return Status::Conflict(fmt::format("stream '{}' {}; expected {}", Printable(append.stream),
                                      state, append.expected.ToString()),
                          actual, head && head->deleted, append.stream);
}

}  // namespace

bool IsTombstoneAppend(const AppendRequest& append) {
  return append.events.size() == 1 && append.events[0].type == kDeletedEventType;
}

AppendResult StateOnlyResult(const AppendRequest& append, const StreamHead& head) {
  return AppendResult{append.stream, head.version,  head.version,
                      head.position, head.position, false};
}

Status CheckExpectation(const AppendRequest& append, const std::optional<StreamHead>& head,
                        bool starts_past_zero) {
  const bool live = head && !head->deleted;
  // An import of an erased stream: its tombstone is all that is left.
  const bool imported_tombstone = starts_past_zero && !head;
  if (IsTombstoneAppend(append) && !live && !imported_tombstone)
    return Status::NotFound(fmt::format("stream '{}' {}", Printable(append.stream),
                                        head ? "is already deleted" : "does not exist"),
                            head.has_value());
  const Expected& expected = append.expected;
  switch (expected.kind()) {
    case Expected::Kind::kAny:
      return Status::Ok();
    case Expected::Kind::kNoStream:
      if (!live) return Status::Ok();
      return ConflictAt(append, head, fmt::format("exists at version {}", head->version.value()));
    case Expected::Kind::kExists:
      if (live) return Status::Ok();
      return ConflictAt(append, head, head ? "is deleted" : "does not exist");
    case Expected::Kind::kExactly:
      if (live && head->version == expected.version()) return Status::Ok();
      if (!head) return ConflictAt(append, head, "does not exist");
      if (head->deleted) return ConflictAt(append, head, "is deleted");
      return ConflictAt(append, head, fmt::format("is at version {}", head->version.value()));
  }
  return Status::Internal("unknown expectation");
}

Result<std::optional<AppendResult>> ClassifyRetry(const AppendRequest& append,
                                                  std::span<const std::optional<IdRecord>> ids) {
  std::size_t known = 0;
  for (const auto& id : ids) known += id.has_value() ? 1 : 0;
  if (known == 0) return std::optional<AppendResult>();

  const IdRecord* first = nullptr;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (!ids[i]) {
      return Status::EventIdConflict(
          fmt::format("some of this append's event ids were already written (event {} is new, "
                      "others are not): an append is retried with exactly its original events",
                      append.events[i].id.ToString()),
          append.events[i].id.ToString(), append.stream);
    }
    if (ids[i]->stream != append.stream)
      return Status::EventIdConflict(
          fmt::format("event id {} was already written to stream '{}'",
                      append.events[i].id.ToString(), Printable(ids[i]->stream)),
          append.events[i].id.ToString(), append.stream);
    if (first == nullptr) first = &*ids[i];
    if (ids[i]->append_first_position != first->append_first_position)
      return Status::EventIdConflict(
          fmt::format("event ids of this append were written by different earlier appends "
                      "(event {})",
                      append.events[i].id.ToString()),
          append.events[i].id.ToString(), append.stream);
  }
  AppendResult original;
  original.stream = append.stream;
  original.first_version = first->append_first_version;
  original.last_version =
      StreamVersion(first->append_first_version.value() + first->append_count - 1);
  original.first_position = first->append_first_position;
  original.position = Position(first->append_first_position.value() + first->append_count - 1);
  original.replayed = true;
  return std::optional<AppendResult>(std::move(original));
}

Status MixedRetryConflict(const AppendRequest& retried) {
  const std::string id = retried.events.empty() ? std::string() : retried.events[0].id.ToString();
  return Status::EventIdConflict(
      fmt::format("a commit mixes retried appends with new ones (the append to stream '{}' was "
                  "already written); retry the original commit as it was",
                  Printable(retried.stream)),
      id, retried.stream);
}

StreamHead Advance(const std::optional<StreamHead>& head, const AppendRequest& append,
                   Position first_position, std::int64_t start_version) {
  // A state-only append (no events) leaves the head as it is; validation
  // requires exactly(N) for it, so the head exists and is live.
  if (append.events.empty()) return *head;
  StreamHead next;
  const auto count = static_cast<std::int64_t>(append.events.size());
  const std::int64_t first_version = head ? head->version.value() + 1 : start_version;
  next.version = StreamVersion(first_version + count - 1);
  next.position = Position(first_position.value() + append.events.size() - 1);
  next.deleted = IsTombstoneAppend(append);
  // Appending to a deleted stream starts a new life that reads begin from.
  if (!head) {
    next.first_version = StreamVersion(0);
  } else if (head->deleted) {
    next.first_version = StreamVersion(first_version);
  } else {
    next.first_version = head->first_version;
  }
  return next;
}

Result<StreamReadPlan> PlanStreamRead(std::string_view stream, const StreamHead& head,
                                      const ReadStreamOptions& options) {
  if (head.deleted && !options.include_deleted)
    return Status::NotFound(fmt::format("stream '{}' is deleted", Printable(stream)), true);
  StreamReadPlan plan;
  plan.low = options.include_deleted ? 0 : head.first_version.value();
  plan.high = head.version.value();
  const std::optional<std::int64_t> from =
      options.from ? std::optional<std::int64_t>(options.from->value()) : std::nullopt;
  plan.from = options.direction == Direction::kForward
                  ? std::max(plan.low, from.value_or(0))
                  : std::min(plan.high, from.value_or(plan.high));
  return plan;
}

}  // namespace indelible::store

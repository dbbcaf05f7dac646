#include "store/retention.h"

#include <algorithm>
#include <unordered_map>
#include <utility>

namespace indelible::store {

RetentionCut CutOf(const StreamMetadata& metadata, std::optional<std::int64_t> last_version,
                   std::int64_t now_ms) {
  RetentionCut cut;
  if (metadata.truncate_before) cut.first_version = metadata.truncate_before->value();
  if (metadata.max_count) cut.last_version = last_version;
  if (metadata.max_count && last_version) {
    const std::int64_t count = static_cast<std::int64_t>(
        std::min<std::uint64_t>(*metadata.max_count, std::uint64_t{1} << 62));
    cut.first_version = std::max(cut.first_version, *last_version + 1 - count);
  }
  if (metadata.max_age) cut.oldest_ms = now_ms - metadata.max_age->count() * 1000;
  return cut;
}

Result<RetentionCut> CutFor(Store& store, std::string_view stream, const StreamMetadata& metadata,
                            std::int64_t now_ms) {
  std::optional<std::int64_t> last_version;
  if (metadata.max_count) {
    auto head = store.Head(stream);
    if (head.ok()) {
      last_version = head->version.value();
    } else if (head.status().code() != ErrorCode::kNotFound) {
      return head.status();
    }
  }
  return CutOf(metadata, last_version, now_ms);
}

namespace {

class RetainedStreamCursor final : public StreamCursor {
 public:
  RetainedStreamCursor(std::unique_ptr<StreamCursor> inner, RetentionCut cut, std::size_t limit)
      : inner_(std::move(inner)), cut_(cut), left_(limit) {
    SkipHidden();
  }

  // A forward read ends at the version max_count was counted from (the
  // events after it came after the read began); backward reads start there
  // (RetentionStore::ReadStream).
  bool Valid() const override {
    return left_ > 0 && inner_->Valid() &&
           (!cut_.last_version || inner_->event().version.value() <= *cut_.last_version);
  }
  void Next() override {
    --left_;
    inner_->Next();
    SkipHidden();
  }
  const EventView& event() const override { return inner_->event(); }
  Status status() const override { return inner_->status(); }
  std::optional<StreamVersion> next_version() const override { return inner_->next_version(); }

 private:
  void SkipHidden() {
    if (left_ == 0) return;
    while (inner_->Valid() && cut_.Hides(inner_->event())) inner_->Next();
  }

  std::unique_ptr<StreamCursor> inner_;
  RetentionCut cut_;
  std::size_t left_;
};

class RetainedAllCursor final : public AllCursor {
 public:
  RetainedAllCursor(std::unique_ptr<AllCursor> inner, std::shared_ptr<const RetentionMap> rules,
                    Store& heads, std::int64_t now_ms, std::size_t limit)
      : inner_(std::move(inner)),
        rules_(std::move(rules)),
        heads_(heads),
        now_ms_(now_ms),
        left_(limit) {
    SkipHidden();
  }

  bool Valid() const override { return status_.ok() && left_ > 0 && inner_->Valid(); }
  void Next() override {
    --left_;
    inner_->Next();
    SkipHidden();
  }
  const EventView& event() const override { return inner_->event(); }
  Status status() const override { return status_.ok() ? inner_->status() : status_; }
  Position next_position() const override { return inner_->next_position(); }

 private:
  void SkipHidden() {
    if (left_ == 0) return;
    while (inner_->Valid() && Hidden(inner_->event())) inner_->Next();
  }

  bool Hidden(const EventView& event) {
    const auto rule = rules_->find(event.stream);
    if (rule == rules_->end()) return false;
    auto cut = cuts_.find(rule->first);
    if (cut == cuts_.end()) {
      auto made = CutFor(heads_, event.stream, rule->second, now_ms_);
      if (!made.ok()) {
        // Stop here: the events after this one are not passed.
        status_ = made.status();
        return false;
      }
      cut = cuts_.emplace(rule->first, *made).first;
    }
    return cut->second.Hides(event);
  }

  std::unique_ptr<AllCursor> inner_;
  std::shared_ptr<const RetentionMap> rules_;
  Store& heads_;
  std::int64_t now_ms_;
  std::size_t left_;
  Status status_;
  // Keyed by views of rules_' keys, which outlive the cursor's use of them.
  std::unordered_map<std::string_view, RetentionCut> cuts_;
};

}  // namespace

std::unique_ptr<StreamCursor> RetainedStream(std::unique_ptr<StreamCursor> inner, RetentionCut cut,
                                             std::size_t limit) {
  return std::make_unique<RetainedStreamCursor>(std::move(inner), cut, limit);
}

std::unique_ptr<AllCursor> RetainedAll(std::unique_ptr<AllCursor> inner,
                                       std::shared_ptr<const RetentionMap> rules, Store& heads,
                                       std::int64_t now_ms, std::size_t limit) {
  return std::make_unique<RetainedAllCursor>(std::move(inner), std::move(rules), heads, now_ms,
                                             limit);
}

}  // namespace indelible::store

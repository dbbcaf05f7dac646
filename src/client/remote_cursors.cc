#include "client/remote_cursors.h"

#include <algorithm>
#include <vector>

namespace indelible::client {
namespace {

std::size_t PageLimit(std::size_t limit, std::size_t returned) {
  return std::clamp<std::size_t>(limit - returned, 1, kRemotePageEvents);
}

class RemoteStreamCursor final : public StreamCursor {
 public:
  RemoteStreamCursor(std::shared_ptr<Client> client, std::string_view stream,
                     const ReadStreamOptions& options)
      : client_(std::move(client)),
        stream_(stream),
        options_(options),
        forward_(options.direction == Direction::kForward),
        from_(options.from) {}

  // The first page; errors (not_found) belong to ReadStream, not the cursor.
  Status Start() {
    if (Status s = Fetch(); !s.ok()) return s;
    if (options_.from) {
      next_ = options_.from->value();
    } else if (!page_.empty()) {
      next_ = page_.front().version.value();
    } else {
      next_ = forward_ ? 0 : -1;
    }
    if (page_.size() > options_.limit) page_.resize(options_.limit);  // limit 0
    Settle();
    return Status::Ok();
  }

  bool Valid() const override { return index_ < page_.size(); }
  void Next() override {
    next_ = page_[index_].version.value() + (forward_ ? 1 : -1);
    ++index_;
    ++returned_;
    Settle();
  }
  const EventView& event() const override { return view_; }
  Status status() const override { return status_; }
  std::optional<StreamVersion> next_version() const override {
    const std::int64_t next = Valid() ? view_.version.value() : next_;
    return next < 0 ? std::nullopt : std::optional<StreamVersion>(StreamVersion(next));
  }

 private:
  Status Fetch() {
    ReadStreamOptions options = options_;
    options.from = from_;
    options.limit = PageLimit(options_.limit, returned_);
    auto page = client_->ReadStream(stream_, options);
    if (!page.ok()) return page.status();
    page_ = std::move(page->events);
    index_ = 0;
    from_ = page->next_version;
    // An empty page that promises more would have us ask forever.
    if (page_.empty()) from_.reset();
    return Status::Ok();
  }

  void Settle() {
    while (index_ >= page_.size() && returned_ < options_.limit && from_) {
      if (Status s = Fetch(); !s.ok()) {
        status_ = s;
        page_.clear();
        return;
      }
    }
    if (returned_ >= options_.limit) page_.resize(index_);
    if (index_ < page_.size()) view_ = page_[index_].view();
  }

  const std::shared_ptr<Client> client_;
  const std::string stream_;
  const ReadStreamOptions options_;
  const bool forward_;
  std::optional<StreamVersion> from_;  // the next page's start; nullopt: no more
  std::vector<RecordedEvent> page_;
  std::size_t index_ = 0;
  std::size_t returned_ = 0;
  std::int64_t next_ = 0;
  EventView view_;
  Status status_;
};

class RemoteAllCursor final : public AllCursor {
 public:
  RemoteAllCursor(std::shared_ptr<Client> client, const ReadAllOptions& options, Position end)
      : client_(std::move(client)),
        options_(options),
        end_(end.value()),
        from_(std::max<std::uint64_t>(options.from.value(), 1)) {
    Settle();
  }

  bool Valid() const override { return index_ < page_.size(); }
  void Next() override {
    ++index_;
    ++returned_;
    Settle();
  }
  const EventView& event() const override { return view_; }
  Status status() const override { return status_; }
  Position next_position() const override { return Valid() ? view_.position : Position(from_); }

 private:
  Status Fetch() {
    ReadAllOptions options = options_;
    options.from = Position(from_);
    options.limit = PageLimit(options_.limit, returned_);
    auto page = client_->ReadAll(options);
    if (!page.ok()) return page.status();
    page_ = std::move(page->events);
    index_ = 0;
    const auto past_end = std::find_if(page_.begin(), page_.end(), [this](const RecordedEvent& e) {
      return e.position.value() > end_;
    });
    if (past_end != page_.end()) {
      from_ = past_end->position.value();
      page_.erase(past_end, page_.end());
      done_ = true;
      return Status::Ok();
    }
    // A server that does not move on would have us ask forever.
    if (page->next.value() <= from_ && page_.empty()) done_ = true;
    from_ = std::max(from_, page->next.value());
    if (from_ > end_) done_ = true;
    return Status::Ok();
  }

  void Settle() {
    while (index_ >= page_.size() && returned_ < options_.limit && !done_ && from_ <= end_) {
      if (Status s = Fetch(); !s.ok()) {
        status_ = s;
        page_.clear();
        index_ = 0;
        return;
      }
    }
    if (returned_ >= options_.limit) page_.resize(index_);
    if (index_ < page_.size()) view_ = page_[index_].view();
  }

  const std::shared_ptr<Client> client_;
  const ReadAllOptions options_;
  const std::uint64_t end_;
  std::uint64_t from_;  // the next position to read
  bool done_ = false;
  std::vector<RecordedEvent> page_;
  std::size_t index_ = 0;
  std::size_t returned_ = 0;
  EventView view_;
  Status status_;
};

class RemoteQueryCursor final : public AllCursor {
 public:
  RemoteQueryCursor(std::shared_ptr<Client> client, Query query, const ReadQueryOptions& options,
                    Position end)
      : client_(std::move(client)),
        query_(std::move(query)),
        options_(options),
        forward_(options.direction == Direction::kForward),
        end_(end.value()) {
    if (forward_) {
      from_ = std::max<std::uint64_t>(options.from.value_or(Position(1)).value(), 1);
    } else {
      from_ = std::min(options.from.value_or(end).value(), end_);
    }
    Settle();
  }

  bool Valid() const override { return index_ < page_.size(); }
  void Next() override {
    ++index_;
    ++returned_;
    Settle();
  }
  const EventView& event() const override { return view_; }
  Status status() const override { return status_; }
  Position next_position() const override { return Valid() ? view_.position : Position(from_); }

 private:
  bool Exhausted() const { return done_ || (forward_ ? from_ > end_ : from_ == 0); }

  Status Fetch() {
    ReadQueryOptions options = options_;
    options.from = Position(from_);
    options.limit = PageLimit(options_.limit, returned_);
    auto page = client_->ReadQuery(query_, options);
    if (!page.ok()) return page.status();
    page_ = std::move(page->events);
    index_ = 0;
    const std::uint64_t next = page->next.value();
    if (forward_) {
      const auto past_end =
          std::find_if(page_.begin(), page_.end(),
                       [this](const RecordedEvent& e) { return e.position.value() > end_; });
      if (past_end != page_.end()) {
        from_ = past_end->position.value();
        page_.erase(past_end, page_.end());
        done_ = true;
        return Status::Ok();
      }
      // A server that does not move on would have us ask forever.
      if (next <= from_ && page_.empty()) done_ = true;
      from_ = std::max(from_, next);
    } else {
      if (next >= from_ && page_.empty()) done_ = true;
      from_ = std::min(from_, next);
    }
    return Status::Ok();
  }

  void Settle() {
    while (index_ >= page_.size() && returned_ < options_.limit && !Exhausted()) {
      if (Status s = Fetch(); !s.ok()) {
        status_ = s;
        page_.clear();
        index_ = 0;
        return;
      }
    }
    if (returned_ >= options_.limit) page_.resize(index_);
    if (index_ < page_.size()) view_ = page_[index_].view();
  }

  const std::shared_ptr<Client> client_;
  const Query query_;
  const ReadQueryOptions options_;
  const bool forward_;
  const std::uint64_t end_;
  std::uint64_t from_ = 0;  // the next position to read, in the read's direction
  bool done_ = false;
  std::vector<RecordedEvent> page_;
  std::size_t index_ = 0;
  std::size_t returned_ = 0;
  EventView view_;
  Status status_;
};

}  // namespace

Result<std::unique_ptr<StreamCursor>> OpenRemoteStreamCursor(std::shared_ptr<Client> client,
                                                             std::string_view stream,
                                                             const ReadStreamOptions& options) {
  auto cursor = std::make_unique<RemoteStreamCursor>(std::move(client), stream, options);
  if (Status s = cursor->Start(); !s.ok()) return s;
  return std::unique_ptr<StreamCursor>(std::move(cursor));
}

Result<std::unique_ptr<AllCursor>> OpenRemoteAllCursor(std::shared_ptr<Client> client,
                                                       const ReadAllOptions& options,
                                                       Position end) {
  auto cursor = std::make_unique<RemoteAllCursor>(std::move(client), options, end);
  // Errors of the first page (a bad filter) belong to ReadAll.
  if (Status s = cursor->status(); !s.ok()) return s;
  return std::unique_ptr<AllCursor>(std::move(cursor));
}

}  // namespace indelible::client

namespace indelible::client {

Result<std::unique_ptr<AllCursor>> OpenRemoteQueryCursor(std::shared_ptr<Client> client,
                                                         const Query& query,
                                                         const ReadQueryOptions& options,
                                                         Position end) {
  auto cursor = std::make_unique<RemoteQueryCursor>(std::move(client), query, options, end);
  // Errors of the first page (a query the server refuses) belong to ReadQuery.
  if (Status s = cursor->status(); !s.ok()) return s;
  return std::unique_ptr<AllCursor>(std::move(cursor));
}

}  // namespace indelible::client

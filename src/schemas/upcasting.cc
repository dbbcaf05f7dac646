#include "schemas/upcasting.h"

#include <string>
#include <utility>

namespace indelible::schemas {
namespace {

// The part both cursors share: the current event, upcast once per Next().
class UpcastView {
 public:
  UpcastView(std::shared_ptr<const Registry> registry, UpcastCounters& counters)
      : registry_(std::move(registry)), counters_(counters) {}

  void Load(const EventCursor& inner) {
    if (!inner.Valid()) return;
    view_ = inner.event();
    // Most reads meet few types, mostly at their newest version: the last
    // type's entry is kept, so such an event costs two string compares
    // instead of two hash lookups (docs/BENCHMARKS.md, issue 35).
    if (view_.type != type_) {
      type_.assign(view_.type);
      entry_ = registry_->Find(type_);
    }
    if (!entry_ || entry_->steps.empty() || view_.schema == entry_->versions.back().version) return;
    bool failed = false;
    if (registry_->Upcast(view_, &data_, &label_, &failed)) {
      view_.data = data_;
      view_.schema = label_;
      counters_.upcast.fetch_add(1, std::memory_order_relaxed);
    }
    if (failed) counters_.failures.fetch_add(1, std::memory_order_relaxed);
  }
  const EventView& view() const { return view_; }

 private:
  std::shared_ptr<const Registry> registry_;
  UpcastCounters& counters_;
  EventView view_;
  std::string data_;
  std::string label_;
  std::string type_;                  // of the last event loaded
  const TypeEntry* entry_ = nullptr;  // its entry in registry_ (null: none)
};

class UpcastingStreamCursor final : public StreamCursor {
 public:
  UpcastingStreamCursor(std::unique_ptr<StreamCursor> inner,
                        std::shared_ptr<const Registry> registry, UpcastCounters& counters)
      : inner_(std::move(inner)), current_(std::move(registry), counters) {
    current_.Load(*inner_);
  }
  bool Valid() const override { return inner_->Valid(); }
  void Next() override {
    inner_->Next();
    current_.Load(*inner_);
  }
  const EventView& event() const override { return current_.view(); }
  Status status() const override { return inner_->status(); }
  std::optional<StreamVersion> next_version() const override { return inner_->next_version(); }

 private:
  std::unique_ptr<StreamCursor> inner_;
  UpcastView current_;
};

class UpcastingAllCursor final : public AllCursor {
 public:
  UpcastingAllCursor(std::unique_ptr<AllCursor> inner, std::shared_ptr<const Registry> registry,
                     UpcastCounters& counters)
      : inner_(std::move(inner)), current_(std::move(registry), counters) {
    current_.Load(*inner_);
  }
  bool Valid() const override { return inner_->Valid(); }
  void Next() override {
    inner_->Next();
    current_.Load(*inner_);
  }
  const EventView& event() const override { return current_.view(); }
  Status status() const override { return inner_->status(); }
  Position next_position() const override { return inner_->next_position(); }

 private:
  std::unique_ptr<AllCursor> inner_;
  UpcastView current_;
};

}  // namespace

std::unique_ptr<StreamCursor> UpcastStream(std::unique_ptr<StreamCursor> inner,
                                           std::shared_ptr<const Registry> registry,
                                           UpcastCounters& counters) {
  // No type has an upcaster: the backend's cursor, as it is.
  if (!registry->upcasts()) return inner;
  return std::make_unique<UpcastingStreamCursor>(std::move(inner), std::move(registry), counters);
}

std::unique_ptr<AllCursor> UpcastAll(std::unique_ptr<AllCursor> inner,
                                     std::shared_ptr<const Registry> registry,
                                     UpcastCounters& counters) {
  if (!registry->upcasts()) return inner;
  return std::make_unique<UpcastingAllCursor>(std::move(inner), std::move(registry), counters);
}

void UpcastEvent(const Registry& registry, UpcastCounters& counters, RecordedEvent* event) {
  std::string data;
  std::string label;
  bool failed = false;
  if (registry.Upcast(event->view(), &data, &label, &failed)) {
    event->data = std::move(data);
    event->schema = std::move(label);
    counters.upcast.fetch_add(1, std::memory_order_relaxed);
  }
  if (failed) counters.failures.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace indelible::schemas

#include "bench/stored_group.h"

#include "bench/fill.h"

namespace indelible::bench {

Result<StoredGroup> OpenStoredGroup(const Context& context, const std::string& folder,
                                    std::uint64_t events, std::string_view label,
                                    const std::string& name) {
  {
    auto store = OpenStore(context, folder);
    if (!store.ok()) return store.status();
    FillSpec fill;
    fill.events = events;
    fill.streams = 1000;
    fill.per_append = 100;
    fill.event_bytes = context.options().event_bytes;
    fill.label = label;
    if (Status s = Fill(**store, fill); !s.ok()) return s;
  }
  StoredGroup out;
  auto store = OpenStore(context, folder);
  if (!store.ok()) return store.status();
  out.store = std::move(*store);
  if (Status s = ConsumerGroup::Create(*out.store, name, {}); !s.ok()) return s;
  auto group = ConsumerGroup::Open(*out.store, name);
  if (!group.ok()) return group.status();
  out.group = std::move(*group);
  return out;
}

}  // namespace indelible::bench

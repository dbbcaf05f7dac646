#include "bench/fill.h"

#include <random>
#include <string>
#include <vector>

#include "bench/common.h"
#include "bench/events.h"

namespace indelible::bench {

Status Fill(Store& store, const FillSpec& spec) {
  std::vector<std::string> names;
  names.reserve(spec.streams);
  for (std::uint64_t s = 0; s < spec.streams; ++s) names.push_back(AccountStream(s));
  std::vector<std::int64_t> versions(spec.streams, -1);  // last version; -1: no stream
  std::mt19937 rng(7);
  Progress progress(std::string(spec.label), spec.events);
  std::uint64_t done = 0;
  for (std::uint64_t a = 0; done < spec.events; ++a) {
    const std::size_t stream = a % spec.streams;
    const std::size_t count =
        static_cast<std::size_t>(std::min<std::uint64_t>(spec.per_append, spec.events - done));
    std::vector<EventData> batch;
    batch.reserve(count);
    for (std::size_t e = 0; e < count; ++e)
      batch.push_back(DepositedEvent(names[stream],
                                     static_cast<std::uint64_t>(versions[stream] + 1) + e,
                                     spec.event_bytes, rng));
    const Expected expected = versions[stream] < 0
                                  ? Expected::no_stream()
                                  : Expected::exactly(StreamVersion(versions[stream]));
    auto result = store.Append(names[stream], expected, std::move(batch));
    if (!result.ok()) return result.status();
    versions[stream] = result->last_version.value();
    done += count;
    progress.Update(done);
    if (spec.after_append) spec.after_append(done);
  }
  return Status::Ok();
}

}  // namespace indelible::bench

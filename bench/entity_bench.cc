// entity: the Entity API (include/indelible/entity.h) on the embedded store,
// in the run's durability (sync by default). Two halves, each in a fresh
// store:
//   - loads (entity_load_bench.cc): Entity::Get latency for entities of 10,
//     1,000 and 100,000 events without snapshots, with Every(1000) and with
//     EveryWrite; with snapshots the cost should not grow with the entity.
//   - appends (entity_append_bench.cc): entity appends/s writing the state
//     record every time, against plain appends of the same events in the
//     same run. Target: >= 0.7 x plain.
#include "bench/entity_bench.h"

#include "bench/scenarios.h"

namespace indelible::bench {

Status RunEntity(Context& context) {
  if (Status s = RunEntityLoads(context); !s.ok()) return s;
  return RunEntityAppends(context);
}

}  // namespace indelible::bench

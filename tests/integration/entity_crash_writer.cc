// entity_crash_writer DIR THREADS: appends entity commands to the store in
// DIR from THREADS threads until killed, printing one line per command that
// succeeded:
//   ack <stream> <last_version>
// Each command adds 1 to 4 items to one of six tallies (entity_crash_domain.h);
// every item publishes one outbound event, and about one command in ten
// holds an empty item, which the rule rejects (nothing written).
#include <indelible/entity.h>
#include <indelible/store.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "entity_crash_domain.h"

using namespace indelible;

namespace {

std::mutex out_mu;

std::vector<std::string> Streams() {
  std::vector<std::string> streams;
  for (int i = 0; i < 3; ++i) {
    streams.push_back("tally-w-" + std::to_string(i));
    streams.push_back("tally-n-" + std::to_string(i));
  }
  return streams;
}

void Writer(Store& store, const Rules<crash::Tally>& rules) {
  std::mt19937 rng(std::random_device{}());
  const std::vector<std::string> streams = Streams();
  for (;;) {
    const std::string& stream = streams[rng() % streams.size()];
    const Entity<crash::Tally> tallies(store, rules, crash::OptionsFor(stream));
    std::vector<EventData> command;
    const int items = 1 + static_cast<int>(rng() % 4);
    const bool empty_item = rng() % 10 == 0;
    for (int i = 0; i < items; ++i) {
      const std::int64_t n =
          empty_item && i == items - 1 ? 0 : 1 + static_cast<std::int64_t>(rng() % 9);
      command.push_back(MakeEvent(crash::kItemAdded, crash::ItemAdded{n}));
    }
    auto changed = tallies.Append(stream, std::move(command));
    if (!changed.ok()) {
      if (empty_item && changed.status().code() == ErrorCode::kRejected) continue;
      // Ends the process at once, so the test sees an exit instead of its kill.
      std::fprintf(stderr, "append failed: %s\n", changed.status().ToString().c_str());
      std::fflush(stderr);
      std::_Exit(1);
    }
    std::lock_guard lock(out_mu);
    std::fprintf(stdout, "ack %s %lld\n", stream.c_str(),
                 static_cast<long long>(changed->entity.version->value()));
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: entity_crash_writer DIR THREADS\n");
    return 2;
  }
  auto store = Store::Open(std::string("file:") + argv[1]);
  if (!store.ok()) {
    std::fprintf(stderr, "open: %s\n", store.status().ToString().c_str());
    return 1;
  }
  const Rules<crash::Tally> rules = crash::TallyRules();
  std::fprintf(stdout, "ready\n");
  std::fflush(stdout);
  std::vector<std::thread> threads;
  for (int t = 0; t < std::atoi(argv[2]); ++t)
    threads.emplace_back([&] { Writer(**store, rules); });
  for (auto& t : threads) t.join();  // never: the writers run until killed
  return 0;
}

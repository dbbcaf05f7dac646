// projector_child DIR READ_STORE_URL SEED DELAY_US [append]: runs the
// ledger projection (ledger_projection.h) of the embedded store in DIR into
// the read store until killed. SEED picks the batch size (1 to 50 events
// per read-store transaction) and each event's apply sleeps DELAY_US
// microseconds, so that a kill lands inside an open transaction more often
// than between two. With "append", a thread of its own also appends events
// to the store while the runner follows it live.
//
// Prints "ready batch=N" once the runner is open, then "at POSITION"
// whenever the checkpoint moves. Exits 3 after a minute if nobody killed it
// (a test that died must not leave it running).
#include <indelible/projection.h>
#include <indelible/store.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>

#include "projections/ledger_projection.h"

using namespace indelible;

int main(int argc, char** argv) {
  if (argc < 5 || argc > 6 || (argc == 6 && std::string(argv[5]) != "append")) {
    std::fprintf(stderr, "usage: projector_child DIR READ_STORE_URL SEED DELAY_US [append]\n");
    return 2;
  }
  const std::string dir = argv[1];
  const std::string url = argv[2];
  std::mt19937 rng(static_cast<std::uint32_t>(std::stoul(argv[3])));
  const auto delay = std::chrono::microseconds(std::stoi(argv[4]));
  const bool append = argc == 6;

  auto store = Store::Open("file:" + dir);
  if (!store.ok()) {
    std::fprintf(stderr, "projector_child: open %s: %s\n", dir.c_str(),
                 store.status().ToString().c_str());
    return 1;
  }
  ProjectionOptions options;
  options.batch_events = 1 + rng() % 50;
  options.initial_backoff = std::chrono::milliseconds(10);
  options.max_backoff = std::chrono::milliseconds(200);
  auto runner =
      ProjectionRunner::Open(**store, url, testutil::LedgerProjection("child", delay), options);
  if (!runner.ok()) {
    std::fprintf(stderr, "projector_child: runner: %s\n", runner.status().ToString().c_str());
    return 1;
  }
  std::printf("ready batch=%zu\n", options.batch_events);
  std::fflush(stdout);
  (*runner)->Start();

  std::atomic<bool> failed{false};
  std::thread appender;
  if (append) {
    appender = std::thread([&store, &failed, seed = rng()] {
      std::mt19937 local(seed);
      for (;;) {
        if (Status s = testutil::AppendLedgerEvents(**store, 1 + local() % 5, 50, local); !s.ok()) {
          std::fprintf(stderr, "projector_child: append: %s\n", s.ToString().c_str());
          failed = true;
          return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    });
    appender.detach();  // runs until the process is killed
  }

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  std::int64_t printed = -1;
  while (std::chrono::steady_clock::now() < deadline && !failed) {
    if (auto status = (*runner)->status(); status.ok()) {
      const auto position = static_cast<std::int64_t>(status->position.value());
      if (position != printed) {
        std::printf("at %lld\n", static_cast<long long>(position));
        std::fflush(stdout);
        printed = position;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::fprintf(stderr, "projector_child: %s\n", failed ? "append failed" : "nobody killed me");
  std::_Exit(3);
}

// crash_writer DIR THREADS [async]: appends to the store in DIR from THREADS
// threads until killed (through Store::CommitAsync with `async`, each
// thread waiting for its callback), printing one line per acknowledged
// commit to stdout:
//   ack <commit-uuid> <stream>:<version> <stream>:<version> ...
// (the last version of each stream in the commit). Each commit writes two
// streams, two events each, all carrying {"commit": uuid, "events": 4} in
// their metadata, so a reader can tell a whole commit from half of one.
#include <indelible/store.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace indelible;

namespace {

std::mutex out_mu;

Result<CommitResult> CommitOnce(Store& store, std::vector<AppendRequest> appends, bool async) {
  if (!async) return store.Commit(std::move(appends));
  std::promise<Result<CommitResult>> answered;
  CommitRequest commit;
  commit.appends = std::move(appends);
  store.CommitAsync(std::move(commit), [&answered](Result<CommitResult> result) {
    answered.set_value(std::move(result));
  });
  return answered.get_future().get();
}

void Writer(Store& store, int thread, bool async, std::atomic<bool>& failed) {
  // Thread t owns streams crash-t-0 .. crash-t-3 and commits to pairs of
  // them with exact expectations, read from the store at start.
  std::vector<std::string> streams;
  std::vector<std::optional<std::int64_t>> versions;
  for (int s = 0; s < 4; ++s) {
    streams.push_back("crash-" + std::to_string(thread) + "-" + std::to_string(s));
    auto head = store.Head(streams.back());
    versions.push_back(head.ok() ? std::optional(head->version.value()) : std::nullopt);
  }
  for (std::uint64_t round = 0;; ++round) {
    const std::size_t a = round % 4, b = (round + 1) % 4;
    const std::string commit = EventId::Random().ToString();
    const std::string metadata = R"({"commit":")" + commit + R"(","events":4})";
    std::vector<AppendRequest> appends;
    for (std::size_t s : {a, b}) {
      AppendRequest append;
      append.stream = streams[s];
      append.expected =
          versions[s] ? Expected::exactly(StreamVersion(*versions[s])) : Expected::no_stream();
      for (int e = 0; e < 2; ++e) {
        EventData event;
        event.type = "Crash.Tested";
        event.data = R"({"round":)" + std::to_string(round) + R"(,"pad":")" +
                     std::string(100 + (round % 7) * 50, 'x') + R"("})";
        event.metadata = metadata;
        append.events.push_back(std::move(event));
      }
      appends.push_back(std::move(append));
    }
    auto result = CommitOnce(store, std::move(appends), async);
    if (!result.ok()) {
      std::fprintf(stderr, "commit failed: %s\n", result.status().ToString().c_str());
      failed = true;
      return;
    }
    std::string line = "ack " + commit;
    for (const auto& r : result->appends) {
      line += " " + r.stream + ":" + std::to_string(r.last_version.value());
    }
    versions[a] = result->appends[0].last_version.value();
    versions[b] = result->appends[1].last_version.value();
    std::lock_guard lock(out_mu);
    std::fprintf(stdout, "%s\n", line.c_str());
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && !(argc == 4 && std::strcmp(argv[3], "async") == 0)) {
    std::fprintf(stderr, "usage: crash_writer DIR THREADS [async]\n");
    return 2;
  }
  const bool async = argc == 4;
  auto store = Store::Open(std::string("file:") + argv[1]);
  if (!store.ok()) {
    std::fprintf(stderr, "open: %s\n", store.status().ToString().c_str());
    return 1;
  }
  std::fprintf(stdout, "ready\n");
  std::fflush(stdout);
  std::atomic<bool> failed{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < std::atoi(argv[2]); ++t)
    threads.emplace_back([&, t] { Writer(**store, t, async, failed); });
  for (auto& t : threads) t.join();
  return failed ? 1 : 0;
}

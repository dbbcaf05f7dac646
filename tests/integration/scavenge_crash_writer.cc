// scavenge_crash_writer DIR: appends to streams with and without retention
// while scavenging the store over and over (Store::Scavenge), until killed.
// Streams kept-0..kept-3 have no retention; trimmed-0..trimmed-3 get
// max_count = 50 before anything else (unless they have it already). Two
// threads append single events to random streams; the main thread
// scavenges. It prints, one line each:
//   ready                               the store is open, retention set
//   ack <stream> <version> <event-id>   an acknowledged append
//   scavenged <events>                  a finished scavenge
// Any error is printed to stderr and ends the process with status 1.
#include <indelible/store.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace indelible;

namespace {

constexpr std::uint64_t kMaxCount = 50;
// A pause between scavenges: one that finds nothing to remove costs only
// a few reads, and the writers need the CPU.
constexpr std::chrono::milliseconds kScavengePause{20};

const std::array<std::string, 8> kStreams = {"kept-0",    "kept-1",    "kept-2",    "kept-3",
                                             "trimmed-0", "trimmed-1", "trimmed-2", "trimmed-3"};

std::mutex out_mu;
std::atomic<std::uint64_t> next_n{0};

[[noreturn]] void Fail(const char* what, const Status& status) {
  std::fprintf(stderr, "%s: %s\n", what, status.ToString().c_str());
  std::_Exit(1);
}

Status SetRetention(Store& store, const std::string& stream) {
  auto stored = store.ReadStreamMetadata(stream);
  if (!stored.ok()) return stored.status();
  if (stored->metadata.max_count) return Status::Ok();
  StreamMetadata retention = stored->metadata;
  retention.max_count = kMaxCount;
  auto written = store.WriteStreamMetadata(
      stream, retention,
      stored->version ? Expected::exactly(*stored->version) : Expected::no_stream());
  return written.status();
}

void Writer(Store& store, unsigned seed) {
  std::mt19937 rng(seed);
  for (;;) {
    const std::string& stream = kStreams[rng() % kStreams.size()];
    EventData tick;
    tick.id = EventId::Random();
    tick.type = "Tick";
    tick.data = R"({"n":)" + std::to_string(next_n++) + "}";
    auto appended = store.Append(stream, Expected::any(), {tick});
    if (!appended.ok()) Fail("append", appended.status());
    std::lock_guard lock(out_mu);
    std::fprintf(stdout, "ack %s %lld %s\n", stream.c_str(),
                 static_cast<long long>(appended->last_version.value()),
                 tick.id.ToString().c_str());
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: scavenge_crash_writer DIR\n");
    return 2;
  }
  auto store = Store::Open(std::string("file:") + argv[1]);
  if (!store.ok()) Fail("open", store.status());
  for (const std::string& stream : kStreams) {
    if (stream.starts_with("trimmed-")) {
      if (Status s = SetRetention(**store, stream); !s.ok()) Fail("metadata", s);
    }
  }
  std::fprintf(stdout, "ready\n");
  std::fflush(stdout);
  std::vector<std::thread> threads;
  std::random_device seeds;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&store, seed = seeds()] { Writer(**store, seed); });
  for (;;) {
    auto report = (*store)->Scavenge();
    if (!report.ok()) Fail("scavenge", report.status());
    {
      std::lock_guard lock(out_mu);
      std::fprintf(stdout, "scavenged %llu\n", static_cast<unsigned long long>(report->events));
      std::fflush(stdout);
    }
    std::this_thread::sleep_for(kScavengePause);
  }
}

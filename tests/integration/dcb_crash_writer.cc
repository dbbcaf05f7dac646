// dcb_crash_writer DIR THREADS CAPACITY [async]: enrols students in courses
// of CAPACITY seats with conditional appends (docs/DCB.md) until killed,
// printing one line per acknowledged enrolment:
//   ack <event-id> <course>
// Each thread works through the courses course:0, course:1, ...: it reads
// the course's enrolments by query, and while a seat is free appends one
// enrolment (its own new stream) on the condition that no enrolment of the
// course was written after the position it read. All threads contend for
// the same course, so most appends lose a race and read again.
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

Result<CommitResult> CommitOnce(Store& store, std::vector<AppendRequest> appends,
                                CommitOptions options, bool async) {
  if (!async) return store.Commit(std::move(appends), options);
  std::promise<Result<CommitResult>> answered;
  store.CommitAsync(
      CommitRequest{std::move(appends), std::move(options)},
      [&answered](Result<CommitResult> result) { answered.set_value(std::move(result)); });
  return answered.get_future().get();
}

Query Enrolments(int course) {
  return Query::Of({QueryItem{{"StudentEnrolled"}, {"course:" + std::to_string(course)}}});
}

void Writer(Store& store, std::size_t capacity, bool async, std::atomic<bool>& failed) {
  for (int course = 0;;) {
    const Query query = Enrolments(course);
    auto cursor = store.ReadQuery(query);
    if (!cursor.ok()) {
      std::fprintf(stderr, "read: %s\n", cursor.status().ToString().c_str());
      return void(failed = true);
    }
    std::size_t taken = 0;
    for (; (*cursor)->Valid(); (*cursor)->Next()) ++taken;
    if (taken >= capacity) {
      ++course;
      continue;
    }
    CommitOptions options;
    options.condition = AppendCondition{query, Position((*cursor)->next_position().value() - 1)};
    EventData enrolled;
    enrolled.id = EventId::Random();
    enrolled.type = "StudentEnrolled";
    enrolled.data = R"({"course":)" + std::to_string(course) + "}";
    enrolled.tags = {"course:" + std::to_string(course), "student:" + enrolled.id.ToString()};
    std::vector<AppendRequest> appends;
    appends.push_back({"enrolment-" + enrolled.id.ToString(), Expected::no_stream(), {enrolled}});
    auto result = CommitOnce(store, std::move(appends), std::move(options), async);
    if (!result.ok()) {
      if (result.status().condition_position()) continue;  // lost a race: read again
      std::fprintf(stderr, "commit: %s\n", result.status().ToString().c_str());
      return void(failed = true);
    }
    std::lock_guard lock(out_mu);
    std::fprintf(stdout, "ack %s %d\n", enrolled.id.ToString().c_str(), course);
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 && !(argc == 5 && std::strcmp(argv[4], "async") == 0)) {
    std::fprintf(stderr, "usage: dcb_crash_writer DIR THREADS CAPACITY [async]\n");
    return 2;
  }
  auto store = Store::Open(std::string("file:") + argv[1]);
  if (!store.ok()) {
    std::fprintf(stderr, "open: %s\n", store.status().ToString().c_str());
    return 1;
  }
  std::fprintf(stdout, "ready\n");
  std::fflush(stdout);
  const auto capacity = static_cast<std::size_t>(std::atoi(argv[3]));
  std::atomic<bool> failed{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < std::atoi(argv[2]); ++t)
    threads.emplace_back([&] { Writer(**store, capacity, argc == 5, failed); });
  for (auto& t : threads) t.join();
  return failed ? 1 : 0;
}

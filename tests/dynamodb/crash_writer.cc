// The DynamoDB crash test's writer: opens the store of argv[1] (its $all
// indexer runs in this process too), appends single events with `any` to
// argv[2] streams in turn, and prints "STREAM VERSION" for each
// acknowledged append, until it is killed.
#include <indelible/store.h>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: dynamodb_crash_writer URL STREAMS\n");
    return 2;
  }
  auto store = indelible::Store::Open(argv[1]);
  if (!store.ok()) {
    std::fprintf(stderr, "dynamodb_crash_writer: %s\n", store.status().ToString().c_str());
    return 1;
  }
  const int streams = std::stoi(argv[2]);
  for (long i = 0;; ++i) {
    const std::string stream = "crash-" + std::to_string(i % streams);
    indelible::EventData event;
    event.id = indelible::EventId::Random();
    event.type = "Written";
    event.data = "{\"i\":" + std::to_string(i) + "}";
    auto appended = (*store)->Append(stream, indelible::Expected::any(), {event});
    if (!appended.ok()) continue;  // unavailable: outcome unknown, not acknowledged
    std::printf("%s %lld\n", stream.c_str(),
                static_cast<long long>(appended->last_version.value()));
    std::fflush(stdout);
  }
}

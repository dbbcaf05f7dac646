// A program built against an installed indelible (scripts/check-install.sh):
// appends an event to a memory: store and reads it back; in a build without
// an integration, checks that asking for it names the option to turn on.
// Exits 0 when all is as expected.
#include <indelible/config.h>
#include <indelible/nats_relay.h>
#include <indelible/read_store.h>
#include <indelible/store.h>

#include <cstdio>
#include <string>

namespace {

int Fail(const std::string& what) {
  std::fprintf(stderr, "consumer: %s\n", what.c_str());
  return 1;
}

// Whether `status` failed naming the CMake option that would have helped.
bool NamesOption(const indelible::Status& status, const std::string& option) {
  return !status.ok() && status.ToString().find("-D" + option + "=ON") != std::string::npos;
}

}  // namespace

int main() {
  using namespace indelible;
  auto store = Store::Open("memory:");
  if (!store.ok()) return Fail("open: " + store.status().ToString());

  EventData event;
  event.id = EventId::Random();
  event.type = "Deposited";
  event.data = R"({"amount":100})";
  auto appended = (*store)->Append("account-42", Expected::no_stream(), {event});
  if (!appended.ok()) return Fail("append: " + appended.status().ToString());

  auto cursor = (*store)->ReadStream("account-42");
  if (!cursor.ok()) return Fail("read: " + cursor.status().ToString());
  int events = 0;
  for (; (*cursor)->Valid(); (*cursor)->Next()) {
    const EventView& read = (*cursor)->event();
    if (read.id != event.id || read.type != "Deposited" || read.data != event.data)
      return Fail("read back another event than the one appended");
    ++events;
  }
  if (!(*cursor)->status().ok()) return Fail("read: " + (*cursor)->status().ToString());
  if (events != 1) return Fail("read " + std::to_string(events) + " events, not 1");

  if (!INDELIBLE_HAVE_DYNAMODB) {
    auto dynamodb = Store::Open("dynamodb://127.0.0.1:8000?region=us-east-1");
    if (dynamodb.ok() || !NamesOption(dynamodb.status(), "INDELIBLE_WITH_DYNAMODB"))
      return Fail("dynamodb:// in a build without DynamoDB should name INDELIBLE_WITH_DYNAMODB");
  }
  if (!INDELIBLE_HAVE_POSTGRES) {
    auto postgres = ReadStore::Open("postgresql://user@127.0.0.1:5432/db");
    if (postgres.ok() || !NamesOption(postgres.status(), "INDELIBLE_WITH_POSTGRES"))
      return Fail(
          "postgresql:// in a build without PostgreSQL should name INDELIBLE_WITH_POSTGRES");
  }
  if (!INDELIBLE_HAVE_NATS) {
    auto relay = NatsRelay::Connect(NatsRelayOptions{});
    if (relay.ok() || !NamesOption(relay.status(), "INDELIBLE_WITH_NATS"))
      return Fail("NatsRelay in a build without NATS should name INDELIBLE_WITH_NATS");
  }
  std::printf("consumer: ok (indelible %s; nats %d, postgres %d, dynamodb %d)\n", INDELIBLE_VERSION,
              INDELIBLE_HAVE_NATS, INDELIBLE_HAVE_POSTGRES, INDELIBLE_HAVE_DYNAMODB);
  return 0;
}

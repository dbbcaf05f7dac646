// scavenge, erase: removing events for good (docs/RETENTION.md). Both are
// irreversible; a scavenge removes only what retention already hides from
// every read, an erasure a whole stream's events.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "api/scavenge.h"
#include "api/wire.h"
#include "cli/cli.h"
#include "cli/progress.h"

namespace indelible::cli {
namespace {

// A scavenge through a server reports no progress until its answer: say
// on a terminal that it is running there, and erase the line after.
class ServerWaitNote {
 public:
  ServerWaitNote() : shown_(::isatty(STDERR_FILENO) == 1) {
    if (shown_) Write("scavenge: running on the server (no progress until it answers)...");
  }
  ~ServerWaitNote() {
    if (shown_) Write("\r\033[K");
  }
  ServerWaitNote(const ServerWaitNote&) = delete;
  ServerWaitNote& operator=(const ServerWaitNote&) = delete;

 private:
  static void Write(std::string_view text) {
    (void)::write(STDERR_FILENO, text.data(), text.size());
  }
  bool shown_;
};

// "1 event", "4 events".
std::string Counted(std::uint64_t n, std::string_view noun) {
  return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

int RunScavenge(const Cli& cli) {
  // A writer: with --data the folder must not be in use (a running server
  // holds it: scavenge through it with --url).
  auto store = cli.OpenStore();
  if (!store.ok()) return cli.Fail(store.status());
  const auto started = std::chrono::steady_clock::now();
  Result<ScavengeReport> report = [&]() -> Result<ScavengeReport> {
    if (cli.remote()) {
      ServerWaitNote note;
      return (*store)->Scavenge(nullptr);
    }
    Progress progress("scavenge", 0, "streams");
    return (*store)->Scavenge([&](std::uint64_t done, std::uint64_t total) {
      progress.set_total(total);
      progress.Update(done);
    });
  }();
  if (!report.ok()) return cli.Fail(report.status());
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::steady_clock::now() - started)
                        .count();
  if (cli.json) {
    std::printf("%s\n", api::ScavengeReportToJson(*report, took).c_str());
  } else {
    std::printf("scavenged %s of %s\n", Counted(report->events, "event").c_str(),
                Counted(report->streams, "stream").c_str());
    std::printf("%llu bytes of records; data folder %llu bytes before, %llu after; %.1f s\n",
                static_cast<unsigned long long>(report->bytes),
                static_cast<unsigned long long>(report->disk_bytes_before),
                static_cast<unsigned long long>(report->disk_bytes_after),
                static_cast<double>(took) / 1000.0);
  }
  return 0;
}

struct EraseArgs {
  std::string stream;
  std::string expected = "any";
};

int RunErase(const Cli& cli, const EraseArgs& args) {
  auto expected = ParseExpected(args.expected);
  if (!expected.ok()) return cli.Fail(expected.status());
  auto store = cli.OpenStore();
  if (!store.ok()) return cli.Fail(store.status());
  auto result = (*store)->Erase(args.stream, *expected);
  if (!result.ok()) return cli.Fail(result.status());
  if (cli.json) {
    std::printf("%s\n", api::AppendResultToJson(*result).c_str());
  } else {
    std::printf("erased %s (tombstone version %lld); its events are gone for good\n",
                args.stream.c_str(), static_cast<long long>(result->last_version.value()));
  }
  return 0;
}

}  // namespace

void AddRetentionVerbs(CLI::App& app, Cli& cli) {
  CLI::App* scavenge = app.add_subcommand(
      "scavenge",
      "remove for good the bytes of the events every stream's retention hides, then compact "
      "(docs/RETENTION.md); --data: stop the server first; --url: the server does it (admin)");
  scavenge->callback([&cli] { cli.run = [&cli] { return RunScavenge(cli); }; });

  auto args = std::make_shared<EraseArgs>();
  CLI::App* erase = app.add_subcommand(
      "erase",
      "hard-delete a stream: a tombstone, and its events removed for good (irreversible; "
      "`delete` keeps them)");
  erase->add_option("stream", args->stream, "stream name")->required();
  erase->add_option("--expected", args->expected, "any | exists | VERSION")->capture_default_str();
  erase->callback([&cli, args] { cli.run = [&cli, args] { return RunErase(cli, *args); }; });
}

}  // namespace indelible::cli

// check, rebuild-index, bench.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>

#include "bench/bench_main.h"
#include "cli/cli.h"
#include "cli/progress.h"
#include "indelible/config.h"
#include "storage/embedded/embedded_store.h"
#if INDELIBLE_HAVE_DYNAMODB
#include "storage/dynamodb/dynamodb_store.h"
#endif

namespace indelible::cli {
namespace {

int CheckFormat1(const Cli& cli, const std::string& folder) {
  Progress progress("check", 0);
  auto events =
      storage::CheckEmbeddedFolderV1(folder, [&](std::uint64_t done, std::uint64_t total) {
        progress.set_total(total);
        progress.Update(done);
      });
  progress.Finish();
  if (!events.ok()) return cli.Fail(events.status());
  if (cli.json) {
    std::printf("{\"ok\":true,\"events\":%llu,\"format\":1}\n",
                static_cast<unsigned long long>(*events));
  } else {
    std::printf(
        "ok: %llu events, checksums and indexes verified (format 1: `indelible --data %s upgrade` "
        "brings it to format 3)\n",
        static_cast<unsigned long long>(*events), folder.c_str());
  }
  return 0;
}

int Upgrade(const Cli& cli) {
  if (Status s = cli.RequireLocal("upgrade"); !s.ok()) return cli.Fail(s);
  if (cli.data.starts_with("dynamodb://")) {
#if !INDELIBLE_HAVE_DYNAMODB
    return cli.Fail(Status::Invalid("data", INDELIBLE_NO_DYNAMODB));
#else
    // Streams with a tip of the earlier layout become append items, online
    // (docs/DYNAMODB.md, "Upgrading a table").
    Progress progress("upgrade", 0);
    auto converted =
        dynamodb::UpgradeDynamoDbLayout(cli.data, [&](std::size_t done, std::size_t total) {
          progress.set_total(total);
          progress.Update(done);
        });
    progress.Finish();
    if (!converted.ok()) return cli.Fail(converted.status());
    if (cli.json) {
      std::printf("{\"ok\":true,\"converted\":%zu}\n", *converted);
    } else {
      std::printf("%zu streams converted to append items; the table holds no tips\n", *converted);
    }
    return 0;
#endif
  }
  auto folder = cli.EmbeddedFolder();
  if (!folder)
    return cli.Fail(Status::Invalid(
        "data", fmt::format("upgrade works on an embedded data folder or a dynamodb:// store; "
                            "'{}' is neither",
                            cli.data)));
  auto format = storage::EmbeddedFolderFormat(*folder);
  if (!format.ok()) return cli.Fail(format.status());
  if (*format == 0)
    return cli.Fail(Status::NotFound(fmt::format("'{}' holds no data folder", *folder)));
  if (*format == 4) {
    if (cli.json) {
      std::printf("{\"ok\":true,\"format\":4,\"upgraded\":false}\n");
    } else {
      std::printf("%s is already in format 4: nothing to do\n", folder->c_str());
    }
    return 0;
  }
  Progress progress("upgrade", 0);
  const auto start = std::chrono::steady_clock::now();
  Status s = storage::UpgradeEmbeddedStore(*folder, [&](std::uint64_t done, std::uint64_t total) {
    progress.set_total(total);
    progress.Update(done);
  });
  progress.Finish();
  if (!s.ok()) return cli.Fail(s);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (cli.json) {
    std::printf("{\"ok\":true,\"format\":4,\"from\":%d,\"upgraded\":true,\"seconds\":%.3f}\n",
                *format, seconds);
  } else {
    std::printf("upgraded %s from format %d to 4 in %.1f s\n", folder->c_str(), *format, seconds);
  }
  return 0;
}

}  // namespace

void AddAdminVerbs(CLI::App& app, Cli& cli) {
  CLI::App* check = app.add_subcommand(
      "check", "verify every record's checksum and every index of the data folder");
  check->callback([&cli] {
    cli.run = [&cli]() -> int {
      if (Status s = cli.RequireLocal("check"); !s.ok()) return cli.Fail(s);
      // A folder not upgraded yet is checked as format 1, read-only.
      if (auto folder = cli.EmbeddedFolder()) {
        auto format1 = storage::EmbeddedFolderIsFormat1(*folder);
        if (!format1.ok()) return cli.Fail(format1.status());
        if (*format1) return CheckFormat1(cli, *folder);
      }
      auto store = cli.OpenReader();
      if (!store.ok()) return cli.Fail(store.status());
      Progress progress("check", 0);
      Status s = (*store)->Check([&](std::uint64_t done, std::uint64_t total) {
        progress.set_total(total);
        progress.Update(done);
      });
      progress.Finish();
      if (!s.ok()) return cli.Fail(s);
      const auto events = (*store)->LastPosition().value();
      if (cli.json) {
        std::printf("{\"ok\":true,\"events\":%llu}\n", static_cast<unsigned long long>(events));
      } else {
        std::printf("ok: %llu events, checksums and indexes verified\n",
                    static_cast<unsigned long long>(events));
      }
      return 0;
    };
  });

  CLI::App* upgrade = app.add_subcommand(
      "upgrade",
      "upgrade an embedded data folder to this build's format, in place (docs/FORMAT.md; stop "
      "the server that uses it first), or a DynamoDB store's streams to append items, online "
      "(docs/DYNAMODB.md)");
  upgrade->callback([&cli] { cli.run = [&cli] { return Upgrade(cli); }; });

  CLI::App* rebuild = app.add_subcommand(
      "rebuild-index",
      "rebuild $all of a DynamoDB store (--data dynamodb://...) from its events table, online: "
      "writers and servers keep running");
  rebuild->callback([&cli] {
    cli.run = [&cli]() -> int {
      if (Status s = cli.RequireLocal("rebuild-index"); !s.ok()) return cli.Fail(s);
      if (!cli.data.starts_with("dynamodb://"))
        return cli.Fail(Status::Invalid(
            "data", fmt::format("rebuild-index rebuilds the $all index of a DynamoDB store; '{}' "
                                "is not a dynamodb:// URL (an embedded store's $all is its log: "
                                "use `indelible check`)",
                                cli.data)));
#if !INDELIBLE_HAVE_DYNAMODB
      return cli.Fail(Status::Invalid("data", INDELIBLE_NO_DYNAMODB));
#else
      Progress progress("rebuild", 0);
      dynamodb::RebuildOptions options;
      options.progress = [&](std::uint64_t done, std::uint64_t total) {
        progress.set_total(total);
        progress.Update(done);
      };
      auto report = dynamodb::RebuildDynamoDbIndex(cli.data, options);
      progress.Finish();
      if (!report.ok()) return cli.Fail(report.status());
      if (cli.json) {
        std::printf(
            "{\"ok\":true,\"streams\":%llu,\"kept\":%llu,\"added\":%llu,\"removed\":%llu,"
            "\"caught_up\":%llu,\"last\":%llu}\n",
            static_cast<unsigned long long>(report->streams),
            static_cast<unsigned long long>(report->kept),
            static_cast<unsigned long long>(report->added),
            static_cast<unsigned long long>(report->removed),
            static_cast<unsigned long long>(report->caught_up),
            static_cast<unsigned long long>(report->last.value()));
      } else {
        std::printf(
            "rebuilt $all: %llu events of %llu streams (%llu kept, %llu added, %llu "
            "stale items removed; %llu appended meanwhile, indexed by its catch-up)\n",
            static_cast<unsigned long long>(report->last.value()),
            static_cast<unsigned long long>(report->streams),
            static_cast<unsigned long long>(report->kept),
            static_cast<unsigned long long>(report->added),
            static_cast<unsigned long long>(report->removed),
            static_cast<unsigned long long>(report->caught_up));
      }
      return 0;
#endif
    };
  });

  auto args = std::make_shared<std::vector<std::string>>();
  CLI::App* bench = app.add_subcommand("bench", "benchmarks (indelible bench --help)");
  bench->allow_extras();
  bench->prefix_command();
  bench->fallthrough(false);  // every flag after `bench` is the benchmarks'
  bench->set_help_flag();     // --help goes to the benchmarks' own parser
  bench->callback([&cli, bench, args] {
    *args = bench->remaining();
    cli.run = [&cli, args] {
      if (Status s = cli.RequireLocal("bench"); !s.ok()) return cli.Fail(s);
      return indelible::bench::Main(*args);
    };
  });
}

}  // namespace indelible::cli

// check, bench.
#include <cstdio>

#include "bench/bench_main.h"
#include "cli/cli.h"
#include "cli/progress.h"

namespace indelible::cli {

void AddAdminVerbs(CLI::App& app, Cli& cli) {
  CLI::App* check = app.add_subcommand(
      "check", "verify every record's checksum and every index of the data folder");
  check->callback([&cli] {
    cli.run = [&cli]() -> int {
      if (Status s = cli.RequireLocal("check"); !s.ok()) return cli.Fail(s);
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

  auto args = std::make_shared<std::vector<std::string>>();
  CLI::App* bench = app.add_subcommand("bench", "benchmarks (indelible bench --help)");
  bench->allow_extras();
  bench->prefix_command();
  bench->set_help_flag();  // --help goes to the benchmarks' own parser
  bench->callback([&cli, bench, args] {
    *args = bench->remaining();
    cli.run = [&cli, args] {
      if (Status s = cli.RequireLocal("bench"); !s.ok()) return cli.Fail(s);
      return indelible::bench::Main(*args);
    };
  });
}

}  // namespace indelible::cli

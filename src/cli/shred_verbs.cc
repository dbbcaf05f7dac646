// shred, rewrap-keys: crypto-shredding's operator verbs (docs/RETENTION.md).
// A shred deletes a subject's keys, so its events read as redacted from
// then on; rewrap-keys moves every subject key under the first master key
// (master key rotation).
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>

#include "cli/cli.h"
#include "cli/progress.h"
#include "core/event_json.h"

namespace indelible::cli {
namespace {

int RunShred(const Cli& cli, const std::string& subject) {
  auto store = cli.OpenStore();
  if (!store.ok()) return cli.Fail(store.status());
  auto report = (*store)->ShredSubject(subject);
  if (!report.ok()) return cli.Fail(report.status());
  if (cli.json) {
    std::printf("{\"subject\":%s,\"keys\":%llu}\n", QuoteJson(subject).c_str(),
                static_cast<unsigned long long>(report->keys));
  } else if (report->keys == 0) {
    std::printf("subject %s had no key: nothing was sealed for it (check the name)\n",
                subject.c_str());
  } else {
    std::printf(
        "shredded subject %s: %llu key%s deleted; its events read as redacted from now on\n",
        subject.c_str(), static_cast<unsigned long long>(report->keys),
        report->keys == 1 ? "" : "s");
  }
  return 0;
}

int RunRewrap(const Cli& cli) {
  if (Status s = cli.RequireLocal("rewrap-keys"); !s.ok()) return cli.Fail(s);
  auto store = cli.OpenStore();
  if (!store.ok()) return cli.Fail(store.status());
  Progress progress("rewrap-keys", 0, "keys");
  auto rewrapped = (*store)->RewrapSubjectKeys([&](std::uint64_t done, std::uint64_t total) {
    progress.set_total(total);
    progress.Update(done);
  });
  if (!rewrapped.ok()) return cli.Fail(rewrapped.status());
  if (cli.json)
    std::printf("{\"rewrapped\":%llu}\n", static_cast<unsigned long long>(*rewrapped));
  else
    std::printf("rewrapped %llu subject key records under the first master key\n",
                static_cast<unsigned long long>(*rewrapped));
  return 0;
}

}  // namespace

void AddShredVerbs(CLI::App& app, Cli& cli) {
  auto subject = std::make_shared<std::string>();
  CLI::App* shred = app.add_subcommand(
      "shred",
      "crypto-shredding: delete a subject's keys, so every event tagged subject:SUBJECT reads as "
      "redacted (irreversible; docs/RETENTION.md)");
  shred->add_option("subject", *subject, "the subject (the part after `subject:` in the tag)")
      ->required();
  shred->callback(
      [&cli, subject] { cli.run = [&cli, subject] { return RunShred(cli, *subject); }; });

  CLI::App* rewrap =
      app.add_subcommand("rewrap-keys",
                         "master key rotation: wrap every subject key with the first master key of "
                         "--master-key-file (the old ones listed after it)");
  rewrap->callback([&cli] { cli.run = [&cli] { return RunRewrap(cli); }; });
}

}  // namespace indelible::cli

// project: read models from a terminal (docs/PROJECTIONS.md).
//
// list, retry and skip need only the read store, so `indelible project`
// offers them for any projection. run and rebuild need the projection's
// code: they work in programs that link their projections and hand them to
// AddProjectVerbs (indelible-todo project ..., see project_command.h).
#include "cli/project_verbs.h"

#include <fmt/format.h>

#include <atomic>
#include <csignal>
#include <thread>

#include "cli/cli.h"
#include "cli/progress.h"

namespace indelible::cli {
namespace {

std::atomic<bool> g_stop{false};
extern "C" void OnProjectSignal(int) { g_stop = true; }

struct ProjectArgs {
  std::string read_store;  // --read-store; default beside the --data folder
  std::vector<std::string> names;
  bool until_caught_up = false;
};

std::string StoreUrl(const Cli& cli) {
  return cli.data.find(':') == std::string::npos ? "file:" + cli.data : cli.data;
}

Result<std::string> ReadStoreUrl(const Cli& cli, const ProjectArgs& args) {
  if (!args.read_store.empty()) return args.read_store;
  return ReadStore::DefaultUrlFor(StoreUrl(cli));
}

Result<std::unique_ptr<ReadStore>> OpenReadStore(const Cli& cli, const ProjectArgs& args) {
  auto url = ReadStoreUrl(cli, args);
  if (!url.ok()) return url.status();
  return ReadStore::Open(*url);
}

std::string StatusLine(const ProjectionStatus& s, std::uint64_t last) {
  std::string line = fmt::format("{} v{} copy {} at position {}", s.name, s.version, s.generation,
                                 s.position.value());
  if (last > 0)
    line += fmt::format(" of {} (lag {})", last,
                        last > s.position.value() ? last - s.position.value() : 0);
  if (s.building_generation)
    line += fmt::format(", rebuilding copy {} at {}", *s.building_generation,
                        s.building_position.value());
  if (s.parked > 0) line += fmt::format(", {} parked", s.parked);
  if (s.blocked_at)
    line += fmt::format(", BLOCKED at {}: {}", s.blocked_at->value(), s.blocked_reason);
  return line;
}

std::string StatusJson(const ProjectionStatus& s) {
  return fmt::format(
      R"({{"name":"{}","version":{},"generation":{},"position":{},"blocked":{},"parked":{}}})",
      s.name, s.version, s.generation, s.position.value(),
      s.blocked_at ? std::to_string(s.blocked_at->value()) : "null", s.parked);
}

const Projection* Find(const std::vector<Projection>& known, const std::string& name) {
  for (const auto& p : known)
    if (p.name == name) return &p;
  return nullptr;
}

// The projections named on the command line (all when none is named).
Result<std::vector<const Projection*>> Chosen(const std::vector<Projection>& known,
                                              const std::vector<std::string>& names,
                                              std::string_view verb) {
  std::vector<const Projection*> out;
  if (known.empty())
    return Status::Invalid("projection",
                           fmt::format("`indelible project {}` needs the projection's code: run "
                                       "it from the program that defines the projection (for "
                                       "the examples: indelible-todo project {}, "
                                       "indelible-ratings project {})",
                                       verb, verb, verb));
  if (names.empty())
    for (const auto& p : known) out.push_back(&p);
  for (const auto& name : names) {
    const Projection* p = Find(known, name);
    if (p == nullptr) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k.name;
      return Status::NotFound(fmt::format("no projection '{}' here (known: {})", name, list));
    }
    out.push_back(p);
  }
  return out;
}

int List(Cli& cli, const ProjectArgs& args) {
  auto db = OpenReadStore(cli, args);
  if (!db.ok()) return cli.Fail(db.status());
  auto all = ListProjections(**db);
  if (!all.ok()) return cli.Fail(all.status());
  std::uint64_t last = 0;
  if (auto store = cli.OpenReader(); store.ok()) last = (*store)->LastPosition().value();
  for (const auto& s : *all) {
    if (!args.names.empty() &&
        std::find(args.names.begin(), args.names.end(), s.name) == args.names.end())
      continue;
    std::printf("%s\n", (cli.json ? StatusJson(s) : StatusLine(s, last)).c_str());
  }
  return 0;
}

int Operator(Cli& cli, const ProjectArgs& args, bool skip) {
  auto db = OpenReadStore(cli, args);
  if (!db.ok()) return cli.Fail(db.status());
  for (const auto& name : args.names) {
    Status s = skip ? SkipProjection(**db, name) : RetryProjection(**db, name);
    if (!s.ok()) return cli.Fail(s);
    std::printf("%s: %s requested; the projection's runner acts on it within a second\n",
                name.c_str(), skip ? "skip" : "retry");
  }
  return 0;
}

int Rebuild(Cli& cli, const ProjectArgs& args, const std::vector<Projection>& known) {
  auto chosen = Chosen(known, args.names, "rebuild");
  if (!chosen.ok()) return cli.Fail(chosen.status());
  auto url = ReadStoreUrl(cli, args);
  if (!url.ok()) return cli.Fail(url.status());
  // A follower: the rebuild may run beside a server that writes the folder.
  auto store = OpenUpcastingReader(cli);
  if (!store.ok()) return cli.Fail(store.status());
  for (const Projection* p : *chosen) {
    auto runner = ProjectionRunner::Open(**store, *url, *p);
    if (!runner.ok()) return cli.Fail(runner.status());
    Progress progress("rebuild " + p->name, (*store)->LastPosition().value());
    RebuildProgress last;
    Status s = (*runner)->Rebuild([&](const RebuildProgress& r) {
      progress.set_total(r.target.value());
      progress.Update(r.position.value());
      last = r;
    });
    progress.Finish();
    if (!s.ok()) return cli.Fail(s);
    auto status = (*runner)->status();
    if (!status.ok()) return cli.Fail(status.status());
    std::printf("rebuilt %s: %llu events applied, %.0f events/s; now copy %lld at position %llu\n",
                p->name.c_str(), static_cast<unsigned long long>(last.events),
                last.events_per_second, static_cast<long long>(status->generation),
                static_cast<unsigned long long>(status->position.value()));
  }
  return 0;
}

int Run(Cli& cli, const ProjectArgs& args, const std::vector<Projection>& known) {
  auto chosen = Chosen(known, args.names, "run");
  if (!chosen.ok()) return cli.Fail(chosen.status());
  auto url = ReadStoreUrl(cli, args);
  if (!url.ok()) return cli.Fail(url.status());
  auto store = OpenUpcastingReader(cli);
  if (!store.ok()) return cli.Fail(store.status());
  std::vector<std::unique_ptr<ProjectionRunner>> runners;
  for (const Projection* p : *chosen) {
    auto runner = ProjectionRunner::Open(**store, *url, *p);
    if (!runner.ok()) return cli.Fail(runner.status());
    runners.push_back(std::move(*runner));
  }
  if (args.until_caught_up) {
    for (auto& runner : runners) {
      auto applied = runner->CatchUp();
      if (!applied.ok()) return cli.Fail(applied.status());
      auto status = runner->status();
      if (!status.ok()) return cli.Fail(status.status());
      std::printf("%s (%llu applied)\n", StatusLine(*status, 0).c_str(),
                  static_cast<unsigned long long>(*applied));
    }
    return 0;
  }
  std::signal(SIGINT, OnProjectSignal);
  std::signal(SIGTERM, OnProjectSignal);
  for (auto& runner : runners) runner->Start();
  std::fprintf(stderr, "running %zu projection(s) into %s; Ctrl-C stops\n", runners.size(),
               url->c_str());
  while (!g_stop) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  for (auto& runner : runners) runner->Stop();
  return 0;
}

}  // namespace

void AddProjectVerbs(CLI::App& app, Cli& cli, const std::vector<Projection>* projections) {
  auto args = std::make_shared<ProjectArgs>();
  CLI::App* project = app.add_subcommand("project", "read models: list, run, rebuild, retry, skip");
  project->require_subcommand(1);
  project->add_option("--read-store", args->read_store,
                      "sqlite:PATH or postgresql://USER@HOST:PORT/DB (default: sqlite:DIR.read.db "
                      "beside the --data folder)");
  auto verb = [&](const char* name, const char* help, auto body) {
    CLI::App* sub = project->add_subcommand(name, help);
    sub->add_option("names", args->names, "projection names");
    sub->callback([&cli, args, body, projections] {
      cli.run = [&cli, args, body, projections] { return body(cli, *args, *projections); };
    });
    return sub;
  };
  verb("list", "every projection in the read store: copy, checkpoint, lag, block",
       [](Cli& c, const ProjectArgs& a, const std::vector<Projection>&) { return List(c, a); });
  verb("retry", "apply a blocked projection's event again",
       [](Cli& c, const ProjectArgs& a, const std::vector<Projection>&) {
         return Operator(c, a, false);
       });
  verb("skip", "pass over a blocked projection's event",
       [](Cli& c, const ProjectArgs& a, const std::vector<Projection>&) {
         return Operator(c, a, true);
       });
  verb("rebuild", "replay $all into a new copy, then switch to it atomically", Rebuild);
  verb("run", "keep projections up to date until Ctrl-C", Run)
      ->add_flag("--until-caught-up", args->until_caught_up, "stop once caught up");
}

}  // namespace indelible::cli

// indelible-ratings: users rate links and follow each other (the reference
// "serverless ratings" application; ratings_service.h lists the routes),
// with the standard API on the same port, so /streams/user-{id} shows the
// events behind each user. The read side is two projections in a read store
// (ratings_read_model.h), kept up to date by runners in this process.
#include <indelible/project_command.h>
#include <indelible/read_store.h>
#include <indelible/schemas.h>
#include <indelible/serve_flags.h>
#include <indelible/server.h>
#include <indelible/store.h>
#include <stdlib.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>

#include "ratings_projections.h"
#include "ratings_read_model.h"
#include "ratings_schemas.h"
#include "ratings_service.h"
#include "user.h"

namespace {

// A folder of its own under $TMPDIR, removed at exit: the read store of a
// memory: store, whose events die with the process. A kept read store
// would hold a checkpoint past the next run's events, which start over at 1.
class ScratchFolder {
 public:
  ~ScratchFolder() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  bool Create() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/indelible-ratings-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) return false;
    path_ = pattern;
    return true;
  }
  std::string Sub(const char* name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

int Fail(const std::string& message) {
  std::fprintf(stderr, "indelible-ratings: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  // indelible-ratings project list|run|rebuild|retry|skip: the read models' tools.
  if (argc > 1 && std::string_view(argv[1]) == "project")
    return indelible::RunProjectCommand(argc, argv, ratings::ReadModelProjections());
  CLI::App app{"indelible-ratings: rate links and follow users, on event streams"};
  indelible::ServeOptions options;
  std::string store_url = "file:./ratings-data";
  std::string read_store_url;
  app.add_option("--listen", options.listen, "HOST:PORT to listen on (port 0: any free)")
      ->capture_default_str();
  app.add_option("--store", store_url, "store URL: file:PATH or memory:")->capture_default_str();
  app.add_option("--read-store", read_store_url,
                 "read models: sqlite:PATH or postgresql://USER@HOST:PORT/DB (default: "
                 "sqlite:DIR.read.db beside a file:DIR store; a temporary file for memory:)");
  app.add_flag("--log-requests", options.log_requests, "one JSON line per request on stderr");
  // TLS and the other security flags of `indelible serve` (docs/SECURITY.md).
  indelible::AddServeSecurityFlags(app, options);
  CLI11_PARSE(app, argc, argv);

  ScratchFolder scratch;  // outlives the read model, whose files it may hold
  if (read_store_url.empty() && store_url.starts_with("memory:")) {
    if (!scratch.Create()) return Fail("cannot create a temporary folder for the read store");
    read_store_url = "sqlite:" + scratch.Sub("read.db");
  } else if (read_store_url.empty()) {
    auto beside = indelible::ReadStore::DefaultUrlFor(store_url);
    if (!beside.ok()) return Fail(beside.status().message() + " (--read-store)");
    read_store_url = *beside;
  }
  auto opened = indelible::Store::Open(store_url);
  if (!opened.ok()) return Fail(opened.status().ToString());
  // Everything reads through the SchemaStore, so the entity, the
  // projections (and their rebuilds) and the standard API see the rating
  // events as V2, however old they are (ratings_schemas.h).
  auto store = indelible::SchemaStore::Wrap(std::move(*opened));
  if (!store.ok()) return Fail(store.status().ToString());
  if (indelible::Status s = ratings::RegisterRatingSchemas((*store)->schemas()); !s.ok())
    return Fail("schemas: " + s.ToString());
  // Declared in this order so that they go in reverse: the routes (inside
  // Serve) stop before the read model and the entity they use.
  const indelible::Rules<ratings::UserState> rules = ratings::UserRules();
  const ratings::Users users(**store, rules, ratings::UserEntityOptions());
  auto model = ratings::RatingsReadModel::Open(**store, read_store_url);
  if (!model.ok()) return Fail("read model: " + model.status().ToString());
  options.routes = ratings::RatingsRoutes(users, **model);
  indelible::Status served = indelible::Serve(**store, options);
  if (!served.ok()) return Fail(served.ToString());
  return 0;
}

// indelible-todo: the todo service of the reference design (todo_service.h),
// with the standard API on the same port, so /streams/todo-{id} shows the
// events behind each todo.
#include <indelible/project_command.h>
#include <indelible/serve_flags.h>
#include <indelible/server.h>
#include <indelible/store.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "todo_projection.h"
#include "todo_read_model.h"
#include "todo_service.h"

int main(int argc, char** argv) {
  // indelible-todo project list|run|rebuild|retry|skip: the read model's tools.
  if (argc > 1 && std::string_view(argv[1]) == "project")
    return indelible::RunProjectCommand(argc, argv, {todo::TodoProjection()});
  CLI::App app{"indelible-todo: a todo REST service on event streams"};
  indelible::ServeOptions options;
  std::string store_url = "file:./todo-data";
  app.add_option("--listen", options.listen, "HOST:PORT to listen on (port 0: any free)")
      ->capture_default_str();
  app.add_option("--store", store_url, "store URL: file:PATH, memory: or dynamodb://HOST:PORT?...")
      ->capture_default_str();
  std::string read_store_url;
  app.add_option("--read-store", read_store_url,
                 "read model: sqlite:PATH or postgresql://USER@HOST:PORT/DB "
                 "(default: sqlite:DIR.read.db beside a file:DIR store; "
                 "sqlite:./PREFIXread.db for a dynamodb:// store)");
  app.add_flag("--log-requests", options.log_requests, "one JSON line per request on stderr");
  // TLS and the other security flags of `indelible serve` (docs/SECURITY.md).
  indelible::AddServeSecurityFlags(app, options);
  CLI11_PARSE(app, argc, argv);

  auto store = indelible::Store::Open(store_url);
  if (!store.ok()) {
    std::fprintf(stderr, "indelible-todo: %s\n", store.status().ToString().c_str());
    return 1;
  }
  if (read_store_url.empty()) {
    auto beside = indelible::ReadStore::DefaultUrlFor(store_url);
    if (!beside.ok()) {
      std::fprintf(stderr, "indelible-todo: %s (--read-store)\n",
                   beside.status().message().c_str());
      return 1;
    }
    read_store_url = *beside;
  }
  auto model = todo::TodoReadModel::Open(**store, read_store_url);
  if (!model.ok()) {
    std::fprintf(stderr, "indelible-todo: read model: %s\n", model.status().ToString().c_str());
    return 1;
  }
  options.routes = todo::TodoRoutes(**store, **model);
  indelible::Status served = indelible::Serve(**store, options);
  if (!served.ok()) {
    std::fprintf(stderr, "indelible-todo: %s\n", served.ToString().c_str());
    return 1;
  }
  return 0;
}

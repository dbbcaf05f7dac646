// indelible-ratings: users rate links and follow each other (the reference
// "serverless ratings" application; ratings_service.h lists the routes),
// with the standard API on the same port, so /streams/user-{id} shows the
// events behind each user.
#include <indelible/server.h>
#include <indelible/store.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "ratings_read_model.h"
#include "ratings_service.h"
#include "user.h"

int main(int argc, char** argv) {
  CLI::App app{"indelible-ratings: rate links and follow users, on event streams"};
  indelible::ServeOptions options;
  std::string store_url = "file:./ratings-data";
  app.add_option("--listen", options.listen, "HOST:PORT to listen on (port 0: any free)")
      ->capture_default_str();
  app.add_option("--store", store_url, "store URL: file:PATH or memory:")->capture_default_str();
  app.add_flag("--log-requests", options.log_requests, "one JSON line per request on stderr");
  CLI11_PARSE(app, argc, argv);

  auto store = indelible::Store::Open(store_url);
  if (!store.ok()) {
    std::fprintf(stderr, "indelible-ratings: %s\n", store.status().ToString().c_str());
    return 1;
  }
  // Declared in this order so that they go in reverse: the routes (inside
  // Serve) stop before the read model and the entity they use.
  const indelible::Rules<ratings::UserState> rules = ratings::UserRules();
  const ratings::Users users(**store, rules, ratings::UserEntityOptions());
  ratings::RatingsReadModel model(**store);
  options.routes = ratings::RatingsRoutes(users, model);
  indelible::Status served = indelible::Serve(**store, options);
  if (!served.ok()) {
    std::fprintf(stderr, "indelible-ratings: %s\n", served.ToString().c_str());
    return 1;
  }
  return 0;
}

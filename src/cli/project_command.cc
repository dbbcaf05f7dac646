#include "indelible/project_command.h"

#include <cstdio>

#include "cli/project_verbs.h"

namespace indelible {

int RunProjectCommand(int argc, char** argv, std::vector<Projection> projections) {
  CLI::App app{"read models of this program's projections"};
  app.require_subcommand(1);
  app.fallthrough();  // --data after `project` too
  cli::Cli cli;
  app.add_option("--data", cli.data, "data folder of the embedded store (or a store URL)")
      ->capture_default_str();
  app.add_flag("--json", cli.json, "machine-readable output: one JSON value per line");
  cli::AddProjectVerbs(app, cli, &projections);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  const int code = cli.run ? cli.run() : 0;
  std::fflush(stdout);
  return code;
}

}  // namespace indelible

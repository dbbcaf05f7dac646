#include "indelible/project_command.h"

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
  return cli.ParseAndRun(app, argc, argv);
}

}  // namespace indelible

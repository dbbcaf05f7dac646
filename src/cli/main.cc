// indelible: the command-line tool. `indelible --help` lists the verbs;
// docs/CLI.md describes them.
#include <cstdio>

#include "cli/cli.h"
#include "cli/project_verbs.h"

int main(int argc, char** argv) {
  using indelible::cli::Cli;
  CLI::App app{"indelible: an event store. Append facts to streams, read them back."};
  app.require_subcommand(1);
  // Global flags go before or after the verb (`keys create admin --role admin
  // --data DIR`): a verb passes the flags it does not know to its parent.
  // Verbs inherit this when they are added, so it comes first.
  app.fallthrough();
  app.footer(
      "The flags above go before or after the verb; but after `append`, --data is the event's "
      "data: give the data folder before `append`.");
  Cli cli;
  CLI::Option* data =
      app.add_option("--data", cli.data, "data folder of the embedded store (or a store URL)")
          ->capture_default_str();
  CLI::Option* url =
      app.add_option("--url", cli.url,
                     "a server (http://HOST:PORT or https://HOST:PORT) to use instead of --data")
          ->excludes(data);
  app.add_option("--ca-file", cli.ca_file,
                 "with an https --url: PEM certificates to trust besides the system's CAs")
      ->needs(url);
  app.add_option("--api-key-file", cli.api_key_file,
                 "with --url: a file holding the API key (or JWT) to send; default: "
                 "$INDELIBLE_API_KEY")
      ->check(CLI::ExistingFile)
      ->needs(url);
  app.add_option("--cert", cli.cert_file,
                 "with an https --url: PEM client certificate, for a server that asks for one "
                 "(mutual TLS)")
      ->needs(url);
  app.add_option("--key", cli.key_file, "the private key of --cert (PEM; default: in --cert)")
      ->needs(url);
  app.add_option("--master-key-file", cli.master_key_file,
                 "crypto-shredding: a file of master keys, the current first (default: "
                 "$INDELIBLE_MASTER_KEY; docs/RETENTION.md)")
      ->check(CLI::ExistingFile)
      ->excludes(url);
  app.add_option("--seal-metadata", cli.sealed_metadata_fields,
                 "crypto-shredding: a metadata field sealed with the data of an event that "
                 "declares a subject (repeatable; e.g. ip)")
      ->excludes(url);
  app.add_flag("--json", cli.json, "machine-readable output: one JSON value per line");
  indelible::cli::AddWriteVerbs(app, cli);
  indelible::cli::AddMetadataVerb(app, cli);
  indelible::cli::AddRetentionVerbs(app, cli);
  indelible::cli::AddShredVerbs(app, cli);
  indelible::cli::AddReadVerbs(app, cli);
  indelible::cli::AddIoVerbs(app, cli);
  indelible::cli::AddAdminVerbs(app, cli);
  indelible::cli::AddServeVerb(app, cli);
  indelible::cli::AddConsumerVerbs(app, cli);
  indelible::cli::AddRelayVerb(app, cli);
  indelible::cli::AddKeyVerbs(app, cli);
  indelible::cli::AddDynamoDbVerbs(app, cli);
  indelible::cli::AddSchemaVerbs(app, cli);
  // No projections of its own: list, retry and skip work on any read store.
  static const std::vector<indelible::Projection> kNoProjections;
  indelible::cli::AddProjectVerbs(app, cli, &kNoProjections);
  return cli.ParseAndRun(app, argc, argv);
}

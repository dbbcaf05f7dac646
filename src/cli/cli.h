// What every verb of the indelible CLI shares: the global flags, opening
// the store, printing results and errors, and the exit codes.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "indelible/client.h"
#include "indelible/store.h"

namespace indelible::cli {

// Exit codes, one per error class (docs/CLI.md).
int ExitCode(ErrorCode code);

struct Cli {
  std::string data = "./indelible-data";  // --data
  std::string url;                        // --url: a server instead of --data
  std::string ca_file;                    // --ca-file: trusted CAs for an https --url
  // --api-key-file: the credential for --url (else $INDELIBLE_API_KEY).
  std::string api_key_file;
  std::string cert_file, key_file;  // --cert, --key: the client's, for mutual TLS
  // --master-key-file: crypto-shredding's master keys (else
  // $INDELIBLE_MASTER_KEY), for a store opened here.
  std::string master_key_file;
  // --seal-metadata: metadata fields sealed with a subject's event data.
  std::vector<std::string> sealed_metadata_fields;
  bool json = false;  // --json
  // Set by the chosen verb's callback; main runs it after parsing.
  std::function<int()> run;

  // Writers open the store; readers open it as a follower, so a running
  // `tail` or `export` never locks an `append` out of the folder. With --url
  // both are the server's store, reached through the HTTP client.
  Result<std::unique_ptr<Store>> OpenStore() const;
  Result<std::unique_ptr<Store>> OpenReader() const;
  // What a store opened here is given: the master keys (--master-key-file
  // or $INDELIBLE_MASTER_KEY), so sealed events read as they were written.
  Result<StoreOptions> store_options() const;
  bool remote() const { return !url.empty(); }
  // The folder of an embedded store named by --data (a path or file:PATH);
  // nullopt for other stores (memory:, dynamodb://) and with --url.
  std::optional<std::string> EmbeddedFolder() const;
  // How the client reaches the --url server (--ca-file).
  ClientOptions client_options() const;
  // For verbs that work on a local folder only (check, bench): invalid,
  // saying to use --data, when --url was given.
  Status RequireLocal(std::string_view verb) const;
  // Prints the error (text or JSON) to stderr and returns its exit code.
  int Fail(const Status& status) const;
  // Parses argv with `app` (whose verbs set `run`) and runs the chosen
  // verb: its exit code, 2 for a usage error, 0 for --help.
  int ParseAndRun(CLI::App& app, int argc, char** argv);
};

// --expected: "any", "no_stream", "exists" or a version number; invalid
// (field "expected") for anything else.
Result<Expected> ParseExpected(const std::string& text);

// A filter for $all from repeated --category/--prefix/--type flags.
void AddFilterFlags(CLI::App* verb, AllFilter* filter);

// Verbs, by group (one file each).
void AddWriteVerbs(CLI::App& app, Cli& cli);      // append, delete
void AddMetadataVerb(CLI::App& app, Cli& cli);    // metadata
void AddRetentionVerbs(CLI::App& app, Cli& cli);  // scavenge, erase
void AddShredVerbs(CLI::App& app, Cli& cli);      // shred, rewrap-keys
void AddReadVerbs(CLI::App& app, Cli& cli);       // read, head, all, tail
void AddIoVerbs(CLI::App& app, Cli& cli);         // export, import
void AddAdminVerbs(CLI::App& app, Cli& cli);      // check, bench
void AddServeVerb(CLI::App& app, Cli& cli);       // serve
void AddConsumerVerbs(CLI::App& app, Cli& cli);   // consumers ...
void AddRelayVerb(CLI::App& app, Cli& cli);       // relay nats
void AddKeyVerbs(CLI::App& app, Cli& cli);        // keys ...
void AddDynamoDbVerbs(CLI::App& app, Cli& cli);   // dynamodb create-tables, policy
void AddSchemaVerbs(CLI::App& app, Cli& cli);     // schemas ...

// A reader that upcasts as a server does: the --data store wrapped in a
// SchemaStore (schemas.h); with --url the server's store, which upcasts.
Result<std::unique_ptr<Store>> OpenUpcastingReader(const Cli& cli);
// A writer that checks appends against the registry (off/warn/enforce) as
// a server does: the --data store wrapped in a SchemaStore; with --url the
// server's store.
Result<std::unique_ptr<Store>> OpenCheckingWriter(const Cli& cli);

// One line per event: text "#position stream@version type data" or JSON.
void PrintEvent(const Cli& cli, const EventView& event);

}  // namespace indelible::cli

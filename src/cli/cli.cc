#include "cli/cli.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "api/wire.h"
#include "core/event_json.h"
#include "indelible/client.h"
#include "indelible/schemas.h"
#include "shredding/master_keys.h"
#include "storage/embedded/embedded_store.h"

namespace indelible::cli {

int ExitCode(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk:
      return 0;
    case ErrorCode::kInternal:
      return 1;
    case ErrorCode::kInvalid:
      return 2;
    case ErrorCode::kNotFound:
      return 3;
    case ErrorCode::kConflict:
      return 4;
    case ErrorCode::kTooLarge:
      return 5;
    case ErrorCode::kRejected:
      return 6;
    case ErrorCode::kUnauthorized:
      return 7;
    case ErrorCode::kUnavailable:
      return 8;
  }
  return 1;
}

namespace {

Result<std::unique_ptr<Store>> Open(const std::string& data, const StoreOptions& options) {
  if (data.find(':') != std::string::npos && !std::filesystem::exists(data))
    return Store::Open(data, options);  // a store URL (memory:, file:...)
  return Store::Open("file:" + data, options);
}

}  // namespace

ClientOptions Cli::client_options() const {
  ClientOptions options;
  options.ca_file = ca_file;
  // A file, or the environment: never a flag's value, which `ps` shows.
  if (!api_key_file.empty()) {
    std::ifstream in(api_key_file);
    std::getline(in, options.credential);
    while (!options.credential.empty() &&
           std::isspace(static_cast<unsigned char>(options.credential.back())))
      options.credential.pop_back();
  } else if (const char* key = std::getenv("INDELIBLE_API_KEY"); key != nullptr) {
    options.credential = key;
  }
  options.cert_file = cert_file;
  options.key_file = key_file;
  return options;
}

Result<StoreOptions> Cli::store_options() const {
  StoreOptions options;
  auto keys = shredding::LoadMasterKeys(master_key_file);
  if (!keys.ok()) return keys.status();
  options.master_keys = std::move(*keys);
  options.sealed_metadata_fields = sealed_metadata_fields;
  return options;
}

Result<std::unique_ptr<Store>> Cli::OpenStore() const {
  if (remote()) return OpenRemoteStore(url, client_options());
  auto options = store_options();
  if (!options.ok()) return options.status();
  return Open(data, *options);
}

std::optional<std::string> Cli::EmbeddedFolder() const {
  if (remote()) return std::nullopt;
  if (data.find(':') == std::string::npos || std::filesystem::exists(data)) return data;
  return storage::EmbeddedFolderOfUrl(data);
}

Result<std::unique_ptr<Store>> Cli::OpenReader() const {
  if (remote()) return OpenRemoteStore(url, client_options());
  auto options = store_options();
  if (!options.ok()) return options.status();
  options->follower = true;
  return Open(data, *options);
}

Status Cli::RequireLocal(std::string_view verb) const {
  if (!remote()) return Status::Ok();
  return Status::Invalid(
      "url", fmt::format("{} works on a local data folder, not through a server: run `indelible "
                         "--data DIR {}` on the machine that holds the folder",
                         verb, verb));
}

int Cli::ParseAndRun(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    // Usage errors are `invalid` (2); --help exits 0.
    return code == 0 ? 0 : 2;
  }
  const int code = run ? run() : 0;
  std::fflush(stdout);
  return code;
}

int Cli::Fail(const Status& status) const {
  if (json) {
    std::fprintf(stderr, "%s\n", api::StatusToJson(status).c_str());
  } else {
    std::string line = fmt::format("indelible: {}", status.ToString());
    if (!status.field().empty()) line += fmt::format(" (field: {})", status.field());
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  return ExitCode(status.code());
}

Result<Expected> ParseExpected(const std::string& text) {
  if (text == "any") return Expected::any();
  if (text == "no_stream") return Expected::no_stream();
  if (text == "exists") return Expected::exists();
  std::int64_t version = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), version);
  if (ec != std::errc() || end != text.data() + text.size() || version < 0)
    return Status::Invalid("expected", fmt::format("'{}' is not an expectation: use any, "
                                                   "no_stream, exists or a version (0 or more)",
                                                   text));
  return Expected::exactly(StreamVersion(version));
}

void AddFilterFlags(CLI::App* verb, AllFilter* filter) {
  verb->add_option("--category", filter->categories, "only streams of this category (repeatable)");
  verb->add_option("--prefix", filter->stream_prefixes,
                   "only streams starting with this (repeatable)");
  verb->add_option("--type", filter->types, "only events of this type (repeatable)");
}

void PrintEvent(const Cli& cli, const EventView& event) {
  std::string line;
  if (cli.json) {
    AppendEventJson(event, &line);
  } else {
    line = fmt::format("#{} {}@{} {} ", event.position.value(), event.stream, event.version.value(),
                       event.type);
    // Tags (docs/DCB.md) in brackets before the data, only when there are.
    if (!event.tags.empty()) line += fmt::format("[{}] ", fmt::join(event.tags, " "));
    if (event.content_type == kJsonContentType) {
      line.append(event.data);
    } else {
      line += fmt::format("<{} bytes of {}>", event.data.size(), event.content_type);
    }
  }
  line.push_back('\n');
  std::fwrite(line.data(), 1, line.size(), stdout);
}

// A store of --data (not a server, which does both itself) wrapped in a
// SchemaStore: reads upcast, commits checked (docs/SCHEMAS.md).
Result<std::unique_ptr<Store>> OpenUpcastingReader(const Cli& cli) {
  auto store = cli.OpenReader();
  if (!store.ok() || cli.remote()) return store;  // a server upcasts itself
  auto wrapped = SchemaStore::Wrap(std::move(*store));
  if (!wrapped.ok()) return wrapped.status();
  return std::unique_ptr<Store>(std::move(*wrapped));
}

Result<std::unique_ptr<Store>> OpenCheckingWriter(const Cli& cli) {
  auto store = cli.OpenStore();
  if (!store.ok() || cli.remote()) return store;  // a server checks itself
  auto wrapped = SchemaStore::Wrap(std::move(*store));
  if (!wrapped.ok()) return wrapped.status();
  return std::unique_ptr<Store>(std::move(*wrapped));
}

}  // namespace indelible::cli

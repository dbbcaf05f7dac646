// schemas: the event schema registry from a terminal (docs/SCHEMAS.md).
//
//   indelible schemas register TYPE VERSION FILE|-
//   indelible schemas list
//   indelible schemas show TYPE [VERSION]
//   indelible schemas check TYPE FILE|-
//   indelible schemas settings (--type T | --category C | --default) [--mode M]
//                              [--compatibility C]
//   indelible schemas upcaster TYPE FROM TO FILE|-
//   indelible schemas validate TYPE [--version V] FILE|-
//
// With --data the CLI wraps the store in a SchemaStore and uses its registry
// (the store's $schemas stream: a server on the same store sees the change
// within a second); with --url it goes through the server (Client::schemas();
// changes need an admin key). `check` and `validate` are dry runs that
// answer like `diff`: 0 yes, 1 no with the reason, other codes for errors.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <boost/json.hpp>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "api/schemas.h"
#include "cli/cli.h"
#include "indelible/client.h"
#include "indelible/schemas.h"

namespace indelible::cli {

namespace {

namespace json = boost::json;

constexpr std::string_view kPrincipal = "cli";

// The registry of --data's store or of --url's server, and what keeps it open.
class Registry {
 public:
  static Result<std::unique_ptr<Registry>> Open(const Cli& cli, bool write) {
    auto registry = std::make_unique<Registry>();
    if (cli.remote()) {
      auto client = Client::Connect(cli.url, cli.client_options());
      if (!client.ok()) return client.status();
      registry->client_ = std::move(*client);
      registry->schemas_ = &registry->client_->schemas();
      return registry;
    }
    // Readers open the folder as a follower, so a running server or writer
    // is not locked out; writers need the folder to themselves.
    auto store = write ? cli.OpenStore() : cli.OpenReader();
    if (!store.ok()) return store.status();
    auto wrapped = SchemaStore::Wrap(std::move(*store));
    if (!wrapped.ok()) return wrapped.status();
    registry->store_ = std::move(*wrapped);
    registry->schemas_ = &registry->store_->schemas();
    return registry;
  }

  Schemas& schemas() { return *schemas_; }

 private:
  std::unique_ptr<Client> client_;
  std::unique_ptr<SchemaStore> store_;
  Schemas* schemas_ = nullptr;
};

// FILE, or stdin for "-".
Result<std::string> ReadInput(const std::string& path, std::string_view what) {
  if (path == "-")
    return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::NotFound(
        fmt::format("cannot open '{}' ({}): give a file, or - to read stdin", path, what));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// FILE's JSON, or invalid naming the file and where it stops being JSON.
Result<json::value> ReadJson(const std::string& path, std::string_view what) {
  auto text = ReadInput(path, what);
  if (!text.ok()) return text.status();
  boost::system::error_code error;
  json::value parsed = json::parse(*text, error);
  if (error)
    return Status::Invalid(std::string(what),
                           fmt::format("{} is not JSON ({}): {}", path == "-" ? "stdin" : path,
                                       what, error.message()));
  return parsed;
}

// Registered JSON text, embedded as JSON (as registered, if it ever is not).
json::value Embed(std::string_view text) {
  boost::system::error_code error;
  json::value parsed = json::parse(text, error);
  if (error) return json::string(text);
  return parsed;
}

// Two spaces a level, as JSON.stringify(value, null, 2) (the console's view).
std::string Pretty(const json::value& value, int indent = 0) {
  const std::string pad(static_cast<std::size_t>(indent + 2), ' ');
  const std::string close(static_cast<std::size_t>(indent), ' ');
  if (value.is_object() && !value.as_object().empty()) {
    std::string out = "{\n";
    bool first = true;
    for (const auto& [key, member] : value.as_object()) {
      if (!first) out += ",\n";
      first = false;
      out += pad + json::serialize(json::string(key)) + ": " + Pretty(member, indent + 2);
    }
    return out + "\n" + close + "}";
  }
  if (value.is_array() && !value.as_array().empty()) {
    std::string out = "[\n";
    bool first = true;
    for (const json::value& item : value.as_array()) {
      if (!first) out += ",\n";
      first = false;
      out += pad + Pretty(item, indent + 2);
    }
    return out + "\n" + close + "]";
  }
  return json::serialize(value);
}

std::string Time(std::int64_t ms) {
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&seconds));
  return text;
}

// --json prints the documents of docs/SCHEMAS.md "HTTP" (api/schemas.h), so
// a script reads the same from --data as from a server.
void PrintJson(const std::string& document) { std::printf("%s\n", document.c_str()); }

// "mode enforce, compatibility backward"; "nothing set" when both are unset.
std::string SettingsText(const SchemaSettings& settings) {
  std::vector<std::string> parts;
  if (settings.mode) parts.push_back(fmt::format("mode {}", ToString(*settings.mode)));
  if (settings.compatibility)
    parts.push_back(fmt::format("compatibility {}", ToString(*settings.compatibility)));
  return parts.empty() ? "nothing set" : fmt::format("{}", fmt::join(parts, ", "));
}

Status UnknownType(std::string_view type) {
  return Status::NotFound(fmt::format(
      "no schema type '{}': `indelible schemas list` shows the registered ones, `indelible "
      "schemas register {} VERSION FILE` registers its first version",
      type, type));
}

struct SchemaArgs {
  std::string type;
  std::string version;
  std::string file = "-";
  std::string from, to;
  std::string category;
  bool default_settings = false;
  std::string mode;
  std::string compatibility;
};

int Register(const Cli& cli, const SchemaArgs& args) {
  auto schema = ReadInput(args.file, "the JSON Schema");
  if (!schema.ok()) return cli.Fail(schema.status());
  boost::system::error_code error;
  json::parse(*schema, error);
  if (error)
    return cli.Fail(Status::Invalid(
        "schema", fmt::format("{} is not JSON ({}): a JSON Schema is a JSON object",
                              args.file == "-" ? "stdin" : args.file, error.message())));
  auto registry = Registry::Open(cli, /*write=*/true);
  if (!registry.ok()) return cli.Fail(registry.status());
  auto registered = (*registry)->schemas().Register(args.type, args.version, *schema, kPrincipal);
  if (!registered.ok()) return cli.Fail(registered.status());
  const SchemaVersion& version = registered->version;
  if (cli.json) {
    json::value out = json::parse(api::SchemaVersionToJson(version));
    out.as_object()["created"] = registered->created;
    PrintJson(json::serialize(out));
  } else if (registered->created) {
    std::printf("registered %s %s (version number %u)\n", version.type.c_str(),
                version.version.c_str(), version.number);
  } else {
    std::printf("%s %s is registered already with this schema (version number %u): nothing to do\n",
                version.type.c_str(), version.version.c_str(), version.number);
  }
  return 0;
}

int List(const Cli& cli) {
  auto registry = Registry::Open(cli, /*write=*/false);
  if (!registry.ok()) return cli.Fail(registry.status());
  Schemas& schemas = (*registry)->schemas();
  const std::vector<SchemaType> types = schemas.List();
  const auto categories = schemas.CategorySettings();
  const SchemaSettings defaults = schemas.DefaultSettings();
  if (cli.json) {
    PrintJson(api::SchemaOverviewToJson({types, categories, defaults}));
    return 0;
  }
  // A table: one row per type; '-' where the type inherits.
  std::vector<std::array<std::string, 5>> rows{
      {"TYPE", "VERSIONS", "MODE", "COMPATIBILITY", "UPCASTERS"}};
  for (const SchemaType& type : types) {
    std::vector<std::string> labels;
    for (const SchemaVersion& version : type.versions) labels.push_back(version.version);
    rows.push_back(
        {type.type, fmt::format("{}", fmt::join(labels, ",")),
         type.settings.mode ? std::string(ToString(*type.settings.mode)) : "-",
         type.settings.compatibility ? std::string(ToString(*type.settings.compatibility)) : "-",
         std::to_string(type.upcasters.size())});
  }
  std::array<std::size_t, 5> width{};
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c)
      line += c + 1 < row.size() ? fmt::format("{:<{}}  ", row[c], width[c]) : row[c];
    std::printf("%s\n", line.c_str());
  }
  if (types.empty()) std::printf("(no types registered)\n");
  for (const auto& [category, settings] : categories)
    std::printf("category %s: %s\n", category.c_str(), SettingsText(settings).c_str());
  // What '-' falls back to when the stream's category sets nothing.
  std::printf(
      "default: mode %s, compatibility %s\n",
      std::string(ToString(defaults.mode.value_or(SchemaMode::kOff))).c_str(),
      std::string(ToString(defaults.compatibility.value_or(Compatibility::kBackward))).c_str());
  return 0;
}

int Show(const Cli& cli, const SchemaArgs& args) {
  auto registry = Registry::Open(cli, /*write=*/false);
  if (!registry.ok()) return cli.Fail(registry.status());
  Schemas& schemas = (*registry)->schemas();
  if (!args.version.empty()) {
    auto version = schemas.Find(args.type, args.version);
    if (!version) {
      if (!schemas.Find(args.type)) return cli.Fail(UnknownType(args.type));
      return cli.Fail(Status::NotFound(
          fmt::format("{} has no version '{}': `indelible schemas show {}` lists its versions",
                      args.type, args.version, args.type)));
    }
    if (cli.json) {
      PrintJson(api::SchemaVersionToJson(*version));
    } else {
      std::printf("%s\n", Pretty(Embed(version->schema)).c_str());
    }
    return 0;
  }
  auto type = schemas.Find(args.type);
  if (!type) return cli.Fail(UnknownType(args.type));
  if (cli.json) {
    PrintJson(api::SchemaTypeToJson(*type));
    return 0;
  }
  std::printf("%s: %s\n", type->type.c_str(), SettingsText(type->settings).c_str());
  std::printf("versions:\n");
  for (const SchemaVersion& version : type->versions)
    std::printf("  %u %s registered %s\n", version.number, version.version.c_str(),
                Time(version.registered_ms).c_str());
  if (!type->upcasters.empty()) std::printf("upcasters:\n");
  for (const DeclarativeUpcaster& upcaster : type->upcasters)
    std::printf("  %s -> %s renames %s defaults %s patch %s\n", upcaster.from.c_str(),
                upcaster.to.c_str(), json::serialize(Embed(upcaster.renames)).c_str(),
                json::serialize(Embed(upcaster.defaults)).c_str(),
                json::serialize(Embed(upcaster.patch)).c_str());
  return 0;
}

int Check(const Cli& cli, const SchemaArgs& args) {
  auto schema = ReadInput(args.file, "the JSON Schema");
  if (!schema.ok()) return cli.Fail(schema.status());
  auto registry = Registry::Open(cli, /*write=*/false);
  if (!registry.ok()) return cli.Fail(registry.status());
  const Status compatible = (*registry)->schemas().CheckCompatible(args.type, *schema);
  if (!compatible.ok() && compatible.code() != ErrorCode::kRejected) return cli.Fail(compatible);
  if (cli.json) {
    PrintJson(api::CompatibilityAnswerToJson({compatible.ok(), compatible.message()}));
  } else if (compatible.ok()) {
    std::printf("compatible: %s may register it\n", args.type.c_str());
  } else {
    std::printf("incompatible: %s\n", compatible.message().c_str());
  }
  return compatible.ok() ? 0 : 1;
}

int Settings(const Cli& cli, const SchemaArgs& args) {
  SchemaSettings settings;
  if (!args.mode.empty()) settings.mode = ParseSchemaMode(args.mode);
  if (!args.compatibility.empty()) settings.compatibility = ParseCompatibility(args.compatibility);
  const bool change = settings.mode || settings.compatibility;
  auto registry = Registry::Open(cli, /*write=*/change);
  if (!registry.ok()) return cli.Fail(registry.status());
  Schemas& schemas = (*registry)->schemas();
  if (change) {
    const Status set = !args.type.empty() ? schemas.SetTypeSettings(args.type, settings, kPrincipal)
                       : !args.category.empty()
                           ? schemas.SetCategorySettings(args.category, settings, kPrincipal)
                           : schemas.SetDefaultSettings(settings, kPrincipal);
    if (!set.ok()) return cli.Fail(set);
  }
  // What is set now (unset fields inherit: type, category, default).
  std::string what;
  SchemaSettings now;
  if (!args.type.empty()) {
    auto type = schemas.Find(args.type);
    if (!type) return cli.Fail(UnknownType(args.type));
    now = type->settings;
    what = "type " + args.type;
  } else if (!args.category.empty()) {
    for (const auto& [category, settings_of] : schemas.CategorySettings())
      if (category == args.category) now = settings_of;
    what = "category " + args.category;
  } else {
    now = schemas.DefaultSettings();
    what = "default";
  }
  if (cli.json) {
    PrintJson(api::SchemaSettingsToJson(now));
  } else {
    std::printf("%s: %s\n", what.c_str(), SettingsText(now).c_str());
  }
  return 0;
}

int Upcaster(const Cli& cli, const SchemaArgs& args) {
  auto document = ReadJson(args.file, "upcaster");
  if (!document.ok()) return cli.Fail(document.status());
  if (!document->is_object())
    return cli.Fail(Status::Invalid(
        "upcaster", "an upcaster is a JSON object: {\"renames\"?, \"defaults\"?, \"patch\"?}"));
  DeclarativeUpcaster upcaster{args.type, args.from, args.to};
  for (const auto& [key, value] : document->as_object()) {
    if (key == "renames" && value.is_object()) {
      upcaster.renames = json::serialize(value);
    } else if (key == "defaults" && value.is_object()) {
      upcaster.defaults = json::serialize(value);
    } else if (key == "patch" && value.is_array()) {
      upcaster.patch = json::serialize(value);
    } else if (key == "renames" || key == "defaults" || key == "patch") {
      return cli.Fail(Status::Invalid(
          std::string(key), fmt::format("'{}' must be a JSON {}", std::string_view(key),
                                        key == "patch" ? "array (RFC 6902 operations)"
                                                       : "object keyed by JSON Pointers")));
    } else {
      return cli.Fail(Status::Invalid(
          std::string(key), fmt::format("unknown field '{}': an upcaster has renames, defaults "
                                        "and patch (docs/SCHEMAS.md)",
                                        std::string_view(key))));
    }
  }
  auto registry = Registry::Open(cli, /*write=*/true);
  if (!registry.ok()) return cli.Fail(registry.status());
  if (Status added = (*registry)->schemas().AddUpcaster(upcaster, kPrincipal); !added.ok())
    return cli.Fail(added);
  if (cli.json) {
    PrintJson(api::UpcasterToJson(upcaster));
  } else {
    std::printf("upcaster %s %s -> %s added\n", upcaster.type.c_str(), upcaster.from.c_str(),
                upcaster.to.c_str());
  }
  return 0;
}

int Validate(const Cli& cli, const SchemaArgs& args) {
  auto data = ReadJson(args.file, "data");
  if (!data.ok()) return cli.Fail(data.status());
  auto registry = Registry::Open(cli, /*write=*/false);
  if (!registry.ok()) return cli.Fail(registry.status());
  Schemas& schemas = (*registry)->schemas();
  EventData event;
  event.type = args.type;
  event.schema = args.version;
  event.data = json::serialize(*data);
  const Status valid = schemas.Validate(event);
  // A failure in the data ("data/amount") is the answer; not_found and the
  // rest are errors, as on the server.
  const bool in_data = valid.code() == ErrorCode::kInvalid &&
                       (valid.field() == "data" || valid.field().starts_with("data/"));
  if (!valid.ok() && !in_data) return cli.Fail(valid);
  std::string version = args.version;
  if (version.empty())
    if (auto type = schemas.Find(args.type); type && !type->versions.empty())
      version = type->versions.back().version;
  if (cli.json) {
    PrintJson(api::ValidationAnswerToJson(
        {valid.ok(), valid.ok() ? "" : valid.field().substr(4), valid.message()}));
  } else if (valid.ok()) {
    std::printf("valid: %s %s\n", args.type.c_str(), version.c_str());
  } else {
    std::printf("not valid: %s\n", valid.message().c_str());  // names the type and version
  }
  return valid.ok() ? 0 : 1;
}

const std::vector<std::string> kModes = {"off", "warn", "enforce"};
const std::vector<std::string> kCompatibilities = {
    "none", "backward",       "backward_transitive", "forward", "forward_transitive",
    "full", "full_transitive"};

}  // namespace

void AddSchemaVerbs(CLI::App& app, Cli& cli) {
  CLI::App* schemas =
      app.add_subcommand("schemas",
                         "event schemas: register, list, show, check, settings, upcaster, validate "
                         "(docs/SCHEMAS.md)");
  schemas->require_subcommand(1);
  const auto verb = [&cli](CLI::App* sub, std::function<int(const Cli&, const SchemaArgs&)> run) {
    auto args = std::make_shared<SchemaArgs>();
    sub->callback([&cli, args, run] { cli.run = [&cli, args, run] { return run(cli, *args); }; });
    return args;
  };

  CLI::App* reg = schemas->add_subcommand(
      "register",
      "register a version of a type's JSON Schema (again with the same schema: "
      "nothing to do)");
  auto args = verb(reg, Register);
  reg->add_option("type", args->type, "event type, e.g. Order.Placed")->required();
  reg->add_option("version", args->version, "the label events carry in `schema`, e.g. V2")
      ->required();
  reg->add_option("file", args->file, "file holding the JSON Schema, - for stdin")->required();

  CLI::App* list = schemas->add_subcommand(
      "list", "the types: versions, mode, compatibility; then category and default settings");
  verb(list, [](const Cli& c, const SchemaArgs&) { return List(c); });

  CLI::App* show = schemas->add_subcommand(
      "show", "a type's versions, settings and upcasters, or one version's schema");
  args = verb(show, Show);
  show->add_option("type", args->type, "event type")->required();
  show->add_option("version", args->version, "print this version's schema");

  CLI::App* check = schemas->add_subcommand(
      "check", "would this schema register? exit 0 compatible, 1 not (with the reason)");
  args = verb(check, Check);
  check->add_option("type", args->type, "event type")->required();
  check->add_option("file", args->file, "file holding the JSON Schema, - for stdin")->required();

  CLI::App* settings = schemas->add_subcommand(
      "settings", "show or set the mode and compatibility of a type, a category or the default");
  args = verb(settings, Settings);
  CLI::Option* type = settings->add_option("--type", args->type, "a type's settings");
  CLI::Option* category =
      settings->add_option("--category", args->category, "a stream category's settings");
  CLI::Option* fallback =
      settings->add_flag("--default", args->default_settings, "the store's default");
  type->excludes(category, fallback);
  category->excludes(fallback);
  settings->add_option("--mode", args->mode, "checks at append: off, warn or enforce")
      ->check(CLI::IsMember(kModes));
  settings
      ->add_option("--compatibility", args->compatibility,
                   "what a new version must keep: none, backward, backward_transitive, forward, "
                   "forward_transitive, full, full_transitive")
      ->check(CLI::IsMember(kCompatibilities));
  settings->callback([&cli, args, type, category, fallback] {
    if (type->count() + category->count() + fallback->count() != 1)
      throw CLI::ValidationError("settings", "give one of --type T, --category C or --default");
    cli.run = [&cli, args] { return Settings(cli, *args); };
  });

  CLI::App* up =
      schemas->add_subcommand("upcaster",
                              "add a declarative upcaster from one version to the next: FILE holds "
                              "{renames?, defaults?, patch?}");
  args = verb(up, Upcaster);
  up->add_option("type", args->type, "event type")->required();
  up->add_option("from", args->from, "the version it reads")->required();
  up->add_option("to", args->to, "the version registered right after FROM")->required();
  up->add_option("file", args->file, "file holding the upcaster, - for stdin")->required();

  CLI::App* validate = schemas->add_subcommand(
      "validate",
      "check one event's data against a version (default: the newest); exit 0 "
      "valid, 1 not (with the failing value and rule)");
  args = verb(validate, Validate);
  validate->add_option("type", args->type, "event type")->required();
  validate->add_option("--version", args->version, "the version label (default: the newest)");
  validate->add_option("file", args->file, "file holding the event's data, - for stdin")
      ->required();
}

}  // namespace indelible::cli

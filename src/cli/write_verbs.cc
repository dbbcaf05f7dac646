// append, delete.
#include <fmt/format.h>

#include <boost/json.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

#include "api/wire.h"
#include "cli/cli.h"
#include "core/event_json.h"

namespace indelible::cli {
namespace {

Result<std::string> ReadAllText(const std::string& path) {
  if (path == "-") return std::string(std::istreambuf_iterator<char>(std::cin), {});
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(fmt::format("cannot open '{}'", path));
  return std::string(std::istreambuf_iterator<char>(in), {});
}

struct AppendArgs {
  std::string stream;
  std::string expected = "any";
  std::string type;
  std::string data = "{}";
  std::string metadata = "{}";
  std::string id;
  std::string file;
  std::vector<std::string> tags;
};

int RunAppend(const Cli& cli, const AppendArgs& args) {
  auto expected = ParseExpected(args.expected);
  if (!expected.ok()) return cli.Fail(expected.status());
  std::vector<EventData> events;
  if (!args.file.empty()) {
    if (!args.tags.empty())
      return cli.Fail(Status::Invalid("tag",
                                      "with --file, give each event's tags in its JSON "
                                      "(\"tags\": [...]), not with --tag"));
    auto text = ReadAllText(args.file);
    if (!text.ok()) return cli.Fail(text.status());
    auto parsed = EventsFromJson(*text);
    if (!parsed.ok()) return cli.Fail(parsed.status());
    events = std::move(*parsed);
  } else {
    if (args.type.empty())
      return cli.Fail(Status::Invalid("type", "give --type (or events as JSON with --file)"));
    // The one verb where a global flag's name means something else: say so
    // to whoever gave the data folder after `append`.
    boost::system::error_code not_json;
    if (std::filesystem::is_directory(args.data)) (void)boost::json::parse(args.data, not_json);
    if (not_json)
      return cli.Fail(Status::Invalid(
          "data", fmt::format("'{}' is a folder, not JSON: after `append`, --data is the "
                              "event's data; give the data folder before the verb (indelible "
                              "--data {} append ...)",
                              args.data, args.data)));
    EventData event;
    event.type = args.type;
    event.data = args.data;
    event.metadata = args.metadata;
    event.tags = args.tags;
    if (!args.id.empty()) {
      auto id = EventId::Parse(args.id);
      if (!id.ok()) return cli.Fail(id.status());
      event.id = *id;
    }
    events.push_back(std::move(event));
  }
  auto store = OpenCheckingWriter(cli);
  if (!store.ok()) return cli.Fail(store.status());
  auto result = (*store)->Append(args.stream, *expected, std::move(events));
  if (!result.ok()) return cli.Fail(result.status());
  if (cli.json) {
    std::printf("%s\n", api::AppendResultToJson(*result).c_str());
  } else {
    std::printf("appended %s versions %lld..%lld at position %llu\n", result->stream.c_str(),
                static_cast<long long>(result->first_version.value()),
                static_cast<long long>(result->last_version.value()),
                static_cast<unsigned long long>(result->position.value()));
  }
  return 0;
}

}  // namespace

void AddWriteVerbs(CLI::App& app, Cli& cli) {
  auto args = std::make_shared<AppendArgs>();
  CLI::App* append = app.add_subcommand("append", "append events to a stream");
  append->add_option("stream", args->stream, "stream name")->required();
  append->add_option("--expected", args->expected, "any | no_stream | exists | VERSION")
      ->capture_default_str();
  append->add_option("--type", args->type, "event type (one event from flags)");
  append->add_option("--data", args->data, "event data, JSON")->capture_default_str();
  append->add_option("--metadata", args->metadata, "event metadata, a JSON object");
  append->add_option("--id", args->id, "event id (UUID) for idempotent retries");
  append->add_option("--file", args->file, "events as JSON (an object or an array), - for stdin");
  append->add_option("--tag", args->tags,
                     "a tag of the event, repeatable (docs/DCB.md; with --type, not --file)");
  append->callback([&cli, args] { cli.run = [&cli, args] { return RunAppend(cli, *args); }; });

  auto stream = std::make_shared<std::string>();
  auto expected = std::make_shared<std::string>("any");
  CLI::App* del = app.add_subcommand("delete", "soft-delete a stream (appends a tombstone)");
  del->add_option("stream", *stream, "stream name")->required();
  del->add_option("--expected", *expected, "any | exists | VERSION")->capture_default_str();
  del->callback([&cli, stream, expected] {
    cli.run = [&cli, stream, expected]() -> int {
      auto exp = ParseExpected(*expected);
      if (!exp.ok()) return cli.Fail(exp.status());
      auto store = OpenCheckingWriter(cli);
      if (!store.ok()) return cli.Fail(store.status());
      auto result = (*store)->Delete(*stream, *exp);
      if (!result.ok()) return cli.Fail(result.status());
      if (cli.json) {
        std::printf("%s\n", api::AppendResultToJson(*result).c_str());
      } else {
        std::printf("deleted %s (tombstone version %lld)\n", stream->c_str(),
                    static_cast<long long>(result->last_version.value()));
      }
      return 0;
    };
  });
}

}  // namespace indelible::cli

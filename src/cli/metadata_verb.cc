// metadata: a stream's metadata (stream_metadata.h, docs/RETENTION.md),
// shown, or replaced with --set.
#include <cstdio>
#include <memory>
#include <string>

#include "api/stream_metadata.h"
#include "cli/cli.h"

namespace indelible::cli {
namespace {

struct MetadataArgs {
  std::string stream;
  std::string set;  // --set: the new document
  std::string expected = "any";
};

int Show(const Cli& cli, const MetadataArgs& args) {
  // A reader: a follower of a local folder, so a running writer is not
  // locked out.
  auto store = cli.OpenReader();
  if (!store.ok()) return cli.Fail(store.status());
  auto stored = (*store)->ReadStreamMetadata(args.stream);
  if (!stored.ok()) return cli.Fail(stored.status());
  const std::string document = StreamMetadataToJson(stored->metadata);
  if (cli.json) {
    std::printf("%s\n", api::StoredStreamMetadataToJson(args.stream, *stored).c_str());
  } else if (stored->version) {
    std::printf("%s metadata version %lld: %s\n", args.stream.c_str(),
                static_cast<long long>(stored->version->value()), document.c_str());
  } else {
    std::printf("%s metadata (never written): %s\n", args.stream.c_str(), document.c_str());
  }
  return 0;
}

int Set(const Cli& cli, const MetadataArgs& args) {
  auto expected = ParseExpected(args.expected);
  if (!expected.ok()) return cli.Fail(expected.status());
  // Refused before the store is opened, naming the key.
  auto metadata = StreamMetadataFromJson(args.set);
  if (!metadata.ok()) return cli.Fail(metadata.status());
  auto store = cli.OpenStore();
  if (!store.ok()) return cli.Fail(store.status());
  auto version = (*store)->WriteStreamMetadata(args.stream, *metadata, *expected);
  if (!version.ok()) return cli.Fail(version.status());
  if (cli.json) {
    std::printf("%s\n", api::StreamMetadataWrittenToJson(args.stream, *version).c_str());
  } else {
    std::printf("%s metadata version %lld: %s\n", args.stream.c_str(),
                static_cast<long long>(version->value()), StreamMetadataToJson(*metadata).c_str());
  }
  return 0;
}

}  // namespace

void AddMetadataVerb(CLI::App& app, Cli& cli) {
  auto args = std::make_shared<MetadataArgs>();
  CLI::App* verb = app.add_subcommand(
      "metadata",
      "show a stream's metadata (retention: maxAge, maxCount, truncateBefore; custom "
      "keys), or replace it with --set");
  verb->add_option("stream", args->stream, "stream name")->required();
  CLI::Option* set = verb->add_option(
      "--set", args->set,
      R"(the new metadata, a JSON object such as '{"maxCount":1000}'; retention hides the )"
      R"(stream's older events from every read at once)");
  verb->add_option("--expected", args->expected,
                   "with --set: the metadata's current version (any | no_stream | exists | "
                   "VERSION)")
      ->capture_default_str()
      ->needs(set);
  // --set '' is a document that does not parse, not a request to show.
  verb->callback([&cli, args, set] {
    const bool write = set->count() > 0;
    cli.run = [&cli, args, write] { return write ? Set(cli, *args) : Show(cli, *args); };
  });
}

}  // namespace indelible::cli

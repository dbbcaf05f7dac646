// export, import: JSON Lines, streaming (memory stays flat), with a
// progress bar on a terminal.
#include <fmt/format.h>

#include <boost/json.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "cli/cli.h"
#include "cli/progress.h"
#include "core/event_json.h"
#include "indelible/config.h"
#include "indelible/schemas.h"
#if INDELIBLE_HAVE_DYNAMODB
#include "aws/client.h"
#include "aws/credentials.h"
#include "storage/dynamodb/eventlog.h"
#include "storage/dynamodb/store_url.h"
#endif

namespace indelible::cli {
namespace {

// Crypto-shredding's subject keys (docs/RETENTION.md) travel in an export
// only when asked (--with-keys): one line each before the events, still
// wrapped by the master key, so the store importing them needs that key.
constexpr std::string_view kSubjectKeyRecords = "subject-key/";
constexpr std::string_view kSubjectKeyLine = R"({"subjectKey":)";

std::string SubjectKeyLine(const std::string& name, const std::string& value) {
  return fmt::format(R"({}{{"name":{},"value":{}}}}})", kSubjectKeyLine, QuoteJson(name),
                     QuoteJson(value));
}

// A --with-keys line: saves the key record it carries.
Status ImportSubjectKey(Store& store, const std::string& line) {
  boost::system::error_code ec;
  boost::json::value root = boost::json::parse(line, ec);
  const boost::json::object* key = nullptr;
  if (!ec && root.is_object())
    if (const auto* inner = root.as_object().if_contains("subjectKey"); inner && inner->is_object())
      key = &inner->as_object();
  const boost::json::value* name = key ? key->if_contains("name") : nullptr;
  const boost::json::value* value = key ? key->if_contains("value") : nullptr;
  if (name == nullptr || !name->is_string() || value == nullptr || !value->is_string() ||
      !name->as_string().starts_with(kSubjectKeyRecords))
    return Status::Invalid("subjectKey",
                           "a subjectKey line is {\"subjectKey\":{\"name\":\"subject-key/...\","
                           "\"value\":\"...\"}}");
  return store.SaveRecord(name->as_string(), value->as_string());
}

struct ExportArgs {
  std::uint64_t from = 0;
  AllFilter filter;
  std::string out = "-";
  bool with_keys = false;
};

int RunExport(const Cli& cli, const ExportArgs& args) {
  if (args.with_keys)
    if (Status s = cli.RequireLocal("export --with-keys"); !s.ok()) return cli.Fail(s);
  auto store = cli.OpenReader();
  if (!store.ok()) return cli.Fail(store.status());
  std::FILE* out = stdout;
  if (args.out != "-") {
    out = std::fopen(args.out.c_str(), "wb");
    if (out == nullptr)
      return cli.Fail(Status::Unavailable(fmt::format("cannot create '{}'", args.out)));
  }
  if (args.with_keys) {
    auto keys = (*store)->ListRecords(kSubjectKeyRecords);
    if (!keys.ok()) return cli.Fail(keys.status());
    for (const auto& [name, value] : *keys) {
      const std::string line = SubjectKeyLine(name, value) + "\n";
      if (std::fwrite(line.data(), 1, line.size(), out) != line.size())
        return cli.Fail(Status::Unavailable(fmt::format("cannot write '{}'", args.out)));
    }
    std::fprintf(stderr, "exported %zu subject key records\n", keys->size());
  }
  ReadAllOptions options{Position(args.from), SIZE_MAX, args.filter};
  // The stored bytes, never upcast (a server upcasts unless asked not to),
  // so an import writes back exactly what was written (docs/SCHEMAS.md).
  options.raw = true;
  auto cursor = (*store)->ReadAll(options);
  if (!cursor.ok()) return cli.Fail(cursor.status());
  Progress progress("export", (*store)->LastPosition().value());
  std::uint64_t count = 0;
  std::string line;
  for (; (*cursor)->Valid(); (*cursor)->Next()) {
    line.clear();
    AppendEventJson((*cursor)->event(), &line);
    line.push_back('\n');
    if (std::fwrite(line.data(), 1, line.size(), out) != line.size())
      return cli.Fail(Status::Unavailable(fmt::format("cannot write '{}'", args.out)));
    progress.Update((*cursor)->event().position.value());
    ++count;
  }
  progress.Finish();
  if (out != stdout && std::fclose(out) != 0)
    return cli.Fail(Status::Unavailable(fmt::format("cannot write '{}'", args.out)));
  if (!(*cursor)->status().ok()) return cli.Fail((*cursor)->status());
  std::fprintf(stderr, "exported %llu events\n", static_cast<unsigned long long>(count));
  return 0;
}

// Import keeps streams, versions, ids and timestamps: consecutive events of
// one stream become one append expecting the version before them, so a
// re-run is idempotent (same ids) and a clash with existing data is a
// conflict, not a silent renumbering. Through a server (--url) timestamps
// cannot be kept: the server stamps each event when it commits it.
class Importer {
 public:
  Importer(Store& store, const Limits& limits, bool keep_timestamps)
      : store_(store), limits_(limits), keep_timestamps_(keep_timestamps) {}

  Status Add(ExportedEvent exported) {
    const bool continues = !pending_.empty() && exported.stream == stream_ &&
                           exported.version.value() == next_version_ &&
                           exported.event.type != kDeletedEventType;
    if (!continues || pending_.size() >= kMaxBatchEvents ||
        pending_bytes_ + exported.event.data.size() > limits_.max_append_bytes / 2) {
      if (Status s = Flush(); !s.ok()) return s;
      stream_ = exported.stream;
      first_version_ = exported.version.value();
    }
    next_version_ = exported.version.value() + 1;
    pending_bytes_ += exported.event.data.size() + exported.event.metadata.size();
    const bool tombstone = exported.event.type == kDeletedEventType;
    pending_.push_back(std::move(exported.event));
    // A tombstone is an append of its own (it is the stream's delete).
    if (tombstone) return Flush();
    return Status::Ok();
  }

  Status Flush() {
    if (pending_.empty()) return Status::Ok();
    Expected expected = Expected::no_stream();
    CommitOptions options;
    if (first_version_ > 0) {
      // After a tombstone the stream restarts with no_stream; a stream not
      // there yet starts where its export does (retention or an erasure
      // removed the versions before: CommitOptions::start_version);
      // otherwise the events continue the version before them.
      auto head = store_.Head(stream_);
      if (!head.ok() && head.status().code() != ErrorCode::kNotFound) return head.status();
      const bool restarts =
          head.ok() && head->deleted && head->version.value() == first_version_ - 1;
      if (!head.ok())
        options.start_version = StreamVersion(first_version_);
      else if (!restarts)
        expected = Expected::exactly(StreamVersion(first_version_ - 1));
    }
    options.keep_timestamps = keep_timestamps_;
    // The store's own streams ($schemas: the schema registry) come back as
    // they were exported; an export's events were checked when first
    // written, so they go to the store itself, past any schema check.
    options.allow_reserved = pending_.front().type == kDeletedEventType || stream_.starts_with('$');
    std::vector<AppendRequest> appends;
    appends.push_back(AppendRequest{stream_, expected, std::move(pending_)});
    pending_.clear();
    pending_bytes_ = 0;
    auto result = store_.Commit(std::move(appends), options);
    if (!result.ok()) return result.status();
    return Status::Ok();
  }

 private:
  static constexpr std::size_t kMaxBatchEvents = 500;
  Store& store_;
  const Limits limits_;
  const bool keep_timestamps_;
  std::string stream_;
  std::int64_t first_version_ = 0;
  std::int64_t next_version_ = 0;
  std::vector<EventData> pending_;
  std::size_t pending_bytes_ = 0;
};

// The reference design's EventLog table (storage/dynamodb/eventlog.h) into
// the store: each aggregate's events in Sequence order, through the same
// Importer, so a second run is an idempotent retry.
int RunEventLogImport(const Cli& cli, const std::string& url, const std::string& table) {
#if !INDELIBLE_HAVE_DYNAMODB
  (void)url;
  (void)table;
  return cli.Fail(Status::Invalid("from-eventlog", INDELIBLE_NO_DYNAMODB));
#else
  auto parsed = dynamodb::ParseStoreUrl(url);
  if (!parsed.ok()) return cli.Fail(parsed.status());
  aws::ChainOptions chain;
  chain.region = parsed->region;
  auto credentials = aws::DefaultCredentialsChain(chain);
  if (!credentials.ok()) return cli.Fail(credentials.status());
  auto client = aws::Client::Create(dynamodb::ClientOptionsFromUrl(*parsed, *credentials));
  if (!client.ok()) return cli.Fail(client.status());
  auto store = cli.OpenStore();
  if (!store.ok()) return cli.Fail(store.status());
  Importer importer(**store, Limits{}, /*keep_timestamps=*/!cli.remote());
  Progress progress("import", 0);
  std::uint64_t events = 0;
  Status read = dynamodb::ReadEventLog(
      **client, table,
      [&](ExportedEvent event) {
        ++events;
        return importer.Add(std::move(event));
      },
      [&](std::uint64_t done, std::uint64_t total) {
        progress.set_total(total);
        progress.Update(done);
      });
  if (read.ok()) read = importer.Flush();
  progress.Finish();
  if (!read.ok()) return cli.Fail(read);
  std::fprintf(stderr, "imported %llu events from %s\n", static_cast<unsigned long long>(events),
               table.c_str());
  return 0;
#endif
}

// A server takes no appends to the store's own streams: the schema
// registry of an export reaches a store only through --data.
Status ReservedThroughServer(const ExportedEvent& event) {
  return Status::Invalid(
      "stream",
      fmt::format("stream '{}' is the store's own{}; a server takes no appends to it: "
                  "import with --data on the machine that holds the store{}",
                  event.stream, event.stream == kSchemasStream ? " (the schema registry)" : "",
                  event.stream == kSchemasStream
                      ? " (or register its schemas on the server with `indelible "
                        "schemas register`)"
                      : ""));
}

int RunImport(const Cli& cli, const std::string& in_path) {
  std::ifstream file;
  std::istream* in = &std::cin;
  std::uint64_t total_bytes = 0;
  if (in_path != "-") {
    file.open(in_path, std::ios::binary);
    if (!file) return cli.Fail(Status::NotFound(fmt::format("cannot open '{}'", in_path)));
    file.seekg(0, std::ios::end);
    total_bytes = static_cast<std::uint64_t>(file.tellg());
    file.seekg(0);
    in = &file;
  }
  auto store = cli.OpenStore();
  if (!store.ok()) return cli.Fail(store.status());
  if (cli.remote())
    std::fprintf(stderr,
                 "indelible: note: through a server the events get the time of this import as "
                 "their timestamps, and deleted streams new tombstone ids (the HTTP API cannot "
                 "keep them); use --data to keep them\n");
  Importer importer(**store, Limits{}, /*keep_timestamps=*/!cli.remote());
  Progress progress("import", 0);
  std::string line;
  std::uint64_t number = 0;
  std::uint64_t events = 0;
  while (std::getline(*in, line)) {
    ++number;
    if (line.empty()) continue;
    if (line.starts_with(kSubjectKeyLine)) {
      Status s = cli.remote() ? Status::Invalid("subjectKey",
                                                "subject keys are imported into a store, not "
                                                "through a server: import with --data")
                              : ImportSubjectKey(**store, line);
      if (!s.ok())
        return cli.Fail(Status::Invalid(
            s.field(), fmt::format("{}: line {}: {}", in_path == "-" ? "stdin" : in_path, number,
                                   s.ToString())));
      continue;
    }
    auto exported = ExportedEventFromJson(line);
    Status s = !exported.ok() ? exported.status()
               : cli.remote() && exported->stream.starts_with('$')
                   ? ReservedThroughServer(*exported)
                   : importer.Add(std::move(*exported));
    if (!s.ok()) {
      progress.Finish();
      return cli.Fail(Status::Invalid(
          s.field(), fmt::format("{}: line {}: {}", in_path == "-" ? "stdin" : in_path, number,
                                 s.ToString())));
    }
    ++events;
    if (total_bytes > 0 && events % 1024 == 0) {
      progress.set_total(total_bytes);
      progress.Update(static_cast<std::uint64_t>(in->tellg()));
    }
  }
  if (Status s = importer.Flush(); !s.ok()) {
    progress.Finish();
    return cli.Fail(s);
  }
  progress.Finish();
  std::fprintf(stderr, "imported %llu events\n", static_cast<unsigned long long>(events));
  return 0;
}

}  // namespace

void AddIoVerbs(CLI::App& app, Cli& cli) {
  auto exp = std::make_shared<ExportArgs>();
  CLI::App* e = app.add_subcommand("export", "write events as JSON Lines, in position order");
  e->add_option("--from", exp->from, "first position (inclusive)");
  e->add_option("--out", exp->out, "file to write, - for stdout")->capture_default_str();
  AddFilterFlags(e, &exp->filter);
  e->add_flag("--with-keys", exp->with_keys,
              "also write the subject keys of crypto-shredding (still wrapped by the master key; "
              "--data only)");
  e->callback([&cli, exp] { cli.run = [&cli, exp] { return RunExport(cli, *exp); }; });

  auto in = std::make_shared<std::string>("-");
  auto eventlog = std::make_shared<std::pair<std::string, std::string>>("", "EventLog");
  CLI::App* i = app.add_subcommand(
      "import", "append the events of a JSON Lines export, keeping streams, versions and ids");
  i->add_option("--in", *in, "file to read, - for stdin")->capture_default_str();
  i->add_option("--from-eventlog", eventlog->first,
                "instead: read the reference EventLog table (ID, Sequence, Event, Timestamp) at "
                "this dynamodb:// URL (docs/DYNAMODB.md)");
  i->add_option("--table", eventlog->second, "the EventLog table's name")->capture_default_str();
  i->callback([&cli, in, eventlog] {
    cli.run = [&cli, in, eventlog] {
      if (!eventlog->first.empty())
        return RunEventLogImport(cli, eventlog->first, eventlog->second);
      return RunImport(cli, *in);
    };
  });
}

}  // namespace indelible::cli

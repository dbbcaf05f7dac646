// read, head, all, tail, streams.
#include <algorithm>
#include <csignal>
#include <cstdio>

#include "api/commits.h"
#include "api/queries.h"
#include "api/wire.h"
#include "cli/cli.h"
#include "core/event_json.h"

namespace indelible::cli {
namespace {

volatile std::sig_atomic_t g_stop = 0;
void OnSignal(int) { g_stop = 1; }

struct ReadArgs {
  std::string stream;
  std::int64_t from = -1;
  std::size_t limit = SIZE_MAX;
  bool backward = false;
  bool include_deleted = false;
  bool raw = false;
};

// The events upcast to their type's newest schema version, as a server
// answers; --raw: as stored (and no registry to read).
Result<std::unique_ptr<Store>> OpenForEvents(const Cli& cli, bool raw) {
  return raw ? cli.OpenReader() : OpenUpcastingReader(cli);
}

int RunRead(const Cli& cli, const ReadArgs& args) {
  auto store = OpenForEvents(cli, args.raw);
  if (!store.ok()) return cli.Fail(store.status());
  ReadStreamOptions options;
  options.direction = args.backward ? Direction::kBackward : Direction::kForward;
  if (args.from >= 0) options.from = StreamVersion(args.from);
  options.limit = args.limit;
  options.include_deleted = args.include_deleted;
  options.raw = args.raw;
  auto cursor = (*store)->ReadStream(args.stream, options);
  if (!cursor.ok()) return cli.Fail(cursor.status());
  for (; (*cursor)->Valid(); (*cursor)->Next()) PrintEvent(cli, (*cursor)->event());
  if (!(*cursor)->status().ok()) return cli.Fail((*cursor)->status());
  return 0;
}

struct AllArgs {
  std::uint64_t from = 0;
  std::size_t limit = SIZE_MAX;
  AllFilter filter;
  bool raw = false;
};

int RunAll(const Cli& cli, const AllArgs& args) {
  auto store = OpenForEvents(cli, args.raw);
  if (!store.ok()) return cli.Fail(store.status());
  ReadAllOptions options{Position(args.from), args.limit, args.filter};
  options.raw = args.raw;
  auto cursor = (*store)->ReadAll(options);
  if (!cursor.ok()) return cli.Fail(cursor.status());
  for (; (*cursor)->Valid(); (*cursor)->Next()) PrintEvent(cli, (*cursor)->event());
  if (!(*cursor)->status().ok()) return cli.Fail((*cursor)->status());
  // Where to continue: to stderr in text mode, so stdout stays events only.
  if (cli.json) {
    std::printf("{\"next\":%llu}\n",
                static_cast<unsigned long long>((*cursor)->next_position().value()));
  } else {
    std::fprintf(stderr, "next position: %llu\n",
                 static_cast<unsigned long long>((*cursor)->next_position().value()));
  }
  return 0;
}

struct QueryArgs {
  std::string query;  // JSON (docs/DCB.md); empty: from --type and --tag
  std::vector<std::string> types;
  std::vector<std::string> tags;
  std::int64_t from = -1;
  std::size_t limit = SIZE_MAX;
  bool backward = false;
  bool raw = false;
};

// The query of --query, or the one item of --type (any of) and --tag (all
// of); neither: every event.
Result<Query> QueryOf(const QueryArgs& args) {
  if (!args.query.empty()) {
    if (!args.types.empty() || !args.tags.empty())
      return Status::Invalid("query", "give --query, or --type and --tag, not both");
    return api::QueryFromJson(args.query, "query");
  }
  if (args.types.empty() && args.tags.empty()) return Query::All();
  Query query{{QueryItem{args.types, args.tags}}};
  if (Status valid = ValidateQuery(query, "query"); !valid.ok()) return valid;
  return query;
}

int RunQuery(const Cli& cli, const QueryArgs& args) {
  auto query = QueryOf(args);
  if (!query.ok()) return cli.Fail(query.status());
  auto store = OpenForEvents(cli, args.raw);
  if (!store.ok()) return cli.Fail(store.status());
  ReadQueryOptions options;
  options.direction = args.backward ? Direction::kBackward : Direction::kForward;
  if (args.from >= 0) options.from = Position(static_cast<std::uint64_t>(args.from));
  options.limit = args.limit;
  options.raw = args.raw;
  auto cursor = (*store)->ReadQuery(*query, options);
  if (!cursor.ok()) return cli.Fail(cursor.status());
  for (; (*cursor)->Valid(); (*cursor)->Next()) PrintEvent(cli, (*cursor)->event());
  if (!(*cursor)->status().ok()) return cli.Fail((*cursor)->status());
  return 0;
}

struct TailArgs {
  std::string stream;      // empty: $all
  std::int64_t from = -1;  // -1: what comes next
  AllFilter filter;
  bool raw = false;
};

// Follows $all (or one stream) until SIGINT/SIGTERM: reads what is there,
// then sleeps in WaitForCommit until more is committed.
int RunTail(const Cli& cli, const TailArgs& args) {
  auto store = OpenForEvents(cli, args.raw);
  if (!store.ok()) return cli.Fail(store.status());
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  Store& s = **store;
  // Without --from, start at the end: show only what comes next.
  std::uint64_t next =
      args.from >= 0 ? static_cast<std::uint64_t>(args.from) : s.LastPosition().value() + 1;
  while (!g_stop) {
    ReadAllOptions options{Position(next), SIZE_MAX, args.filter};
    options.raw = args.raw;
    auto cursor = s.ReadAll(options);
    if (!cursor.ok()) return cli.Fail(cursor.status());
    for (; (*cursor)->Valid() && !g_stop; (*cursor)->Next()) {
      const EventView& event = (*cursor)->event();
      if (args.stream.empty() || event.stream == args.stream) PrintEvent(cli, event);
    }
    if (!(*cursor)->status().ok()) return cli.Fail((*cursor)->status());
    next = (*cursor)->next_position().value();
    std::fflush(stdout);
    s.WaitForCommit(Position(next - 1), std::chrono::milliseconds(200));
  }
  return 0;
}

}  // namespace

struct StreamsArgs {
  ListStreamsOptions filter;
  std::size_t limit = SIZE_MAX;
};

// Every stream that matches, a page of 1000 at a time, until `limit`.
int RunStreams(const Cli& cli, const StreamsArgs& args) {
  auto store = cli.OpenReader();
  if (!store.ok()) return cli.Fail(store.status());
  ListStreamsOptions options = args.filter;
  std::size_t shown = 0;
  while (shown < args.limit) {
    options.limit = std::min<std::size_t>(1000, args.limit - shown);
    auto page = (*store)->ListStreams(options);
    if (!page.ok()) return cli.Fail(page.status());
    for (const StreamInfo& info : page->streams) {
      if (cli.json) {
        std::string line;
        api::AppendStreamInfoJson(info, &line, options.last);
        std::printf("%s\n", line.c_str());
      } else {
        std::string last;
        if (options.last)
          // A type is UTF-8 without control characters: printable as it is.
          last = info.last ? " last event " + info.last->type + " version " +
                                 std::to_string(info.last->version.value())
                           : std::string(" last event none (retention hides every event)");
        std::printf("%s version %lld position %llu last write %lld%s%s\n", info.stream.c_str(),
                    static_cast<long long>(info.version.value()),
                    static_cast<unsigned long long>(info.position.value()),
                    static_cast<long long>(info.last_write_ms), info.deleted ? " (deleted)" : "",
                    last.c_str());
      }
    }
    shown += page->streams.size();
    if (!page->next) break;
    options.after = *page->next;
  }
  return 0;
}

constexpr const char* kRawHelp =
    "the events as stored: not upcast to their type's newest schema version (docs/SCHEMAS.md)";

void AddReadVerbs(CLI::App& app, Cli& cli) {
  auto read = std::make_shared<ReadArgs>();
  CLI::App* r = app.add_subcommand("read", "read a stream's events");
  r->add_option("stream", read->stream, "stream name")->required();
  r->add_option("--from", read->from, "first version (default: the start, or the end backward)");
  r->add_option("--limit", read->limit, "at most this many events");
  r->add_flag("--backward", read->backward, "newest first");
  r->add_flag("--include-deleted", read->include_deleted, "read a deleted stream (audit)");
  r->add_flag("--raw", read->raw, kRawHelp);
  r->callback([&cli, read] { cli.run = [&cli, read] { return RunRead(cli, *read); }; });

  auto head_stream = std::make_shared<std::string>();
  CLI::App* h = app.add_subcommand("head", "a stream's last version and position");
  h->add_option("stream", *head_stream, "stream name")->required();
  h->callback([&cli, head_stream] {
    cli.run = [&cli, head_stream]() -> int {
      auto store = cli.OpenReader();
      if (!store.ok()) return cli.Fail(store.status());
      auto head = (*store)->Head(*head_stream);
      if (!head.ok()) return cli.Fail(head.status());
      if (cli.json) {
        std::printf("%s\n", api::HeadToJson(*head_stream, *head).c_str());
      } else {
        std::printf("%s version %lld position %llu%s\n", head_stream->c_str(),
                    static_cast<long long>(head->version.value()),
                    static_cast<unsigned long long>(head->position.value()),
                    head->deleted ? " (deleted)" : "");
      }
      return 0;
    };
  });

  auto streams = std::make_shared<StreamsArgs>();
  CLI::App* l = app.add_subcommand("streams", "list the streams in name order");
  l->add_option("--prefix", streams->filter.prefix, "only names that start with this");
  l->add_option("--category", streams->filter.category,
                "only this category (the name before the first '-' or '/')");
  l->add_option("--after", streams->filter.after, "only names after this one (to go on)");
  l->add_option("--limit", streams->limit, "at most this many streams");
  l->add_flag("--last", streams->filter.last,
              "also each stream's newest event (its type and version): one more read per stream");
  l->callback([&cli, streams] { cli.run = [&cli, streams] { return RunStreams(cli, *streams); }; });

  auto all = std::make_shared<AllArgs>();
  CLI::App* a = app.add_subcommand("all", "read $all, every event in position order");
  a->add_option("--from", all->from, "first position (inclusive)");
  a->add_option("--limit", all->limit, "at most this many events");
  AddFilterFlags(a, &all->filter);
  a->add_flag("--raw", all->raw, kRawHelp);
  a->callback([&cli, all] { cli.run = [&cli, all] { return RunAll(cli, *all); }; });

  auto query = std::make_shared<QueryArgs>();
  CLI::App* q = app.add_subcommand(
      "query", "read the events that match a query of types and tags (docs/DCB.md)");
  q->add_option("--query", query->query,
                R"(the query as JSON: {"items":[{"types":[...],"tags":[...]}]})");
  q->add_option("--type", query->types, "one item: any of these types (repeatable)");
  q->add_option("--tag", query->tags, "one item: all of these tags (repeatable)");
  q->add_option("--from", query->from,
                "first position (inclusive; default: the start, or the end backward)");
  q->add_option("--limit", query->limit, "at most this many events");
  q->add_flag("--backward", query->backward, "newest first");
  q->add_flag("--raw", query->raw, kRawHelp);
  q->callback([&cli, query] { cli.run = [&cli, query] { return RunQuery(cli, *query); }; });

  auto tail = std::make_shared<TailArgs>();
  CLI::App* t = app.add_subcommand("tail", "follow $all (or one stream) live until Ctrl-C");
  t->add_option("stream", tail->stream, "only this stream");
  t->add_option("--from", tail->from,
                "start at this position, 0 for the beginning (default: what comes next)");
  AddFilterFlags(t, &tail->filter);
  t->add_flag("--raw", tail->raw, kRawHelp);
  t->callback([&cli, tail] { cli.run = [&cli, tail] { return RunTail(cli, *tail); }; });
}

}  // namespace indelible::cli

// GET /all: $all in position order, filtered, paged by `next`; waitMs turns
// an empty page into a long poll.
//
// Every read runs on the read pool (context.reads), never on an I/O thread,
// and is bounded three ways: `limit` events, max_page_bytes of JSON, and a
// scan budget (max_scan_events, max_scan_time) for filters that match
// little. A page cut short by any of them says where to go on in `next`.
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include "api/limits.h"
#include "api/pages.h"
#include "server/request_parsing.h"
#include "server/routes.h"

namespace indelible::server {
namespace {

namespace asio = boost::asio;

// A scan goes by cursors of this many events, so that the time budget is
// checked between them (one cursor's scan is short: a few DynamoDB queries).
constexpr std::size_t kScanChunk = 4096;

struct Page {
  std::string body;
  std::size_t events = 0;
  Position next;
  // The read reached the last committed event: an empty page means there
  // is nothing to read yet (a long poll waits), not that the scan budget
  // ran out (the client goes on from `next`).
  bool at_end = false;
};

// The principal whose reads must be narrowed to the streams it may read;
// null for everyone else (authentication off, an admin, a reader of all).
const auth::Principal* NarrowedReader(const Exchange& exchange) {
  const auto& principal = exchange.principal();
  if (principal == nullptr || principal->grants.admin()) return nullptr;
  return principal.get();
}

// One page from `options.from`, without the events `reader` may not read
// (docs/SECURITY.md, "$all and subscriptions"); blocks on the store (call
// on context.reads).
Result<Page> ReadPage(ServerContext& context, const ReadAllOptions& options,
                      const auth::Principal* reader) {
  Store& store = context.store;
  const ServeOptions& limits = context.options;
  const auto started = std::chrono::steady_clock::now();
  const std::uint64_t last = store.LastPosition().value();
  Page page;
  api::AllPageWriter events(limits.max_page_bytes);
  std::uint64_t next = std::max<std::uint64_t>(options.from.value(), 1);
  // Unfiltered, every event looked at is returned: `limit` bounds the scan.
  const bool bounded_scan = !options.filter.empty() || reader != nullptr;
  std::size_t scanned = 0;
  bool full = false;
  while (!full && events.events() < options.limit) {
    ReadAllOptions chunk = options;
    const std::uint64_t chunk_from = next;
    chunk.from = Position(chunk_from);
    chunk.limit = options.limit - events.events();
    if (bounded_scan) chunk.max_scan = std::min(kScanChunk, limits.max_scan_events - scanned);
    auto cursor = store.ReadAll(chunk);
    if (!cursor.ok()) return cursor.status();
    for (; (*cursor)->Valid(); (*cursor)->Next()) {
      const EventView& event = (*cursor)->event();
      if (reader != nullptr && !reader->grants.Allows(auth::Right::kRead, event.stream)) {
        next = event.position.value() + 1;
        continue;
      }
      // Past the byte budget: this event starts the next page.
      if (!events.Add(event)) {
        full = true;
        break;
      }
      next = event.position.value() + 1;
    }
    if (Status s = (*cursor)->status(); !s.ok()) return s;
    if (full) break;
    // Past the events the filter skipped, so paging never rescans them.
    next = std::max<std::uint64_t>(next, (*cursor)->next_position().value());
    if (next > last) {
      page.at_end = true;
      break;
    }
    // Positions are dense: what the cursor moved over is what it scanned.
    scanned += static_cast<std::size_t>(next - chunk_from);
    if (bounded_scan && (scanned >= limits.max_scan_events ||
                         std::chrono::steady_clock::now() - started >= limits.max_scan_time))
      break;
  }
  page.next = Position(next);
  page.events = events.events();
  page.body = std::move(events).Finish(Position(next));
  return page;
}

// A long poll: waits for a commit past `from`, reads again, and answers when
// the page has events or the deadline passes. Its state lives on its strand;
// reads go to the read pool and come back there. Whatever ends it (an
// answer, the deadline) cancels its registration with the watcher, so a
// poll that timed out leaves no waiter behind.
class LongPoll : public std::enable_shared_from_this<LongPoll> {
 public:
  LongPoll(ServerContext& context, std::shared_ptr<Exchange> exchange, ReadAllOptions options,
           std::chrono::milliseconds wait)
      : context_(context),
        exchange_(std::move(exchange)),
        options_(std::move(options)),
        strand_(asio::make_strand(context.ioc)),
        timer_(strand_) {
    timer_.expires_after(wait);
  }

  // From any thread.
  void Start() {
    asio::post(strand_, [self = shared_from_this()] {
      self->timer_.async_wait([self](boost::system::error_code ec) {
        if (!ec) self->OnDeadline();
      });
      self->Register();
    });
  }

 private:
  void Register() {
    // Positions below `from` are of no interest; a filtered page that
    // skipped events moved `from` past them.
    const Position after(options_.from.value() > 0 ? options_.from.value() - 1 : 0);
    std::weak_ptr<LongPoll> weak = shared_from_this();
    auto strand = strand_;
    ticket_ = context_.watcher.NotifyAfter(after, [weak, strand] {
      asio::post(strand, [weak] {
        if (auto self = weak.lock()) self->OnCommit();
      });
    });
  }

  void OnCommit() {
    ticket_ = 0;  // fired
    if (!answered_) Read();
  }

  void OnDeadline() {
    if (answered_) return;
    deadline_ = true;
    CancelTicket();
    // A read in flight answers when it comes back; else a last one.
    if (!reading_) Read();
  }

  void Read() {
    if (reading_) return;
    reading_ = true;
    asio::post(context_.reads, [self = shared_from_this()] {
      auto page = CatchToStatus([&] {
        return ReadPage(self->context_, self->options_, NarrowedReader(*self->exchange_));
      });
      asio::post(self->strand_,
                 [self, page = std::move(page)]() mutable { self->OnPage(std::move(page)); });
    });
  }

  void OnPage(Result<Page> page) {
    reading_ = false;
    if (answered_) return;
    if (!page.ok()) return Answer([&] { exchange_->RespondError(page.status()); });
    if (page->events == 0 && page->at_end && !deadline_ && !context_.stopping.load()) {
      // Only filtered-out events arrived: keep waiting past them.
      options_.from = page->next;
      return Register();
    }
    Answer([&] { exchange_->RespondJson(http::status::ok, std::move(page->body)); });
  }

  template <typename Respond>
  void Answer(Respond respond) {
    answered_ = true;
    timer_.cancel();
    CancelTicket();
    respond();
  }

  void CancelTicket() {
    context_.watcher.Cancel(ticket_);
    ticket_ = 0;
  }

  ServerContext& context_;
  std::shared_ptr<Exchange> exchange_;
  ReadAllOptions options_;
  asio::strand<asio::io_context::executor_type> strand_;
  asio::steady_timer timer_;
  // On the strand:
  CommitWatcher::Ticket ticket_ = 0;  // registered with the watcher, if not 0
  bool reading_ = false;              // a read is on the read pool
  bool deadline_ = false;
  bool answered_ = false;
};

void ReadAllRoute(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  ReadAllOptions options;
  auto from = IntegerParam(*exchange, "from", 1, 0, kMaxNumberParam);
  if (!from.ok()) return exchange->RespondError(from.status());
  auto limit = IntegerParam(*exchange, "limit", api::kDefaultPageEvents, 1, kMaxPageEvents);
  if (!limit.ok()) return exchange->RespondError(limit.status());
  auto wait_ms = IntegerParam(*exchange, "waitMs", 0, 0, api::kMaxWait.count());
  if (!wait_ms.ok()) return exchange->RespondError(wait_ms.status());
  options.from = Position(static_cast<std::uint64_t>(std::max<std::int64_t>(*from, 1)));
  options.limit = static_cast<std::size_t>(*limit);
  auto raw = RawParam(*exchange);
  if (!raw.ok()) return exchange->RespondError(raw.status());
  options.raw = *raw;
  options.filter = FilterFromQuery(*exchange);
  if (const auth::Principal* reader = NarrowedReader(*exchange))
    reader->grants.NarrowReadFilter(options.filter);

  asio::post(context.reads, [&context, exchange = std::move(exchange), options = std::move(options),
                             wait = std::chrono::milliseconds(*wait_ms)]() mutable {
    const std::shared_ptr<Exchange> guarded = exchange;
    RunGuarded(*guarded, [&] {
      auto page = ReadPage(context, options, NarrowedReader(*exchange));
      if (!page.ok()) return exchange->RespondError(page.status());
      // A page cut short by the scan budget answers at once, empty or not:
      // the client goes on from `next`.
      if (page->events > 0 || wait.count() == 0 || !page->at_end)
        return exchange->RespondJson(http::status::ok, std::move(page->body));
      options.from = page->next;
      std::make_shared<LongPoll>(context, std::move(exchange), std::move(options), wait)->Start();
    });
  });
}

}  // namespace

void AddAllRoutes(Router& router, ServerContext& context) {
  router.Add(http::verb::get, "/all", Access::Somewhere(auth::Right::kRead),
             [&context](std::shared_ptr<Exchange> e) { ReadAllRoute(context, std::move(e)); });
}

}  // namespace indelible::server

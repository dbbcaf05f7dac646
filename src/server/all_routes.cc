// GET /all: $all in position order, filtered, paged by `next`; waitMs turns
// an empty page into a long poll.
#include <fmt/format.h>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include "core/event_json.h"
#include "server/request_parsing.h"
#include "server/routes.h"

namespace indelible::server {
namespace {

constexpr std::int64_t kMaxPage = 10000;
constexpr std::int64_t kMaxWaitMs = 60000;

struct Page {
  std::string body;
  std::size_t events = 0;
};

Result<Page> ReadPage(Store& store, const ReadAllOptions& options) {
  auto cursor = store.ReadAll(options);
  if (!cursor.ok()) return cursor.status();
  Page page;
  page.body = R"({"events":[)";
  for (; (*cursor)->Valid(); (*cursor)->Next()) {
    if (page.events++ > 0) page.body += ',';
    AppendEventJson((*cursor)->event(), &page.body);
  }
  if (!(*cursor)->status().ok()) return (*cursor)->status();
  page.body += fmt::format(R"(],"next":{}}})", (*cursor)->resume_from());
  return page;
}

// A long poll: waits for a commit past `from`, reads again, and answers when
// the page has events or the deadline passes. Shared by the watcher's
// callback and the deadline timer; whichever comes last finds it answered.
class LongPoll : public std::enable_shared_from_this<LongPoll> {
 public:
  LongPoll(ServerContext& context, std::shared_ptr<Exchange> exchange, ReadAllOptions options,
           std::chrono::milliseconds wait)
      : context_(context),
        exchange_(std::move(exchange)),
        options_(std::move(options)),
        timer_(boost::asio::make_strand(context.ioc)) {
    timer_.expires_after(wait);
  }

  void Start() {
    timer_.async_wait([self = shared_from_this()](boost::system::error_code) {
      boost::asio::post(self->timer_.get_executor(), [self] { self->Finish(true); });
    });
    Wait();
  }

 private:
  void Wait() {
    // Positions below `from` are of no interest; a filtered page that
    // skipped events moved `from` past them.
    const Position after(options_.from.value() > 0 ? options_.from.value() - 1 : 0);
    std::weak_ptr<LongPoll> weak = shared_from_this();
    context_.watcher.NotifyAfter(after, [weak] {
      if (auto self = weak.lock())
        boost::asio::post(self->timer_.get_executor(), [self] { self->Finish(false); });
    });
  }

  void Finish(bool deadline) {
    if (answered_) return;
    auto page = ReadPage(context_.store, options_);
    if (!page.ok()) return Answer(page.status());
    if (page->events == 0 && !deadline && !context_.stopping.load()) {
      // Only filtered-out events arrived: keep waiting past them.
      options_.from = Position(NextOf(page->body));
      return Wait();
    }
    answered_ = true;
    timer_.cancel();
    exchange_->RespondJson(http::status::ok, std::move(page->body));
  }

  void Answer(const Status& status) {
    answered_ = true;
    timer_.cancel();
    exchange_->RespondError(status);
  }

  // The "next" of a page body we built ourselves.
  static std::uint64_t NextOf(const std::string& body) {
    const auto at = body.rfind(R"("next":)");
    return std::stoull(body.substr(at + 7));
  }

  ServerContext& context_;
  std::shared_ptr<Exchange> exchange_;
  ReadAllOptions options_;
  boost::asio::steady_timer timer_;
  bool answered_ = false;  // on the timer's strand
};

void ReadAllRoute(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  ReadAllOptions options;
  auto from = IntegerParam(*exchange, "from", 1, 0, INT64_MAX);
  if (!from.ok()) return exchange->RespondError(from.status());
  auto limit = IntegerParam(*exchange, "limit", 100, 1, kMaxPage);
  if (!limit.ok()) return exchange->RespondError(limit.status());
  auto wait_ms = IntegerParam(*exchange, "waitMs", 0, 0, kMaxWaitMs);
  if (!wait_ms.ok()) return exchange->RespondError(wait_ms.status());
  options.from = Position(static_cast<std::uint64_t>(std::max<std::int64_t>(*from, 1)));
  options.limit = static_cast<std::size_t>(*limit);
  options.filter = FilterFromQuery(*exchange);

  auto page = ReadPage(context.store, options);
  if (!page.ok()) return exchange->RespondError(page.status());
  if (page->events > 0 || *wait_ms == 0)
    return exchange->RespondJson(http::status::ok, std::move(page->body));
  auto poll = std::make_shared<LongPoll>(context, std::move(exchange), std::move(options),
                                         std::chrono::milliseconds(*wait_ms));
  poll->Start();
}

}  // namespace

void AddAllRoutes(Router& router, ServerContext& context) {
  router.Add(http::verb::get, "/all",
             [&context](std::shared_ptr<Exchange> e) { ReadAllRoute(context, std::move(e)); });
}

}  // namespace indelible::server

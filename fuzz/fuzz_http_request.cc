// The HTTP request path of `indelible serve`, from bytes on the socket to
// what a handler reads: Beast's request parser with the server's header and
// body limits (http_session.cc), several requests in a row as a pipelining
// client sends them, the target split by Boost.URL's parse_origin_form and
// routed by the server's own Router over its standard routes, then the
// readers of request_parsing.h (If-Match / If-None-Match, Content-Type,
// integer and list query parameters) and the event decoder on the body.
// Nothing is handled: the store is never reached.
#include <boost/asio/buffer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/beast/http.hpp>
#include <boost/url/parse.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/event_json.h"
#include "fuzz_check.h"
#include "indelible/schemas.h"
#include "server/context.h"
#include "server/http_session.h"
#include "server/request_parsing.h"
#include "server/request_screen.h"
#include "server/routes.h"
#include "server/server_stream.h"

namespace {

namespace http = boost::beast::http;
namespace server = indelible::server;

// One server's context, made once and kept for the process (libFuzzer
// calls the harness millions of times): a memory store, one write thread.
struct Fixture {
  Fixture() {
    options.write_threads = 1;
    // A SchemaStore, as RunServer makes of every store (docs/SCHEMAS.md).
    store = indelible::SchemaStore::Wrap(indelible::Store::Open("memory:").value()).value();
    context = std::make_unique<server::ServerContext>(*store, options, ioc);
    server::AddStandardRoutes(context->router, *context);
  }
  boost::asio::io_context ioc;
  indelible::ServeOptions options;
  std::unique_ptr<indelible::SchemaStore> store;
  std::unique_ptr<server::ServerContext> context;
};

Fixture& TheFixture() {
  static Fixture* fixture = new Fixture();  // never destroyed: threads may outlive main
  return *fixture;
}

void Handle(Fixture& f, server::Request request) {
  for (const auto& field : request)
    FUZZ_CHECK(field.value().find_first_of("\r\n") == std::string_view::npos,
               "a header value holds CR or LF");
  (void)request.keep_alive();
  (void)server::ExpectedFromHeaders(request);
  // The front door (Host, Origin, Content-Type) refuses before any route,
  // as HttpSession::Dispatch does; a body past it is JSON.
  if (server::ScreenRequest(request, f.context->screen)) return;
  if (!request.body().empty()) (void)indelible::EventsFromJson(request.body());

  // HttpSession::Dispatch.
  auto target = boost::urls::parse_origin_form(request.target());
  if (!target) return;
  std::vector<std::string> segments;
  for (auto segment : target->segments()) segments.push_back(std::string(segment));
  std::multimap<std::string, std::string> query;
  for (auto param : target->params())
    query.emplace(std::string(param.key), param.has_value ? std::string(param.value) : "");
  server::Router::Match match = f.context->router.Find(request.method(), segments);

  auto session = std::make_shared<server::HttpSession>(
      server::ServerStream(boost::asio::ip::tcp::socket(f.ioc)), *f.context);
  auto exchange = std::make_shared<server::Exchange>(
      session, std::move(request), std::move(match.params), std::move(query), "fuzz");
  // The parameters the routes read, with their ranges.
  (void)server::IntegerParam(*exchange, "limit", 100, 1, 10000);
  (void)server::IntegerParam(*exchange, "max", 100, 1, 10000);
  (void)server::IntegerParam(*exchange, "waitMs", 0, 0, 60000);
  (void)server::IntegerParam(*exchange, "timeout", 5000, 0, 60000);
  (void)server::IntegerParam(*exchange, "from", 0, 0, INT64_MAX);
  const auto filter = server::FilterFromQuery(*exchange);
  for (const auto& list : {filter.categories, filter.stream_prefixes, filter.types})
    for (const auto& item : list) FUZZ_CHECK(!item.empty(), "an empty list item");
  // Answered: nothing is queued on the (never run) io_context.
  (void)exchange->TakeSocket();
}

}  // namespace

// Boost's asserts in this harness and the server library (fuzz/CMakeLists.txt
// says why): Beast 1.81's `n >= 5` in parse_chunk_header is wrong
// (boostorg/beast#2861: a last chunk cut short reaches it with fewer bytes,
// and the parser then asks for more, as release builds do); every other
// failed assert aborts, as assert() would.
namespace boost {
void assertion_failed(char const* expr, char const* function, char const* file, long line) {
  if (std::string_view(expr) == "n >= 5" && std::string_view(file).ends_with("basic_parser.ipp"))
    return;
  std::fprintf(stderr, "%s:%ld: %s: Assertion `%s' failed.\n", file, line, function, expr);
  std::abort();
}
void assertion_failed_msg(char const* expr, char const* msg, char const* function, char const* file,
                          long line) {
  std::fprintf(stderr, "%s:%ld: %s: Assertion `%s' failed: %s\n", file, line, function, expr, msg);
  std::abort();
}
}  // namespace boost

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Fixture& f = TheFixture();
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  // Up to four requests in a row on one connection.
  for (int i = 0; i < 4 && !rest.empty(); ++i) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(static_cast<std::uint32_t>(f.options.max_header_bytes));
    parser.body_limit(2 * f.options.limits.max_append_bytes);
    parser.eager(true);
    boost::beast::error_code ec;
    while (!parser.is_done()) {
      const std::size_t used = parser.put(boost::asio::buffer(rest.data(), rest.size()), ec);
      rest.remove_prefix(used);
      if (ec == http::error::need_more) ec = {};
      if (ec) break;
      if (used == 0) {
        parser.put_eof(ec);  // the client closed: what it sent is all there is
        break;
      }
    }
    if (ec || !parser.is_done()) return 0;  // the server answers 400/413/431 and closes
    FUZZ_CHECK(parser.get().body().size() <= 2 * f.options.limits.max_append_bytes,
               "a body over the limit");
    Handle(f, parser.release());
  }
  return 0;
}

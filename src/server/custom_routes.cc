// The public embedding API (include/indelible/server.h): Serve(), and the
// routes a program adds beside the standard ones.
#include <fmt/format.h>

#include <boost/asio/post.hpp>
#include <cctype>

#include "api/wire.h"
#include "core/event_json.h"
#include "server/routes.h"

namespace indelible {

const std::string* HttpRequest::Header(std::string_view name) const {
  auto it = headers.find(std::string(name));
  return it == headers.end() ? nullptr : &it->second;
}

HttpResponse HttpResponse::Json(int status, std::string body) {
  return HttpResponse{status, {{"Content-Type", "application/json"}}, std::move(body)};
}

HttpResponse HttpResponse::Error(const Status& status) {
  return Json(static_cast<int>(server::HttpStatusFor(status.code())), api::StatusToJson(status));
}

Status Serve(Store& store, const ServeOptions& options) {
  return server::RunServer(store, options);
}

namespace server {
namespace {

HttpRequest ToPublic(const Exchange& exchange) {
  const Request& request = exchange.request();
  HttpRequest out;
  out.method = std::string(request.method_string());
  out.target = std::string(request.target());
  out.params = exchange.params();
  out.query = exchange.query();
  for (const auto& field : request) {
    std::string name(field.name_string());
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out.headers[name] = std::string(field.value());
  }
  out.body = request.body();
  return out;
}

// A header name is an HTTP token; a value has no CR, LF or NUL (they would
// split the answer: response splitting) and fits in 8 KiB.
bool ValidHeader(std::string_view name, std::string_view value) {
  static constexpr std::string_view kTokenSymbols = "!#$%&'*+-.^_`|~";
  if (name.empty() || name.size() > 256 || value.size() > 8192) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) &&
        kTokenSymbols.find(c) == std::string_view::npos)
      return false;
  return value.find_first_of(std::string_view("\r\n\0", 3)) == std::string_view::npos;
}

Result<Response> FromPublic(const HttpResponse& response, unsigned version) {
  if (response.status < 100 || response.status > 599)
    return Status::Internal(
        fmt::format("the route's handler answered status {}, not an HTTP status", response.status));
  Response out(static_cast<http::status>(response.status), version);
  for (const auto& [name, value] : response.headers) {
    if (!ValidHeader(name, value))
      return Status::Internal(fmt::format(
          "the route's handler set an invalid header '{}' (a name must be a token; a value must "
          "not hold CR, LF or NUL, and fit in 8 KiB)",
          name.substr(0, 64)));
    out.set(name, value);
  }
  out.body() = response.body;
  return out;
}

}  // namespace

Status AddCustomRoutes(Router& router, ServerContext& context) {
  for (const HttpRoute& route : context.options.routes) {
    const http::verb method = http::string_to_verb(route.method);
    auto handler = route.handler;
    // By default what a REST route means: GET reads, the rest writes.
    const bool reads = method == http::verb::get || method == http::verb::head;
    auto right = route.right.empty()
                     ? Result<auth::Right>(reads ? auth::Right::kRead : auth::Right::kWrite)
                     : auth::ParseRight(route.right, "right");
    if (!right.ok())
      return Status::Invalid("routes", fmt::format("route {} {}: {}", route.method, route.pattern,
                                                   right.status().message()));
    router.Add(method, route.pattern, Access::Under(*right, route.stream_prefix),
               [&context, handler](std::shared_ptr<Exchange> exchange) {
                 // The handler may block on the store: the blocking pool runs it. The
                 // conversions too are inside the guard: a bad header value the
                 // program set is a 500 for this request, not the end of the server.
                 boost::asio::post(context.blocking, [handler, exchange] {
                   RunGuarded(*exchange, [&] {
                     HttpRequest request = ToPublic(*exchange);
                     if (exchange->principal() != nullptr)
                       request.principal = exchange->principal()->name;
                     auto response = FromPublic(handler(request), exchange->request().version());
                     if (!response.ok()) return exchange->RespondError(response.status());
                     exchange->Respond(std::move(*response));
                   });
                 });
               });
  }
  return Status::Ok();
}

}  // namespace server
}  // namespace indelible

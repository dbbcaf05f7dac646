// The public embedding API (include/indelible/server.h): Serve(), and the
// routes a program adds beside the standard ones.
#include <fmt/format.h>

#include <boost/asio/post.hpp>
#include <cctype>

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
  return Json(static_cast<int>(server::HttpStatusFor(status.code())), StatusToJson(status));
}

Status Serve(Store& store, const ServeOptions& options) {
  server::ServerOptions internal;
  internal.listen = options.listen;
  internal.io_threads = options.io_threads;
  internal.write_threads = options.write_threads;
  internal.heartbeat = options.heartbeat;
  internal.log_requests = options.log_requests;
  internal.limits = options.limits;
  internal.routes = options.routes;
  return server::RunServer(store, internal);
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

Response FromPublic(const HttpResponse& response, unsigned version) {
  Response out(static_cast<http::status>(response.status), version);
  for (const auto& [name, value] : response.headers) out.set(name, value);
  out.body() = response.body;
  return out;
}

}  // namespace

void AddCustomRoutes(Router& router, ServerContext& context) {
  for (const HttpRoute& route : context.options.routes) {
    const http::verb method = http::string_to_verb(route.method);
    auto handler = route.handler;
    router.Add(method, route.pattern, [&context, handler](std::shared_ptr<Exchange> exchange) {
      // The handler may block on the store: the blocking pool runs it.
      boost::asio::post(context.blocking, [&context, handler, exchange] {
        HttpResponse response;
        try {
          response = handler(ToPublic(*exchange));
        } catch (const std::exception& e) {
          response = HttpResponse::Error(
              Status::Internal(fmt::format("the route's handler failed: {}", e.what())));
        }
        exchange->Respond(FromPublic(response, exchange->request().version()));
      });
    });
  }
}

}  // namespace server
}  // namespace indelible

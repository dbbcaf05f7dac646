#include "server/http.h"

#include <fmt/format.h>

#include <cstdio>

#include "api/wire.h"
#include "core/event_json.h"
#include "server/http_session.h"

namespace indelible::server {

Exchange::Exchange(std::shared_ptr<HttpSession> session, Request request,
                   std::vector<std::string> params, std::multimap<std::string, std::string> query,
                   std::string request_id)
    : session_(std::move(session)),
      request_(std::move(request)),
      params_(std::move(params)),
      query_(std::move(query)),
      request_id_(std::move(request_id)),
      work_(boost::asio::make_work_guard(session_->context().ioc)) {}

Exchange::~Exchange() {
  if (!done_) RespondError(Status::Internal("the server dropped this request without an answer"));
}

std::optional<std::string> Exchange::Query(const std::string& key) const {
  auto [first, last] = query_.equal_range(key);
  if (first == last) return std::nullopt;
  return std::prev(last)->second;
}

std::vector<std::string> Exchange::QueryList(const std::string& key) const {
  std::vector<std::string> values;
  auto [first, last] = query_.equal_range(key);
  for (auto it = first; it != last; ++it) {
    std::string_view rest = it->second;
    while (!rest.empty()) {
      const auto comma = rest.find(',');
      std::string_view item = rest.substr(0, comma);
      if (!item.empty()) values.emplace_back(item);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return values;
}

void Exchange::Respond(Response response) {
  if (done_) return;
  done_ = true;
  session_->Send(std::move(response));
}

void Exchange::RespondJson(http::status status, std::string body) {
  Response response(status, request_.version());
  response.set(http::field::content_type, "application/json");
  response.body() = std::move(body);
  Respond(std::move(response));
}

void Exchange::RespondError(const Status& status) {
  RespondError(HttpStatusFor(status.code()), status);
}

void Exchange::Fail(std::string_view what) noexcept {
  try {
    const std::string line = fmt::format("indelible: request {} ({} {}) failed: {}\n", request_id_,
                                         std::string_view(request_.method_string()),
                                         std::string_view(request_.target()).substr(0, 512), what);
    std::fwrite(line.data(), 1, line.size(), stderr);
    if (done_) return;
    RespondError(Status::Internal(fmt::format(
        "the server failed on this request (request id {}); its log says why", request_id_)));
  } catch (...) {
    // Out of memory even for the answer: the dropped exchange's destructor
    // still answers, and the connection closes.
  }
}

void Exchange::RecordError(ErrorCode code) { session_->context().metrics.RecordError(code); }

void Exchange::RespondError(http::status code, const Status& status) {
  RecordError(status.code());
  RespondJson(code, api::StatusToJson(status));
}

const std::string& Exchange::peer_subject() const { return session_->peer_subject(); }

ServerStream Exchange::TakeSocket() {
  done_ = true;
  return session_->ReleaseSocket();
}

http::status HttpStatusFor(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk:
      return http::status::ok;
    case ErrorCode::kNotFound:
      return http::status::not_found;
    case ErrorCode::kConflict:
      return http::status::conflict;
    case ErrorCode::kInvalid:
      return http::status::bad_request;
    case ErrorCode::kTooLarge:
      return http::status::payload_too_large;
    case ErrorCode::kRejected:
      return http::status::unprocessable_entity;
    case ErrorCode::kUnauthorized:
      return http::status::unauthorized;
    case ErrorCode::kUnavailable:
      return http::status::service_unavailable;
    case ErrorCode::kInternal:
      return http::status::internal_server_error;
  }
  return http::status::internal_server_error;
}

void Router::Add(http::verb method, std::string_view pattern, Handler handler) {
  Route route{method, {}, std::move(handler)};
  std::string_view rest = pattern;
  if (!rest.empty() && rest.front() == '/') rest.remove_prefix(1);
  while (true) {
    const auto slash = rest.find('/');
    route.segments.emplace_back(rest.substr(0, slash));
    if (slash == std::string_view::npos) break;
    rest.remove_prefix(slash + 1);
  }
  routes_.push_back(std::move(route));
}

Router::Match Router::Find(http::verb method, const std::vector<std::string>& segments) const {
  Match match;
  for (const Route& route : routes_) {
    if (route.segments.size() != segments.size()) continue;
    std::vector<std::string> params;
    bool same = true;
    for (std::size_t i = 0; i < segments.size() && same; ++i) {
      if (route.segments[i] == "{}") {
        params.push_back(segments[i]);
      } else {
        same = route.segments[i] == segments[i];
      }
    }
    if (!same) continue;
    if (route.method == method) {
      match.handler = &route.handler;
      match.params = std::move(params);
      return match;
    }
    match.allowed.push_back(route.method);
  }
  return match;
}

}  // namespace indelible::server

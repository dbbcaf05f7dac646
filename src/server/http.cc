#include "server/http.h"

#include <fmt/format.h>

#include <boost/asio/post.hpp>
#include <cstdio>

#include "api/wire.h"
#include "auth/audit.h"
#include "core/event_json.h"
#include "server/context.h"
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
      source_(session_->remote_address()),
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
  // A refusal (401, 403) writes nothing, as at the front door.
  if (audit_act_.empty() || principal_ == nullptr ||
      response.result() == http::status::unauthorized ||
      response.result() == http::status::forbidden)
    return session_->Send(std::move(response));
  // The act is on record before its answer leaves: a client that saw the
  // answer finds the act in $audit.
  auth::AuditEntry entry;
  entry.act = std::move(audit_act_);
  entry.principal = principal_->name;
  entry.source = source_;
  entry.target = audit_target_.empty() && !params_.empty() ? params_.front() : audit_target_;
  entry.status = response.result_int();
  entry.outcome = error_ != ErrorCode::kOk      ? std::string(ErrorCodeName(error_))
                  : response.result_int() < 300 ? "ok"
                                                : std::to_string(response.result_int());
  entry.request_id = request_id_;
  entry.detail = std::move(audit_detail_);
  ServerContext& context = session_->context();
  boost::asio::post(context.blocking, [&context, session = session_, entry = std::move(entry),
                                       response = std::move(response)]() mutable {
    if (Status s = CatchToStatus([&] { return auth::AppendAudit(context.store, entry); }); !s.ok())
      std::fprintf(stderr, "indelible: request %s: the audit trail refused %s: %s\n",
                   entry.request_id.c_str(), entry.act.c_str(), s.ToString().c_str());
    session->Send(std::move(response));
  });
}

void Exchange::Audit(std::string act, std::string target) {
  audit_act_ = std::move(act);
  audit_target_ = std::move(target);
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

void Exchange::RecordError(ErrorCode code) {
  error_ = code;
  session_->context().metrics.RecordError(code);
}

void Exchange::RespondError(http::status code, const Status& status) {
  RecordError(status.code());
  RespondJson(code, api::StatusToJson(status));
}

const std::string& Exchange::peer_subject() const { return session_->peer_subject(); }

std::string Exchange::AnswerHeaderLines() const { return session_->AnswerHeaderLines(); }

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

void Router::Add(http::verb method, std::string_view pattern, Access access, Handler handler) {
  Route route{method, {}, std::move(access), std::move(handler)};
  std::string_view rest = pattern;
  if (!rest.empty() && rest.front() == '/') rest.remove_prefix(1);
  // "/" has no segments, as Boost.URL splits the request's path; "/a/"
  // has two, the second empty.
  while (pattern != "/") {
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
      match.access = &route.access;
      match.params = std::move(params);
      return match;
    }
    match.allowed.push_back(route.method);
  }
  return match;
}

}  // namespace indelible::server

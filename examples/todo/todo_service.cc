#include "todo_service.h"

#include <boost/json.hpp>
#include <charconv>
#include <chrono>
#include <thread>

#include "min_position.h"

namespace todo {

namespace json = boost::json;
using indelible::EventData;
using indelible::Expected;
using indelible::HttpRequest;
using indelible::HttpResponse;
using indelible::Status;

namespace {

// A read model kept on PostgreSQL by a loaded machine (a sanitizer build
// under test) lags by seconds; past this bound the query says 503.
constexpr auto kReadYourWrites = std::chrono::seconds(5);

// Built by appending: GCC 12 at -O3 warns falsely (-Wrestrict) on "\"" + string.
std::string Etag(std::int64_t version) {
  std::string etag = "\"";
  etag += std::to_string(version);
  etag += '"';
  return etag;
}

HttpResponse WithEtag(HttpResponse response, std::int64_t version) {
  response.headers.emplace_back("ETag", Etag(version));
  return response;
}

// The write's position in $all: pass it as ?minPosition= to read it back
// from the read model (read-your-writes). None where positions come after
// the commit (DynamoDB: 0).
HttpResponse WithPosition(HttpResponse response, indelible::Position position) {
  if (position.value() == 0) return response;
  response.headers.emplace_back("Indelible-Position", std::to_string(position.value()));
  return response;
}

std::string TodoJson(const Todo& todo) {
  return json::serialize(
      json::object{{"id", todo.id}, {"title", todo.title}, {"message", todo.message}});
}

json::object ParseObject(const std::string& body, Status* error) {
  boost::system::error_code ec;
  json::value value = json::parse(body, ec);
  if (ec || !value.is_object()) {
    *error = Status::Invalid("body", "send a JSON object");
    return {};
  }
  return std::move(value.as_object());
}

// A string field; absent is fine unless `required`.
std::optional<std::string> Field(const json::object& object, std::string_view key, bool required,
                                 Status* error) {
  const json::value* v = object.if_contains(key);
  if (v == nullptr || v->is_null()) {
    if (required) *error = Status::Invalid(std::string(key), std::string(key) + " is required");
    return std::nullopt;
  }
  if (!v->is_string()) {
    *error = Status::Invalid(std::string(key), std::string(key) + " must be a string");
    return std::nullopt;
  }
  return std::string(v->as_string());
}

// 428 without If-Match: updates must say which version they change.
std::optional<std::int64_t> RequiredVersion(const HttpRequest& request, HttpResponse* error) {
  const std::string* header = request.Header("if-match");
  if (header == nullptr) {
    *error = HttpResponse::Json(
        428,
        R"({"error":"invalid","field":"If-Match","message":"send If-Match with the ETag of the todo you change"})");
    return std::nullopt;
  }
  std::string_view text = *header;
  std::int64_t version = -1;
  if (text.size() >= 3 && text.front() == '"' && text.back() == '"') {
    auto [end, ec] = std::from_chars(text.data() + 1, text.data() + text.size() - 1, version);
    if (ec != std::errc() || end != text.data() + text.size() - 1) version = -1;
  }
  if (version < 0) {
    *error = HttpResponse::Error(Status::Invalid(
        "If-Match", "If-Match must be the quoted version from the ETag, like \"0\""));
    return std::nullopt;
  }
  return version;
}

// The todo as the read model has it once it caught up with the stream.
std::optional<Todo> Current(indelible::Store& store, TodoReadModel& model, const std::string& id,
                            HttpResponse* error) {
  if (!indelible::EventId::Parse(id).ok()) {
    *error = HttpResponse::Error(Status::NotFound("no todo " + id + " (ids are UUIDs)"));
    return std::nullopt;
  }
  auto head = store.Head("todo-" + id);
  if (!head.ok()) {
    *error = HttpResponse::Error(head.status().code() == indelible::ErrorCode::kNotFound
                                     ? Status::NotFound("no todo " + id)
                                     : head.status());
    return std::nullopt;
  }
  auto found = model.Get(id);
  if (head->position.value() == 0) {
    // A store that assigns positions after the commit (DynamoDB) gives
    // none to wait for: wait until the read model holds the head's version.
    const auto deadline = std::chrono::steady_clock::now() + kReadYourWrites;
    while (found.ok() && (!*found || (*found)->version < head->version.value())) {
      if (std::chrono::steady_clock::now() >= deadline) {
        *error = HttpResponse::Error(Status::Unavailable("the read model is behind; retry"));
        return std::nullopt;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      found = model.Get(id);
    }
  } else if (!model.WaitFor(head->position, kReadYourWrites)) {
    *error = HttpResponse::Error(Status::Unavailable("the read model is behind; retry"));
    return std::nullopt;
  } else {
    found = model.Get(id);
  }
  if (!found.ok()) {
    *error = HttpResponse::Error(found.status());
    return std::nullopt;
  }
  const std::optional<Todo>& todo = *found;
  if (!todo || todo->deleted) {
    *error = HttpResponse::Error(Status::NotFound("no todo " + id));
    return std::nullopt;
  }
  return todo;
}

EventData Event(std::string type, json::object data) {
  EventData event;
  event.id = indelible::EventId::Random();
  event.type = std::move(type);
  event.data = json::serialize(data);
  return event;
}

// A failed append: 409 with the current ETag on a conflict.
HttpResponse AppendError(const Status& status) {
  HttpResponse response = HttpResponse::Error(status);
  if (status.code() == indelible::ErrorCode::kConflict && status.actual_version())
    response.headers.emplace_back("ETag", Etag(*status.actual_version()));
  return response;
}

HttpResponse Create(indelible::Store& store, const HttpRequest& request) {
  Status error;
  json::object body = ParseObject(request.body, &error);
  auto id = error.ok() ? Field(body, "id", true, &error) : std::nullopt;
  auto title = error.ok() ? Field(body, "title", true, &error) : std::nullopt;
  auto message = error.ok() ? Field(body, "message", false, &error) : std::nullopt;
  if (!error.ok()) return HttpResponse::Error(error);
  if (!indelible::EventId::Parse(*id).ok())
    return HttpResponse::Error(Status::Invalid("id", "id must be a UUID made by the client"));
  const Todo todo{*id, *title, message.value_or(""), 0, false};
  auto result = store.Append(
      "todo-" + *id, Expected::no_stream(),
      {Event("Todo.Created", {{"id", todo.id}, {"title", todo.title}, {"message", todo.message}})});
  if (!result.ok()) {
    if (result.status().code() == indelible::ErrorCode::kConflict)
      return AppendError(
          Status::Conflict("todo " + *id + " already exists", result.status().actual_version()));
    return AppendError(result.status());
  }
  HttpResponse response =
      WithPosition(WithEtag(HttpResponse::Json(201, TodoJson(todo)), 0), result->position);
  response.headers.emplace_back("Location", "/todo/" + *id);
  return response;
}

HttpResponse Update(indelible::Store& store, TodoReadModel& model, const HttpRequest& request) {
  HttpResponse error;
  auto version = RequiredVersion(request, &error);
  if (!version) return error;
  auto todo = Current(store, model, request.params[0], &error);
  if (!todo) return error;
  Status invalid;
  json::object body = ParseObject(request.body, &invalid);
  auto title = invalid.ok() ? Field(body, "title", false, &invalid) : std::nullopt;
  auto message = invalid.ok() ? Field(body, "message", false, &invalid) : std::nullopt;
  if (!invalid.ok()) return HttpResponse::Error(invalid);
  json::object changes{{"id", todo->id}};
  if (title) changes["title"] = todo->title = *title;
  if (message) changes["message"] = todo->message = *message;
  auto result =
      store.Append("todo-" + todo->id, Expected::exactly(indelible::StreamVersion(*version)),
                   {Event("Todo.Updated", std::move(changes))});
  if (!result.ok()) return AppendError(result.status());
  return WithPosition(
      WithEtag(HttpResponse::Json(200, TodoJson(*todo)), result->last_version.value()),
      result->position);
}

HttpResponse Delete(indelible::Store& store, TodoReadModel& model, const HttpRequest& request) {
  HttpResponse error;
  auto version = RequiredVersion(request, &error);
  if (!version) return error;
  auto todo = Current(store, model, request.params[0], &error);
  if (!todo) return error;
  auto result =
      store.Append("todo-" + todo->id, Expected::exactly(indelible::StreamVersion(*version)),
                   {Event("Todo.Deleted", {{"id", todo->id}})});
  if (!result.ok()) return AppendError(result.status());
  return WithPosition(
      WithEtag(HttpResponse::Json(200, R"({"id":")" + todo->id + R"(","deleted":true})"),
               result->last_version.value()),
      result->position);
}

// GET /todo?minPosition=P: the list once the read model has applied every
// event up to P (a position a write returned), waiting up to 2 s.
HttpResponse List(TodoReadModel& model, const HttpRequest& request) {
  Status reached = examples::AwaitMinPosition(
      request, [&model](auto position, auto timeout) { return model.WaitFor(position, timeout); },
      kReadYourWrites);
  if (!reached.ok()) return HttpResponse::Error(reached);
  auto todos = model.List();
  if (!todos.ok()) return HttpResponse::Error(todos.status());
  json::array out;
  for (const Todo& todo : *todos) out.push_back(json::parse(TodoJson(todo)));
  return HttpResponse::Json(200, json::serialize(json::object{{"todos", out}}));
}

}  // namespace

std::vector<indelible::HttpRoute> TodoRoutes(indelible::Store& store, TodoReadModel& model) {
  std::vector<indelible::HttpRoute> routes = {
      {"POST", "/todo", [&store](const HttpRequest& r) { return Create(store, r); }},
      {"GET", "/todo", [&model](const HttpRequest& r) { return List(model, r); }},
      {"GET", "/todo/{}",
       [&store, &model](const HttpRequest& r) {
         HttpResponse error;
         auto todo = Current(store, model, r.params[0], &error);
         if (!todo) return error;
         return WithEtag(HttpResponse::Json(200, TodoJson(*todo)), todo->version);
       }},
      {"POST", "/todo/{}",
       [&store, &model](const HttpRequest& r) { return Update(store, model, r); }},
      {"DELETE", "/todo/{}",
       [&store, &model](const HttpRequest& r) { return Delete(store, model, r); }},
  };
  // With authentication on (--auth), a caller needs read (GET) or write
  // (the rest) on the todo-* streams, as for /streams (docs/SECURITY.md).
  for (indelible::HttpRoute& route : routes) route.stream_prefix = "todo-";
  return routes;
}

}  // namespace todo

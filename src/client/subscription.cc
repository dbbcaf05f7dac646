// Subscriptions over Server-Sent Events (docs/HTTP.md, "Subscriptions").
//
// Reading: one read of the body is outstanding at a time
// (net::Connection::ReadSomeUntil); Next() waits on it for as long as it
// may, so a read that has not completed when Next() returns simply stays
// pending for the next call, and the connection is never torn down just
// because the caller's timeout was short. The same over http and https.
//
// Resuming: every event dispatched moves resume_after_ (its position, which
// is also its SSE id); a new connection sends it as Last-Event-ID. Events
// parsed but not yet returned wait in ready_, so a reconnect never skips or
// repeats them.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <deque>
#include <thread>

#include "api/wire.h"
#include "client/client_impl.h"

namespace indelible::client {
namespace {

namespace http = net::http;
using net::Connection;
using net::NetError;
using net::Request;

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

milliseconds Left(Clock::time_point deadline) {
  return std::max(milliseconds(0),
                  std::chrono::duration_cast<milliseconds>(deadline - Clock::now()));
}

class SseSubscription final : public RemoteSubscription {
 public:
  SseSubscription(std::shared_ptr<net::HttpClient> http, std::string target,
                  SubscribeOptions options)
      : http_(std::move(http)),
        target_(std::move(target)),
        options_(std::move(options)),
        resume_after_(options_.after),
        last_returned_(options_.after.value_or(Position(0))) {}
  ~SseSubscription() override { Drop(); }

  Result<std::optional<RecordedEvent>> Next(milliseconds timeout) override;
  Position last_position() const override { return last_returned_; }
  bool caught_up() const override { return caught_up_; }
  std::uint64_t reconnects() const override { return reconnects_; }
  void Disconnect() override { Drop(); }

 private:
  Request MakeRequest(const std::string& target) const;
  // Connects, sends the subscription request and reads the answer's header.
  Status Open();
  // The body of an error answer (small), after its header.
  std::string ReadErrorBody(Connection& connection);
  // Reads until `until` or one piece arrives; false if the connection ended.
  bool ReadUntil(Clock::time_point until);
  void Consume(std::string_view bytes);
  Status Dispatch();
  // Closes the connection and forgets what it half-delivered.
  void Drop();

  const std::shared_ptr<net::HttpClient> http_;
  const std::string target_;
  const SubscribeOptions options_;

  std::unique_ptr<Connection> connection_;
  std::optional<net::StreamParser> parser_;
  std::array<char, 16 * 1024> chunk_{};
  bool reading_ = false;  // a read into chunk_ is outstanding on connection_
  Clock::time_point last_byte_;

  std::string text_;  // received, not yet a whole line
  std::string data_;  // the data lines of the message being read
  bool has_data_ = false;
  std::deque<RecordedEvent> ready_;

  std::optional<Position> resume_after_;  // sent as Last-Event-ID
  Position last_returned_;
  bool caught_up_ = false;
  bool opened_once_ = false;
  std::uint64_t reconnects_ = 0;
  int failures_ = 0;
  Status last_failure_;
  std::optional<Status> final_;  // an error no reconnect can cure
};

Result<std::optional<RecordedEvent>> SseSubscription::Next(milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    if (!ready_.empty()) {
      RecordedEvent event = std::move(ready_.front());
      ready_.pop_front();
      last_returned_ = event.position;
      return std::optional<RecordedEvent>(std::move(event));
    }
    if (final_) return *final_;
    if (!connection_) {
      if (failures_ > 0) {  // back off: 50 ms, doubling, at most 2 s
        const milliseconds pause(std::min(2000, 50 << std::min(failures_ - 1, 6)));
        if (Left(deadline) < pause) {
          std::this_thread::sleep_for(Left(deadline));
          return last_failure_;
        }
        std::this_thread::sleep_for(pause);
      }
      if (Status s = Open(); !s.ok()) {
        if (s.code() != indelible::ErrorCode::kUnavailable) {
          final_ = s;
          return s;
        }
        ++failures_;
        last_failure_ = s;
        if (Clock::now() >= deadline) return s;
        continue;
      }
      failures_ = 0;
    }
    const auto idle_deadline = last_byte_ + options_.idle_timeout;
    if (!ReadUntil(std::min(deadline, idle_deadline))) continue;  // ended: reconnect
    if (!ready_.empty() || final_) continue;
    if (Clock::now() >= idle_deadline) {
      Drop();  // not even a heartbeat: the connection is dead
      continue;
    }
    if (Clock::now() >= deadline) return std::optional<RecordedEvent>();
  }
}

Request SseSubscription::MakeRequest(const std::string& target) const {
  return http_->MakeRequest(http::verb::get, target, "indelible-client/0.1");
}

Status SseSubscription::Open() {
  const milliseconds timeout = http_->options().request_timeout;
  if (options_.from_end && !resume_after_) {
    // Pin "the end" to a position once, so that a reconnect before the first
    // event resumes from there instead of from a later end (a gap).
    net::RetryPolicy once;
    net::Exchange health_answer = http_->Send(MakeRequest("/health"), once);
    if (!health_answer.ok()) return health_answer.status;
    const net::Response& answer = health_answer.response;
    auto health = api::HealthFromJson(answer.body());
    if (!health.ok()) return api::StatusFromAnswer(answer.result_int(), answer.body());
    resume_after_ = health->last_position;
  }
  auto connection = http_->OpenConnection();
  if (!connection.ok()) return connection.status();
  Request request = MakeRequest(target_);
  request.set(http::field::accept, "text/event-stream");
  request.set(http::field::cache_control, "no-cache");
  if (resume_after_) request.set("Last-Event-ID", std::to_string(resume_after_->value()));
  Connection& c = **connection;
  NetError ec = c.Send(request, timeout);
  parser_.emplace();
  parser_->body_limit(boost::none);  // a subscription's body never ends
  if (!ec) ec = c.ReadHeader(*parser_, timeout);
  if (ec) {
    parser_.reset();
    return Status::Unavailable(net::DescribeTransportError(http_->endpoint(), ec, timeout));
  }
  if (parser_->get().result() != http::status::ok) {
    const unsigned status = parser_->get().result_int();
    const std::string body = ReadErrorBody(c);
    parser_.reset();
    return api::StatusFromAnswer(status, body);
  }
  connection_ = std::move(*connection);
  last_byte_ = Clock::now();
  if (opened_once_) ++reconnects_;
  opened_once_ = true;
  return Status::Ok();
}

std::string SseSubscription::ReadErrorBody(Connection& connection) {
  std::string body;
  while (!parser_->is_done() && body.size() < 64 * 1024) {
    parser_->get().body().data = chunk_.data();
    parser_->get().body().size = chunk_.size();
    const NetError ec = connection.ReadSome(*parser_, http_->options().request_timeout);
    body.append(chunk_.data(), chunk_.size() - parser_->get().body().size);
    if (ec && ec != http::error::need_buffer) break;
  }
  return body;
}

bool SseSubscription::ReadUntil(Clock::time_point until) {
  if (!reading_) {
    parser_->get().body().data = chunk_.data();
    parser_->get().body().size = chunk_.size();
    reading_ = true;
  }
  const std::optional<NetError> read = connection_->ReadSomeUntil(*parser_, until);
  if (!read) return true;  // still waiting; the read stays outstanding
  reading_ = false;
  last_byte_ = Clock::now();
  Consume(std::string_view(chunk_.data(), chunk_.size() - parser_->get().body().size));
  if ((*read && *read != http::error::need_buffer) || parser_->is_done()) {
    Drop();  // the server ended the stream, or the connection broke
    return false;
  }
  return true;
}

void SseSubscription::Consume(std::string_view bytes) {
  text_.append(bytes);
  std::size_t start = 0;
  for (std::size_t end; (end = text_.find('\n', start)) != std::string::npos; start = end + 1) {
    std::string_view line(text_.data() + start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) {  // a blank line ends a message
      if (Status s = Dispatch(); !s.ok()) final_ = s;
      continue;
    }
    const std::size_t colon = line.find(':');
    const std::string_view field = line.substr(0, colon);
    std::string_view value = colon == std::string_view::npos ? "" : line.substr(colon + 1);
    if (value.starts_with(' ')) value.remove_prefix(1);
    if (field.empty()) {  // a comment
      if (value == "caught-up") caught_up_ = true;
    } else if (field == "data") {
      if (has_data_) data_.push_back('\n');
      data_.append(value);
      has_data_ = true;
    }  // `id` is the event's position, which the event itself carries
  }
  text_.erase(0, start);
}

Status SseSubscription::Dispatch() {
  if (!has_data_) return Status::Ok();
  auto event = api::StoredEventFromJson(data_);
  data_.clear();
  has_data_ = false;
  if (!event.ok()) return event.status();
  resume_after_ = event->position;
  ready_.push_back(std::move(*event));
  return Status::Ok();
}

void SseSubscription::Drop() {
  if (!connection_) return;
  connection_->Close();  // lets an outstanding read finish before its buffers go
  reading_ = false;
  parser_.reset();
  connection_.reset();
  text_.clear();
  data_.clear();
  has_data_ = false;
  caught_up_ = false;
}

}  // namespace

std::unique_ptr<RemoteSubscription> MakeSseSubscription(std::shared_ptr<net::HttpClient> http,
                                                        std::string target,
                                                        SubscribeOptions options) {
  return std::make_unique<SseSubscription>(std::move(http), std::move(target), std::move(options));
}

}  // namespace indelible::client

// Subscriptions over Server-Sent Events (docs/HTTP.md, "Subscriptions").
//
// Reading: one asynchronous read of the body is outstanding at a time, on
// the connection's own io_context; Next() runs that context for as long as
// it may wait, so a read that has not completed when Next() returns simply
// stays pending for the next call, and the connection is never torn down
// just because the caller's timeout was short.
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

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

milliseconds Left(Clock::time_point deadline) {
  return std::max(milliseconds(0),
                  std::chrono::duration_cast<milliseconds>(deadline - Clock::now()));
}

class SseSubscription final : public RemoteSubscription {
 public:
  SseSubscription(Endpoint endpoint, ClientOptions client_options, std::string target,
                  SubscribeOptions options)
      : endpoint_(std::move(endpoint)),
        client_options_(client_options),
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
  void StartRead();
  void Consume(std::string_view bytes);
  Status Dispatch();
  // Closes the connection and forgets what it half-delivered.
  void Drop();

  const Endpoint endpoint_;
  const ClientOptions client_options_;
  const std::string target_;
  const SubscribeOptions options_;

  std::unique_ptr<Connection> connection_;
  std::optional<http::response_parser<http::buffer_body>> parser_;
  std::array<char, 16 * 1024> chunk_{};
  bool reading_ = false;    // a read is outstanding on connection_
  bool read_done_ = false;  // ... and has completed with read_ec_
  NetError read_ec_;
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
  Request request(http::verb::get, endpoint_.base_path + target, 11);
  request.set(http::field::host, endpoint_.host_header);
  request.set(http::field::user_agent, "indelible-client/0.1");
  request.keep_alive(true);
  return request;
}

Status SseSubscription::Open() {
  const milliseconds timeout = client_options_.timeout;
  auto connection = Connection::Open(endpoint_, timeout);
  if (!connection.ok()) return connection.status();
  if (options_.from_end && !resume_after_) {
    // Pin "the end" to a position once, so that a reconnect before the first
    // event resumes from there instead of from a later end (a gap).
    Response answer;
    if (NetError ec = (*connection)->RoundTrip(MakeRequest("/health"), &answer, timeout))
      return Status::Unavailable(DescribeTransportError(endpoint_, ec, timeout));
    auto health = api::HealthFromJson(answer.body());
    if (!health.ok()) return api::StatusFromAnswer(answer.result_int(), answer.body());
    resume_after_ = health->last_position;
    if (!(*connection)->Reusable()) {
      connection = Connection::Open(endpoint_, timeout);
      if (!connection.ok()) return connection.status();
    }
  }
  Request request = MakeRequest(target_);
  request.set(http::field::accept, "text/event-stream");
  request.set(http::field::cache_control, "no-cache");
  if (resume_after_) request.set("Last-Event-ID", std::to_string(resume_after_->value()));
  Connection& c = **connection;
  NetError ec = c.RunWithDeadline(
      [&](auto handler) { http::async_write(c.stream(), request, std::move(handler)); }, timeout);
  parser_.emplace();
  parser_->body_limit(boost::none);  // a subscription's body never ends
  if (!ec) {
    ec = c.RunWithDeadline(
        [&](auto handler) {
          http::async_read_header(c.stream(), c.buffer(), *parser_, std::move(handler));
        },
        timeout);
  }
  if (ec) {
    parser_.reset();
    return Status::Unavailable(DescribeTransportError(endpoint_, ec, timeout));
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
    const NetError ec = connection.RunWithDeadline(
        [&](auto handler) {
          http::async_read_some(connection.stream(), connection.buffer(), *parser_,
                                std::move(handler));
        },
        client_options_.timeout);
    body.append(chunk_.data(), chunk_.size() - parser_->get().body().size);
    if (ec && ec != http::error::need_buffer) break;
  }
  return body;
}

void SseSubscription::StartRead() {
  parser_->get().body().data = chunk_.data();
  parser_->get().body().size = chunk_.size();
  reading_ = true;
  read_done_ = false;
  http::async_read_some(connection_->stream(), connection_->buffer(), *parser_,
                        [this](NetError ec, std::size_t) {
                          read_ec_ = ec;
                          read_done_ = true;
                        });
}

bool SseSubscription::ReadUntil(Clock::time_point until) {
  if (!reading_) StartRead();
  boost::asio::io_context& ioc = connection_->ioc();
  ioc.restart();
  ioc.poll();  // what has arrived already, even when `until` has passed
  if (!read_done_) ioc.run_until(until);
  if (!read_done_) return true;  // still waiting; the read stays outstanding
  reading_ = false;
  last_byte_ = Clock::now();
  Consume(std::string_view(chunk_.data(), chunk_.size() - parser_->get().body().size));
  if ((read_ec_ && read_ec_ != http::error::need_buffer) || parser_->is_done()) {
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
  connection_->Close();
  if (reading_) {  // let the aborted read finish before its buffers go
    connection_->ioc().restart();
    connection_->ioc().run();
  }
  reading_ = false;
  parser_.reset();
  connection_.reset();
  text_.clear();
  data_.clear();
  has_data_ = false;
  caught_up_ = false;
}

}  // namespace

std::unique_ptr<RemoteSubscription> MakeSseSubscription(Endpoint endpoint,
                                                        ClientOptions client_options,
                                                        std::string target,
                                                        SubscribeOptions options) {
  return std::make_unique<SseSubscription>(std::move(endpoint), client_options, std::move(target),
                                           std::move(options));
}

}  // namespace indelible::client

#include "server/event_stream.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

#include "core/event_json.h"

namespace indelible::server {

namespace asio = boost::asio;

namespace {

constexpr std::size_t kPageEvents = 500;
// A page stops early past this many bytes, so big events keep memory bounded.
constexpr std::size_t kPageBytes = 1 << 20;

void AppendMessage(const EventView& event, std::string* out) {
  out->append(fmt::format("id: {}\ndata: ", event.position.value()));
  const std::size_t start = out->size();
  AppendEventJson(event, out);
  // SSE ends a field at a line break. Raw CR and LF can only be whitespace
  // between JSON tokens (inside strings they are escaped), so spaces do.
  std::replace_if(
      out->begin() + static_cast<std::ptrdiff_t>(start), out->end(),
      [](char c) { return c == '\n' || c == '\r'; }, ' ');
  out->append("\n\n");
}

}  // namespace

EventStream::EventStream(asio::ip::tcp::socket socket, ServerContext& context, Source source)
    : socket_(std::move(socket)),
      context_(context),
      source_(std::move(source)),
      heartbeat_(socket_.get_executor()) {
  context_.metrics.subscribers.fetch_add(1, std::memory_order_relaxed);
  context_.metrics.open_connections.fetch_add(1, std::memory_order_relaxed);
}

EventStream::~EventStream() {
  context_.metrics.subscribers.fetch_sub(1, std::memory_order_relaxed);
  context_.metrics.open_connections.fetch_sub(1, std::memory_order_relaxed);
  std::lock_guard lock(context_.live_mu);
  context_.streams.erase(this);
}

void EventStream::Start() {
  {
    std::lock_guard lock(context_.live_mu);
    context_.streams[this] = weak_from_this();
  }
  asio::dispatch(socket_.get_executor(), [self = shared_from_this()] {
    // No length and no chunking: the body is the rest of the connection.
    self->text_ =
        "HTTP/1.1 200 OK\r\nServer: indelible\r\nContent-Type: text/event-stream\r\n"
        "Cache-Control: no-cache\r\nConnection: close\r\nX-Accel-Buffering: no\r\n\r\n";
    self->Write();
    self->WatchForClose();
    self->Heartbeat();
  });
}

void EventStream::Stop() {
  asio::post(socket_.get_executor(), [self = shared_from_this()] { self->Close(); });
}

void EventStream::Pump() {
  if (writing_ || closed_ || waiting_) return;
  const Position last = context_.store.LastPosition();
  if (!ReadPage()) return Close();
  if (!text_.empty()) return Write();
  if (!caught_up_sent_) {
    caught_up_sent_ = true;
    text_ = ": caught-up\n\n";
    return Write();
  }
  WaitForCommit(last);
}

bool EventStream::ReadPage() {
  text_.clear();
  Store& store = context_.store;
  if (source_.stream.empty()) {
    ReadAllOptions options;
    options.from = source_.next_position;
    options.limit = kPageEvents;
    options.filter = source_.filter;
    auto cursor = store.ReadAll(options);
    if (!cursor.ok()) return false;
    bool stopped_early = false;
    for (; (*cursor)->Valid(); (*cursor)->Next()) {
      AppendMessage((*cursor)->event(), &text_);
      source_.next_position = (*cursor)->event().position.next();
      if (text_.size() > kPageBytes) {
        stopped_early = true;
        break;
      }
    }
    if (!(*cursor)->status().ok()) return false;
    if (!stopped_early) source_.next_position = Position((*cursor)->resume_from());
    return true;
  }
  ReadStreamOptions options;
  options.from = source_.next_version;
  options.limit = kPageEvents;
  auto cursor = store.ReadStream(source_.stream, options);
  // Not there yet (or deleted): wait for it to be written.
  if (!cursor.ok()) return cursor.status().code() == ErrorCode::kNotFound;
  for (; (*cursor)->Valid(); (*cursor)->Next()) {
    const EventView& event = (*cursor)->event();
    source_.next_version = StreamVersion(event.version.value() + 1);
    if (event.position.value() <= source_.after_position.value()) continue;
    AppendMessage(event, &text_);
    if (text_.size() > kPageBytes) break;
  }
  return (*cursor)->status().ok();
}

void EventStream::Write() {
  writing_ = true;
  asio::async_write(socket_, asio::buffer(text_),
                    [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                      self->writing_ = false;
                      if (ec) return self->Close();
                      self->Pump();
                    });
}

void EventStream::WaitForCommit(Position after) {
  waiting_ = true;
  std::weak_ptr<EventStream> weak = shared_from_this();
  auto executor = socket_.get_executor();
  context_.watcher.NotifyAfter(after, [weak, executor] {
    asio::post(executor, [weak] {
      if (auto self = weak.lock()) {
        self->waiting_ = false;
        self->Pump();
      }
    });
  });
}

void EventStream::Heartbeat() {
  heartbeat_.expires_after(context_.options.heartbeat);
  heartbeat_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
    if (ec || self->closed_) return;
    if (!self->writing_) {
      self->text_ = ": heartbeat\n\n";
      self->Write();
    }
    self->Heartbeat();
  });
}

// Subscribers send nothing after the request; a read that ends means the
// client went away, and only then do we learn it while idle.
void EventStream::WatchForClose() {
  socket_.async_read_some(asio::buffer(peek_),
                          [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                            if (ec) return self->Close();
                            self->WatchForClose();
                          });
}

void EventStream::Close() {
  if (closed_) return;
  closed_ = true;
  heartbeat_.cancel();
  boost::system::error_code ec;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
  socket_.close(ec);
}

}  // namespace indelible::server

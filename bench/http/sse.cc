// The sse phase of indelible-http-bench: how long after an append is
// acknowledged does a live subscriber have the event?
#include <fmt/format.h>

#include <algorithm>
#include <boost/asio.hpp>
#include <boost/beast.hpp>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "asio_names.h"

namespace {

struct SseRun {
  asio::io_context ioc{1};
  tcp::socket subscriber{ioc};
  tcp::socket writer{ioc};
  std::string stream;
  int events = 0;
  std::string inbox;
  std::array<char, 8192> chunk{};
  bool caught_up = false;
  std::map<int, Clock::time_point> acked, received;
  beast::flat_buffer buffer;
  http::request<http::string_body> request;
  http::response<http::string_body> response;
  int next = 0;
  int failed = 0;

  void Read() {
    subscriber.async_read_some(asio::buffer(chunk), [this](beast::error_code ec, std::size_t n) {
      if (ec) return;
      const auto now = Clock::now();
      inbox.append(chunk.data(), n);
      for (auto end = inbox.find("\n\n"); end != std::string::npos; end = inbox.find("\n\n")) {
        const std::string message = inbox.substr(0, end);
        inbox.erase(0, end + 2);
        if (message.find(": caught-up") != std::string::npos && !caught_up) {
          caught_up = true;
          Append();
        }
        const auto at = message.find("\"version\":");
        if (at != std::string::npos) received[std::stoi(message.substr(at + 10))] = now;
      }
      if (static_cast<int>(received.size()) < events) Read();
    });
  }

  void Append() {
    if (next == events) return;
    request = http::request<http::string_body>(http::verb::post, "/streams/" + stream, 11);
    request.set(http::field::host, "127.0.0.1");
    request.set(http::field::content_type, "application/json");
    request.body() = fmt::format(R"({{"type":"Ping","data":{{"n":{}}}}})", next);
    request.prepare_payload();
    http::async_write(writer, request, [this](beast::error_code ec, std::size_t) {
      if (ec) return void(++failed);
      response = {};
      http::async_read(writer, buffer, response, [this](beast::error_code ec2, std::size_t) {
        if (ec2 || response.result() != http::status::created) return void(++failed);
        acked[next++] = Clock::now();
        Append();
      });
    });
  }
};

double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())))];
}

}  // namespace

int RunSse(const tcp::endpoint& endpoint, int events, const std::string& stream) {
  SseRun run;
  run.stream = stream;
  run.events = events;
  run.subscriber.connect(endpoint);
  run.writer.connect(endpoint);
  run.writer.set_option(tcp::no_delay(true));
  const std::string get = fmt::format(
      "GET /subscribe/streams/{}?from=0 HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: "
      "text/event-stream\r\n\r\n",
      stream);
  asio::write(run.subscriber, asio::buffer(get));
  run.Read();
  asio::steady_timer limit(run.ioc, std::chrono::seconds(60));
  limit.async_wait([&](beast::error_code ec) {
    if (!ec) run.ioc.stop();
  });
  auto poll = std::make_shared<std::function<void()>>();
  asio::steady_timer done(run.ioc);
  *poll = [&] {
    if (static_cast<int>(run.received.size()) >= events &&
        static_cast<int>(run.acked.size()) >= events)
      return run.ioc.stop();
    done.expires_after(std::chrono::milliseconds(20));
    done.async_wait([&, poll](beast::error_code) { (*poll)(); });
  };
  (*poll)();
  run.ioc.run();

  std::vector<double> latencies;
  for (const auto& [version, ack] : run.acked) {
    auto it = run.received.find(version);
    if (it == run.received.end()) continue;
    latencies.push_back(
        std::max(0.0, std::chrono::duration<double, std::micro>(it->second - ack).count()));
  }
  const std::string conditions =
      fmt::format("events={} delivered={} failed={} subscribers=1 writer_connections=1", events,
                  latencies.size(), run.failed);
  std::printf("bench=sse_latency figure=p50_us value=%.0f %s\n", Quantile(latencies, 0.5),
              conditions.c_str());
  std::printf("bench=sse_latency figure=p99_us value=%.0f %s target_max=2000 met=%s\n",
              Quantile(latencies, 0.99), conditions.c_str(),
              Quantile(latencies, 0.99) <= 2000 ? "yes" : "no");
  std::fflush(stdout);
  return static_cast<int>(latencies.size()) == events ? 0 : 1;
}

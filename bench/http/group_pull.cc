// The HTTP pull benchmark of a consumer group: EVENTS events are appended
// (1,000 per append, untimed), then one worker pulls batches of 1,000 with
// POST /consumers/{group}/pull and acknowledges each batch with one
// POST .../ack, closed loop on one keep-alive connection, until every event
// is acknowledged. Target: >= 100,000 events/s.
#include <fmt/format.h>

#include <boost/asio.hpp>
#include <boost/beast.hpp>
#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <string>

#include "asio_names.h"
#include "blocking_connection.h"

namespace json = boost::json;

namespace {

// `events` 200-byte events as one append's JSON array.
std::string Batch(int append, int events) {
  std::string body = "[";
  for (int i = 0; i < events; ++i) {
    if (i > 0) body += ',';
    std::string data = fmt::format(R"({{"seq":{},"memo":")", append * events + i);
    data.append(200 - data.size() - 2, 'x');
    data += "\"}";
    body += fmt::format(R"({{"type":"Deposited","data":{}}})", data);
  }
  return body + "]";
}

}  // namespace

int RunGroupPull(const tcp::endpoint& endpoint, int events, const std::string& run) {
  constexpr int kPerAppend = 1000;
  constexpr int kMax = 1000;
  BlockingConnection connection(endpoint);
  const int appends = (events + kPerAppend - 1) / kPerAppend;
  for (int a = 0; a < appends; ++a) {
    auto answer = connection.Send(http::verb::post, fmt::format("/streams/pull{}-{}", run, a % 100),
                                  Batch(a, kPerAppend));
    if (answer.result() != http::status::created) {
      std::fprintf(stderr, "group pull: append failed: %s\n", answer.body().c_str());
      return 1;
    }
  }
  const std::uint64_t total = static_cast<std::uint64_t>(appends) * kPerAppend;
  const std::string group = fmt::format("/consumers/pull{}", run);
  auto created = connection.Send(http::verb::put, group + fmt::format("?category=pull{}", run));
  if (created.result() != http::status::created) {
    std::fprintf(stderr, "group pull: create failed: %s\n", created.body().c_str());
    return 1;
  }
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t acked = 0, requests = 0;
  while (acked < total) {
    auto pulled = connection.Send(http::verb::post,
                                  group + fmt::format("/pull?consumer=w&max={}&waitMs=1000", kMax));
    ++requests;
    if (pulled.result() != http::status::ok) {
      std::fprintf(stderr, "group pull: pull failed: %s\n", pulled.body().c_str());
      return 1;
    }
    const json::value body = json::parse(pulled.body());
    std::string ack = R"({"positions":[)";
    std::size_t n = 0;
    for (const auto& d : body.at("deliveries").as_array()) {
      if (n++ > 0) ack += ',';
      ack += std::to_string(d.at("event").at("position").as_int64());
    }
    ack += "]}";
    if (n == 0) continue;
    auto answer = connection.Send(http::verb::post, group + "/ack", std::move(ack));
    ++requests;
    if (answer.result() != http::status::ok) {
      std::fprintf(stderr, "group pull: ack failed: %s\n", answer.body().c_str());
      return 1;
    }
    acked += n;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double rate = static_cast<double>(total) / seconds;
  std::printf(
      "bench=http_group_pull figure=events_per_s value=%.0f events=%llu batch=%d consumers=1 "
      "requests=%llu seconds=%.3f event_bytes=200 keep_alive=yes target_min=100000 met=%s\n",
      rate, static_cast<unsigned long long>(total), kMax, static_cast<unsigned long long>(requests),
      seconds, rate >= 100000 ? "yes" : "no");
  std::fflush(stdout);
  return 0;
}

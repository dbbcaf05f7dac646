// indelible-http-bench: a closed-loop HTTP load generator for `indelible
// serve` (scripts/bench-http.sh starts the servers and calls it).
//
//   append   N connections, each appending one 200-byte JSON event at a time
//            to its own stream with the exact If-Match (durable server)
//   head     N connections, GET /streams/{s}/head; and the same request to
//            the static yardstick server, in the same run, for the ratio
//   pull     a consumer group's worker pulling and acking batches of 1,000
//            (group_pull.cc)
//   sse      one subscriber on /subscribe/streams/{s}; one writer appends
//            events one at a time; latency = delivery time minus the
//            append's acknowledgement time (0 if delivery came first)
//
// One thread drives every connection (asio), so the client takes at most
// one of the machine's cores.
//
// --tls-ca FILE speaks https to a server whose certificate FILE vouches for
// (keep-alive as over plain TCP: one handshake per connection), and
// --header adds a header to every request (an Authorization, say), for
// scripts/bench-security.sh; --phases picks the phases to run.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "asio_names.h"
#include "server_cpu.h"

namespace {

struct Tally {
  std::uint64_t ok = 0, failed = 0;
  std::vector<double> latencies_us;
  double seconds = 0;
};

double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())))];
}

std::string RandomUuid(std::mt19937_64& rng) {
  const std::uint64_t a = rng(), b = rng();
  return fmt::format("{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}", a >> 32, (a >> 16) & 0xffff,
                     a & 0xfff, b >> 52, b & 0xffffffffffffULL);
}

// A 200-byte JSON payload, as in the store benchmarks.
std::string EventBody(std::mt19937_64& rng, std::uint64_t seq) {
  std::string data = fmt::format(R"({{"seq":{},"amount":{},"memo":")", seq, rng() % 100000);
  data.append(200 - data.size() - 2, 'x');
  data += "\"}";
  return fmt::format(R"({{"id":"{}","type":"Deposited","data":{}}})", RandomUuid(rng), data);
}

using MakeRequest = std::function<http::request<http::string_body>(int conn, std::uint64_t seq)>;

// How every connection of a phase talks: plain TCP, or TLS with `tls` (a
// client context trusting the server's CA); `headers` go on every request.
struct Wire {
  std::shared_ptr<asio::ssl::context> tls;
  std::vector<std::pair<std::string, std::string>> headers;
};

using TlsStream = beast::ssl_stream<tcp::socket>;

// Connection `conn` sends make(conn, 0), make(conn, 1), ... one at a time
// until the deadline; a response with `want` counts as ok. Stream: a
// tcp::socket, or a TlsStream (handshake first).
template <class Stream>
class Conn : public std::enable_shared_from_this<Conn<Stream>> {
 public:
  Conn(asio::io_context& ioc, int index, const MakeRequest& make, http::status want,
       Clock::time_point deadline, Tally& tally, const Wire& wire)
      : stream_(MakeStream(ioc, wire)),
        index_(index),
        make_(make),
        want_(want),
        deadline_(deadline),
        tally_(tally),
        wire_(wire) {}

  void Start(const tcp::endpoint& endpoint) {
    auto& socket = beast::get_lowest_layer(stream_);
    socket.async_connect(endpoint, [self = this->shared_from_this()](beast::error_code ec) {
      if (ec) {
        ++self->tally_.failed;
        return;
      }
      beast::get_lowest_layer(self->stream_).set_option(tcp::no_delay(true));
      if constexpr (std::is_same_v<Stream, TlsStream>) {
        self->stream_.async_handshake(
            asio::ssl::stream_base::client, [self](beast::error_code ec2) {
              if (ec2) {
                std::fprintf(stderr, "tls handshake: %s\n", ec2.message().c_str());
                ++self->tally_.failed;
                return;
              }
              self->Send();
            });
      } else {
        self->Send();
      }
    });
  }

 private:
  static Stream MakeStream(asio::io_context& ioc, const Wire& wire) {
    if constexpr (std::is_same_v<Stream, TlsStream>) {
      return Stream(ioc, *wire.tls);
    } else {
      return Stream(ioc);
    }
  }

  void Send() {
    if (Clock::now() >= deadline_) return;
    request_ = make_(index_, seq_++);
    for (const auto& [name, value] : wire_.headers) request_.set(name, value);
    request_.prepare_payload();
    started_ = Clock::now();
    http::async_write(
        stream_, request_, [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
          if (ec) return void(++self->tally_.failed);
          self->response_ = {};
          http::async_read(
              self->stream_, self->buffer_, self->response_,
              [self](beast::error_code ec2, std::size_t) {
                if (ec2) return void(++self->tally_.failed);
                const auto end = Clock::now();
                if (end <= self->deadline_) {
                  if (self->response_.result() == self->want_) {
                    ++self->tally_.ok;
                    self->tally_.latencies_us.push_back(
                        std::chrono::duration<double, std::micro>(end - self->started_).count());
                  } else {
                    ++self->tally_.failed;
                  }
                }
                self->Send();
              });
        });
  }

  Stream stream_;
  int index_;
  const MakeRequest& make_;
  http::status want_;
  Clock::time_point deadline_;
  Tally& tally_;
  const Wire& wire_;
  std::uint64_t seq_ = 0;
  Clock::time_point started_;
  beast::flat_buffer buffer_;
  http::request<http::string_body> request_;
  http::response<http::string_body> response_;
};

Tally ClosedLoop(const tcp::endpoint& endpoint, int connections, double seconds,
                 const MakeRequest& make, http::status want, const Wire& wire = {}) {
  asio::io_context ioc(1);
  Tally tally;
  const auto start = Clock::now();
  const auto deadline =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  for (int c = 0; c < connections; ++c) {
    if (wire.tls) {
      std::make_shared<Conn<TlsStream>>(ioc, c, make, want, deadline, tally, wire)->Start(endpoint);
    } else {
      std::make_shared<Conn<tcp::socket>>(ioc, c, make, want, deadline, tally, wire)
          ->Start(endpoint);
    }
  }
  ioc.run();
  tally.seconds = std::chrono::duration<double>(std::min(Clock::now(), deadline) - start).count();
  return tally;
}

http::request<http::string_body> Get(const std::string& target) {
  http::request<http::string_body> r(http::verb::get, target, 11);
  r.set(http::field::host, "127.0.0.1");
  return r;
}

void Print(const std::string& bench, const std::string& figure, double value,
           const std::string& conditions, int decimals = 0) {
  std::printf("bench=%s figure=%s value=%.*f %s\n", bench.c_str(), figure.c_str(), decimals, value,
              conditions.c_str());
  std::fflush(stdout);
}

}  // namespace

int RunSse(const tcp::endpoint& endpoint, int events, const std::string& stream);
int RunGroupPull(const tcp::endpoint& endpoint, int events, const std::string& run);

int main(int argc, char** argv) {
  CLI::App app{"indelible-http-bench: closed-loop HTTP load for indelible serve"};
  int port = 0, static_port = 0, connections = 64, sse_events = 2000, pull_events = 200000;
  double seconds = 5;
  std::string run_id = std::to_string(Clock::now().time_since_epoch().count());
  app.add_option("--port", port, "port of indelible serve on 127.0.0.1")->required();
  app.add_option("--static-port", static_port,
                 "port of indelible-static-server (all but --append-only)");
  app.add_option("--connections", connections)->capture_default_str();
  app.add_option("--seconds", seconds, "duration of each closed-loop phase")->capture_default_str();
  app.add_option("--sse-events", sse_events)->capture_default_str();
  app.add_option("--pull-events", pull_events, "events of the consumer group pull phase")
      ->capture_default_str();
  bool append_only = false;
  app.add_flag("--append-only", append_only,
               "run only the append phase (for comparing server changes quickly)");
  std::string durability = "sync", label;
  app.add_option("--durability", durability,
                 "what the server's store does before it acknowledges, for the output lines")
      ->capture_default_str();
  app.add_option("--label", label, "extra key=value fields for every output line");
  std::string tls_ca, phases = "append,head,static,sse,pull";
  std::vector<std::string> header_lines;
  app.add_option("--tls-ca", tls_ca,
                 "speak TLS (append and head phases), trusting this PEM CA for the server");
  app.add_option("--header", header_lines,
                 "\"Name: value\" sent with every request of the append and head phases; repeat "
                 "for more");
  app.add_option("--phases", phases, "the phases to run, comma-separated")->capture_default_str();
  int server_pid = 0;
  app.add_option("--server-pid", server_pid,
                 "the server's process id: its CPU per appended event goes on the append line");
  CLI11_PARSE(app, argc, argv);
  if (append_only) phases = "append";
  const auto runs = [&](std::string_view phase) {
    return ("," + phases + ",").find("," + std::string(phase) + ",") != std::string::npos;
  };
  Wire wire;
  for (const std::string& line : header_lines) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) {
      std::fprintf(stderr, "indelible-http-bench: --header '%s' is not 'Name: value'\n",
                   line.c_str());
      return 2;
    }
    const auto start = line.find_first_not_of(' ', colon + 1);
    wire.headers.emplace_back(line.substr(0, colon),
                              start == std::string::npos ? "" : line.substr(start));
  }
  if (!tls_ca.empty()) {
    wire.tls = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
    wire.tls->load_verify_file(tls_ca);
    wire.tls->set_verify_mode(asio::ssl::verify_peer);
    if (runs("sse") || runs("pull") || runs("static")) {
      std::fprintf(stderr,
                   "indelible-http-bench: --tls-ca: only the append and head phases "
                   "speak TLS; add --phases append,head\n");
      return 2;
    }
  }
  if (runs("static") && static_port == 0) {
    std::fprintf(stderr, "indelible-http-bench: --static-port is needed unless --append-only\n");
    return 2;
  }
  const tcp::endpoint server(asio::ip::make_address("127.0.0.1"),
                             static_cast<unsigned short>(port));
  const tcp::endpoint yardstick(asio::ip::make_address("127.0.0.1"),
                                static_cast<unsigned short>(static_port));
  const std::string conditions = fmt::format(
      "connections={} seconds={} event_bytes=200 "
      "keep_alive=yes client_threads=1{}{}{}",
      connections, seconds, wire.tls ? " tls=yes" : "", label.empty() ? "" : " ", label);

  // append: each connection its own stream, the exact expected version.
  // Seeded per run: event ids must differ from an earlier run's against the
  // same server, or every append would be a conflicting id reuse.
  std::vector<std::mt19937_64> rngs;
  const std::uint64_t seed = std::random_device{}();
  for (int c = 0; c < connections; ++c) rngs.emplace_back(seed + static_cast<std::uint64_t>(c));
  MakeRequest append = [&](int conn, std::uint64_t seq) {
    http::request<http::string_body> r(http::verb::post,
                                       fmt::format("/streams/http-{}-{}", run_id, conn), 11);
    r.set(http::field::host, "127.0.0.1");
    r.set(http::field::content_type, "application/json");
    if (seq == 0) {
      r.set(http::field::if_none_match, "*");
    } else {
      r.set(http::field::if_match, fmt::format("\"{}\"", seq - 1));
    }
    r.body() = EventBody(rngs[static_cast<std::size_t>(conn)], seq);
    return r;
  };
  std::optional<double> append_rate;
  if (runs("append")) {
    const ServerCpu before =
        wire.tls ? ServerCpu{} : ReadServerCpu(server, server_pid, wire.headers);
    Tally appended = ClosedLoop(server, connections, seconds, append, http::status::created, wire);
    const ServerCpu after =
        wire.tls ? ServerCpu{} : ReadServerCpu(server, server_pid, wire.headers);
    append_rate = static_cast<double>(appended.ok) / appended.seconds;
    Print("http_append", "events_per_s", *append_rate,
          fmt::format("{} durability={} failed={}{}{}", conditions, durability, appended.failed,
                      durability == "sync" ? " target_min=30000" : "",
                      CpuPerEvent(before, after, static_cast<double>(appended.ok))));
    Print("http_append", "p50_us", Quantile(appended.latencies_us, 0.5), conditions);
    Print("http_append", "p99_us", Quantile(appended.latencies_us, 0.99), conditions);
  }
  if (!runs("head")) return 0;

  // head, then the yardstick, back to back.
  const std::string head_target = fmt::format("/streams/http-{}-0/head", run_id);
  MakeRequest head = [&](int, std::uint64_t) { return Get(head_target); };
  MakeRequest fixed = [&](int, std::uint64_t) { return Get("/streams/static/head"); };
  Tally heads = ClosedLoop(server, connections, seconds, head, http::status::ok, wire);
  const double head_rate = static_cast<double>(heads.ok) / heads.seconds;
  if (!runs("static")) {
    Print("http_head", "requests_per_s", head_rate,
          fmt::format("{} failed={}", conditions, heads.failed));
    Print("http_head", "p50_us", Quantile(heads.latencies_us, 0.5), conditions);
    Print("http_head", "p99_us", Quantile(heads.latencies_us, 0.99), conditions);
    return 0;
  }
  Tally statics = ClosedLoop(yardstick, connections, seconds, fixed, http::status::ok);
  const double static_rate = static_cast<double>(statics.ok) / statics.seconds;
  Print("http_head", "requests_per_s", head_rate,
        fmt::format("{} ratio_to_static={:.2f} target_min_ratio=0.5 met={} failed={}", conditions,
                    head_rate / static_rate, head_rate >= 0.5 * static_rate ? "yes" : "no",
                    heads.failed));
  Print("http_head", "p50_us", Quantile(heads.latencies_us, 0.5), conditions);
  Print("http_head", "p99_us", Quantile(heads.latencies_us, 0.99), conditions);
  Print("http_static", "requests_per_s", static_rate,
        fmt::format("{} failed={}", conditions, statics.failed));
  Print("http_static", "p50_us", Quantile(statics.latencies_us, 0.5), conditions);
  Print("http_static", "p99_us", Quantile(statics.latencies_us, 0.99), conditions);
  if (append_rate)
    Print("http_append", "ratio_to_static", *append_rate / static_rate,
          fmt::format("{} target_min_ratio=0.7 met={}", conditions,
                      *append_rate >= 0.7 * static_rate ? "yes" : "no"),
          2);

  if (runs("sse")) {
    if (int rc = RunSse(server, sse_events, fmt::format("sse-{}", run_id)); rc != 0) return rc;
  }
  return runs("pull") ? RunGroupPull(server, pull_events, run_id) : 0;
}

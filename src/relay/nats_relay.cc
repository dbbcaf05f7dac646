// NatsRelay (include/indelible/nats_relay.h) on libnats (nats.c, apt's
// libnats-dev): asynchronous JetStream publishes whose acknowledgements
// come back through an AckHandler on the library's thread.
//
// Operation: Run pulls a batch in position order, drops (acknowledges)
// what the stream already holds (position <= last_position_), publishes the
// rest asynchronously with an ExpectLastSeq chain, and pulls and publishes
// the next batch while JetStream stores that one (kBatchesInFlight). The
// AckHandler records the highest acknowledged position: thanks to the
// chain, that message's predecessors are all stored, so every batch up to
// it is acknowledged to the source. A refused message or a timeout leads to
// Recover: drop what nats.c waits for, read where the stream really ends,
// publish the unacknowledged events again after a back-off.
#include <fmt/format.h>
#include <indelible/nats_relay.h>
#include <nats/nats.h>

#include <algorithm>
#include <boost/json.hpp>
#include <charconv>
#include <cstring>
#include <deque>
#include <thread>

#include "core/mutex.h"

namespace indelible {
namespace {

using std::chrono::milliseconds;

constexpr const char* kPositionHeader = "Indelible-Position";
constexpr milliseconds kMaxBackoff{2000};
// Batches published before the oldest is acknowledged: the next batch is
// pulled and sent while JetStream stores the previous one.
constexpr std::size_t kBatchesInFlight = 2;

std::string NatsError(natsStatus s) { return natsStatus_GetText(s); }

// A subject token: characters NATS gives a meaning to, or that cannot
// appear in a subject, become '_'; an empty token becomes '_'.
std::string Token(std::string_view text, bool keep_dots) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    const bool bad = u <= ' ' || u == 0x7f || c == '*' || c == '>' || (c == '.' && !keep_dots);
    out += bad ? '_' : c;
  }
  // Dots kept in a type must not make empty tokens ("a..b", ".a", "a.").
  std::string cleaned;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const bool dot = out[i] == '.';
    if (dot && (i == 0 || i + 1 == out.size() || out[i + 1] == '.')) {
      cleaned += '_';
      continue;
    }
    cleaned += out[i];
  }
  return cleaned.empty() ? std::string("_") : cleaned;
}

// Header values may not hold line breaks: metadata is re-serialised
// compactly (boost::json escapes them inside strings) when it has any.
std::string HeaderSafeMetadata(std::string_view metadata) {
  if (metadata.find_first_of("\r\n") == std::string_view::npos) return std::string(metadata);
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(metadata, ec);
  return ec ? std::string("{}") : boost::json::serialize(value);
}

// The tags as a compact JSON array: tags hold no control characters
// (query.h), so it is one header line.
std::string TagsHeader(const std::vector<std::string>& tags) {
  boost::json::array array;
  for (const auto& tag : tags) array.emplace_back(tag);
  return boost::json::serialize(array);
}

}  // namespace

class NatsRelay::Impl {
 public:
  explicit Impl(NatsRelayOptions options) : options_(std::move(options)) {}
  ~Impl() {
    if (js_ != nullptr) jsCtx_Destroy(js_);
    if (conn_ != nullptr) natsConnection_Destroy(conn_);
  }

  Status Connect() {
    natsOptions* opts = nullptr;
    natsStatus s = natsOptions_Create(&opts);
    if (s == NATS_OK) s = natsOptions_SetURL(opts, options_.nats_url.c_str());
    // Once connected, reconnect forever: an outage is waited out, and what
    // was published meanwhile is buffered and checked by the ack chain.
    if (s == NATS_OK) s = natsOptions_SetMaxReconnect(opts, -1);
    if (s == NATS_OK) s = natsOptions_SetReconnectWait(opts, 100);
    if (s == NATS_OK) s = natsOptions_SetTimeout(opts, 2000);
    if (s == NATS_OK) s = natsConnection_Connect(&conn_, opts);
    natsOptions_Destroy(opts);
    if (s != NATS_OK)
      return Status::Unavailable(
          fmt::format("cannot connect to NATS at {}: {}; is nats-server -js running there?",
                      options_.nats_url, NatsError(s)));
    jsOptions js_options;
    jsOptions_Init(&js_options);
    js_options.Wait = options_.ack_timeout.count();
    js_options.PublishAsync.MaxPending =
        static_cast<int64_t>(options_.batch * (kBatchesInFlight + 2));
    js_options.PublishAsync.AckHandler = &Impl::OnAck;
    js_options.PublishAsync.AckHandlerClosure = this;
    if (s = natsConnection_JetStream(&js_, conn_, &js_options); s != NATS_OK)
      return Status::Unavailable(fmt::format("NATS JetStream context: {}", NatsError(s)));
    return EnsureStream();
  }

  Status Run(RelaySource& source, const std::atomic<bool>& stop,
             const std::function<void(const NatsRelayStats&)>& progress) {
    auto report = [&] {
      if (progress) progress(stats());
    };
    if (Status s = ResyncUntilOk(stop, report); !s.ok()) return s;
    milliseconds backoff{100};
    while (!stop.load()) {
      Reap(source, report);
      if (failed_.load()) {
        if (Status s = Recover(stop, report, &backoff); !s.ok()) return s;
        continue;
      }
      if (inflight_.size() >= kBatchesInFlight) {
        if (!WaitForAcks()) {
          RecordFailure(fmt::format("JetStream did not acknowledge within {} ms",
                                    options_.ack_timeout.count()));
        }
        continue;
      }
      // The next batch: what a failure left to publish again, else a pull
      // (waiting only when nothing is in flight).
      std::vector<RecordedEvent> next;
      if (!retry_.empty()) {
        next = std::move(retry_);
        retry_.clear();
      } else {
        auto batch =
            source.Pull(options_.batch, inflight_.empty() ? milliseconds(100) : milliseconds(0));
        if (!batch.ok()) {
          if (batch.status().code() != ErrorCode::kUnavailable) return batch.status();
          Fail(batch.status().ToString(), report, &backoff);
          continue;
        }
        if (batch->empty()) {
          if (!inflight_.empty()) {
            (void)WaitForAcks();
            continue;
          }
          if (!options_.stop_when_idle) continue;
          auto caught_up = source.CaughtUp();
          if (!caught_up.ok()) return caught_up.status();
          if (*caught_up) return Status::Ok();
          continue;
        }
        next.reserve(batch->size());
        for (Delivery& d : *batch) next.push_back(std::move(d.event));
      }
      SkipWhatTheStreamHolds(source, &next);
      if (next.empty()) continue;
      if (std::string error = Publish(next); !error.empty()) RecordFailure(error);
      backoff = failed_.load() ? backoff : milliseconds(100);
    }
    return Status::Ok();
  }

  NatsRelayStats stats() const {
    MutexLock lock(&stats_mu_);
    return stats_;
  }

 private:
  static void OnAck(jsCtx*, natsMsg* msg, jsPubAck* ack, jsPubAckErr* error, void* closure) {
    auto* self = static_cast<Impl*>(closure);
    if (ack != nullptr) {
      const char* value = nullptr;
      std::uint64_t position = 0;
      if (natsMsgHeader_Get(msg, kPositionHeader, &value) == NATS_OK && value != nullptr)
        std::from_chars(value, value + std::strlen(value), position);
      std::uint64_t seen = self->max_acked_position_.load();
      while (position > seen && !self->max_acked_position_.compare_exchange_weak(seen, position)) {
      }
    } else {
      self->RecordFailure(fmt::format("JetStream refused a message: {} (code {})",
                                      error != nullptr && error->ErrText
                                          ? error->ErrText
                                          : NatsError(error ? error->Err : NATS_ERR),
                                      error != nullptr ? static_cast<int>(error->ErrCode) : 0));
    }
    {
      MutexLock lock(&self->ack_mu_);  // pairs with WaitForAcks
    }
    self->ack_cv_.SignalAll();
    natsMsg_Destroy(msg);
  }

  Status EnsureStream() {
    const std::string subjects = options_.subject_prefix + ".>";
    jsStreamInfo* info = nullptr;
    jsErrCode code = static_cast<jsErrCode>(0);
    natsStatus s = js_GetStreamInfo(&info, js_, options_.stream.c_str(), nullptr, &code);
    if (s == NATS_NOT_FOUND) {
      jsStreamConfig config;
      jsStreamConfig_Init(&config);
      config.Name = options_.stream.c_str();
      const char* subject_list[1] = {subjects.c_str()};
      config.Subjects = subject_list;
      config.SubjectsLen = 1;
      config.Storage = options_.memory_storage ? js_MemoryStorage : js_FileStorage;
      s = js_AddStream(&info, js_, &config, nullptr, &code);
      if (s != NATS_OK)
        return Status::Unavailable(fmt::format("cannot create JetStream stream '{}': {} ({})",
                                               options_.stream, NatsError(s),
                                               nats_GetLastError(nullptr)));
      jsStreamInfo_Destroy(info);
      return Status::Ok();
    }
    if (s != NATS_OK)
      return Status::Unavailable(fmt::format(
          "cannot read JetStream stream '{}' at {}: {} ({}); is JetStream enabled (-js)?",
          options_.stream, options_.nats_url, NatsError(s), nats_GetLastError(nullptr)));
    bool takes_ours = false;
    std::string theirs;
    for (int i = 0; i < info->Config->SubjectsLen; ++i) {
      if (subjects == info->Config->Subjects[i]) takes_ours = true;
      theirs += fmt::format("{}'{}'", i > 0 ? ", " : "", info->Config->Subjects[i]);
    }
    jsStreamInfo_Destroy(info);
    if (!takes_ours)
      return Status::Invalid(
          "stream", fmt::format("JetStream stream '{}' takes subjects {}, not '{}': give the "
                                "relay a stream of its own, or another --subject-prefix",
                                options_.stream, theirs, subjects));
    return Status::Ok();
  }

  // Reads the stream's last sequence and the position its last message
  // carries. invalid if that message is not the relay's.
  Status Resync() {
    jsStreamInfo* info = nullptr;
    jsErrCode code = static_cast<jsErrCode>(0);
    natsStatus s = js_GetStreamInfo(&info, js_, options_.stream.c_str(), nullptr, &code);
    if (s != NATS_OK)
      return Status::Unavailable(
          fmt::format("reading JetStream stream '{}': {}", options_.stream, NatsError(s)));
    const std::uint64_t last_seq = info->State.LastSeq;
    jsStreamInfo_Destroy(info);
    Position last_position(0);
    if (last_seq > 0) {
      natsMsg* msg = nullptr;
      s = js_GetMsg(&msg, js_, options_.stream.c_str(), last_seq, nullptr, &code);
      if (s != NATS_OK)
        return Status::Unavailable(fmt::format("reading message {} of JetStream stream '{}': {}",
                                               last_seq, options_.stream, NatsError(s)));
      const char* value = nullptr;
      const natsStatus has = natsMsgHeader_Get(msg, kPositionHeader, &value);
      std::uint64_t parsed = 0;
      bool ok = has == NATS_OK && value != nullptr;
      if (ok) {
        const std::string_view text(value);
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), parsed);
        ok = ec == std::errc() && end == text.data() + text.size();
      }
      natsMsg_Destroy(msg);
      if (!ok)
        return Status::Invalid(
            "stream", fmt::format("JetStream stream '{}' holds messages the relay did not write "
                                  "(sequence {} has no {} header): give the relay a stream of "
                                  "its own",
                                  options_.stream, last_seq, kPositionHeader));
      last_position = Position(parsed);
    }
    last_seq_ = last_seq;
    next_seq_ = last_seq;
    last_position_ = last_position;
    MutexLock lock(&stats_mu_);
    stats_.position = last_position;
    return Status::Ok();
  }

  template <typename Report>
  Status ResyncUntilOk(const std::atomic<bool>& stop, Report& report) {
    milliseconds backoff{100};
    while (!stop.load()) {
      Status s = Resync();
      if (s.ok()) return s;
      if (s.code() != ErrorCode::kUnavailable) return s;
      Fail(s.ToString(), report, &backoff);
    }
    return Status::Ok();
  }

  template <typename Report>
  void Fail(const std::string& error, Report& report, milliseconds* backoff) {
    RecordError(error);
    {
      MutexLock lock(&stats_mu_);
      ++stats_.resyncs;
    }
    report();
    std::this_thread::sleep_for(*backoff);
    *backoff = std::min(*backoff * 2, kMaxBackoff);
  }

  void RecordError(std::string error) {
    MutexLock lock(&stats_mu_);
    stats_.last_error = std::move(error);
  }

  // Events JetStream already holds (published before a crash or a lost
  // ack) are acknowledged without publishing.
  void SkipWhatTheStreamHolds(RelaySource& source, std::vector<RecordedEvent>* events) {
    std::vector<Position> held;
    auto first_new = events->begin();
    while (first_new != events->end() && first_new->position <= last_position_) {
      held.push_back(first_new->position);
      ++first_new;
    }
    if (held.empty()) return;
    events->erase(events->begin(), first_new);
    {
      MutexLock lock(&stats_mu_);
      stats_.skipped += held.size();
    }
    if (Status s = source.Ack(held); !s.ok()) RecordError(s.ToString());
  }

  // Publishes a batch after those in flight (the ExpectLastSeq chain goes
  // on from them); the error of a publish call, or empty.
  std::string Publish(std::vector<RecordedEvent>& events) {
    std::string error;
    for (const RecordedEvent& event : events) {
      if (error.empty()) error = PublishOne(event, next_seq_);
      ++next_seq_;  // also past a failed one: Recover republishes all of them
    }
    inflight_.push_back(std::move(events));
    return error;
  }

  // Moves the batches JetStream acknowledged to the source. An ack of a
  // message means every message before it in the chain is stored too
  // (each expected its predecessor's sequence), so the highest acknowledged
  // position is all it takes.
  template <typename Report>
  void Reap(RelaySource& source, Report& report) {
    const std::uint64_t acked = max_acked_position_.load();
    bool reaped = false;
    while (!inflight_.empty() && inflight_.front().back().position.value() <= acked) {
      std::vector<RecordedEvent>& batch = inflight_.front();
      std::vector<Position> positions;
      positions.reserve(batch.size());
      for (const RecordedEvent& e : batch) positions.push_back(e.position);
      last_seq_ += batch.size();
      last_position_ = batch.back().position;
      {
        MutexLock lock(&stats_mu_);
        stats_.published += batch.size();
        stats_.position = last_position_;
      }
      inflight_.pop_front();
      // A lost ack is harmless: the events come again and are skipped.
      if (Status s = source.Ack(positions); !s.ok()) RecordError(s.ToString());
      reaped = true;
    }
    if (reaped) report();
  }

  // Waits until the oldest batch in flight is acknowledged or something
  // failed; false on a timeout without progress.
  bool WaitForAcks() {
    if (inflight_.empty()) return true;
    const std::uint64_t target = inflight_.front().back().position.value();
    MutexLock lock(&ack_mu_);
    return ack_cv_.WaitFor(&ack_mu_, options_.ack_timeout,
                           [&] { return max_acked_position_.load() >= target || failed_.load(); });
  }

  void RecordFailure(std::string error) {
    MutexLock lock(&ack_mu_);
    if (ack_error_.empty()) ack_error_ = std::move(error);
    failed_.store(true);
  }

  // After a failure: drop what nats.c still waits for, read where the
  // stream really ends, and queue every unacknowledged event again.
  template <typename Report>
  Status Recover(const std::atomic<bool>& stop, Report& report, milliseconds* backoff) {
    natsMsgList list{};
    if (js_PublishAsyncGetPendingList(&list, js_) == NATS_OK) natsMsgList_Destroy(&list);
    std::string error;
    {
      MutexLock lock(&ack_mu_);
      error = std::move(ack_error_);
      ack_error_.clear();
    }
    Fail(error.empty() ? std::string("JetStream refused a message") : error, report, backoff);
    if (Status s = ResyncUntilOk(stop, report); !s.ok()) return s;
    retry_.clear();
    for (auto& batch : inflight_)
      for (auto& event : batch) retry_.push_back(std::move(event));
    inflight_.clear();
    // Late answers to the dropped messages may still set it: one more
    // resync at worst.
    failed_.store(false);
    return Status::Ok();
  }

  std::string PublishOne(const RecordedEvent& event, std::uint64_t expect_last_seq) {
    std::string subject = options_.subject_prefix + "." +
                          Token(StreamCategory(event.stream), /*keep_dots=*/false) + "." +
                          Token(event.type, /*keep_dots=*/true);
    natsMsg* msg = nullptr;
    natsStatus s = natsMsg_Create(&msg, subject.c_str(), nullptr, event.data.data(),
                                  static_cast<int>(event.data.size()));
    if (s != NATS_OK) return fmt::format("building a NATS message: {}", NatsError(s));
    const std::string version = std::to_string(event.version.value());
    const std::string position = std::to_string(event.position.value());
    const std::string timestamp = std::to_string(event.timestamp_ms);
    std::vector<std::pair<const char*, std::string>> headers = {
        {"Indelible-Stream", event.stream}, {"Indelible-Version", version},
        {kPositionHeader, position},        {"Indelible-Type", event.type},
        {"Indelible-Timestamp", timestamp}, {"Content-Type", event.content_type}};
    if (!event.schema.empty()) headers.emplace_back("Indelible-Schema", event.schema);
    if (event.metadata != "{}" && !event.metadata.empty())
      headers.emplace_back("Indelible-Metadata", HeaderSafeMetadata(event.metadata));
    if (!event.tags.empty()) headers.emplace_back("Indelible-Tags", TagsHeader(event.tags));
    for (const auto& [key, value] : headers)
      if (s == NATS_OK) s = natsMsgHeader_Set(msg, key, value.c_str());
    const std::string id = event.id.ToString();
    jsPubOptions options;
    jsPubOptions_Init(&options);
    options.MsgId = id.c_str();
    // 0 means "no expectation" to nats.c: only the first message into an
    // empty stream goes without one, and nothing can come before it.
    options.ExpectLastSeq = expect_last_seq;
    if (s == NATS_OK) s = js_PublishMsgAsync(js_, &msg, &options);
    if (s != NATS_OK) {
      natsMsg_Destroy(msg);  // still ours when the call failed
      return fmt::format("publishing event {} to '{}': {}", event.position.value(), subject,
                         NatsError(s));
    }
    return {};
  }

  const NatsRelayOptions options_;
  natsConnection* conn_ = nullptr;
  jsCtx* js_ = nullptr;

  // Run's thread only. Batches published and not yet acknowledged, oldest
  // first; events to publish again after a failure.
  std::deque<std::vector<RecordedEvent>> inflight_;
  std::vector<RecordedEvent> retry_;
  std::uint64_t last_seq_ = 0;  // the stream's last sequence we know is stored
  std::uint64_t next_seq_ = 0;  // the sequence the next publish expects before it
  Position last_position_{0};   // the position of that stored message

  // Written by OnAck on the library's thread.
  std::atomic<std::uint64_t> max_acked_position_{0};
  std::atomic<bool> failed_{false};
  Mutex ack_mu_;
  CondVar ack_cv_;
  std::string ack_error_ GUARDED_BY(ack_mu_);

  mutable Mutex stats_mu_;
  NatsRelayStats stats_ GUARDED_BY(stats_mu_);
};

Result<std::unique_ptr<NatsRelay>> NatsRelay::Connect(const NatsRelayOptions& options) {
  if (options.batch < 1) return Status::Invalid("batch", "a relay batch holds at least 1 event");
  if (options.subject_prefix.empty() ||
      Token(options.subject_prefix, /*keep_dots=*/true) != options.subject_prefix)
    return Status::Invalid("subjectPrefix",
                           fmt::format("'{}' is not a NATS subject prefix (tokens of printable "
                                       "characters without '*' or '>')",
                                       options.subject_prefix));
  auto impl = std::make_unique<Impl>(options);
  if (Status s = impl->Connect(); !s.ok()) return s;
  return std::unique_ptr<NatsRelay>(new NatsRelay(std::move(impl)));
}

NatsRelay::NatsRelay(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
NatsRelay::~NatsRelay() = default;

Status NatsRelay::Run(RelaySource& source, const std::atomic<bool>& stop,
                      const std::function<void(const NatsRelayStats&)>& progress) {
  return impl_->Run(source, stop, progress);
}

NatsRelayStats NatsRelay::stats() const { return impl_->stats(); }

}  // namespace indelible

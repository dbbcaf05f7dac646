#include "server/metrics.h"

#include <fmt/format.h>
#include <indelible/schemas.h>

namespace indelible::server {

void Metrics::RecordAppend(std::size_t events, std::size_t bytes,
                           std::chrono::nanoseconds latency) {
  appends_.fetch_add(1, std::memory_order_relaxed);
  append_events_.fetch_add(events, std::memory_order_relaxed);
  append_bytes_.fetch_add(bytes, std::memory_order_relaxed);
  latency_sum_ns_.fetch_add(static_cast<std::uint64_t>(latency.count()), std::memory_order_relaxed);
  const double seconds = std::chrono::duration<double>(latency).count();
  std::size_t bucket = 0;
  while (bucket < kBuckets.size() && seconds > kBuckets[bucket]) ++bucket;
  latency_buckets_[bucket].fetch_add(1, std::memory_order_relaxed);
}

void Metrics::RecordError(ErrorCode code) {
  const auto i = static_cast<std::size_t>(code);
  if (i < errors_.size()) errors_[i].fetch_add(1, std::memory_order_relaxed);
}

void Metrics::RecordResponse(unsigned status) {
  const std::size_t i = status >= 100 && status < 600 ? status / 100 - 1 : 5;
  responses_[i].fetch_add(1, std::memory_order_relaxed);
}

void Metrics::RecordPrincipal(const std::string& principal, bool denied) {
  PrincipalCounts* counts = nullptr;
  {
    MutexLock lock(&principals_mu_);
    auto it = principals_.find(principal);
    if (it == principals_.end()) {
      const std::string name = principals_.size() < kMaxPrincipals ? principal : "other";
      it = principals_.find(name);
      if (it == principals_.end())
        it = principals_.emplace(name, std::make_unique<PrincipalCounts>()).first;
    }
    counts = it->second.get();
  }
  counts->requests.fetch_add(1, std::memory_order_relaxed);
  if (denied) counts->denials.fetch_add(1, std::memory_order_relaxed);
}

namespace {

// A Prometheus label value: backslash, quote and newline escaped.
std::string LabelValue(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

// The storage service's calls by caller and operation: capacity units the
// service reported, and beside them (source="estimated") what it bills for
// the writes it refused on their condition and reports nothing of.
void RenderOperations(const std::vector<StoreOperationStats>& operations, std::string& out) {
  if (operations.empty()) return;
  out +=
      "# HELP indelible_store_operation_calls_total Calls to the storage service, by caller "
      "(store, index) and operation.\n"
      "# TYPE indelible_store_operation_calls_total counter\n";
  for (const StoreOperationStats& op : operations)
    out +=
        fmt::format("indelible_store_operation_calls_total{{caller=\"{}\",operation=\"{}\"}} {}\n",
                    LabelValue(op.caller), LabelValue(op.operation), op.calls);
  out +=
      "# HELP indelible_store_capacity_units_total Capacity units by caller, operation and kind: "
      "source=\"reported\" as the storage service reported them, source=\"estimated\" for the "
      "conditional writes it refused, which it bills but does not report (from its sizing "
      "rules).\n"
      "# TYPE indelible_store_capacity_units_total counter\n";
  for (const StoreOperationStats& op : operations) {
    const std::string labels = fmt::format("caller=\"{}\",operation=\"{}\"", LabelValue(op.caller),
                                           LabelValue(op.operation));
    out += fmt::format(
        "indelible_store_capacity_units_total{{{0},kind=\"read\",source=\"reported\"}} {1}\n"
        "indelible_store_capacity_units_total{{{0},kind=\"write\",source=\"reported\"}} {2}\n"
        "indelible_store_capacity_units_total{{{0},kind=\"write\",source=\"estimated\"}} {3}\n",
        labels, op.read_units, op.write_units, op.estimated_write_units);
  }
  out +=
      "# HELP indelible_store_condition_failures_total Conditional writes the storage service "
      "refused (a conflict, or a retry meeting its own write), by caller and operation.\n"
      "# TYPE indelible_store_condition_failures_total counter\n";
  for (const StoreOperationStats& op : operations)
    out += fmt::format(
        "indelible_store_condition_failures_total{{caller=\"{}\",operation=\"{}\"}} {}\n",
        LabelValue(op.caller), LabelValue(op.operation), op.condition_failures);
}

}  // namespace

std::string Metrics::Render(const Store& store) const {
  auto load = [](const std::atomic<std::uint64_t>& a) { return a.load(std::memory_order_relaxed); };
  std::string out;
  // Whole counts, or fractional amounts (capacity units come in halves).
  auto counter = [&](std::string_view name, std::string_view help, auto value) {
    out += fmt::format("# HELP {0} {1}\n# TYPE {0} counter\n{0} {2}\n", name, help, value);
  };
  auto gauge = [&](std::string_view name, std::string_view help, double value) {
    out += fmt::format("# HELP {0} {1}\n# TYPE {0} gauge\n{0} {2}\n", name, help, value);
  };

  counter("indelible_appends_total", "Appends acknowledged (idempotent replays included).",
          load(appends_));
  counter("indelible_append_events_total", "Events in acknowledged appends.", load(append_events_));
  counter("indelible_append_bytes_total", "Bytes of acknowledged events, as the store counts them.",
          load(append_bytes_));

  out +=
      "# HELP indelible_append_duration_seconds Time from a complete append request to its "
      "acknowledgement.\n# TYPE indelible_append_duration_seconds histogram\n";
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < kBuckets.size(); ++i) {
    cumulative += load(latency_buckets_[i]);
    out += fmt::format("indelible_append_duration_seconds_bucket{{le=\"{}\"}} {}\n", kBuckets[i],
                       cumulative);
  }
  cumulative += load(latency_buckets_.back());
  out += fmt::format("indelible_append_duration_seconds_bucket{{le=\"+Inf\"}} {}\n", cumulative);
  out += fmt::format("indelible_append_duration_seconds_sum {}\n",
                     static_cast<double>(load(latency_sum_ns_)) / 1e9);
  out += fmt::format("indelible_append_duration_seconds_count {}\n", cumulative);

  // The server's store is a SchemaStore (docs/SCHEMAS.md): its checks and upcasts.
  if (const auto* schema_store = dynamic_cast<const SchemaStore*>(&store)) {
    const SchemaStats schema = schema_store->schemas().stats();
    counter("indelible_schema_validations_total", "Events checked against a schema at append.",
            schema.validated);
    counter("indelible_schema_refusals_total",
            "Events an enforcing schema refused (their whole commit was refused).", schema.refused);
    counter("indelible_schema_warnings_total",
            "Events that failed their schema under mode warn and were written.", schema.warned);
    counter("indelible_upcasts_total", "Events read upcast to a newer schema version.",
            schema.upcast);
    counter("indelible_upcast_failures_total",
            "Upcasts that stopped at a failing step (the event kept the version it reached).",
            schema.upcast_failures);
    counter("indelible_schema_registry_changes_total", "Changes read from $schemas.",
            schema.registry_version);
  }

  const StoreStats stats = store.stats();
  counter("indelible_store_commits_total", "Commits the store wrote.", stats.commits);
  counter("indelible_store_events_total", "Events the store wrote.", stats.events);
  counter("indelible_store_syncs_total", "Durable syncs that acknowledged commits.", stats.syncs);
  gauge("indelible_store_events_per_sync", "Events written per durable sync since start.",
        stats.syncs == 0 ? 0.0
                         : static_cast<double>(stats.events) / static_cast<double>(stats.syncs));
  counter("indelible_store_commit_cpu_seconds_total",
          "CPU the store spent deciding commits and writing their records (embedded engine).",
          static_cast<double>(stats.commit_cpu_ns) / 1e9);
  counter("indelible_store_sync_cpu_seconds_total",
          "CPU the store spent syncing its log (embedded engine).",
          static_cast<double>(stats.sync_cpu_ns) / 1e9);
  counter("indelible_store_index_cpu_seconds_total",
          "CPU the store spent writing its id index behind the syncs (embedded engine).",
          static_cast<double>(stats.index_cpu_ns) / 1e9);
  gauge("indelible_store_last_position", "Position of the last committed event.",
        static_cast<double>(store.LastPosition().value()));
  if (!store.traits().positions_at_commit) {
    // A backend behind a service that builds $all after the commit (DynamoDB).
    counter("indelible_store_requests_total",
            "Requests the store's calls sent to the storage service, retries included.",
            stats.requests);
    counter("indelible_store_index_requests_total",
            "Requests the $all indexer sent to the storage service.", stats.index_requests);
    counter("indelible_store_read_units_total",
            "Read capacity units the storage service reported for the store's calls.",
            stats.read_units);
    counter("indelible_store_write_units_total",
            "Write capacity units the storage service reported for the store's calls.",
            stats.write_units);
    counter("indelible_store_index_units_total",
            "Capacity units (reads and writes) the storage service reported for the $all indexer.",
            stats.index_units);
    counter("indelible_store_retries_total", "Storage requests that were attempts after the first.",
            stats.retries);
    counter("indelible_store_throttles_total", "Storage requests refused as throttled.",
            stats.throttles);
    counter("indelible_store_retry_quota_refusals_total",
            "Retries not made because the retry quota was spent (AWS standard retry mode).",
            stats.retry_quota_refusals);
    counter("indelible_store_deadline_failures_total",
            "Storage calls that failed at their deadline with attempts left.",
            stats.deadline_failures);
    gauge("indelible_store_index_lag_seconds",
          "Commit-to-$all age of the newest event this process indexed.",
          static_cast<double>(stats.index_lag_ms) / 1000.0);
    counter("indelible_store_index_polls_total",
            "Times the $all indexer asked the change stream for records (DynamoDB: GetRecords).",
            stats.index_polls);
    if (const auto index = store.IndexerHealth()) {
      // docs/DYNAMODB.md, "Watching the index".
      gauge("indelible_index_lag_events",
            "Events this process knows were committed and $all does not hold yet.",
            static_cast<double>(index->lag_events));
      gauge("indelible_index_lag_seconds",
            "How long the oldest commit $all lacks (as this process knows) has waited.",
            index->lag_seconds);
      gauge("indelible_index_lease_held", "1 while this process holds the $all indexer's lease.",
            index->lease_held ? 1.0 : 0.0);
      gauge("indelible_index_running",
            "1 while an indexer (this process's or another's) builds $all; 0 while it is "
            "rebuilding, failing or stopped (/health says why).",
            index->running() ? 1.0 : 0.0);
      gauge("indelible_index_oldest_unread_record_age_seconds",
            "At most how old the oldest change record this process's indexer has not read is "
            "(the stream keeps records 24 hours).",
            index->oldest_unread_age_seconds);
      counter("indelible_index_errors_total", "Failed passes of this process's $all indexer.",
              index->errors);
    }
    RenderOperations(stats.operations, out);
  }

  gauge("indelible_store_write_failed",
        "1 once the store stopped writing (a failed write or sync); /health says why.",
        store.WriteHealth().ok() ? 0.0 : 1.0);
  gauge("indelible_http_connections_open", "Open HTTP connections (subscribers included).",
        static_cast<double>(open_connections.load(std::memory_order_relaxed)));
  counter("indelible_http_connections_shed_total",
          "Connections refused (503, closed) at the connection limit.",
          shed_connections.load(std::memory_order_relaxed));
  gauge("indelible_subscribers", "Open Server-Sent Events subscriptions.",
        static_cast<double>(subscribers.load(std::memory_order_relaxed)));

  out +=
      "# HELP indelible_errors_total Requests answered with an error, by kind.\n"
      "# TYPE indelible_errors_total counter\n";
  for (std::size_t i = 1; i < errors_.size(); ++i)
    out += fmt::format("indelible_errors_total{{error=\"{}\"}} {}\n",
                       ErrorCodeName(static_cast<ErrorCode>(i)), load(errors_[i]));
  out +=
      "# HELP indelible_http_responses_total Responses by status class.\n"
      "# TYPE indelible_http_responses_total counter\n";
  static constexpr std::array<std::string_view, 6> kClasses = {"1xx", "2xx", "3xx",
                                                               "4xx", "5xx", "other"};
  for (std::size_t i = 0; i < responses_.size(); ++i)
    out += fmt::format("indelible_http_responses_total{{code=\"{}\"}} {}\n", kClasses[i],
                       load(responses_[i]));
  counter("indelible_auth_failures_total",
          "Requests refused 401: no, bad, expired or revoked credentials.", load(auth_failures_));
  MutexLock lock(&principals_mu_);
  if (principals_.empty()) return out;
  out +=
      "# HELP indelible_principal_requests_total Authenticated requests by principal.\n"
      "# TYPE indelible_principal_requests_total counter\n";
  for (const auto& [name, counts] : principals_)
    out += fmt::format("indelible_principal_requests_total{{principal=\"{}\"}} {}\n",
                       LabelValue(name), load(counts->requests));
  out +=
      "# HELP indelible_principal_denials_total Requests refused 403, by principal.\n"
      "# TYPE indelible_principal_denials_total counter\n";
  for (const auto& [name, counts] : principals_)
    out += fmt::format("indelible_principal_denials_total{{principal=\"{}\"}} {}\n",
                       LabelValue(name), load(counts->denials));
  return out;
}

}  // namespace indelible::server

#include "power_loss/cut_checks.h"

#include <fmt/format.h>
#include <indelible/consumer_group.h>

#include <map>
#include <set>

#include "power_loss/cut_workload.h"
#include "shredding/subject_keys.h"

namespace indelible::power_loss {
namespace {

void CheckStore(Store& store, CheckCounts& counts, Findings& findings) {
  ++counts.store_checks;
  if (Status s = store.Check(); !s.ok()) findings.push_back("check: " + s.ToString());
}

// Every acknowledged event at its version; every commit's parts whole in
// each stream it wrote to, and in as many streams as it named.
void CheckEventsAndCommits(Store& store, CutLedger& ledger, CheckCounts& counts,
                           Findings& findings) {
  const auto acked = ledger.events();
  struct Seen {
    std::map<std::string, int> per_stream;  // events found
    int events = 0;
    int streams = 0;
  };
  std::map<std::string, Seen> commits;
  for (const std::string& stream : WorkloadStreams()) {
    auto events = ReadStreamEvents(store, stream);
    std::map<std::int64_t, EventId> found;
    if (events.ok()) {
      for (const RecordedEvent& e : *events) {
        found[e.version.value()] = e.id;
        CommitMark mark;
        if (!ParseCommitMark(e.data, &mark)) {
          findings.push_back(
              fmt::format("{}@{}: data not as written: {}", stream, e.version.value(), e.data));
          continue;
        }
        Seen& seen = commits[mark.commit];
        ++seen.per_stream[stream];
        seen.events = mark.events;
        seen.streams = mark.streams;
      }
    } else if (events.status().code() != ErrorCode::kNotFound) {
      findings.push_back(fmt::format("reading {}: {}", stream, events.status().ToString()));
      continue;
    }
    auto it = acked.find(stream);
    if (it == acked.end()) continue;
    for (const auto& [version, id] : it->second) {
      ++counts.acked_events;
      auto at = found.find(version);
      if (at == found.end())
        findings.push_back(fmt::format("{}@{} was acknowledged and is gone", stream, version));
      else if (at->second != id)
        findings.push_back(fmt::format("{}@{} was acknowledged as {} and is now {}", stream,
                                       version, id.ToString(), at->second.ToString()));
    }
  }
  for (const auto& [name, seen] : commits) {
    bool whole = static_cast<int>(seen.per_stream.size()) == seen.streams;
    for (const auto& [stream, n] : seen.per_stream) whole = whole && n == seen.events;
    if (whole)
      ++counts.commits;
    else
      findings.push_back(fmt::format("commit {} is there by half ({} of {} streams)", name,
                                     seen.per_stream.size(), seen.streams));
  }
}

// A commit acknowledged before the cut, sent again with the same event ids:
// the original answer, and nothing written.
void CheckRetries(Store& store, CutLedger& ledger, CheckCounts& counts, Findings& findings) {
  const Position before = store.LastPosition();
  for (AckedCommit& commit : ledger.TakeRecent()) {
    ++counts.retries;
    const std::string first = commit.appends[0].stream;
    auto again = store.Commit(std::move(commit.appends));
    if (!again.ok()) {
      findings.push_back(
          fmt::format("a retry of a commit to {} failed: {}", first, again.status().ToString()));
      continue;
    }
    for (std::size_t i = 0; i < again->appends.size(); ++i) {
      const AppendResult& got = again->appends[i];
      const AppendResult& was = commit.result.appends[i];
      if (!got.replayed || got.first_version != was.first_version ||
          got.last_version != was.last_version || got.position != was.position)
        findings.push_back(fmt::format(
            "a retry of {} answered versions {}..{} at {} (replayed {}), first {}..{} at {}",
            got.stream, got.first_version.value(), got.last_version.value(), got.position.value(),
            got.replayed, was.first_version.value(), was.last_version.value(),
            was.position.value()));
    }
  }
  if (store.LastPosition() != before)
    findings.push_back(fmt::format("retries wrote: the last position went from {} to {}",
                                   before.value(), store.LastPosition().value()));
}

// Everything at or below the group's checkpoint was delivered, and every
// delivery is in the log where it was delivered.
void CheckGroup(Store& store, CutLedger& ledger, CheckCounts& counts, Findings& findings) {
  auto exists = ConsumerGroup::Exists(store, kGroup);
  if (!exists.ok() || !*exists) return;  // its creation was cut: nothing delivered yet
  auto group = ConsumerGroup::Open(store, kGroup, GroupOptions());
  if (!group.ok()) {
    findings.push_back("opening the consumer group: " + group.status().ToString());
    return;
  }
  ++counts.group_resumes;
  const Position checkpoint = (*group)->info().checkpoint;
  ReadAllOptions options;
  options.filter = GroupOptions().filter;
  auto all = ReadAllEvents(store, options);
  if (!all.ok()) {
    findings.push_back("reading $all: " + all.status().ToString());
    return;
  }
  const auto delivered = ledger.delivered();
  std::set<std::int64_t> present;
  for (const RecordedEvent& e : *all) {
    present.insert(e.position.value());
    auto at = delivered.find(e.position.value());
    if (at != delivered.end() && at->second != e.id)
      findings.push_back(fmt::format("position {} was delivered as {} and is now {}",
                                     e.position.value(), at->second.ToString(), e.id.ToString()));
    else if (at == delivered.end() && e.position <= checkpoint)
      findings.push_back(
          fmt::format("the group's checkpoint {} passed position {}, which it never delivered",
                      checkpoint.value(), e.position.value()));
  }
  for (const auto& [position, id] : delivered) {
    ++counts.delivered_checked;
    if (!present.contains(position))
      findings.push_back(
          fmt::format("position {} was delivered and is gone from the log", position));
  }
}

void CheckKeys(Store& store, CutLedger& ledger, const std::vector<std::string>& master_keys,
               CheckCounts& counts, Findings& findings) {
  if (master_keys.empty()) return;
  shredding::SubjectKeys keys(store, master_keys, /*shared=*/false, std::chrono::seconds(1));
  const auto shredded = ledger.shredded();
  const auto shredding = ledger.shredding();
  for (const auto& [subject, key] : ledger.keys()) {
    const bool gone = shredded.contains(subject);
    if (!gone && shredding.contains(subject)) continue;  // sent, not acknowledged: either
    ++counts.keys_checked;
    auto found = keys.Find(subject, key.first);
    if (!found.ok())
      findings.push_back(fmt::format("the key of {}: {}", subject, found.status().ToString()));
    else if (gone && found->has_value())
      findings.push_back(fmt::format("the key of {} was shredded and is back", subject));
    else if (!gone && (!found->has_value() || **found != key.second))
      findings.push_back(fmt::format("the key of {} was acknowledged and is {}", subject,
                                     found->has_value() ? "different" : "gone"));
  }
}

}  // namespace

void CheckAfterCut(Store& store, CutLedger& ledger, const std::vector<std::string>& master_keys,
                   CheckCounts& counts, Findings& findings) {
  CheckStore(store, counts, findings);
  CheckEventsAndCommits(store, ledger, counts, findings);
  CheckGroup(store, ledger, counts, findings);
  CheckKeys(store, ledger, master_keys, counts, findings);
  // Last: the retries write (nothing, if they pass).
  CheckRetries(store, ledger, counts, findings);
}

void DrainAndCheckGroup(Store& store, CutLedger& ledger, CheckCounts& counts, Findings& findings) {
  auto group = ConsumerGroup::Open(store, kGroup, GroupOptions());
  if (!group.ok()) {
    findings.push_back("opening the consumer group: " + group.status().ToString());
    return;
  }
  for (;;) {
    auto batch = (*group)->Pull("drain", 256, std::chrono::milliseconds(50));
    if (!batch.ok()) {
      findings.push_back("draining the group: " + batch.status().ToString());
      return;
    }
    if (batch->empty()) break;
    std::vector<Position> positions;
    for (const Delivery& d : *batch) {
      if (!ledger.Delivered(d.event.position, d.event.id))
        findings.push_back(fmt::format("position {} was delivered as two different events",
                                       d.event.position.value()));
      positions.push_back(d.event.position);
    }
    if (Status s = (*group)->Ack(positions); !s.ok()) {
      findings.push_back("acking while draining: " + s.ToString());
      return;
    }
  }
  if (Status s = (*group)->Flush(); !s.ok()) findings.push_back("flushing: " + s.ToString());
  // Now the checkpoint is at the end: every event was delivered.
  CheckGroup(store, ledger, counts, findings);
  if ((*group)->info().lag_events != 0)
    findings.push_back(
        fmt::format("the drained group still lags {} events", (*group)->info().lag_events));
}

}  // namespace indelible::power_loss

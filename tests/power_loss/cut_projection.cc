#include "power_loss/cut_projection.h"

#include <fmt/format.h>
#include <indelible/read_store.h>

#include "power_loss/cut_workload.h"

namespace indelible::power_loss {
namespace {

constexpr char kRowsQuery[] = "SELECT stream, events, last FROM counts ORDER BY stream";

Result<std::vector<SqlRow>> Rows(const std::string& url) {
  auto read_store = ReadStore::Open(url);
  if (!read_store.ok()) return read_store.status();
  return (*read_store)->Query(kRowsQuery);
}

std::string Show(const std::vector<SqlRow>& rows) {
  std::string text;
  for (const SqlRow& row : rows)
    text += fmt::format("{}:{}@{} ", SqlText(row[0]), SqlInt(row[1]), SqlInt(row[2]));
  return text;
}

}  // namespace

Projection CountsProjection() {
  Projection projection;
  projection.name = "counts";
  projection.filter = GroupOptions().filter;
  projection.tables = {"counts"};
  projection.setup = [](ProjectionTransaction& tx) {
    return tx.Execute(
        "CREATE TABLE {counts} (stream TEXT PRIMARY KEY, events INTEGER NOT NULL, last INTEGER "
        "NOT NULL)");
  };
  projection.apply = [](ProjectionTransaction& tx, const RecordedEvent& e) {
    return tx.Execute(
        "INSERT INTO {counts} VALUES ($1, 1, $2) ON CONFLICT (stream) DO UPDATE SET events = "
        "events + 1, last = excluded.last",
        {e.stream, e.version.value()});
  };
  return projection;
}

void CheckProjection(Store& store, ProjectionRunner& runner, const std::string& runner_url,
                     const std::string& fresh_path, CheckCounts& counts, Findings& findings) {
  ++counts.projections;
  if (auto caught_up = runner.CatchUp(); !caught_up.ok()) {
    findings.push_back("catching the projection up: " + caught_up.status().ToString());
    return;
  }
  const std::string fresh_url = "sqlite:" + fresh_path;
  {
    auto fresh = ProjectionRunner::Open(store, fresh_url, CountsProjection());
    if (!fresh.ok()) {
      findings.push_back("opening a fresh projection: " + fresh.status().ToString());
      return;
    }
    if (auto built = (*fresh)->CatchUp(); !built.ok()) {
      findings.push_back("building a fresh projection: " + built.status().ToString());
      return;
    }
  }
  auto kept = Rows(runner_url);
  auto rebuilt = Rows(fresh_url);
  if (!kept.ok() || !rebuilt.ok()) {
    findings.push_back("reading the projections: " +
                       (kept.ok() ? rebuilt.status() : kept.status()).ToString());
    return;
  }
  if (*kept != *rebuilt)
    findings.push_back(fmt::format("the projection kept through the cuts is [{}], a rebuild [{}]",
                                   Show(*kept), Show(*rebuilt)));
}

}  // namespace indelible::power_loss

#include "auth/audit.h"

#include <boost/json.hpp>

namespace indelible::auth {

Status AppendAudit(Store& store, const AuditEntry& entry) {
  namespace json = boost::json;
  json::object data;
  data["act"] = entry.act;
  data["principal"] = entry.principal;
  data["source"] = entry.source;
  data["target"] = entry.target;
  data["outcome"] = entry.outcome;
  if (entry.status != 0) data["status"] = entry.status;
  if (!entry.request_id.empty()) data["requestId"] = entry.request_id;
  if (!entry.detail.empty()) data["detail"] = entry.detail;
  EventData event;
  event.type = "audit." + entry.act;
  event.data = json::serialize(data);
  std::vector<AppendRequest> append(1);
  append[0].stream = std::string(kAuditStream);
  append[0].expected = Expected::any();
  append[0].events.push_back(std::move(event));
  CommitOptions options;
  options.allow_reserved = true;
  auto committed = store.Commit(std::move(append), options);
  return committed.ok() ? Status::Ok() : committed.status();
}

}  // namespace indelible::auth

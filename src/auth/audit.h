// The audit trail (docs/SECURITY.md, "Audit trail"): every administrative
// or destructive act, appended to the reserved stream `$audit` as one event
// of type "audit.<act>" ("audit.stream.delete", "audit.key.create", ...)
// whose data says who, from where, on what, when and with what outcome.
// Like every '$' stream it is the admin role's to read; like every stream
// it is append-only.
#pragma once

#include <indelible/store.h>

#include <cstdint>
#include <string>

namespace indelible::auth {

inline constexpr std::string_view kAuditStream = "$audit";

struct AuditEntry {
  std::string act;        // "stream.delete", "consumers.create", "key.revoke", "auth.failures"
  std::string principal;  // "key:ops", "jwt:alice", "anonymous"
  std::string source;     // the client's address
  std::string target;     // the stream, group or key acted on
  std::string outcome;    // "ok", or the error code ("conflict", "not_found", ...)
  int status = 0;         // the HTTP status answered, if any
  std::string request_id;
  std::string detail;  // free text (a count of failures, a key's roles)
};

// Appends the entry (durably, like any append) with the store's reserved
// names allowed.
Status AppendAudit(Store& store, const AuditEntry& entry);

}  // namespace indelible::auth

// The documents of queries and conditional commits (docs/DCB.md, "HTTP"):
// the query document {"items":[{"types":[...],"tags":[...]}]}, the body of
// POST /query and the `condition` of POST /commits. Their decoders read
// what a client sends, so they answer invalid naming the field
// ("q.items[1].tags[0]", "condition.after"), as commits.h's do.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "indelible/query.h"
#include "indelible/result.h"

namespace indelible::api {

// {"items":[{"types":[...],"tags":[...]}]}; an item's empty list is left out.
std::string QueryToJson(const Query& query);
// The query document, checked against ValidateQuery's rules; `field` names
// it in errors ("q" for GET's parameter, "query" in a body).
Result<Query> QueryFromJson(std::string_view text, std::string_view field);

// POST /query: {query, from?, limit?, direction?, raw?}. `from` absent:
// the beginning (forward) or the last event (backward); `limit` absent:
// the server's default page.
struct QueryRead {
  Query query;
  ReadQueryOptions options;
  std::optional<std::size_t> limit;
};
Result<QueryRead> QueryReadFromJson(std::string_view body);
// `limit` is sent as given (capped by the caller).
std::string QueryReadToJson(const Query& query, const ReadQueryOptions& options);

// POST /commits' `condition`: {"failIfEventsMatch": QUERY, "after"?: P}.
std::string ConditionToJson(const AppendCondition& condition);
Result<AppendCondition> ConditionFromJson(std::string_view text, std::string_view field);

}  // namespace indelible::api

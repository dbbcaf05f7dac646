// Values and errors between SqlValue/Status and libpqxx 6.4, for the
// PostgreSQL read store (postgres_store.cc).
#pragma once

#include <pqxx/pqxx>
#include <string>
#include <string_view>
#include <vector>

#include "indelible/read_store.h"

namespace indelible::projections {

// The server's message on one line, without libpq's "ERROR:  " prefix.
std::string PgMessage(std::string_view message);

// `unavailable` for an SQLSTATE after which retrying may help, else
// `invalid` (field "sql").
Status PgError(const std::string& sqlstate, std::string message);

// The argument list of an SQL EXECUTE: "('a', '1', NULL)", or "" without
// parameters. Values are quoted literals (escaped by libpq for `conn`'s
// encoding), which the server converts to each parameter's type as it would
// text-format bound values.
Result<std::string> PgArguments(pqxx::connection_base& conn, const std::vector<SqlValue>& params);

// NULL -> nullptr; int2/int4/int8/oid -> int64; float4/float8/numeric ->
// double; anything else, and numbers a double cannot hold, as text.
std::vector<SqlRow> PgRows(const pqxx::result& result);

}  // namespace indelible::projections

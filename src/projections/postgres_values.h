// Values and errors between SqlValue/Status and libpq, for the PostgreSQL
// read store (postgres_store.cc).
#pragma once

#include <libpq-fe.h>

#include <cstdint>
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

// The values of queued statements as libpq binds them: text format, each
// NUL-terminated, NULL as a null pointer. The server reads each one with
// its parameter's type input function; no value is ever part of an SQL text.
class PgValues {
 public:
  // Appends `params`; invalid, and nothing appended, for text holding a
  // NUL byte (PostgreSQL text cannot).
  Status Append(const std::vector<SqlValue>& params);
  std::size_t size() const { return offsets_.size(); }
  std::size_t bytes() const { return text_.size(); }
  // Pointers to every value, in order; valid until the next Append or Clear.
  std::vector<const char*> Pointers() const;
  void Clear() {
    text_.clear();
    offsets_.clear();
  }

 private:
  std::string text_;
  std::vector<std::int64_t> offsets_;  // into text_; -1: NULL
};

// NULL -> nullptr; int2/int4/int8/oid -> int64; float4/float8/numeric ->
// double; anything else, and numbers a double cannot hold, as text.
std::vector<SqlRow> PgRows(const PGresult* result);

}  // namespace indelible::projections

#include "projections/postgres_values.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <variant>

namespace indelible::projections {
namespace {

// The type oids (pg_type) of the columns read back as numbers.
constexpr Oid kInt8 = 20, kInt2 = 21, kInt4 = 23, kOid = 26, kFloat4 = 700, kFloat8 = 701,
              kNumeric = 1700;

SqlValue Value(const char* begin, const char* end, Oid type) {
  if (type == kInt2 || type == kInt4 || type == kInt8 || type == kOid) {
    std::int64_t n = 0;
    if (auto [at, ec] = std::from_chars(begin, end, n); ec == std::errc() && at == end) return n;
  } else if (type == kFloat4 || type == kFloat8 || type == kNumeric) {
    double d = 0;  // from_chars also reads NaN and [-]Infinity
    if (auto [at, ec] = std::from_chars(begin, end, d); ec == std::errc() && at == end) return d;
  }
  return std::string(begin, end);
}

std::string Number(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  char buf[32];  // the shortest text that reads back as the same double
  return std::string(buf, std::to_chars(buf, buf + sizeof(buf), d).ptr);
}

}  // namespace

std::string PgMessage(std::string_view message) {
  for (std::string_view prefix : {"ERROR:  ", "FATAL:  "})
    if (message.starts_with(prefix)) message.remove_prefix(prefix.size());
  std::string out;
  for (char c : message) {
    if (c != ' ' && c != '\n' && c != '\t')
      out += c;
    else if (!out.empty() && out.back() != ' ')
      out += ' ';
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// Retrying may help after: a connection error (08), a conflict with another
// transaction (40: serialization failure, deadlock), scarce resources (53:
// disk, memory, connections), an operator or a timeout (57: shutdown,
// statement_timeout), a lock timeout (55P03) or an I/O error (58030).
Status PgError(const std::string& sqlstate, std::string message) {
  const std::string_view cls = std::string_view(sqlstate).substr(0, 2);
  if (cls == "08" || cls == "40" || cls == "53" || cls == "57" || sqlstate == "55P03" ||
      sqlstate == "58030")
    return Status::Unavailable("PostgreSQL read store: " + message);
  return Status::Invalid("sql", std::move(message));
}

Status PgValues::Append(const std::vector<SqlValue>& params) {
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (const auto* text = std::get_if<std::string>(&params[i]);
        text != nullptr && text->find('\0') != std::string::npos)
      return Status::Invalid(
          "sql", "$" + std::to_string(i + 1) + ": PostgreSQL text cannot hold a NUL byte");
  }
  for (const SqlValue& value : params) {
    if (std::holds_alternative<std::nullptr_t>(value)) {
      offsets_.push_back(-1);
      continue;
    }
    offsets_.push_back(static_cast<std::int64_t>(text_.size()));
    if (const auto* n = std::get_if<std::int64_t>(&value)) {
      char buf[24];
      text_.append(buf, std::to_chars(buf, buf + sizeof(buf), *n).ptr);
    } else if (const auto* d = std::get_if<double>(&value)) {
      text_ += Number(*d);
    } else {
      text_ += std::get<std::string>(value);
    }
    text_ += '\0';
  }
  return Status::Ok();
}

std::vector<const char*> PgValues::Pointers() const {
  std::vector<const char*> out;
  out.reserve(offsets_.size());
  for (std::int64_t at : offsets_) out.push_back(at < 0 ? nullptr : text_.data() + at);
  return out;
}

std::vector<SqlRow> PgRows(const PGresult* result) {
  const int columns = PQnfields(result);
  const int count = PQntuples(result);
  std::vector<Oid> types;
  for (int c = 0; c < columns; ++c) types.push_back(PQftype(result, c));
  std::vector<SqlRow> rows;
  rows.reserve(static_cast<std::size_t>(count));
  for (int r = 0; r < count; ++r) {
    SqlRow& row = rows.emplace_back();
    row.reserve(static_cast<std::size_t>(columns));
    for (int c = 0; c < columns; ++c) {
      if (PQgetisnull(result, r, c)) {
        row.emplace_back(nullptr);
      } else {
        const char* begin = PQgetvalue(result, r, c);
        row.push_back(Value(begin, begin + PQgetlength(result, r, c), types[c]));
      }
    }
  }
  return rows;
}

}  // namespace indelible::projections

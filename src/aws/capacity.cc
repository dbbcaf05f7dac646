#include "aws/capacity.h"

#include <array>
#include <cmath>

namespace indelible::aws {

CapacityKind CapacityKindOf(std::string_view operation) {
  static constexpr std::array<std::string_view, 5> kReads = {"GetItem", "Query", "Scan",
                                                             "BatchGetItem", "TransactGetItems"};
  static constexpr std::array<std::string_view, 5> kWrites = {
      "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"};
  for (std::string_view read : kReads)
    if (operation == read) return CapacityKind::kRead;
  for (std::string_view write : kWrites)
    if (operation == write) return CapacityKind::kWrite;
  return CapacityKind::kNone;
}

std::string AskConsumedCapacity(std::string body) {
  // Spliced into the serialized text rather than added to a copy of the
  // request object: a tip update carries up to 64 KiB of events.
  if (body.size() < 2 || body.back() != '}' ||
      body.find("\"ReturnConsumedCapacity\"") != std::string::npos)
    return body;
  body.pop_back();
  body += body.size() == 1 ? R"("ReturnConsumedCapacity":"TOTAL"})"
                           : R"(,"ReturnConsumedCapacity":"TOTAL"})";
  return body;
}

namespace {

double UnitsOf(const boost::json::value& consumed) {
  const auto* object = consumed.if_object();
  if (object == nullptr) return 0;
  const auto* units = object->if_contains("CapacityUnits");
  if (units == nullptr) return 0;
  double n = 0;
  if (units->is_double()) n = units->get_double();
  if (units->is_int64()) n = static_cast<double>(units->get_int64());
  if (units->is_uint64()) n = static_cast<double>(units->get_uint64());
  // The client turns the sum into an integer counter: a negative, infinite
  // or absurd number (no answer is billed a billion units) would be
  // undefined behaviour there. Found by fuzzing.
  return std::isfinite(n) && n >= 0 && n <= 1e9 ? n : 0;
}

}  // namespace

double ConsumedUnits(const boost::json::object& answer) {
  const auto* consumed = answer.if_contains("ConsumedCapacity");
  if (consumed == nullptr) return 0;
  if (const auto* tables = consumed->if_array()) {
    double total = 0;
    for (const auto& table : *tables) total += UnitsOf(table);
    return total;
  }
  return UnitsOf(*consumed);
}

}  // namespace indelible::aws

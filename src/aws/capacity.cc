#include "aws/capacity.h"

#include <array>
#include <cmath>

#include "aws/errors.h"
#include "aws/item_size.h"

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

namespace {

constexpr std::string_view kConditionFailed = "ConditionalCheckFailed";
// A transaction writes each item twice: to prepare it and to commit it.
constexpr double kTransactionWritesPerItem = 2;

const boost::json::object* ObjectAt(const boost::json::object& parent, std::string_view key) {
  const auto* value = parent.if_contains(key);
  return value == nullptr ? nullptr : value->if_object();
}

bool AsksForOldItem(const boost::json::object& write) {
  const auto* asked = write.if_contains("ReturnValuesOnConditionCheckFailure");
  return asked != nullptr && asked->is_string() && asked->get_string() == "ALL_OLD";
}

// The bytes AWS bills a refused write of `write` (a PutItem, UpdateItem or
// DeleteItem request, or a transaction's action) on: the item that is there
// when the error says (`returned`: it was asked for; `old_item`, or none),
// else a Put's own item, else none (1 unit).
std::uint64_t RefusedBytes(const boost::json::object& write, bool is_put, bool returned,
                           const boost::json::object* old_item) {
  if (returned) return old_item == nullptr ? 0 : ItemSize(*old_item);
  if (is_put)
    if (const auto* item = ObjectAt(write, "Item")) return ItemSize(*item);
  return 0;
}

double RefusedTransactionUnits(const boost::json::object& request,
                               const std::vector<CancellationReason>& reasons) {
  const auto* items = request.if_contains("TransactItems");
  if (items == nullptr || !items->is_array()) return 0;
  double units = 0;
  std::size_t i = 0;
  for (const auto& entry : items->get_array()) {
    const auto* action = entry.if_object();
    const CancellationReason* reason = i < reasons.size() ? &reasons[i] : nullptr;
    ++i;
    if (action == nullptr || action->empty()) continue;
    const auto& [kind, body] = *action->begin();
    const auto* write = body.if_object();
    if (write == nullptr) continue;
    // A reason's Item comes with a failed condition only: for the other
    // actions the item there is unknown, and a Put's own stands in.
    const bool failed = reason != nullptr && reason->code == kConditionFailed;
    const std::uint64_t bytes =
        RefusedBytes(*write, kind == "Put", failed && AsksForOldItem(*write),
                     failed && !reason->item.empty() ? &reason->item : nullptr);
    units += kTransactionWritesPerItem * static_cast<double>(WriteUnits(bytes));
  }
  return units;
}

}  // namespace

RefusedWrite RefusedWriteEstimate(std::string_view operation, std::string_view error_type,
                                  const boost::json::object& request,
                                  const boost::json::object& error) {
  RefusedWrite refused;
  if (error_type == "ConditionalCheckFailedException") {
    refused.refused = true;
    refused.estimated_write_units = static_cast<double>(WriteUnits(RefusedBytes(
        request, operation == "PutItem", AsksForOldItem(request), ObjectAt(error, "Item"))));
    return refused;
  }
  if (error_type == "TransactionCanceledException" && operation == "TransactWriteItems") {
    const std::vector<CancellationReason> reasons = CancellationReasons(error);
    for (const CancellationReason& reason : reasons)
      if (reason.code == kConditionFailed) refused.refused = true;
    if (refused.refused) refused.estimated_write_units = RefusedTransactionUnits(request, reasons);
  }
  return refused;
}

}  // namespace indelible::aws

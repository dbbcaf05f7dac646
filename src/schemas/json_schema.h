// JsonSchema: one compiled JSON Schema and the check of a document against
// it, on valijson (libvalijson-dev), the validator made for the job.
//
// Drafts: draft-04 and draft-07, chosen by the schema's "$schema" (draft-07
// when it names none); anything else is refused at Compile.
//
// Concurrency: a compiled JsonSchema is immutable; Validate may run on
// many threads at once.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "indelible/result.h"

namespace indelible::schemas {

// Why a document failed: where, as an RFC 6901 JSON Pointer into the
// document ("" for the root, "/items/0/price"), and the rule it broke, in
// words that name the keyword ("required: property 'amount' is missing",
// "type: expected number, got string").
struct SchemaFailure {
  std::string pointer;
  std::string rule;
};

class JsonSchema {
 public:
  virtual ~JsonSchema() = default;
  // invalid, naming the problem, when `schema_json` is not JSON, not an
  // object or boolean schema, names an unsupported draft, or does not compile.
  static Result<std::shared_ptr<const JsonSchema>> Compile(std::string_view schema_json);

  // nullopt when `document_json` is valid; else its first failure (the
  // deepest one valijson reports for it). A document that is not JSON is a
  // failure at "" with rule "not JSON: ...".
  virtual std::optional<SchemaFailure> Validate(std::string_view document_json) const = 0;

  virtual std::string_view draft() const = 0;  // "draft-04" or "draft-07"
};

}  // namespace indelible::schemas

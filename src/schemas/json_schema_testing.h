// For tests only: compile a JsonSchema with a chosen default draft and a
// way to fetch remote $refs, so the official JSON-Schema-Test-Suite runs
// whole (its draft4 files name no "$schema"; refRemote reaches
// http://localhost:1234/...). The store never fetches: JsonSchema::Compile
// refuses remote refs.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "indelible/result.h"
#include "schemas/json_schema.h"

namespace indelible::schemas::testing {

// The JSON text of the document at `uri` (without its fragment), or nullopt
// when there is none.
using FetchSchemaDocument = std::function<std::optional<std::string>(const std::string& uri)>;

struct CompileOptions {
  std::string_view default_draft = "draft-07";  // when "$schema" names none
  FetchSchemaDocument fetch;                    // empty: remote refs refused
};

Result<std::shared_ptr<const JsonSchema>> CompileWithOptions(std::string_view schema_json,
                                                             const CompileOptions& options);

}  // namespace indelible::schemas::testing

// Transform: a declarative upcaster's change to an event's data, from the
// three parts of DeclarativeUpcaster (include/indelible/schemas.h), applied
// in order: renames, defaults, then the JSON Patch (RFC 6902, on nlohmann's
// JSON, the library made for it).
//
// Concurrency: immutable once parsed; Apply may run on many threads.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "indelible/result.h"

namespace indelible::schemas {

class Transform {
 public:
  virtual ~Transform() = default;
  // invalid, naming the part and the problem: `renames` must be a JSON
  // object of JSON Pointer to JSON Pointer, `defaults` an object of JSON
  // Pointer to any JSON value, `patch` an array of RFC 6902 operations
  // (op, path, and value/from as the op needs). Pointers are RFC 6901 and
  // not "" (the root) for renames and defaults.
  static Result<std::shared_ptr<const Transform>> Parse(std::string_view renames,
                                                        std::string_view defaults,
                                                        std::string_view patch);

  // The data after the transform, as compact JSON. Renames: the value at
  // the source moves to the target (parents made as objects); a missing
  // source is skipped. Defaults: set where the pointer has no value (its
  // parent must be an object, made if missing). Patch: as RFC 6902, a
  // failing `test` or a missing path is an error (invalid), and then the
  // event is left as it was by the caller. Data that is not JSON: invalid.
  virtual Result<std::string> Apply(std::string_view data_json) const = 0;
};

}  // namespace indelible::schemas

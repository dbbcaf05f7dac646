#include "ratings_schemas.h"

#include "user.h"

namespace ratings {

using indelible::Compatibility;
using indelible::SchemaMode;
using indelible::Status;

// What the first version of the example wrote (unlabelled: it had no
// registry; such events are read as the first version). The link as
// ValidateLink (user.cc) takes it: 1 to 2048 bytes of printable ASCII
// without spaces.
const std::string_view kRatingSchemaV1 = R"({
  "$schema": "http://json-schema.org/draft-07/schema#",
  "type": "object",
  "properties": {
    "link": {"type": "string", "minLength": 1, "maxLength": 2048, "pattern": "^[!-~]+$"},
    "rating": {"type": "integer", "minimum": 1, "maximum": 5}
  },
  "required": ["link", "rating"],
  "additionalProperties": false
})";

// The rating is `stars` out of `scale`; 5 is the only scale so far, and a
// later version may widen it.
const std::string_view kRatingSchemaV2 = R"({
  "$schema": "http://json-schema.org/draft-07/schema#",
  "type": "object",
  "properties": {
    "link": {"type": "string", "minLength": 1, "maxLength": 2048, "pattern": "^[!-~]+$"},
    "stars": {"type": "integer", "minimum": 1, "maximum": 5},
    "scale": {"const": 5}
  },
  "required": ["link", "stars", "scale"],
  "additionalProperties": false
})";

namespace {

constexpr std::string_view kPrincipal = "indelible-ratings";

Status RegisterType(indelible::Schemas& schemas, const std::string& type) {
  // Compatibility none: V2 renames `rating`, so no V1 event is a valid V2
  // one and the default (backward) would refuse it. That break is on
  // purpose: the upcaster below bridges it on every read. Set before V2 is
  // registered, which is checked against it.
  indelible::SchemaSettings settings;
  settings.mode = SchemaMode::kEnforce;
  settings.compatibility = Compatibility::kNone;
  if (Status s = schemas.SetTypeSettings(type, settings, kPrincipal); !s.ok()) return s;
  // In this order: a type's versions are ordered by registration.
  for (const auto& [label, schema] :
       {std::pair{kRatingV1, kRatingSchemaV1}, std::pair{kRatingV2, kRatingSchemaV2}}) {
    auto registered = schemas.Register(type, label, schema, kPrincipal);
    if (!registered.ok()) return registered.status();
  }
  // Declarative, so it lives in the registry and HTTP readers get V2 too.
  indelible::DeclarativeUpcaster upcaster;
  upcaster.type = type;
  upcaster.from = kRatingV1;
  upcaster.to = kRatingV2;
  upcaster.renames = R"({"/rating": "/stars"})";
  upcaster.defaults = R"({"/scale": 5})";
  return schemas.AddUpcaster(upcaster, kPrincipal);
}

}  // namespace

Status RegisterRatingSchemas(indelible::Schemas& schemas) {
  for (const char* type : {kLinkRated, kRatingUpdated})
    if (Status s = RegisterType(schemas, type); !s.ok()) return s;
  return Status::Ok();
}

}  // namespace ratings

// The shapes of the rating events, kept in the store's schema registry
// (include/indelible/schemas.h, docs/SCHEMAS.md): LINK_RATED and
// RATING_UPDATED went from V1 {link, rating} to V2 {link, stars, scale}.
// The registry holds both schemas and a declarative upcaster V1 -> V2, so
// every reader of the SchemaStore (the entity, the projections and their
// rebuilds, and the standard HTTP API on the same port) sees V2 only, while
// the stored V1 bytes stay as they were written.
#pragma once

#include <indelible/schemas.h>
#include <indelible/status.h>

#include <string_view>

namespace ratings {

// The JSON Schemas (draft-07, closed objects), as registered.
extern const std::string_view kRatingSchemaV1;
extern const std::string_view kRatingSchemaV2;

// Registers, for LINK_RATED and RATING_UPDATED: compatibility none and mode
// enforce, the V1 and V2 schemas, and the upcaster V1 -> V2 (README.md,
// "Evolving an event"). Idempotent: what is registered already is left as
// it is and writes nothing, so every start-up calls it. Fails as the
// registry does (conflict: a version or upcaster registered with another
// content).
indelible::Status RegisterRatingSchemas(indelible::Schemas& schemas);

}  // namespace ratings

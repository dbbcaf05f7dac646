// Compatibility of JSON Schemas, as Confluent Schema Registry checks it:
// whether one schema accepts every document another accepts, proven from
// the keywords of the two (a structural check: no document is generated).
//
// What it reasons about: type (and integer within number), properties,
// required, additionalProperties (boolean or schema), items (one schema),
// enum and const, minimum/maximum (and exclusive), minLength/maxLength,
// minItems/maxItems, pattern and format (equal or dropped), and nested
// schemas of properties and items. Any other keyword that differs between
// the two, or appears in one only where that could narrow, is a change it
// cannot prove safe: it is reported as such (refused), never guessed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "indelible/schemas.h"
#include "indelible/status.h"

namespace indelible::schemas {

// ok when every document valid under `narrower` is valid under `wider`;
// else rejected, naming the JSON Pointer inside the schema where they part
// and what changed ("/properties/amount/type: number became string";
// "/required: 'currency' is required now").
// invalid when either text is not a JSON schema.
Status CheckAccepts(std::string_view wider, std::string_view narrower);

// `candidate` as the next version of a type whose versions so far are
// `previous`, oldest first, under `mode`: backward checks that the
// candidate accepts the last (transitive: every) earlier schema's
// documents; forward the reverse; full both. kNone and an empty `previous`
// are ok. The rejected message names the version it breaks against
// (`previous_labels`, parallel to `previous`): "backward: breaks V2: ...".
Status CheckCompatibility(Compatibility mode, const std::vector<std::string>& previous,
                          const std::vector<std::string>& previous_labels,
                          std::string_view candidate);

}  // namespace indelible::schemas

// The documents of the schema registry (docs/SCHEMAS.md, "HTTP"): what
// /schemas and /schema-settings send and answer, each encoder beside its
// decoder. Names are camelCase; modes and compatibilities are the lowercase
// names of schemas.h's ToString. A schema, a transform's parts and the data
// of a validation travel as JSON values (not strings), cut out of the body
// as written (core/json_spans.h), so a schema reads back byte for byte as
// registered, white space between tokens aside.
//
// Request decoders (the server's) answer invalid naming the field; answer
// decoders (the client's) answer internal for a body that is not the API.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "indelible/result.h"
#include "indelible/schemas.h"

namespace indelible::api {

// {type, version, number, schema, registeredAt}: a registered version
// (GET /schemas/{type}/versions/{version}, the answer of POST .../versions).
std::string SchemaVersionToJson(const SchemaVersion& version);
Result<SchemaVersion> SchemaVersionFromJson(std::string_view body);

// {mode?, compatibility?}: either absent when not set.
std::string SchemaSettingsToJson(const SchemaSettings& settings);
Result<SchemaSettings> SchemaSettingsFromJson(std::string_view body);
// The body of PUT .../settings: the same shape; unknown names are invalid.
Result<SchemaSettings> SchemaSettingsRequestFromJson(std::string_view body);

// {type, from, to, renames, defaults, patch}: a declarative upcaster.
std::string UpcasterToJson(const DeclarativeUpcaster& upcaster);
Result<DeclarativeUpcaster> UpcasterFromJson(std::string_view body);
// The body of POST /schemas/{type}/upcasters: {from, to, renames?,
// defaults?, patch?} (absent parts: {} and []); `type` is the path's.
std::string UpcasterRequestToJson(const DeclarativeUpcaster& upcaster);
Result<DeclarativeUpcaster> UpcasterRequestFromJson(std::string_view type, std::string_view body);

// {type, versions: [version...], settings, upcasters: [upcaster...]}
// (GET /schemas/{type}).
std::string SchemaTypeToJson(const SchemaType& type);
Result<SchemaType> SchemaTypeFromJson(std::string_view body);

// GET /schemas: {types: [type...], categories: {category: settings},
// default: settings}; GET /schema-settings: the same without `types`.
struct SchemaOverview {
  std::vector<SchemaType> types;
  std::vector<std::pair<std::string, SchemaSettings>> categories;
  SchemaSettings default_settings;
};
std::string SchemaOverviewToJson(const SchemaOverview& overview);
Result<SchemaOverview> SchemaOverviewFromJson(std::string_view body);
std::string SchemaSettingsListToJson(const SchemaOverview& settings);
Result<SchemaOverview> SchemaSettingsListFromJson(std::string_view body);

// POST /schemas/{type}/versions: {version, schema}.
struct RegisterRequest {
  std::string version;
  std::string schema;  // JSON text
};
std::string RegisterRequestToJson(const RegisterRequest& request);
Result<RegisterRequest> RegisterRequestFromJson(std::string_view body);

// POST /schemas/{type}/check: {schema}; answers {compatible: true} or
// {compatible: false, reason}.
std::string CheckRequestToJson(std::string_view schema);
Result<std::string> CheckRequestFromJson(std::string_view body);
struct CompatibilityAnswer {
  bool compatible = false;
  std::string reason;  // when not compatible
};
std::string CompatibilityAnswerToJson(const CompatibilityAnswer& answer);
Result<CompatibilityAnswer> CompatibilityAnswerFromJson(std::string_view body);

// POST /schemas/{type}/validate: {version?, data}; answers {valid: true} or
// {valid: false, pointer, rule}.
struct ValidateRequest {
  std::string version;  // empty: the type's newest
  std::string data;     // JSON text
};
std::string ValidateRequestToJson(const ValidateRequest& request);
Result<ValidateRequest> ValidateRequestFromJson(std::string_view body);
struct ValidationAnswer {
  bool valid = false;
  std::string pointer;  // JSON Pointer of the failing value in `data` ("" is the whole)
  std::string rule;     // what it broke
};
std::string ValidationAnswerToJson(const ValidationAnswer& answer);
Result<ValidationAnswer> ValidationAnswerFromJson(std::string_view body);

}  // namespace indelible::api

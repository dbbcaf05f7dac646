// The standard API of docs/HTTP.md, one function per group of routes.
#pragma once

#include "server/context.h"
#include "server/http.h"

namespace indelible::server {

void AddStreamRoutes(Router& router, ServerContext& context);      // /streams/...
void AddStreamInfoRoutes(Router& router, ServerContext& context);  // /streams, .../state
void AddMetadataRoutes(Router& router, ServerContext& context);    // .../metadata
void AddScavengeRoutes(Router& router, ServerContext& context);    // /scavenge
void AddCommitRoutes(Router& router, ServerContext& context);      // /commits
void AddAllRoutes(Router& router, ServerContext& context);         // /all
void AddQueryRoutes(Router& router, ServerContext& context);       // /query
void AddSubscribeRoutes(Router& router, ServerContext& context);   // /subscribe/...
void AddOpsRoutes(Router& router, ServerContext& context);         // /health, /metrics
void AddConsumerRoutes(Router& router, ServerContext& context);    // /consumers/...
void AddKeyRoutes(Router& router, ServerContext& context);         // /keys, /auth/whoami
void AddEventRoutes(Router& router, ServerContext& context);       // /events/{id}
void AddConsoleRoutes(Router& router, ServerContext& context);     // /, /console/...
void AddSchemaRoutes(Router& router, ServerContext& context);      // /schemas, /schema-settings
// ServeOptions::routes, the program's own (custom_routes.cc); invalid for
// a route whose right is not one.
Status AddCustomRoutes(Router& router, ServerContext& context);

inline void AddStandardRoutes(Router& router, ServerContext& context) {
  AddStreamRoutes(router, context);
  AddStreamInfoRoutes(router, context);
  AddMetadataRoutes(router, context);
  AddScavengeRoutes(router, context);
  AddCommitRoutes(router, context);
  AddAllRoutes(router, context);
  AddQueryRoutes(router, context);
  AddEventRoutes(router, context);
  AddSubscribeRoutes(router, context);
  AddOpsRoutes(router, context);
  AddConsumerRoutes(router, context);
  AddKeyRoutes(router, context);
  AddSchemaRoutes(router, context);
  AddConsoleRoutes(router, context);
}

// `raw` of the reads that take it (GET /streams/{s}, /all, /subscribe/...):
// 1 or true, the events as stored; 0, false or absent, upcast
// (docs/SCHEMAS.md). invalid for anything else.
Result<bool> RawParam(const Exchange& exchange);

// The answer to a store's error on a single-stream route: a conflict on a
// version carries the current version as its ETag too (stream_routes.cc).
void RespondStoreError(Exchange& exchange, const Status& status);

}  // namespace indelible::server

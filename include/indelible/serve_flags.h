// The security flags of `indelible serve`, for programs that serve a store
// with routes of their own (the examples): TLS, authentication, roles,
// --insecure and --metrics-open, with the same names and meanings
// (docs/SECURITY.md).
//
//   CLI::App app{"my-service"};
//   indelible::ServeOptions options;
//   indelible::AddServeSecurityFlags(app, options);
//   CLI11_PARSE(app, argc, argv);
#pragma once

#include "indelible/server.h"

namespace CLI {
class App;
}

namespace indelible {

// Adds --tls-cert, --tls-key, --tls-client-ca, --tls-require-client-cert,
// --auth, --roles-file, --jwks-file, --jwt-issuer, --jwt-audience,
// --jwt-roles-claim, --bootstrap-key-file, --key-cache-ms, --metrics-open and
// --insecure, writing into `options` (which must outlive the parse).
void AddServeSecurityFlags(CLI::App& app, ServeOptions& options);

}  // namespace indelible

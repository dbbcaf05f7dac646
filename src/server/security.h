// The server's security set-up at start (docs/SECURITY.md, "Secure
// defaults"): whether credentials are required, the authenticator (roles,
// JWKS, API keys) and the first admin key.
//
//   loopback                     authentication off unless --auth
//   beyond loopback              TLS and authentication required; without
//                                TLS the server refuses to start
//   beyond loopback, --insecure  as on loopback, with a warning at start
#pragma once

#include <boost/asio/ip/tcp.hpp>

#include "server/context.h"

namespace indelible::server {

Status SetUpSecurity(ServerContext& context, const boost::asio::ip::tcp::endpoint& endpoint);

}  // namespace indelible::server

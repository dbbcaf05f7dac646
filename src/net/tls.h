// The TLS side of https:// connections: one OpenSSL client context, shared
// by every connection of a client (and by streams that outlive it), that
// speaks TLS 1.2 or later and trusts the system's CAs plus an optional file.
//
// A context is read-only once made: connections may use it from any thread.
#pragma once

#include <memory>
#include <string>

#include "indelible/result.h"

namespace boost::asio::ssl {
class context;
}

namespace indelible::net {

using TlsContext = boost::asio::ssl::context;

// `ca_file`: PEM certificates trusted besides the system's (a private CA, a
// test server's own); empty for the system's store alone. Errors: invalid
// (field "ca_file") when the file cannot be loaded.
Result<std::shared_ptr<TlsContext>> MakeTlsContext(const std::string& ca_file);

}  // namespace indelible::net

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
// test server's own); empty for the system's store alone. `cert_file` and
// `key_file`: the client's own certificate chain and key (PEM), presented
// to servers that ask for one (mutual TLS); empty: none (an empty key_file
// reads the key from cert_file). Errors: invalid (field "ca_file",
// "cert_file" or "key_file") when a file cannot be loaded.
Result<std::shared_ptr<TlsContext>> MakeTlsContext(const std::string& ca_file,
                                                   const std::string& cert_file = "",
                                                   const std::string& key_file = "");

}  // namespace indelible::net

// The server's TLS configuration (docs/SECURITY.md, "TLS"): an OpenSSL
// server context made from ServeTls's PEM files, and the holder that swaps
// it for a new one on SIGHUP.
//
// Concurrency: TlsContexts is thread-safe; a context, once made, is
// read-only and shared by every connection accepted while it was current.
#pragma once

#include <indelible/result.h>
#include <indelible/server.h>

#include <memory>

#include "core/mutex.h"

namespace boost::asio::ssl {
class context;
}

namespace indelible::server {

// TLS 1.2 and 1.3 only, the Mozilla "intermediate" ECDHE ciphers for TLS
// 1.2 in the server's order of preference, no compression, no
// renegotiation; with client_ca_file, clients are asked for a certificate
// verified against it (and refused without one if require_client_cert).
// Errors: invalid (field "tls") naming the file that did not load and what
// OpenSSL said of it.
Result<std::shared_ptr<boost::asio::ssl::context>> MakeServerTlsContext(const ServeTls& tls);

class TlsContexts {
 public:
  TlsContexts(ServeTls tls, std::shared_ptr<boost::asio::ssl::context> first)
      : tls_(std::move(tls)), current_(std::move(first)) {}

  // For a connection being accepted.
  std::shared_ptr<boost::asio::ssl::context> Current() const;
  // Reads the files again: connections accepted from now on use them, open
  // ones keep theirs. When they do not load, keeps the current context and
  // logs one line on stderr naming the file.
  void Reload();

 private:
  const ServeTls tls_;
  mutable Mutex mu_;
  std::shared_ptr<boost::asio::ssl::context> current_ GUARDED_BY(mu_);
};

}  // namespace indelible::server

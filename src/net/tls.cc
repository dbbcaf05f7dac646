#include "net/tls.h"

#include <fmt/format.h>

#include <boost/asio/ssl/context.hpp>

namespace indelible::net {

namespace ssl = boost::asio::ssl;

Result<std::shared_ptr<TlsContext>> MakeTlsContext(const std::string& ca_file,
                                                   const std::string& cert_file,
                                                   const std::string& key_file) {
  auto context = std::make_shared<ssl::context>(ssl::context::tls_client);
  // TLS 1.0 and 1.1 are deprecated (RFC 8996); every server we talk to has 1.2.
  context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                       ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  context->set_default_verify_paths();
  if (!ca_file.empty()) {
    boost::system::error_code ec;
    context->load_verify_file(ca_file, ec);
    if (ec)
      return Status::Invalid(
          "ca_file", fmt::format("cannot load certificates from '{}': {}", ca_file, ec.message()));
  }
  if (!cert_file.empty()) {
    boost::system::error_code ec;
    context->use_certificate_chain_file(cert_file, ec);
    if (ec)
      return Status::Invalid("cert_file", fmt::format("cannot load the client certificate from "
                                                      "'{}': {}",
                                                      cert_file, ec.message()));
    const std::string& key = key_file.empty() ? cert_file : key_file;
    context->use_private_key_file(key, ssl::context::pem, ec);
    if (ec)
      return Status::Invalid("key_file",
                             fmt::format("cannot load the client key from '{}': {} (is it the key "
                                         "of '{}'?)",
                                         key, ec.message(), cert_file));
  }
  return context;
}

}  // namespace indelible::net

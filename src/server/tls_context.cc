#include "server/tls_context.h"

#include <fmt/format.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <boost/asio/ssl/context.hpp>
#include <cstdio>

namespace indelible::server {

namespace ssl = boost::asio::ssl;

namespace {

// Mozilla's "intermediate" configuration (v5.7) for TLS 1.2, without the
// DHE suites (they need DH parameters of their own; every client that has
// TLS 1.2 has ECDHE). TLS 1.3's suites are OpenSSL's defaults, all AEAD.
constexpr const char* kTls12Ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

// OpenSSL's error queue as text ("error:0480006C:PEM routines::no start
// line"), emptied.
std::string OpenSslSays() {
  std::string out;
  while (const unsigned long error = ERR_get_error()) {
    char text[256];
    ERR_error_string_n(error, text, sizeof(text));
    if (!out.empty()) out += "; ";
    out += text;
  }
  return out.empty() ? "no reason given" : out;
}

// "Jan  1 00:00:00 2026 GMT", as OpenSSL prints a certificate's dates.
std::string TimeText(const ASN1_TIME* time) {
  BIO* bio = BIO_new(BIO_s_mem());
  if (bio == nullptr) return "an unknown date";
  std::string out = "an unknown date";
  if (ASN1_TIME_print(bio, time) == 1) {
    char* text = nullptr;
    const long size = BIO_get_mem_data(bio, &text);
    out.assign(text, static_cast<std::size_t>(size));
  }
  BIO_free(bio);
  return out;
}

Status Refused(const std::string& what, const std::string& file) {
  return Status::Invalid(
      "tls", fmt::format("cannot load the TLS {} from '{}': {}", what, file, OpenSslSays()));
}

}  // namespace

Result<std::shared_ptr<ssl::context>> MakeServerTlsContext(const ServeTls& tls) {
  ERR_clear_error();
  auto context = std::make_shared<ssl::context>(ssl::context::tls_server);
  SSL_CTX* native = context->native_handle();
  // SSLv3, TLS 1.0 and 1.1 are broken or deprecated (RFC 8996).
  if (SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION) != 1)
    return Status::Internal("TLS: cannot set the minimum version: " + OpenSslSays());
  SSL_CTX_set_options(native, SSL_OP_NO_SSLv2 | SSL_OP_NO_SSLv3 | SSL_OP_NO_TLSv1 |
                                  SSL_OP_NO_TLSv1_1 | SSL_OP_NO_COMPRESSION |
                                  SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  if (SSL_CTX_set_cipher_list(native, kTls12Ciphers) != 1)
    return Status::Internal("TLS: cannot set the cipher list: " + OpenSslSays());

  if (SSL_CTX_use_certificate_chain_file(native, tls.cert_file.c_str()) != 1)
    return Refused("certificate chain", tls.cert_file);
  // No key file: the key is in the certificate's file.
  const std::string& key_file = tls.key_file.empty() ? tls.cert_file : tls.key_file;
  if (SSL_CTX_use_PrivateKey_file(native, key_file.c_str(), SSL_FILETYPE_PEM) != 1)
    return Refused("private key", key_file);
  if (SSL_CTX_check_private_key(native) != 1)
    return Refused("private key (it does not match the certificate of '" + tls.cert_file + "')",
                   key_file);
  // Every client refuses an expired certificate, so serving one only moves
  // the failure to them; a reload keeps the old one instead.
  if (const ASN1_TIME* not_after = X509_get0_notAfter(SSL_CTX_get0_certificate(native));
      not_after != nullptr && X509_cmp_current_time(not_after) < 0)
    return Status::Invalid("tls", fmt::format("the TLS certificate in '{}' expired on {}: renew it",
                                              tls.cert_file, TimeText(not_after)));

  if (!tls.client_ca_file.empty()) {
    if (SSL_CTX_load_verify_locations(native, tls.client_ca_file.c_str(), nullptr) != 1)
      return Refused("client CA certificates", tls.client_ca_file);
    // The CAs the server names in its certificate request, so a client
    // with several certificates picks the right one.
    STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(tls.client_ca_file.c_str());
    if (names == nullptr) return Refused("client CA certificates", tls.client_ca_file);
    SSL_CTX_set_client_CA_list(native, names);
    SSL_CTX_set_verify(
        native, SSL_VERIFY_PEER | (tls.require_client_cert ? SSL_VERIFY_FAIL_IF_NO_PEER_CERT : 0),
        nullptr);
    // Without it OpenSSL refuses to resume a session once peers are
    // verified (a reconnecting client would fail its handshake).
    static constexpr unsigned char kSessionContext[] = "indelible";
    SSL_CTX_set_session_id_context(native, kSessionContext, sizeof(kSessionContext) - 1);
  }
  return context;
}

std::shared_ptr<ssl::context> TlsContexts::Current() const {
  MutexLock lock(&mu_);
  return current_;
}

void TlsContexts::Reload() {
  auto fresh = MakeServerTlsContext(tls_);
  if (!fresh.ok()) {
    std::fprintf(stderr, "indelible: SIGHUP: TLS files not reloaded, serving on with the old: %s\n",
                 fresh.status().message().c_str());
    return;
  }
  {
    MutexLock lock(&mu_);
    current_ = std::move(*fresh);
  }
  std::fprintf(stderr, "indelible: SIGHUP: TLS certificate reloaded from '%s'\n",
               tls_.cert_file.c_str());
}

}  // namespace indelible::server

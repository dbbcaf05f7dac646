#include "server/server_stream.h"

#include <openssl/ssl.h>
#include <openssl/x509.h>

namespace indelible::server {

std::string ServerStream::VerifiedPeerSubject() {
  auto* tls = std::get_if<TlsStream>(&stream_);
  if (tls == nullptr) return "";
  SSL* ssl = tls->native_handle();
  // A certificate that failed verification ended the handshake already;
  // the check keeps that true should the verify mode ever allow it.
  if (SSL_get_verify_result(ssl) != X509_V_OK) return "";
  X509* cert = SSL_get1_peer_certificate(ssl);
  if (cert == nullptr) return "";
  std::string subject;
  if (BIO* bio = BIO_new(BIO_s_mem())) {
    if (X509_NAME_print_ex(bio, X509_get_subject_name(cert), 0, XN_FLAG_RFC2253) >= 0) {
      char* data = nullptr;
      const long size = BIO_get_mem_data(bio, &data);
      if (size > 0) subject.assign(data, static_cast<std::size_t>(size));
    }
    BIO_free(bio);
  }
  X509_free(cert);
  return subject;
}

}  // namespace indelible::server

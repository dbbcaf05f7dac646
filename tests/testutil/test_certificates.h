// TestCertificates: a CA and a server certificate signed by it, made with
// the `openssl` command into a folder, for TLS tests against real servers.
// The server certificate names the address 127.0.0.1 only (subjectAltName
// IP:127.0.0.1), so reaching the same server as "localhost" must fail the
// host name check.
#pragma once

#include <cstdio>
#include <string>

namespace indelible::testutil {

struct TestCertificates {
  std::string ca;    // ca.pem: the CA's certificate, what a client trusts
  std::string cert;  // cert.pem: the server's certificate
  std::string key;   // key.pem: the server's private key

  // Writes the files into `dir`; false with openssl's output in `*output`.
  bool Make(const std::string& dir, std::string* output) {
    const std::string make =
        "cd '" + dir +
        "' && openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 "
        "-subj '/CN=indelible test CA' && "
        "openssl req -newkey rsa:2048 -nodes -keyout key.pem -out server.csr -subj '/CN=127.0.0.1' "
        "&& printf 'subjectAltName=IP:127.0.0.1\\nbasicConstraints=CA:FALSE\\n' > ext && "
        "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out cert.pem "
        "-days 2 -extfile ext";
    output->clear();
    FILE* pipe = ::popen(("(" + make + ") 2>&1").c_str(), "r");
    if (pipe == nullptr) return false;
    char buf[256];
    while (std::fgets(buf, sizeof(buf), pipe) != nullptr) *output += buf;
    if (::pclose(pipe) != 0) return false;
    ca = dir + "/ca.pem";
    cert = dir + "/cert.pem";
    key = dir + "/key.pem";
    return true;
  }
};

}  // namespace indelible::testutil

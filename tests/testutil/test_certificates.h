// TestCertificates: a CA and a server certificate signed by it, made with
// the `openssl` command into a folder, for TLS tests against real servers.
// The server certificate names the address 127.0.0.1 only (subjectAltName
// IP:127.0.0.1), so reaching the same server as "localhost" must fail the
// host name check. For mutual TLS, MakeClient adds a second CA and a client
// certificate signed by it; Reissue makes another server certificate (a
// serial of the caller's choosing) for reload tests.
#pragma once

#include <cstdio>
#include <string>

namespace indelible::testutil {

struct TestCertificates {
  std::string ca;    // ca.pem: the CA's certificate, what a client trusts
  std::string cert;  // cert.pem: the server's certificate
  std::string key;   // key.pem: the server's private key
  // After MakeClient:
  std::string client_ca;    // client-ca.pem: what the server trusts for clients
  std::string client_cert;  // client.pem: subject CN=orders-service,O=Acme
  std::string client_key;   // client.key

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
    if (!Run(make, output)) return false;
    dir_ = dir;
    ca = dir + "/ca.pem";
    cert = dir + "/cert.pem";
    key = dir + "/key.pem";
    return true;
  }

  // After Make: a client CA and a client certificate signed by it, whose
  // subject in RFC 2253 form is "O=Acme,CN=orders-service" (most
  // significant part last, as RFC 2253 orders it). Also other-client.pem
  // and other-client.key, the same subject signed by the server's CA (not
  // the client CA): a certificate the server must not accept.
  bool MakeClient(std::string* output) {
    const std::string make =
        "cd '" + dir_ +
        "' && openssl req -x509 -newkey rsa:2048 -nodes -keyout client-ca.key -out client-ca.pem "
        "-days 2 -subj '/CN=indelible test client CA' && "
        "openssl req -newkey rsa:2048 -nodes -keyout client.key -out client.csr "
        "-subj '/CN=orders-service/O=Acme' && "
        "printf 'basicConstraints=CA:FALSE\\nextendedKeyUsage=clientAuth\\n' > client-ext && "
        "openssl x509 -req -in client.csr -CA client-ca.pem -CAkey client-ca.key -set_serial 7 "
        "-out client.pem -days 2 -extfile client-ext && "
        "openssl req -newkey rsa:2048 -nodes -keyout other-client.key -out other-client.csr "
        "-subj '/CN=orders-service/O=Acme' && "
        "openssl x509 -req -in other-client.csr -CA ca.pem -CAkey ca.key -set_serial 8 "
        "-out other-client.pem -days 2 -extfile client-ext";
    if (!Run(make, output)) return false;
    client_ca = dir_ + "/client-ca.pem";
    client_cert = dir_ + "/client.pem";
    client_key = dir_ + "/client.key";
    return true;
  }

  // After Make: another server certificate for 127.0.0.1 from the same CA,
  // with serial `serial` (decimal), as `*new_cert` and `*new_key` (files
  // named after the serial, beside the others), valid for `days` from now
  // (-1: it expired a day ago).
  bool Reissue(int serial, std::string* new_cert, std::string* new_key, std::string* output,
               int days = 2) {
    const std::string s = std::to_string(serial);
    const std::string make = "cd '" + dir_ +
                             "' && openssl req -newkey rsa:2048 -nodes -keyout key-" + s +
                             ".pem -out server-" + s +
                             ".csr -subj '/CN=127.0.0.1' && "
                             "openssl x509 -req -in server-" +
                             s + ".csr -CA ca.pem -CAkey ca.key -set_serial " + s + " -out cert-" +
                             s + ".pem -days " + std::to_string(days) + " -extfile ext";
    if (!Run(make, output)) return false;
    *new_cert = dir_ + "/cert-" + s + ".pem";
    *new_key = dir_ + "/key-" + s + ".pem";
    return true;
  }

 private:
  static bool Run(const std::string& command, std::string* output) {
    output->clear();
    FILE* pipe = ::popen(("(" + command + ") 2>&1").c_str(), "r");
    if (pipe == nullptr) return false;
    char buf[256];
    while (std::fgets(buf, sizeof(buf), pipe) != nullptr) *output += buf;
    return ::pclose(pipe) == 0;
  }

  std::string dir_;
};

}  // namespace indelible::testutil

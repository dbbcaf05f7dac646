// AddServeSecurityFlags (include/indelible/serve_flags.h).
#include <indelible/serve_flags.h>

#include <CLI/CLI.hpp>

namespace indelible {

void AddServeSecurityFlags(CLI::App& app, ServeOptions& options) {
  ServeTls& tls = options.tls;
  ServeAuth& auth = options.auth;
  app.add_option("--tls-cert", tls.cert_file,
                 "PEM certificate chain: serve HTTPS (TLS 1.2/1.3); SIGHUP reloads it")
      ->check(CLI::ExistingFile);
  app.add_option("--tls-key", tls.key_file, "PEM private key of --tls-cert")
      ->check(CLI::ExistingFile);
  app.add_option("--tls-client-ca", tls.client_ca_file,
                 "PEM CA certificates: ask clients for a certificate signed by one (mutual TLS); "
                 "its subject becomes the principal cert:SUBJECT")
      ->check(CLI::ExistingFile);
  app.add_flag("--tls-require-client-cert", tls.require_client_cert,
               "with --tls-client-ca: refuse clients without a certificate");
  app.add_flag("--auth", auth.enabled,
               "require credentials (API keys, JWTs, client certificates) on every route but "
               "/health; on by default beyond loopback");
  app.add_option("--roles-file", auth.roles_file,
                 "JSON file of user-defined roles and certificate subjects (docs/SECURITY.md)")
      ->check(CLI::ExistingFile);
  app.add_option("--jwks-file", auth.jwks_file,
                 "JWKS file whose keys verify bearer JWTs (RS256, ES256); reloaded when it changes")
      ->check(CLI::ExistingFile);
  app.add_option("--jwt-issuer", auth.jwt_issuer, "the iss every JWT must carry");
  app.add_option("--jwt-audience", auth.jwt_audiences, "an aud a JWT may carry; repeat for more");
  app.add_option("--jwt-roles-claim", auth.jwt_roles_claim,
                 "the claim (a dot path, like realm_access.roles) holding a JWT's roles")
      ->capture_default_str();
  app.add_option("--bootstrap-key-file", auth.bootstrap_key_file,
                 "the first admin API key: read from this file (mode 0600) or, if missing, made "
                 "and written there; never printed");
  int key_cache_ms = static_cast<int>(auth.key_cache.count());
  app.add_option_function<int>(
         "--key-cache-ms", [&auth](int ms) { auth.key_cache = std::chrono::milliseconds(ms); },
         "how long an API key read from the store is trusted (a revocation on another server "
         "takes effect here within this)")
      ->check(CLI::Range(0, 60000))
      ->default_val(key_cache_ms);
  app.add_flag("--metrics-open", auth.metrics_open, "serve /metrics without the metrics right");
  app.add_flag("--insecure", options.insecure,
               "listen beyond loopback without TLS or authentication (logged loudly)");
}

}  // namespace indelible

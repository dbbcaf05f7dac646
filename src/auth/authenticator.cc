#include "auth/authenticator.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace indelible::auth {
namespace {

bool StartsWithNoCase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  return true;
}

std::string Trim(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  std::size_t start = 0;
  while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start]))) ++start;
  return text.substr(start);
}

Status Unauthenticated() {
  return Status::Unauthorized(
      "credentials required: send Authorization: Bearer <API key or JWT> (docs/SECURITY.md)");
}

}  // namespace

Authenticator::Authenticator(Store& store, RoleBook roles, std::unique_ptr<JwtVerifier> jwt,
                             std::chrono::milliseconds key_cache)
    : roles_(std::move(roles)), jwt_(std::move(jwt)), keys_(store, key_cache) {}

Result<std::unique_ptr<Authenticator>> Authenticator::Make(Store& store,
                                                           const AuthSettings& settings) {
  auto roles = RoleBook::Load(settings.roles_file);
  if (!roles.ok()) return roles.status();
  std::unique_ptr<JwtVerifier> jwt;
  if (settings.jwt) {
    auto verifier = JwtVerifier::Open(*settings.jwt);
    if (!verifier.ok()) return verifier.status();
    jwt = std::move(*verifier);
  }
  return std::unique_ptr<Authenticator>(
      new Authenticator(store, std::move(*roles), std::move(jwt), settings.key_cache));
}

Result<std::string> Authenticator::Token(const Credentials& credentials) const {
  if (!credentials.authorization.empty()) {
    if (!StartsWithNoCase(credentials.authorization, "bearer "))
      return Status::Unauthorized(
          "the Authorization scheme is not Bearer: send Authorization: Bearer <API key or JWT>");
    std::string token = Trim(credentials.authorization.substr(7));
    if (token.empty()) return Unauthenticated();
    return token;
  }
  return Trim(credentials.api_key);
}

Principal Authenticator::FromKey(const KeyInfo& key) const {
  return Principal{"key:" + key.name, key.roles, roles_.Resolve(key.roles), key.id};
}

std::optional<Result<Principal>> Authenticator::TryFast(const Credentials& credentials,
                                                        std::int64_t now_ms) {
  auto token = Token(credentials);
  if (!token.ok()) return Result<Principal>(token.status());
  if (token->empty()) {
    if (credentials.peer_subject.empty()) return Result<Principal>(Unauthenticated());
    const std::vector<std::string>* roles = roles_.CertificateRoles(credentials.peer_subject);
    std::vector<std::string> names = roles != nullptr ? *roles : std::vector<std::string>{};
    Grants grants = roles_.Resolve(names);
    return Result<Principal>(
        Principal{"cert:" + credentials.peer_subject, std::move(names), std::move(grants), {}});
  }
  if (IsApiKey(*token)) {
    auto cached = keys_.VerifyCached(*token, now_ms);
    if (!cached) return std::nullopt;
    if (!cached->ok()) return Result<Principal>(cached->status());
    return Result<Principal>(FromKey(**cached));
  }
  if (jwt_ == nullptr)
    return Result<Principal>(Status::Unauthorized(
        "the bearer token is not an API key (idl_...), and this server takes no JWTs "
        "(no --jwks-file)"));
  auto identity = jwt_->Verify(
      *token, std::chrono::system_clock::time_point(std::chrono::milliseconds(now_ms)));
  if (!identity.ok()) return Result<Principal>(identity.status());
  Grants grants = roles_.Resolve(identity->roles);
  return Result<Principal>(
      Principal{"jwt:" + identity->subject, std::move(identity->roles), std::move(grants), {}});
}

Result<Principal> Authenticator::Authenticate(const Credentials& credentials, std::int64_t now_ms) {
  if (auto fast = TryFast(credentials, now_ms)) return std::move(*fast);
  auto token = Token(credentials);
  auto key = keys_.Verify(*token, now_ms);
  if (!key.ok()) return key.status();
  return FromKey(*key);
}

Status BootstrapAdminKey(KeyStore& keys, const std::string& path, const std::string& env_name,
                         std::int64_t now_ms) {
  if (!env_name.empty()) {
    if (char* value = std::getenv(env_name.c_str()); value != nullptr && *value != '\0') {
      const std::string key = Trim(value);
      // unsetenv only drops the pointer: the bytes stay in the block the
      // kernel shows as /proc/PID/environ. Blank them first.
      ::explicit_bzero(value, std::strlen(value));
      ::unsetenv(env_name.c_str());
      if (Status s = keys.Register(key, "bootstrap-env", {"admin"}, now_ms); !s.ok())
        return Status::Invalid("bootstrap-key-env", fmt::format("${}: {}", env_name, s.message()));
    }
  }
  if (path.empty()) return Status::Ok();
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) {
    if ((info.st_mode & 077) != 0)
      return Status::Invalid("bootstrap-key-file",
                             fmt::format("{} may be read by others (mode {:o}): chmod 600 it", path,
                                         info.st_mode & 0777));
    std::ifstream in(path);
    std::string key;
    std::getline(in, key);
    if (Status s = keys.Register(Trim(key), "bootstrap", {"admin"}, now_ms); !s.ok())
      return Status::Invalid("bootstrap-key-file", fmt::format("{}: {}", path, s.message()));
    return Status::Ok();
  }
  auto made = keys.Create("bootstrap", {"admin"}, 0, "bootstrap", now_ms);
  if (!made.ok()) return made.status();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  const std::string line = made->key + "\n";
  if (fd < 0 || ::write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size()) ||
      ::fsync(fd) != 0) {
    const int error = errno;
    if (fd >= 0) ::close(fd);
    (void)keys.Revoke(made->info.id);
    return Status::Invalid("bootstrap-key-file",
                           fmt::format("cannot write {}: {}", path, std::strerror(error)));
  }
  ::close(fd);
  return Status::Ok();
}

}  // namespace indelible::auth

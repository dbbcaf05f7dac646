// keys: API keys from a terminal (docs/SECURITY.md, "API keys").
//
//   indelible keys create NAME --role writer [--expires-in 90d] [--out FILE]
//   indelible keys list
//   indelible keys revoke ID|NAME
//
// With --url they go through the server (POST/GET/DELETE /keys, the keys
// right needed); with --data they write the store's records directly, which
// is how the first admin key of an embedded store is made before the server
// starts (the server holds the folder's lock while it runs).
//
// The secret is printed once, alone on stdout (so `KEY=$(indelible keys
// create ...)` works), or written to --out with mode 0600 and not printed.
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "api/keys.h"
#include "auth/api_keys.h"
#include "auth/policy.h"
#include "cli/cli.h"
#include "core/clock.h"
#include "indelible/client.h"
#include "server/key_document.h"

namespace indelible::cli {
namespace {

namespace json = boost::json;

struct KeyArgs {
  std::string name;
  std::vector<std::string> roles;
  std::string expires_in;
  std::string out;
  std::string roles_file;
  std::string id_or_name;
};

// "90d", "12h", "30m", "45s" or plain seconds.
Result<std::chrono::seconds> ParseDuration(const std::string& text) {
  const auto bad = [&] {
    return Status::Invalid(
        "expires-in", fmt::format("'{}' is not a duration: 90d, 12h, 30m, 45s or seconds", text));
  };
  if (text.empty()) return bad();
  std::int64_t unit = 1;
  std::string digits = text;
  switch (text.back()) {
    case 'd':
      unit = 86400;
      break;
    case 'h':
      unit = 3600;
      break;
    case 'm':
      unit = 60;
      break;
    case 's':
      unit = 1;
      break;
    default:
      digits.push_back('s');
  }
  digits.pop_back();
  if (digits.empty() || digits.size() > 9 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    return bad();
  const std::int64_t n = std::stoll(digits);
  if (n < 1) return bad();
  return std::chrono::seconds(n * unit);
}

// The key, alone on stdout or into --out (mode 0600, a new file).
int Deliver(const Cli& cli, const KeyArgs& args, const std::string& document) {
  json::value parsed = json::parse(document);
  json::object& info = parsed.as_object();
  const std::string key(info["key"].as_string());
  if (!args.out.empty()) {
    const int fd = ::open(args.out.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    const std::string line = key + "\n";
    const bool written =
        fd >= 0 && ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
    const int error = errno;
    if (fd >= 0) ::close(fd);
    if (!written)
      return cli.Fail(Status::Invalid(
          "out", fmt::format("cannot write the key to {}: {} (it must not exist yet); the key "
                             "was made: revoke it with `indelible keys revoke {}`",
                             args.out, std::strerror(error), std::string(info["id"].as_string()))));
    info.erase("key");
  }
  if (cli.json) {
    std::printf("%s\n", json::serialize(info).c_str());
  } else {
    if (args.out.empty()) std::printf("%s\n", key.c_str());
    std::fprintf(stderr, "indelible: key '%s' (id %s) made%s; the secret is shown only %s\n",
                 std::string(info["name"].as_string()).c_str(),
                 std::string(info["id"].as_string()).c_str(),
                 info.contains("expires") ? ", with an expiry" : "",
                 args.out.empty() ? "above" : ("in " + args.out).c_str());
  }
  return 0;
}

int PrintList(const Cli& cli, const std::string& document) {
  json::value parsed = json::parse(document);
  for (const json::value& key : parsed.as_object()["keys"].as_array()) {
    if (cli.json) {
      std::printf("%s\n", json::serialize(key).c_str());
      continue;
    }
    const json::object& k = key.as_object();
    std::string roles;
    for (const json::value& role : k.at("roles").as_array())
      roles += (roles.empty() ? "" : ",") + std::string(role.as_string());
    const auto time = [&](std::string_view field) -> std::string {
      const json::value* v = k.if_contains(field);
      if (v == nullptr || !v->is_int64()) return "-";
      const std::time_t seconds = static_cast<std::time_t>(v->as_int64() / 1000);
      char text[32];
      std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%MZ", std::gmtime(&seconds));
      return text;
    };
    std::printf("%s  %-24s %-24s created %s  expires %s  last used %s\n",
                std::string(k.at("id").as_string()).c_str(),
                std::string(k.at("name").as_string()).c_str(), roles.c_str(),
                time("created").c_str(), time("expires").c_str(), time("lastUsed").c_str());
  }
  return 0;
}

int Create(Cli& cli, const KeyArgs& args) {
  std::chrono::seconds expires_in{0};
  if (!args.expires_in.empty()) {
    auto parsed = ParseDuration(args.expires_in);
    if (!parsed.ok()) return cli.Fail(parsed.status());
    expires_in = *parsed;
  }
  if (cli.remote()) {
    auto client = Client::Connect(cli.url, cli.client_options());
    if (!client.ok()) return cli.Fail(client.status());
    auto made = (*client)->CreateKey(args.name, args.roles, expires_in);
    if (!made.ok()) return cli.Fail(made.status());
    return Deliver(cli, args, *made);
  }
  auto book = auth::RoleBook::Load(args.roles_file);
  if (!book.ok()) return cli.Fail(book.status());
  for (const std::string& role : args.roles)
    if (!book->Has(role))
      return cli.Fail(Status::Invalid(
          "role", fmt::format("no role '{}'; roles: {} (user-defined ones need --roles-file)", role,
                              fmt::join(book->Names(), ", "))));
  auto store = cli.OpenStore();
  if (!store.ok()) return cli.Fail(store.status());
  auth::KeyStore keys(**store, std::chrono::milliseconds(0));
  const std::int64_t now = UnixMillisNow();
  auto made = keys.Create(args.name, args.roles,
                          expires_in.count() > 0 ? now + expires_in.count() * 1000 : 0, "cli", now);
  if (!made.ok()) return cli.Fail(made.status());
  return Deliver(cli, args, api::NewKeyToJson({made->key, server::KeyDocument(made->info)}));
}

int List(Cli& cli) {
  if (cli.remote()) {
    auto client = Client::Connect(cli.url, cli.client_options());
    if (!client.ok()) return cli.Fail(client.status());
    auto listed = (*client)->ListKeys();
    if (!listed.ok()) return cli.Fail(listed.status());
    return PrintList(cli, *listed);
  }
  auto store = cli.OpenReader();
  if (!store.ok()) return cli.Fail(store.status());
  auth::KeyStore keys(**store, std::chrono::milliseconds(0));
  auto listed = keys.List();
  if (!listed.ok()) return cli.Fail(listed.status());
  std::vector<api::Key> documents;
  for (const auth::KeyInfo& key : *listed) documents.push_back(server::KeyDocument(key));
  return PrintList(cli, api::KeyListToJson(documents));
}

int Revoke(Cli& cli, const KeyArgs& args) {
  std::string document;
  if (cli.remote()) {
    auto client = Client::Connect(cli.url, cli.client_options());
    if (!client.ok()) return cli.Fail(client.status());
    auto revoked = (*client)->RevokeKey(args.id_or_name);
    if (!revoked.ok()) return cli.Fail(revoked.status());
    document = *revoked;
  } else {
    auto store = cli.OpenStore();
    if (!store.ok()) return cli.Fail(store.status());
    auth::KeyStore keys(**store, std::chrono::milliseconds(0));
    auto revoked = keys.Revoke(args.id_or_name);
    if (!revoked.ok()) return cli.Fail(revoked.status());
    document = api::RevokedKeyToJson(server::KeyDocument(*revoked));
  }
  if (cli.json) {
    std::printf("%s\n", document.c_str());
  } else {
    json::value parsed = json::parse(document);
    std::printf("revoked %s (%s)\n", std::string(parsed.as_object()["id"].as_string()).c_str(),
                std::string(parsed.as_object()["name"].as_string()).c_str());
  }
  return 0;
}

}  // namespace

void AddKeyVerbs(CLI::App& app, Cli& cli) {
  auto args = std::make_shared<KeyArgs>();
  CLI::App* keys = app.add_subcommand("keys", "API keys: create, list, revoke (docs/SECURITY.md)");
  keys->require_subcommand(1);
  CLI::App* create = keys->add_subcommand(
      "create", "make a key; its secret is printed once (or written to --out, mode 0600)");
  create->add_option("name", args->name, "who holds it: 1 to 64 of [A-Za-z0-9._-]")->required();
  create
      ->add_option("--role", args->roles,
                   "a role it has (repeatable): admin, operator, writer, "
                   "reader, or one of --roles-file")
      ->required();
  create->add_option("--expires-in", args->expires_in, "lifetime: 90d, 12h, 30m, 45s or seconds");
  create->add_option("--out", args->out, "write the key to this new file (mode 0600) instead");
  create->add_option("--roles-file", args->roles_file,
                     "with --data: the server's roles file, for user-defined roles");
  create->callback([&cli, args] { cli.run = [&cli, args] { return Create(cli, *args); }; });
  CLI::App* list = keys->add_subcommand("list", "the keys: id, name, roles, times (no secrets)");
  list->callback([&cli] { cli.run = [&cli] { return List(cli); }; });
  CLI::App* revoke = keys->add_subcommand(
      "revoke",
      "revoke a key by id or name: refused at once here, within --key-cache-ms elsewhere");
  revoke->add_option("key", args->id_or_name, "the key's id or name")->required();
  revoke->callback([&cli, args] { cli.run = [&cli, args] { return Revoke(cli, *args); }; });
}

}  // namespace indelible::cli

// Authentication end to end (docs/SECURITY.md, "API keys", "The first admin
// key", "Secure defaults", "Metrics"): keys made with the CLI and over HTTP,
// shown once, revoked at once, expiring, their last use; the bootstrap key;
// what `serve` demands beyond loopback; /metrics and its per-principal
// counters; the examples' own routes behind the same credentials.
#include <openssl/evp.h>
#include <sys/stat.h>

#include "blackbox/auth_fixture.h"

namespace indelible {
namespace {

using namespace std::chrono_literals;
using testutil::CliOutcome;
using testutil::RunCli;

std::string Sha256Hex(std::string_view text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(text.data(), text.size(), digest, &size, EVP_sha256(), nullptr);
  std::string out;
  static constexpr char kDigits[] = "0123456789abcdef";
  for (unsigned i = 0; i < size; ++i) {
    out += kDigits[digest[i] >> 4];
    out += kDigits[digest[i] & 15];
  }
  return out;
}

std::int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A key reads "idl_<16 hex digits>_<secret>"; the secret is base64url, which
// may itself hold '_', so it is cut at its fixed offset, not at the last '_'.
std::string IdOf(const std::string& key) { return key.substr(4, 16); }
std::string SecretOf(const std::string& key) { return key.substr(4 + 16 + 1); }

// Nothing of the key is in `text`: neither the key, its secret nor the
// hash kept of it.
::testing::AssertionResult HoldsNothingOf(const std::string& text, const std::string& key) {
  for (const std::string& part : {key, SecretOf(key), Sha256Hex(SecretOf(key))})
    if (text.find(part) != std::string::npos)
      return ::testing::AssertionFailure() << "'" << part << "' is in: " << text;
  return ::testing::AssertionSuccess();
}

int ModeOf(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 ? static_cast<int>(info.st_mode & 0777) : -1;
}

// --- API keys ----------------------------------------------------------------

class AuthKeysTest : public AuthServerTest {
 protected:
  // `indelible --url SERVER <global> <args>` with the admin key in a file.
  CliOutcome Cli(const std::string& args, const std::string& global = "") {
    return RunCli(INDELIBLE_PATH, "--url " + server().url() + " " + global, args, "", scratch_);
  }
  CliOutcome CliAsAdmin(const std::string& args) {
    return Cli(args, "--api-key-file " + KeyFile());
  }

  // The listed key named `name` (an empty object if none).
  json::object Listed(const std::string& name) {
    const json::value keys = http().Get("/keys", Bearer(admin())).Json();
    for (const json::value& k : keys.at("keys").as_array())
      if (k.at("name").as_string() == name) return k.as_object();
    return {};
  }

  testutil::TempDir scratch_;
};

TEST(AuthCliKeys, KeysMadeWithTheCliBeforeServeAreTakenByTheServer) {
  testutil::TempDir tmp;
  const std::string data = tmp.Sub("data");
  const std::string roles = tmp.Sub("roles.json");
  std::ofstream(roles) << kRolesFile;
  const auto cli = [&](const std::string& args) {
    return RunCli(INDELIBLE_PATH, "--data " + data, args, "", tmp);
  };
  const CliOutcome writer = cli("keys create cli-writer --role writer");
  ASSERT_EQ(writer.exit_code, 0) << writer.err;
  const std::string key = writer.out.substr(0, writer.out.find('\n'));
  EXPECT_EQ(writer.out, key + "\n") << "the key alone on stdout";
  EXPECT_TRUE(key.starts_with("idl_")) << writer.out;
  EXPECT_TRUE(HoldsNothingOf(writer.err, key));

  const CliOutcome root = cli("keys create root --role admin --out " + tmp.Sub("root.key"));
  ASSERT_EQ(root.exit_code, 0) << root.err;
  EXPECT_EQ(ModeOf(tmp.Sub("root.key")), 0600);
  std::string admin;
  std::getline(std::ifstream(tmp.Sub("root.key")) >> std::ws, admin);
  EXPECT_TRUE(HoldsNothingOf(root.out + root.err, admin));

  // A user-defined role needs the server's roles file.
  EXPECT_NE(cli("keys create o --role orders-writer").exit_code, 0);
  const CliOutcome orders = cli("keys create o --role orders-writer --roles-file " + roles);
  ASSERT_EQ(orders.exit_code, 0) << orders.err;
  const std::string orders_key = orders.out.substr(0, orders.out.find('\n'));
  EXPECT_NE(cli("keys create cli-writer --role reader").exit_code, 0) << "a name in use";

  const CliOutcome listed = cli("keys list");
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  for (const char* name : {"cli-writer", "root", "o"})
    EXPECT_NE(listed.out.find(name), std::string::npos) << listed.out;
  EXPECT_TRUE(HoldsNothingOf(listed.out + listed.err, key));
  EXPECT_TRUE(HoldsNothingOf(listed.out + listed.err, admin));

  Launched server(INDELIBLE_PATH,
                  {"serve", "--store", "file:" + data, "--listen", "127.0.0.1:0", "--auth",
                   "--roles-file", roles},
                  tmp.path().string());
  ASSERT_TRUE(server.Start()) << server.output();
  HttpClient http(server.port());
  EXPECT_EQ(http.Post("/streams/payments-1", EventJson("A"), Bearer(key)).status, 201u);
  EXPECT_EQ(http.Post("/streams/orders-1", EventJson("A"), Bearer(orders_key)).status, 201u);
  EXPECT_TRUE(IsRefusal(http.Post("/streams/payments-1", EventJson("A"), Bearer(orders_key)), 403));
  const HttpResponse keys = http.Get("/keys", Bearer(admin));
  ASSERT_EQ(keys.status, 200u) << keys.body;
  EXPECT_TRUE(HoldsNothingOf(keys.body, key));
  EXPECT_EQ(keys.body.find("hash"), std::string::npos) << keys.body;
  EXPECT_TRUE(IsRefusal(http.Get("/keys", Bearer(key)), 403));
}

TEST_F(AuthKeysTest, AKeyMadeOverHttpIsShownOnceAndWorks) {
  const HttpResponse made =
      http().Post("/keys", R"({"name":"svc","roles":["writer"]})", Bearer(admin()));
  ASSERT_EQ(made.status, 201u) << made.body;
  EXPECT_EQ(made.Header("Cache-Control"), "no-store");
  const json::object info = made.Json().as_object();
  const std::string key = StringOf(info, "key");
  EXPECT_EQ(StringOf(info, "id"), IdOf(key));
  EXPECT_EQ(Member(info, "roles"), R"(["writer"])");
  EXPECT_EQ(Member(info, "createdBy"), "\"key:bootstrap\"");
  EXPECT_EQ(http().Post("/streams/orders-1", EventJson("A"), Bearer(key)).status, 201u);
  const json::value whoami = http().Get("/auth/whoami", Bearer(key)).Json();
  EXPECT_EQ(Member(whoami, "principal"), "\"key:svc\"");
  EXPECT_EQ(Member(whoami, "roles"), R"(["writer"])");

  // Never again: not in the list, nor its hash.
  const HttpResponse keys = http().Get("/keys", Bearer(admin()));
  EXPECT_TRUE(HoldsNothingOf(keys.body, key));
  EXPECT_EQ(keys.body.find("hash"), std::string::npos) << keys.body;
  EXPECT_TRUE(HoldsNothingOf(keys.body, admin()));
  // Bad requests are 400 and make nothing.
  EXPECT_TRUE(IsError(http().Post("/keys", R"({"name":"x","roles":["root"]})", Bearer(admin())),
                      400, "invalid"));
  EXPECT_TRUE(
      IsError(http().Post("/keys", R"({"name":"bad name","roles":["reader"]})", Bearer(admin())),
              400, "invalid"));
  EXPECT_TRUE(IsError(http().Post("/keys", R"({"name":"svc","roles":["reader"]})", Bearer(admin())),
                      409, "conflict"));
  EXPECT_TRUE(
      IsError(http().Post("/keys", R"({"name":"x","roles":[]})", Bearer(admin())), 400, "invalid"));
  EXPECT_EQ(http().Get("/keys", Bearer(admin())).Json().at("keys").as_array().size(), 2u);
}

TEST_F(AuthKeysTest, ANonAdminWithTheKeysRightHandsOutOnlyItsOwnRoles) {
  const std::string manager = MakeKey("manager", {"key-manager"});
  const std::string before = Snapshot();
  for (const char* role : {"admin", "reader", "writer", "operator"})
    EXPECT_TRUE(
        IsRefusal(http().Post("/keys", std::string(R"({"name":"up","roles":[")") + role + "\"]}",
                              Bearer(manager)),
                  403))
        << role;
  EXPECT_TRUE(IsRefusal(
      http().Post("/keys", R"({"name":"up","roles":["key-manager","admin"]})", Bearer(manager)),
      403));
  EXPECT_EQ(Changes(before, Snapshot()), "");
  const HttpResponse same =
      http().Post("/keys", R"({"name":"peer","roles":["key-manager"]})", Bearer(manager));
  EXPECT_EQ(same.status, 201u) << same.body;
}

TEST_F(AuthKeysTest, TheCliTakesTheKeyFromAFileOrTheEnvironment) {
  // No credential: refused, and it says so.
  const CliOutcome anonymous = Cli("keys list");
  EXPECT_NE(anonymous.exit_code, 0);
  EXPECT_NE(anonymous.err.find("credential"), std::string::npos) << anonymous.err;

  const CliOutcome made = CliAsAdmin("keys create from-cli --role reader");
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const std::string key = made.out.substr(0, made.out.find('\n'));
  EXPECT_EQ(made.out, key + "\n");
  EXPECT_EQ(http().Get("/all", Bearer(key)).status, 200u);
  EXPECT_TRUE(IsRefusal(http().Post("/streams/orders-1", EventJson("A"), Bearer(key)), 403));

  const CliOutcome listed = RunCli("INDELIBLE_API_KEY=" + admin() + " " INDELIBLE_PATH,
                                   "--url " + server().url(), "keys list", "", scratch_);
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find("from-cli"), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("bootstrap"), std::string::npos) << listed.out;
  EXPECT_TRUE(HoldsNothingOf(listed.out, key));
  EXPECT_TRUE(HoldsNothingOf(listed.out, admin()));
  const CliOutcome json = CliAsAdmin("--json keys list");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_TRUE(HoldsNothingOf(json.out, key));
  EXPECT_EQ(json.out.find("hash"), std::string::npos) << json.out;

  // A reader's key cannot list keys.
  const CliOutcome reader = RunCli("INDELIBLE_API_KEY=" + key + " " INDELIBLE_PATH,
                                   "--url " + server().url(), "keys list", "", scratch_);
  EXPECT_NE(reader.exit_code, 0);
}

TEST_F(AuthKeysTest, ARevokedKeyIsRefusedAtOnce) {
  const std::string by_cli = MakeKey("by-cli", {"writer"});
  const std::string by_http = MakeKey("by-http", {"writer"});
  // Both in use, so the server holds them in its cache.
  ASSERT_EQ(http().Get("/all", Bearer(by_cli)).status, 200u);
  ASSERT_EQ(http().Get("/all", Bearer(by_http)).status, 200u);

  const CliOutcome revoked = CliAsAdmin("keys revoke by-cli");
  ASSERT_EQ(revoked.exit_code, 0) << revoked.err;
  EXPECT_NE(revoked.out.find(IdOf(by_cli)), std::string::npos) << revoked.out;
  EXPECT_TRUE(IsRefusal(http().Get("/all", Bearer(by_cli)), 401));

  const HttpResponse deleted = http().Delete("/keys/" + IdOf(by_http), Bearer(admin()));
  ASSERT_EQ(deleted.status, 200u) << deleted.body;
  EXPECT_EQ(Member(deleted.Json(), "revoked"), "true");
  EXPECT_TRUE(IsRefusal(http().Post("/streams/orders-1", EventJson("A"), Bearer(by_http)), 401));
  EXPECT_EQ(http().Get("/streams/orders-1", Bearer(admin())).status, 404u);

  EXPECT_TRUE(IsError(http().Delete("/keys/" + IdOf(by_http), Bearer(admin())), 404, "not_found"));
  EXPECT_TRUE(Listed("by-cli").empty());
  EXPECT_TRUE(Listed("by-http").empty());
  // A name is free again once its key is revoked.
  EXPECT_FALSE(MakeKey("by-cli", {"reader"}).empty());
}

TEST_F(AuthKeysTest, AKeyExpires) {
  // Lifetimes long enough for a sanitizer build on a loaded machine to ask
  // before they end (a CLI process and a few round trips).
  const CliOutcome made = CliAsAdmin("keys create short --role reader --expires-in 5s");
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const std::string by_cli = made.out.substr(0, made.out.find('\n'));
  const std::string by_http = MakeKey("shorter", {"reader"}, R"(,"expiresInSeconds":4)");
  for (const auto& [key, name] : {std::pair{by_http, "shorter"}, std::pair{by_cli, "short"}}) {
    // Before its time (and so in the cache): accepted.
    const std::int64_t asked = NowMs();
    const HttpResponse early = http().Get("/all", Bearer(key));
    const std::int64_t expires = IntOf(Listed(name), "expires");
    ASSERT_GT(expires, 0) << name;
    ASSERT_LT(asked, expires) << "too slow to ask with " << name << " before its expiry";
    EXPECT_EQ(early.status, 200u) << name << early.body;
  }
  for (const auto& [key, name] : {std::pair{by_cli, "short"}, std::pair{by_http, "shorter"}}) {
    const std::int64_t expires = IntOf(Listed(name), "expires");
    while (NowMs() <= expires + 20) std::this_thread::sleep_for(20ms);
    const HttpResponse late = http().Get("/all", Bearer(key));
    EXPECT_TRUE(IsRefusal(late, 401)) << name;
    EXPECT_NE(late.body.find("expired"), std::string::npos) << late.body;
  }
  EXPECT_NE(CliAsAdmin("keys create never --role reader --expires-in 0s").exit_code, 0);
  EXPECT_TRUE(
      IsError(http().Post("/keys", R"({"name":"n","roles":["reader"],"expiresInSeconds":0})",
                          Bearer(admin())),
              400, "invalid"));
}

TEST_F(AuthKeysTest, TheLastUseIsListed) {
  const std::string key = MakeKey("used", {"reader"});
  EXPECT_EQ(Member(Listed("used"), "lastUsed"), "null");
  const std::int64_t before = NowMs();
  ASSERT_EQ(http().Get("/all", Bearer(key)).status, 200u);
  json::object listed;
  for (int i = 0; i < 500; ++i) {
    listed = Listed("used");
    if (IntOf(listed, "lastUsed") > 0) break;
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_GE(IntOf(listed, "lastUsed"), before - 1000) << json::serialize(listed);
  EXPECT_LE(IntOf(listed, "lastUsed"), NowMs()) << json::serialize(listed);
  // The CLI shows it too.
  const CliOutcome text = CliAsAdmin("keys list");
  const std::string line = text.out.substr(text.out.find(IdOf(key)));
  EXPECT_EQ(line.substr(0, line.find('\n')).find("last used -"), std::string::npos) << text.out;
}

TEST_F(AuthKeysTest, AWrongSecretIsRefusedLikeAnUnknownKey) {
  const std::string key = MakeKey("mine", {"reader"});
  std::string wrong = key;
  wrong.back() = wrong.back() == 'A' ? 'B' : 'A';
  const std::string unknown_message =
      Member(http().Get("/all", Bearer(std::string(kUnknownKey))).Json(), "message");
  // Not yet read by the server, then read (cached), then revoked.
  const HttpResponse cold = http().Get("/all", Bearer(wrong));
  EXPECT_TRUE(IsRefusal(cold, 401));
  EXPECT_EQ(Member(cold.Json(), "message"), unknown_message);
  ASSERT_EQ(http().Get("/all", Bearer(key)).status, 200u);
  const HttpResponse warm = http().Get("/all", Bearer(wrong));
  EXPECT_TRUE(IsRefusal(warm, 401));
  EXPECT_EQ(Member(warm.Json(), "message"), unknown_message);
  ASSERT_EQ(http().Delete("/keys/mine", Bearer(admin())).status, 200u);
  EXPECT_EQ(Member(http().Get("/all", Bearer(key)).Json(), "message"), unknown_message);
  EXPECT_EQ(Member(http().Get("/all", Bearer(wrong)).Json(), "message"), unknown_message);
}

// --- The first admin key -----------------------------------------------------

TEST_F(AuthServerTest, TheBootstrapKeyFileIsMadePrivateAndNeverPrinted) {
  EXPECT_EQ(ModeOf(KeyFile()), 0600);
  const json::value whoami = http().Get("/auth/whoami", Bearer(admin())).Json();
  EXPECT_EQ(Member(whoami, "roles"), R"(["admin"])");
  EXPECT_TRUE(HoldsNothingOf(server().out() + server().err(), admin()));

  // Restarted with the same file: the same key, registered once.
  StartAuth();
  EXPECT_EQ(http().Get("/keys", Bearer(admin())).status, 200u);
  EXPECT_TRUE(HoldsNothingOf(server().out() + server().err(), admin()));
  const json::value keys = http().Get("/keys", Bearer(admin())).Json();
  ASSERT_EQ(keys.at("keys").as_array().size(), 1u) << json::serialize(keys);
  EXPECT_EQ(Member(keys.at("keys").as_array()[0], "name"), "\"bootstrap\"");
}

TEST_F(AuthServerTest, ABootstrapKeyFileOthersMayReadStopsTheServer) {
  ASSERT_EQ(::chmod(KeyFile().c_str(), 0644), 0);
  server_.reset();
  Launched refused(INDELIBLE_PATH,
                   {"serve", "--store", "file:" + Data(), "--listen", "127.0.0.1:0", "--auth",
                    "--bootstrap-key-file", KeyFile()},
                   tmp_.path().string());
  EXPECT_FALSE(refused.Start());
  ASSERT_TRUE(refused.Exited(10s));
  EXPECT_NE(refused.exit_code(), 0);
  EXPECT_NE(refused.err().find("chmod 600"), std::string::npos) << refused.output();
  EXPECT_TRUE(HoldsNothingOf(refused.out() + refused.err(), admin()));
}

TEST(AuthBootstrap, AKeyInTheEnvironmentBecomesAnAdminKey) {
  testutil::TempDir tmp;
  // A key made elsewhere (another store), as `keys create` prints it.
  const CliOutcome made = RunCli(INDELIBLE_PATH, "--data " + tmp.Sub("other"),
                                 "keys create ops --role reader", "", tmp);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const std::string key = made.out.substr(0, made.out.find('\n'));
  const std::vector<std::string> args = {"serve",    "--store",     "file:" + tmp.Sub("data"),
                                         "--listen", "127.0.0.1:0", "--auth"};
  for (int start = 0; start < 2; ++start) {  // registered, then found registered
    Launched server(INDELIBLE_PATH, args, tmp.path().string(), {"INDELIBLE_BOOTSTRAP_KEY=" + key});
    ASSERT_TRUE(server.Start()) << server.output();
    HttpClient http(server.port());
    const json::value whoami = http.Get("/auth/whoami", Bearer(key)).Json();
    EXPECT_EQ(Member(whoami, "roles"), R"(["admin"])") << json::serialize(whoami);
    EXPECT_EQ(http.Get("/keys", Bearer(key)).status, 200u);
    EXPECT_TRUE(HoldsNothingOf(server.out() + server.err(), key));
    // The kernel shows the environment the process started with, not what
    // unsetenv left: the server blanks the value there too.
    const std::string environment =
        testutil::Slurp("/proc/" + std::to_string(server.pid()) + "/environ");
    EXPECT_NE(environment.find("INDELIBLE_BOOTSTRAP_KEY="), std::string::npos)
        << "the test did not read the server's environment";
    EXPECT_TRUE(HoldsNothingOf(environment, key)) << "the key is readable in /proc/PID/environ";
  }
  // Without it, the key is still registered (it is a store record) ...
  {
    Launched server(INDELIBLE_PATH, args, tmp.path().string(), {"INDELIBLE_BOOTSTRAP_KEY"});
    ASSERT_TRUE(server.Start()) << server.output();
    EXPECT_EQ(HttpClient(server.port()).Get("/keys", Bearer(key)).status, 200u);
  }
  // ... and a value that is not a key stops the server, naming the variable.
  Launched bad(INDELIBLE_PATH, args, tmp.path().string(), {"INDELIBLE_BOOTSTRAP_KEY=hunter2"});
  EXPECT_FALSE(bad.Start());
  ASSERT_TRUE(bad.Exited(10s));
  EXPECT_NE(bad.exit_code(), 0);
  EXPECT_NE(bad.err().find("INDELIBLE_BOOTSTRAP_KEY"), std::string::npos) << bad.output();
  EXPECT_EQ(bad.err().find("hunter2"), std::string::npos) << bad.output();
}

// --- Found by these tests, fixed ---------------------------------------------

// "A non-admin holding keys may only hand out roles it holds, so the keys
// right never raises anyone above their own": but it may revoke any key,
// the admin's (even the bootstrap key) included, and so lock the admins out.
TEST_F(AuthKeysTest, AKeyManagerMayNotRevokeAnAdminsKey) {
  const std::string manager = MakeKey("manager", {"key-manager"});
  const HttpResponse revoked = http().Delete("/keys/bootstrap", Bearer(manager));
  EXPECT_TRUE(IsRefusal(revoked, 403)) << "a key-manager revoked the admin's key: " << revoked.body;
  EXPECT_EQ(http().Get("/keys", Bearer(admin())).status, 200u) << "the admin is locked out";
}

// A revoked bootstrap key is registered again by the next start with the
// same --bootstrap-key-file: a revocation of a leaked admin key is undone
// by a restart, silently.
TEST_F(AuthServerTest, ARevokedBootstrapKeyStaysRevokedOnRestart) {
  const std::string other = MakeKey("second-admin", {"admin"});
  ASSERT_EQ(http().Delete("/keys/bootstrap", Bearer(other)).status, 200u);
  ASSERT_TRUE(IsRefusal(http().Get("/keys", Bearer(admin())), 401));
  server_.reset();
  Launched restarted(INDELIBLE_PATH,
                     {"serve", "--store", "file:" + Data(), "--listen", "127.0.0.1:0", "--auth",
                      "--bootstrap-key-file", KeyFile()},
                     tmp_.path().string());
  if (!restarted.Start()) {
    // Refusing to start (naming the revoked key) would be a fix too.
    EXPECT_FALSE(restarted.err().empty()) << restarted.output();
    return;
  }
  HttpClient http(restarted.port());
  EXPECT_TRUE(IsRefusal(http.Get("/keys", Bearer(admin())), 401))
      << "the revoked bootstrap key works again after a restart";
}

// --- Secure defaults ---------------------------------------------------------

class SecureDefaultsTest : public ::testing::Test {
 protected:
  std::unique_ptr<Launched> Serve(const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"serve", "--store", "file:" + tmp_.Sub("data")};
    args.insert(args.end(), extra.begin(), extra.end());
    return std::make_unique<Launched>(INDELIBLE_PATH, args, tmp_.path().string());
  }
  testutil::TempDir tmp_;
};

TEST_F(SecureDefaultsTest, BeyondLoopbackPlainHttpNeedsInsecure) {
  for (const auto& extra : {std::vector<std::string>{"--listen", "0.0.0.0:0"},
                            std::vector<std::string>{"--listen", "0.0.0.0:0", "--auth"}}) {
    auto server = Serve(extra);
    EXPECT_FALSE(server->Start());
    ASSERT_TRUE(server->Exited(10s));
    EXPECT_NE(server->exit_code(), 0);
    EXPECT_NE(server->err().find("--tls-cert"), std::string::npos) << server->output();
    EXPECT_NE(server->err().find("--insecure"), std::string::npos) << server->output();
  }
}

TEST_F(SecureDefaultsTest, InsecureIsLoudAndOpen) {
  auto server = Serve({"--listen", "0.0.0.0:0", "--insecure"});
  ASSERT_TRUE(server->Start()) << server->output();
  EXPECT_NE(server->err().find("WARNING"), std::string::npos) << server->output();
  HttpClient http(server->port());
  EXPECT_EQ(http.Post("/streams/orders-1", EventJson("A")).status, 201u);
  EXPECT_EQ(http.Get("/streams/orders-1").status, 200u);
}

TEST_F(SecureDefaultsTest, InsecureWithAuthStillNeedsCredentials) {
  auto server = Serve({"--listen", "0.0.0.0:0", "--insecure", "--auth", "--bootstrap-key-file",
                       tmp_.Sub("admin.key")});
  ASSERT_TRUE(server->Start()) << server->output();
  EXPECT_NE(server->err().find("WARNING"), std::string::npos) << server->output();
  HttpClient http(server->port());
  EXPECT_TRUE(IsRefusal(http.Post("/streams/orders-1", EventJson("A")), 401));
  EXPECT_TRUE(IsRefusal(http.Get("/all"), 401));
  EXPECT_EQ(http.Get("/health").status, 200u);
  std::string admin;
  std::getline(std::ifstream(tmp_.Sub("admin.key")), admin);
  EXPECT_EQ(http.Post("/streams/orders-1", EventJson("A"), Bearer(admin)).status, 201u);
}

TEST_F(SecureDefaultsTest, OnLoopbackNothingIsNeeded) {
  auto server = Serve({"--listen", "127.0.0.1:0"});
  ASSERT_TRUE(server->Start()) << server->output();
  EXPECT_EQ(server->err().find("WARNING"), std::string::npos) << server->output();
  HttpClient http(server->port());
  EXPECT_EQ(http.Post("/streams/orders-1", EventJson("A")).status, 201u);
  EXPECT_EQ(http.Delete("/streams/orders-1").status, 200u);
  EXPECT_EQ(http.Get("/metrics").status, 200u);
  EXPECT_EQ(http.Get("/keys").status, 200u);
  EXPECT_EQ(Member(http.Get("/auth/whoami").Json(), "authentication"), "false");
}

// --- /metrics ----------------------------------------------------------------

TEST_F(AuthServerTest, MetricsNeedTheMetricsRightAndCountPrincipals) {
  const std::string writer = MakeKey("w", {"writer"});
  const std::string analyst = MakeKey("a", {"analyst"});
  const std::string operator_key = MakeKey("o", {"operator"});
  EXPECT_TRUE(IsRefusal(http().Get("/metrics", Bearer(writer)), 403));
  EXPECT_TRUE(IsRefusal(http().Get("/metrics"), 401));
  EXPECT_EQ(http().Get("/metrics", Bearer(analyst)).status, 200u);
  EXPECT_EQ(http().Get("/metrics", Bearer(operator_key)).status, 200u);

  const auto metrics = [&] { return "\n" + http().Get("/metrics", Bearer(admin())).body; };
  const std::string requests = R"(indelible_principal_requests_total{principal="key:w"})";
  const std::string denials = R"(indelible_principal_denials_total{principal="key:w"})";
  const std::string failures = "indelible_auth_failures_total";
  const std::string before = metrics();
  ASSERT_GE(Sample(before, requests), 1) << before;  // the refused /metrics
  ASSERT_GE(Sample(before, failures), 1) << before;
  for (int i = 0; i < 3; ++i)
    ASSERT_EQ(http().Post("/streams/orders-1", EventJson("A"), Bearer(writer)).status, 201u);
  for (int i = 0; i < 2; ++i) ASSERT_EQ(http().Get("/keys", Bearer(writer)).status, 403u);
  for (int i = 0; i < 4; ++i) ASSERT_EQ(http().Get("/all", Bearer("idl_nope")).status, 401u);
  const std::string after = metrics();
  EXPECT_EQ(Sample(after, requests) - Sample(before, requests), 5) << after;
  EXPECT_EQ(Sample(after, denials) - Sample(before, denials), 2) << after;
  EXPECT_EQ(Sample(after, failures) - Sample(before, failures), 4) << after;
}

TEST_F(AuthServerTest, MetricsOpenNeedsNoCredentials) {
  StartAuth({"--metrics-open"});
  const HttpResponse open = http().Get("/metrics");
  EXPECT_EQ(open.status, 200u) << open.body;
  EXPECT_NE(open.body.find("indelible_auth_failures_total"), std::string::npos);
  EXPECT_TRUE(IsRefusal(http().Get("/all"), 401)) << "only /metrics is open";
}

}  // namespace
}  // namespace indelible

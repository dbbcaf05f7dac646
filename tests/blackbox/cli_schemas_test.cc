// `indelible schemas ...`, --raw and export/import of the registry, end to
// end: the real binary in subprocesses, against a data folder and against
// the real `indelible serve` (docs/SCHEMAS.md, docs/CLI.md). The same
// commands must answer the same on both.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "testutil/cli_runner.h"
#include "testutil/server_process.h"
#include "testutil/temp_dir.h"

namespace indelible {
namespace {

namespace json = boost::json;
using Outcome = testutil::CliOutcome;
using testutil::Slurp;

constexpr const char* kV1 =
    R"({"type":"object","properties":{"amount":{"type":"number"}},"required":["amount"],)"
    R"("additionalProperties":false})";
// V1 plus an optional currency: backward compatible (V1 allowed no other
// property, so no V1 event has a currency V2 could refuse).
constexpr const char* kV2 =
    R"({"type":"object","properties":{"amount":{"type":"number"},"currency":{"type":"string"}},)"
    R"("required":["amount"],"additionalProperties":false})";
// Requires a field V1 did not have: breaks backward.
constexpr const char* kBreaking =
    R"({"type":"object","properties":{"amount":{"type":"number"},"sku":{"type":"string"}},)"
    R"("required":["amount","sku"],"additionalProperties":false})";
constexpr const char* kUpcaster = R"({"defaults":{"/currency":"EUR"}})";

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class CliSchemasTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (remote()) {
      server_ = std::make_unique<testutil::ServerProcess>(
          INDELIBLE_PATH, std::vector<std::string>{"serve", "--store", "file:" + Data()});
      ASSERT_TRUE(server_->Start()) << "the server did not start: " << server_->output();
    }
  }

  bool remote() const { return GetParam(); }
  std::string Data() const { return tmp_.Sub("data"); }
  std::string Target() const { return remote() ? "--url " + server_->url() : "--data " + Data(); }
  // `indelible <target> <args>`, args quoted by the caller, `input` on stdin.
  Outcome Cli(const std::string& args, const std::string& input = "") {
    return testutil::RunCli(INDELIBLE_PATH, Target(), args, input, tmp_);
  }
  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(tmp_.Sub(name)) << text;
    return tmp_.Sub(name);
  }
  // `indelible tail ...` until it printed a line (or 30 s), then SIGTERM.
  std::string Tail(const std::string& args) {
    const std::string out = tmp_.Sub("tail.out");
    std::string command = "exec " + std::string(INDELIBLE_PATH) + " " + Target() + " " + args +
                          " >" + out + " 2>&1 </dev/null";
    std::remove(out.c_str());
    char* argv[] = {const_cast<char*>("sh"), const_cast<char*>("-c"), command.data(), nullptr};
    pid_t pid = 0;
    if (::posix_spawn(&pid, "/bin/sh", nullptr, nullptr, argv, environ) != 0) return "no tail";
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (Slurp(out).find('\n') == std::string::npos &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ::kill(pid, SIGTERM);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return Slurp(out);
  }
  // Order.Placed V1 and V2 with the V1 -> V2 upcaster, and one V1 event.
  void RegisterOrdersAndAppendOne() {
    Outcome v1 = Cli("schemas register Order.Placed V1 " + Write("v1.json", kV1));
    ASSERT_EQ(v1.exit_code, 0) << v1.err;
    Outcome old = Cli("append order-1 --file -",
                      R"([{"type":"Order.Placed","schema":"V1","data":{"amount":5}}])");
    ASSERT_EQ(old.exit_code, 0) << old.err;
    Outcome v2 = Cli("schemas register Order.Placed V2 -", kV2);
    ASSERT_EQ(v2.exit_code, 0) << v2.err;
    Outcome up = Cli("schemas upcaster Order.Placed V1 V2 " + Write("up.json", kUpcaster));
    ASSERT_EQ(up.exit_code, 0) << up.err;
  }

  testutil::TempDir tmp_;
  std::unique_ptr<testutil::ServerProcess> server_;
};

TEST_P(CliSchemasTest, RegisterIsIdempotentAndRefusesAnotherSchemaUnderATakenLabel) {
  Outcome first = Cli("schemas register Order.Placed V1 " + Write("v1.json", kV1));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.out, "registered Order.Placed V1 (version number 1)\n");
  Outcome again = Cli("--json schemas register Order.Placed V1 -", kV1);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  json::object doc = json::parse(again.out).as_object();
  EXPECT_EQ(doc.at("created").as_bool(), false);
  EXPECT_EQ(doc.at("number").to_number<int>(), 1);
  EXPECT_EQ(doc.at("schema"), json::parse(kV1));

  Outcome taken = Cli("schemas register Order.Placed V1 -", kV2);
  EXPECT_EQ(taken.exit_code, 4) << taken.out << taken.err;
  Outcome not_json = Cli("schemas register Order.Placed V9 -", "{nope");
  EXPECT_EQ(not_json.exit_code, 2);
  EXPECT_TRUE(Has(not_json.err, "stdin is not JSON")) << not_json.err;
  Outcome missing = Cli("schemas register Order.Placed V9 " + tmp_.Sub("no-such-file"));
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_TRUE(Has(missing.err, "no-such-file")) << missing.err;
  // Nothing of the refused ones was registered.
  Outcome show = Cli("--json schemas show Order.Placed");
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_EQ(json::parse(show.out).at("versions").as_array().size(), 1u) << show.out;
}

TEST_P(CliSchemasTest, CheckIsADryRunThatAnswersWithItsExitCode) {
  ASSERT_EQ(Cli("schemas register Order.Placed V1 -", kV1).exit_code, 0);
  Outcome compatible = Cli("schemas check Order.Placed -", kV2);
  EXPECT_EQ(compatible.exit_code, 0) << compatible.out << compatible.err;
  EXPECT_TRUE(Has(compatible.out, "compatible")) << compatible.out;
  Outcome breaking = Cli("schemas check Order.Placed " + Write("b.json", kBreaking));
  EXPECT_EQ(breaking.exit_code, 1) << breaking.err;
  EXPECT_TRUE(Has(breaking.out, "incompatible: ")) << breaking.out;
  EXPECT_TRUE(Has(breaking.out, "V1")) << breaking.out;  // the reason names the version
  Outcome as_json = Cli("--json schemas check Order.Placed -", kBreaking);
  EXPECT_EQ(as_json.exit_code, 1);
  EXPECT_EQ(json::parse(as_json.out).at("compatible").as_bool(), false) << as_json.out;
  EXPECT_FALSE(json::parse(as_json.out).at("reason").as_string().empty());
  // A dry run: the registry still has V1 only, and the breaking schema is
  // refused by register too (rejected: 6).
  EXPECT_EQ(
      json::parse(Cli("--json schemas show Order.Placed").out).at("versions").as_array().size(),
      1u);
  EXPECT_EQ(Cli("schemas register Order.Placed V2 -", kBreaking).exit_code, 6);
}

TEST_P(CliSchemasTest, SettingsListAndShowInTextAndJson) {
  RegisterOrdersAndAppendOne();
  Outcome type = Cli("schemas settings --type Order.Placed --mode enforce");
  ASSERT_EQ(type.exit_code, 0) << type.err;
  EXPECT_EQ(type.out, "type Order.Placed: mode enforce\n");
  Outcome category = Cli("--json schemas settings --category order --mode warn");
  ASSERT_EQ(category.exit_code, 0) << category.err;
  EXPECT_EQ(category.out, "{\"mode\":\"warn\"}\n");
  ASSERT_EQ(Cli("schemas settings --default --compatibility full").exit_code, 0);
  // Reading them back: no --mode/--compatibility shows what is set.
  EXPECT_EQ(Cli("schemas settings --default").out, "default: compatibility full\n");
  EXPECT_EQ(Cli("schemas settings --type Order.Placed --category order").exit_code, 2);
  EXPECT_EQ(Cli("schemas settings --mode warn").exit_code, 2);
  EXPECT_EQ(Cli("schemas settings --default --mode loud").exit_code, 2);

  Outcome list = Cli("schemas list");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_TRUE(Has(list.out, "TYPE          VERSIONS  MODE     COMPATIBILITY  UPCASTERS\n"))
      << list.out;
  EXPECT_TRUE(Has(list.out, "Order.Placed  V1,V2     enforce  -              1\n")) << list.out;
  EXPECT_TRUE(Has(list.out, "category order: mode warn\n")) << list.out;
  EXPECT_TRUE(Has(list.out, "default: mode off, compatibility full\n")) << list.out;
  Outcome listed = Cli("--json schemas list");
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  json::value doc = json::parse(listed.out);
  ASSERT_EQ(doc.at("types").as_array().size(), 1u);
  const json::value& orders = doc.at("types").at(0);
  EXPECT_EQ(orders.at("type"), "Order.Placed");
  EXPECT_EQ(orders.at("versions").as_array().size(), 2u);
  EXPECT_EQ(orders.at("settings"), json::parse(R"({"mode":"enforce"})"));
  EXPECT_EQ(orders.at("upcasters").at(0).at("defaults"), json::parse(R"({"/currency":"EUR"})"));
  EXPECT_EQ(doc.at("categories"), json::parse(R"({"order":{"mode":"warn"}})"));
  EXPECT_EQ(doc.at("default"), json::parse(R"({"compatibility":"full"})"));

  Outcome show = Cli("schemas show Order.Placed");
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_TRUE(Has(show.out, "Order.Placed: mode enforce\n")) << show.out;
  EXPECT_TRUE(Has(show.out, "  1 V1 registered ")) << show.out;
  EXPECT_TRUE(Has(show.out, "  2 V2 registered ")) << show.out;
  EXPECT_TRUE(Has(show.out, "  V1 -> V2 renames {} defaults {\"/currency\":\"EUR\"} patch []\n"))
      << show.out;
  Outcome schema = Cli("schemas show Order.Placed V2");
  ASSERT_EQ(schema.exit_code, 0) << schema.err;
  EXPECT_EQ(json::parse(schema.out), json::parse(kV2));
  EXPECT_TRUE(Has(schema.out, "\n    \"currency\": {\n      \"type\": \"string\"\n    }"))
      << schema.out;  // pretty-printed
  Outcome version = Cli("--json schemas show Order.Placed V1");
  EXPECT_EQ(json::parse(version.out).at("number").to_number<int>(), 1) << version.out;
  EXPECT_EQ(Cli("schemas show Nope").exit_code, 3);
  Outcome no_version = Cli("schemas show Order.Placed V7");
  EXPECT_EQ(no_version.exit_code, 3);
  EXPECT_TRUE(Has(no_version.err, "no version 'V7'")) << no_version.err;
}

TEST_P(CliSchemasTest, UpcasterAndValidate) {
  ASSERT_EQ(Cli("schemas register Order.Placed V1 -", kV1).exit_code, 0);
  ASSERT_EQ(Cli("schemas register Order.Placed V2 -", kV2).exit_code, 0);
  Outcome unknown_field = Cli("schemas upcaster Order.Placed V1 V2 -", R"({"rename":{}})");
  EXPECT_EQ(unknown_field.exit_code, 2);
  EXPECT_TRUE(Has(unknown_field.err, "unknown field 'rename'")) << unknown_field.err;
  EXPECT_EQ(Cli("schemas upcaster Order.Placed V1 V2 -", R"({"patch":{}})").exit_code, 2);
  // V1 -> V9: no such next version.
  EXPECT_EQ(Cli("schemas upcaster Order.Placed V1 V9 -", kUpcaster).exit_code, 2);
  Outcome added = Cli("schemas upcaster Order.Placed V1 V2 -", kUpcaster);
  ASSERT_EQ(added.exit_code, 0) << added.err;
  EXPECT_EQ(added.out, "upcaster Order.Placed V1 -> V2 added\n");

  Outcome valid = Cli("schemas validate Order.Placed -", R"({"amount":5,"currency":"EUR"})");
  EXPECT_EQ(valid.exit_code, 0) << valid.out << valid.err;
  EXPECT_EQ(valid.out, "valid: Order.Placed V2\n");
  Outcome invalid = Cli("schemas validate Order.Placed --version V1 -", R"({"amount":"five"})");
  EXPECT_EQ(invalid.exit_code, 1) << invalid.err;
  EXPECT_TRUE(Has(invalid.out, "not valid: ")) << invalid.out;
  EXPECT_TRUE(Has(invalid.out, "/amount")) << invalid.out;
  Outcome as_json = Cli("--json schemas validate Order.Placed -", R"({"currency":"EUR"})");
  EXPECT_EQ(as_json.exit_code, 1) << as_json.err;
  EXPECT_EQ(json::parse(as_json.out).at("valid").as_bool(), false) << as_json.out;
  EXPECT_EQ(Cli("schemas validate Nope -", "{}").exit_code, 3);
  EXPECT_EQ(Cli("schemas validate Order.Placed --version V7 -", "{}").exit_code, 3);
  EXPECT_EQ(Cli("schemas validate Order.Placed -", "{nope").exit_code, 2);
}

TEST_P(CliSchemasTest, ReadsUpcastAndRawReadsDoNot) {
  RegisterOrdersAndAppendOne();
  // (all --type: $all holds the registry's own events too, which name currency.)
  for (const std::string verb : {"read order-1", "all --type Order.Placed"}) {
    Outcome upcast = Cli("--json " + verb);
    ASSERT_EQ(upcast.exit_code, 0) << verb << ": " << upcast.err;
    EXPECT_TRUE(Has(upcast.out, "\"schema\":\"V2\"")) << verb << ": " << upcast.out;
    EXPECT_TRUE(Has(upcast.out, "\"currency\":\"EUR\"")) << verb << ": " << upcast.out;
    Outcome raw = Cli("--json " + verb + " --raw");
    ASSERT_EQ(raw.exit_code, 0) << verb << ": " << raw.err;
    EXPECT_TRUE(Has(raw.out, "\"schema\":\"V1\",\"data\":{\"amount\":5}")) << verb << raw.out;
    EXPECT_FALSE(Has(raw.out, "currency")) << verb << ": " << raw.out;
  }
  const std::string tail = Tail("--json tail order-1 --from 0");
  EXPECT_TRUE(Has(tail, "\"currency\":\"EUR\"")) << tail;
  const std::string raw_tail = Tail("--json tail order-1 --from 0 --raw");
  EXPECT_TRUE(Has(raw_tail, "\"data\":{\"amount\":5}")) << raw_tail;
  EXPECT_FALSE(Has(raw_tail, "currency")) << raw_tail;
}

// An export keeps the stored bytes and $schemas; importing it into a new
// folder gives the same store back, even where enforce would now refuse an
// old event (an export's events were checked when first written).
TEST_P(CliSchemasTest, ExportImportKeepsTheRegistryAndTheRawEvents) {
  RegisterOrdersAndAppendOne();
  ASSERT_EQ(Cli("append order-2 --file -",
                R"([{"type":"Order.Placed","schema":"V1","data":{"amount":"five"}}])")
                .exit_code,
            0);
  ASSERT_EQ(Cli("schemas settings --type Order.Placed --mode enforce").exit_code, 0);
  // enforce would refuse that event now...
  EXPECT_EQ(Cli("schemas validate Order.Placed --version V1 -", R"({"amount":"five"})").exit_code,
            1);
  if (remote()) {
    Outcome refused = Cli("append order-3 --file -",
                          R"([{"type":"Order.Placed","schema":"V1","data":{"amount":"five"}}])");
    EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  }
  Outcome exported = Cli("export --out " + tmp_.Sub("export.jsonl"));
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const std::string original = Slurp(tmp_.Sub("export.jsonl"));
  EXPECT_TRUE(Has(original, "\"stream\":\"$schemas\"")) << original;
  EXPECT_TRUE(Has(original, "\"schema\":\"V1\",\"data\":{\"amount\":5}")) << original;
  std::istringstream lines(original);
  for (std::string line; std::getline(lines, line);) {
    if (Has(line, "\"stream\":\"order-")) {
      EXPECT_FALSE(Has(line, "currency")) << line;  // raw
    }
  }
  const std::string list = Cli("--json schemas list").out;

  // ... but not in the import, which writes the store as it was.
  const std::string copy = "--data " + tmp_.Sub("copy");
  auto in_copy = [&](const std::string& args) {
    return testutil::RunCli(INDELIBLE_PATH, copy, args, "", tmp_);
  };
  Outcome imported = in_copy("import --in " + tmp_.Sub("export.jsonl"));
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_EQ(in_copy("import --in " + tmp_.Sub("export.jsonl")).exit_code, 0);  // idempotent
  Outcome again = in_copy("export");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, original);  // ids, positions, timestamps, bytes; $schemas too
  EXPECT_EQ(in_copy("--json schemas list").out, list);
  Outcome upcast = in_copy("--json read order-1");
  EXPECT_TRUE(Has(upcast.out, "\"currency\":\"EUR\"")) << upcast.out;
  EXPECT_EQ(in_copy("check").exit_code, 0);

  // Through a server the registry cannot be imported: it says what to do.
  if (remote()) {
    testutil::TempDir other;
    testutil::ServerProcess fresh(INDELIBLE_PATH, {"serve", "--store", "file:" + other.Sub("d")});
    ASSERT_TRUE(fresh.Start()) << fresh.output();
    Outcome through = testutil::RunCli(INDELIBLE_PATH, "--url " + fresh.url(),
                                       "import --in " + tmp_.Sub("export.jsonl"), "", tmp_);
    EXPECT_EQ(through.exit_code, 2);
    EXPECT_TRUE(Has(through.err, "import with --data")) << through.err;
  }
}

INSTANTIATE_TEST_SUITE_P(DataAndServer, CliSchemasTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& param) {
                           return param.param ? "Server" : "DataFolder";
                         });

}  // namespace
}  // namespace indelible

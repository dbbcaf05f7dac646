// The official JSON-Schema-Test-Suite (Debian's json-schema-test-suite)
// through JsonSchema: every file of tests/draft4 and tests/draft7, optional/
// included. Each case's schema is compiled with the draft of its folder
// (draft4's files name no "$schema") and remote refs served from the
// suite's remotes/ folder, as its README asks of a runner.
//
// Prints, per draft, files, cases, passed and failed for the required
// tests, the optional ones and the optional format ones (valijson checks
// only date, time and date-time), and names the first 50 failures. Fails
// when a draft's required pass count drops below its floor.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "schemas/json_schema.h"
#include "schemas/json_schema_testing.h"

namespace indelible::schemas {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// Measured with valijson 1.0 (Debian 1.0+repack-2) and the suite 2.0.0:
//   draft4 required: files 28, cases 320, passed 307, failed 13
//   draft4 optional: files 3, cases 11, passed 8, failed 3
//   draft4 optional format: files 1, cases 43, passed 26, failed 17
//   draft7 required: files 35, cases 423, passed 408, failed 15
//   draft7 optional: files 4, cases 21, passed 13, failed 8
//   draft7 optional format: files 17, cases 122, passed 78, failed 44
// The required failures all fail to compile: refs to the metaschema
// (http://json-schema.org/draft-0N/schema, not served here) and ids as base
// URIs, which valijson 1.0 resolves its own way ("$id" it ignores). A pass
// count below these floors is a regression.
constexpr int kDraft4RequiredFloor = 307;
constexpr int kDraft7RequiredFloor = 408;

std::optional<std::string> ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Tally {
  int files = 0;
  int cases = 0;
  int passed = 0;
  int failed = 0;
};

struct DraftReport {
  Tally required;
  Tally optional;
  Tally format;  // optional format tests: reported, never held to a floor
  std::vector<std::string> failures;
};

// Runs one file of the suite into `tally`, naming its failures.
void RunFile(const fs::path& file, const std::string& name, const testing::CompileOptions& options,
             Tally& tally, std::vector<std::string>& failures) {
  auto text = ReadFile(file);
  ASSERT_TRUE(text) << file;
  const Json groups = Json::parse(*text);
  ++tally.files;
  for (const Json& group : groups) {
    const std::string where = name + ": " + group.at("description").get<std::string>();
    auto compiled = testing::CompileWithOptions(group.at("schema").dump(), options);
    for (const Json& test : group.at("tests")) {
      ++tally.cases;
      const std::string label = where + " / " + test.at("description").get<std::string>();
      if (!compiled.ok()) {
        ++tally.failed;
        failures.push_back(label + " (does not compile: " + compiled.status().message() + ")");
        continue;
      }
      auto failure = (*compiled)->Validate(test.at("data").dump());
      const bool expected_valid = test.at("valid").get<bool>();
      if (failure.has_value() != expected_valid) {
        ++tally.passed;
      } else {
        ++tally.failed;
        failures.push_back(label + (expected_valid ? " (refused at '" + failure->pointer +
                                                         "': " + failure->rule + ")"
                                                   : " (accepted)"));
      }
    }
  }
}

DraftReport RunDraft(const fs::path& suite, const std::string& draft,
                     std::string_view default_draft) {
  const fs::path remotes = suite / "remotes";
  testing::CompileOptions options;
  options.default_draft = default_draft;
  options.fetch = [remotes](const std::string& uri) -> std::optional<std::string> {
    constexpr std::string_view kRemote = "http://localhost:1234/";
    if (!uri.starts_with(kRemote)) return std::nullopt;
    return ReadFile(remotes / uri.substr(kRemote.size()));
  };

  const fs::path folder = suite / "tests" / draft;
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(folder)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry);
  }
  std::sort(files.begin(), files.end());

  DraftReport report;
  for (const fs::path& file : files) {
    const std::string name = fs::relative(file, folder).generic_string();
    Tally* tally = &report.required;
    if (name.starts_with("optional/")) {
      tally = name.starts_with("optional/format") ? &report.format : &report.optional;
    }
    RunFile(file, name, options, *tally, report.failures);
  }
  return report;
}

void Print(const std::string& draft, const DraftReport& report) {
  auto line = [&](std::string_view what, const Tally& t) {
    std::cout << draft << " " << what << ": files " << t.files << ", cases " << t.cases
              << ", passed " << t.passed << ", failed " << t.failed << "\n";
  };
  line("required", report.required);
  line("optional", report.optional);
  line("optional format", report.format);
  const std::size_t shown = std::min<std::size_t>(report.failures.size(), 50);
  std::cout << draft << " failures (first " << shown << " of " << report.failures.size() << "):\n";
  for (std::size_t i = 0; i < shown; ++i) std::cout << "  " << report.failures[i] << "\n";
}

fs::path SuiteFolder() {
  if (const char* folder = std::getenv("INDELIBLE_JSON_SCHEMA_TEST_SUITE")) return folder;
  return INDELIBLE_JSON_SCHEMA_TEST_SUITE;
}

TEST(JsonSchemaSuite, Draft4) {
  const fs::path suite = SuiteFolder();
  // Never a skip: without the suite this test has not tested anything.
  ASSERT_TRUE(fs::is_directory(suite / "tests" / "draft4"))
      << suite << " has no tests/draft4: install json-schema-test-suite";
  const DraftReport report = RunDraft(suite, "draft4", "draft-04");
  Print("draft4", report);
  EXPECT_GT(report.required.files, 20);
  EXPECT_GE(report.required.passed, kDraft4RequiredFloor);
}

TEST(JsonSchemaSuite, Draft7) {
  const fs::path suite = SuiteFolder();
  ASSERT_TRUE(fs::is_directory(suite / "tests" / "draft7"))
      << suite << " has no tests/draft7: install json-schema-test-suite";
  const DraftReport report = RunDraft(suite, "draft7", "draft-07");
  Print("draft7", report);
  EXPECT_GT(report.required.files, 30);
  EXPECT_GE(report.required.passed, kDraft7RequiredFloor);
}

}  // namespace
}  // namespace indelible::schemas

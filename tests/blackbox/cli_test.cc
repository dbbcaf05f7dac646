// The indelible CLI end to end: the real binary in a subprocess, on a fresh
// data folder per test.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "testutil/cli_runner.h"
#include "testutil/dynamodb_server.h"
#include "testutil/temp_dir.h"

namespace indelible {
namespace {

using Outcome = testutil::CliOutcome;
using testutil::Slurp;

class CliTest : public ::testing::Test {
 protected:
  // Runs `indelible --data DIR <args>` through the shell (args are quoted by
  // the caller), feeding `input` on stdin.
  Outcome Cli(const std::string& args, const std::string& input = "") {
    return testutil::RunCli(INDELIBLE_PATH, "--data " + Data(), args, input, tmp_);
  }
  std::string Data() const { return tmp_.Sub("data"); }
  std::string File(const std::string& name) const { return tmp_.Sub(name); }

  testutil::TempDir tmp_;
};

TEST_F(CliTest, AppendReadHeadAllAndDeleteInTextAndJson) {
  Outcome a = Cli("append acc-1 --type Deposited --data '{\"amount\":5}' --expected no_stream");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_NE(a.out.find("versions 0..0 at position 1"), std::string::npos) << a.out;
  Outcome b = Cli("--json append acc-1 --type Deposited --data '{\"amount\":7}' --expected 0");
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(b.out, "{\"stream\":\"acc-1\",\"firstVersion\":1,\"lastVersion\":1,\"position\":2}\n");

  Outcome read = Cli("read acc-1");
  ASSERT_EQ(read.exit_code, 0) << read.err;
  EXPECT_EQ(read.out, "#1 acc-1@0 Deposited {\"amount\":5}\n#2 acc-1@1 Deposited {\"amount\":7}\n");
  Outcome back = Cli("--json read acc-1 --backward --limit 1");
  EXPECT_NE(back.out.find("\"version\":1"), std::string::npos) << back.out;
  EXPECT_EQ(back.out.find("\"version\":0"), std::string::npos) << back.out;

  Outcome head = Cli("--json head acc-1");
  EXPECT_NE(head.out.find("\"version\":1,\"position\":2,\"deleted\":false"), std::string::npos)
      << head.out;
  Outcome all = Cli("--json all --from 2");
  EXPECT_NE(all.out.find("\"position\":2"), std::string::npos);
  EXPECT_NE(all.out.find("{\"next\":3}"), std::string::npos) << all.out;

  EXPECT_EQ(Cli("delete acc-1 --expected 1").exit_code, 0);
  Outcome gone = Cli("--json read acc-1");
  EXPECT_EQ(gone.exit_code, 3);
  EXPECT_NE(gone.err.find("\"deleted\":true"), std::string::npos) << gone.err;
  EXPECT_EQ(Cli("read acc-1 --include-deleted").exit_code, 0);
}

TEST_F(CliTest, MetadataSetHidesTheOlderEventsFromRead) {
  for (int i = 0; i < 5; ++i)
    ASSERT_EQ(Cli("append s --type T --data " + std::to_string(i)).exit_code, 0);
  Outcome none = Cli("metadata s");
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_EQ(none.out, "s metadata (never written): {}\n");
  EXPECT_EQ(Cli("--json metadata s").out, "{\"stream\":\"s\",\"version\":null,\"metadata\":{}}\n");

  Outcome set = Cli("metadata s --set '{\"maxCount\":2}' --expected no_stream");
  ASSERT_EQ(set.exit_code, 0) << set.err;
  EXPECT_EQ(set.out, "s metadata version 0: {\"maxCount\":2}\n");
  Outcome read = Cli("read s");
  ASSERT_EQ(read.exit_code, 0) << read.err;
  EXPECT_EQ(read.out, "#4 s@3 T 3\n#5 s@4 T 4\n");
  Outcome shown = Cli("--json metadata s");
  EXPECT_EQ(shown.out, "{\"stream\":\"s\",\"version\":0,\"metadata\":{\"maxCount\":2}}\n");

  // A stale expectation is a conflict (4), a typo invalid (2): nothing written.
  Outcome stale = Cli("--json metadata s --set '{}' --expected no_stream");
  EXPECT_EQ(stale.exit_code, 4);
  EXPECT_NE(stale.err.find("\"actualVersion\":0"), std::string::npos) << stale.err;
  Outcome typo = Cli("metadata s --set '{\"maxcount\":1}'");
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("maxcount"), std::string::npos) << typo.err;
  EXPECT_EQ(Cli("metadata s --set ''").exit_code, 2);
  EXPECT_EQ(Cli("metadata s").out, "s metadata version 0: {\"maxCount\":2}\n");

  Outcome written = Cli("--json metadata s --set '{}' --expected 0");
  ASSERT_EQ(written.exit_code, 0) << written.err;
  EXPECT_EQ(written.out, "{\"stream\":\"s\",\"version\":1}\n");
  // Unset, the events read again: retention hides, it does not erase.
  EXPECT_EQ(Cli("read s").out.substr(0, 11), "#1 s@0 T 0\n");
}

TEST_F(CliTest, ScavengeRemovesWhatRetentionHidesAndEraseRemovesAStream) {
  for (int i = 0; i < 6; ++i)
    ASSERT_EQ(Cli("append s --type T --data " + std::to_string(i)).exit_code, 0);
  ASSERT_EQ(Cli("append t --type T").exit_code, 0);
  ASSERT_EQ(Cli("metadata s --set '{\"maxCount\":2}'").exit_code, 0);

  Outcome scavenged = Cli("scavenge");
  ASSERT_EQ(scavenged.exit_code, 0) << scavenged.err;
  const auto newline = scavenged.out.find('\n');
  ASSERT_NE(newline, std::string::npos) << scavenged.out;
  EXPECT_EQ(scavenged.out.substr(0, newline + 1), "scavenged 4 events of 1 stream\n");
  EXPECT_NE(scavenged.out.find(" bytes of records; data folder "), std::string::npos)
      << scavenged.out;
  EXPECT_EQ(scavenged.err, "") << "no progress bar when stderr is not a terminal";
  // Removed, not hidden: with the setting lifted, the newest two are all.
  ASSERT_EQ(Cli("metadata s --set '{}'").exit_code, 0);
  EXPECT_EQ(Cli("read s").out, "#5 s@4 T 4\n#6 s@5 T 5\n");
  Outcome again = Cli("--json scavenge");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out.rfind("{\"streams\":0,\"events\":0,\"bytes\":0,\"diskBytesBefore\":", 0), 0u)
      << again.out;
  EXPECT_NE(again.out.find(",\"tookMs\":"), std::string::npos) << again.out;

  // erase: expectations as delete's; the stream then reads as not found.
  EXPECT_EQ(Cli("erase s --expected 4").exit_code, 4);
  EXPECT_EQ(Cli("erase s --expected no_stream").exit_code, 2);
  EXPECT_EQ(Cli("erase never").exit_code, 3);
  Outcome erased = Cli("erase s --expected 5");
  ASSERT_EQ(erased.exit_code, 0) << erased.err;
  EXPECT_EQ(erased.out, "erased s (tombstone version 6); its events are gone for good\n");
  Outcome read = Cli("read s");
  EXPECT_EQ(read.exit_code, 3);
  EXPECT_NE(read.err.find("not_found: stream 's'"), std::string::npos) << read.err;
  Outcome left = Cli("read s --include-deleted");
  EXPECT_EQ(std::count(left.out.begin(), left.out.end(), '\n'), 1) << left.out;
  EXPECT_NE(left.out.find(" s@6 $deleted {\"erased\":true}\n"), std::string::npos) << left.out;
  Outcome json = Cli("--json erase t");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(json.out.rfind("{\"stream\":\"t\",\"firstVersion\":1,\"lastVersion\":1,", 0), 0u)
      << json.out;

  // Both verbs are in the help.
  Outcome help = Cli("--help");
  EXPECT_NE(help.out.find("scavenge"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("erase"), std::string::npos) << help.out;
  // A store that cannot scavenge says so: invalid (2).
  Outcome memory = testutil::RunCli(INDELIBLE_PATH, "--data memory:", "scavenge", "", tmp_);
  EXPECT_EQ(memory.exit_code, 2) << memory.err;
}

// Crypto-shredding from the command line (docs/RETENTION.md): master keys
// from a file, sealed at rest, export without and with keys, master key
// rotation, shred.
TEST_F(CliTest, ShredMakesASubjectReadRedactedAndKeysTravelOnlyWhenAsked) {
  const auto write_key = [&](const std::string& name, const std::string& text) {
    std::ofstream(File(name)) << text;
    return " --master-key-file " + File(name) + " ";
  };
  const std::string old_key = write_key("old.key", std::string(64, 'a') + "\n");
  const std::string both = write_key(
      "both.key", std::string(64, 'b') + "\n# the old one\n" + std::string(64, 'a') + "\n");
  const std::string new_key = write_key("new.key", std::string(64, 'b') + "\n");
  const std::string data = R"('{"name":"Ada-7f3c"}')";

  // Without a key a subject is refused: nothing is written in the clear.
  Outcome refused = Cli("append u --type Registered --tag subject:u-1 --data " + data);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("master key"), std::string::npos) << refused.err;
  ASSERT_EQ(Cli(old_key + "append u --type Registered --tag subject:u-1 --data " + data).exit_code,
            0);
  EXPECT_EQ(Cli(old_key + "read u").out,
            "#1 u@0 Registered [subject:u-1] {\"name\":\"Ada-7f3c\"}\n");
  Outcome sealed = Cli("read u");
  EXPECT_NE(sealed.out.find("application/vnd.indelible.sealed"), std::string::npos) << sealed.out;
  EXPECT_EQ(sealed.out.find("Ada-7f3c"), std::string::npos);

  // An export carries ciphertext and, only when asked, the wrapped keys.
  ASSERT_EQ(Cli(old_key + "export --out " + File("plain.jsonl")).exit_code, 0);
  ASSERT_EQ(Cli(old_key + "export --with-keys --out " + File("keys.jsonl")).exit_code, 0);
  EXPECT_EQ(Slurp(File("plain.jsonl")).find("Ada-7f3c"), std::string::npos);
  EXPECT_EQ(Slurp(File("plain.jsonl")).find("subjectKey"), std::string::npos);
  EXPECT_NE(Slurp(File("keys.jsonl")).find("{\"subjectKey\":"), std::string::npos);
  const auto in = [&](const std::string& folder, const std::string& args) {
    return testutil::RunCli(INDELIBLE_PATH, "--data " + File(folder), args, "", tmp_);
  };
  ASSERT_EQ(in("without", "import --in " + File("plain.jsonl")).exit_code, 0);
  EXPECT_NE(in("without", old_key + "read u").out.find("{\"$redacted\":true}"), std::string::npos);
  ASSERT_EQ(in("with", "import --in " + File("keys.jsonl")).exit_code, 0);
  EXPECT_NE(in("with", old_key + "read u").out.find("Ada-7f3c"), std::string::npos);

  // Rotation: the new key first and the old after it, rewrap, then the new
  // one alone reads.
  Outcome rewrapped = Cli(both + "rewrap-keys");
  ASSERT_EQ(rewrapped.exit_code, 0) << rewrapped.err;
  EXPECT_EQ(rewrapped.out, "rewrapped 2 subject key records under the first master key\n");
  EXPECT_NE(Cli(new_key + "read u").out.find("Ada-7f3c"), std::string::npos);
  Outcome lost = Cli(old_key + "read u");
  EXPECT_EQ(lost.exit_code, 3) << lost.out << lost.err;
  EXPECT_NE(lost.err.find("master key"), std::string::npos) << lost.err;

  Outcome shred = Cli(new_key + "shred u-1");
  ASSERT_EQ(shred.exit_code, 0) << shred.err;
  EXPECT_EQ(shred.out,
            "shredded subject u-1: 1 key deleted; its events read as redacted from now on\n");
  EXPECT_EQ(Cli(new_key + "read u").out, "#1 u@0 Registered [subject:u-1] {\"$redacted\":true}\n");
  EXPECT_EQ(Cli(new_key + "--json shred u-1").out, "{\"subject\":\"u-1\",\"keys\":0}\n");
  EXPECT_EQ(Cli("shred u-1").exit_code, 2) << "no master key: invalid";
  Outcome bad = Cli(write_key("bad.key", "not-a-key\n") + "read u");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("openssl rand -hex 32"), std::string::npos) << bad.err;
}

TEST_F(CliTest, ErrorsHaveTheirExitCodesAndWriteNothing) {
  ASSERT_EQ(Cli("append s --type T").exit_code, 0);
  Outcome conflict = Cli("--json append s --type T --expected no_stream");
  EXPECT_EQ(conflict.exit_code, 4);
  EXPECT_NE(conflict.err.find("\"error\":\"conflict\""), std::string::npos) << conflict.err;
  EXPECT_NE(conflict.err.find("\"actualVersion\":0"), std::string::npos) << conflict.err;

  Outcome reserved = Cli("append '$all' --type T");
  EXPECT_EQ(reserved.exit_code, 2);
  EXPECT_NE(reserved.err.find("reserved"), std::string::npos) << reserved.err;
  Outcome bad_json = Cli("append s --type T --data '{bad'");
  EXPECT_EQ(bad_json.exit_code, 2);
  EXPECT_NE(bad_json.err.find("events[0].data"), std::string::npos) << bad_json.err;
  Outcome bad_id = Cli("append s --type T --id not-a-uuid");
  EXPECT_EQ(bad_id.exit_code, 2);
  EXPECT_NE(bad_id.err.find("not a UUID"), std::string::npos) << bad_id.err;
  EXPECT_EQ(Cli("append s --type T --expected -3").exit_code, 2);
  EXPECT_EQ(Cli("append s --type T --file -", "[]").exit_code, 2);
  EXPECT_EQ(Cli("read nothing-here").exit_code, 3);
  EXPECT_EQ(Cli("no-such-verb").exit_code, 2);
  // Still exactly one event.
  Outcome all = Cli("all");
  EXPECT_EQ(std::count(all.out.begin(), all.out.end(), '\n'), 1) << all.out;
}

TEST_F(CliTest, AppendEventsAsJsonFromStdinKeepsIdsForRetries) {
  const std::string events =
      R"([{"id":"0d6f2a52-8c1e-4d3b-9a57-3c2b1e0f9a11","type":"A","data":{"x":1}},)"
      R"({"id":"0d6f2a52-8c1e-4d3b-9a57-3c2b1e0f9a12","type":"B","metadata":{"u":"ann"}}])";
  Outcome first = Cli("--json append batch --expected no_stream --file -", events);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  Outcome retry = Cli("--json append batch --expected no_stream --file -", events);
  EXPECT_EQ(retry.exit_code, 0) << retry.err;
  EXPECT_EQ(retry.out, first.out);
  Outcome read = Cli("--json read batch");
  EXPECT_NE(read.out.find("0d6f2a52-8c1e-4d3b-9a57-3c2b1e0f9a12"), std::string::npos);
  EXPECT_NE(read.out.find("\"metadata\":{\"u\":\"ann\"}"), std::string::npos) << read.out;
}

TEST_F(CliTest, ExportImportRoundTripIsExactAndIdempotent) {
  ASSERT_EQ(Cli("append a-1 --type T --data '{\"n\":1}'").exit_code, 0);
  ASSERT_EQ(Cli("append b-1 --type U --data '[1,2]' --metadata '{\"m\":true}'").exit_code, 0);
  ASSERT_EQ(Cli("append a-1 --type T --data '\"x\"'").exit_code, 0);
  ASSERT_EQ(Cli("delete b-1").exit_code, 0);
  ASSERT_EQ(Cli("append b-1 --type V --expected no_stream").exit_code, 0);
  Outcome exported = Cli("export --out " + File("export.jsonl"));
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const std::string original = Slurp(File("export.jsonl"));
  EXPECT_EQ(std::count(original.begin(), original.end(), '\n'), 5);

  const std::string copy = tmp_.Sub("copy");
  auto in_copy = [&](const std::string& args) {
    const std::string out = File("copy.out");
    const int status = std::system((std::string(INDELIBLE_PATH) + " --data " + copy + " " + args +
                                    " >" + out + " 2>" + File("copy.err"))
                                       .c_str());
    return std::make_pair(WEXITSTATUS(status), Slurp(out));
  };
  EXPECT_EQ(in_copy("import --in " + File("export.jsonl")).first, 0) << Slurp(File("copy.err"));
  EXPECT_EQ(in_copy("import --in " + File("export.jsonl")).first, 0) << Slurp(File("copy.err"));
  auto again = in_copy("export");
  EXPECT_EQ(again.second, original);  // ids, versions, positions, timestamps, data
  EXPECT_EQ(in_copy("check").first, 0);
}

// docs/DYNAMODB.md "Retention": archive a DynamoDB store's events before
// any age-based removal, as JSON Lines in position order; importing the
// archive gives the same events back.
TEST_F(CliTest, ExportArchivesADynamoDbStoreAndImportRestoresIt) {
  const std::string url = testutil::DynamoDbTestUrl("cli", "&index_poll_ms=10");
  ASSERT_FALSE(url.empty());
  const std::string store = "'" + url + "'";
  auto on_dynamodb = [&](const std::string& args) {
    return testutil::RunCli(INDELIBLE_PATH, "--data " + store, args, "", tmp_);
  };
  ASSERT_EQ(on_dynamodb("append acct-1 --type T --data '{\"n\":1}'").exit_code, 0);
  ASSERT_EQ(on_dynamodb("append acct-2 --type U --data '[1,2]'").exit_code, 0);
  Outcome last = on_dynamodb("append acct-1 --type T --data '{\"n\":2}' --expected 0");
  ASSERT_EQ(last.exit_code, 0) << last.err;
  // $all follows the commit: export once the three are indexed.
  std::string archive;
  for (int i = 0; i < 100 && std::count(archive.begin(), archive.end(), '\n') < 3; ++i) {
    Outcome exported = on_dynamodb("export --out " + File("archive.jsonl"));
    ASSERT_EQ(exported.exit_code, 0) << exported.err;
    archive = Slurp(File("archive.jsonl"));
    if (std::count(archive.begin(), archive.end(), '\n') < 3)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(std::count(archive.begin(), archive.end(), '\n'), 3) << archive;
  EXPECT_NE(archive.find(R"("stream":"acct-1","version":1,"position":3)"), std::string::npos)
      << archive;

  ASSERT_EQ(Cli("import --in " + File("archive.jsonl")).exit_code, 0);
  EXPECT_EQ(Cli("export").out, archive) << "ids, versions, positions, timestamps, data";
}

// docs/RETENTION.md "Export and import": an export of streams retention
// trimmed or an erasure emptied imports into a folder and into DynamoDB,
// each stream starting where its export does, its settings with it.
TEST_F(CliTest, ExportOfTrimmedStreamsImportsWithTheirVersions) {
  for (int i = 0; i < 6; ++i)
    ASSERT_EQ(Cli("append s-1 --type T --data '{\"n\":" + std::to_string(i) + "}'").exit_code, 0);
  ASSERT_EQ(Cli("append e-1 --type T").exit_code, 0);
  ASSERT_EQ(Cli("append e-1 --type T").exit_code, 0);
  ASSERT_EQ(Cli("metadata s-1 --set '{\"maxCount\":2}'").exit_code, 0);
  ASSERT_EQ(Cli("erase e-1").exit_code, 0);
  ASSERT_EQ(Cli("scavenge").exit_code, 0);
  Outcome exported = Cli("export --out " + File("trimmed.jsonl"));
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const std::string want = Cli("read s-1").out;
  ASSERT_NE(want.find("s-1@4 T {\"n\":4}"), std::string::npos) << want;

  const std::string folder = "--data " + File("copy");
  auto in = [&](const std::string& data, const std::string& args) {
    return testutil::RunCli(INDELIBLE_PATH, data, args, "", tmp_);
  };
  const std::string dynamodb =
      "--data '" + testutil::DynamoDbTestUrl("cli", "&index_poll_ms=10") + "'";
  for (const std::string& target : {folder, dynamodb}) {
    Outcome imported = in(target, "import --in " + File("trimmed.jsonl"));
    ASSERT_EQ(imported.exit_code, 0) << target << imported.err;
    EXPECT_EQ(in(target, "import --in " + File("trimmed.jsonl")).exit_code, 0) << "idempotent";
    Outcome read = in(target, "read s-1");
    EXPECT_NE(read.out.find("s-1@4 T {\"n\":4}\n"), std::string::npos) << target << read.out;
    EXPECT_NE(read.out.find("s-1@5 T {\"n\":5}\n"), std::string::npos) << target << read.out;
    EXPECT_EQ(read.out.find("s-1@3"), std::string::npos) << target << read.out;
    EXPECT_NE(in(target, "--json head s-1").out.find("\"firstVersion\":4"), std::string::npos)
        << target;
    Outcome erased = in(target, "--json read e-1 --include-deleted");
    EXPECT_NE(erased.out.find("\"version\":2"), std::string::npos) << target << erased.out;
    EXPECT_EQ(erased.out.find("\"version\":0"), std::string::npos) << target << erased.out;
    // The stream goes on from its head.
    EXPECT_EQ(in(target, "append s-1 --type T --expected 5").exit_code, 0) << target;
    Outcome check = in(target, "check");
    EXPECT_EQ(check.exit_code, 0) << target << check.out << check.err;
  }
}

TEST_F(CliTest, TagsQueriesAndTheirExportAndImport) {
  // docs/DCB.md: --tag on append, `query` by types and tags.
  ASSERT_EQ(
      Cli("append '$dcb' --type Claimed --data '{\"u\":1}' --tag user:bob --tag x:1").exit_code, 0);
  ASSERT_EQ(Cli("append s-1 --type A --tag x:1").exit_code, 0);
  ASSERT_EQ(Cli("append s-1 --type B").exit_code, 0);
  Outcome tagged = Cli("query --tag x:1");
  ASSERT_EQ(tagged.exit_code, 0) << tagged.err;
  EXPECT_EQ(tagged.out, "#1 $dcb@0 Claimed [user:bob x:1] {\"u\":1}\n#2 s-1@0 A [x:1] {}\n");
  EXPECT_EQ(Cli("query --type B").out, "#3 s-1@1 B {}\n");
  EXPECT_EQ(Cli("query --tag x:1 --backward --limit 1").out, "#2 s-1@0 A [x:1] {}\n");
  Outcome items =
      Cli("--json query --query '{\"items\":[{\"types\":[\"B\"]},{\"tags\":[\"user:bob\"]}]}'");
  ASSERT_EQ(items.exit_code, 0) << items.err;
  EXPECT_NE(items.out.find("\"tags\":[\"user:bob\",\"x:1\"]"), std::string::npos) << items.out;
  EXPECT_NE(items.out.find("\"position\":3"), std::string::npos) << items.out;
  EXPECT_EQ(items.out.find("\"position\":2"), std::string::npos) << items.out;

  // Bad input: exit 2, the field named, nothing written.
  Outcome empty_tag = Cli("append s-2 --type A --tag ''");
  EXPECT_EQ(empty_tag.exit_code, 2);
  EXPECT_NE(empty_tag.err.find("tags[0]"), std::string::npos) << empty_tag.err;
  Outcome bad_query = Cli("query --query '{\"items\":[{}]}'");
  EXPECT_EQ(bad_query.exit_code, 2);
  EXPECT_NE(bad_query.err.find("query.items[0]"), std::string::npos) << bad_query.err;
  EXPECT_EQ(Cli("query --query '{\"items\":[]}' --tag x").exit_code, 2);
  EXPECT_EQ(Cli("read s-2").exit_code, 3) << "nothing written";

  // An export keeps the tags, and an import restores them, index included.
  ASSERT_EQ(Cli("export --out " + File("e.jsonl")).exit_code, 0);
  EXPECT_NE(Slurp(File("e.jsonl")).find("\"tags\":[\"x:1\"]"), std::string::npos);
  const std::string other = "--data " + File("other");
  ASSERT_EQ(
      testutil::RunCli(INDELIBLE_PATH, other, "import --in " + File("e.jsonl"), "", tmp_).exit_code,
      0);
  Outcome restored = testutil::RunCli(INDELIBLE_PATH, other, "query --tag x:1", "", tmp_);
  EXPECT_EQ(restored.out, tagged.out);
  Outcome check = testutil::RunCli(INDELIBLE_PATH, other, "check", "", tmp_);
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
}

TEST_F(CliTest, ImportNamesTheBadLine) {
  const std::string lines =
      "{\"id\":\"0d6f2a52-8c1e-4d3b-9a57-3c2b1e0f9a11\",\"stream\":\"s\",\"version\":0,"
      "\"position\":1,\"type\":\"T\",\"data\":{},\"metadata\":{},\"timestamp\":1}\n"
      "{\"stream\":\"s\",\"version\":1,\"position\":2,\"type\":\"T\",\"data\":{\n";
  Outcome r = Cli("import", lines);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("line 2"), std::string::npos) << r.err;
}

TEST_F(CliTest, TailFollowsAppendsOfAnotherProcessAndStopsCleanly) {
  ASSERT_EQ(Cli("append before --type T").exit_code, 0);
  const std::string out = File("tail.out");
  const pid_t child = ::fork();
  if (child == 0) {
    FILE* f = std::freopen(out.c_str(), "w", stdout);
    (void)f;
    ::execl(INDELIBLE_PATH, INDELIBLE_PATH, "--data", Data().c_str(), "tail", nullptr);
    ::_exit(127);
  }
  // The tail follows the folder without locking it: appends still work.
  // The tail starts at the end it finds once started, which a slow start
  // (a sanitizer, a loaded machine) puts after an early append: append
  // until one arrives, up to 10 s.
  std::string seen;
  for (int i = 0; i < 33 && seen.find("Arrived") == std::string::npos; ++i) {
    ASSERT_EQ(Cli("append live --type Arrived --data '{\"n\":42}'").exit_code, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    seen = Slurp(out);
  }
  ::kill(child, SIGTERM);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_NE(seen.find(" live@"), std::string::npos) << seen;
  EXPECT_NE(seen.find(" Arrived {\"n\":42}"), std::string::npos) << seen;
  EXPECT_EQ(seen.find("before"), std::string::npos) << "tail without --from starts at the end";
}

// The global flags go before or after the verb, as users type them
// (README, docs/SECURITY.md): both orders give the same answer.
TEST_F(CliTest, GlobalFlagsGoBeforeOrAfterTheVerb) {
  auto after = [&](const std::string& args) {
    return testutil::RunCli(INDELIBLE_PATH, "", args, "", tmp_);
  };
  Outcome key =
      after("keys create admin --role admin --data " + Data() + " --out " + File("admin.key"));
  ASSERT_EQ(key.exit_code, 0) << key.err;
  EXPECT_EQ(key.out, "") << "the secret went to --out";
  EXPECT_EQ(Slurp(File("admin.key")).size(), 1 + Slurp(File("admin.key")).find('\n'));
  Outcome before = Cli("keys create ops --role operator --out " + File("ops.key"));
  ASSERT_EQ(before.exit_code, 0) << before.err;
  // After `append`, --data is the event's data: a folder there is refused.
  Outcome folder = after("append acc-1 --type Deposited --data " + Data());
  EXPECT_EQ(folder.exit_code, 2);
  EXPECT_NE(folder.err.find("before the verb"), std::string::npos) << folder.err;
  ASSERT_EQ(Cli("append acc-1 --type Deposited --data '{\"amount\":5}'").exit_code, 0);
  ASSERT_EQ(Cli("consumers create mailer --category acc").exit_code, 0);

  // Verbs and sub-verbs, with --data and --json after them and before.
  for (const std::string verb : {"read acc-1", "head acc-1", "all", "streams", "export", "check",
                                 "keys list", "project list"}) {
    Outcome first =
        testutil::RunCli(INDELIBLE_PATH, "--data " + Data() + " --json", verb, "", tmp_);
    if (verb != "project list") {  // no projections here: it may say nothing
      ASSERT_EQ(first.exit_code, 0) << verb << ": " << first.err;
      EXPECT_NE(first.out, "") << verb;
    }
    Outcome last = after(verb + " --json --data " + Data());
    EXPECT_EQ(last.exit_code, first.exit_code) << verb << ": " << last.err;
    EXPECT_EQ(last.out, first.out) << verb;
    EXPECT_EQ(last.err, first.err) << verb;
    Outcome mixed = after("--json " + verb + " --data " + Data());
    EXPECT_EQ(mixed.exit_code, first.exit_code) << verb << ": " << mixed.err;
    EXPECT_EQ(mixed.out, first.out) << verb;
  }
  // A group's status has a lag in seconds, so not twice the same.
  Outcome group = after("consumers status mailer --data " + Data());
  EXPECT_EQ(group.exit_code, 0) << group.err;
  EXPECT_EQ(group.out.rfind("mailer checkpoint ", 0), 0u) << group.out;
  Outcome keys = after("keys list --data " + Data());
  EXPECT_NE(keys.out.find(" admin "), std::string::npos) << keys.out;
  EXPECT_NE(keys.out.find(" ops "), std::string::npos) << keys.out;
  // Still one of --data and --url, wherever they stand.
  Outcome both = after("read acc-1 --url http://127.0.0.1:1 --data " + Data());
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("excludes"), std::string::npos) << both.err;
  Outcome unknown = after("read acc-1 --no-such-flag --data " + Data());
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("--no-such-flag"), std::string::npos) << unknown.err;
}

TEST_F(CliTest, CheckPassesOnAHealthyStore) {
  ASSERT_EQ(Cli("append s --type T").exit_code, 0);
  Outcome check = Cli("check");
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_NE(check.out.find("ok: 1 events"), std::string::npos) << check.out;
}

}  // namespace
}  // namespace indelible

// The indelible CLI with --url: the real binary in subprocesses, against the
// real `indelible serve` on a free port with a fresh store per test. The
// outputs are the ones cli_test.cc expects from --data: a verb must not
// behave differently because the store is behind a server.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include "testutil/cli_runner.h"
#include "testutil/server_process.h"
#include "testutil/temp_dir.h"

namespace indelible {
namespace {

using Outcome = testutil::CliOutcome;
using testutil::Slurp;

std::size_t Lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

class CliRemoteTest : public ::testing::Test {
 protected:
  void SetUp() override { server_ = StartServer("server"); }

  std::unique_ptr<testutil::ServerProcess> StartServer(const std::string& folder) {
    auto server = std::make_unique<testutil::ServerProcess>(
        INDELIBLE_PATH, std::vector<std::string>{"serve", "--store", "file:" + tmp_.Sub(folder)});
    EXPECT_TRUE(server->Start()) << "the server did not start: " << server->output();
    return server;
  }

  // Runs `indelible <global> <args>` through the shell (args are quoted by
  // the caller), feeding `input` on stdin.
  Outcome Run(const std::string& global, const std::string& args, const std::string& input = "") {
    return testutil::RunCli(INDELIBLE_PATH, global, args, input, tmp_);
  }
  // `indelible --url URL <args>` against this test's server.
  Outcome Cli(const std::string& args, const std::string& input = "") {
    return Run("--url " + server_->url(), args, input);
  }
  std::string File(const std::string& name) const { return tmp_.Sub(name); }

  testutil::TempDir tmp_;
  std::unique_ptr<testutil::ServerProcess> server_;
};

TEST_F(CliRemoteTest, AppendReadHeadAllAndDeleteInTextAndJson) {
  Outcome a = Cli("append acc-1 --type Deposited --data '{\"amount\":5}' --expected no_stream");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_NE(a.out.find("versions 0..0 at position 1"), std::string::npos) << a.out;
  Outcome b = Cli("--json append acc-1 --type Deposited --data '{\"amount\":7}' --expected 0");
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(b.out, "{\"stream\":\"acc-1\",\"firstVersion\":1,\"lastVersion\":1,\"position\":2}\n");
  EXPECT_EQ(Cli("append acc-1 --type Checked --expected exists").exit_code, 0);

  Outcome read = Cli("read acc-1");
  ASSERT_EQ(read.exit_code, 0) << read.err;
  EXPECT_EQ(read.out,
            "#1 acc-1@0 Deposited {\"amount\":5}\n#2 acc-1@1 Deposited {\"amount\":7}\n"
            "#3 acc-1@2 Checked {}\n");
  Outcome back = Cli("--json read acc-1 --backward --limit 2");
  EXPECT_EQ(Lines(back.out), 2u) << back.out;
  EXPECT_LT(back.out.find("\"version\":2"), back.out.find("\"version\":1")) << back.out;
  EXPECT_EQ(Cli("read acc-1 --from 1 --limit 1").out, "#2 acc-1@1 Deposited {\"amount\":7}\n");

  Outcome head = Cli("--json head acc-1");
  EXPECT_NE(head.out.find("\"version\":2,\"position\":3,\"deleted\":false"), std::string::npos)
      << head.out;
  Outcome all = Cli("--json all --from 2");
  EXPECT_EQ(Lines(all.out), 3u) << all.out;
  EXPECT_NE(all.out.find("\"position\":2"), std::string::npos);
  EXPECT_NE(all.out.find("{\"next\":4}"), std::string::npos) << all.out;

  EXPECT_EQ(Cli("delete acc-1 --expected 2").exit_code, 0);
  Outcome gone = Cli("--json read acc-1");
  EXPECT_EQ(gone.exit_code, 3);
  EXPECT_NE(gone.err.find("\"deleted\":true"), std::string::npos) << gone.err;
  Outcome audit = Cli("read acc-1 --include-deleted");
  EXPECT_EQ(audit.exit_code, 0) << audit.err;
  EXPECT_NE(audit.out.find("#4 acc-1@3 $deleted"), std::string::npos) << audit.out;
  EXPECT_NE(Cli("head acc-1").out.find("(deleted)"), std::string::npos);
}

// `streams` pages through GET /streams (1000 at a time) and prints the same
// lines as against a folder; filters pass through.
TEST_F(CliRemoteTest, MetadataSetHidesTheOlderEventsFromRead) {
  for (int i = 0; i < 5; ++i)
    ASSERT_EQ(Cli("append s --type T --data " + std::to_string(i)).exit_code, 0);
  EXPECT_EQ(Cli("metadata s").out, "s metadata (never written): {}\n");
  Outcome set = Cli("metadata s --set '{\"maxCount\":2}' --expected no_stream");
  ASSERT_EQ(set.exit_code, 0) << set.err;
  EXPECT_EQ(set.out, "s metadata version 0: {\"maxCount\":2}\n");
  Outcome read = Cli("read s");
  ASSERT_EQ(read.exit_code, 0) << read.err;
  EXPECT_EQ(read.out, "#4 s@3 T 3\n#5 s@4 T 4\n");
  EXPECT_EQ(Cli("--json metadata s").out,
            "{\"stream\":\"s\",\"version\":0,\"metadata\":{\"maxCount\":2}}\n");
  Outcome stale = Cli("--json metadata s --set '{}' --expected no_stream");
  EXPECT_EQ(stale.exit_code, 4);
  EXPECT_NE(stale.err.find("\"actualVersion\":0"), std::string::npos) << stale.err;
  EXPECT_EQ(Cli("metadata s --set '{\"maxcount\":1}'").exit_code, 2);
}

TEST_F(CliRemoteTest, ScavengeAndEraseGoThroughTheServer) {
  for (int i = 0; i < 6; ++i)
    ASSERT_EQ(Cli("append s --type T --data " + std::to_string(i)).exit_code, 0);
  ASSERT_EQ(Cli("metadata s --set '{\"maxCount\":2}'").exit_code, 0);
  // The server holds its folder: a local scavenge of it is refused.
  EXPECT_EQ(Run("--data " + File("server"), "scavenge").exit_code, 8);

  Outcome scavenged = Cli("scavenge");
  ASSERT_EQ(scavenged.exit_code, 0) << scavenged.err;
  EXPECT_EQ(scavenged.out.substr(0, scavenged.out.find('\n') + 1),
            "scavenged 4 events of 1 stream\n");
  EXPECT_NE(scavenged.out.find(" bytes of records; data folder "), std::string::npos)
      << scavenged.out;
  Outcome again = Cli("--json scavenge");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const boost::json::value report = boost::json::parse(again.out);
  EXPECT_EQ(report.at("events").as_int64(), 0);
  EXPECT_GT(report.at("diskBytesAfter").as_int64(), 0);
  EXPECT_GE(report.at("tookMs").as_int64(), 0);
  ASSERT_EQ(Cli("metadata s --set '{}'").exit_code, 0);
  EXPECT_EQ(Cli("read s").out, "#5 s@4 T 4\n#6 s@5 T 5\n");

  EXPECT_EQ(Cli("erase s --expected 4").exit_code, 4);
  Outcome erased = Cli("erase s");
  ASSERT_EQ(erased.exit_code, 0) << erased.err;
  EXPECT_EQ(erased.out, "erased s (tombstone version 6); its events are gone for good\n");
  Outcome read = Cli("read s");
  EXPECT_EQ(read.exit_code, 3);
  EXPECT_NE(read.err.find("not_found: stream 's'"), std::string::npos) << read.err;
  EXPECT_EQ(Cli("erase never").exit_code, 3);
}

TEST_F(CliRemoteTest, StreamsListsByNameWithFilters) {
  for (const char* stream : {"orders-2", "orders-1", "pay-1", "orders/eu"})
    ASSERT_EQ(Cli(std::string("append '") + stream + "' --type T").exit_code, 0);
  ASSERT_EQ(Cli("delete pay-1").exit_code, 0);
  Outcome all = Cli("streams");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  ASSERT_EQ(Lines(all.out), 4u) << all.out;
  EXPECT_TRUE(all.out.starts_with("orders-1 version 0 position 2 last write ")) << all.out;
  EXPECT_NE(all.out.find("\npay-1 version 1 position 5 last write "), std::string::npos) << all.out;
  EXPECT_TRUE(all.out.ends_with(" (deleted)\n")) << all.out;
  Outcome category = Cli("--json streams --category orders --after orders-1 --limit 1");
  ASSERT_EQ(category.exit_code, 0) << category.err;
  EXPECT_TRUE(category.out.starts_with(R"({"stream":"orders-2","version":0,"position":1,)"))
      << category.out;
  EXPECT_EQ(Lines(category.out), 1u);
  Outcome bad = Cli("streams --category a-b");
  EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
}

TEST_F(CliRemoteTest, StreamNamesArePercentEncoded) {
  for (const std::string stream : {"BANK_ACCOUNT/123", "a b?c#d%e&f=g+h", "caf\xc3\xa9-1"}) {
    Outcome a = Cli("--json append '" + stream + "' --type T --expected no_stream");
    ASSERT_EQ(a.exit_code, 0) << stream << ": " << a.err;
    Outcome read = Cli("read '" + stream + "'");
    EXPECT_EQ(read.exit_code, 0) << stream << ": " << read.err;
    EXPECT_NE(read.out.find(" " + stream + "@0 T {}"), std::string::npos) << read.out;
    EXPECT_EQ(Cli("head '" + stream + "'").exit_code, 0);
  }
  Outcome category = Cli("all --category BANK_ACCOUNT");
  EXPECT_EQ(category.out, "#1 BANK_ACCOUNT/123@0 T {}\n") << category.err;
}

TEST_F(CliRemoteTest, AllFiltersByCategoryPrefixAndType) {
  ASSERT_EQ(Cli("append order-1 --type Placed").exit_code, 0);
  ASSERT_EQ(Cli("append user-1 --type Joined").exit_code, 0);
  ASSERT_EQ(Cli("append order-2 --type Placed").exit_code, 0);
  ASSERT_EQ(Cli("append order-1 --type Shipped").exit_code, 0);
  EXPECT_EQ(Cli("all --category order --type Shipped").out, "#4 order-1@1 Shipped {}\n");
  EXPECT_EQ(Cli("all --prefix order-1").out, "#1 order-1@0 Placed {}\n#4 order-1@1 Shipped {}\n");
  EXPECT_EQ(Cli("all --type Joined --type Shipped").out,
            "#2 user-1@0 Joined {}\n#4 order-1@1 Shipped {}\n");
  Outcome limited = Cli("--json all --category order --limit 2");
  EXPECT_EQ(Lines(limited.out), 3u) << limited.out;
  EXPECT_NE(limited.out.find("{\"next\":4}"), std::string::npos) << limited.out;
  // Past the filtered-out tail: the next position skips it.
  Outcome users = Cli("--json all --category user --from 3");
  EXPECT_EQ(users.out, "{\"next\":5}\n");
}

TEST_F(CliRemoteTest, ErrorsHaveTheirExitCodesAndWriteNothing) {
  ASSERT_EQ(Cli("append s --type T").exit_code, 0);
  Outcome conflict = Cli("--json append s --type T --expected no_stream");
  EXPECT_EQ(conflict.exit_code, 4);
  EXPECT_NE(conflict.err.find("\"error\":\"conflict\""), std::string::npos) << conflict.err;
  EXPECT_NE(conflict.err.find("\"actualVersion\":0"), std::string::npos) << conflict.err;
  Outcome stale = Cli("--json append s --type T --expected 7");
  EXPECT_EQ(stale.exit_code, 4);
  EXPECT_NE(stale.err.find("\"actualVersion\":0"), std::string::npos) << stale.err;
  Outcome missing = Cli("--json append nothing --type T --expected exists");
  EXPECT_EQ(missing.exit_code, 4);
  EXPECT_NE(missing.err.find("\"actualVersion\":null"), std::string::npos) << missing.err;

  Outcome reserved = Cli("append '$all' --type T");
  EXPECT_EQ(reserved.exit_code, 2);
  EXPECT_NE(reserved.err.find("reserved"), std::string::npos) << reserved.err;
  Outcome bad_json = Cli("append s --type T --data '{bad'");
  EXPECT_EQ(bad_json.exit_code, 2);
  EXPECT_NE(bad_json.err.find("events[0].data"), std::string::npos) << bad_json.err;
  EXPECT_EQ(Cli("append s --type T --id not-a-uuid").exit_code, 2);
  EXPECT_EQ(Cli("append s --type T --file -", "[]").exit_code, 2);
  EXPECT_EQ(Cli("read nothing-here").exit_code, 3);
  EXPECT_EQ(Cli("head nothing-here").exit_code, 3);
  EXPECT_EQ(Cli("delete s --expected 9").exit_code, 4);
  // Still exactly one event.
  EXPECT_EQ(Lines(Cli("all").out), 1u);
}

TEST_F(CliRemoteTest, AppendEventsAsJsonFromStdinKeepsIdsForRetries) {
  const std::string events =
      R"([{"id":"0d6f2a52-8c1e-4d3b-9a57-3c2b1e0f9a11","type":"A","data":{"x":1}},)"
      R"({"id":"0d6f2a52-8c1e-4d3b-9a57-3c2b1e0f9a12","type":"B","metadata":{"u":"ann"}}])";
  Outcome first = Cli("--json append batch --expected no_stream --file -", events);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  Outcome retry = Cli("--json append batch --expected no_stream --file -", events);
  EXPECT_EQ(retry.exit_code, 0) << retry.err;
  EXPECT_EQ(retry.out, first.out);
  Outcome read = Cli("--json read batch");
  EXPECT_EQ(Lines(read.out), 2u) << read.out;
  EXPECT_NE(read.out.find("0d6f2a52-8c1e-4d3b-9a57-3c2b1e0f9a12"), std::string::npos);
  EXPECT_NE(read.out.find("\"metadata\":{\"u\":\"ann\"}"), std::string::npos) << read.out;
}

TEST_F(CliRemoteTest, TailPicksUpALaterAppendAndStopsCleanly) {
  ASSERT_EQ(Cli("append before --type T").exit_code, 0);
  const std::string out = File("tail.out");
  const std::string url = server_->url();
  const pid_t child = ::fork();
  if (child == 0) {
    FILE* f = std::freopen(out.c_str(), "w", stdout);
    (void)f;
    ::execl(INDELIBLE_PATH, INDELIBLE_PATH, "--url", url.c_str(), "tail", nullptr);
    ::_exit(127);
  }
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

// Timestamps cannot cross the HTTP API, and tombstones get the server's ids:
// everything else of an export must arrive in the second server unchanged.
std::string WithoutTimestampsAndTombstoneIds(const std::string& jsonl) {
  // Boost.JSON rather than <regex>: GCC 12's regex trips -Wmaybe-uninitialized
  // under the sanitizer preset. serialize keeps the member order.
  std::string out;
  std::istringstream lines(jsonl);
  for (std::string line; std::getline(lines, line);) {
    boost::json::object event = boost::json::parse(line).as_object();
    event.erase("timestamp");
    if (event.at("type") == "$deleted") event["id"] = "-";
    out += boost::json::serialize(event) + "\n";
  }
  return out;
}

TEST_F(CliRemoteTest, ExportThenImportIntoASecondServer) {
  ASSERT_EQ(Cli("append a-1 --type T --data '{\"n\":1}'").exit_code, 0);
  ASSERT_EQ(Cli("append b-1 --type U --data '[1,2]' --metadata '{\"m\":true}'").exit_code, 0);
  ASSERT_EQ(Cli("append a-1 --type T --data '\"x\"'").exit_code, 0);
  ASSERT_EQ(Cli("delete b-1").exit_code, 0);
  ASSERT_EQ(Cli("append b-1 --type V --expected no_stream").exit_code, 0);
  Outcome exported = Cli("export --out " + File("export.jsonl"));
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_NE(exported.err.find("exported 5 events"), std::string::npos) << exported.err;
  const std::string original = Slurp(File("export.jsonl"));
  ASSERT_EQ(Lines(original), 5u) << original;

  auto second = StartServer("second");
  const std::string url2 = "--url " + second->url();
  Outcome imported = Run(url2, "import --in " + File("export.jsonl"));
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_NE(imported.err.find("note:"), std::string::npos) << imported.err;
  EXPECT_NE(imported.err.find("imported 5 events"), std::string::npos) << imported.err;
  Outcome again = Run(url2, "export");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(WithoutTimestampsAndTombstoneIds(again.out),
            WithoutTimestampsAndTombstoneIds(original));
  EXPECT_EQ(Run(url2, "all").out, Cli("all").out);

  // Without deletions a re-run writes nothing: the ids make it a retry.
  ASSERT_EQ(Cli("export --prefix a- --out " + File("a.jsonl")).exit_code, 0);
  auto third = StartServer("third");
  const std::string url3 = "--url " + third->url();
  EXPECT_EQ(Run(url3, "import --in " + File("a.jsonl")).exit_code, 0);
  Outcome rerun = Run(url3, "import --in " + File("a.jsonl"));
  EXPECT_EQ(rerun.exit_code, 0) << rerun.err;
  EXPECT_EQ(Lines(Run(url3, "all").out), 2u);
}

TEST_F(CliRemoteTest, CheckAndBenchSayToUseData) {
  for (const std::string verb : {"check", "bench fsync"}) {
    Outcome r = Cli(verb);
    EXPECT_EQ(r.exit_code, 2) << verb;
    EXPECT_NE(r.err.find("--data"), std::string::npos) << verb << ": " << r.err;
    EXPECT_NE(r.err.find("local data folder"), std::string::npos) << verb << ": " << r.err;
  }
}

// --url and its credentials go after the verb too (docs/CLI.md); after
// `append`, --data is still the event's data.
TEST_F(CliRemoteTest, GlobalFlagsGoAfterTheVerbToo) {
  const std::string url = server_->url();
  Outcome appended = Run("", "append acc-1 --type T --data '{\"n\":1}' --url " + url);
  ASSERT_EQ(appended.exit_code, 0) << appended.err;
  EXPECT_EQ(Run("", "read acc-1 --url " + url + " --json").out, Cli("--json read acc-1").out);
  EXPECT_EQ(Cli("read acc-1").out, "#1 acc-1@0 T {\"n\":1}\n");

  // Credentials too (this server asks for none, so any key does).
  std::ofstream(File("any.key")) << "idl_any\n";
  Outcome head = Run("", "head acc-1 --api-key-file " + File("any.key") + " --url " + url);
  EXPECT_EQ(head.exit_code, 0) << head.err;
  EXPECT_EQ(head.out, "acc-1 version 0 position 1\n");
  Outcome group = Run("", "consumers create mailer --category acc --url " + url);
  EXPECT_EQ(group.exit_code, 0) << group.err;
  EXPECT_EQ(group.out.rfind("mailer checkpoint ", 0), 0u) << group.out;

  Outcome lonely = Run("", "read acc-1 --ca-file " + File("any.key"));
  EXPECT_EQ(lonely.exit_code, 2);  // --ca-file needs --url, wherever it stands
  EXPECT_NE(lonely.err.find("--url"), std::string::npos) << lonely.err;
}

TEST_F(CliRemoteTest, UrlAndDataAreAlternatives) {
  Outcome both = Run("--data " + File("data") + " --url " + server_->url(), "all");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("--url"), std::string::npos) << both.err;
  EXPECT_NE(both.err.find("--data"), std::string::npos) << both.err;

  // https is a URL the CLI takes (client_https_test.cc); nobody listens on
  // port 1: unavailable (8).
  Outcome https = Run("--url https://127.0.0.1:1", "all");
  EXPECT_EQ(https.exit_code, 8) << https.err;
  EXPECT_NE(https.err.find("cannot connect to https://127.0.0.1:1"), std::string::npos)
      << https.err;
  Outcome lonely = Run("--ca-file " + File("ca.pem"), "all");
  EXPECT_EQ(lonely.exit_code, 2);  // --ca-file needs --url
  EXPECT_NE(lonely.err.find("--url"), std::string::npos) << lonely.err;
  Outcome junk = Run("--url 127.0.0.1:2113", "all");
  EXPECT_EQ(junk.exit_code, 2);
  EXPECT_NE(junk.err.find("http://HOST:PORT"), std::string::npos) << junk.err;

  // Nobody listens there any more once the server is gone: unavailable (8).
  const std::string url = server_->url();
  server_->Kill();
  Outcome down = Run("--url " + url, "read s");
  EXPECT_EQ(down.exit_code, 8);
  EXPECT_NE(down.err.find("cannot connect"), std::string::npos) << down.err;
}

// `indelible consumers` against the server: an operator's session with a
// failing event, then the same group seen through --data after the server
// stopped.
TEST_F(CliRemoteTest, ConsumersCreatePullNackBlockSkipAndStatus) {
  ASSERT_EQ(Cli("append order-1 --type Placed --data '{\"n\":1}'").exit_code, 0);
  ASSERT_EQ(Cli("append order-1 --type Placed --data '{\"n\":2}'").exit_code, 0);
  ASSERT_EQ(Cli("append user-1 --type Renamed").exit_code, 0);
  Outcome created =
      Cli("consumers create mailer --category order --max-attempts 2 "
          "--initial-backoff-ms 0");
  ASSERT_EQ(created.exit_code, 0) << created.err;
  EXPECT_EQ(created.out, "mailer checkpoint 0 of 3 (lag 3 events, 0.0 s), 0 in flight\n");

  Outcome first = Cli("consumers pull mailer --consumer w");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.out, "#1 order-1@0 Placed {\"n\":1}\n#2 order-1@1 Placed {\"n\":2}\n");
  // The nack takes back #2 too: it waits behind #1.
  ASSERT_EQ(Cli("consumers nack mailer 1 --reason 'smtp down'").exit_code, 0);
  Outcome second = Cli("consumers pull mailer --consumer w");
  EXPECT_EQ(second.out, "#1 order-1@0 Placed {\"n\":1}\n#2 order-1@1 Placed {\"n\":2}\n");
  Outcome blocked = Cli("consumers nack mailer 1 --reason 'smtp down'");
  ASSERT_EQ(blocked.exit_code, 0) << blocked.err;
  EXPECT_NE(blocked.out.find("BLOCKED at 1: event 1 of stream 'order-1' failed 2 time(s); "
                             "last: smtp down"),
            std::string::npos)
      << blocked.out;
  EXPECT_EQ(Cli("consumers pull mailer --consumer w").out, "") << "a blocked group stops";

  ASSERT_EQ(Cli("consumers skip mailer").exit_code, 0);
  Outcome drained = Cli("consumers pull mailer --consumer w --ack");
  EXPECT_EQ(drained.out, "#2 order-1@1 Placed {\"n\":2}\n");
  Outcome json = Cli("--json consumers status mailer --wait-for 2 --timeout-ms 5000");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const boost::json::value status = boost::json::parse(json.out);
  EXPECT_EQ(status.at("checkpoint").as_int64(), 3) << json.out << ": #3 is filtered out";
  EXPECT_TRUE(status.at("blocked").is_null());

  Outcome missing = Cli("consumers retry nope");
  EXPECT_EQ(missing.exit_code, 3) << missing.err;  // not_found
  EXPECT_NE(missing.err.find("no consumer group 'nope'"), std::string::npos) << missing.err;
  Outcome late = Cli("consumers status mailer --wait-for 99 --timeout-ms 50");
  EXPECT_EQ(late.exit_code, 8) << late.err;  // unavailable: not reached in time

  // The same group through the folder once the server is gone.
  ASSERT_EQ(server_->Terminate(), 0);
  const std::string data = "--data " + tmp_.Sub("server");
  Outcome listed = Run(data, "consumers list");
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(listed.out.substr(0, 23), "mailer checkpoint 3 of ") << listed.out;
  Outcome skip = Run(data, "consumers skip mailer");
  EXPECT_EQ(skip.exit_code, 2) << skip.err;  // invalid: needs the server
  EXPECT_NE(skip.err.find("--url"), std::string::npos) << skip.err;
  EXPECT_EQ(Run(data, "consumers delete mailer").exit_code, 0);
  EXPECT_EQ(Run(data, "consumers list").out, "");
}

// The park policy from a terminal: a failing event is parked with the rest
// of its stream while another stream goes on; a replay started through the
// folder (it is saved with the group) delivers them again.
TEST_F(CliRemoteTest, ConsumersParkAndReplay) {
  ASSERT_EQ(Cli("append order-1 --type Placed --data '{\"n\":1}'").exit_code, 0);
  ASSERT_EQ(Cli("append order-1 --type Placed --data '{\"n\":2}'").exit_code, 0);
  ASSERT_EQ(Cli("append order-2 --type Placed").exit_code, 0);
  EXPECT_EQ(Cli("consumers create bad --policy drop").exit_code, 2);
  ASSERT_EQ(Cli("consumers create mailer --policy park --max-attempts 1").exit_code, 0);
  ASSERT_EQ(Cli("consumers pull mailer --consumer w").out.size() > 0, true);
  Outcome parked = Cli("consumers nack mailer 1 --reason 'smtp down'");
  ASSERT_EQ(parked.exit_code, 0) << parked.err;
  ASSERT_EQ(Cli("consumers ack mailer 3").exit_code, 0);
  Outcome status = Cli("consumers status mailer");
  EXPECT_NE(status.out.find("checkpoint 3 of 5"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find(", 2 parked event(s) in 1 stream(s)"), std::string::npos) << status.out;
  EXPECT_EQ(status.out.find("BLOCKED"), std::string::npos) << status.out;

  ASSERT_EQ(server_->Terminate(), 0);
  const std::string data = "--data " + tmp_.Sub("server");
  Outcome replay = Run(data, "consumers replay mailer");
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  EXPECT_NE(replay.out.find(", replaying"), std::string::npos) << replay.out;
  Outcome drained = Run(data, "consumers pull mailer --consumer w --ack");
  EXPECT_EQ(drained.out, "#1 order-1@0 Placed {\"n\":1}\n#2 order-1@1 Placed {\"n\":2}\n");
  Outcome after = Run(data, "consumers status mailer");
  EXPECT_EQ(after.out.find("parked"), std::string::npos) << after.out;
}

}  // namespace
}  // namespace indelible

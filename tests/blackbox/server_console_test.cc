// The web console's files (docs/CONSOLE.md): GET / leads to /console/, the
// built assets come from the binary with their security headers, gzipped
// for a browser that takes gzip, and revalidate with their ETag. What the
// console does in a browser is tests/console's.
#include "blackbox/server_fixture.h"

namespace indelible {
namespace {

class ConsoleTest : public ServerTest {};

TEST_F(ConsoleTest, TheRootAndTheBareFolderLeadToTheConsole) {
  for (const std::string path : {"/", "/console"}) {
    const HttpResponse answer = http().Get(path);
    EXPECT_EQ(answer.status, 302u) << path << " " << answer.body;
    // Relative, so that it holds under a proxy's path prefix too.
    EXPECT_EQ(answer.Header("Location").value_or(""), "console/") << path;
  }
}

TEST_F(ConsoleTest, ThePageAndItsAssetsAreServedWithTheirPolicy) {
  const HttpResponse page = http().Get("/console/");
  ASSERT_EQ(page.status, 200u) << page.body;
  EXPECT_EQ(page.Header("Content-Type").value_or(""), "text/html; charset=utf-8");
  EXPECT_NE(page.body.find("app.js"), std::string::npos) << page.body;
  EXPECT_NE(page.body.find("app.css"), std::string::npos) << page.body;
  // No inline script may run, nothing from elsewhere, never in a frame.
  const std::string policy = page.Header("Content-Security-Policy").value_or("");
  EXPECT_NE(policy.find("default-src 'self'"), std::string::npos) << policy;
  EXPECT_NE(policy.find("frame-ancestors 'none'"), std::string::npos) << policy;
  EXPECT_EQ(policy.find("script-src"), std::string::npos) << "scripts fall back to 'self'";
  EXPECT_EQ(page.Header("X-Content-Type-Options").value_or(""), "nosniff");
  EXPECT_EQ(page.Header("Cache-Control").value_or(""), "no-cache");
  EXPECT_EQ(http().Get("/console/index.html").body, page.body);

  const HttpResponse script = http().Get("/console/app.js");
  ASSERT_EQ(script.status, 200u);
  EXPECT_EQ(script.Header("Content-Type").value_or(""), "text/javascript; charset=utf-8");
  EXPECT_FALSE(script.Header("Content-Encoding")) << "not asked for gzip";
  EXPECT_GT(script.body.size(), 1000u);
  const HttpResponse style = http().Get("/console/app.css");
  ASSERT_EQ(style.status, 200u);
  EXPECT_EQ(style.Header("Content-Type").value_or(""), "text/css; charset=utf-8");
}

TEST_F(ConsoleTest, ABrowserThatTakesGzipGetsItAndOneThatRefusesItDoesNot) {
  const HttpResponse plain = http().Get("/console/app.js");
  const HttpResponse gzipped =
      http().Get("/console/app.js", {{"Accept-Encoding", "gzip, deflate, br"}});
  ASSERT_EQ(gzipped.status, 200u);
  EXPECT_EQ(gzipped.Header("Content-Encoding").value_or(""), "gzip");
  EXPECT_EQ(gzipped.Header("Vary").value_or(""), "Accept-Encoding");
  ASSERT_GE(gzipped.body.size(), 2u);
  EXPECT_EQ(gzipped.body.substr(0, 2), "\x1f\x8b") << "gzip's magic number";
  EXPECT_LT(gzipped.body.size(), plain.body.size());
  EXPECT_NE(gzipped.Header("ETag"), plain.Header("ETag")) << "two representations, two tags";

  for (const std::string refusal : {"gzip;q=0", "identity", "gzip; q=0.000, br"}) {
    const HttpResponse refused = http().Get("/console/app.js", {{"Accept-Encoding", refusal}});
    EXPECT_FALSE(refused.Header("Content-Encoding")) << refusal;
    EXPECT_EQ(refused.body, plain.body) << refusal;
  }
  const HttpResponse weighted =
      http().Get("/console/app.js", {{"Accept-Encoding", "br;q=1.0, gzip;q=0.5"}});
  EXPECT_EQ(weighted.Header("Content-Encoding").value_or(""), "gzip");
}

TEST_F(ConsoleTest, AnUnchangedFileIsNotSentAgain) {
  for (const Headers& asked : {Headers{}, Headers{{"Accept-Encoding", "gzip"}}}) {
    const HttpResponse first = http().Get("/console/app.js", asked);
    ASSERT_TRUE(first.Header("ETag"));
    Headers again = asked;
    again.emplace_back("If-None-Match", *first.Header("ETag"));
    const HttpResponse second = http().Get("/console/app.js", again);
    EXPECT_EQ(second.status, 304u);
    EXPECT_TRUE(second.body.empty());
    EXPECT_EQ(second.Header("ETag"), first.Header("ETag"));
  }
  const HttpResponse stale = http().Get("/console/app.js", {{"If-None-Match", "\"0\""}});
  EXPECT_EQ(stale.status, 200u);
}

TEST_F(ConsoleTest, WhatTheConsoleDoesNotHoldIsNotFound) {
  for (const std::string path :
       {"/console/nothing.js", "/console/..%2Fdata", "/console/app.js/x", "/consoles"}) {
    const HttpResponse answer = http().Get(path);
    EXPECT_TRUE(IsError(answer, 404, "not_found")) << path;
  }
  EXPECT_EQ(http().Get("/health").status, 200u);
}

}  // namespace
}  // namespace indelible

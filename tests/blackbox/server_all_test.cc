// `indelible serve` end to end: /all with its filters, paging and long poll,
// /health and /metrics (docs/HTTP.md).
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <future>
#include <map>
#include <sstream>
#include <thread>

#include "server_fixture.h"

namespace indelible {
namespace {

using Positions = std::vector<std::int64_t>;

class AllTest : public ServerTest {
 protected:
  // Positions 1..6 in several categories and types.
  void SetUp() override {
    ServerTest::SetUp();
    if (HasFatalFailure()) return;
    const std::pair<const char*, const char*> events[] = {{"todo-1", "A"}, {"acc-1", "B"},
                                                          {"todo-2", "A"}, {"todo-10", "C"},
                                                          {"acc-2", "A"},  {"other", "C"}};
    for (const auto& [stream, type] : events) {
      ASSERT_EQ(Append(stream, EventJson(type)).status, 201u);
    }
  }

  // The positions of /all?{query} and its `next`.
  std::pair<Positions, std::string> Page(const std::string& query) {
    HttpResponse page = http().Get("/all?" + query);
    EXPECT_EQ(page.status, 200u) << query << ": " << page.body;
    Positions positions;
    for (const auto& event : EventsOf(page.Json())) positions.push_back(IntOf(event, "position"));
    return {positions, Member(page.Json(), "next")};
  }
};

TEST_F(AllTest, ReadsInPositionOrderFromAndLimitWithTheNextPosition) {
  EXPECT_EQ(Page(""), std::make_pair(Positions{1, 2, 3, 4, 5, 6}, std::string("7")));
  EXPECT_EQ(Page("from=3&limit=2"), std::make_pair(Positions{3, 4}, std::string("5")));
  EXPECT_EQ(Page("limit=1"), std::make_pair(Positions{1}, std::string("2")));
  EXPECT_EQ(Page("from=7"), std::make_pair(Positions{}, std::string("7")));
  const std::vector<json::object> all = ReadAll();
  ASSERT_EQ(all.size(), 6u);
  EXPECT_EQ(StringOf(all[3], "stream"), "todo-10");
  EXPECT_EQ(StringOf(all[3], "type"), "C");
  EXPECT_EQ(IntOf(all[3], "version"), 0);
}

TEST_F(AllTest, FiltersByCategoryPrefixAndTypeAnyWithinAllAcross) {
  EXPECT_EQ(Page("category=todo").first, (Positions{1, 3, 4}));
  EXPECT_EQ(Page("category=todo,acc").first, (Positions{1, 2, 3, 4, 5}));
  EXPECT_EQ(Page("category=todo&category=acc").first, (Positions{1, 2, 3, 4, 5}));
  EXPECT_EQ(Page("prefix=todo-1").first, (Positions{1, 4}));
  EXPECT_EQ(Page("type=A").first, (Positions{1, 3, 5}));
  EXPECT_EQ(Page("type=A&category=acc").first, (Positions{5}));
  EXPECT_EQ(Page("type=A,C&prefix=todo-1").first, (Positions{1, 4}));
  EXPECT_EQ(Page("type=A&type=B&category=acc").first, (Positions{2, 5}));
  EXPECT_EQ(Page("category=nothing"), std::make_pair(Positions{}, std::string("7")));
}

TEST_F(AllTest, NextSkipsPastFilteredEventsSoPagingNeverRescans) {
  auto [first, next1] = Page("category=acc&limit=1");
  EXPECT_EQ(first, (Positions{2}));
  const std::int64_t n1 = std::stoll(next1);
  EXPECT_GT(n1, 2);
  EXPECT_LE(n1, 5);
  auto [second, next2] = Page("category=acc&limit=1&from=" + next1);
  EXPECT_EQ(second, (Positions{5}));
  const std::int64_t n2 = std::stoll(next2);
  EXPECT_GT(n2, 5);
  EXPECT_LE(n2, 7);
  auto [third, next3] = Page("category=acc&from=" + next2);
  EXPECT_EQ(third, (Positions{}));
  EXPECT_EQ(next3, "7");
  // Everything up to the end was skipped: the next read starts past it.
  EXPECT_EQ(Page("category=todo&from=5").second, "7");
}

TEST_F(AllTest, WaitMsLongPollsUntilAnAppendLands) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto waiting = std::async(std::launch::async, [port = port()] {
    HttpClient other(port);
    return other.Get("/all?from=7&waitMs=30000");
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_EQ(waiting.wait_for(std::chrono::seconds(0)), std::future_status::timeout)
      << "the long poll answered before anything was appended: " << waiting.get().body;
  ASSERT_EQ(Append("late-1", EventJson("L")).status, 201u);
  HttpResponse answer = waiting.get();
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(20)) << "it waited for the timeout";
  ASSERT_EQ(answer.status, 200u) << answer.body << answer.error;
  const std::vector<json::object> events = EventsOf(answer.Json());
  ASSERT_EQ(events.size(), 1u) << answer.body;
  EXPECT_EQ(IntOf(events[0], "position"), 7);
  EXPECT_EQ(StringOf(events[0], "stream"), "late-1");
  EXPECT_EQ(Member(answer.Json(), "next"), "8");

  // Nothing comes: an empty page once the time passes.
  EXPECT_EQ(Page("from=8&waitMs=300"), std::make_pair(Positions{}, std::string("8")));
  // Events already there: no waiting.
  const auto before = Clock::now();
  EXPECT_EQ(Page("from=6&waitMs=60000").first, (Positions{6, 7}));
  EXPECT_LT(Clock::now() - before, std::chrono::seconds(30));
}

TEST_F(AllTest, HealthSaysOkAndTheLastPosition) {
  HttpResponse health = http().Get("/health");
  ASSERT_EQ(health.status, 200u) << health.body;
  EXPECT_EQ(Member(health.Json(), "status"), "\"ok\"");
  EXPECT_EQ(Member(health.Json(), "lastPosition"), "6");
}

// name{labels} -> value for every sample of a Prometheus text page; fails
// the test on a line that is not in the format.
std::map<std::string, double> ParseMetrics(const std::string& text) {
  std::map<std::string, double> samples;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    if (line[0] == '#') {
      EXPECT_TRUE(line.rfind("# HELP ", 0) == 0 || line.rfind("# TYPE ", 0) == 0) << line;
      continue;
    }
    std::size_t name_end = 0;
    while (name_end < line.size() && (std::isalnum(static_cast<unsigned char>(line[name_end])) ||
                                      line[name_end] == '_' || line[name_end] == ':')) {
      ++name_end;
    }
    std::size_t key_end = name_end;
    if (key_end < line.size() && line[key_end] == '{') key_end = line.find('}', key_end) + 1;
    EXPECT_TRUE(name_end > 0 && key_end > 0 && key_end < line.size() && line[key_end] == ' ')
        << "not a sample: " << line;
    if (name_end == 0 || key_end == 0 || key_end >= line.size()) continue;
    std::istringstream value_text(line.substr(key_end + 1));
    std::string value;
    value_text >> value;
    char* end = nullptr;
    const double number = std::strtod(value.c_str(), &end);
    EXPECT_TRUE(!value.empty() && *end == '\0') << "not a value: " << line;
    samples[line.substr(0, key_end)] = number;
  }
  return samples;
}

// The sum of the samples whose name passes `match`.
template <typename Match>
double Sum(const std::map<std::string, double>& samples, Match match) {
  double sum = 0;
  for (const auto& [key, value] : samples) {
    if (match(key.substr(0, key.find('{')))) sum += value;
  }
  return sum;
}

TEST_F(AllTest, MetricsAreInPrometheusTextFormatAndCount) {
  HttpResponse before = http().Get("/metrics");
  ASSERT_EQ(before.status, 200u) << before.body;
  const std::string type = before.Header("Content-Type").value_or("");
  EXPECT_EQ(type.rfind("text/plain", 0), 0u) << type;
  EXPECT_NE(type.find("version=0.0.4"), std::string::npos) << type;
  const auto samples = ParseMetrics(before.body);
  // A sample whose name starts with indelible_ and holds every word.
  auto has = [&](std::initializer_list<const char*> words) {
    return std::any_of(samples.begin(), samples.end(), [&](const auto& sample) {
      const std::string name = sample.first.substr(0, sample.first.find('{'));
      if (name.rfind("indelible_", 0) != 0) return false;
      return std::all_of(words.begin(), words.end(),
                         [&](const char* word) { return name.find(word) != std::string::npos; });
    });
  };
  // The list: appends, events, bytes, append latency histogram,
  // syncs, events per sync, open connections, subscribers, errors by kind.
  EXPECT_TRUE(has({"append"}));
  EXPECT_TRUE(has({"event"}));
  EXPECT_TRUE(has({"bytes"}));
  EXPECT_TRUE(has({"append", "_bucket"})) << "an append latency histogram";
  EXPECT_TRUE(has({"sync"}));
  EXPECT_TRUE(has({"connection"}));
  EXPECT_TRUE(has({"subscri"}));
  EXPECT_TRUE(has({"error"}));

  auto appends = [](const std::string& name) {
    return name.rfind("indelible_", 0) == 0 && name.find("append") != std::string::npos &&
           name.size() > 6 && name.compare(name.size() - 6, 6, "_total") == 0;
  };
  const double appended = Sum(samples, appends);
  ASSERT_EQ(Append("m", EventJson("T")).status, 201u);
  HttpResponse after = http().Get("/metrics");
  ASSERT_EQ(after.status, 200u);
  EXPECT_GT(Sum(ParseMetrics(after.body), appends), appended) << after.body;
}

// Every page of `query` from position 1 through `next`: the positions of each
// page and the size of each body.
struct Pages {
  std::vector<Positions> positions;
  std::vector<std::size_t> bytes;
  std::vector<std::string> nexts;
};
Pages PageThrough(HttpClient& http, const std::string& query, std::int64_t end) {
  Pages pages;
  std::string next = "1";
  while (std::stoll(next) <= end && pages.positions.size() < 100) {
    HttpResponse page = http.Get("/all?" + query + "&from=" + next);
    EXPECT_EQ(page.status, 200u) << page.body.substr(0, 200);
    if (page.status != 200) break;
    Positions positions;
    for (const auto& event : EventsOf(page.Json())) positions.push_back(IntOf(event, "position"));
    pages.positions.push_back(positions);
    pages.bytes.push_back(page.body.size());
    const std::string was = next;
    next = Member(page.Json(), "next");
    pages.nexts.push_back(next);
    if (next == was) {
      ADD_FAILURE() << "next did not move past " << next;
      break;
    }
  }
  return pages;
}

TEST_F(AllTest, PagesStopAtTheByteBudgetAndNextReadsEveryEventOnce) {
  constexpr std::size_t kBudget = 1 << 20;
  ASSERT_NO_FATAL_FAILURE(Start({"--max-page-bytes", std::to_string(kBudget)}));
  const std::string data = "\"" + std::string(300 * 1024, 'x') + "\"";
  for (int i = 0; i < 12; ++i) ASSERT_EQ(Append("big-1", EventJson("Big", data)).status, 201u);
  const Pages pages = PageThrough(http(), "limit=50", 18);
  Positions seen;
  for (std::size_t i = 0; i < pages.positions.size(); ++i) {
    EXPECT_FALSE(pages.positions[i].empty()) << "page " << i;
    // One 300 KiB event more would pass the budget: it starts the next page.
    EXPECT_LE(pages.bytes[i], kBudget) << "page " << i << " of " << pages.positions[i].size();
    seen.insert(seen.end(), pages.positions[i].begin(), pages.positions[i].end());
  }
  Positions every(18);
  for (int i = 0; i < 18; ++i) every[i] = i + 1;
  EXPECT_EQ(seen, every);
  EXPECT_GE(pages.positions.size(), 4u);
}

// Stream reads keep the same budget, forward and backward: each page holds
// at least one event and no more JSON than --max-page-bytes, and following
// nextVersion reads every version once.
TEST_F(AllTest, StreamPagesStopAtTheByteBudgetBothWays) {
  constexpr std::size_t kBudget = 1 << 20;
  ASSERT_NO_FATAL_FAILURE(Start({"--max-page-bytes", std::to_string(kBudget)}));
  const std::string data = "\"" + std::string(300 * 1024, 'x') + "\"";
  for (int i = 0; i < 10; ++i) ASSERT_EQ(Append("big-1", EventJson("Big", data)).status, 201u);
  for (const std::string direction : {"forward", "backward"}) {
    std::vector<std::int64_t> versions;
    std::string from = direction == "forward" ? "0" : "9";
    int pages = 0;
    while (from != "null" && pages < 20) {
      HttpResponse page =
          http().Get("/streams/big-1?limit=50&direction=" + direction + "&from=" + from);
      ASSERT_EQ(page.status, 200u) << page.body.substr(0, 200);
      EXPECT_LE(page.body.size(), kBudget) << direction << " page " << pages;
      const auto events = EventsOf(page.Json());
      EXPECT_FALSE(events.empty()) << direction << " page " << pages;
      for (const auto& event : events) versions.push_back(IntOf(event, "version"));
      from = Member(page.Json(), "nextVersion");
      ++pages;
    }
    EXPECT_GE(pages, 4) << direction;  // three 300 KiB events fit in 1 MiB, four do not
    std::vector<std::int64_t> every(10);
    for (int i = 0; i < 10; ++i) every[i] = direction == "forward" ? i : 9 - i;
    EXPECT_EQ(versions, every) << direction;
  }
}

TEST_F(AllTest, AFilteredReadScansABoundedNumberOfEventsAndNextGoesOn) {
  ASSERT_NO_FATAL_FAILURE(Start({"--max-scan-events", "3"}));
  // Positions 4 and 6 are of type C; each request looks at 3 events.
  EXPECT_EQ(Page("type=C"), std::make_pair(Positions{}, std::string("4")));
  EXPECT_EQ(Page("type=C&from=4"), std::make_pair(Positions{4, 6}, std::string("7")));
  // Nothing matches: each request still stops, and says where to go on.
  const Pages pages = PageThrough(http(), "type=nope", 6);
  EXPECT_EQ(pages.nexts, (std::vector<std::string>{"4", "7"}));
  // A long poll whose scan ran out answers at once with where it got to,
  // rather than waiting as if it had reached the end.
  EXPECT_EQ(Page("type=nope&waitMs=5000"), std::make_pair(Positions{}, std::string("4")));
  // Unfiltered, every event looked at is returned: `limit` bounds the read.
  EXPECT_EQ(Page("limit=5").first, (Positions{1, 2, 3, 4, 5}));
}

// The value of the sample "NAME VALUE" in Prometheus text; -1 if absent.
double Metric(const std::string& text, const std::string& name) {
  const auto at = text.find("\n" + name + " ");
  return at == std::string::npos ? -1 : std::stod(text.substr(at + name.size() + 2));
}

TEST_F(AllTest, ATimedOutLongPollLeavesNoCommitWaiterBehind) {
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(Page("from=7&waitMs=200"), std::make_pair(Positions{}, std::string("7")));
  EXPECT_EQ(Metric(http().Get("/metrics").body, "indelible_commit_waiters"), 0)
      << "timed-out long polls are still registered for the next commit";
  // An answered one leaves none either.
  auto waiting = std::async(std::launch::async, [port = port()] {
    return HttpClient(port).Get("/all?from=7&waitMs=30000");
  });
  for (int i = 0; i < 200 && Metric(http().Get("/metrics").body, "indelible_commit_waiters") < 1;
       ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(Append("late-1", EventJson("L")).status, 201u);
  EXPECT_EQ(EventsOf(waiting.get().Json()).size(), 1u);
  EXPECT_EQ(Metric(http().Get("/metrics").body, "indelible_commit_waiters"), 0);
}

}  // namespace
}  // namespace indelible

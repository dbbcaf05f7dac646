// The `project` verbs end to end: `indelible project` (list, retry, skip on
// any read store) and a program with projections (indelible-todo project
// run, rebuild), on a data folder and its default SQLite read store.
#include <gtest/gtest.h>
#include <indelible/read_store.h>
#include <indelible/types.h>

#include "testutil/cli_runner.h"
#include "testutil/temp_dir.h"

namespace indelible {
namespace {

class ProjectCliTest : public ::testing::Test {
 protected:
  testutil::CliOutcome Indelible(const std::string& args) {
    return testutil::RunCli(INDELIBLE_PATH, "--data " + data_, args, "", scratch_);
  }
  testutil::CliOutcome Todo(const std::string& args) {
    return testutil::RunCli(INDELIBLE_TODO_PATH, "project", args + " --data " + data_, "",
                            scratch_);
  }
  std::int64_t Todos() {
    auto db = ReadStore::Open("sqlite:" + data_ + ".read.db");
    if (!db.ok()) return -1;
    auto rows = (*db)->Query("SELECT COUNT(*) FROM todos");
    return rows.ok() ? SqlInt(rows->front()[0]) : -1;
  }

  testutil::TempDir dir_, scratch_;
  const std::string data_ = dir_.Sub("data");
};

TEST_F(ProjectCliTest, RunListRebuildAndOperatorVerbs) {
  for (int i = 0; i < 5; ++i) {
    auto appended = Indelible("append todo-" + EventId::Random().ToString() +
                              " --type Todo.Created --data '{\"title\":\"t\"}'");
    ASSERT_EQ(appended.exit_code, 0) << appended.err;
  }
  auto run = Todo("run --until-caught-up");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("todo-list v2 copy 1 at position 5 (5 applied)"), std::string::npos)
      << run.out;
  EXPECT_EQ(Todos(), 5);

  auto list = Indelible("project list");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("todo-list v2 copy 1 at position 5 of 5 (lag 0)"), std::string::npos)
      << list.out;
  auto json = Indelible("--json project list");
  EXPECT_NE(json.out.find(R"("name":"todo-list","version":2,"generation":1,"position":5)"),
            std::string::npos)
      << json.out;

  auto rebuilt = Todo("rebuild todo-list");
  ASSERT_EQ(rebuilt.exit_code, 0) << rebuilt.err;
  EXPECT_NE(rebuilt.out.find("rebuilt todo-list: 5 events applied"), std::string::npos)
      << rebuilt.out;
  EXPECT_NE(rebuilt.out.find("now copy 2 at position 5"), std::string::npos) << rebuilt.out;
  EXPECT_EQ(Todos(), 5) << "the new copy behind the view";

  // The generic CLI has no projection code: rebuild says where to run it.
  auto generic = Indelible("project rebuild todo-list");
  EXPECT_EQ(generic.exit_code, 2);
  EXPECT_NE(generic.err.find("indelible-todo project rebuild"), std::string::npos) << generic.err;
  auto unknown = Todo("rebuild nope");
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_NE(unknown.err.find("no projection 'nope' here (known: todo-list)"), std::string::npos)
      << unknown.err;
  auto not_blocked = Indelible("project skip todo-list");
  EXPECT_EQ(not_blocked.exit_code, 2);
  EXPECT_NE(not_blocked.err.find("is not blocked"), std::string::npos) << not_blocked.err;
  EXPECT_NE(Indelible("project retry nope").exit_code, 0);
}

}  // namespace
}  // namespace indelible

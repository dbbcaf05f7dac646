// indelible-todo behind the security flags of `serve` (serve_flags.h,
// docs/SECURITY.md): its own routes take the same API keys as the standard
// ones.
#include "blackbox/auth_fixture.h"

namespace indelible {
namespace {

using testutil::CliOutcome;
using testutil::RunCli;

// indelible-todo takes the security flags of `serve` (serve_flags.h) and its
// routes (which name no stream prefix: the right on every stream) take the
// same keys.
TEST(AuthTodo, TheTodoRoutesTakeTheSameCredentials) {
  testutil::TempDir tmp;
  const std::string data = tmp.Sub("data");
  const auto key = [&](const std::string& name, const std::string& role) {
    const CliOutcome made = RunCli(INDELIBLE_PATH, "--data " + data,
                                   "keys create " + name + " --role " + role, "", tmp);
    EXPECT_EQ(made.exit_code, 0) << made.err;
    return made.out.substr(0, made.out.find('\n'));
  };
  const std::string writer = key("todo-writer", "writer");
  const std::string reader = key("todo-reader", "reader");
  Launched todo(INDELIBLE_TODO_PATH,
                {"--store", "file:" + data, "--listen", "127.0.0.1:0", "--auth"},
                tmp.path().string());
  ASSERT_TRUE(todo.Start()) << "indelible-todo did not start with --auth (examples/todo/main.cc "
                               "must call AddServeSecurityFlags): "
                            << todo.output();
  HttpClient http(todo.port());
  const std::string body = R"({"id":")" + NewUuid() + R"(","title":"t"})";
  EXPECT_TRUE(IsRefusal(http.Post("/todo", body), 401));
  EXPECT_TRUE(IsRefusal(http.Post("/todo", body, Bearer(reader)), 403));
  EXPECT_EQ(http.Post("/todo", body, Bearer(writer)).status, 201u);
  EXPECT_TRUE(IsRefusal(http.Get("/todo"), 401));
  EXPECT_EQ(http.Get("/todo", Bearer(reader)).status, 200u);
  // The standard routes beside them too.
  EXPECT_TRUE(IsRefusal(http.Get("/all"), 401));
  EXPECT_EQ(http.Get("/all", Bearer(reader)).status, 200u);
}

}  // namespace
}  // namespace indelible

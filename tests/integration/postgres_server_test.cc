// The groundwork for the PostgreSQL read store: scripts/postgres.sh (through
// testutil::PostgresServer) starts a real throwaway cluster that libpqxx can
// use, listening on 127.0.0.1 only; stop closes the port and a start on the
// same folder finds the data again; kill is a crash the next start recovers
// from.
#include "testutil/postgres_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <pqxx/pqxx>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace indelible {
namespace {

// The local addresses of every TCP socket listening on `port`, IPv4 and
// IPv6, from the kernel's own tables (/proc/net/tcp{,6}).
std::vector<std::string> ListenersOn(int port) {
  std::vector<std::string> found;
  for (const int family : {AF_INET, AF_INET6}) {
    std::ifstream table(family == AF_INET ? "/proc/net/tcp" : "/proc/net/tcp6");
    std::string line;
    std::getline(table, line);  // the header
    while (std::getline(table, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state;
      fields >> slot >> local >> remote >> state;
      const auto colon = local.find(':');
      if (state != "0A" || colon == std::string::npos) continue;  // 0A: LISTEN
      if (std::stoi(local.substr(colon + 1), nullptr, 16) != port) continue;
      // The address is printed as 32-bit words in host order.
      unsigned char addr[16];
      const std::string hex = local.substr(0, colon);
      for (std::size_t word = 0; word < hex.size() / 8; ++word) {
        const auto value =
            static_cast<std::uint32_t>(std::stoul(hex.substr(word * 8, 8), nullptr, 16));
        std::memcpy(addr + word * 4, &value, 4);
      }
      char text[INET6_ADDRSTRLEN] = {};
      ::inet_ntop(family, addr, text, sizeof(text));
      found.emplace_back(text);
    }
  }
  return found;
}

// Whether something accepts TCP connections on ip:port.
bool Accepts(const char* ip, int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  ::inet_pton(AF_INET, ip, &addr.sin_addr);
  const bool ok = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) == 0;
  ::close(fd);
  return ok;
}

std::vector<std::string> Titles(pqxx::transaction_base& tx) {
  std::vector<std::string> titles;
  for (const auto& row : tx.exec("SELECT title FROM todos ORDER BY position")) {
    titles.push_back(row[0].as<std::string>());
  }
  return titles;
}

const std::vector<std::string> kTitles = {"milk", "bread", "oat milk"};

TEST(PostgresServer, ServesOnLoopbackOnlyAndKeepsItsDataAcrossARestart) {
  testutil::PostgresServer pg;
  ASSERT_TRUE(pg.Start()) << pg.output();
  const std::string url = pg.url();
  EXPECT_EQ(url, "postgresql://postgres@127.0.0.1:" + std::to_string(pg.port()) + "/indelible");

  {
    pqxx::connection conn(url);
    pqxx::work tx(conn);
    tx.exec0("CREATE TABLE todos (position BIGINT PRIMARY KEY, title TEXT NOT NULL)");
    for (std::size_t i = 0; i < kTitles.size(); ++i) {
      tx.exec_params0("INSERT INTO todos VALUES ($1, $2)", static_cast<long>(i + 1), kTitles[i]);
    }
    EXPECT_EQ(Titles(tx), kTitles);  // its own writes, before the commit
    tx.commit();

    // Not committed, not there.
    {
      pqxx::work aborted(conn);
      aborted.exec_params0("INSERT INTO todos VALUES ($1, $2)", 99L, "never");
    }
    pqxx::read_transaction read(conn);
    EXPECT_EQ(Titles(read), kTitles);
    EXPECT_EQ(read.exec1("SHOW listen_addresses")[0].as<std::string>(), "127.0.0.1");
    EXPECT_EQ(read.exec1("SELECT current_database()")[0].as<std::string>(), "indelible");
  }

  // The one listening socket on the port is 127.0.0.1's: nothing on
  // 0.0.0.0, ::, another interface, or even 127.0.0.2.
  EXPECT_EQ(ListenersOn(pg.port()), std::vector<std::string>{"127.0.0.1"});
  EXPECT_TRUE(Accepts("127.0.0.1", pg.port()));
  EXPECT_FALSE(Accepts("127.0.0.2", pg.port()));

  ASSERT_TRUE(pg.Stop()) << pg.output();
  EXPECT_TRUE(ListenersOn(pg.port()).empty());
  EXPECT_FALSE(Accepts("127.0.0.1", pg.port()));
  EXPECT_THROW(pqxx::connection{url}, pqxx::broken_connection);
  EXPECT_TRUE(pg.Stop()) << pg.output();  // stopping twice is fine

  ASSERT_TRUE(pg.Start()) << pg.output();
  EXPECT_EQ(pg.url(), url);  // the same port again
  pqxx::connection conn(url);
  pqxx::read_transaction read(conn);
  EXPECT_EQ(Titles(read), kTitles);
}

TEST(PostgresServer, KillIsACrashTheNextStartRecoversFrom) {
  testutil::PostgresServer pg;
  ASSERT_TRUE(pg.Start()) << pg.output();
  {
    pqxx::connection conn(pg.url());
    pqxx::work tx(conn);
    tx.exec0("CREATE TABLE todos (position BIGINT PRIMARY KEY, title TEXT NOT NULL)");
    tx.exec_params0("INSERT INTO todos VALUES ($1, $2)", 1L, "milk");
    tx.commit();

    // With a client still connected: its backend goes too.
    ASSERT_TRUE(pg.Kill()) << pg.output();
    EXPECT_FALSE(Accepts("127.0.0.1", pg.port()));
    EXPECT_TRUE(pg.Kill()) << pg.output();  // killing twice is fine
    EXPECT_TRUE(pg.Stop()) << pg.output();  // and so is stopping the dead
  }

  ASSERT_TRUE(pg.Start()) << pg.output();
  pqxx::connection conn(pg.url());
  pqxx::read_transaction read(conn);
  EXPECT_EQ(Titles(read), std::vector<std::string>{"milk"});  // committed, so kept
}

}  // namespace
}  // namespace indelible

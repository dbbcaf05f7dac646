#include "bench/postgres_cluster.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

namespace indelible::bench {
namespace {

std::string Quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs a shell command; its standard output (stderr passes through).
Result<std::string> Shell(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return Status::Unavailable("cannot run: " + command);
  std::string out;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0;) out.append(buffer, n);
  const int rc = pclose(pipe);
  if (rc != 0) return Status::Unavailable(fmt::format("'{}' failed (status {})", command, rc));
  return out;
}

}  // namespace

Result<std::unique_ptr<Cluster>> Cluster::Start(const std::string& dir) {
  const std::string script = std::string(INDELIBLE_SOURCE_DIR) + "/scripts/postgres.sh";
  std::error_code ec;
  if (!std::filesystem::exists(script, ec))
    return Status::Unavailable(
        fmt::format("--postgres needs {} (this build's source tree): give --read-store "
                    "postgresql://... instead",
                    script));
  auto said = Shell(Quote(script) + " start " + Quote(dir));
  if (!said.ok()) return said.status();
  std::string url = *said;
  while (!url.empty() && (url.back() == '\n' || url.back() == ' ')) url.pop_back();
  url = url.substr(url.rfind('\n') + 1);  // npos + 1 == 0: the only line
  if (!url.starts_with("postgresql://"))
    return Status::Unavailable("scripts/postgres.sh start printed no URL: " + *said);
  return std::unique_ptr<Cluster>(new Cluster(script, dir, url));
}

Cluster::~Cluster() { (void)Shell(Quote(script_) + " stop " + Quote(dir_)); }

std::optional<double> Cluster::CpuSeconds() const {
  std::ifstream pidfile(dir_ + "/data/postmaster.pid");
  long postmaster = 0;
  if (!(pidfile >> postmaster)) return std::nullopt;
  double ticks = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream file(entry.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    const std::size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    // After "pid (comm) ": state ppid ... utime (14th field) stime cutime cstime.
    std::istringstream fields(stat.substr(close + 2));
    std::string state;
    long ppid = 0;
    fields >> state >> ppid;
    std::string skip;
    for (int i = 5; i < 14; ++i) fields >> skip;
    double utime = 0, stime = 0, cutime = 0, cstime = 0;
    fields >> utime >> stime >> cutime >> cstime;
    if (std::stol(name) == postmaster)
      ticks += utime + stime + cutime + cstime;
    else if (ppid == postmaster)
      ticks += utime + stime;
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

}  // namespace indelible::bench

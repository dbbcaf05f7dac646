#include "server_cpu.h"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "blocking_connection.h"

namespace {

// utime + stime of the process, fields 14 and 15 of /proc/PID/stat (after
// the command name in parentheses, which may hold spaces).
double ProcessCpu(int pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto paren = text.rfind(')');
  if (paren == std::string::npos) return -1;
  std::istringstream fields(text.substr(paren + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i)
    if (i >= 14) ticks += std::stod(field);
  return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

double Counter(const std::string& metrics, const std::string& name) {
  const std::string line_start = "\n" + name + " ";
  const auto at = metrics.find(line_start);
  if (at == std::string::npos) return -1;
  return std::stod(metrics.substr(at + line_start.size()));
}

}  // namespace

ServerCpu ReadServerCpu(const tcp::endpoint& server, int pid,
                        const std::vector<std::pair<std::string, std::string>>& headers) {
  ServerCpu cpu;
  if (pid > 0) cpu.process_s = ProcessCpu(pid);
  try {
    BlockingConnection connection(server, headers);
    const auto response = connection.Send(http::verb::get, "/metrics");
    if (response.result() == http::status::ok) {
      cpu.commit_s = Counter(response.body(), "indelible_store_commit_cpu_seconds_total");
      cpu.sync_s = Counter(response.body(), "indelible_store_sync_cpu_seconds_total");
    }
  } catch (const std::exception&) {
    // A server without the counters, or behind TLS: the line goes without.
  }
  return cpu;
}

std::string CpuPerEvent(const ServerCpu& before, const ServerCpu& after, double events) {
  if (events <= 0) return {};
  std::string out;
  auto add = [&](const char* key, double a, double b) {
    if (a >= 0 && b >= 0) out += fmt::format(" {}={:.2f}", key, (b - a) * 1e6 / events);
  };
  add("server_cpu_us_per_event", before.process_s, after.process_s);
  add("commit_cpu_us_per_event", before.commit_s, after.commit_s);
  add("sync_cpu_us_per_event", before.sync_s, after.sync_s);
  return out;
}

// Where the server's CPU goes during a phase, per event: the whole server
// process's (from /proc/PID/stat, when the bench knows its pid) and the
// store's commit and sync paths (the counters of GET /metrics, StoreStats).
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <string>
#include <utility>
#include <vector>

struct ServerCpu {
  double process_s = -1;  // -1: not known
  double commit_s = -1;
  double sync_s = -1;
};

// Reads both now. `headers` go with the /metrics request (credentials).
ServerCpu ReadServerCpu(const boost::asio::ip::tcp::endpoint& server, int pid,
                        const std::vector<std::pair<std::string, std::string>>& headers);

// " cpu_us_per_event=... commit_cpu_us_per_event=... sync_cpu_us_per_event=..."
// for what both readings know; empty when neither knows anything.
std::string CpuPerEvent(const ServerCpu& before, const ServerCpu& after, double events);

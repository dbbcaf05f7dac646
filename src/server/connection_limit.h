// Staying within the process's file descriptors: a cap on open connections
// (ServeOptions::max_connections), and what happens at it.
//
// At the cap a new connection first evicts the connection that has been
// idle between requests the longest (an idle keep-alive connection costs
// its client only a reconnect); when none is idle, the new one is answered
// 503 with Retry-After and closed, so a client sees a clear refusal instead
// of a hang, and the server keeps the descriptors its own work needs.
// An accept that fails (EMFILE, ENFILE, ENOBUFS) waits a moment before the
// next, instead of spinning on an error that repeats at once.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <cstddef>

namespace indelible::server {

struct ServerContext;

// Raises the soft RLIMIT_NOFILE to the hard limit and returns the soft limit
// in force.
std::size_t RaiseDescriptorLimit();

// max_connections when the options say 0: three quarters of the descriptor
// limit, leaving the rest to the store's files and the server's own needs.
std::size_t DefaultMaxConnections(std::size_t descriptor_limit);

// Closes the longest-idle keep-alive connection; false if none is idle.
bool EvictIdleConnection(ServerContext& context);

// Answers 503 (too many connections) on `socket` and closes it.
void ShedConnection(boost::asio::ip::tcp::socket socket);

}  // namespace indelible::server

// The short names the HTTP benchmark's files use for Asio and Beast.
#pragma once

#include <boost/asio.hpp>
#include <boost/beast.hpp>
#include <chrono>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

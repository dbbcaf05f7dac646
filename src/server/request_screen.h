// Screening a request before any route sees it: the checks that keep a web
// page in a browser from using a server on this machine (docs/SECURITY.md).
//
//   Host     when the server listens on loopback only, the Host header must
//            name loopback (localhost, 127.x.x.x, [::1]); a page whose own
//            name was rebound to 127.0.0.1 (DNS rebinding) sends its name.
//   Origin   a state-changing request (anything but GET, HEAD, OPTIONS)
//            carrying an Origin must come from the server itself (the
//            Origin's host is the Host header) or from an allowed origin.
//   Body     a request with a body must say Content-Type: application/json;
//            a page can send text/plain or a Blob without asking, never JSON
//            without the browser asking the server first (CORS preflight).
//
// Allowed origins also get CORS answers: a preflight (OPTIONS with
// Access-Control-Request-Method) is answered 204 with what they may send.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "indelible/status.h"
#include "server/http.h"

namespace indelible::server {

struct ScreenPolicy {
  // The server listens on a loopback address only.
  bool loopback = true;
  // scheme://host[:port] as browsers send them; "*" allows any origin.
  std::vector<std::string> allowed_origins;
};

struct Refusal {
  http::status status;
  Status error;
};

// nullopt: the request may go on to its route.
std::optional<Refusal> ScreenRequest(const Request& request, const ScreenPolicy& policy);

// The Host header names loopback ("localhost", "x.localhost", 127.0.0.0/8,
// [::1], any port).
bool IsLoopbackHost(std::string_view host);

// The CORS headers for a request from an allowed origin (none for others);
// a preflight gets its full answer here.
bool IsPreflight(const Request& request);
void AddCorsHeaders(const Request& request, const ScreenPolicy& policy, Response& response);

}  // namespace indelible::server

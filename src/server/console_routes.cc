// GET / and GET /console/...: the web console (docs/CONSOLE.md), served from
// the assets embedded at build time (console_files.h). Open, like /health: a
// browser sends no credential when it navigates, and the files hold no
// data; the console asks for a credential and sends it with each API call.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "server/console_files.h"
#include "server/routes.h"

namespace indelible::server {
namespace {

// The console's own code and nothing else: no inline script, no other
// origin, never in a frame (clickjacking an operator's Skip button).
// uPlot sets styles at run time, hence 'unsafe-inline' for styles only.
constexpr std::string_view kContentSecurityPolicy =
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

std::string_view ContentType(std::string_view name) {
  if (name.ends_with(".html")) return "text/html; charset=utf-8";
  if (name.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (name.ends_with(".css")) return "text/css; charset=utf-8";
  return "application/octet-stream";
}

// Whether Accept-Encoding takes gzip: a `gzip` or `*` coding whose q is not 0.
bool AcceptsGzip(std::string_view header) {
  while (!header.empty()) {
    const auto comma = header.find(',');
    std::string_view coding = header.substr(0, comma);
    header = comma == std::string_view::npos ? std::string_view() : header.substr(comma + 1);
    const auto semicolon = coding.find(';');
    std::string_view params =
        semicolon == std::string_view::npos ? std::string_view() : coding.substr(semicolon + 1);
    coding = coding.substr(0, semicolon);
    while (!coding.empty() && coding.front() == ' ') coding.remove_prefix(1);
    while (!coding.empty() && coding.back() == ' ') coding.remove_suffix(1);
    if (coding != "gzip" && coding != "*") continue;
    params.remove_prefix(std::min(params.find_first_not_of(' '), params.size()));
    const bool refused =
        params.starts_with("q=0") && params.find_first_of("123456789") == std::string_view::npos;
    if (!refused) return true;
  }
  return false;
}

struct Asset {
  const EmbeddedFile* file;
  std::string etag;       // of the file as built
  std::string gzip_etag;  // of its gzipped form: another representation
};

std::vector<Asset> IndexAssets() {
  std::vector<Asset> assets;
  for (const EmbeddedFile& file : ConsoleFiles()) {
    const auto hash = std::hash<std::string_view>{}(file.body);
    assets.push_back(
        {&file, fmt::format("\"{:016x}\"", hash), fmt::format("\"{:016x}-gz\"", hash)});
  }
  return assets;
}

// Relative ("console/" from "/" and from "/console" alike), so that a proxy
// which mounts the server under a path of its own keeps it.
constexpr std::string_view kConsoleFolder = "console/";

void Redirect(Exchange& exchange, std::string_view location) {
  Response response(http::status::found, exchange.request().version());
  response.set(http::field::location, location);
  exchange.Respond(std::move(response));
}

Status NoConsole() {
  return Status::NotFound(
      "this build has no web console: configure with -DINDELIBLE_WITH_CONSOLE=ON (it needs "
      "Node.js and npm to build; docs/CONSOLE.md)");
}

void Serve(Exchange& exchange, const Asset& asset) {
  const Request& request = exchange.request();
  const bool gzip = AcceptsGzip(request[http::field::accept_encoding]);
  const std::string& etag = gzip ? asset.gzip_etag : asset.etag;
  const bool fresh = request[http::field::if_none_match] == etag;
  Response response(fresh ? http::status::not_modified : http::status::ok, request.version());
  response.set(http::field::content_type, ContentType(asset.file->name));
  response.set(http::field::etag, etag);
  // The names are fixed, so a browser asks again each time (a 304 when
  // nothing changed) and a new binary's console shows at once.
  response.set(http::field::cache_control, "no-cache");
  response.set(http::field::vary, "Accept-Encoding");
  response.set("Content-Security-Policy", kContentSecurityPolicy);
  response.set("X-Content-Type-Options", "nosniff");
  response.set("Referrer-Policy", "no-referrer");
  if (gzip) response.set(http::field::content_encoding, "gzip");
  if (!fresh) response.body() = std::string(gzip ? asset.file->gzipped : asset.file->body);
  exchange.Respond(std::move(response));
}

}  // namespace

void AddConsoleRoutes(Router& router, ServerContext& /*context*/) {
  auto assets = std::make_shared<const std::vector<Asset>>(IndexAssets());
  router.Add(http::verb::get, "/", Access::Open(), [assets](std::shared_ptr<Exchange> exchange) {
    if (assets->empty()) return exchange->RespondError(NoConsole());
    Redirect(*exchange, kConsoleFolder);
  });
  // The assets refer to each other relatively: /console would resolve them
  // against /.
  router.Add(http::verb::get, "/console", Access::Open(),
             [assets](std::shared_ptr<Exchange> exchange) {
               if (assets->empty()) return exchange->RespondError(NoConsole());
               Redirect(*exchange, kConsoleFolder);
             });
  router.Add(
      http::verb::get, "/console/{}", Access::Open(), [assets](std::shared_ptr<Exchange> exchange) {
        if (assets->empty()) return exchange->RespondError(NoConsole());
        const std::string& asked = exchange->params()[0];
        const std::string name = asked.empty() ? "index.html" : asked;
        const auto found = std::find_if(assets->begin(), assets->end(),
                                        [&](const Asset& a) { return a.file->name == name; });
        if (found == assets->end())
          return exchange->RespondError(Status::NotFound(
              fmt::format("the console has no file {}; it is served at /console/", name)));
        Serve(*exchange, *found);
      });
}

}  // namespace indelible::server

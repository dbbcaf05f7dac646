// The web console's built assets (console/, built by scripts/build-console.sh
// and embedded by cmake/embed_files.cmake), so that the binary serves its
// console with nothing else to deploy.
#pragma once

#include <span>
#include <string_view>

namespace indelible::server {

struct EmbeddedFile {
  std::string_view name;     // "app.js": the path under /console/
  std::string_view body;     // as built
  std::string_view gzipped;  // the same, gzip -9
};

// Empty in a build configured with -DINDELIBLE_WITH_CONSOLE=OFF.
std::span<const EmbeddedFile> ConsoleFiles();

}  // namespace indelible::server

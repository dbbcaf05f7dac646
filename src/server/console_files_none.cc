// ConsoleFiles() of a build without the console (-DINDELIBLE_WITH_CONSOLE=OFF:
// no Node.js needed to build it); the console's routes say so.
#include "server/console_files.h"

namespace indelible::server {

std::span<const EmbeddedFile> ConsoleFiles() { return {}; }

}  // namespace indelible::server

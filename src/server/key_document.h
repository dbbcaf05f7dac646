// A key as the API shows it (api/keys.h) from what auth keeps of it
// (auth/api_keys.h): the one conversion, for the server's /keys routes and
// the CLI's `keys` verbs on a data folder, so both print the same document.
#pragma once

#include "api/keys.h"
#include "auth/api_keys.h"

namespace indelible::server {

api::Key KeyDocument(const auth::KeyInfo& info);

}  // namespace indelible::server

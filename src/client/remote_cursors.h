// Cursors of the remote Store: they read page by page through a Client and
// look, to the code that uses them, like a local store's cursors.
#pragma once

#include <memory>
#include <string_view>

#include "indelible/client.h"
#include "indelible/store.h"

namespace indelible::client {

// Reads the first page now, so a missing or deleted stream is not_found
// here, as Store::ReadStream promises.
Result<std::unique_ptr<StreamCursor>> OpenRemoteStreamCursor(std::shared_ptr<Client> client,
                                                             std::string_view stream,
                                                             const ReadStreamOptions& options);

// Stops after position `end` (the server's last position when the cursor was
// made), so the cursor sees no later commits, like a local one.
Result<std::unique_ptr<AllCursor>> OpenRemoteAllCursor(std::shared_ptr<Client> client,
                                                       const ReadAllOptions& options, Position end);

// A query's events through POST /query, page by page. Forward, it stops
// after position `end` as the $all cursor does; backward, it starts at
// options.from or `end`.
Result<std::unique_ptr<AllCursor>> OpenRemoteQueryCursor(std::shared_ptr<Client> client,
                                                         const Query& query,
                                                         const ReadQueryOptions& options,
                                                         Position end);

}  // namespace indelible::client

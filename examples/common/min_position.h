// ?minPosition=P on a read-model query: read-your-writes for the examples.
// A write answers its position in $all; a query that passes it waits until
// the read model has applied every event up to P, so the client sees its
// own write.
#pragma once

#include <indelible/server.h>
#include <indelible/status.h>
#include <indelible/types.h>

#include <chrono>
#include <functional>

namespace examples {

// Ok when the request has no minPosition or `wait_for` reached it within
// `timeout`; invalid (400) for a value that is not a position, unavailable
// (503, retry) when the read model is still behind after `timeout`.
indelible::Status AwaitMinPosition(
    const indelible::HttpRequest& request,
    const std::function<bool(indelible::Position, std::chrono::milliseconds)>& wait_for,
    std::chrono::milliseconds timeout);

}  // namespace examples

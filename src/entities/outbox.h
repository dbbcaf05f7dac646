// The outbox: how outbound events of an entity command become events of the
// outbox stream, written in the command's commit.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "indelible/event.h"
#include "indelible/rules.h"

namespace indelible::entities {

// The id of the k-th event published by the rule of inbound event `cause`:
// the same inputs give the same id, so a command retried after a lost reply
// is an idempotent retry for its outbound events too.
EventId OutboundId(const EventId& cause, std::size_t k);

// The outbox event for `published`: its metadata carries the causation id,
// the inbound event's correlation id (or the causation id when it has none),
// and the entity stream and version of the cause.
EventData OutboxEvent(const PublishedEvent& published, std::string_view cause_metadata,
                      std::string_view stream, StreamVersion cause_version);

}  // namespace indelible::entities

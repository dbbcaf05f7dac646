// One event, by its position in $all or by its id (what a causationId or
// correlationId names). By position: GET /all?from=P&limit=1 gives the first
// event at or after P, so a different position means there is none at P.
// By id: GET /events/{id}, 404 when no event has it (or the caller may not
// read its stream).

import type { RecordedEvent } from '@indelible/client';
import { client } from '../client';
import { ErrorAlert } from '../components/ErrorAlert';
import { EventDetails } from '../components/EventDetails';
import { useLoad } from '../hooks';

const kEventId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// `event` null: there is none (the page's data is null while it loads).
async function load(key: string, signal: AbortSignal): Promise<{ event: RecordedEvent | null }> {
  if (kEventId.test(key)) {
    return { event: await client.findEvent(key, { signal }) };
  }
  if (!/^\d+$/.test(key)) return { event: null };
  const page = await client.readAllPage({ from: Number(key), limit: 1, signal });
  const event = page.events[0];
  return { event: event !== undefined && String(event.position) === key ? event : null };
}

export function EventPage({ position }: { position: string }) {
  const byId = kEventId.test(position);
  const valid = byId || /^\d+$/.test(position);
  const { data, error } = useLoad((signal) => load(position, signal), position);
  return (
    <>
      <h1>Event {position}</h1>
      {!valid && <p>An event is named by its position (a whole number) or its id (a UUID).</p>}
      <ErrorAlert error={error} />
      {valid && data && data.event === null && (
        <p>{byId ? `No event has the id ${position}.` : `No event at position ${position}.`}</p>
      )}
      {data?.event && <EventDetails event={data.event} full />}
    </>
  );
}

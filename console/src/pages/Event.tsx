// One event by its position in $all: GET /all?from=P&limit=1 gives the first
// event at or after P, so a different position means there is none at P.

import { getJson } from '../api';
import { ErrorAlert } from '../components/ErrorAlert';
import { EventDetails } from '../components/EventDetails';
import { useLoad } from '../hooks';
import type { AllPage } from '../types';

export function EventPage({ position }: { position: string }) {
  const valid = /^\d+$/.test(position);
  const { data, error } = useLoad(
    (signal) => (valid ? getJson<AllPage>(`/all?from=${position}&limit=1`, signal) : Promise.resolve(null)),
    position,
  );
  const event = data?.events[0];
  const found = event !== undefined && String(event.position) === position;
  return (
    <>
      <h1>Event {position}</h1>
      {!valid && <p>A position is a whole number.</p>}
      <ErrorAlert error={error} />
      {data && !found && <p>No event at position {position}.</p>}
      {found && <EventDetails event={event} full />}
    </>
  );
}

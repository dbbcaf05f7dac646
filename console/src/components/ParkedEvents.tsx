// A parking group's parked events one by one (GET /consumers/{group}/parked):
// where each came from and why, its state, the copy itself on demand, and
// Retry or Skip for a pending one (each confirmed by the page first).

import { useState } from 'preact/hooks';
import type { ParkedEvent } from '@indelible/client';
import { client } from '../client';
import { useLoad } from '../hooks';
import { href } from '../router';
import { ErrorAlert } from './ErrorAlert';
import { EventDetails } from './EventDetails';
import { Name, NameLink } from './NameLink';
import { TableBox } from './TableBox';
import { Time } from './Time';

const kPageSize = 50;
const kRefreshMs = 2000;

/** What `$parked` metadata holds about the original (docs/HTTP.md, policy `park`). */
interface ParkedFacts {
  stream?: string;
  version?: number;
  position?: number;
  attempts?: number;
  reason?: string;
  timestamp?: number;
}

function factsOf(parked: ParkedEvent): ParkedFacts {
  const facts = parked.event.metadata['$parked'];
  return facts !== null && typeof facts === 'object' ? (facts as ParkedFacts) : {};
}

export type ParkedAction = { kind: 'retry' | 'skip'; parked: ParkedEvent };

export interface ParkedEventsProps {
  group: string;
  /** May act on the group (the `consumers` right): Retry and Skip show. */
  canAct: boolean;
  /** Asks the page to confirm and run an action. */
  onAction: (action: ParkedAction) => void;
  /** Bumped by the page after an action, so the list reloads at once. */
  generation: number;
}

export function ParkedEvents({ group, canAct, onAction, generation }: ParkedEventsProps) {
  const [from, setFrom] = useState(0);
  const [open, setOpen] = useState<number | null>(null);
  const { data, error } = useLoad((signal) => client.consumers.parked(group, { from, limit: kPageSize, signal }), `${group}|${from}|${generation}`, kRefreshMs);
  return (
    <>
      <ErrorAlert error={error} />
      {data && data.events.length === 0 && from === 0 && <p>Nothing is parked.</p>}
      {data && data.events.length > 0 && (
        <TableBox label="Parked events">
          <thead>
            <tr>
              <th scope="col">Parked version</th>
              <th scope="col">From</th>
              <th scope="col">Type</th>
              <th scope="col">Reason</th>
              <th scope="col">Attempts</th>
              <th scope="col">Parked</th>
              <th scope="col">State</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {data.events.map((parked) => {
              const facts = factsOf(parked);
              const v = parked.parkedVersion;
              const expanded = open === v;
              return [
                <tr key={v}>
                  <td class="num">{v}</td>
                  <td>
                    {facts.stream !== undefined ? (
                      <>
                        <NameLink to={href(['streams', facts.stream])} name={facts.stream} /> v{facts.version}
                      </>
                    ) : (
                      '–'
                    )}
                  </td>
                  <td>
                    <Name name={parked.event.type} />
                  </td>
                  <td>
                    <span class="reason">{facts.reason ?? ''}</span>
                  </td>
                  <td class="num">{facts.attempts ?? ''}</td>
                  <td>
                    <Time ms={parked.event.timestamp} />
                  </td>
                  <td>{parked.state}</td>
                  <td>
                    <div class="buttons tight">
                      <button type="button" aria-expanded={expanded} aria-label={`View parked event ${v}`} onClick={() => setOpen(expanded ? null : v)}>
                        View
                      </button>
                      {canAct && parked.state === 'pending' && (
                        <>
                          <button type="button" aria-label={`Retry parked event ${v}`} onClick={() => onAction({ kind: 'retry', parked })}>
                            Retry
                          </button>
                          <button type="button" aria-label={`Skip parked event ${v}`} onClick={() => onAction({ kind: 'skip', parked })}>
                            Skip
                          </button>
                        </>
                      )}
                    </div>
                  </td>
                </tr>,
                expanded && (
                  <tr key={`${v}-details`} class="details-row">
                    <td colSpan={8}>
                      <EventDetails event={parked.event} full />
                    </td>
                  </tr>
                ),
              ];
            })}
          </tbody>
        </TableBox>
      )}
      {data && (from > 0 || data.nextVersion !== null) && (
        <div class="buttons" role="group" aria-label="Pages of parked events">
          <button type="button" disabled={from === 0} onClick={() => setFrom(0)}>
            First parked
          </button>
          <button type="button" disabled={data.nextVersion === null} onClick={() => data.nextVersion !== null && setFrom(data.nextVersion)}>
            More parked
          </button>
        </div>
      )}
    </>
  );
}

// One stream: its head, its events newest first, 50 a page, then its
// retention (RetentionPanel: shown, and edited with the delete right). Pages are
// read from the head's version backward (or from firstVersion forward for
// "Oldest"), never counted or walked: a 1,000,000-event stream opens as fast
// as a short one.

import { useState } from 'preact/hooks';
import type { RecordedEvent, StreamHead } from '@indelible/client';
import { client } from '../client';
import { may } from '../auth';
import { ErrorAlert } from '../components/ErrorAlert';
import { EventDetails } from '../components/EventDetails';
import { RetentionPanel } from '../components/RetentionPanel';
import { Name } from '../components/NameLink';
import { TableBox } from '../components/TableBox';
import { Time } from '../components/Time';
import { preview } from '../format';
import { useLoad } from '../hooks';
import { href, navigate } from '../router';
import { useWho } from '../session';

const kPageSize = 50;

interface Loaded {
  head: StreamHead;
  events: RecordedEvent[]; // newest first, whichever way the page was read
}

export function StreamPage({ stream, params }: { stream: string; params: URLSearchParams }) {
  const who = useWho();
  const from = params.get('from');
  const direction = params.get('direction') === 'forward' ? 'forward' : 'backward';
  const key = `${stream}|${from}|${direction}`;
  const { data, error, reload } = useLoad(async (signal): Promise<Loaded> => {
    const heading = client.head(stream, { signal });
    // The page and the head at once, unless the page starts where the head
    // says (forward from its first version): a backward read without
    // `from` starts at the last version by itself.
    const read = (start: number | undefined) => client.readStreamPage(stream, { from: start, limit: kPageSize, direction, includeDeleted: true, signal });
    const [head, page] =
      from !== null || direction === 'backward'
        ? await Promise.all([heading, read(from === null ? undefined : Number(from))])
        : await heading.then(async (h) => [h, await read(h.firstVersion)] as const);
    const events = direction === 'forward' ? [...page.events].reverse() : page.events;
    return { head, events };
  }, key);

  const go = (fromVersion: number, dir: 'forward' | 'backward') =>
    navigate(href(['streams', stream], { from: fromVersion, direction: dir }));

  const newest = data?.events[0]?.version;
  const oldest = data?.events[data.events.length - 1]?.version;
  const atNewest = !data || newest === undefined || newest >= data.head.version;
  const atOldest = !data || oldest === undefined || oldest <= data.head.firstVersion;

  return (
    <>
      <h1>{stream}</h1>
      <ErrorAlert error={error} />
      {data && (
        <>
          <dl class="facts">
            <dt>Version</dt>
            <dd>{data.head.version}</dd>
            <dt>Position</dt>
            <dd>{data.head.position}</dd>
            <dt>Deleted</dt>
            <dd>{data.head.deleted ? 'yes' : 'no'}</dd>
          </dl>
          {data.head.deleted && <p class="note">Deleted: yes. The events are shown as stored, up to the tombstone.</p>}
          {may(who, 'write', stream) && (
            <p>
              <a href={href(['append'], { stream })}>Append to this stream</a>
            </p>
          )}
          <Paging
            atNewest={atNewest}
            atOldest={atOldest}
            onNewest={() => navigate(href(['streams', stream]))}
            onNewer={() => newest !== undefined && go(newest + 1, 'forward')}
            onOlder={() => oldest !== undefined && go(oldest - 1, 'backward')}
            onOldest={() => go(data.head.firstVersion, 'forward')}
          />
          <EventsTable events={data.events} />
          <RetentionPanel stream={stream} canEdit={may(who, 'delete', stream)} onSaved={reload} />
        </>
      )}
    </>
  );
}

interface PagingProps {
  atNewest: boolean;
  atOldest: boolean;
  onNewest: () => void;
  onNewer: () => void;
  onOlder: () => void;
  onOldest: () => void;
}

function Paging({ atNewest, atOldest, onNewest, onNewer, onOlder, onOldest }: PagingProps) {
  return (
    <div class="buttons" role="group" aria-label="Pages of events">
      <button type="button" disabled={atNewest} onClick={onNewest}>
        Newest
      </button>
      <button type="button" disabled={atNewest} onClick={onNewer}>
        Newer
      </button>
      <button type="button" disabled={atOldest} onClick={onOlder}>
        Older
      </button>
      <button type="button" disabled={atOldest} onClick={onOldest}>
        Oldest
      </button>
    </div>
  );
}

function EventsTable({ events }: { events: RecordedEvent[] }) {
  const [open, setOpen] = useState<Set<string>>(new Set());
  const known = new Map(events.map((e) => [e.id, e]));
  const toggle = (id: string) =>
    setOpen((current) => {
      const next = new Set(current);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  return (
    <TableBox label="Events">
      <thead>
        <tr>
          <th scope="col">Version</th>
          <th scope="col">Position</th>
          <th scope="col">Type</th>
          <th scope="col">Data</th>
          <th scope="col">Time</th>
        </tr>
      </thead>
      <tbody>
        {events.map((event) => {
          const expanded = open.has(event.id);
          return [
            <tr key={event.id}>
              <td class="num">
                <button
                  type="button"
                  class="expand"
                  aria-expanded={expanded}
                  aria-label={`Show event ${event.version}`}
                  onClick={() => toggle(event.id)}
                >
                  {event.version}
                </button>
              </td>
              <td class="num">{event.position}</td>
              <td>
                <Name name={event.type} />
              </td>
              <td class="preview mono" title={preview(event.data, 2000)}>
                {preview(event.data)}
              </td>
              <td>
                <Time ms={event.timestamp} />
              </td>
            </tr>,
            expanded && (
              <tr key={`${event.id}-details`} class="details-row">
                <td colSpan={5}>
                  <EventDetails event={event} known={known} />
                </td>
              </tr>
            ),
          ];
        })}
      </tbody>
    </TableBox>
  );
}

// Live events from GET /subscribe/all (the client's subscribeAll), newest
// first. The client reconnects by itself after a drop, resuming after the
// last event it gave; pausing ends the subscription, and resuming starts one
// from the position after the last event shown, so what came in between is
// replayed and nothing is missed.

import { useEffect, useRef, useState } from 'preact/hooks';
import type { IndelibleError, RecordedEvent } from '@indelible/client';
import { client, failure } from '../client';
import { EmptyState } from '../components/EmptyState';
import { ErrorAlert } from '../components/ErrorAlert';
import { Name, NameLink } from '../components/NameLink';
import { TableBox } from '../components/TableBox';
import { Time } from '../components/Time';
import { href } from '../router';

const kMaxRows = 500;

type Status = 'Live' | 'Paused' | 'Reconnecting' | 'Connecting';

interface Filter {
  category: string;
  prefix: string;
  type: string;
}

export function TailPage() {
  const [inputs, setInputs] = useState<Filter>({ category: '', prefix: '', type: '' });
  const [filter, setFilter] = useState<Filter>(inputs);
  const [generation, setGeneration] = useState(0); // bumps on Apply: start afresh
  const [paused, setPaused] = useState(false);
  const [status, setStatus] = useState<Status>('Connecting');
  const [rows, setRows] = useState<RecordedEvent[]>([]);
  const [error, setError] = useState<IndelibleError | null>(null);
  const lastPosition = useRef<number | null>(null);

  useEffect(() => {
    if (paused) {
      setStatus('Paused');
      return;
    }
    const controller = new AbortController();
    // Events arrive in bursts; one render per 50 ms keeps a fast log readable
    // (a timer, not requestAnimationFrame, which stops in a hidden tab).
    let pending: RecordedEvent[] = [];
    let frame = 0;
    const flush = () => {
      frame = 0;
      const batch = pending.reverse();
      pending = [];
      setRows((current) => [...batch, ...current].slice(0, kMaxRows));
    };
    const events = client.subscribeAll({
      from: lastPosition.current === null ? 'end' : lastPosition.current + 1,
      category: filter.category || undefined,
      prefix: filter.prefix || undefined,
      type: filter.type || undefined,
      signal: controller.signal,
      onConnection: (state, dropped) => {
        setStatus(state === 'open' ? 'Live' : 'Reconnecting');
        setError(state === 'open' || dropped === undefined ? null : failure(dropped));
      },
    });
    const run = async () => {
      try {
        for await (const event of events) {
          lastPosition.current = event.position;
          pending.push(event);
          if (!frame) frame = window.setTimeout(flush, 50);
        }
      } catch (e) {
        // What no reconnect mends (401, 403, a bad filter): the client gave up.
        if (!controller.signal.aborted) setError(failure(e));
      }
    };
    void run();
    return () => {
      controller.abort();
      window.clearTimeout(frame);
      if (pending.length) flush();
    };
  }, [paused, filter, generation]);

  const apply = (e: Event) => {
    e.preventDefault();
    lastPosition.current = null;
    setRows([]);
    setFilter({ ...inputs });
    setGeneration((g) => g + 1);
    setPaused(false);
    setStatus('Connecting');
  };
  const field = (name: keyof Filter, label: string) => (
    <div>
      <label for={`tail-${name}`}>{label}</label>
      <input id={`tail-${name}`} value={inputs[name]} onInput={(e) => setInputs({ ...inputs, [name]: e.currentTarget.value })} />
    </div>
  );

  return (
    <>
      <h1>Live tail</h1>
      <form class="form inline" onSubmit={apply}>
        {field('category', 'Category')}
        {field('prefix', 'Prefix')}
        {field('type', 'Type')}
        <button type="submit">Apply</button>
      </form>
      <div class="buttons">
        <button type="button" onClick={() => setPaused(!paused)}>
          {paused ? 'Resume' : 'Pause'}
        </button>
        <p role="status" class={`status status-${status.toLowerCase()}`}>
          {status}
        </p>
      </div>
      <ErrorAlert error={error} />
      <TableBox label="Live events">
        <thead>
          <tr>
            <th scope="col">Position</th>
            <th scope="col">Stream</th>
            <th scope="col">Version</th>
            <th scope="col">Type</th>
            <th scope="col">Time</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((event) => (
            <tr key={event.position}>
              <td class="num">
                <a href={href(['events', event.position])}>{event.position}</a>
              </td>
              <td>
                <NameLink to={href(['streams', event.stream])} name={event.stream} />
              </td>
              <td class="num">{event.version}</td>
              <td>
                <Name name={event.type} />
              </td>
              <td>
                <Time ms={event.timestamp} />
              </td>
            </tr>
          ))}
        </tbody>
      </TableBox>
      {rows.length === 0 && (
        <EmptyState title="Waiting for new events…">
          <p>
            Events appended from now on{filter.category || filter.prefix || filter.type ? ' that match the filter' : ''} appear here, newest first. What is stored
            already is under <a href={href(['streams'])}>Streams</a>.
          </p>
        </EmptyState>
      )}
    </>
  );
}

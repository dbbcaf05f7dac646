// Live events from GET /subscribe/all, newest first. Pausing drops the
// connection; resuming sends Last-Event-ID (the last position seen), so the
// server replays what came in between and nothing is missed.

import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, query } from '../api';
import { ErrorAlert } from '../components/ErrorAlert';
import { Name, NameLink } from '../components/NameLink';
import { TableBox } from '../components/TableBox';
import { isoTime } from '../format';
import { asApiError } from '../hooks';
import { href } from '../router';
import { readSse } from '../sse';
import type { StoredEvent } from '../types';

const kMaxRows = 500;
const kRetryMs = 1000;

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
  const [rows, setRows] = useState<StoredEvent[]>([]);
  const [error, setError] = useState<ApiError | null>(null);
  const lastId = useRef<string | null>(null);

  useEffect(() => {
    if (paused) {
      setStatus('Paused');
      return;
    }
    const controller = new AbortController();
    const url = `/subscribe/all${query({ from: 'end', category: filter.category, prefix: filter.prefix, type: filter.type })}`;
    // Events arrive in bursts; one render per 50 ms keeps a fast log readable
    // (a timer, not requestAnimationFrame, which stops in a hidden tab).
    let pending: StoredEvent[] = [];
    let frame = 0;
    const flush = () => {
      frame = 0;
      const batch = pending.reverse();
      pending = [];
      setRows((current) => [...batch, ...current].slice(0, kMaxRows));
    };
    const run = async () => {
      while (!controller.signal.aborted) {
        try {
          await readSse(url, lastId.current, controller.signal, {
            onOpen: () => {
              setStatus('Live');
              setError(null);
            },
            onMessage: (message) => {
              if (message.id !== null) lastId.current = message.id;
              pending.push(JSON.parse(message.data) as StoredEvent);
              if (!frame) frame = window.setTimeout(flush, 50);
            },
          });
        } catch (e) {
          if (controller.signal.aborted) return;
          const failure = asApiError(e);
          setError(failure);
          if (failure.status === 401 || failure.status === 403) return; // retrying cannot help
        }
        if (controller.signal.aborted) return;
        setStatus('Reconnecting');
        await new Promise((resolve) => setTimeout(resolve, kRetryMs));
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
    lastId.current = null;
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
              <td>{isoTime(event.timestamp)}</td>
            </tr>
          ))}
        </tbody>
      </TableBox>
      {rows.length === 0 && <p>Waiting for new events…</p>}
    </>
  );
}

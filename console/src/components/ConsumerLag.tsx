// A consumer group's lag, explained (what each figure counts), and charted
// while the page is open: the server keeps no history of it.

import { useEffect, useRef, useState } from 'preact/hooks';
import type { ConsumerStatus } from '@indelible/client';
import { number } from '../format';
import { Chart } from './Chart';

const kHistorySeconds = 10 * 60;

export interface LagHistory {
  time: number[]; // Unix seconds
  events: number[];
  seconds: number[];
}

/** The group's lag at each poll since the page opened (the last 10 minutes): the server keeps no history. */
export function useLagHistory(group: string, status: ConsumerStatus | null): LagHistory {
  const history = useRef<LagHistory>({ time: [], events: [], seconds: [] });
  const [shown, setShown] = useState<LagHistory>(history.current);
  useEffect(() => {
    history.current = { time: [], events: [], seconds: [] };
    setShown(history.current);
  }, [group]);
  useEffect(() => {
    if (!status) return;
    const now = Date.now() / 1000;
    const h = history.current;
    const keep = h.time.findIndex((t) => now - t <= kHistorySeconds);
    const from = keep < 0 ? h.time.length : keep;
    history.current = {
      time: [...h.time.slice(from), now],
      events: [...h.events.slice(from), status.lagEvents],
      seconds: [...h.seconds.slice(from), status.lagSeconds],
    };
    setShown(history.current);
  }, [status]);
  return shown;
}

export function LagPanel({ status, history, theme }: { status: ConsumerStatus; history: LagHistory; theme: string }) {
  return (
    <section aria-labelledby="lag-heading" class="panel">
      <h2 id="lag-heading">Lag</h2>
      <dl class="explained">
        <dt>Lag (events): {number(status.lagEvents)}</dt>
        <dd>
          The store's last position ({number(status.lastPosition)}) minus the group's checkpoint ({number(status.checkpoint)}): every event committed after the
          checkpoint, those the group's filter leaves out included, so the work left is at most this. 0 when the group has caught up.
        </dd>
        <dt>Lag (seconds): {number(status.lagSeconds, 1)}</dt>
        <dd>
          How long the oldest event the group holds and no worker has acknowledged has waited since it was committed; 0 when it holds none. Growing while
          events are in flight: workers are slow or stuck; growing with nothing in flight: no worker is pulling.
        </dd>
        <dt>Checkpoint</dt>
        <dd>
          Every event at or below it was acknowledged or filtered out. Saved at most every 100 ms, so after a crash the events acknowledged since are delivered
          again (at least once).
        </dd>
      </dl>
      {history.time.length > 0 && (
        <div class="charts">
          <Chart theme={theme} windowSeconds={kHistorySeconds} caption="Lag (events) while this page is open" series={['lag (events)']} data={[history.time, history.events]} />
          <Chart theme={theme} windowSeconds={kHistorySeconds} caption="Lag (seconds) while this page is open" series={['lag (seconds)']} data={[history.time, history.seconds]} />
        </div>
      )}
    </section>
  );
}

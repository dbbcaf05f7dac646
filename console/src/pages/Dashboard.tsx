// Live charts from /metrics, polled every second, the last 5 minutes kept.

import { useEffect, useRef, useState } from 'preact/hooks';
import type { IndelibleError } from '@indelible/client';
import { client, failure } from '../client';
import { mayEverywhere } from '../auth';
import { Chart } from '../components/Chart';
import { ErrorAlert } from '../components/ErrorAlert';
import { columns, latest, type Columns } from '../dashboard-data';
import { number } from '../format';
import { parseScrape, value, type Scrape } from '../metrics';
import { useWho } from '../session';

const kPollMs = 1000;
const kWindowMs = 5 * 60 * 1000;

export function DashboardPage({ theme }: { theme: string }) {
  const who = useWho();
  const allowed = mayEverywhere(who, 'metrics');
  return (
    <>
      <h1>Dashboard</h1>
      {allowed ? (
        <LiveMetrics theme={theme} />
      ) : (
        <p class="note">Metrics are not shown: reading them needs the metrics right, which your roles do not give.</p>
      )}
    </>
  );
}

function LiveMetrics({ theme }: { theme: string }) {
  const scrapes = useRef<Scrape[]>([]);
  const [data, setData] = useState<Columns | null>(null);
  const [error, setError] = useState<IndelibleError | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    let timer = 0;
    const poll = async () => {
      try {
        const text = await client.metrics({ signal: controller.signal });
        const now = Date.now();
        const kept = scrapes.current.filter((s) => now - s.time <= kWindowMs);
        kept.push(parseScrape(text, now));
        scrapes.current = kept;
        setData(columns(kept));
        setError(null);
      } catch (e) {
        if (controller.signal.aborted) return;
        setError(failure(e));
      }
      timer = window.setTimeout(poll, kPollMs);
    };
    void poll();
    return () => {
      controller.abort();
      window.clearTimeout(timer);
    };
  }, []);

  const last = scrapes.current[scrapes.current.length - 1];
  return (
    <>
      <ErrorAlert error={error} />
      {data && last && <Summary data={data} last={last} />}
      {data && (
        <div class="charts">
          <Chart theme={theme} windowSeconds={kWindowMs / 1000} caption="Appends per second" series={['appends/s']} data={[data.time, data.appends]} />
          <Chart theme={theme} windowSeconds={kWindowMs / 1000} caption="Events per second" series={['events/s']} data={[data.time, data.events]} />
          <Chart theme={theme} windowSeconds={kWindowMs / 1000} caption="Append latency (ms)" series={['p50', 'p99']} data={[data.time, data.p50, data.p99]} />
          <Chart theme={theme} windowSeconds={kWindowMs / 1000} caption="Syncs per second" series={['syncs/s', 'events per sync']} data={[data.time, data.syncs, data.eventsPerSync]} />
          <Chart theme={theme} windowSeconds={kWindowMs / 1000} caption="Connections and subscribers" series={['connections', 'subscribers']} data={[data.time, data.connections, data.subscribers]} />
          <Chart
            theme={theme}
            windowSeconds={kWindowMs / 1000}
            caption="Consumer lag (events)"
            series={data.groups.length ? data.groups : ['no groups']}
            data={[data.time, ...(data.groups.length ? data.lag : [data.time.map(() => null)])]}
          />
        </div>
      )}
    </>
  );
}

function Summary({ data, last }: { data: Columns; last: Scrape }) {
  const items: [string, string][] = [
    ['Appends/s', number(latest(data.appends), 1)],
    ['Events/s', number(latest(data.events), 1)],
    ['p50 latency (ms)', number(latest(data.p50), 2)],
    ['p99 latency (ms)', number(latest(data.p99), 2)],
    ['Syncs/s', number(latest(data.syncs), 1)],
    ['Events per sync', number(latest(data.eventsPerSync), 1)],
    ['Connections open', number(value(last, 'indelible_http_connections_open'))],
    ['Subscribers', number(value(last, 'indelible_subscribers'))],
    ['Events stored', number(value(last, 'indelible_store_events_total'))],
    ['Last position', number(value(last, 'indelible_store_last_position'))],
    ...data.groups.map((group, g): [string, string] => [`Lag of ${group} (events)`, number(latest(data.lag[g]))]),
  ];
  return (
    <section aria-labelledby="now-heading">
      <h2 id="now-heading">Now</h2>
      <dl class="summary">
      {items.map(([term, text]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{text}</dd>
        </div>
      ))}
      </dl>
    </section>
  );
}

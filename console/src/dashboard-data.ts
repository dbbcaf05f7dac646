// From a window of scrapes to the dashboard's chart columns. Pure.

import { labelValues, quantile, rate, value, type Scrape } from './metrics';

export interface Columns {
  time: number[]; // seconds, uPlot's x
  appends: (number | null)[];
  events: (number | null)[];
  p50: (number | null)[]; // ms
  p99: (number | null)[];
  syncs: (number | null)[];
  eventsPerSync: (number | null)[];
  connections: (number | null)[];
  subscribers: (number | null)[];
  groups: string[];
  lag: (number | null)[][]; // one column per group
}

const kLatency = 'indelible_append_duration_seconds';

function ms(seconds: number | null): number | null {
  return seconds === null ? null : seconds * 1000;
}

/** One point per interval between consecutive scrapes. */
export function columns(scrapes: Scrape[]): Columns {
  const last = scrapes[scrapes.length - 1];
  const groups = last ? labelValues(last, 'indelible_consumer_lag_events', 'group') : [];
  const c: Columns = {
    time: [], appends: [], events: [], p50: [], p99: [], syncs: [], eventsPerSync: [],
    connections: [], subscribers: [], groups, lag: groups.map(() => []),
  };
  for (let i = 1; i < scrapes.length; i++) {
    const [a, b] = [scrapes[i - 1], scrapes[i]];
    c.time.push(b.time / 1000);
    c.appends.push(rate(a, b, 'indelible_appends_total'));
    c.events.push(rate(a, b, 'indelible_append_events_total'));
    c.p50.push(ms(quantile(a, b, kLatency, 0.5)));
    c.p99.push(ms(quantile(a, b, kLatency, 0.99)));
    const syncs = rate(a, b, 'indelible_store_syncs_total');
    const stored = rate(a, b, 'indelible_store_events_total');
    c.syncs.push(syncs);
    c.eventsPerSync.push(syncs && stored !== null ? stored / syncs : null);
    c.connections.push(value(b, 'indelible_http_connections_open'));
    c.subscribers.push(value(b, 'indelible_subscribers'));
    groups.forEach((group, g) => c.lag[g].push(value(b, 'indelible_consumer_lag_events', { group })));
  }
  return c;
}

/** The newest non-null value of a column, for the text summary. */
export function latest(column: (number | null)[]): number | null {
  for (let i = column.length - 1; i >= 0; i--) if (column[i] !== null) return column[i];
  return null;
}

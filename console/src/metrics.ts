// Prometheus text -> numbers the dashboard draws. Pure (no DOM, no fetch) so
// it is unit-tested on its own (test/metrics.test.ts).

/** One scrape: every sample keyed by name plus its sorted labels, e.g. `x{group="g"}`. */
export interface Scrape {
  time: number; // ms, when the scrape was taken
  samples: Map<string, number>;
}

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const kLine = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const kLabel = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

function unescapeLabel(value: string): string {
  return value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
}

function parseValue(text: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  return Number(text);
}

/** Parses the text exposition format; comments and malformed lines are skipped. */
export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = kLine.exec(line);
    if (!match) continue;
    const parsed = parseValue(match[3]);
    if (Number.isNaN(parsed) && match[3] !== 'NaN') continue;
    const labels: Record<string, string> = {};
    for (const label of (match[2] ?? '').matchAll(kLabel)) labels[label[1]] = unescapeLabel(label[2]);
    samples.push({ name: match[1], labels, value: parsed });
  }
  return samples;
}

export function sampleKey(name: string, labels: Record<string, string> = {}): string {
  const keys = Object.keys(labels).sort();
  if (keys.length === 0) return name;
  return `${name}{${keys.map((k) => `${k}="${labels[k]}"`).join(',')}}`;
}

export function parseScrape(text: string, time: number): Scrape {
  const samples = new Map<string, number>();
  for (const s of parseSamples(text)) samples.set(sampleKey(s.name, s.labels), s.value);
  return { time, samples };
}

export function value(scrape: Scrape, name: string, labels?: Record<string, string>): number | null {
  return scrape.samples.get(sampleKey(name, labels)) ?? null;
}

/**
 * A counter's rate per second between two scrapes; null when missing or when
 * the counter went down (the server restarted: the delta means nothing).
 */
export function rate(before: Scrape, after: Scrape, name: string, labels?: Record<string, string>): number | null {
  const a = value(before, name, labels);
  const b = value(after, name, labels);
  const seconds = (after.time - before.time) / 1000;
  if (a === null || b === null || seconds <= 0 || b < a) return null;
  return (b - a) / seconds;
}

/** The values of one label across a scrape's samples of `name`, e.g. every consumer group. */
export function labelValues(scrape: Scrape, name: string, label: string): string[] {
  const found = new Set<string>();
  const prefix = `${name}{`;
  const pattern = new RegExp(`${label}="((?:[^"\\\\]|\\\\.)*)"`);
  for (const key of scrape.samples.keys()) {
    if (!key.startsWith(prefix)) continue;
    const match = pattern.exec(key);
    if (match) found.add(match[1]);
  }
  return [...found].sort();
}

export interface Bucket {
  le: number; // upper bound, Infinity for +Inf
  count: number; // cumulative
}

/** The cumulative buckets of histogram `name` (without its `_bucket` suffix), sorted by bound. */
export function buckets(scrape: Scrape, name: string): Bucket[] {
  const result: Bucket[] = [];
  const prefix = `${name}_bucket{le="`;
  for (const [key, count] of scrape.samples) {
    if (!key.startsWith(prefix)) continue;
    result.push({ le: parseValue(key.slice(prefix.length, -2)), count });
  }
  return result.sort((x, y) => x.le - y.le);
}

/**
 * The q-quantile (0..1) of the observations between two scrapes, from the
 * bucket deltas, interpolated linearly inside a bucket as Prometheus's
 * histogram_quantile does. Null when nothing was observed in between. An
 * answer in the +Inf bucket is the highest finite bound (all we know).
 */
export function quantile(before: Scrape, after: Scrape, name: string, q: number): number | null {
  const start = new Map(buckets(before, name).map((b) => [b.le, b.count]));
  const deltas = buckets(after, name).map((b) => ({ le: b.le, count: b.count - (start.get(b.le) ?? 0) }));
  if (deltas.length === 0) return null;
  const total = deltas[deltas.length - 1].count;
  if (!(total > 0)) return null;
  const rank = q * total;
  let lowerBound = 0;
  let lowerCount = 0;
  for (const bucket of deltas) {
    if (bucket.count >= rank) {
      if (bucket.le === Infinity) return lowerBound;
      const inBucket = bucket.count - lowerCount;
      if (inBucket <= 0) return bucket.le;
      return lowerBound + ((bucket.le - lowerBound) * (rank - lowerCount)) / inBucket;
    }
    lowerBound = bucket.le;
    lowerCount = bucket.count;
  }
  return lowerBound;
}

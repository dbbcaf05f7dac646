#!/usr/bin/env node
// Benchmarks of @indelible/client against `indelible serve`
// (scripts/bench-typescript.sh starts the server and runs them beside
// indelible-http-bench). One figure per line, in indelible-http-bench's
// format (`bench=... figure=... value=... conditions`), so the script takes
// medians of both the same way.
//
//   append --url URL [--connections 64] [--seconds 5]
//       `connections` appends in flight from one Node process, each its own
//       stream, one 200-byte JSON event at a time with the exact expected
//       version: what indelible-http-bench's append phase does, through the
//       client (client.append).
//   append-raw --url URL [--connections 64] [--seconds 5]
//       the same load without the client: node:http with a keep-alive agent,
//       the request built by hand. A yardstick for what Node itself does,
//       so the client's own cost can be told from Node's; not the client's
//       figure.
//   sse --url URL [--events 2000] [--rate 200]
//       one subscriber, client.subscribeAll({from: 'end'}); one writer
//       appends events one at a time, paced at `rate` per second; latency =
//       the time the subscriber has the event minus the time the append was
//       acknowledged (0 when the event came first), both in this process.
//
// Progress goes to stderr when it is a terminal.
import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { Client } from '@indelible/client';

const EVENT_BYTES = 200;

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function print(bench: string, figure: string, value: number, conditions: string): void {
  process.stdout.write(`bench=${bench} figure=${figure} value=${Math.round(value)} ${conditions}\n`);
}

// The same 200-byte JSON payload as indelible-http-bench's (load.cc).
function eventData(seq: number): unknown {
  const amount = Math.floor(Math.random() * 100000);
  const head = `{"seq":${seq},"amount":${amount},"memo":"`;
  return { seq, amount, memo: 'x'.repeat(EVENT_BYTES - head.length - 2) };
}

class Progress {
  private readonly tty = process.stderr.isTTY === true;
  private timer: NodeJS.Timeout | null = null;
  start(line: () => string): void {
    if (!this.tty) return;
    this.timer = setInterval(() => process.stderr.write(`\r\x1b[K${line()}`), 250);
  }
  stop(): void {
    if (this.timer === null) return;
    clearInterval(this.timer);
    this.timer = null;
    process.stderr.write('\r\x1b[K');
  }
}

type Appender = (stream: string, event: { id: string; type: string; data: unknown }, expected: 'no_stream' | number) => Promise<unknown>;

// POST /streams/{s} over node:http, with If-None-Match / If-Match.
function rawAppender(url: string): Appender {
  const agent = new http.Agent({ keepAlive: true });
  const base = new URL(url);
  return (stream, event, expected) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify(event);
      const headers: http.OutgoingHttpHeaders = {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      };
      if (expected === 'no_stream') headers['if-none-match'] = '*';
      else headers['if-match'] = `"${expected}"`;
      const request = http.request(
        { host: base.hostname, port: base.port, path: `/streams/${encodeURIComponent(stream)}`, method: 'POST', agent, headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            res.statusCode === 201
              ? resolve(undefined)
              : reject(new Error(`HTTP ${res.statusCode}: ${Buffer.concat(chunks).toString()}`)),
          );
        },
      );
      request.on('error', reject);
      request.end(body);
    });
}

async function appendBench(
  bench: string,
  append: Appender,
  client: Client,
  connections: number,
  seconds: number,
  label: string,
  transport: string,
) {
  const run = `${bench}-${Date.now().toString(36)}-${process.pid}`;
  const latencies: number[] = [];
  let ok = 0;
  let failed = 0;
  const start = performance.now();
  const deadline = start + seconds * 1000;
  const progress = new Progress();
  progress.start(
    () =>
      `${bench}: ${((performance.now() - start) / 1000).toFixed(1)}/${seconds} s, ` +
      `${ok} events, ${failed} failed`,
  );
  const worker = async (w: number) => {
    const stream = `${run}-${w}`;
    let seq = 0;
    while (performance.now() < deadline) {
      const event = { id: randomUUID(), type: 'Deposited', data: eventData(seq) };
      const began = performance.now();
      try {
        await append(stream, event, seq === 0 ? 'no_stream' : seq - 1);
        const end = performance.now();
        if (end <= deadline) {
          ++ok;
          latencies.push((end - began) * 1000);
        }
        ++seq;
      } catch (err) {
        if (performance.now() <= deadline) ++failed;
        if (failed === 1) process.stderr.write(`\n${bench}: ${(err as Error).message}\n`);
        // Where the stream really is, to go on with the right expectation.
        try {
          seq = (await client.head(stream)).version + 1;
        } catch {
          seq = 0;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, (_, w) => worker(w)));
  progress.stop();
  const elapsed = (Math.min(performance.now(), deadline) - start) / 1000;
  latencies.sort((a, b) => a - b);
  const conditions =
    `connections=${connections} seconds=${seconds} event_bytes=${EVENT_BYTES} ` +
    `client=${transport} node=${process.version}${label ? ' ' + label : ''}`;
  print(bench, 'events_per_s', ok / elapsed, `${conditions} failed=${failed}`);
  print(bench, 'p50_us', quantile(latencies, 0.5), conditions);
  print(bench, 'p99_us', quantile(latencies, 0.99), conditions);
}

async function sseBench(client: Client, events: number, rate: number, label: string) {
  const run = `sse-ts-${Date.now().toString(36)}-${process.pid}`;
  const stream = `${run}`;
  const acked = new Map<string, number>();
  const received = new Map<string, number>();
  const abort = new AbortController();
  let firstSeen: () => void = () => {};
  const warm = new Promise<void>((resolve) => (firstSeen = resolve));
  let allSeen: () => void = () => {};
  const done = new Promise<void>((resolve) => (allSeen = resolve));

  // The subscriber: every event of $all from the next commit on.
  const subscriber = (async () => {
    try {
      for await (const e of client.subscribeAll({ from: 'end', signal: abort.signal })) {
        const now = performance.now();
        if (e.stream === `${run}-warmup`) firstSeen();
        if (e.stream !== stream) continue;
        received.set(e.id, now);
        if (received.size === events) allSeen();
      }
    } catch (err) {
      if (!abort.signal.aborted) throw err;
    }
  })();

  // Live before measuring: warm-up events until the subscriber sees one.
  let warmed = false;
  void warm.then(() => (warmed = true));
  const warmDeadline = performance.now() + 10000;
  for (let i = 0; !warmed; ++i) {
    if (performance.now() > warmDeadline) throw new Error('sse: the subscriber saw nothing in 10 s');
    await client.append(`${run}-warmup`, { type: 'Warmup', data: { i } });
    await Promise.race([warm, new Promise((r) => setTimeout(r, 100))]);
  }

  const interval = 1000 / rate;
  const appendLatencies: number[] = [];
  const progress = new Progress();
  let sent = 0;
  progress.start(() => `ts sse: ${sent}/${events} appended, ${received.size} received`);
  const t0 = performance.now();
  for (let i = 0; i < events; ++i) {
    const wait = t0 + i * interval - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const id = randomUUID();
    const began = performance.now();
    await client.append(stream, { id, type: 'Ping', data: eventData(i) });
    const now = performance.now();
    acked.set(id, now);
    appendLatencies.push((now - began) * 1000);
    sent = i + 1;
  }
  let giveUp: NodeJS.Timeout | undefined;
  await Promise.race([done, new Promise((r) => (giveUp = setTimeout(r, 10000)))]);
  clearTimeout(giveUp);
  progress.stop();
  abort.abort();
  await subscriber;

  const latencies: number[] = [];
  let beforeAck = 0;
  for (const [id, ack] of acked) {
    const at = received.get(id);
    if (at === undefined) continue;
    if (at < ack) ++beforeAck;
    latencies.push(Math.max(0, at - ack) * 1000);
  }
  latencies.sort((a, b) => a - b);
  appendLatencies.sort((a, b) => a - b);
  const missing = events - latencies.length;
  const conditions =
    `events=${events} rate_per_s=${rate} event_bytes=${EVENT_BYTES} subscription=all_from_end ` +
    `client=@indelible/client node=${process.version}${label ? ' ' + label : ''}`;
  print('ts_sse', 'p50_us', quantile(latencies, 0.5), conditions);
  print('ts_sse', 'p99_us', quantile(latencies, 0.99), `${conditions} target_max=5000`);
  print('ts_sse', 'max_us', latencies.at(-1) ?? 0, `${conditions} missing=${missing} before_ack=${beforeAck}`);
  print('ts_sse', 'append_p50_us', quantile(appendLatencies, 0.5), conditions);
  if (missing > 0) {
    process.stderr.write(`ts sse: ${missing} of ${events} events never reached the subscriber\n`);
    process.exitCode = 1;
  }
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  const { values } = parseArgs({
    args: rest,
    options: {
      url: { type: 'string', default: 'http://127.0.0.1:2113' },
      connections: { type: 'string', default: '64' },
      seconds: { type: 'string', default: '5' },
      events: { type: 'string', default: '2000' },
      rate: { type: 'string', default: '200' },
      label: { type: 'string', default: '' },
    },
    strict: true,
  });
  const client = new Client(values.url!, {
    ...(process.env.INDELIBLE_API_KEY ? { apiKey: process.env.INDELIBLE_API_KEY } : {}),
    // As many connections as appends in flight (the default, 64, when the bench runs 64).
    maxConnections: Math.max(1, Number(values.connections)),
  });
  try {
    await run(command, values, client);
  } finally {
    // The client's connections closed: nothing is left to keep the process up.
    client.close();
  }
}

async function run(command: string | undefined, values: Record<string, string | boolean | undefined>, client: Client): Promise<void> {
  const str = (k: string) => String(values[k]);
  if (command === 'append') {
    const append: Appender = (stream, event, expected) => client.append(stream, event, { expected });
    await appendBench('ts_append', append, client, Number(str('connections')), Number(str('seconds')), str('label'), '@indelible/client');
  } else if (command === 'append-raw') {
    await appendBench('node_http_append', rawAppender(str('url')), client, Number(str('connections')), Number(str('seconds')), str('label'), 'node:http(keep-alive,no-client)');
  } else if (command === 'sse') {
    await sseBench(client, Number(str('events')), Number(str('rate')), str('label'));
  } else {
    process.stderr.write(
      'usage: node dist/bench.js append|append-raw|sse --url URL [--connections N --seconds S] ' +
        '[--events N --rate PER_S] [--label "k=v ..."]\n',
    );
    process.exitCode = 2;
  }
}

// Ends on its own once the client is closed (the yardstick's idle sockets do
// not hold the process); exits at once on an error.
main().then(
  () => {},
  (err) => {
    process.stderr.write(`bench: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);

// A consumer-group worker: pulls deliveries, runs the handler on up to
// `concurrency` events at once while keeping each stream's events one after
// another, acknowledges by position, and stops gracefully.
//
// The server's delivery rule (docs/HTTP.md, "Pull") shapes it: an event goes
// out only when every earlier event of its stream is acknowledged or in the
// same batch. So the events of one stream that this worker holds are exactly
// a run of consecutive versions, and they must be handled in order; when one
// fails, the later ones of its stream must NOT be acknowledged: its nack takes
// them back and the server sends them again after the failed one.

import { IndelibleError, UnavailableError, InternalError } from './errors.js';
import { checkObject, type AnswerContext } from './check.js';
import { decodeRecorded, type CodecTable } from './event-codecs.js';
import { groupPath, sleep, describe } from './http.js';
import type { Consumers, Delivery } from './consumers.js';
import type { EventShape, RecordedEvent } from './types.js';

export interface WorkerOptions {
  /** The worker's name on the server (the lease holder); default `worker-<random>`. */
  consumer?: string;
  /** Handlers running at once, on different streams (default 1). */
  concurrency?: number;
  /** Most deliveries held at once, handled or waiting (default 100). */
  batch?: number;
  /** Long-poll wait of a pull (default 1000 ms); stop() may wait this long. */
  waitMs?: number;
  /**
   * Told of handler failures (the event is nacked), of events a codec could
   * not decode (a CodecError, with the event as stored; nacked too) and of
   * failed requests. Default: console.error.
   */
  onError?: (error: unknown, event?: RecordedEvent) => void;
  /**
   * Stops the worker when it aborts, as `stop()` does: no new pull, the
   * events it holds are handled and acknowledged, then `done` resolves. The
   * pull under way is left to end (at most `waitMs`) rather than aborted:
   * the server would still lease it events until its lease expired.
   */
  signal?: AbortSignal;
}

const WORKER_OPTIONS: ReadonlySet<string> = new Set(['consumer', 'concurrency', 'batch', 'waitMs', 'onError', 'signal']);

/** A worker's handler; `worker<E>`: of the events of the union `E` (README, "Typed events"). */
export type Handler<E extends EventShape = EventShape> = (event: RecordedEvent<E>, delivery: Delivery<E>) => Promise<void>;

type Outgoing = { kind: 'ack'; position: number } | { kind: 'nack'; position: number; reason: string };

export class Worker {
  readonly group: string;
  readonly consumer: string;
  /**
   * Settles when the worker has stopped: after stop(), or when the server
   * refused a pull for good (a 4xx: the group was deleted, no right...),
   * then rejecting with that error.
   */
  readonly done: Promise<void>;

  private readonly concurrency: number;
  private readonly batch: number;
  private readonly waitMs: number;
  private readonly onError: (error: unknown, event?: RecordedEvent) => void;
  private stopping = false;
  /** Deliveries held per stream, in version order; a stream is here only while it holds some. */
  private readonly queues = new Map<string, Delivery[]>();
  /** Streams whose handler is running. */
  private readonly active = new Set<string>();
  /** Deliveries held: waiting or running. */
  private held = 0;
  /** Woken whenever a handler finishes. */
  private progress: (() => void) | undefined;
  private readonly outbox: Outgoing[] = [];
  private flushing: Promise<void> | undefined;
  /** Where undecodable events came from, for their CodecError. */
  private readonly pulled: AnswerContext;

  /**
   * `consumers` pulls the events as the server sends them; `codecs` (the
   * client's) decodes each just before its handler runs, so an event that
   * does not decode fails alone, like a handler that throws.
   */
  constructor(
    private readonly consumers: Consumers,
    group: string,
    private readonly handler: Handler,
    options: WorkerOptions = {},
    private readonly codecs?: CodecTable,
  ) {
    checkObject(options, WORKER_OPTIONS, 'worker', '');
    this.group = group;
    this.pulled = { status: 200, method: 'POST', path: groupPath(group) + '/pull', header: () => null };
    this.consumer = options.consumer ?? `worker-${Math.random().toString(36).slice(2, 10)}`;
    this.concurrency = Math.max(1, options.concurrency ?? 1);
    this.batch = Math.max(1, Math.min(10000, options.batch ?? 100));
    this.waitMs = Math.max(0, Math.min(60000, options.waitMs ?? 1000));
    const onError = options.onError ?? ((err, event) => console.error(`indelible worker ${group}/${this.consumer}:`, event ? `event ${event.stream}@${event.version}:` : '', describe(err)));
    // A throwing onError must not take the worker's bookkeeping down with it.
    this.onError = (err, event) => {
      try {
        onError(err, event);
      } catch {
        /* ignored */
      }
    };
    const signal = options.signal;
    if (signal?.aborted) this.stopping = true;
    else signal?.addEventListener('abort', () => void this.stop().catch(() => {}), { once: true });
    this.done = this.run();
    // `done` is for whoever wants it; an unobserved failure must not crash the process.
    this.done.catch(() => {});
  }

  /** Stops pulling, lets every held event be handled, sends the acks, then resolves. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.progress?.();
    await this.done;
  }

  private async run(): Promise<void> {
    let backoff = 100;
    try {
      while (!this.stopping) {
        if (this.held >= this.batch) {
          await new Promise<void>((resolve) => (this.progress = resolve));
          continue;
        }
        let deliveries: Delivery[];
        try {
          deliveries = await this.consumers.pull(this.group, { consumer: this.consumer, max: this.batch - this.held, waitMs: this.waitMs });
          backoff = 100;
        } catch (err) {
          // A 4xx will not get better by asking again: end the worker with it.
          if (err instanceof IndelibleError && !(err instanceof UnavailableError) && !(err instanceof InternalError)) throw err;
          this.onError(err);
          await sleep(backoff);
          backoff = Math.min(5000, backoff * 2);
          continue;
        }
        for (const d of deliveries) {
          const q = this.queues.get(d.event.stream);
          if (q) q.push(d);
          else this.queues.set(d.event.stream, [d]);
          this.held++;
        }
        this.pump();
      }
    } finally {
      // Graceful either way: what was delivered is handled and acknowledged.
      while (this.held > 0) await new Promise<void>((resolve) => (this.progress = resolve));
      await this.flush();
    }
  }

  /** Starts handlers on streams that have events and no handler running, up to `concurrency`. */
  private pump(): void {
    for (const [stream, q] of this.queues) {
      if (this.active.size >= this.concurrency) return;
      if (this.active.has(stream) || q.length === 0) continue;
      this.active.add(stream);
      void this.handleNext(stream, q);
    }
  }

  private async handleNext(stream: string, q: Delivery[]): Promise<void> {
    const delivery = q.shift()!;
    let finished = 1;
    try {
      // Decoded in place: a delivery that fails to decode is told to onError as stored.
      if (this.codecs !== undefined) decodeRecorded(this.codecs, delivery.event, this.pulled);
      await this.handler(delivery.event, delivery);
      this.send({ kind: 'ack', position: delivery.event.position });
    } catch (err) {
      this.onError(err, delivery.event);
      this.send({ kind: 'nack', position: delivery.event.position, reason: err instanceof Error ? err.message : String(err) });
      // The nack takes the stream's later events back; never handle or ack them here.
      finished += q.length;
      q.length = 0;
    }
    this.active.delete(stream);
    // Round robin: a stream with more to do goes behind the others.
    this.queues.delete(stream);
    if (q.length > 0) this.queues.set(stream, q);
    this.held -= finished;
    this.pump();
    const wake = this.progress;
    this.progress = undefined;
    wake?.();
  }

  /** Queues an ack or nack; they go out in order, consecutive acks in one request. */
  private send(item: Outgoing): void {
    this.outbox.push(item);
    this.flushing ??= this.drain().finally(() => (this.flushing = undefined));
  }

  private async drain(): Promise<void> {
    while (this.outbox.length > 0) {
      const first = this.outbox[0]!;
      try {
        if (first.kind === 'nack') {
          this.outbox.shift();
          await this.consumers.nack(this.group, first.position, first.reason);
        } else {
          const positions: number[] = [];
          while (this.outbox[0]?.kind === 'ack') positions.push(this.outbox.shift()!.position);
          await this.consumers.ack(this.group, positions);
        }
      } catch (err) {
        // Lost acks are not lost events: the lease runs out and they come again (at-least-once).
        this.onError(err);
      }
    }
  }

  private async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
  }
}

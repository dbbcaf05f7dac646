// Consumer groups (docs/HTTP.md, "Consumer groups"): durable, named
// subscriptions whose checkpoint the store keeps.

import { decodeEvent } from './codec.js';
import { groupPath, type Transport } from './http.js';
import type { RecordedEvent } from './types.js';

export interface ConsumerGroupOptions {
  category?: string | string[];
  prefix?: string | string[];
  type?: string | string[];
  /** Exclusive start position (default 0: from the beginning). */
  start?: number;
  /** After `maxAttempts`: stop the group (`block`, default) or park the event and go on. */
  policy?: 'block' | 'park';
  maxAttempts?: number;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** How long a worker may hold an event before it goes out again (default 30000). */
  leaseMs?: number;
}

export interface ConsumerStatus {
  group: string;
  checkpoint: number;
  lastPosition: number;
  lagEvents: number;
  lagSeconds: number;
  inFlight: number;
  redeliveries: number;
  blocked: null | { position: number; reason: string };
  parked: { streams: number; events: number; replaying: boolean };
  /** `GET /consumers/{group}` only: long pulls and waits parked on the group. */
  waiting?: number;
  /** With `waitFor`: whether the checkpoint reached the position. */
  reached?: boolean;
  [key: string]: unknown;
}

export interface Delivery {
  /** 1 for the first delivery of the event. */
  attempt: number;
  /** Set when the event is a replay of a parked copy: the copy's version. */
  parkedVersion?: number;
  event: RecordedEvent;
}

export interface PullOptions {
  /** The worker's name, the lease holder (default `client`). */
  consumer?: string;
  /** 1..10000 (server default 100). */
  max?: number;
  /** Wait this long (0..60000 ms) for events when none can go out now. */
  waitMs?: number;
  /** Position order across streams (a single consumer that must see the log in order). */
  ordered?: boolean;
  signal?: AbortSignal;
}

export class Consumers {
  constructor(private readonly transport: Transport) {}

  /** Creates the group, or checks an existing one has the same definition (409 if not). */
  async create(group: string, options: ConsumerGroupOptions = {}): Promise<ConsumerStatus> {
    const { category, prefix, type, ...rest } = options;
    const query: Record<string, string | number | string[] | undefined> = { category: list(category), prefix: list(prefix), type: list(type) };
    for (const [k, v] of Object.entries(rest)) if (v !== undefined) query[k] = v as string | number;
    return (await this.transport.request<ConsumerStatus>('PUT', groupPath(group), { query })).json;
  }

  async get(group: string): Promise<ConsumerStatus> {
    return (await this.transport.request<ConsumerStatus>('GET', groupPath(group))).json;
  }

  async list(): Promise<ConsumerStatus[]> {
    return (await this.transport.request<{ consumers: ConsumerStatus[] }>('GET', '/consumers')).json.consumers;
  }

  async delete(group: string): Promise<{ deleted: string }> {
    // Deleting twice is a 404 the second time: retry only when surely not done.
    return (await this.transport.request<{ deleted: string }>('DELETE', groupPath(group), { idempotent: false })).json;
  }

  /** A batch of deliveries, leased to `consumer`. */
  async pull(group: string, options: PullOptions = {}): Promise<Delivery[]> {
    const res = await this.transport.request<{ deliveries: Array<Record<string, unknown>> }>('POST', groupPath(group) + '/pull', {
      query: { consumer: options.consumer ?? 'client', max: options.max, waitMs: options.waitMs, ordered: options.ordered },
      ...(options.waitMs !== undefined ? { waitMs: options.waitMs } : {}),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
    });
    return res.json.deliveries.map((d) => {
      const delivery: Delivery = { attempt: Number(d.attempt), event: decodeEvent(d.event as Record<string, unknown>) };
      if (typeof d.parkedVersion === 'number') delivery.parkedVersion = d.parkedVersion;
      return delivery;
    });
  }

  /** Acknowledges events by position (acking twice is harmless). */
  async ack(group: string, positions: number | number[]): Promise<ConsumerStatus> {
    const body = { positions: Array.isArray(positions) ? positions : [positions] };
    return (await this.transport.request<ConsumerStatus>('POST', groupPath(group) + '/ack', { body })).json;
  }

  /** A failed attempt: the event (and the later ones of its stream) come again after back-off. */
  async nack(group: string, position: number, reason?: string): Promise<ConsumerStatus> {
    const body = reason === undefined ? { position } : { position, reason };
    // Not retried after a drop: a second nack would count a second attempt.
    return (await this.transport.request<ConsumerStatus>('POST', groupPath(group) + '/nack', { body, idempotent: false })).json;
  }

  /** A blocked group: deliver the blocking event again, attempts counted afresh. */
  async retry(group: string): Promise<ConsumerStatus> {
    return (await this.transport.request<ConsumerStatus>('POST', groupPath(group) + '/retry', { idempotent: false })).json;
  }

  /** A blocked group: acknowledge the blocking event and go on. */
  async skip(group: string): Promise<ConsumerStatus> {
    return (await this.transport.request<ConsumerStatus>('POST', groupPath(group) + '/skip', { idempotent: false })).json;
  }

  /** Deliver the parked events again, before new ones. */
  async replay(group: string): Promise<ConsumerStatus> {
    return (await this.transport.request<ConsumerStatus>('POST', groupPath(group) + '/replay', { idempotent: false })).json;
  }

  /**
   * Read-your-writes: resolves true as soon as the group's checkpoint
   * reaches `position` (say, the position an append returned), false when
   * `timeoutMs` passes first. The server waits (at most 60 s) without a thread.
   */
  async waitFor(group: string, position: number, timeoutMs = 2000): Promise<boolean> {
    const timeout = Math.max(0, Math.min(60000, Math.round(timeoutMs)));
    const res = await this.transport.request<ConsumerStatus>('GET', groupPath(group), {
      query: { waitFor: position, timeout },
      waitMs: timeout,
    });
    return res.json.reached === true;
  }
}

function list(v: string | string[] | undefined): string[] | undefined {
  return v === undefined ? undefined : Array.isArray(v) ? v : [v];
}

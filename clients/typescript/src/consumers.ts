// Consumer groups (docs/HTTP.md, "Consumer groups"): durable, named
// subscriptions whose checkpoint the store keeps.

import { answerInteger, checkInteger, checkOptionalInteger, describeValue, invalidArgument, type AnswerContext } from './check.js';
import { decodeEvent } from './codec.js';
import type { CodecTable } from './event-codecs.js';
import { CALL_MEMBERS, callOptions, groupPath, type CallOptions, type JsonResponse, type Transport } from './http.js';
import type { EventShape, RecordedEvent } from './types.js';

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
  /** `GET /consumers/{group}` only: the workers that pulled lately, in name order. */
  members?: ConsumerMember[];
  /** `GET /consumers/{group}` only: a worker pulled lately that the list has no room for (1000 listed at most). */
  membersOmitted?: boolean;
  /** With `waitFor`: whether the checkpoint reached the position. */
  reached?: boolean;
  [key: string]: unknown;
}

/** One event of a pull; `pull<E>`: an event of the union `E` (README, "Typed events"). */
/** A worker of a group: a `consumer` name that pulled (forgotten 5 minutes after its last pull once it holds nothing). */
export interface ConsumerMember {
  consumer: string;
  /** Events leased to it now. */
  inFlight: number;
  /** Unix ms of its last pull. */
  lastPull: number;
  /** Its long pulls waiting now. */
  waiting: number;
}

/** Where a parked copy stands (docs/HTTP.md, "Parked events one by one"). */
export type ParkedState = 'pending' | 'retrying' | 'skipped' | 'resolved';

/** A copy in `$parked-{group}`: `event.metadata.$parked` says where it came from and why. */
export interface ParkedEvent {
  parkedVersion: number;
  state: ParkedState;
  event: RecordedEvent;
}

/** One page of a group's parked events; `nextVersion` null at the end. */
export interface ParkedPage {
  group: string;
  events: ParkedEvent[];
  nextVersion: number | null;
}

export interface Delivery<E extends EventShape = EventShape> {
  /** 1 for the first delivery of the event. */
  attempt: number;
  /** Set when the event is a replay of a parked copy: the copy's version. */
  parkedVersion?: number;
  event: RecordedEvent<E>;
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
  /** Aborts the pull, its long poll included (CallOptions). */
  signal?: AbortSignal;
  /** The call's deadline in ms: shorter than `waitMs`, the pull fails with the timeout error (CallOptions). */
  timeoutMs?: number;
}

const GROUP_OPTIONS: ReadonlySet<string> = new Set(['category', 'prefix', 'type', 'start', 'policy', 'maxAttempts', 'initialBackoffMs', 'maxBackoffMs', 'leaseMs', ...CALL_MEMBERS]);
const PULL_OPTIONS: ReadonlySet<string> = new Set(['consumer', 'max', 'waitMs', 'ordered', ...CALL_MEMBERS]);
const PARKED_OPTIONS: ReadonlySet<string> = new Set(['from', 'limit', ...CALL_MEMBERS]);

/** A status answer, its positions checked (never a rounded checkpoint). */
function checkStatus(status: ConsumerStatus, answer: AnswerContext): ConsumerStatus {
  answerInteger(status.checkpoint, answer, 'checkpoint');
  answerInteger(status.lastPosition, answer, 'lastPosition');
  if (status.blocked !== null && status.blocked !== undefined) answerInteger(status.blocked.position, answer, 'blocked.position');
  return status;
}

function statusOf(res: JsonResponse<ConsumerStatus>): ConsumerStatus {
  return checkStatus(res.json, res);
}

export class Consumers {
  /** `codecs`: the client's (`ClientOptions.codecs`), applied to what `pull` gives; none, nothing is decoded. */
  constructor(
    private readonly transport: Transport,
    private readonly codecs?: CodecTable,
  ) {}

  /** Creates the group, or checks an existing one has the same definition (409 if not). */
  async create(group: string, options: ConsumerGroupOptions & CallOptions = {}): Promise<ConsumerStatus> {
    const call = callOptions(options, 'consumers.create', GROUP_OPTIONS);
    // The rest goes in the query: the call's own options are not the group's.
    const { category, prefix, type, signal: _signal, timeoutMs: _timeoutMs, ...rest } = options;
    checkOptionalInteger(rest.start, 'consumers.create', 'start');
    checkOptionalInteger(rest.maxAttempts, 'consumers.create', 'maxAttempts');
    checkOptionalInteger(rest.initialBackoffMs, 'consumers.create', 'initialBackoffMs');
    checkOptionalInteger(rest.maxBackoffMs, 'consumers.create', 'maxBackoffMs');
    checkOptionalInteger(rest.leaseMs, 'consumers.create', 'leaseMs');
    const query: Record<string, string | number | string[] | undefined> = { category: list(category), prefix: list(prefix), type: list(type) };
    for (const [k, v] of Object.entries(rest)) if (v !== undefined) query[k] = v as string | number;
    return statusOf(await this.transport.request<ConsumerStatus>('PUT', groupPath(group), { query, ...call }));
  }

  async get(group: string, options: CallOptions = {}): Promise<ConsumerStatus> {
    return statusOf(await this.transport.request<ConsumerStatus>('GET', groupPath(group), callOptions(options, 'consumers.get')));
  }

  async list(options: CallOptions = {}): Promise<ConsumerStatus[]> {
    const res = await this.transport.request<{ consumers: ConsumerStatus[] }>('GET', '/consumers', callOptions(options, 'consumers.list'));
    for (const status of res.json.consumers) checkStatus(status, res);
    return res.json.consumers;
  }

  async delete(group: string, options: CallOptions = {}): Promise<{ deleted: string }> {
    const call = callOptions(options, 'consumers.delete');
    // Deleting twice is a 404 the second time: retry only when surely not done.
    return (await this.transport.request<{ deleted: string }>('DELETE', groupPath(group), { idempotent: false, ...call })).json;
  }

  /**
   * A batch of deliveries, leased to `consumer`, their data decoded by the
   * client's codecs. A codec that throws fails the pull with a CodecError
   * naming the event; the batch's events stay leased (nack the failed one,
   * `err.position`, to send it back at once). A worker decodes one event at
   * a time instead, and nacks just the one that fails.
   */
  async pull<E extends EventShape = EventShape>(group: string, options: PullOptions = {}): Promise<Delivery<E>[]> {
    const call = callOptions(options, 'consumers.pull', PULL_OPTIONS);
    checkOptionalInteger(options.max, 'consumers.pull', 'max');
    checkOptionalInteger(options.waitMs, 'consumers.pull', 'waitMs');
    const res = await this.transport.request<{ deliveries: Array<Record<string, unknown>> }>('POST', groupPath(group) + '/pull', {
      query: { consumer: options.consumer ?? 'client', max: options.max, waitMs: options.waitMs, ordered: options.ordered },
      ...(options.waitMs !== undefined ? { waitMs: options.waitMs } : {}),
      ...call,
    });
    return res.json.deliveries.map((d) => {
      const delivery: Delivery = { attempt: Number(d.attempt), event: decodeEvent(d.event as Record<string, unknown>, res, this.codecs) };
      if (d.parkedVersion !== undefined && d.parkedVersion !== null) delivery.parkedVersion = answerInteger(d.parkedVersion, res, 'parkedVersion');
      return delivery;
    }) as Delivery<E>[];
  }

  /** Acknowledges events by position (acking twice is harmless). */
  async ack(group: string, positions: number | number[], options: CallOptions = {}): Promise<ConsumerStatus> {
    const call = callOptions(options, 'consumers.ack');
    const all = Array.isArray(positions) ? positions : [positions];
    for (let i = 0; i < all.length; i++) {
      if (!(Number.isSafeInteger(all[i]) && all[i]! >= 0)) checkInteger(all[i], 'consumers.ack', Array.isArray(positions) ? `positions[${i}]` : 'position');
    }
    return statusOf(await this.transport.request<ConsumerStatus>('POST', groupPath(group) + '/ack', { body: { positions: all }, ...call }));
  }

  /** A failed attempt: the event (and the later ones of its stream) come again after back-off. */
  async nack(group: string, position: number, reason?: string, options: CallOptions = {}): Promise<ConsumerStatus> {
    const call = callOptions(options, 'consumers.nack');
    checkInteger(position, 'consumers.nack', 'position');
    if (reason !== undefined && typeof reason !== 'string') throw invalidArgument('consumers.nack', 'reason', `must be a string, not ${describeValue(reason)}`);
    const body = reason === undefined ? { position } : { position, reason };
    // Not retried after a drop: a second nack would count a second attempt.
    return statusOf(await this.transport.request<ConsumerStatus>('POST', groupPath(group) + '/nack', { body, idempotent: false, ...call }));
  }

  /** A blocked group: deliver the blocking event again, attempts counted afresh. */
  async retry(group: string, options: CallOptions = {}): Promise<ConsumerStatus> {
    return statusOf(await this.transport.request<ConsumerStatus>('POST', groupPath(group) + '/retry', { idempotent: false, ...callOptions(options, 'consumers.retry') }));
  }

  /** A blocked group: acknowledge the blocking event and go on. */
  async skip(group: string, options: CallOptions = {}): Promise<ConsumerStatus> {
    return statusOf(await this.transport.request<ConsumerStatus>('POST', groupPath(group) + '/skip', { idempotent: false, ...callOptions(options, 'consumers.skip') }));
  }

  /** Deliver the parked events again, before new ones. */
  async replay(group: string, options: CallOptions = {}): Promise<ConsumerStatus> {
    return statusOf(await this.transport.request<ConsumerStatus>('POST', groupPath(group) + '/replay', { idempotent: false, ...callOptions(options, 'consumers.replay') }));
  }

  /**
   * A page of the group's parked events (policy `park`) with each one's
   * state, from the copy's version `from` (default 0), `limit` 1 to 10000
   * (default 100). A group that does not park has none. As stored: no
   * codec is applied (a copy's data is the original's).
   */
  async parked(group: string, options: { from?: number; limit?: number } & CallOptions = {}): Promise<ParkedPage> {
    const call = callOptions(options, 'consumers.parked', PARKED_OPTIONS);
    checkOptionalInteger(options.from, 'consumers.parked', 'from');
    checkOptionalInteger(options.limit, 'consumers.parked', 'limit', 1);
    const res = await this.transport.request<{ group: string; events: Array<Record<string, unknown>>; nextVersion: unknown }>('GET', groupPath(group) + '/parked', {
      query: { from: options.from, limit: options.limit },
      ...call,
    });
    const next = res.json.nextVersion;
    return {
      group: String(res.json.group ?? group),
      events: res.json.events.map((p) => ({
        parkedVersion: answerInteger(p.parkedVersion, res, 'parkedVersion'),
        state: p.state as ParkedState,
        event: decodeEvent(p.event as Record<string, unknown>, res, undefined),
      })),
      nextVersion: next === null || next === undefined ? null : answerInteger(next, res, 'nextVersion'),
    };
  }

  /**
   * Delivers one parked event again through `pull` (with `parkedVersion`),
   * without the rest; refused (ConflictError) while an earlier parked event
   * of its stream is pending, so a stream's order holds.
   */
  async retryParked(group: string, parkedVersion: number, options: CallOptions = {}): Promise<ConsumerStatus> {
    checkInteger(parkedVersion, 'consumers.retryParked', 'parkedVersion');
    const path = `${groupPath(group)}/parked/${parkedVersion}/retry`;
    return statusOf(await this.transport.request<ConsumerStatus>('POST', path, { idempotent: false, ...callOptions(options, 'consumers.retryParked') }));
  }

  /** Discards one parked event: no replay delivers it; the last pending one of its stream unparks the stream. */
  async skipParked(group: string, parkedVersion: number, options: CallOptions = {}): Promise<ConsumerStatus> {
    checkInteger(parkedVersion, 'consumers.skipParked', 'parkedVersion');
    const path = `${groupPath(group)}/parked/${parkedVersion}/skip`;
    return statusOf(await this.transport.request<ConsumerStatus>('POST', path, { idempotent: false, ...callOptions(options, 'consumers.skipParked') }));
  }

  /**
   * Read-your-writes: resolves true as soon as the group's checkpoint
   * reaches `position` (say, the position an append returned), false when
   * `timeoutMs` passes first. The server waits (at most 60 s) without a thread.
   */
  async waitFor(group: string, position: number, timeoutMs = 2000, options: CallOptions = {}): Promise<boolean> {
    const call = callOptions(options, 'consumers.waitFor');
    checkInteger(position, 'consumers.waitFor', 'position');
    const timeout = Math.max(0, Math.min(60000, Math.round(timeoutMs)));
    const res = await this.transport.request<ConsumerStatus>('GET', groupPath(group), {
      query: { waitFor: position, timeout },
      waitMs: timeout,
      ...call,
    });
    return checkStatus(res.json, res).reached === true;
  }
}

function list(v: string | string[] | undefined): string[] | undefined {
  return v === undefined ? undefined : Array.isArray(v) ? v : [v];
}

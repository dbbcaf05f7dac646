// The client: one object per server, every call of the HTTP API.

import { decodeAppend, decodeEvent, decodeState, encodeEvent, encodeState } from './codec.js';
import { Consumers } from './consumers.js';
import { NotFoundError } from './errors.js';
import { streamPath, Transport, type Query } from './http.js';
import { subscribe, type SubscribeOptions } from './sse.js';
import { Worker, type Handler, type WorkerOptions } from './worker.js';
import type {
  AllFilter,
  AppendResult,
  ClientOptions,
  CommitAppend,
  CommitResult,
  EventInput,
  Expected,
  RecordedEvent,
  StateInput,
  StateRecord,
  StreamHead,
  StreamInfo,
} from './types.js';

type Json = Record<string, unknown>;

// Shared, never changed: one object per kind of expectation, none per call.
const IF_EXISTS: Readonly<Record<string, string>> = Object.freeze({ 'if-match': '*' });
const IF_NO_STREAM: Readonly<Record<string, string>> = Object.freeze({ 'if-none-match': '*' });

/** The headers that say an expectation on `POST`/`DELETE /streams/{s}` (undefined: none). */
function expectationHeaders(expected: Expected | undefined): Record<string, string> | undefined {
  if (expected === undefined || expected === 'any') return undefined;
  if (expected === 'exists') return IF_EXISTS;
  if (expected === 'no_stream') return IF_NO_STREAM;
  if (typeof expected === 'number' && Number.isSafeInteger(expected) && expected >= 0) return { 'if-match': `"${expected}"` };
  throw new TypeError(`indelible: expected must be 'any', 'no_stream', 'exists' or a version >= 0, not ${String(expected)}`);
}

function filterQuery(f: AllFilter): Query {
  const list = (v: string | string[] | undefined) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]);
  return { category: list(f.category), prefix: list(f.prefix), type: list(f.type) };
}

export class Client {
  /** Consumer groups: create, get, list, delete, pull, ack, nack, retry, skip, replay, waitFor. */
  readonly consumers: Consumers;
  private readonly transport: Transport;

  constructor(url: string, options: ClientOptions = {}) {
    this.transport = new Transport(url, options);
    this.consumers = new Consumers(this.transport);
  }

  /**
   * Appends one event or several, atomically. Event ids are made here when
   * missing, before the first attempt, so a retry after a dropped connection
   * is an idempotent replay (`replayed: true`), never a second copy.
   */
  async append(stream: string, events: EventInput | EventInput[], options: { expected?: Expected; state?: StateInput } = {}): Promise<AppendResult> {
    const wire = Array.isArray(events) ? events.map(encodeEvent) : [encodeEvent(events)];
    // The envelope form carries a state record; without one the plain array keeps old servers working.
    const body = options.state !== undefined ? { events: wire, state: encodeState(options.state) } : wire;
    const headers = expectationHeaders(options.expected);
    const res = await this.transport.request<Json>('POST', streamPath(stream), headers !== undefined ? { body, headers } : { body });
    return decodeAppend(res.json, res.header('idempotent-replay') === 'true');
  }

  /** Several streams, each with its own expectation, events and optional state record: all or nothing. */
  async commit(appends: CommitAppend[]): Promise<CommitResult> {
    const body = {
      appends: appends.map((a) => {
        const out: Json = { stream: a.stream, events: a.events.map(encodeEvent) };
        if (a.expected !== undefined) {
          expectationHeaders(a.expected); // validates
          out.expected = a.expected;
        }
        if (a.state !== undefined) out.state = encodeState(a.state);
        return out;
      }),
    };
    const res = await this.transport.request<{ position: number; appends: Json[] }>('POST', '/commits', { body });
    const replay = res.header('idempotent-replay') === 'true';
    return { position: Number(res.json.position), appends: res.json.appends.map((a) => decodeAppend(a, replay)) };
  }

  /**
   * A stream's events, paged as needed. Throws NotFoundError (on the first
   * page) when the stream does not exist, or was deleted (`deleted: true`)
   * and `includeDeleted` is not set.
   */
  async *readStream(
    stream: string,
    options: { from?: number; direction?: 'forward' | 'backward'; pageSize?: number; includeDeleted?: boolean } = {},
  ): AsyncGenerator<RecordedEvent> {
    let from: number | null | undefined = options.from;
    for (;;) {
      const query: Query = { from: from ?? undefined, limit: options.pageSize, direction: options.direction, includeDeleted: options.includeDeleted ? 'true' : undefined };
      const res = await this.transport.request<{ events: Json[]; nextVersion: number | null }>('GET', streamPath(stream), { query });
      for (const e of res.json.events) yield decodeEvent(e);
      // A page cut by the byte budget may be short: only a null nextVersion ends the stream.
      if (res.json.nextVersion === null || res.json.nextVersion === undefined) return;
      if (res.json.events.length === 0 && res.json.nextVersion === from) return; // no progress: defensive
      from = res.json.nextVersion;
    }
  }

  /**
   * `$all` in position order, filtered, up to the end as it is when the read
   * gets there. Pages may be short or empty (byte and scan budgets): the read
   * goes on from `next` until a page brings nothing and `next` stays put.
   */
  async *readAll(options: { from?: number; pageSize?: number } & AllFilter = {}): AsyncGenerator<RecordedEvent> {
    let from = options.from ?? 1;
    for (;;) {
      const query: Query = { from, limit: options.pageSize, ...filterQuery(options) };
      const res = await this.transport.request<{ events: Json[]; next: number | null }>('GET', '/all', { query });
      for (const e of res.json.events) yield decodeEvent(e);
      const next = res.json.next;
      if (next === null || next === undefined) return;
      if (res.json.events.length === 0 && next <= from) return;
      from = next;
    }
  }

  /** A stream's last version and position; NotFoundError if it never existed. */
  async head(stream: string): Promise<StreamHead> {
    const j = (await this.transport.request<Json>('GET', streamPath(stream) + '/head')).json;
    return {
      stream: String(j.stream),
      version: Number(j.version),
      position: Number(j.position),
      deleted: j.deleted === true,
      firstVersion: Number(j.firstVersion ?? 0),
    };
  }

  /**
   * The event with this id, in whatever stream holds it (what a causationId
   * names), or null when none does or it is in a stream the caller may not
   * read. A DynamoDB store keeps no index by id: `InvalidError`.
   */
  async findEvent(id: string): Promise<RecordedEvent | null> {
    try {
      return decodeEvent((await this.transport.request<Json>('GET', `/events/${encodeURIComponent(id)}`)).json);
    } catch (err) {
      // A server without the route also answers 404; that one is an error.
      if (err instanceof NotFoundError && !/^no route for /.test(err.message)) return null;
      throw err;
    }
  }

  /** The stream's state record, or null when it has none (never written, or the stream was deleted). */
  async getState(stream: string): Promise<StateRecord | null> {
    try {
      return decodeState((await this.transport.request<Json>('GET', streamPath(stream) + '/state')).json);
    } catch (err) {
      // A server without the route also answers 404 `not_found`; that one is
      // an error, not an empty state ("no route for GET ...").
      if (err instanceof NotFoundError && !/^no route for /.test(err.message)) return null;
      throw err;
    }
  }

  /** Soft delete: appends a tombstone; the events stay in `$all`. */
  async delete(stream: string, options: { expected?: Expected } = {}): Promise<AppendResult> {
    // Not idempotent (deleting twice is a 404): retried only when surely not done.
    const headers = expectationHeaders(options.expected);
    const res = await this.transport.request<Json>('DELETE', streamPath(stream), headers !== undefined ? { headers, idempotent: false } : { idempotent: false });
    return decodeAppend(res.json, false);
  }

  /** Streams by name (bytewise order), paged; only those the caller may read. */
  async *listStreams(options: { prefix?: string; category?: string; after?: string; pageSize?: number } = {}): AsyncGenerator<StreamInfo> {
    let after = options.after;
    for (;;) {
      const query: Query = { prefix: options.prefix, category: options.category, after, limit: options.pageSize };
      const res = await this.transport.request<{ streams: Json[]; next: string | null }>('GET', '/streams', { query });
      for (const s of res.json.streams) {
        yield { stream: String(s.stream), version: Number(s.version), position: Number(s.position), deleted: s.deleted === true, lastWrite: Number(s.lastWrite) };
      }
      if (res.json.next === null || res.json.next === undefined || res.json.next === after) return;
      after = res.json.next;
    }
  }

  /**
   * Every event of `$all` (filtered) from `from` (a position, default 1, or
   * 'end': only what is committed after the call), then live, for ever;
   * resumes after drops and server restarts without gap or duplicate.
   * Ends on `signal` or when the loop is left.
   */
  subscribeAll(options: SubscribeOptions & AllFilter = {}): AsyncGenerator<RecordedEvent> {
    return subscribe(this.transport, '/subscribe/all', filterQuery(options), options);
  }

  /** One stream's events from version `from` (default 0) or 'end', then live; waits for a stream that does not exist yet. */
  subscribeStream(stream: string, options: SubscribeOptions = {}): AsyncGenerator<RecordedEvent> {
    return subscribe(this.transport, '/subscribe' + streamPath(stream), {}, options);
  }

  /** Starts a worker of a consumer group (the group must exist: consumers.create). */
  worker(group: string, handler: Handler, options: WorkerOptions = {}): Worker {
    return new Worker(this.consumers, group, handler, options);
  }

  /**
   * Closes the client's connections: idle ones at once, and busy ones too
   * (their calls throw IndelibleError `closed`, never retried; a
   * subscription just ends; a worker's `done` rejects, so `stop()`
   * workers first). Every later call throws `closed`. Idle connections
   * never keep the process alive, so a script may end without it; call it
   * to let the server go of them now.
   */
  close(): void {
    this.transport.close();
  }

  /** `GET /health`: `{status, reason?, lastPosition}` (a 503 answer throws UnavailableError). */
  async health(): Promise<{ status: string; reason?: string; lastPosition: number }> {
    return (await this.transport.request<{ status: string; reason?: string; lastPosition: number }>('GET', '/health')).json;
  }
}

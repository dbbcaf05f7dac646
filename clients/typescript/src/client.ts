// The client: one object per server, every call of the HTTP API.

import { parseConnectionString } from './connection-string.js';
import { answerInteger, checkInteger, checkObject, checkOptionalInteger, describeValue, invalidArgument, unknownMember, unknownMemberError, type AnswerContext } from './check.js';
import { decodeAppend, decodeEvent, decodeState, encodeEvent, encodeQuery, encodeState, type WireEvent } from './codec.js';
import { Consumers } from './consumers.js';
import { IndelibleError, NotFoundError } from './errors.js';
import { codecTable, type CodecTable } from './event-codecs.js';
import { CALL_MEMBERS, callOptions, streamPath, Transport, type CallOptions, type JsonResponse, type Query as UrlQuery, type RequestOptions } from './http.js';
import {
  SchemaRoutes,
  type RegisterSchemaResult,
  type SchemaCheckResult,
  type SchemaList,
  type SchemaSettings,
  type SchemaSettingsList,
  type SchemaType,
  type SchemaVersion,
  type Upcaster,
  type ValidateEventResult,
} from './schemas.js';
import type { TransportKind } from './runtime.js';
import { checkFrom, subscribe, SUBSCRIBE_MEMBERS, type SubscribeOptions } from './sse.js';
import { Worker, type Handler, type WorkerOptions } from './worker.js';
import type {
  AllFilter,
  AllPage,
  AppendResult,
  ClientOptions,
  CommitAppend,
  CommitOptions,
  CommitResult,
  EventInput,
  EventShape,
  Expected,
  Query,
  QueryPage,
  RawRead,
  RecordedEvent,
  ScavengeReport,
  ShredReport,
  StateInput,
  StateRecord,
  StoredStreamMetadata,
  StreamHead,
  StreamInfo,
  StreamLastEvent,
  StreamListPage,
  StreamMetadata,
  StreamMetadataWritten,
  StreamPage,
  WhoAmI,
} from './types.js';

type Json = Record<string, unknown>;

// Shared, never changed: one object per kind of expectation, none per call.
const IF_EXISTS: Readonly<Record<string, string>> = Object.freeze({ 'if-match': '*' });
const IF_NO_STREAM: Readonly<Record<string, string>> = Object.freeze({ 'if-none-match': '*' });

/**
 * Refuses an expectation that is none of `Expected`; a version must be a
 * safe integer >= 0. `append` is the index of a commit's append (< 0: the
 * call's own `expected`), named in the error only.
 */
function checkExpected(expected: unknown, call: string, append: number): void {
  if (expected === undefined || expected === 'any' || expected === 'exists' || expected === 'no_stream') return;
  if (typeof expected === 'number' && Number.isSafeInteger(expected) && expected >= 0) return;
  const field = append < 0 ? 'expected' : `appends[${append}].expected`;
  if (typeof expected === 'number') checkInteger(expected, call, field);
  throw invalidArgument(call, field, `must be 'any', 'no_stream', 'exists' or a version >= 0, not ${describeValue(expected)}`);
}

/** The headers that say an expectation on `POST`/`DELETE /streams/{s}` (undefined: none). */
function expectationHeaders(expected: Expected | undefined, call: string): Record<string, string> | undefined {
  checkExpected(expected, call, -1);
  if (expected === undefined || expected === 'any') return undefined;
  if (expected === 'exists') return IF_EXISTS;
  if (expected === 'no_stream') return IF_NO_STREAM;
  return { 'if-match': `"${expected}"` };
}

/** An answer's `next`/`nextVersion`: null at the end, else a safe integer. */
function nextOf(value: unknown, answer: AnswerContext, field: string): number | null {
  return value === null || value === undefined ? null : answerInteger(value, answer, field);
}

/** A listed stream's `last` (`last=true`): its newest event's envelope, or null. */
function lastEventOf(value: unknown, answer: AnswerContext): StreamLastEvent | null {
  if (value === null || value === undefined || typeof value !== 'object') return null;
  const e = value as Json;
  return {
    id: String(e.id),
    type: String(e.type),
    version: answerInteger(e.version, answer, 'last.version'),
    position: answerInteger(e.position, answer, 'last.position'),
    timestamp: Number(e.timestamp),
  };
}

/** `raw=1` asks for the events as stored, not upcast (docs/SCHEMAS.md). */
function rawQuery(raw: boolean | undefined): number | undefined {
  return raw === true ? 1 : undefined;
}

/**
 * Longest query document (JSON) GET /query carries in its URL; a longer one
 * goes in a POST /query body. Percent-encoding may triple it, and servers
 * and proxies commonly refuse request lines past 8 KiB.
 */
const MAX_QUERY_IN_URL = 2000;

function checkDirection(direction: unknown, call: string): void {
  if (direction === undefined || direction === 'forward' || direction === 'backward') return;
  throw invalidArgument(call, 'direction', `must be 'forward' or 'backward', not ${describeValue(direction)}`);
}

function filterQuery(f: AllFilter): UrlQuery {
  const list = (v: string | string[] | undefined) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]);
  return { category: list(f.category), prefix: list(f.prefix), type: list(f.type) };
}

// The members each call's objects may have: anything else is refused
// (check.ts), where it would otherwise be left out without a word. Every
// call's take CallOptions' too (`signal`, `timeoutMs`).
const APPEND_OPTIONS: ReadonlySet<string> = new Set(['expected', 'state', ...CALL_MEMBERS]);
const COMMIT_APPEND: ReadonlySet<string> = new Set(['stream', 'expected', 'events', 'state']);
const READ_STREAM_OPTIONS: ReadonlySet<string> = new Set(['from', 'direction', 'pageSize', 'includeDeleted', 'raw', ...CALL_MEMBERS]);
const READ_ALL_OPTIONS: ReadonlySet<string> = new Set(['from', 'pageSize', 'category', 'prefix', 'type', 'raw', ...CALL_MEMBERS]);
const READ_STREAM_PAGE_OPTIONS: ReadonlySet<string> = new Set(['from', 'direction', 'limit', 'includeDeleted', 'raw', ...CALL_MEMBERS]);
const READ_ALL_PAGE_OPTIONS: ReadonlySet<string> = new Set(['from', 'limit', 'category', 'prefix', 'type', 'raw', ...CALL_MEMBERS]);
const DELETE_OPTIONS: ReadonlySet<string> = new Set(['expected', ...CALL_MEMBERS]);
const METADATA_OPTIONS: ReadonlySet<string> = new Set(['expected', ...CALL_MEMBERS]);
/** How much longer than `timeoutMs` a scavenge's answer is awaited: it compacts the whole store. */
const SCAVENGE_WAIT_MS = 3_600_000;
const STREAM_METADATA: ReadonlySet<string> = new Set(['maxAge', 'maxCount', 'truncateBefore', 'custom']);
const LIST_OPTIONS: ReadonlySet<string> = new Set(['prefix', 'category', 'after', 'pageSize', 'last', ...CALL_MEMBERS]);
const LIST_PAGE_OPTIONS: ReadonlySet<string> = new Set(['prefix', 'category', 'after', 'limit', 'last', ...CALL_MEMBERS]);
const SUBSCRIBE_ALL_OPTIONS: ReadonlySet<string> = new Set([...SUBSCRIBE_MEMBERS, 'category', 'prefix', 'type']);
const COMMIT_OPTIONS: ReadonlySet<string> = new Set(['condition', ...CALL_MEMBERS]);
const CONDITION_MEMBERS: ReadonlySet<string> = new Set(['failIfEventsMatch', 'after']);
const READ_QUERY_OPTIONS: ReadonlySet<string> = new Set(['from', 'limit', 'direction', 'raw', ...CALL_MEMBERS]);
const READ_QUERY_ALL_OPTIONS: ReadonlySet<string> = new Set(['from', 'pageSize', 'direction', 'raw', ...CALL_MEMBERS]);
const CLIENT_OPTIONS: ReadonlySet<string> = new Set(['apiKey', 'token', 'ca', 'timeoutMs', 'retries', 'maxConnections', 'transport', 'codecs']);

export class Client {
  /** Consumer groups: create, get, list, delete, pull, ack, nack, retry, skip, replay, parked, retryParked, skipParked, waitFor. */
  readonly consumers: Consumers;
  private readonly transport: Transport;
  private readonly schemaRoutes: SchemaRoutes;
  /** `ClientOptions.codecs`; undefined without any, so the untyped path checks one thing per event. */
  private readonly codecs: CodecTable | undefined;
  /** The same calls without codecs, for workers: they decode each event just before its handler. */
  private readonly storedConsumers: Consumers;

  /**
   * `url`: the server's base URL (`http://127.0.0.1:2113`) or a connection
   * string (`indelible://host:2113?tls=true&apiKey=...&ca=/etc/ca.pem`, or
   * an http(s) URL with those settings as its query; README, "Connection
   * strings"). Settings in `options` win over the string's.
   */
  constructor(url: string, options: ClientOptions = {}) {
    checkObject(options, CLIENT_OPTIONS, 'new Client', '');
    this.codecs = codecTable(options.codecs);
    const connection = parseConnectionString(url);
    this.transport = new Transport(connection.url, { ...connection.options, ...options }, connection.caFile);
    this.consumers = new Consumers(this.transport, this.codecs);
    this.storedConsumers = this.codecs === undefined ? this.consumers : new Consumers(this.transport);
    this.schemaRoutes = new SchemaRoutes(this.transport);
  }

  /** The codecs a read applies: none for a `raw` one (as stored, not upcast). */
  private codecsFor(raw: boolean | undefined): CodecTable | undefined {
    return raw === true ? undefined : this.codecs;
  }

  /**
   * The transport requests take: `'node'` (`node:http`, on Node) or
   * `'fetch'`; the `transport` option, or what the runtime suggests. A
   * runtime that looked like Node but could not load `node:http` turns to
   * `'fetch'` at the first request.
   */
  get transportKind(): TransportKind {
    return this.transport.kind;
  }

  /**
   * Appends one event or several, atomically. Event ids are made here when
   * missing, before the first attempt, so a retry after a dropped connection
   * is an idempotent replay (`replayed: true`), never a second copy.
   * `append<E>`: the events are of the union `E` (README, "Typed events").
   * Each event's data goes through its type's codec, if it has one; a codec
   * that throws fails the call (CodecError) before anything is sent.
   */
  async append<E extends EventShape = EventShape>(
    stream: string,
    events: EventInput<E> | EventInput<E>[],
    options: { expected?: Expected; state?: StateInput } & CallOptions = {},
  ): Promise<AppendResult> {
    const call = callOptions(options, 'append', APPEND_OPTIONS);
    const wire: WireEvent[] = [];
    const input = events as EventInput | EventInput[];
    if (Array.isArray(input)) for (let i = 0; i < input.length; i++) wire.push(encodeEvent(input[i]!, 'append', -1, i, this.codecs));
    else wire.push(encodeEvent(input, 'append', -1, -1, this.codecs));
    // The envelope form carries a state record; without one the plain array keeps old servers working.
    const body = options.state !== undefined ? { events: wire, state: encodeState(options.state, 'append', -1) } : wire;
    const headers = expectationHeaders(options.expected, 'append');
    const res = await this.transport.request<Json>('POST', streamPath(stream), { body, headers, ...call });
    return decodeAppend(res.json, res.header('idempotent-replay') === 'true', res);
  }

  /**
   * Several streams, each with its own expectation, events and optional
   * state record: all or nothing. An append without `stream` writes its
   * events without one (to `$dcb`). `condition` makes the commit fail,
   * writing nothing, with a ConflictError of reason `'condition'` (and the
   * `position` of the event that broke it) when an event matching its query
   * was written after its `after` (docs/DCB.md). `commit<E>`: every
   * append's events are of the union `E`; codecs as for append, every
   * event encoded before anything is sent.
   */
  async commit<E extends EventShape = EventShape>(appends: CommitAppend<E>[], options: CommitOptions & CallOptions = {}): Promise<CommitResult> {
    const call = callOptions(options, 'commit', COMMIT_OPTIONS);
    if (!Array.isArray(appends)) throw invalidArgument('commit', 'appends', `must be an array of {stream?, expected?, events, state?}, not ${describeValue(appends)}`);
    const wire: Json[] = [];
    for (let i = 0; i < appends.length; i++) {
      const a = appends[i]! as CommitAppend;
      if (a === null || typeof a !== 'object' || Array.isArray(a)) throw invalidArgument('commit', `appends[${i}]`, `must be an object {stream?, expected?, events, state?}, not ${describeValue(a)}`);
      const unknown = unknownMember(a, COMMIT_APPEND);
      if (unknown !== undefined) throw unknownMemberError('commit', `appends[${i}]`, unknown, COMMIT_APPEND);
      if (!Array.isArray(a.events)) throw invalidArgument('commit', `appends[${i}].events`, `is required, an array (empty for a state-only append), not ${describeValue(a.events)}`);
      const events: WireEvent[] = [];
      for (let j = 0; j < a.events.length; j++) events.push(encodeEvent(a.events[j]!, 'commit', i, j, this.codecs));
      const out: Json = a.stream !== undefined ? { stream: a.stream, events } : { events };
      if (a.expected !== undefined) {
        checkExpected(a.expected, 'commit', i);
        out.expected = a.expected;
      }
      if (a.state !== undefined) out.state = encodeState(a.state, 'commit', i);
      wire.push(out);
    }
    const body: Json = { appends: wire };
    if (options.condition !== undefined) {
      const c = options.condition;
      checkObject(c, CONDITION_MEMBERS, 'commit', 'condition');
      const condition: Json = { failIfEventsMatch: encodeQuery(c.failIfEventsMatch, 'commit', 'condition.failIfEventsMatch') };
      if (c.after !== undefined) {
        checkInteger(c.after, 'commit', 'condition.after');
        condition.after = c.after;
      }
      body.condition = condition;
    }
    const res = await this.transport.request<{ position: number; appends: Json[] }>('POST', '/commits', { body, ...call });
    const replay = res.header('idempotent-replay') === 'true';
    return { position: answerInteger(res.json.position, res, 'position'), appends: res.json.appends.map((a) => decodeAppend(a, replay, res)) };
  }

  /**
   * A stream's events, paged as needed. Throws NotFoundError (on the first
   * page) when the stream does not exist, or was deleted (`deleted: true`)
   * and `includeDeleted` is not set. Events come upcast to their type's
   * newest schema version, then decoded by the client's codecs; `raw: true`
   * reads them as stored (neither). `readStream<E>`: events of the union
   * `E`, which `raw` reads cannot be (README, "Typed events").
   */
  readStream<E extends EventShape = EventShape>(
    stream: string,
    options: { from?: number; direction?: 'forward' | 'backward'; pageSize?: number; includeDeleted?: boolean; raw?: RawRead<E> } & CallOptions = {},
  ): AsyncGenerator<RecordedEvent<E>> {
    // Checked at the call, not at the first page.
    const call = callOptions(options, 'readStream', READ_STREAM_OPTIONS);
    checkOptionalInteger(options.from, 'readStream', 'from');
    checkOptionalInteger(options.pageSize, 'readStream', 'pageSize');
    return this.streamPages(stream, options, call) as AsyncGenerator<RecordedEvent<E>>;
  }

  private async *streamPages(
    stream: string,
    options: { from?: number; direction?: 'forward' | 'backward'; pageSize?: number; includeDeleted?: boolean; raw?: boolean },
    call: RequestOptions,
  ): AsyncGenerator<RecordedEvent> {
    let from: number | undefined = options.from;
    const codecs = this.codecsFor(options.raw);
    for (;;) {
      const query: UrlQuery = { from, limit: options.pageSize, direction: options.direction, includeDeleted: options.includeDeleted ? 'true' : undefined, raw: rawQuery(options.raw) };
      const res = await this.transport.request<{ events: Json[]; nextVersion: unknown }>('GET', streamPath(stream), { query, ...call });
      for (const e of res.json.events) yield decodeEvent(e, res, codecs);
      // A page cut by the byte budget may be short: only a null nextVersion ends the stream.
      const next = nextOf(res.json.nextVersion, res, 'nextVersion');
      if (next === null) return;
      if (res.json.events.length === 0 && next === from) return; // no progress: defensive
      from = next;
    }
  }

  /**
   * `$all` in position order, filtered, up to the end as it is when the read
   * gets there. Pages may be short or empty (byte and scan budgets): the read
   * goes on from `next` until a page brings nothing and `next` stays put.
   * Upcast and decoded like readStream; `raw: true` reads the events as
   * stored. `readAll<E>`: events of the union `E` (filter to make it so).
   */
  readAll<E extends EventShape = EventShape>(options: { from?: number; pageSize?: number; raw?: RawRead<E> } & AllFilter & CallOptions = {}): AsyncGenerator<RecordedEvent<E>> {
    // Checked at the call, not at the first page.
    const call = callOptions(options, 'readAll', READ_ALL_OPTIONS);
    checkOptionalInteger(options.from, 'readAll', 'from');
    checkOptionalInteger(options.pageSize, 'readAll', 'pageSize');
    return this.allPages(options, call) as AsyncGenerator<RecordedEvent<E>>;
  }

  private async *allPages(options: { from?: number; pageSize?: number; raw?: boolean } & AllFilter, call: RequestOptions): AsyncGenerator<RecordedEvent> {
    let from = options.from ?? 1;
    const codecs = this.codecsFor(options.raw);
    for (;;) {
      const query: UrlQuery = { from, limit: options.pageSize, ...filterQuery(options), raw: rawQuery(options.raw) };
      const res = await this.transport.request<{ events: Json[]; next: unknown }>('GET', '/all', { query, ...call });
      for (const e of res.json.events) yield decodeEvent(e, res, codecs);
      const next = nextOf(res.json.next, res, 'next');
      if (next === null) return;
      if (res.json.events.length === 0 && next <= from) return;
      from = next;
    }
  }

  /**
   * One page of the events matching `query` (docs/DCB.md), in position
   * order from `from` (inclusive, default the beginning) or, with
   * `direction: 'backward'`, in reverse from `from` (default the last
   * event); at most `limit` (default and at most 1000) and the server's byte
   * budget. `next` is where the next page starts. `{items: []}` matches
   * every event. Upcast and decoded like readAll; `raw: true` reads the
   * events as stored. `readQuery<E>`: events of the union `E`.
   */
  async readQuery<E extends EventShape = EventShape>(
    query: Query,
    options: { from?: number; limit?: number; direction?: 'forward' | 'backward'; raw?: RawRead<E> } & CallOptions = {},
  ): Promise<QueryPage<E>> {
    const call = callOptions(options, 'readQuery', READ_QUERY_OPTIONS);
    checkOptionalInteger(options.from, 'readQuery', 'from');
    checkOptionalInteger(options.limit, 'readQuery', 'limit', 1);
    checkDirection(options.direction, 'readQuery');
    const q = encodeQuery(query, 'readQuery', 'query');
    return (await this.queryPage(q, options.from, options.limit, options.direction, options.raw, call)) as QueryPage<E>;
  }

  /**
   * Every event matching `query`, paged as needed (`pageSize` events a
   * page), forward from `from` to the end as it is when the read gets there,
   * or backward to the first event. `readQueryAll<E>`: events of the union `E`.
   */
  readQueryAll<E extends EventShape = EventShape>(
    query: Query,
    options: { from?: number; pageSize?: number; direction?: 'forward' | 'backward'; raw?: RawRead<E> } & CallOptions = {},
  ): AsyncGenerator<RecordedEvent<E>> {
    // Checked at the call, not at the first page.
    const call = callOptions(options, 'readQueryAll', READ_QUERY_ALL_OPTIONS);
    checkOptionalInteger(options.from, 'readQueryAll', 'from');
    checkOptionalInteger(options.pageSize, 'readQueryAll', 'pageSize', 1);
    checkDirection(options.direction, 'readQueryAll');
    return this.queryPages(encodeQuery(query, 'readQueryAll', 'query'), options, call) as AsyncGenerator<RecordedEvent<E>>;
  }

  private async *queryPages(query: Query, options: { from?: number; pageSize?: number; direction?: 'forward' | 'backward'; raw?: boolean }, call: RequestOptions): AsyncGenerator<RecordedEvent> {
    const backward = options.direction === 'backward';
    let from = options.from ?? (backward ? undefined : 1);
    for (;;) {
      const page = await this.queryPage(query, from, options.pageSize, options.direction, options.raw, call);
      yield* page.events;
      // Backward, 0 is past the first event. A page may hold nothing and
      // still move on (events the caller may not read were skipped): only
      // one that brings nothing and stays put is the end.
      if (backward && page.next === 0) return;
      if (page.events.length === 0 && from !== undefined && (backward ? page.next >= from : page.next <= from)) return;
      from = page.next;
    }
  }

  /** GET /query, or POST /query for a query too long for a URL (both reads, so both retried). */
  private async queryPage(query: Query, from: number | undefined, limit: number | undefined, direction: 'forward' | 'backward' | undefined, raw: boolean | undefined, call: RequestOptions): Promise<QueryPage> {
    const q = JSON.stringify(query);
    let res: JsonResponse<{ events: Json[]; next: unknown }>;
    if (q.length <= MAX_QUERY_IN_URL) {
      const params: UrlQuery = { q: query.items.length > 0 ? q : undefined, from, limit, direction, raw: rawQuery(raw) };
      res = await this.transport.request<{ events: Json[]; next: unknown }>('GET', '/query', { query: params, ...call });
    } else {
      const body: Json = { query };
      if (from !== undefined) body.from = from;
      if (limit !== undefined) body.limit = limit;
      if (direction !== undefined) body.direction = direction;
      if (raw === true) body.raw = true;
      res = await this.transport.request<{ events: Json[]; next: unknown }>('POST', '/query', { body, ...call });
    }
    const codecs = this.codecsFor(raw);
    return { events: res.json.events.map((e) => decodeEvent(e, res, codecs)), next: answerInteger(res.json.next, res, 'next') };
  }

  /** A stream's last version and position; NotFoundError if it never existed. */
  async head(stream: string, options: CallOptions = {}): Promise<StreamHead> {
    const res = await this.transport.request<Json>('GET', streamPath(stream) + '/head', callOptions(options, 'head'));
    const j = res.json;
    return {
      stream: String(j.stream),
      version: answerInteger(j.version, res, 'version'),
      position: answerInteger(j.position, res, 'position'),
      deleted: j.deleted === true,
      firstVersion: answerInteger(j.firstVersion ?? 0, res, 'firstVersion'),
    };
  }

  /**
   * The event with this id, in whatever stream holds it (what a causationId
   * names), or null when none does or it is in a stream the caller may not
   * read. A DynamoDB store keeps no index by id: `InvalidError`. Decoded
   * by the client's codecs; `findEvent<E>`: an event of the union `E`.
   */
  async findEvent<E extends EventShape = EventShape>(id: string, options: CallOptions = {}): Promise<RecordedEvent<E> | null> {
    const call = callOptions(options, 'findEvent');
    try {
      const res = await this.transport.request<Json>('GET', `/events/${encodeURIComponent(id)}`, call);
      return decodeEvent(res.json, res, this.codecs) as RecordedEvent<E>;
    } catch (err) {
      // A server without the route also answers 404; that one is an error.
      if (err instanceof NotFoundError && !/^no route for /.test(err.message)) return null;
      throw err;
    }
  }

  /** The stream's state record, or null when it has none (never written, or the stream was deleted). */
  async getState(stream: string, options: CallOptions = {}): Promise<StateRecord | null> {
    const call = callOptions(options, 'getState');
    try {
      const res = await this.transport.request<Json>('GET', streamPath(stream) + '/state', call);
      return decodeState(res.json, res);
    } catch (err) {
      // A server without the route also answers 404 `not_found`; that one is
      // an error, not an empty state ("no route for GET ...").
      if (err instanceof NotFoundError && !/^no route for /.test(err.message)) return null;
      throw err;
    }
  }

  /** Soft delete: appends a tombstone; the events stay in `$all`. */
  async delete(stream: string, options: { expected?: Expected } & CallOptions = {}): Promise<AppendResult> {
    const call = callOptions(options, 'delete', DELETE_OPTIONS);
    // Not idempotent (deleting twice is a 404): retried only when surely not done.
    const headers = expectationHeaders(options.expected, 'delete');
    const res = await this.transport.request<Json>('DELETE', streamPath(stream), { headers, idempotent: false, ...call });
    return decodeAppend(res.json, false, res);
  }

  /**
   * Hard delete (erasure): appends a tombstone (data `{ erased: true }`)
   * and removes the stream's earlier events for good on the server: no read
   * returns them again, `$all` and subscriptions see the tombstone alone.
   * Irreversible (`delete` keeps the events). `expected` as for `delete`;
   * `NotFoundError` for a stream that never existed. Needs the delete
   * right on the stream. Not retried after a dropped connection.
   */
  async erase(stream: string, options: { expected?: Expected } & CallOptions = {}): Promise<AppendResult> {
    const call = callOptions(options, 'erase', DELETE_OPTIONS);
    const headers = expectationHeaders(options.expected, 'erase');
    const query = { erase: 'true' };
    const res = await this.transport.request<Json>('DELETE', streamPath(stream), { query, headers, idempotent: false, ...call });
    return decodeAppend(res.json, false, res);
  }

  /**
   * Removes for good the bytes of the events the streams' retention hides
   * (their metadata: `writeStreamMetadata`), then compacts: the server's
   * `POST /scavenge`. Can take minutes on a large store; the answer is
   * awaited for the client's `timeoutMs` plus an hour. Needs the admin
   * role (`ForbiddenError` otherwise); a store that cannot scavenge (not
   * the embedded engine) is an `InvalidError`.
   */
  async scavenge(options: CallOptions = {}): Promise<ScavengeReport> {
    const call = callOptions(options, 'scavenge');
    // Harmless twice: a second scavenge finds nothing more to remove.
    const res = await this.transport.request<Json>('POST', '/scavenge', { waitMs: SCAVENGE_WAIT_MS, ...call });
    const j = res.json;
    return {
      streams: answerInteger(j.streams, res, 'streams'),
      events: answerInteger(j.events, res, 'events'),
      bytes: answerInteger(j.bytes, res, 'bytes'),
      diskBytesBefore: answerInteger(j.diskBytesBefore, res, 'diskBytesBefore'),
      diskBytesAfter: answerInteger(j.diskBytesAfter, res, 'diskBytesAfter'),
      tookMs: answerInteger(j.tookMs, res, 'tookMs'),
    };
  }

  /**
   * Crypto-shredding: deletes the keys of `subject` (the events tagged
   * `subject:<subject>`), so that every one of its events reads as redacted
   * (`data` `{"$redacted": true}`) from then on. Irreversible. Needs the
   * admin role (`ForbiddenError` otherwise); a server without a master key
   * answers `InvalidError`. `keys` 0: the subject had none.
   */
  async shredSubject(subject: string, options: CallOptions = {}): Promise<ShredReport> {
    const call = callOptions(options, 'shredSubject');
    // Harmless twice: a second shred finds no key.
    const res = await this.transport.request<Json>('DELETE', '/subjects/' + encodeURIComponent(subject), call);
    const j = res.json;
    return { subject: String(j.subject), keys: answerInteger(j.keys, res, 'keys') };
  }

  /**
   * The stream's metadata (retention settings and custom keys) and its own
   * version; `version` null and `metadata` `{}` when it was never written.
   * Needs the read right on the stream.
   */
  async readStreamMetadata(stream: string, options: CallOptions = {}): Promise<StoredStreamMetadata> {
    const res = await this.transport.request<Json>('GET', streamPath(stream) + '/metadata', callOptions(options, 'readStreamMetadata'));
    const j = res.json;
    const metadata = j.metadata;
    if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata))
      throw new IndelibleError(`${res.method} ${res.path}: the answer's metadata is ${describeValue(metadata)}, not an object`, res.status, 'internal');
    return {
      stream: String(j.stream),
      version: j.version === null ? null : answerInteger(j.version, res, 'version'),
      metadata: metadata as StreamMetadata,
    };
  }

  /**
   * Replaces the stream's metadata (the whole document: members left out
   * are unset). Retention hides the stream's older events from every read
   * at once. `expected` is checked against the metadata's own version
   * (`'no_stream'`: never written), a mismatch is a ConflictError with
   * its `actualVersion`. Needs the delete right on the stream.
   */
  async writeStreamMetadata(stream: string, metadata: StreamMetadata, options: { expected?: Expected } & CallOptions = {}): Promise<StreamMetadataWritten> {
    const call = callOptions(options, 'writeStreamMetadata', METADATA_OPTIONS);
    checkObject(metadata, STREAM_METADATA, 'writeStreamMetadata', 'metadata');
    if (metadata === undefined) throw invalidArgument('writeStreamMetadata', 'metadata', 'is required, an object such as { maxCount: 1000 }');
    for (const [key, min] of [['maxAge', 1], ['maxCount', 1], ['truncateBefore', 0]] as const) {
      const value = metadata[key];
      if (value !== undefined && value !== null) checkInteger(value, 'writeStreamMetadata', `metadata.${key}`, min);
    }
    const custom = metadata.custom;
    if (custom !== undefined && custom !== null && (typeof custom !== 'object' || Array.isArray(custom)))
      throw invalidArgument('writeStreamMetadata', 'metadata.custom', `must be an object of your own keys, not ${describeValue(custom)}`);
    // Not idempotent (a second write takes another version): retried only when surely not done.
    const headers = expectationHeaders(options.expected, 'writeStreamMetadata');
    const res = await this.transport.request<Json>('PUT', streamPath(stream) + '/metadata', { body: metadata, headers, idempotent: false, ...call });
    return { stream: String(res.json.stream), version: answerInteger(res.json.version, res, 'version') };
  }

  /** Streams by name (bytewise order), paged; only those the caller may read. */
  listStreams(options: { prefix?: string; category?: string; after?: string; pageSize?: number; last?: boolean } & CallOptions = {}): AsyncGenerator<StreamInfo> {
    // Checked at the call, not at the first page.
    const call = callOptions(options, 'listStreams', LIST_OPTIONS);
    checkOptionalInteger(options.pageSize, 'listStreams', 'pageSize');
    return this.streamListPages(options, call);
  }

  private async *streamListPages(options: { prefix?: string; category?: string; after?: string; pageSize?: number; last?: boolean }, call: RequestOptions): AsyncGenerator<StreamInfo> {
    let after = options.after;
    for (;;) {
      const page = await this.streamListPage(options.prefix, options.category, after, options.pageSize, options.last, call);
      yield* page.streams;
      if (page.next === null || page.next === after) return;
      after = page.next;
    }
  }

  /**
   * One page of the stream listing, in name order, and the name to pass as
   * `after` for the next (null on the last page). For a UI that pages;
   * `listStreams` reads on by itself.
   */
  async listStreamsPage(options: { prefix?: string; category?: string; after?: string; limit?: number; last?: boolean } & CallOptions = {}): Promise<StreamListPage> {
    const call = callOptions(options, 'listStreamsPage', LIST_PAGE_OPTIONS);
    checkOptionalInteger(options.limit, 'listStreamsPage', 'limit');
    return this.streamListPage(options.prefix, options.category, options.after, options.limit, options.last, call);
  }

  private async streamListPage(prefix: string | undefined, category: string | undefined, after: string | undefined, limit: number | undefined, last: boolean | undefined, call: RequestOptions): Promise<StreamListPage> {
    const query: UrlQuery = { prefix, category, after, limit, last: last ? 'true' : undefined };
    const res = await this.transport.request<{ streams: Json[]; next: string | null }>('GET', '/streams', { query, ...call });
    const streams = res.json.streams.map((s): StreamInfo => {
      const info: StreamInfo = {
        stream: String(s.stream),
        version: answerInteger(s.version, res, 'stream version'),
        position: answerInteger(s.position, res, 'stream position'),
        deleted: s.deleted === true,
        lastWrite: Number(s.lastWrite),
      };
      if (last) info.last = lastEventOf(s.last, res);
      return info;
    });
    const next = res.json.next;
    return { streams, next: typeof next === 'string' ? next : null };
  }


  /**
   * Every event of `$all` (filtered) from `from` (a position, default 1, or
   * 'end': only what is committed after the call), then live, for ever;
   * resumes after drops and server restarts without gap or duplicate.
   * Ends on `signal` or when the loop is left. Events are decoded by the
   * client's codecs (not `raw` ones): one that does not decode ends the
   * subscription with a CodecError. `subscribeAll<E>`: events of the union `E`.
   */
  subscribeAll<E extends EventShape = EventShape>(options: SubscribeOptions<E> & AllFilter = {}): AsyncGenerator<RecordedEvent<E>> {
    checkObject(options, SUBSCRIBE_ALL_OPTIONS, 'subscribeAll', '');
    checkFrom(options.from, 'subscribeAll');
    return subscribe(this.transport, '/subscribe/all', { ...filterQuery(options), raw: rawQuery(options.raw) }, options, this.codecsFor(options.raw)) as AsyncGenerator<RecordedEvent<E>>;
  }

  /**
   * Every event matching `query` from position `from` (default 1, or
   * 'end': only what is committed after the call), then live, for ever;
   * resumes after drops and server restarts with `Last-Event-ID`, without
   * gap or duplicate. Ends on `signal` or when the loop is left. Decoded
   * as subscribeAll; `subscribeQuery<E>`: events of the union `E`.
   */
  subscribeQuery<E extends EventShape = EventShape>(query: Query, options: SubscribeOptions<E> = {}): AsyncGenerator<RecordedEvent<E>> {
    checkObject(options, SUBSCRIBE_MEMBERS, 'subscribeQuery', '');
    checkFrom(options.from, 'subscribeQuery');
    const q = encodeQuery(query, 'subscribeQuery', 'query');
    const params = { q: q.items.length > 0 ? JSON.stringify(q) : undefined, raw: rawQuery(options.raw) };
    return subscribe(this.transport, '/subscribe/query', params, options, this.codecsFor(options.raw)) as AsyncGenerator<RecordedEvent<E>>;
  }

  /**
   * One stream's events from version `from` (default 0) or 'end', then
   * live; waits for a stream that does not exist yet. Decoded as
   * subscribeAll; `subscribeStream<E>`: events of the union `E`.
   */
  subscribeStream<E extends EventShape = EventShape>(stream: string, options: SubscribeOptions<E> = {}): AsyncGenerator<RecordedEvent<E>> {
    checkObject(options, SUBSCRIBE_MEMBERS, 'subscribeStream', '');
    checkFrom(options.from, 'subscribeStream');
    return subscribe(this.transport, '/subscribe' + streamPath(stream), { raw: rawQuery(options.raw) }, options, this.codecsFor(options.raw)) as AsyncGenerator<RecordedEvent<E>>;
  }

  /** `GET /schemas`: every type (versions, settings, upcasters), the category settings and the default. */
  listSchemas(options: CallOptions = {}): Promise<SchemaList> {
    return this.schemaRoutes.list(options);
  }

  /** A type's versions, settings and upcasters; NotFoundError for a type with none registered. */
  getSchemaType(type: string, options: CallOptions = {}): Promise<SchemaType> {
    return this.schemaRoutes.type(type, options);
  }

  /** One version of a type; NotFoundError when the type or version is not registered. */
  getSchemaVersion(type: string, version: string, options: CallOptions = {}): Promise<SchemaVersion> {
    return this.schemaRoutes.version(type, version, options);
  }

  /**
   * Registers `schema` (a JSON Schema) as `version` of `type`: `created`
   * false when that exact version was there. ConflictError: the label has
   * another schema; RejectedError: it breaks the type's compatibility (the
   * message says why); InvalidError: not a schema. Admin only.
   */
  registerSchema(type: string, version: string, schema: unknown, options: CallOptions = {}): Promise<RegisterSchemaResult> {
    return this.schemaRoutes.register(type, version, schema, options);
  }

  /** The compatibility check of registerSchema, nothing written. */
  checkSchema(type: string, schema: unknown, options: CallOptions = {}): Promise<SchemaCheckResult> {
    return this.schemaRoutes.check(type, schema, options);
  }

  /** Sets a type's mode and/or compatibility (absent members stay); answers the type's settings. Admin only. */
  setSchemaSettings(type: string, settings: SchemaSettings, options: CallOptions = {}): Promise<SchemaSettings> {
    return this.schemaRoutes.setTypeSettings(type, settings, options);
  }

  /** The settings of a stream category (`enforce` there accepts registered types only). Admin only. */
  setCategorySchemaSettings(category: string, settings: SchemaSettings, options: CallOptions = {}): Promise<SchemaSettings> {
    return this.schemaRoutes.setCategorySettings(category, settings, options);
  }

  /** The store's default settings (unset: mode off, compatibility backward). Admin only. */
  setDefaultSchemaSettings(settings: SchemaSettings, options: CallOptions = {}): Promise<SchemaSettings> {
    return this.schemaRoutes.setDefaultSettings(settings, options);
  }

  /** Adds a declarative upcaster from `from` to the version registered right after it. Admin only. */
  addUpcaster(type: string, upcaster: Upcaster, options: CallOptions = {}): Promise<void> {
    return this.schemaRoutes.addUpcaster(type, upcaster, options);
  }

  /** Checks one event's data against a version (default: the newest), whatever the mode. */
  validateEvent(type: string, data: unknown, options: { version?: string } & CallOptions = {}): Promise<ValidateEventResult> {
    return this.schemaRoutes.validate(type, data, options);
  }

  /** The category and default settings, as set. */
  getSchemaSettings(options: CallOptions = {}): Promise<SchemaSettingsList> {
    return this.schemaRoutes.settings(options);
  }

  /**
   * Starts a worker of a consumer group (the group must exist:
   * consumers.create). Each event is decoded by the client's codecs just
   * before its handler runs; one that does not decode is nacked like a
   * handler that throws. `worker<E>`: the handler takes events of the union `E`.
   */
  worker<E extends EventShape = EventShape>(group: string, handler: Handler<E>, options: WorkerOptions = {}): Worker {
    return new Worker(this.storedConsumers, group, handler as Handler, options, this.codecs);
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

  /**
   * One page of a stream: at most `limit` events (the server's default 100,
   * at most 1000, and its byte budget) from `from` in `direction`, and
   * where the next page starts. For a UI that pages; `readStream` reads on
   * by itself. NotFoundError as readStream. `readStreamPage<E>`: events of the union `E`.
   */
  async readStreamPage<E extends EventShape = EventShape>(
    stream: string,
    options: { from?: number; direction?: 'forward' | 'backward'; limit?: number; includeDeleted?: boolean; raw?: RawRead<E> } & CallOptions = {},
  ): Promise<StreamPage<E>> {
    const call = callOptions(options, 'readStreamPage', READ_STREAM_PAGE_OPTIONS);
    checkOptionalInteger(options.from, 'readStreamPage', 'from');
    checkOptionalInteger(options.limit, 'readStreamPage', 'limit');
    checkDirection(options.direction, 'readStreamPage');
    const query: UrlQuery = { from: options.from, limit: options.limit, direction: options.direction, includeDeleted: options.includeDeleted ? 'true' : undefined, raw: rawQuery(options.raw) };
    const res = await this.transport.request<{ stream: unknown; events: Json[]; nextVersion: unknown }>('GET', streamPath(stream), { query, ...call });
    const codecs = this.codecsFor(options.raw);
    const events = res.json.events.map((e) => decodeEvent(e, res, codecs)) as RecordedEvent<E>[];
    return { stream: typeof res.json.stream === 'string' ? res.json.stream : stream, events, nextVersion: nextOf(res.json.nextVersion, res, 'nextVersion') };
  }

  /** One page of `$all` from `from` (default 1), filtered as readAll, and where the next page starts. `readAllPage<E>`: events of the union `E`. */
  async readAllPage<E extends EventShape = EventShape>(options: { from?: number; limit?: number; raw?: RawRead<E> } & AllFilter & CallOptions = {}): Promise<AllPage<E>> {
    const call = callOptions(options, 'readAllPage', READ_ALL_PAGE_OPTIONS);
    checkOptionalInteger(options.from, 'readAllPage', 'from');
    checkOptionalInteger(options.limit, 'readAllPage', 'limit');
    const query: UrlQuery = { from: options.from, limit: options.limit, ...filterQuery(options), raw: rawQuery(options.raw) };
    const res = await this.transport.request<{ events: Json[]; next: unknown }>('GET', '/all', { query, ...call });
    const codecs = this.codecsFor(options.raw);
    return { events: res.json.events.map((e) => decodeEvent(e, res, codecs)) as RecordedEvent<E>[], next: answerInteger(res.json.next, res, 'next') };
  }

  /** `GET /auth/whoami`: the caller's principal, roles and grants (`authentication: false` on a server without `--auth`). */
  async whoami(options: CallOptions = {}): Promise<WhoAmI> {
    const res = await this.transport.request<WhoAmI>('GET', '/auth/whoami', callOptions(options, 'whoami'));
    return res.json;
  }

  /** `GET /metrics`: the server's Prometheus text (the `metrics` right). */
  async metrics(options: CallOptions = {}): Promise<string> {
    const res = await this.transport.request<string>('GET', '/metrics', { ...callOptions(options, 'metrics'), text: true });
    return res.json;
  }

  /** `GET /health`: `{status, reason?, lastPosition}` (a 503 answer throws UnavailableError). */
  async health(options: CallOptions = {}): Promise<{ status: string; reason?: string; lastPosition: number }> {
    const res = await this.transport.request<{ status: string; reason?: string; lastPosition: number }>('GET', '/health', callOptions(options, 'health'));
    answerInteger(res.json.lastPosition, res, 'lastPosition');
    return res.json;
  }
}

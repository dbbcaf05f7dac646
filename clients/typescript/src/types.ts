// The public data types of the client. Field names follow the server's JSON
// (docs/HTTP.md, /work/notes issue 20), so a value read here can be sent
// back as is.

import type { TransportKind } from './runtime.js';

/**
 * What an append expects of the stream: `'any'` (no check), `'no_stream'`
 * (the stream must not exist, or be deleted), `'exists'`, or a number: the
 * stream's last version must be exactly that (a safe integer: README,
 * "Numbers").
 */
export type Expected = 'any' | 'no_stream' | 'exists' | number;

/**
 * What a member of a typed event union looks like (README, "Typed events"):
 * `type` a string literal, `data` that type's data (left out, or
 * optional: events of that type may have none, and read back with `data`
 * `null`). The untyped default is `EventShape` itself: any type, any data.
 */
export interface EventShape {
  type: string;
  data?: unknown;
}

/** The data a member `E` of an event union declares; `undefined` when it declares none. */
export type EventData<E extends EventShape> = 'data' extends keyof E ? E['data'] : undefined;

/** An event's data going out: required unless the type allows `undefined`. */
type DataInput<D> = undefined extends D ? { data?: D } : { data: D };

/** An event's data read back: `null` where it may have been left out. */
type DataRead<D> = Exclude<D, undefined> | (undefined extends D ? null : never);

/** The members of EventInput that do not depend on the event's type. */
export interface EventInputFields {
  /** A UUID; the client makes one when missing, so retries are idempotent. */
  id?: string;
  schema?: string;
  metadata?: Record<string, unknown>;
  /** Content type of byte data (default `application/octet-stream`). */
  contentType?: string;
  /**
   * Tags for queries across streams (`user:alice`, docs/DCB.md): at most
   * 32, each 1 to 128 bytes without control characters. A set: the store
   * keeps them sorted, duplicates removed.
   */
  tags?: string[];
}

/**
 * An event as a client sends it; any other member is refused
 * (InvalidError), never dropped. `data` is any JSON value, or bytes
 * (`Uint8Array`), sent base64 with `contentType`; a codec of its type
 * (`ClientOptions.codecs`) encodes it first. With a union `E` (README,
 * "Typed events"), one of the union's types with that type's data: a
 * union itself, one member per type, so `type` decides what `data` is.
 */
export type EventInput<E extends EventShape = EventShape> = E extends EventShape ? EventInputFields & { type: E['type'] } & DataInput<EventData<E>> : never;

/** The members of RecordedEvent that do not depend on the event's type. */
export interface RecordedEventFields {
  id: string;
  stream: string;
  /** 0 for the stream's first event, then +1. */
  version: number;
  /** Global commit order across all streams. */
  position: number;
  /** `''` when the event was written without one. */
  schema: string;
  metadata: Record<string, unknown>;
  /** Unix milliseconds, set by the store at commit. */
  timestamp: number;
  /** Set for byte data only. */
  contentType?: string;
  /** Its tags, sorted, without duplicates; absent when it has none. */
  tags?: string[];
}

/**
 * An event as the store recorded it. `data` is the JSON value, or a
 * `Uint8Array` for byte data (`contentType` set), `null` when it had none,
 * then decoded by its type's codec (`ClientOptions.codecs`) unless read
 * `raw`. With a union `E`, a union with one member per type, so checking
 * `type` narrows `data` (README, "Typed events").
 */
export type RecordedEvent<E extends EventShape = EventShape> = E extends EventShape ? RecordedEventFields & { type: E['type']; data: DataRead<EventData<E>> } : never;

/**
 * The `raw` option of a read or subscription with event union `E`: raw
 * events come as stored, neither upcast nor decoded, so not of the union's
 * shape: only the untyped reads (no type argument) may ask for them.
 */
export type RawRead<E extends EventShape> = string extends E['type'] ? boolean : false;

/**
 * How one event type's data is turned into what is stored (`encode`, on
 * every write: append and commit) and back (`decode`, on every read:
 * reads, `findEvent`, subscriptions, pulls, workers; not `raw` ones). A
 * half left out passes the data through as is. `Data` is the application's
 * value, `Stored` what is sent: a JSON value, or a `Uint8Array` (sent as
 * byte data). Either half may throw: the call fails with a CodecError.
 */
export interface EventCodec<Data = any, Stored = any> {
  /** Called with the event's `data` before an append or commit; must not change it. */
  encode?(data: Data): Stored;
  /** Called with the `data` read (after the server's upcasting); its result is the event's `data`. */
  decode?(stored: Stored): Data;
}

/**
 * Codecs by event type (`ClientOptions.codecs`). With an event union `E`,
 * each codec is checked against its type's data, and only the union's
 * types may have one: `const codecs: Codecs<OrderEvents> = { OrderPlaced: dateCodec('placedAt') }`.
 */
export type Codecs<E extends EventShape = EventShape> = string extends E['type']
  ? { [type: string]: EventCodec }
  : { [T in E['type']]?: EventCodec<EventData<Extract<E, { type: T }>>> };

export interface AppendResult {
  stream: string;
  firstVersion: number;
  lastVersion: number;
  /** Position of the last event (0 on a DynamoDB store). */
  position: number;
  /** True when the server answered an idempotent retry: nothing was written. */
  replayed: boolean;
}

/** A state record written with events (entities, snapshots). */
export interface StateInput {
  /** Any JSON value, or bytes (`Uint8Array`). */
  data: unknown;
  /** The state's schema number (default: the server's, 0). */
  schema?: number;
}

export interface StateRecord {
  stream: string;
  /** The stream version the state covers. */
  version: number;
  position: number;
  schema: number;
  data: unknown;
}

/**
 * A stream's metadata (docs/HTTP.md, "Stream metadata"): its retention
 * settings, which hide its older events from every read at once, and the
 * caller's own keys. Every member is optional; `null` or left out means
 * unset. Any other member is refused (`InvalidError`), by the client
 * before anything is sent and by the server.
 */
export interface StreamMetadata {
  /** Seconds: events committed longer ago are not read. An integer >= 1. */
  maxAge?: number | null;
  /** Only the newest this many versions are read (a tombstone included). An integer >= 1. */
  maxCount?: number | null;
  /** Versions below it are not read. An integer >= 0. */
  truncateBefore?: number | null;
  /** Your own keys: a JSON object, kept as sent. */
  custom?: Record<string, unknown> | null;
}

/** A stream's metadata as stored, from `readStreamMetadata`. */
export interface StoredStreamMetadata {
  stream: string;
  /** The metadata's own version (its ETag: 0 for the first write, then +1); null when never written. */
  version: number | null;
  /** `{}` when never written; unset members are left out. */
  metadata: StreamMetadata;
}

/** What `writeStreamMetadata` answers: the metadata's new version. */
export interface StreamMetadataWritten {
  stream: string;
  version: number;
}

/** What `scavenge` removed (the server's `POST /scavenge`). */
export interface ScavengeReport {
  /** Streams that had events removed. */
  streams: number;
  /** Events removed. */
  events: number;
  /** Bytes of the records removed: the events and their index entries. */
  bytes: number;
  /** The server's data folder before the scavenge (0 where its store has none). */
  diskBytesBefore: number;
  /** ... and after its compaction. */
  diskBytesAfter: number;
  /** How long the scavenge ran on the server, in milliseconds. */
  tookMs: number;
}

/** What `shredSubject` deleted (the server's `DELETE /subjects/{subject}`). */
export interface ShredReport {
  subject: string;
  /** The subject's keys deleted; 0 when it had none. */
  keys: number;
}

/** One stream's part of a commit; with an event union `E`, its events are of the union (README, "Typed events"). */
export interface CommitAppend<E extends EventShape = EventShape> {
  /** Left out: the events go without a stream (to the reserved `$dcb`, docs/DCB.md). */
  stream?: string;
  expected?: Expected;
  events: EventInput<E>[];
  state?: StateInput;
}

/**
 * One item of a query: events of any of `types` (none listed: any type)
 * that carry every one of `tags` (none listed: no tag needed). An item
 * needs a type or a tag.
 */
export interface QueryItem {
  types?: string[];
  tags?: string[];
}

/**
 * Events matching any item (`{items: []}`: every event), the server's
 * query document (docs/DCB.md, "HTTP"). At most 32 items, each at most 32
 * types and 32 tags.
 */
export interface Query {
  items: QueryItem[];
}

/**
 * A commit's condition: the commit fails, writing nothing, with a
 * ConflictError of reason `'condition'`, if an event matching
 * `failIfEventsMatch` was written after position `after` (left out: any
 * matching event at all). `after` is the last position the decision
 * considered: the position of the last event read, or a query page's
 * `next - 1` after reading it to its end.
 */
export interface AppendCondition {
  failIfEventsMatch: Query;
  after?: number;
}

export interface CommitOptions {
  condition?: AppendCondition;
}

/** One page of a query read (`readQuery<E>`: its events of the union `E`). */
export interface QueryPage<E extends EventShape = EventShape> {
  /** Matching events, in the read's direction. */
  events: RecordedEvent<E>[];
  /**
   * Where the next page starts (pass it as `from` with the same
   * direction): past the events this page held and those it skipped.
   * Forward, the store's last position + 1 once the read reached the end;
   * backward, 0 once it passed position 1.
   */
  next: number;
}

export interface CommitResult {
  position: number;
  /** In the order of the request's appends. */
  appends: AppendResult[];
}

export interface StreamHead {
  stream: string;
  version: number;
  position: number;
  deleted: boolean;
  firstVersion: number;
}

/** One page of a stream (`readStreamPage`). */
export interface StreamPage<E extends EventShape = EventShape> {
  stream: string;
  events: RecordedEvent<E>[];
  /** Where the next page starts (pass it as `from`, same direction); null once the read reached the end. */
  nextVersion: number | null;
}

/** One page of `$all` (`readAllPage`). */
export interface AllPage<E extends EventShape = EventShape> {
  events: RecordedEvent<E>[];
  /** Where the next page starts (pass it as `from`); the last position + 1 once the read reached the end. */
  next: number;
}

/** A rule of a principal's grants (docs/SECURITY.md): rights on categories or name prefixes. */
export interface GrantRule {
  allow: string[];
  categories?: string[];
  prefixes?: string[];
}

/** `GET /auth/whoami`: who the server takes the caller for; `authentication: false` on a server without `--auth`. */
export interface WhoAmI {
  authentication: boolean;
  principal?: string;
  roles?: string[];
  grants?: { admin: boolean; rules: GrantRule[] };
}

export interface StreamInfo {
  stream: string;
  version: number;
  position: number;
  deleted: boolean;
  /** Unix ms of the stream's last event. */
  lastWrite: number;
  /**
   * With `last: true` only: the stream's newest event a read returns (its
   * envelope: no data or metadata), the tombstone for a deleted stream, null
   * when retention hides every event. The server reads it for each listed
   * stream: ask only to show it.
   */
  last?: StreamLastEvent | null;
}

/** The envelope of a stream's newest event, as the stream listing gives it. */
export interface StreamLastEvent {
  id: string;
  type: string;
  version: number;
  position: number;
  /** Unix ms. */
  timestamp: number;
}

/** One page of the stream listing (`listStreamsPage`). */
export interface StreamListPage {
  streams: StreamInfo[];
  /** Pass as `after` for the next page; null on the last page. */
  next: string | null;
}

/** The `/all` filters: within one filter any value matches, across filters all must. */
export interface AllFilter {
  category?: string | string[];
  prefix?: string | string[];
  type?: string | string[];
}

export interface ClientOptions {
  /** An API key (`idl_...`), sent as `Authorization: Bearer`. */
  apiKey?: string;
  /**
   * A JWT, or a function giving one (called before every request, so it may
   * refresh); a function that gives nothing (`''`, null, undefined) sends the
   * request without credentials (a signed-out browser session).
   */
  token?: string | (() => string | null | undefined | Promise<string | null | undefined>);
  /**
   * PEM CA certificate(s) to trust for an https URL (a private CA), as text
   * or bytes (`readFileSync('ca.pem')`). Node only: the node transport
   * takes it; with fetch the runtime's own trust store applies, and giving
   * one is an InvalidError.
   */
  ca?: string | Uint8Array;
  /** Per attempt, default 30000 ms (long polls add their wait to it). */
  timeoutMs?: number;
  /** Retries of an unavailable server or dropped connection, default 3. */
  retries?: number;
  /**
   * Most connections open at once for ordinary requests (long pulls
   * included), default 64: more requests in flight wait for a free one
   * (the wait counts in their timeout). Idle ones are kept for reuse, up
   * to 30 s. Subscriptions have their own connection each, outside it.
   */
  maxConnections?: number;
  /**
   * How requests travel: `'node'` (`node:http`/`node:https`, Node only: the
   * fastest there) or `'fetch'` (the runtime's `fetch` and web streams:
   * browsers, Deno, Bun, Workers). Left out: `'node'` on Node, `'fetch'`
   * everywhere else (README, "Runtimes").
   */
  transport?: TransportKind;
  /**
   * Codecs by event type (README, "Typed events"): `encode` turns an
   * event's data into what is stored before every append and commit,
   * `decode` turns what is read back into the application's value on every
   * read, `findEvent`, subscription, pull and worker (`raw` reads excepted:
   * they give the events as stored). Types without one pass as they are;
   * left out, nothing is encoded or decoded.
   */
  codecs?: Codecs;
}

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

/** An event as a client sends it; any other member is refused (InvalidError), never dropped. */
export interface EventInput {
  /** A UUID; the client makes one when missing, so retries are idempotent. */
  id?: string;
  type: string;
  schema?: string;
  /** Any JSON value, or bytes (`Uint8Array`), sent base64 with `contentType`. */
  data?: unknown;
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

/** An event as the store recorded it. */
export interface RecordedEvent {
  id: string;
  stream: string;
  /** 0 for the stream's first event, then +1. */
  version: number;
  /** Global commit order across all streams. */
  position: number;
  type: string;
  /** `''` when the event was written without one. */
  schema: string;
  /** The JSON value, or a `Uint8Array` for byte data (`contentType` set). */
  data: unknown;
  metadata: Record<string, unknown>;
  /** Unix milliseconds, set by the store at commit. */
  timestamp: number;
  /** Set for byte data only. */
  contentType?: string;
  /** Its tags, sorted, without duplicates; absent when it has none. */
  tags?: string[];
}

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

/** One stream's part of a commit. */
export interface CommitAppend {
  /** Left out: the events go without a stream (to the reserved `$dcb`, docs/DCB.md). */
  stream?: string;
  expected?: Expected;
  events: EventInput[];
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

/** One page of a query read. */
export interface QueryPage {
  /** Matching events, in the read's direction. */
  events: RecordedEvent[];
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

export interface StreamInfo {
  stream: string;
  version: number;
  position: number;
  deleted: boolean;
  /** Unix ms of the stream's last event. */
  lastWrite: number;
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
  /** A JWT, or a function giving one (called before every request, so it may refresh). */
  token?: string | (() => string | Promise<string>);
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
}

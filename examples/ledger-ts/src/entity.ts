// A small entity ("facet") helper on @indelible/client: an entity is a
// stream of inbound events plus its current state, computed by rules and
// kept beside the events in a state record. The same design and the same
// behaviour as the C++ library (include/indelible/entity.h, src/entities/),
// over the HTTP API:
//
//   load     GET /streams/{s}/state, then the events after the version it
//            covers (GET /streams/{s}?from=version+1); or, with no usable
//            record, every event from the initial state
//   apply    the rule of each new event: (state, event) -> state; a rule may
//            reject (throw Rejected: nothing is written) or publish outbound
//            events
//   commit   POST /commits, one atomic commit:
//              {s}          the events + the new state record, expecting
//                           the version loaded (no_stream for a new entity)
//              outbox-{s}   the outbound events, with metadata
//                           {causationId, correlationId, entityStream,
//                           entityVersion} and ids derived from the cause's
//   conflict another writer moved the stream: reload, reapply, commit again,
//            up to maxAttempts in all
//
// Teams coming from the DynamoDB "facet" design find its pieces here: a
// Map of rules keyed by record type name, each a StateUpdater taking
// {state, current, publish}; a Processor (rules + initial state); an Entity
// (the facet) named like the state record ("BANK_ACCOUNT") whose get,
// append, appendTo and recalculate take the entity's id; results with the
// state, its version (the facet's seq) and newOutboundEvents.
import { randomUUID } from 'node:crypto';

import { Client, ConflictError, NotFoundError } from '@indelible/client';

// ---------------------------------------------------------------------------
// Events and rules

// A JSON value as the wire carries it.
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

// An inbound event of a command: its type (the record type name), its data,
// metadata, and optionally an id of the caller's (then a retry of a command
// whose reply was lost is an idempotent retry: it reports replayed).
export class Event<T = Json> {
  constructor(
    public readonly type: string,
    public readonly data: T,
    public readonly metadata: { [key: string]: Json } = {},
    public readonly id?: string,
  ) {}
}

// What a rule sees of the inbound event besides its data.
export interface EventEnvelope {
  id: string;
  stream: string;
  version: number;
  position: number; // 0 for a new event of the command (set at commit)
  type: string;
  schema: string;
  metadata: { [key: string]: Json };
}

export interface StateUpdaterInput<S, E> {
  state: S; // the state so far (the rule's own copy: change it and return it)
  current: E; // the event's data
  event: EventEnvelope;
  // True while stored events are replayed (loading, recalculating): what
  // the rule publishes then is dropped, since it was published when the
  // event was first appended.
  replaying: boolean;
  // Queues an outbound event; written only if the whole command succeeds.
  publish: (type: string, event: Json) => void;
}

// A rule: the next state from the state and one event of its type. Pure
// and quick: it runs again on every load, retry and recalculation.
export type StateUpdater<S, E = any> = (input: StateUpdaterInput<S, E>) => S;

export type RecordTypeName = string;
export type Rules<S> = Map<RecordTypeName, StateUpdater<S, any>>;

// How the state travels in its state record (a JSON value). decode throws
// on a value it cannot read.
export interface StateCodec<S> {
  encode: (state: S) => Json;
  decode: (data: Json) => S;
}

// The rules, the initial state and the state's codec.
export class Processor<S> {
  constructor(
    public readonly rules: Rules<S>,
    public readonly initial: () => S,
    public readonly codec: StateCodec<S> = {
      encode: (state) => state as unknown as Json,
      decode: (data) => data as unknown as S,
    },
  ) {}
}

// ---------------------------------------------------------------------------
// Errors

export type EntityErrorCode = 'rejected' | 'invalid' | 'not_found' | 'conflict' | 'internal';

export class EntityError extends Error {
  constructor(
    public readonly code: EntityErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'EntityError';
  }
}

// Thrown by a rule to refuse the command: nothing of it is written and the
// caller gets this error, with the rule's reason as its message.
export class Rejected extends EntityError {
  constructor(reason: string) {
    super('rejected', reason);
    this.name = 'Rejected';
  }
}

// ---------------------------------------------------------------------------
// Options and results

// When the state record is written: on every command (the default; a load
// reads the record and nothing else), when a command brings the events
// since the last record to n or more, or never (a load replays everything).
export type SnapshotPolicy = 'every-write' | { every: number } | 'none';

export interface EntityOptions {
  // The version of the state's encoding, stored with each state record. A
  // record of another schema is never decoded: the state is rebuilt from the
  // events and the record replaced at the next write.
  stateSchema?: number;
  snapshots?: SnapshotPolicy;
  maxAttempts?: number; // commits tried in all when other writers interfere (5)
  outboxPrefix?: string; // outbound events of S go to outboxPrefix + S ("outbox-")
}

// An outbound event a rule published, as written to the outbox stream.
export interface OutboundEvent {
  id: string; // derived from the cause's id: a retried command writes the same ids
  type: string;
  event: Json; // its data
  causationId: string; // the inbound event whose rule published it
}

// An entity's state as read or left by a command.
export interface Loaded<S> {
  stream: string;
  state: S;
  // The stream's last version (the state covers it); null if the stream
  // does not exist or is deleted (the state is then the initial one).
  version: number | null;
  position: number; // of the last event (0 if none)
  eventsRead: number; // stored events the load read (0 when the record was current)
  snapshotVersion: number | null; // the version of the state record it started from
}

// The outcome of a command (append, appendTo, recalculate).
export interface Change<S> extends Loaded<S> {
  newOutboundEvents: OutboundEvent[]; // what this command wrote to the outbox
  attempts: number; // commits tried (more than 1 after conflicts)
  // The command's events were already written by an earlier attempt (same
  // ids): nothing was written now; the state is the stored one.
  replayed: boolean;
}

interface LoadOutcome<S> extends Loaded<S> {
  deleted: boolean; // the stream exists only as a tombstone
  staleSnapshot: boolean; // a record of another schema was ignored
}

type Kind = 'append' | 'recalculate';

// An event as the client sends it, in a commit.
interface WireEvent {
  id: string;
  type: string;
  data: Json;
  metadata: { [key: string]: Json };
}

// ---------------------------------------------------------------------------
// The entity

export class Entity<S> {
  private readonly stateSchema: number;
  private readonly snapshots: SnapshotPolicy;
  private readonly maxAttempts: number;
  private readonly outboxPrefix: string;

  // `name` prefixes the streams: the entity with id 123 is the stream
  // "<name>/123" ("BANK_ACCOUNT/123").
  constructor(
    private readonly client: Client,
    public readonly name: string,
    private readonly processor: Processor<S>,
    options: EntityOptions = {},
  ) {
    this.stateSchema = options.stateSchema ?? 1;
    this.snapshots = options.snapshots ?? 'every-write';
    this.maxAttempts = options.maxAttempts ?? 5;
    this.outboxPrefix = options.outboxPrefix ?? 'outbox-';
  }

  streamOf(id: string): string {
    return `${this.name}/${id}`;
  }

  // The entity's current state; not_found when the stream does not exist
  // or is deleted.
  async get(id: string): Promise<Loaded<S>> {
    const stream = this.streamOf(id);
    const loaded = await this.load(stream, false);
    if (loaded.version === null || loaded.deleted)
      throw new EntityError('not_found', `entity stream '${stream}' does not exist`);
    return toLoaded(loaded);
  }

  // Loads the entity (the initial state if it does not exist yet), applies
  // `events` and commits them with the new state record and the outbound
  // events, expecting the version it loaded; retries on conflicts.
  async append(id: string, ...events: Event<any>[]): Promise<Change<S>> {
    return this.run(this.streamOf(id), events, null, 'append');
  }

  // The same from a state already in hand (from get or an earlier command):
  // no read first. A stale state is caught by the expected version; then it
  // reloads and retries like append.
  async appendTo(from: Loaded<S>, ...events: Event<any>[]): Promise<Change<S>> {
    return this.run(from.stream, events, from, 'append');
  }

  // Replays every event of the stream from the initial state (ignoring the
  // state record), applies `events` if any, and writes the state record
  // with them, or alone. Verifies a state and repairs one written by buggy
  // rules. not_found if the stream does not exist and no events are given.
  async recalculate(id: string, ...events: Event<any>[]): Promise<Change<S>> {
    return this.run(this.streamOf(id), events, null, 'recalculate');
  }

  // -------------------------------------------------------------------------

  private async load(stream: string, replayAll: boolean): Promise<LoadOutcome<S>> {
    const out: LoadOutcome<S> = {
      stream,
      state: this.processor.initial(),
      version: null,
      position: 0,
      eventsRead: 0,
      snapshotVersion: null,
      deleted: false,
      staleSnapshot: false,
    };
    let from = 0;
    if (!replayAll && this.snapshots !== 'none') {
      const record = await this.client.getState(stream);
      if (record !== null) {
        if (record.schema !== this.stateSchema) {
          out.staleSnapshot = true; // never decoded: another schema's data
        } else {
          try {
            out.state = this.processor.codec.decode(record.data as Json);
          } catch (err) {
            throw new EntityError(
              'internal',
              `the state record of '${stream}' (schema ${record.schema}) cannot be decoded: ` +
                `${message(err)}; bump stateSchema when the state's encoding changes`,
              { cause: err },
            );
          }
          out.version = record.version;
          out.position = record.position;
          out.snapshotVersion = record.version;
          from = record.version + 1;
        }
      }
    }
    const dropped: OutboundEvent[] = [];
    try {
      for await (const e of this.client.readStream(stream, { from })) {
        const updater = this.processor.rules.get(e.type);
        if (updater !== undefined) {
          const envelope: EventEnvelope = {
            id: e.id,
            stream,
            version: e.version,
            position: e.position,
            type: e.type,
            schema: e.schema ?? '',
            metadata: (e.metadata ?? {}) as { [key: string]: Json },
          };
          try {
            out.state = applyRule(updater, out.state, e.data as Json, envelope, true, dropped);
          } catch (err) {
            throw new EntityError(
              'internal',
              `stored event ${e.version} (${e.type}) of '${stream}' cannot be applied by the ` +
                `current rules: ${message(err)}`,
              { cause: err },
            );
          }
        }
        out.version = e.version;
        out.position = e.position;
        ++out.eventsRead;
      }
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      // Missing or deleted: the initial state; a deleted stream's numbering
      // goes on after its tombstone.
      const missing: LoadOutcome<S> = {
        ...out,
        state: this.processor.initial(),
        version: null,
        position: 0,
        eventsRead: 0,
        snapshotVersion: null,
        staleSnapshot: false,
      };
      try {
        const head = await this.client.head(stream);
        if (head.deleted) {
          missing.version = head.version;
          missing.position = head.position;
          missing.deleted = true;
        }
      } catch (headErr) {
        if (!(headErr instanceof NotFoundError)) throw headErr;
      }
      return missing;
    }
    return out;
  }

  private async run(
    stream: string,
    events: Event<any>[],
    inHand: Loaded<S> | null,
    kind: Kind,
  ): Promise<Change<S>> {
    this.check(events, kind);
    // Only ids the caller made can come back in a retry of a landed command.
    const callerIds = events.some((e) => e.id !== undefined);
    // Ids made once: a retry after a lost reply is then an idempotent retry.
    const wire: WireEvent[] = events.map((e) => ({
      id: e.id ?? randomUUID(),
      type: e.type,
      data: e.data as Json,
      metadata: e.metadata,
    }));

    let lastConflict: unknown = null;
    for (let attempt = 1; attempt <= this.maxAttempts; ++attempt) {
      const loaded: LoadOutcome<S> =
        attempt === 1 && inHand !== null
          ? {
              ...inHand,
              state: structuredClone(inHand.state), // the caller's copy stays as it was
              deleted: false,
              staleSnapshot: false,
            }
          : await this.load(stream, kind === 'recalculate');
      if (wire.length === 0 && !live(loaded))
        throw new EntityError('not_found', `entity stream '${stream}' does not exist`);

      // Apply the new events; collect the outbox.
      let state = loaded.state;
      const published: OutboundEvent[] = [];
      const outbox: WireEvent[] = [];
      try {
        let version = loaded.version === null ? 0 : loaded.version + 1;
        for (const e of wire) {
          const envelope: EventEnvelope = {
            id: e.id,
            stream,
            version,
            position: 0,
            type: e.type,
            schema: '',
            metadata: e.metadata,
          };
          const mine: OutboundEvent[] = [];
          state = applyRule(this.processor.rules.get(e.type)!, state, e.data, envelope, false, mine);
          mine.forEach((p, k) => {
            p.id = outboundId(e.id, k);
            outbox.push(outboxEvent(p, e.metadata, stream, version));
            published.push(p);
          });
          ++version;
        }
      } catch (err) {
        if (err instanceof Rejected && callerIds && live(loaded)) {
          if (await this.alreadyWritten(stream, wire)) return this.replayed(stream, attempt);
        }
        throw err;
      }

      const last = (loaded.version ?? -1) + wire.length;
      const writeState = this.writesState(kind, loaded, last);
      if (wire.length === 0 && !writeState)
        // recalculated, nothing to store
        return { ...toLoaded(loaded), state, newOutboundEvents: [], attempts: attempt, replayed: false };

      const appends: Parameters<Client['commit']>[0] = [
        {
          stream,
          expected: live(loaded) ? (loaded.version as number) : 'no_stream',
          events: wire,
          ...(writeState
            ? { state: { data: this.processor.codec.encode(state), schema: this.stateSchema } }
            : {}),
        },
      ];
      if (outbox.length > 0)
        appends.push({ stream: this.outboxPrefix + stream, expected: 'any', events: outbox });

      try {
        const committed = await this.client.commit(appends);
        const mine = committed.appends[0];
        if (mine.replayed) return this.replayed(stream, attempt); // an earlier attempt landed
        return {
          stream,
          state,
          version: mine.lastVersion,
          position: mine.position,
          eventsRead: loaded.eventsRead,
          snapshotVersion: writeState ? mine.lastVersion : loaded.snapshotVersion,
          newOutboundEvents: published,
          attempts: attempt,
          replayed: false,
        };
      } catch (err) {
        if (!(err instanceof ConflictError)) throw err;
        if (callerIds && (await this.alreadyWritten(stream, wire)))
          return this.replayed(stream, attempt);
        lastConflict = err;
      }
    }
    throw new EntityError(
      'conflict',
      `entity '${stream}' kept changing: ${this.maxAttempts} attempts failed; last: ` +
        message(lastConflict),
      { cause: lastConflict },
    );
  }

  private check(events: Event<any>[], kind: Kind): void {
    if (events.length === 0 && kind === 'append')
      throw new EntityError('invalid', 'events: a command needs at least one event');
    if (!(this.maxAttempts >= 1))
      throw new EntityError('invalid', 'maxAttempts must be 1 or more');
    if (typeof this.snapshots === 'object' && !(this.snapshots.every >= 1))
      throw new EntityError('invalid', 'snapshots: { every: n } needs n >= 1');
    events.forEach((e, i) => {
      if (!this.processor.rules.has(e.type))
        throw new EntityError(
          'invalid',
          `events[${i}].type: the entity has no rule for event type '${e.type}'`,
        );
    });
  }

  private writesState(kind: Kind, loaded: LoadOutcome<S>, last: number): boolean {
    if (this.snapshots === 'none') return false;
    if (this.snapshots === 'every-write') return true;
    if (kind === 'recalculate' || loaded.staleSnapshot) return true;
    return last - (loaded.snapshotVersion ?? -1) >= this.snapshots.every;
  }

  // Whether the command's events were already written by an earlier
  // attempt (a client's retry with the same ids). The events alone, with an
  // expectation no stream meets, are an idempotent retry if the store wrote
  // them (nothing written) and a conflict otherwise (nothing written).
  private async alreadyWritten(stream: string, events: WireEvent[]): Promise<boolean> {
    try {
      const probe = await this.client.commit([
        { stream, expected: Number.MAX_SAFE_INTEGER, events },
      ]);
      if (!probe.appends[0].replayed)
        throw new EntityError('internal', `probing '${stream}' for a retry wrote events`);
      return true;
    } catch (err) {
      if (err instanceof ConflictError) return false;
      throw err;
    }
  }

  // The stored state, for a command whose events an earlier attempt wrote.
  private async replayed(stream: string, attempt: number): Promise<Change<S>> {
    const stored = await this.load(stream, false);
    return { ...toLoaded(stored), newOutboundEvents: [], attempts: attempt, replayed: true };
  }
}

// ---------------------------------------------------------------------------
// Helpers

function live(loaded: LoadOutcome<unknown>): boolean {
  return loaded.version !== null && !loaded.deleted;
}

function toLoaded<S>(loaded: LoadOutcome<S>): Loaded<S> {
  return {
    stream: loaded.stream,
    state: loaded.state,
    version: loaded.deleted ? null : loaded.version,
    position: loaded.deleted ? 0 : loaded.position,
    eventsRead: loaded.eventsRead,
    snapshotVersion: loaded.snapshotVersion,
  };
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function applyRule<S>(
  updater: StateUpdater<S, any>,
  state: S,
  data: Json,
  event: EventEnvelope,
  replaying: boolean,
  published: OutboundEvent[],
): S {
  return updater({
    state,
    current: data,
    event,
    replaying,
    publish: (type, value) => {
      // Published when the event was first appended, not again on replay.
      if (!replaying) published.push({ id: '', type, event: value, causationId: event.id });
    },
  });
}

// The outbox event for `published`: metadata with the causation id, the
// inbound event's correlation id (or the causation id when it has none),
// and the entity stream and version of the cause.
function outboxEvent(
  published: OutboundEvent,
  causeMetadata: { [key: string]: Json },
  stream: string,
  causeVersion: number,
): WireEvent {
  const correlation =
    causeMetadata !== null &&
    typeof causeMetadata === 'object' &&
    Object.prototype.hasOwnProperty.call(causeMetadata, 'correlationId')
      ? causeMetadata.correlationId
      : published.causationId;
  return {
    id: published.id,
    type: published.type,
    data: published.event,
    metadata: {
      causationId: published.causationId,
      correlationId: correlation,
      entityStream: stream,
      entityVersion: causeVersion,
    },
  };
}

// The id of the k-th event published by the rule of inbound event `cause`,
// the same as the C++ library makes (src/entities/outbox.cc): the same
// inputs give the same id, so a retried command is an idempotent retry for
// its outbound events too, whichever library wrote the first attempt.
const MASK64 = (1n << 64n) - 1n;

function mix(x: bigint): bigint {
  // splitmix64's finalizer
  x = (x + 0x9e3779b97f4a7c15n) & MASK64;
  x = ((x ^ (x >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  x = ((x ^ (x >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  return x ^ (x >> 31n);
}

export function outboundId(cause: string, k: number): string {
  const hex = cause.replace(/-/g, '').toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(hex)) throw new EntityError('invalid', `'${cause}' is not a UUID`);
  const hi = BigInt('0x' + hex.slice(0, 16));
  const lo = BigInt('0x' + hex.slice(16));
  const salt = 0x6f7574626f780000n + BigInt(k); // "outbox": never the cause's own id
  const a = mix(hi ^ mix(salt));
  const b = mix(lo ^ mix(a ^ salt));
  const bytes = (a.toString(16).padStart(16, '0') + b.toString(16).padStart(16, '0'))
    .match(/../g)!
    .map((h) => parseInt(h, 16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40; // version 4 layout
  bytes[8] = (bytes[8] & 0x3f) | 0x80; // RFC 4122 variant
  const out = bytes.map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${out.slice(0, 8)}-${out.slice(8, 12)}-${out.slice(12, 16)}-${out.slice(16, 20)}-${out.slice(20)}`;
}

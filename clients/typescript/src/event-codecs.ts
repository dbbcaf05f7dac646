// Codecs of typed events (README, "Typed events"): `ClientOptions.codecs`,
// checked once when the client is made, then `encode` on every write
// (append, commit) and `decode` on every read (reads, findEvent,
// subscriptions, pulls, workers; never a `raw` one), and `dateCodec`.
//
// Without codecs the client holds `undefined` for them, and the read and
// write paths pay one comparison per event: nothing is looked up, copied
// or wrapped.

import { describeValue, invalidArgument, type AnswerContext } from './check.js';
import { CodecError } from './errors.js';
import type { EventCodec, RecordedEvent } from './types.js';

/** The client's codecs by event type, fixed when it is made. */
export type CodecTable = ReadonlyMap<string, EventCodec>;

const CODEC_MEMBERS: ReadonlySet<string> = new Set(['encode', 'decode']);

/**
 * `ClientOptions.codecs`, checked: undefined when none is given (or none
 * is set), else a table of its codecs. A codec is an object with an
 * `encode` and/or a `decode` function; a plain object with another member
 * (`decod`) is refused, as the other options are. The codec objects are
 * kept, not copied: they are called as methods (`codec.decode(data)`).
 */
export function codecTable(codecs: unknown): CodecTable | undefined {
  if (codecs === undefined) return undefined;
  if (codecs === null || typeof codecs !== 'object' || Array.isArray(codecs))
    throw invalidArgument('new Client', 'codecs', `must be an object of codecs by event type ({ OrderPlaced: { encode?, decode? } }), not ${describeValue(codecs)}`);
  const table = new Map<string, EventCodec>();
  for (const [type, codec] of Object.entries(codecs as Record<string, unknown>)) {
    const at = `codecs[${JSON.stringify(type)}]`;
    if (codec === undefined) continue; // Codecs<E> members are optional
    if (codec === null || typeof codec !== 'object') throw invalidArgument('new Client', at, `must be a codec { encode?, decode? }, not ${describeValue(codec)}`);
    const c = codec as Record<string, unknown>;
    // A class's instance may hold state of its own; a plain object is checked like options.
    if (Object.getPrototypeOf(c) === Object.prototype) {
      for (const key in c) if (!CODEC_MEMBERS.has(key)) throw invalidArgument('new Client', `${at}.${key}`, 'is not a member of a codec (it may have encode and decode)');
    }
    for (const half of ['encode', 'decode'] as const) {
      if (c[half] !== undefined && typeof c[half] !== 'function') throw invalidArgument('new Client', `${at}.${half}`, `must be a function, not ${describeValue(c[half])}`);
    }
    if (c.encode === undefined && c.decode === undefined) throw invalidArgument('new Client', at, 'has neither encode nor decode');
    table.set(type, codec as EventCodec);
  }
  return table.size === 0 ? undefined : table;
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * `data` of an event of `type`, encoded by the type's codec if it has one.
 * `at` names the event in `call` (`events[1]`), for the error: a codec
 * that throws fails the call with a CodecError before anything is sent.
 */
export function encodeData(codecs: CodecTable, type: string, data: unknown, call: string, at: string): unknown {
  const codec = codecs.get(type);
  if (codec?.encode === undefined) return data;
  try {
    return codec.encode(data);
  } catch (err) {
    const field = `${at}.data`;
    throw new CodecError(`indelible: ${call}: ${field}: the codec of event type ${JSON.stringify(type)} could not encode it: ${reason(err)}; nothing was sent`, 0, {
      eventType: type,
      operation: 'encode',
      field,
      cause: err,
    });
  }
}

/**
 * Event `e` of `answer` with its data decoded by its type's codec, if it
 * has one. `e` is changed in place: the client made it from the answer.
 */
export function decodeRecorded(codecs: CodecTable, e: RecordedEvent, answer: AnswerContext): RecordedEvent {
  const codec = codecs.get(e.type);
  if (codec?.decode === undefined) return e;
  try {
    e.data = codec.decode(e.data);
  } catch (err) {
    const requestId = answer.header('x-request-id') ?? undefined;
    throw new CodecError(
      `indelible: ${answer.method} ${answer.path}: the codec of event type ${JSON.stringify(e.type)} could not decode event ${e.stream}@${e.version} (position ${e.position}): ${reason(err)}`,
      answer.status,
      { eventType: e.type, operation: 'decode', stream: e.stream, version: e.version, position: e.position, cause: err, ...(requestId !== undefined ? { requestId } : {}) },
    );
  }
  return e;
}

/** Tuple of depths left, for DatePath: 3 levels below the data at most. */
type Below = [never, 0, 1, 2];

type DateKeys<D, N extends number> = [N] extends [never]
  ? never
  : D extends object
    ? {
        [K in keyof D & string]-?: NonNullable<D[K]> extends Date
          ? K
          : NonNullable<D[K]> extends readonly unknown[] | Uint8Array
            ? never
            : NonNullable<D[K]> extends object
              ? `${K}.${DateKeys<NonNullable<D[K]>, Below[N]>}`
              : never;
      }[keyof D & string]
    : never;

/**
 * The fields of data `D` that `dateCodec` may name: its members whose type
 * is `Date` (or `Date | null`, optional), and dotted paths to such members
 * of nested objects, 4 levels deep at most (`'shipment.at'`); any string
 * when `D` is not known.
 */
export type DatePath<D> = 0 extends 1 & D ? string : unknown extends D ? string : DateKeys<D, 3>;

type Convert = (value: unknown, field: string) => unknown;

function toIso(value: unknown, field: string): unknown {
  if (!(value instanceof Date)) throw new TypeError(`${field} is ${describeData(value)}, not a Date`);
  if (Number.isNaN(value.getTime())) throw new RangeError(`${field} is an invalid Date`);
  return value.toISOString();
}

function fromIso(value: unknown, field: string): unknown {
  if (typeof value !== 'string') throw new TypeError(`${field} is ${describeData(value)}, not a date string`);
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new RangeError(`${field} is ${describeValue(value)}, not a date`);
  return date;
}

function describeData(value: unknown): string {
  if (value instanceof Uint8Array) return 'bytes (a Uint8Array)';
  if (value instanceof Date) return 'a Date';
  return describeValue(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Uint8Array) && !(value instanceof Date);
}

/** `obj` with the field at `path[i..]` converted, copied along the path; a missing field is left alone. */
function convertPath(obj: Record<string, unknown>, path: readonly string[], i: number, convert: Convert, field: string): Record<string, unknown> {
  const key = path[i]!;
  const value = obj[key];
  if (value === undefined || value === null) return obj;
  if (i === path.length - 1) return { ...obj, [key]: convert(value, field) };
  if (!isRecord(value)) throw new TypeError(`${path.slice(0, i + 1).join('.')} is ${describeData(value)}, not an object`);
  return { ...obj, [key]: convertPath(value, path, i + 1, convert, field) };
}

function convertData(data: unknown, fields: readonly string[], paths: readonly (readonly string[])[], convert: Convert): unknown {
  if (data === undefined || data === null) return data;
  if (!isRecord(data)) throw new TypeError(`the data is ${describeData(data)}, not an object`);
  let out = data;
  for (let i = 0; i < paths.length; i++) out = convertPath(out, paths[i]!, 0, convert, fields[i]!);
  return out;
}

/**
 * A codec for data with `Date` fields: each field named (a member, or a
 * dotted path into nested objects: `'shipment.at'`) is stored as an ISO
 * 8601 string (`toISOString()`) and read back as a `Date`. A field that is
 * missing, `null` or `undefined` is left so, and so is an event without
 * data; anything else that is not a `Date` (writing) or a date string
 * (reading), or data that is not an object, makes the codec throw (the
 * call fails with a CodecError). The data is copied along the paths, never
 * changed. Checked against the type's data where the type is known:
 * `const codecs: Codecs<OrderEvents> = { OrderPlaced: dateCodec('placedAt') }`.
 */
export function dateCodec<Data = any>(...fields: DatePath<Data>[]): EventCodec<Data, any> {
  const names: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const f: unknown = fields[i];
    if (typeof f !== 'string' || f.split('.').some((part) => part === '')) throw invalidArgument('dateCodec', `fields[${i}]`, `must be a member's name or a dotted path ('shipment.at'), not ${describeValue(f)}`);
    names.push(f);
  }
  const paths = names.map((f) => f.split('.'));
  return {
    encode: (data: Data) => convertData(data, names, paths, toIso),
    decode: (stored: unknown) => convertData(stored, names, paths, fromIso) as Data,
  };
}

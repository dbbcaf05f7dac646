// JSON forms of events and state records, both ways.

import { randomUUID } from 'node:crypto';
import type { AppendResult, EventInput, RecordedEvent, StateInput, StateRecord } from './types.js';

/** Wire form of an event; `id` always set, so a retry is an idempotent replay. */
export interface WireEvent {
  id: string;
  type: string;
  schema?: string;
  data?: unknown;
  metadata?: Record<string, unknown>;
  contentType?: string;
  dataEncoding?: 'base64';
}

export function encodeEvent(e: EventInput): WireEvent {
  if (e === null || typeof e !== 'object' || typeof e.type !== 'string') throw new TypeError('indelible: an event needs a string `type`');
  const out: WireEvent = { id: e.id ?? randomUUID(), type: e.type };
  if (e.schema !== undefined) out.schema = e.schema;
  if (e.data instanceof Uint8Array) {
    out.data = Buffer.from(e.data.buffer, e.data.byteOffset, e.data.byteLength).toString('base64');
    out.dataEncoding = 'base64';
    out.contentType = e.contentType ?? 'application/octet-stream';
  } else {
    if (e.data !== undefined) out.data = e.data;
    if (e.contentType !== undefined) out.contentType = e.contentType;
  }
  if (e.metadata !== undefined) out.metadata = e.metadata;
  return out;
}

export function encodeState(s: StateInput): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (s.data instanceof Uint8Array) {
    out.data = Buffer.from(s.data.buffer, s.data.byteOffset, s.data.byteLength).toString('base64');
    out.dataEncoding = 'base64';
  } else {
    // `undefined` is no JSON value: a state of nothing is null.
    out.data = s.data === undefined ? null : s.data;
  }
  if (s.schema !== undefined) out.schema = s.schema;
  return out;
}

function decodeData(data: unknown, encoding: unknown): unknown {
  if (encoding === 'base64' && typeof data === 'string') return new Uint8Array(Buffer.from(data, 'base64'));
  return data === undefined ? null : data;
}

export function decodeEvent(raw: Record<string, unknown>): RecordedEvent {
  const e: RecordedEvent = {
    id: String(raw.id),
    stream: String(raw.stream),
    version: Number(raw.version),
    position: Number(raw.position),
    type: String(raw.type),
    schema: typeof raw.schema === 'string' ? raw.schema : '',
    data: decodeData(raw.data, raw.dataEncoding),
    metadata: raw.metadata !== null && typeof raw.metadata === 'object' ? (raw.metadata as Record<string, unknown>) : {},
    timestamp: Number(raw.timestamp),
  };
  if (typeof raw.contentType === 'string') e.contentType = raw.contentType;
  return e;
}

export function decodeState(raw: Record<string, unknown>): StateRecord {
  return {
    stream: String(raw.stream),
    version: Number(raw.version),
    position: Number(raw.position),
    schema: typeof raw.schema === 'number' ? raw.schema : 0,
    data: decodeData(raw.data, raw.dataEncoding),
  };
}

export function decodeAppend(raw: Record<string, unknown>, replayed: boolean): AppendResult {
  return {
    stream: String(raw.stream),
    firstVersion: Number(raw.firstVersion),
    lastVersion: Number(raw.lastVersion),
    position: Number(raw.position),
    replayed: raw.replayed === true || replayed,
  };
}

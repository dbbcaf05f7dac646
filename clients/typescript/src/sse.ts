// Server-Sent Events: a parser for `text/event-stream` over the answer's body
// (no EventSource: it cannot send credentials or a CA, and reconnects on its
// own terms), and the subscription loop that resumes after any drop with
// `Last-Event-ID` = the last position seen, so the caller sees every event
// once, in order.

import { answerInteger, checkInteger, describeValue, invalidArgument, LIMIT_NOTE, unsafeAnswer, type AnswerContext } from './check.js';
import { decodeEvent } from './codec.js';
import type { CodecTable } from './event-codecs.js';
import { IndelibleError, InternalError, UnavailableError } from './errors.js';
import { sleep, type JsonResponse, type Query, type Transport } from './http.js';
import type { EventShape, RawRead, RecordedEvent } from './types.js';

export interface SseMessage {
  id?: string;
  event?: string;
  data: string;
}

/** One item of the stream: a message, or a comment line (`: caught-up`, `: heartbeat`). */
export type SseItem = { kind: 'message'; message: SseMessage } | { kind: 'comment'; text: string };

/** Parses an event stream (the WHATWG rules: lines end in LF, CRLF or CR; a blank line ends a message). */
export async function* parseSse(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseItem> {
  const decoder = new TextDecoder('utf-8');
  let buffer = '';
  let data: string[] = [];
  let id: string | undefined;
  let event: string | undefined;
  // A CR at the end of a chunk may be the first half of a CRLF split across chunks.
  let pendingCr = false;

  const line = function* (text: string): Generator<SseItem> {
    if (text === '') {
      if (data.length > 0) {
        const message: SseMessage = { data: data.join('\n') };
        if (id !== undefined) message.id = id;
        if (event !== undefined) message.event = event;
        yield { kind: 'message', message };
      }
      data = [];
      event = undefined;
      return;
    }
    if (text.startsWith(':')) {
      yield { kind: 'comment', text: text.slice(1).trimStart() };
      return;
    }
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'id' && !value.includes('\0')) id = value;
    else if (field === 'event') event = value;
    // `retry` and unknown fields: ignored (this client keeps its own back-off).
  };

  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    if (pendingCr && buffer.startsWith('\n')) buffer = buffer.slice(1);
    pendingCr = false;
    let start = 0;
    for (let i = 0; i < buffer.length; i++) {
      const c = buffer.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      yield* line(buffer.slice(start, i));
      if (c === 13) {
        if (i + 1 < buffer.length) {
          if (buffer.charCodeAt(i + 1) === 10) i++;
        } else {
          pendingCr = true;
        }
      }
      start = i + 1;
    }
    buffer = buffer.slice(start);
  }
  // A message without its blank line is incomplete: dropped, as the standard says.
}

/** The members of SubscribeOptions (subscribeAll adds the filters). */
export const SUBSCRIBE_MEMBERS: ReadonlySet<string> = new Set(['from', 'signal', 'idleTimeoutMs', 'raw', 'onConnection']);

/** Refuses a `from` that is neither 'end' nor a safe integer >= 0. */
export function checkFrom(from: unknown, call: string): void {
  if (from === undefined || from === 'end') return;
  if (typeof from === 'number') return checkInteger(from, call, 'from');
  throw invalidArgument(call, 'from', `must be a position or version from 0 to 2^53-1, or 'end', not ${describeValue(from)} (${LIMIT_NOTE})`);
}

/** A subscription's options; `E`, its event union (README, "Typed events"), only decides whether it may be `raw`. */
export interface SubscribeOptions<E extends EventShape = EventShape> {
  from?: number | 'end';
  signal?: AbortSignal;
  /**
   * Reconnect when the server sends nothing (not even its heartbeat, every
   * 15 s by default) for this long while the subscriber waits: a connection
   * that died without a close (a NAT or proxy dropped it) never ends on its
   * own. Default 45000; keep it above the server's --heartbeat-ms.
   */
  idleTimeoutMs?: number;
  /** The events as stored, not upcast to their type's newest schema version, nor decoded by codecs (untyped subscriptions only). */
  raw?: RawRead<E>;
  /**
   * Told how the connection fares, for a UI's status line: `'open'` when
   * the server answered (events may follow), `'reconnecting'` with the
   * error when it dropped and a reconnect waits its back-off. An error that
   * no reconnect mends (401, 403, 400) is thrown by the iteration instead.
   */
  onConnection?: (state: 'open' | 'reconnecting', error?: unknown) => void;
}

/**
 * The body, but failing when a chunk takes longer than `ms` to come. Only
 * the time spent waiting on the network counts: a caller that is slow to
 * ask for the next event does not trip it.
 */
async function* watchdog(body: AsyncIterable<Uint8Array>, ms: number, onIdle: () => void): AsyncGenerator<Uint8Array> {
  const it = body[Symbol.asyncIterator]();
  try {
    for (;;) {
      const timer = setTimeout(onIdle, ms);
      let r: IteratorResult<Uint8Array>;
      try {
        r = await it.next();
      } finally {
        clearTimeout(timer);
      }
      if (r.done) return;
      yield r.value;
    }
  } finally {
    // Not awaited: the connection is being closed anyway, and a cancel must not hang the caller.
    void Promise.resolve(it.return?.()).catch(() => {});
  }
}

const MIN_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 5000;

/** Errors after which reconnecting may help: no answer, 503, 5xx. 4xx are the caller's to fix. */
function transient(err: unknown): boolean {
  if (!(err instanceof IndelibleError)) return true; // a socket error while reading the body
  return err instanceof UnavailableError || err instanceof InternalError;
}

/**
 * Follows `path` (`/subscribe/all` or `/subscribe/streams/{s}`) for ever:
 * catch-up, then live; reconnects with back-off (100 ms doubling to 5 s)
 * after a drop, a server restart or a 5xx. Ends when `signal` aborts, the
 * client is closed or the caller leaves its `for await`; throws on 4xx (401, 403, 400...),
 * and with a CodecError when `codecs` cannot decode an event.
 */
export async function* subscribe(transport: Transport, path: string, query: Query, options: Omit<SubscribeOptions, 'raw'>, codecs: CodecTable | undefined): AsyncGenerator<RecordedEvent> {
  const outer = new AbortController();
  const onAbort = () => outer.abort(options.signal?.reason);
  if (options.signal?.aborted) return;
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    let last: number | undefined;
    let from: number | 'end' | undefined = options.from;
    if (from === 'end') {
      // 'end' is resolved once, to a position, so a reconnect before the
      // first event still resumes where the subscription began.
      let resolved: number | undefined;
      try {
        resolved = await endPosition(transport, outer.signal);
      } catch (err) {
        if (outer.signal.aborted || transport.isClosed) return;
        throw err;
      }
      if (resolved !== undefined) {
        last = resolved;
        from = undefined;
      }
    }
    const idleTimeoutMs = options.idleTimeoutMs ?? 45000;
    let backoff = MIN_BACKOFF_MS;
    while (!outer.signal.aborted) {
      const connection = new AbortController();
      const stop = () => connection.abort();
      outer.signal.addEventListener('abort', stop, { once: true });
      let reading = false;
      let dropped: unknown;
      try {
        const q: Query = { ...query };
        const headers: Record<string, string> = { accept: 'text/event-stream' };
        if (last !== undefined) headers['last-event-id'] = String(last);
        else if (from !== undefined) q.from = String(from);
        const res = await transport.open(path, q, headers, connection.signal);
        reading = true;
        options.onConnection?.('open');
        const answer: AnswerContext = { status: res.status, method: 'GET', path, header: res.header };
        const body = watchdog(res.body, idleTimeoutMs, () => connection.abort(new Error('no data or heartbeat from the server')));
        for await (const item of parseSse(body)) {
          // Anything from the server shows the connection works: back-off starts over.
          backoff = MIN_BACKOFF_MS;
          if (item.kind !== 'message') continue;
          // A codec that throws ends the subscription: the same event would come again.
          const event = parseEvent(item.message.data, answer, codecs);
          // The id resumes the subscription: a rounded one would skip or repeat events.
          const position = item.message.id !== undefined && item.message.id !== '' ? answerInteger(Number(item.message.id), answer, 'SSE id') : event.position;
          // Belt and braces: the server resumes after Last-Event-ID, so an
          // event at or before it is never expected; never yield it twice.
          if (last !== undefined && position <= last) continue;
          last = position;
          yield event;
        }
        // The server ended the stream (restart, write timeout): resume.
      } catch (err) {
        // Aborted, or the client closed: the subscription ends quietly.
        if (outer.signal.aborted || transport.isClosed) return;
        // open() turns every failure to reach the server into an
        // IndelibleError; anything else it throws (a token function that
        // failed) is not the network's, and no reconnect mends it.
        if (!reading && !(err instanceof IndelibleError)) throw err;
        if (!transient(err)) throw err;
        dropped = err;
      } finally {
        outer.signal.removeEventListener('abort', stop);
        connection.abort();
      }
      options.onConnection?.('reconnecting', dropped);
      dropped = undefined;
      try {
        await sleep(backoff, outer.signal);
      } catch {
        return;
      }
      backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
    }
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }
}

function parseEvent(data: string, answer: AnswerContext, codecs: CodecTable | undefined): RecordedEvent {
  let raw: unknown;
  try {
    raw = JSON.parse(data);
  } catch (err) {
    // Not a dropped connection: reconnecting would get the same bytes again.
    throw new IndelibleError(`subscription: an event that is not JSON: ${data.slice(0, 200)}`, 200, 'internal', { cause: err });
  }
  return decodeEvent(raw as Record<string, unknown>, answer, codecs);
}

/** The store's last position (GET /health), or undefined if the server does not say. */
async function endPosition(transport: Transport, signal: AbortSignal): Promise<number | undefined> {
  for (let attempt = 0; ; attempt++) {
    let res: JsonResponse<{ lastPosition?: unknown }>;
    try {
      res = await transport.request<{ lastPosition?: unknown }>('GET', '/health', { signal });
    } catch (err) {
      // /health answers 503 while the store is failed or stopping, with the position still in the body.
      if (err instanceof UnavailableError && typeof err.body?.lastPosition === 'number') {
        const last = err.body.lastPosition;
        if (Number.isSafeInteger(last)) return last;
        throw unsafeAnswer(last, { status: err.status, method: 'GET', path: '/health', header: (name) => (name === 'x-request-id' ? (err.requestId ?? null) : null) }, 'lastPosition', err.body);
      }
      if (signal.aborted) throw err;
      if (!transient(err) || attempt >= 5) return undefined;
      await sleep(Math.min(MAX_BACKOFF_MS, MIN_BACKOFF_MS * 2 ** attempt), signal);
      continue;
    }
    return typeof res.json.lastPosition === 'number' ? answerInteger(res.json.lastPosition, res, 'lastPosition') : undefined;
  }
}

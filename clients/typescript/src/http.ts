// The transport: one request/response exchange with the server, typed
// errors, credentials, timeouts and safe retries, over a sender that the
// runtime decides (runtime.ts): `node:http` on Node (node-sender.ts, loaded
// on first use, so no other runtime ever imports a `node:` module), `fetch`
// elsewhere (fetch-sender.ts). Everything here is the same for both.
//
// The hot path (`request`) allocates little: the path and query as one
// string (no URL object), one header object, and once the sender is loaded
// no promise of its own beyond the attempt's.

import { checkInteger, checkObject, describeValue, invalidArgument, unsafeAnswer } from './check.js';
import { errorFromResponse, networkError, ConflictError, IndelibleError, UnavailableError, type ErrorBody } from './errors.js';
import { FetchSender } from './fetch-sender.js';
import { defaultTransport, type TransportKind } from './runtime.js';
import { TimeoutError, type Sender, type SenderOptions, type StreamAnswer } from './sender.js';
import type { ClientOptions } from './types.js';

/** A streaming answer (SSE): status, headers, and the body as it arrives. */
export type RawResponse = StreamAnswer;

/** Error codes meaning the request never reached the server: safe to send again whatever it was. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

function errorCode(err: unknown): string | undefined {
  // Wrapped errors keep the socket's error in `cause`; node:http gives it directly.
  for (let e: unknown = err, depth = 0; e !== null && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

export type Query = Record<string, string | number | boolean | readonly string[] | undefined>;

export interface RequestOptions {
  query?: Query;
  headers?: Record<string, string>;
  body?: unknown;
  /**
   * Whether sending the request twice is harmless. Appends and commits are
   * (their event ids make a repeat a replay), reads are, stream deletes and
   * nacks are not: those are retried only when the server surely did nothing
   * (a 503 answer, or the connection was refused).
   */
  idempotent?: boolean;
  /** Milliseconds the server may hold the request (long polls): added to the timeout. */
  waitMs?: number;
  /** Aborts the call: it rejects with `signal.reason`, its request is ended, and it is not retried. */
  signal?: AbortSignal;
  /**
   * The call's deadline, ms from the call: every attempt and every wait
   * between attempts end by then (the client's `timeoutMs` still bounds
   * each attempt). Past it the call fails with the timeout error, and no
   * attempt starts after it.
   */
  timeoutMs?: number;
  /** The answer is text (`/metrics`), not JSON: `json` holds it as a string. */
  text?: boolean;
}

/** What every call that makes a request takes (README, "Cancellation and deadlines"). */
export interface CallOptions {
  /** Aborts the call: it rejects with `signal.reason` (an `AbortError` DOMException unless you gave a reason), its request is ended, never retried. */
  signal?: AbortSignal;
  /** The call's deadline in ms, retries included (a paged read: each page's); past it, an UnavailableError "no answer within". */
  timeoutMs?: number;
}

/** The members of CallOptions, for the sets of allowed members of each call's options. */
export const CALL_MEMBERS: readonly string[] = ['signal', 'timeoutMs'];
const CALL_ONLY: ReadonlySet<string> = new Set(CALL_MEMBERS);

/**
 * Checks `options` (only `allowed` members; CallOptions' alone by default)
 * and answers its signal and deadline as request options, only those set.
 */
export function callOptions(options: CallOptions | undefined, call: string, allowed: ReadonlySet<string> = CALL_ONLY): Pick<RequestOptions, 'signal' | 'timeoutMs'> {
  checkObject(options, allowed, call, '');
  const out: Pick<RequestOptions, 'signal' | 'timeoutMs'> = {};
  if (options === undefined) return out;
  const { signal, timeoutMs } = options;
  if (signal !== undefined) {
    // Duck-typed: a signal of another realm (a test runner's, a polyfill's) works as well.
    if (signal === null || typeof signal !== 'object' || typeof signal.aborted !== 'boolean' || typeof signal.addEventListener !== 'function')
      throw invalidArgument(call, 'signal', `must be an AbortSignal, not ${describeValue(signal)}`);
    out.signal = signal;
  }
  if (timeoutMs !== undefined) {
    checkInteger(timeoutMs, call, 'timeoutMs', 1);
    out.timeoutMs = timeoutMs;
  }
  return out;
}

/** A whole JSON answer; `method` and `path` say what it answers (errors name them). */
export interface JsonResponse<T> {
  status: number;
  method: string;
  path: string;
  header(name: string): string | null;
  json: T;
}

export function streamPath(stream: string): string {
  // One path segment: `BANK_ACCOUNT/1` travels as `BANK_ACCOUNT%2F1`.
  return '/streams/' + encodeURIComponent(stream);
}

export function groupPath(group: string): string {
  return '/consumers/' + encodeURIComponent(group);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
export { sleep };

/** `?k=v&k=v2...` (percent-encoded, arrays as repeated keys), or '' when nothing is set. */
function queryString(query: Query | undefined): string {
  if (query === undefined) return '';
  let out = '';
  for (const k in query) {
    const v = query[k];
    if (v === undefined) continue;
    const key = encodeURIComponent(k);
    if (Array.isArray(v)) {
      for (const item of v as readonly string[]) out += (out === '' ? '?' : '&') + key + '=' + encodeURIComponent(item);
    } else {
      out += (out === '' ? '?' : '&') + key + '=' + encodeURIComponent(String(v));
    }
  }
  return out;
}

/** The error of calls made after `close()`, and of those it cut short. Never retried. */
export function closedError(what: string): IndelibleError {
  return new IndelibleError(`${what}: the client is closed`, 0, 'closed');
}

const TRANSPORTS: ReadonlySet<unknown> = new Set(['node', 'fetch']);

export class Transport {
  readonly base: URL;
  /** The sender this client uses: the option, or what the runtime suggests (runtime.ts). */
  kind: TransportKind;
  /** The base URL's path without its trailing slash, prefixed to every path. */
  private readonly prefix: string;
  private readonly senderOptions: SenderOptions;
  /** Set once loaded: the node sender comes from a dynamic import. */
  private sender: Sender | undefined;
  private loading: Promise<Sender> | undefined;
  /** Whether `kind` was given: a node sender that fails to load then fails the call, not falls back. */
  private readonly forced: boolean;
  private readonly timeoutMs: number;
  readonly retries: number;
  /** `Bearer <apiKey>` or `Bearer <token>` when fixed; undefined when a function gives it. */
  private readonly authorization: string | undefined;
  private readonly token: (() => string | null | undefined | Promise<string | null | undefined>) | undefined;
  private closed = false;

  /** `caFile`: a PEM file the node sender reads when it loads (a connection string's `ca`). */
  constructor(url: string, options: ClientOptions = {}, caFile?: string) {
    this.base = new URL(url);
    if (this.base.protocol !== 'http:' && this.base.protocol !== 'https:') throw invalidArgument('new Client', 'url', `must be http or https, not ${this.base.protocol}`);
    this.prefix = this.base.pathname.replace(/\/$/, '');
    if (options.transport !== undefined && !TRANSPORTS.has(options.transport))
      throw invalidArgument('new Client', 'transport', `must be 'node' or 'fetch', not ${describeValue(options.transport)}`);
    this.forced = options.transport !== undefined;
    this.kind = options.transport ?? defaultTransport();
    const maxConnections = options.maxConnections ?? 64;
    checkInteger(maxConnections, 'new Client', 'maxConnections', 1);
    this.senderOptions = { maxConnections };
    if (options.ca !== undefined) {
      // fetch cannot be given a CA: the runtime's own trust decides. Said now, not ignored.
      if (this.kind !== 'node') throw invalidArgument('new Client', 'ca', "needs the node transport (Node.js); with fetch the runtime's own trust store applies");
      if (typeof options.ca !== 'string' && !(options.ca instanceof Uint8Array)) throw invalidArgument('new Client', 'ca', `must be PEM text or bytes, not ${describeValue(options.ca)}`);
      this.senderOptions.ca = options.ca;
    }
    if (caFile !== undefined && options.ca === undefined) {
      if (this.kind !== 'node') throw invalidArgument('new Client', 'ca', "needs the node transport (Node.js); with fetch the runtime's own trust store applies");
      this.senderOptions.caFile = caFile;
    }
    if (this.kind === 'fetch') this.sender = new FetchSender(this.base, this.senderOptions);
    this.timeoutMs = options.timeoutMs ?? 30000;
    this.retries = options.retries ?? 3;
    if (options.apiKey !== undefined) this.authorization = 'Bearer ' + options.apiKey;
    else if (typeof options.token === 'string') this.authorization = 'Bearer ' + options.token;
    else if (typeof options.token === 'function') this.token = options.token;
  }

  /** The sender, loading the node one on first use. */
  private load(): Promise<Sender> {
    this.loading ??= import('./node-sender.js')
      .then((m) => m.nodeSender(this.base, this.senderOptions))
      .catch((err: unknown) => {
        if (err instanceof IndelibleError) throw err; // the sender's own refusal (an unreadable CA file)
        if (this.forced || this.senderOptions.ca !== undefined || this.senderOptions.caFile !== undefined) throw invalidArgument('new Client', 'transport', `'node' needs node:http, which this runtime does not have (${describe(err)})`);
        // Something that looked like Node but is not: fetch does the same work.
        this.kind = 'fetch';
        return new FetchSender(this.base, this.senderOptions);
      })
      .then((sender) => {
        this.sender = sender;
        // close() came while it loaded: nothing may stay open.
        if (this.closed) sender.close();
        return sender;
      });
    return this.loading;
  }

  /** Ends every connection and request of the client (subscriptions too); later calls throw IndelibleError `closed`. */
  close(): void {
    this.closed = true;
    this.sender?.close();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** The request's headers: one object, credentials resolved (a token function is called here). */
  private headers(extra: Record<string, string> | undefined, hasBody: boolean, accept: string): Record<string, string> | Promise<Record<string, string>> {
    const h: Record<string, string> = { accept };
    if (hasBody) h['content-type'] = 'application/json';
    if (extra !== undefined) for (const k in extra) h[k] = extra[k]!;
    if (this.authorization !== undefined) h['authorization'] = this.authorization;
    if (this.token === undefined) return h;
    return Promise.resolve(this.token()).then((t) => {
      // No token now (signed out): the request goes without credentials.
      if (t !== undefined && t !== null && t !== '') h['authorization'] = 'Bearer ' + t;
      return h;
    });
  }

  /** Back-off before retry `attempt` (1-based): 100 ms doubling, capped at 2 s, with jitter. */
  private backoff(attempt: number): number {
    const base = Math.min(2000, 100 * 2 ** (attempt - 1));
    return base / 2 + Math.random() * (base / 2);
  }

  /** Sends a request with JSON in and out; throws a typed error on any non-2xx answer. */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<JsonResponse<T>> {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const target = this.prefix + path + queryString(options.query);
    const idempotent = options.idempotent ?? true;
    const deadline = options.timeoutMs === undefined ? undefined : Date.now() + options.timeoutMs;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once<T>(method, path, target, options, body, deadline);
      } catch (err) {
        // An aborted call is over, whatever its error: never sent again.
        if (options.signal?.aborted) throw err;
        if (!(err instanceof UnavailableError) || attempt >= this.retries || this.closed) throw err;
        // A 503 answer means nothing was written; a refused connection means
        // nothing was sent (fetch says so on Node, not in browsers: there a
        // request that is not harmless twice goes again after a 503 only).
        // Anything else (a drop, a timeout) may have done the work, so only
        // an idempotent request goes again.
        const surelyNothingDone = err.status === 503 || NOT_SENT.has(errorCode(err) ?? '');
        if (!idempotent && !surelyNothingDone) throw err;
        // The server's Retry-After counts (up to 5 s): it knows when it will have room.
        const wait = Math.max(this.backoff(attempt + 1), Math.min(err.retryAfterMs ?? 0, 5000));
        // No attempt starts past the call's deadline: the last error stands.
        if (deadline !== undefined && Date.now() + wait >= deadline) throw err;
        await sleep(wait, options.signal);
      }
    }
  }

  private async once<T>(method: string, path: string, target: string, options: RequestOptions, body: string | undefined, deadline: number | undefined): Promise<JsonResponse<T>> {
    if (this.closed) throw closedError(`${method} ${path}`);
    if (options.signal?.aborted) throw options.signal.reason;
    const sender = this.sender ?? (await this.load());
    // Outside the try: a token function that fails is the caller's error, not the network's.
    const headers = await this.headers(options.headers, body !== undefined, options.text ? 'text/plain' : 'application/json');
    // Aborted while the sender loaded or the token came: nothing is sent.
    if (options.signal?.aborted) throw options.signal.reason;
    let timeoutMs = this.timeoutMs + (options.waitMs ?? 0);
    if (deadline !== undefined) timeoutMs = Math.max(0, Math.min(timeoutMs, deadline - Date.now()));
    let answer;
    try {
      answer = await sender.exchange(method, target, headers, body, timeoutMs, options.signal);
    } catch (err) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (this.closed) throw closedError(`${method} ${path}`);
      if (err instanceof TimeoutError) throw networkError(`${method} ${path}: no answer within ${timeoutMs} ms`, err);
      throw connectionError(`${method} ${path}`, err);
    }
    let json: unknown;
    try {
      json = answer.text === '' ? undefined : JSON.parse(answer.text);
    } catch {
      json = undefined;
    }
    if (answer.status < 200 || answer.status >= 300) throw responseError(answer.status, answer.header, json, method, path);
    if (options.text) return { status: answer.status, method, path, header: answer.header, json: answer.text as T };
    if (json === undefined) throw new IndelibleError(`${method} ${path}: the answer is not JSON`, answer.status, 'internal');
    return { status: answer.status, method, path, header: answer.header, json: json as T };
  }

  /**
   * Opens a streaming answer (SSE). No retry and no timeout once the headers
   * came: the caller reconnects. A non-2xx answer throws its typed error.
   */
  async open(path: string, query: Query, headers: Record<string, string>, signal: AbortSignal): Promise<RawResponse> {
    if (this.closed) throw closedError(`GET ${path}`);
    const accept = headers.accept ?? 'application/json';
    const sender = this.sender ?? (await this.load());
    // Outside the try: a token function that fails is the caller's error, not the network's.
    const allHeaders = await this.headers(headers, false, accept);
    const target = this.prefix + path + queryString(query);
    let res: StreamAnswer;
    try {
      res = await sender.open(target, allHeaders, this.timeoutMs, signal);
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      if (this.closed) throw closedError(`GET ${path}`);
      if (err instanceof TimeoutError) throw networkError(`GET ${path}: no answer within ${this.timeoutMs} ms`, err);
      throw connectionError(`GET ${path}`, err);
    }
    if (res.status < 200 || res.status >= 300) {
      let json: unknown;
      try {
        json = JSON.parse(await res.text());
      } catch {
        json = undefined;
      }
      throw responseError(res.status, res.header, json, 'GET', path);
    }
    return res;
  }
}

function responseError(status: number, header: (name: string) => string | null, json: unknown, method: string, path: string): IndelibleError {
  const err = errorFromResponse(status, json as ErrorBody | undefined, header('x-request-id') ?? undefined);
  // A conflict's actual version or position past 2^53-1 would be a rounded number: refused like any other answer's.
  if (err instanceof ConflictError) {
    for (const field of ['actualVersion', 'position'] as const) {
      const value = (json as ErrorBody | undefined)?.[field];
      if (typeof value === 'number' && !Number.isSafeInteger(value)) {
        return unsafeAnswer(value, { status, method, path, header }, field, json as ErrorBody);
      }
    }
  }
  const retryAfter = Number(header('retry-after') ?? NaN); // seconds; the HTTP-date form is not used by indelible
  if (err instanceof UnavailableError && Number.isFinite(retryAfter) && retryAfter >= 0) err.retryAfterMs = retryAfter * 1000;
  return err;
}

/**
 * The error for a request that got no answer: UnavailableError (retried),
 * except when the server's certificate does not verify, which no retry
 * mends: then an IndelibleError with code `tls`.
 */
function connectionError(what: string, err: unknown): IndelibleError {
  const code = errorCode(err) ?? '';
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|HOSTNAME|ERR_TLS_|ERR_SSL_/.test(code)) {
    return new IndelibleError(`${what}: TLS: ${describe(err)} (give the server's CA with the \`ca\` option)`, 0, 'tls', { cause: err });
  }
  return networkError(`${what}: ${describe(err)}`, err);
}

export function describe(err: unknown): string {
  const code = errorCode(err);
  const msg = err instanceof Error ? err.message : String(err);
  const cause = err instanceof Error && err.cause instanceof Error ? ` (${err.cause.message})` : '';
  return code !== undefined && !msg.includes(code) && !cause.includes(code) ? `${msg}${cause} [${code}]` : msg + cause;
}

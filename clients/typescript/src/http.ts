// The transport: one request/response exchange with the server, typed
// errors, credentials, timeouts and safe retries.
//
// One sender: `node:http` (or `node:https`, with the caller's CA when one is
// given) over a keep-alive Agent of this client, at most `maxConnections`
// sockets. Node's built-in `fetch` was the default before: per request it
// cost more CPU than the server did (undici's request objects, web streams,
// abort signals, garbage), which bounded a single Node process's append
// rate; `node:http` does the same exchange with a fraction of that.
//
// The hot path (`request`) allocates little: the path and query as one
// string (no URL object), one header object, one timer for the timeout (no
// AbortSignal), the answer read as a string by 'data' listeners (no async
// iterator). Subscriptions (`open`) stream the answer and use a second agent
// outside the cap, so long-lived streams never starve ordinary requests.

import * as http from 'node:http';
import * as https from 'node:https';
import { checkInteger, invalidArgument, unsafeAnswer } from './check.js';
import { errorFromResponse, networkError, ConflictError, IndelibleError, UnavailableError, type ErrorBody } from './errors.js';
import type { ClientOptions } from './types.js';

/** A streaming answer (SSE): status, headers, and the body as it arrives. */
export interface RawResponse {
  status: number;
  header(name: string): string | null;
  /** The body as it arrives (SSE reads it incrementally). */
  body: AsyncIterable<Uint8Array>;
  text(): Promise<string>;
}

/** A whole answer: what `request` parses. */
interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

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
  signal?: AbortSignal;
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

function headerOf(headers: http.IncomingHttpHeaders, name: string): string | null {
  const v = headers[name.toLowerCase()];
  return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
}

/** Marks the error a request is destroyed with when its time is up. */
class TimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
}

/** The error of calls made after `close()`, and of those it cut short. Never retried. */
export function closedError(what: string): IndelibleError {
  return new IndelibleError(`${what}: the client is closed`, 0, 'closed');
}

/** Idle keep-alive sockets go after this long: well before the server's idle timeout (120 s by default). */
const IDLE_SOCKET_MS = 30000;

export class Transport {
  readonly base: URL;
  private readonly secure: boolean;
  private readonly lib: typeof http | typeof https;
  private readonly hostname: string;
  private readonly port: string;
  /** The base URL's path without its trailing slash, prefixed to every path. */
  private readonly prefix: string;
  /** Ordinary requests (long pulls included): keep-alive, at most maxConnections sockets. */
  private readonly agent: http.Agent;
  /** Subscriptions: one connection each for as long as it lives, outside the cap. */
  private readonly streamAgent: http.Agent;
  private readonly timeoutMs: number;
  readonly retries: number;
  /** `Bearer <apiKey>` or `Bearer <token>` when fixed; undefined when a function gives it. */
  private readonly authorization: string | undefined;
  private readonly token: (() => string | Promise<string>) | undefined;
  private closed = false;

  constructor(url: string, options: ClientOptions = {}) {
    this.base = new URL(url);
    if (this.base.protocol !== 'http:' && this.base.protocol !== 'https:') throw invalidArgument('new Client', 'url', `must be http or https, not ${this.base.protocol}`);
    this.secure = this.base.protocol === 'https:';
    this.lib = this.secure ? https : http;
    // `[::1]` in a URL is `::1` to the socket.
    this.hostname = this.base.hostname.replace(/^\[(.*)\]$/, '$1');
    this.port = this.base.port;
    this.prefix = this.base.pathname.replace(/\/$/, '');
    const maxConnections = options.maxConnections ?? 64;
    checkInteger(maxConnections, 'new Client', 'maxConnections', 1);
    const pooled = { keepAlive: true, maxSockets: maxConnections, maxFreeSockets: maxConnections, timeout: IDLE_SOCKET_MS, scheduling: 'lifo' as const };
    // The CA (https only) replaces the default trust: exactly that CA.
    const tls = options.ca !== undefined ? { ca: options.ca } : {};
    this.agent = this.secure ? new https.Agent({ ...pooled, ...tls }) : new http.Agent(pooled);
    this.streamAgent = this.secure ? new https.Agent({ keepAlive: false, ...tls }) : new http.Agent({ keepAlive: false });
    this.timeoutMs = options.timeoutMs ?? 30000;
    this.retries = options.retries ?? 3;
    if (options.apiKey !== undefined) this.authorization = 'Bearer ' + options.apiKey;
    else if (typeof options.token === 'string') this.authorization = 'Bearer ' + options.token;
    else if (typeof options.token === 'function') this.token = options.token;
  }

  /** Destroys every socket (idle or busy, subscriptions too); later calls throw IndelibleError `closed`. */
  close(): void {
    this.closed = true;
    // Requests still waiting for a socket first, or they would take the
    // place of the sockets destroyed below on new connections.
    for (const queue of Object.values(this.agent.requests as unknown as Record<string, http.ClientRequest[] | undefined>)) {
      for (const req of [...(queue ?? [])]) req.destroy();
    }
    this.agent.destroy();
    this.streamAgent.destroy();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** The request's headers: one object, credentials resolved (a token function is called here). */
  private headers(extra: Record<string, string> | undefined, contentLength: number | undefined, accept: string): Record<string, string> | Promise<Record<string, string>> {
    const h: Record<string, string> = { accept };
    if (contentLength !== undefined) {
      h['content-type'] = 'application/json';
      h['content-length'] = String(contentLength);
    }
    if (extra !== undefined) for (const k in extra) h[k] = extra[k]!;
    if (this.authorization !== undefined) h['authorization'] = this.authorization;
    if (this.token === undefined) return h;
    return Promise.resolve(this.token()).then((t) => {
      h['authorization'] = 'Bearer ' + t;
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
    const contentLength = body === undefined ? undefined : Buffer.byteLength(body);
    const idempotent = options.idempotent ?? true;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once<T>(method, path, target, options, body, contentLength);
      } catch (err) {
        if (!(err instanceof UnavailableError) || attempt >= this.retries || this.closed) throw err;
        // A 503 answer means nothing was written; a refused connection means
        // nothing was sent. Anything else (a drop, a timeout) may have done
        // the work, so only an idempotent request goes again.
        const surelyNothingDone = err.status === 503 || NOT_SENT.has(errorCode(err) ?? '');
        if (!idempotent && !surelyNothingDone) throw err;
        // The server's Retry-After counts (up to 5 s): it knows when it will have room.
        const wait = Math.max(this.backoff(attempt + 1), Math.min(err.retryAfterMs ?? 0, 5000));
        await sleep(wait, options.signal);
      }
    }
  }

  private async once<T>(method: string, path: string, target: string, options: RequestOptions, body: string | undefined, contentLength: number | undefined): Promise<JsonResponse<T>> {
    if (this.closed) throw closedError(`${method} ${path}`);
    if (options.signal?.aborted) throw options.signal.reason;
    // Outside the try: a token function that fails is the caller's error, not the network's.
    const headers = await this.headers(options.headers, contentLength, 'application/json');
    const timeoutMs = this.timeoutMs + (options.waitMs ?? 0);
    let answer: Answer;
    try {
      answer = await this.exchange(method, target, headers, body, timeoutMs, options.signal);
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
    if (answer.status < 200 || answer.status >= 300) throw responseError(answer.status, answer.headers, json, method, path);
    if (json === undefined) throw new IndelibleError(`${method} ${path}: the answer is not JSON`, answer.status, 'internal');
    const h = answer.headers;
    return { status: answer.status, method, path, header: (name) => headerOf(h, name), json: json as T };
  }

  /**
   * One request and its whole answer as text, within `timeoutMs` from now
   * (waiting for a pooled socket included): a single timer that destroys
   * the request when it fires.
   */
  private exchange(method: string, target: string, headers: Record<string, string>, body: string | undefined, timeoutMs: number, signal: AbortSignal | undefined): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      const req = this.lib.request(
        {
          method,
          hostname: this.hostname,
          port: this.port,
          path: target,
          headers,
          agent: this.agent,
          ...(signal !== undefined ? { signal } : {}),
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => {
            clearTimeout(timer);
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text });
          });
          // A connection lost mid-answer.
          res.on('error', fail);
          res.on('close', () => {
            if (!res.complete) fail(Object.assign(new Error('the connection closed before the answer ended'), { code: 'ECONNRESET' }));
          });
        },
      );
      const timer = setTimeout(() => req.destroy(new TimeoutError(`no answer within ${timeoutMs} ms`)), timeoutMs);
      function fail(err: Error): void {
        clearTimeout(timer);
        reject(err);
      }
      req.on('error', fail);
      req.end(body);
    });
  }

  /**
   * Opens a streaming answer (SSE). No retry and no timeout once the headers
   * came: the caller reconnects. A non-2xx answer throws its typed error.
   */
  async open(path: string, query: Query, headers: Record<string, string>, signal: AbortSignal): Promise<RawResponse> {
    if (this.closed) throw closedError(`GET ${path}`);
    const accept = headers.accept ?? 'application/json';
    const allHeaders = await this.headers(headers, undefined, accept);
    const target = this.prefix + path + queryString(query);
    let res: http.IncomingMessage;
    try {
      res = await new Promise<http.IncomingMessage>((resolve, reject) => {
        const req = this.lib.request({ method: 'GET', hostname: this.hostname, port: this.port, path: target, headers: allHeaders, agent: this.streamAgent, signal }, resolve);
        req.on('error', reject);
        // Until the headers come, the usual timeout applies (the stream's own idle check takes over after).
        req.setTimeout(this.timeoutMs, () => req.destroy(new TimeoutError(`no answer within ${this.timeoutMs} ms`)));
        req.once('response', () => req.setTimeout(0));
        req.end();
      });
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      if (this.closed) throw closedError(`GET ${path}`);
      throw connectionError(`GET ${path}`, err);
    }
    const status = res.statusCode ?? 0;
    const text = async (): Promise<string> => {
      const chunks: Buffer[] = [];
      for await (const chunk of res) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    };
    if (status < 200 || status >= 300) {
      let json: unknown;
      try {
        json = JSON.parse(await text());
      } catch {
        json = undefined;
      }
      throw responseError(status, res.headers, json, 'GET', path);
    }
    return { status, header: (name) => headerOf(res.headers, name), body: res, text };
  }
}

function responseError(status: number, headers: http.IncomingHttpHeaders, json: unknown, method: string, path: string): IndelibleError {
  const err = errorFromResponse(status, json as ErrorBody | undefined, headerOf(headers, 'x-request-id') ?? undefined);
  // A conflict's actual version or position past 2^53-1 would be a rounded number: refused like any other answer's.
  if (err instanceof ConflictError) {
    for (const field of ['actualVersion', 'position'] as const) {
      const value = (json as ErrorBody | undefined)?.[field];
      if (typeof value === 'number' && !Number.isSafeInteger(value)) {
        return unsafeAnswer(value, { status, method, path, header: (name) => headerOf(headers, name) }, field, json as ErrorBody);
      }
    }
  }
  const retryAfter = Number(headerOf(headers, 'retry-after') ?? NaN); // seconds; the HTTP-date form is not used by indelible
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

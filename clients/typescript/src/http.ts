// The transport: one request/response exchange with the server, typed
// errors, credentials, timeouts and safe retries.
//
// Two senders behind one small interface: Node's built-in `fetch` (the
// default), and `node:http(s)` when the caller gives a private CA, because
// Node 20's fetch takes no CA (that needs undici's Agent, which Node does not
// expose, and this package has no runtime dependencies).

import * as http from 'node:http';
import * as https from 'node:https';
import { errorFromResponse, networkError, IndelibleError, UnavailableError, type ErrorBody } from './errors.js';
import type { ClientOptions } from './types.js';

export interface RawRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

export interface RawResponse {
  status: number;
  header(name: string): string | null;
  /** The body as it arrives (SSE reads it incrementally). */
  body: AsyncIterable<Uint8Array>;
  text(): Promise<string>;
}

export type Sender = (request: RawRequest) => Promise<RawResponse>;

const fetchSender: Sender = async (r) => {
  const res = await fetch(r.url, {
    method: r.method,
    headers: r.headers,
    ...(r.body !== undefined ? { body: r.body } : {}),
    signal: r.signal,
    redirect: 'manual',
  });
  const empty: AsyncIterable<Uint8Array> = { async *[Symbol.asyncIterator]() {} };
  return {
    status: res.status,
    header: (name) => res.headers.get(name),
    // Node 20's web ReadableStream is async iterable; the DOM-less types do not say so.
    body: (res.body as unknown as AsyncIterable<Uint8Array> | null) ?? empty,
    text: () => res.text(),
  };
};

function nodeSender(ca: string | Buffer): Sender {
  // keepAlive: a pool per client, as fetch has; the CA applies to https only.
  const httpsAgent = new https.Agent({ keepAlive: true, ca });
  const httpAgent = new http.Agent({ keepAlive: true });
  return (r) =>
    new Promise<RawResponse>((resolve, reject) => {
      const secure = r.url.protocol === 'https:';
      const options: https.RequestOptions = {
        method: r.method,
        headers: r.body !== undefined ? { ...r.headers, 'content-length': String(Buffer.byteLength(r.body)) } : r.headers,
        signal: r.signal,
        agent: secure ? httpsAgent : httpAgent,
      };
      const req = (secure ? https : http).request(r.url, options, (res) => {
        resolve({
          status: res.statusCode ?? 0,
          header: (name) => {
            const v = res.headers[name.toLowerCase()];
            return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
          },
          body: res,
          text: async () => {
            const chunks: Buffer[] = [];
            for await (const chunk of res) chunks.push(chunk as Buffer);
            return Buffer.concat(chunks).toString('utf8');
          },
        });
      });
      req.on('error', reject);
      req.end(r.body);
    });
}

/** Error codes meaning the request never reached the server: safe to send again whatever it was. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

function errorCode(err: unknown): string | undefined {
  // fetch wraps the socket's error in `cause`; node:http gives it directly.
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

export interface JsonResponse<T> {
  status: number;
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

export class Transport {
  readonly base: URL;
  private readonly send: Sender;
  private readonly timeoutMs: number;
  readonly retries: number;
  private readonly apiKey: string | undefined;
  private readonly token: ClientOptions['token'];

  constructor(url: string, options: ClientOptions = {}) {
    this.base = new URL(url);
    if (this.base.protocol !== 'http:' && this.base.protocol !== 'https:') throw new TypeError(`indelible: the URL must be http or https, not ${this.base.protocol}`);
    this.send = options.ca !== undefined ? nodeSender(options.ca) : fetchSender;
    this.timeoutMs = options.timeoutMs ?? 30000;
    this.retries = options.retries ?? 3;
    this.apiKey = options.apiKey;
    this.token = options.token;
  }

  url(path: string, query?: Query): URL {
    const u = new URL(this.base);
    u.pathname = this.base.pathname.replace(/\/$/, '') + path;
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v === undefined) continue;
      if (Array.isArray(v)) for (const item of v) u.searchParams.append(k, item);
      else u.searchParams.set(k, String(v));
    }
    return u;
  }

  async headers(extra: Record<string, string> | undefined, hasBody: boolean): Promise<Record<string, string>> {
    const h: Record<string, string> = { accept: 'application/json', ...extra };
    if (hasBody) h['content-type'] = 'application/json';
    const credential = this.apiKey ?? (typeof this.token === 'function' ? await this.token() : this.token);
    if (credential !== undefined) h['authorization'] = 'Bearer ' + credential;
    return h;
  }

  /** Back-off before retry `attempt` (1-based): 100 ms doubling, capped at 2 s, with jitter. */
  private backoff(attempt: number): number {
    const base = Math.min(2000, 100 * 2 ** (attempt - 1));
    return base / 2 + Math.random() * (base / 2);
  }

  /** Sends a request with JSON in and out; throws a typed error on any non-2xx answer. */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<JsonResponse<T>> {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const idempotent = options.idempotent ?? true;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once<T>(method, path, options, body);
      } catch (err) {
        if (!(err instanceof UnavailableError) || attempt >= this.retries) throw err;
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

  private async once<T>(method: string, path: string, options: RequestOptions, body: string | undefined): Promise<JsonResponse<T>> {
    const timeout = AbortSignal.timeout(this.timeoutMs + (options.waitMs ?? 0));
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    // Outside the try: a token function that fails is the caller's error, not the network's.
    const headers = await this.headers(options.headers, body !== undefined);
    let res: RawResponse;
    let text: string;
    try {
      res = await this.send({
        method,
        url: this.url(path, options.query),
        headers,
        ...(body !== undefined ? { body } : {}),
        signal,
      });
      text = await res.text();
    } catch (err) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (timeout.aborted) throw networkError(`${method} ${path}: no answer within ${this.timeoutMs + (options.waitMs ?? 0)} ms`, err);
      throw connectionError(`${method} ${path}`, err);
    }
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (res.status < 200 || res.status >= 300) throw responseError(res, json);
    if (json === undefined) throw new IndelibleError(`${method} ${path}: the answer is not JSON`, res.status, 'internal');
    return { status: res.status, header: res.header, json: json as T };
  }

  /**
   * Opens a streaming answer (SSE). No retry and no timeout once the headers
   * came: the caller reconnects. A non-2xx answer throws its typed error.
   */
  async open(path: string, query: Query, headers: Record<string, string>, signal: AbortSignal): Promise<RawResponse> {
    const allHeaders = await this.headers(headers, false);
    let res: RawResponse;
    try {
      res = await this.send({ method: 'GET', url: this.url(path, query), headers: allHeaders, signal });
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      throw connectionError(`GET ${path}`, err);
    }
    if (res.status < 200 || res.status >= 300) {
      let json: unknown;
      try {
        json = JSON.parse(await res.text());
      } catch {
        json = undefined;
      }
      throw responseError(res, json);
    }
    return res;
  }
}

function responseError(res: RawResponse, json: unknown): IndelibleError {
  const err = errorFromResponse(res.status, json as ErrorBody | undefined, res.header('x-request-id') ?? undefined);
  const retryAfter = Number(res.header('retry-after') ?? NaN); // seconds; the HTTP-date form is not used by indelible
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

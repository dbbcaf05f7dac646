// The sender on Node: `node:http` (or `node:https`, with the caller's CA
// when one is given) over a keep-alive Agent of this client, at most
// `maxConnections` sockets. Node's built-in `fetch` costs several times the
// CPU per request (undici's request objects, web streams, abort signals,
// garbage), which bounded a single Node process's append rate.
//
// Loaded by http.ts with `import()` on a client's first request, and
// only where the runtime is Node: Node's modules are imported here, at run
// time, through a specifier bundlers leave alone, so a browser or Workers
// bundle never evaluates (or even resolves) a `node:` import.
//
// The hot path (`exchange`) allocates little: one header object, one timer
// for the timeout (no AbortSignal), the answer read as a string by 'data'
// listeners (no async iterator). Streams (`open`) use a second agent
// outside the cap, so long-lived subscriptions never starve ordinary requests.

import type { NodeAgent, NodeBufferModule, NodeHttpModule, NodeIncomingMessage } from './node-types.js';
import { invalidArgument } from './check.js';
import { TimeoutError, type Answer, type Sender, type SenderOptions, type StreamAnswer } from './sender.js';

/** `import(name)` that bundlers neither follow nor complain about: Node's modules exist only on Node. */
function load<T>(name: string): Promise<T> {
  return import(/* webpackIgnore: true */ /* @vite-ignore */ name) as Promise<T>;
}

/** Idle keep-alive sockets go after this long: well before the server's idle timeout (120 s by default). */
const IDLE_SOCKET_MS = 30000;

/** The node sender for `base` (http or https). Rejects where Node's modules cannot be imported. */
export async function nodeSender(base: URL, options: SenderOptions): Promise<Sender> {
  const secure = base.protocol === 'https:';
  const [lib, buffer] = await Promise.all([load<NodeHttpModule>(secure ? 'node:https' : 'node:http'), load<NodeBufferModule>('node:buffer')]);
  if (options.caFile === undefined) return new NodeSender(base, options, lib, buffer);
  let ca: string;
  try {
    const fs = await load<{ readFile(path: string, encoding: 'utf8'): Promise<string> }>('node:fs/promises');
    ca = await fs.readFile(options.caFile, 'utf8');
  } catch (err) {
    throw invalidArgument('new Client', 'ca', `cannot read the CA file ${options.caFile}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return new NodeSender(base, { ...options, ca }, lib, buffer);
}

function headerOf(headers: NodeIncomingMessage['headers'], name: string): string | null {
  const v = headers[name.toLowerCase()];
  return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
}

class NodeSender implements Sender {
  private readonly hostname: string;
  private readonly port: string;
  /** Ordinary requests (long pulls included): keep-alive, at most maxConnections sockets. */
  private readonly agent: NodeAgent;
  /** Streams: one connection each for as long as it lives, outside the cap. */
  private readonly streamAgent: NodeAgent;

  constructor(
    base: URL,
    options: SenderOptions,
    private readonly lib: NodeHttpModule,
    private readonly buffer: NodeBufferModule,
  ) {
    // `[::1]` in a URL is `::1` to the socket.
    this.hostname = base.hostname.replace(/^\[(.*)\]$/, '$1');
    this.port = base.port;
    const max = options.maxConnections;
    // The CA (https only) replaces the default trust: exactly that CA. PEM is text.
    const ca = options.ca === undefined ? undefined : typeof options.ca === 'string' ? options.ca : new TextDecoder().decode(options.ca);
    const tls = ca !== undefined ? { ca } : {};
    this.agent = new lib.Agent({ keepAlive: true, maxSockets: max, maxFreeSockets: max, timeout: IDLE_SOCKET_MS, scheduling: 'lifo', ...tls });
    this.streamAgent = new lib.Agent({ keepAlive: false, ...tls });
  }

  close(): void {
    // Requests still waiting for a socket first, or they would take the
    // place of the sockets destroyed below on new connections.
    for (const queue of Object.values(this.agent.requests)) {
      for (const req of [...(queue ?? [])]) req.destroy();
    }
    this.agent.destroy();
    this.streamAgent.destroy();
  }

  exchange(method: string, target: string, headers: Record<string, string>, body: string | undefined, timeoutMs: number, signal: AbortSignal | undefined): Promise<Answer> {
    if (body !== undefined) headers['content-length'] = String(this.buffer.Buffer.byteLength(body));
    return new Promise<Answer>((resolve, reject) => {
      const req = this.lib.request(
        { method, hostname: this.hostname, port: this.port, path: target, headers, agent: this.agent, ...(signal !== undefined ? { signal } : {}) },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => {
            clearTimeout(timer);
            const h = res.headers;
            resolve({ status: res.statusCode ?? 0, header: (name) => headerOf(h, name), text });
          });
          // A connection lost mid-answer.
          res.on('error', fail);
          res.on('close', () => {
            if (!res.complete) fail(Object.assign(new Error('the connection closed before the answer ended'), { code: 'ECONNRESET' }));
          });
        },
      );
      // One timer, from now: a wait for a pooled socket counts too.
      const timer = setTimeout(() => req.destroy(new TimeoutError(`no answer within ${timeoutMs} ms`)), timeoutMs);
      function fail(err: Error): void {
        clearTimeout(timer);
        reject(err);
      }
      req.on('error', fail);
      req.end(body);
    });
  }

  async open(target: string, headers: Record<string, string>, timeoutMs: number, signal: AbortSignal): Promise<StreamAnswer> {
    const res = await new Promise<NodeIncomingMessage>((resolve, reject) => {
      const req = this.lib.request({ method: 'GET', hostname: this.hostname, port: this.port, path: target, headers, agent: this.streamAgent, signal }, resolve);
      req.on('error', reject);
      // Until the headers come; the stream's own idle check takes over after.
      req.setTimeout(timeoutMs, () => req.destroy(new TimeoutError(`no answer within ${timeoutMs} ms`)));
      req.once('response', () => req.setTimeout(0));
      req.end();
    });
    const text = async (): Promise<string> => {
      const decoder = new TextDecoder();
      let out = '';
      for await (const chunk of res) out += decoder.decode(chunk, { stream: true });
      return out + decoder.decode();
    };
    return { status: res.statusCode ?? 0, header: (name) => headerOf(res.headers, name), body: res, text };
  }
}

// The sender everywhere but Node: the runtime's `fetch`, its AbortController
// for timeouts and close(), and the body's web stream (`getReader()`) for
// subscriptions. Browsers, Deno, Bun and Workers-style runtimes have all three.
//
// The runtime owns the connections (their pool, keep-alive, TLS trust), so
// `maxConnections` caps requests in flight here instead, and close() can end
// the requests of this client but not the runtime's idle connections.

import { TimeoutError, type Answer, type Sender, type SenderOptions, type StreamAnswer } from './sender.js';

/** At most `max` holders at once; the others wait in order. */
class Slots {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(max: number) {
    this.free = max;
  }

  /** Resolves once a slot is held; rejects with the signal's reason if it aborts first. */
  acquire(signal: AbortSignal): Promise<void> | undefined {
    if (this.free > 0) {
      this.free--;
      return undefined; // no promise on the common path
    }
    return new Promise<void>((resolve, reject) => {
      const grant = () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(grant);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal.reason);
      };
      this.waiting.push(grant);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  release(): void {
    const next = this.waiting.shift();
    if (next !== undefined) next(); // the slot passes on as is
    else this.free++;
  }
}

/** Aborts `controller` when `signal` does; answers the function that unlinks them. */
function follow(signal: AbortSignal | undefined, controller: AbortController): () => void {
  if (signal === undefined) return () => {};
  if (signal.aborted) {
    controller.abort(signal.reason);
    return () => {};
  }
  const onAbort = () => controller.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  return () => signal.removeEventListener('abort', onAbort);
}

/** A web stream's chunks as an async iterable; leaving the loop cancels the stream (and so the connection). */
async function* chunks(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    // Not awaited: a cancel must not hang the caller.
    reader.cancel().catch(() => {});
  }
}

export class FetchSender implements Sender {
  /** `scheme://host:port` and the base path are in `target`'s prefix already. */
  private readonly origin: string;
  private readonly slots: Slots;
  /** Every request and stream in flight, so close() can end them. */
  private readonly inFlight = new Set<AbortController>();

  constructor(base: URL, options: SenderOptions) {
    this.origin = base.origin;
    this.slots = new Slots(options.maxConnections);
  }

  close(): void {
    for (const controller of this.inFlight) controller.abort(new Error('the client is closed'));
    this.inFlight.clear();
  }

  async exchange(method: string, target: string, headers: Record<string, string>, body: string | undefined, timeoutMs: number, signal: AbortSignal | undefined): Promise<Answer> {
    const controller = new AbortController();
    const unfollow = follow(signal, controller);
    let timedOut = false;
    // One timer, from now: a wait for a free slot counts too.
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new TimeoutError(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    this.inFlight.add(controller);
    let holding = false;
    try {
      await this.slots.acquire(controller.signal);
      holding = true;
      const init: RequestInit = { method, headers, signal: controller.signal };
      if (body !== undefined) init.body = body;
      const res = await fetch(this.origin + target, init);
      const text = await res.text();
      const h = res.headers;
      return { status: res.status, header: (name) => h.get(name), text };
    } catch (err) {
      // Runtimes differ in what an abort rejects with; the cause is known here.
      if (timedOut) throw new TimeoutError(`no answer within ${timeoutMs} ms`);
      throw err;
    } finally {
      if (holding) this.slots.release();
      clearTimeout(timer);
      unfollow();
      this.inFlight.delete(controller);
    }
  }

  async open(target: string, headers: Record<string, string>, timeoutMs: number, signal: AbortSignal): Promise<StreamAnswer> {
    const controller = new AbortController();
    const unfollow = follow(signal, controller);
    let timedOut = false;
    // Until the headers come; the stream's own idle check takes over after.
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new TimeoutError(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    this.inFlight.add(controller);
    const done = () => {
      unfollow();
      this.inFlight.delete(controller);
    };
    let res: Response;
    try {
      res = await fetch(this.origin + target, { method: 'GET', headers, signal: controller.signal });
    } catch (err) {
      done();
      if (timedOut) throw new TimeoutError(`no answer within ${timeoutMs} ms`);
      throw err;
    } finally {
      clearTimeout(timer);
    }
    // The connection lives until the signal aborts or the body's loop ends.
    controller.signal.addEventListener('abort', done, { once: true });
    const h = res.headers;
    const body = res.body;
    return {
      status: res.status,
      header: (name) => h.get(name),
      body: body === null ? emptyBody(done) : withEnd(chunks(body), done),
      text: () => res.text().finally(done),
    };
  }
}

async function* emptyBody(done: () => void): AsyncGenerator<Uint8Array> {
  done();
}

/** `body`, calling `done` once it ends, however it ends. */
async function* withEnd(body: AsyncGenerator<Uint8Array>, done: () => void): AsyncGenerator<Uint8Array> {
  try {
    yield* body;
  } finally {
    done();
  }
}

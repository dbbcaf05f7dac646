// What a transport needs from the runtime: one exchange with the server, or
// a streaming answer. Two senders implement it, `node:http` (node-sender.ts)
// and `fetch` (fetch-sender.ts); everything above them (errors, retries,
// credentials, SSE) is shared, so both behave the same.

/** A whole answer, its body as text. */
export interface Answer {
  status: number;
  /** A header of the answer, several values joined by ', '; null when absent. */
  header(name: string): string | null;
  text: string;
}

/** A streaming answer (SSE): status, headers, and the body as it arrives. */
export interface StreamAnswer {
  status: number;
  header(name: string): string | null;
  /** The body as it arrives; leaving its loop closes the connection. */
  body: AsyncIterable<Uint8Array>;
  /** The whole body as text (error answers). */
  text(): Promise<string>;
}

export interface Sender {
  /**
   * One request and its whole answer, within `timeoutMs` from now (a wait
   * for a free connection included). Rejects with a TimeoutError when the
   * time is up, with the caller's `signal.reason` when it aborts, or with
   * the runtime's network error.
   */
  exchange(method: string, target: string, headers: Record<string, string>, body: string | undefined, timeoutMs: number, signal: AbortSignal | undefined): Promise<Answer>;
  /**
   * A GET whose answer streams, on a connection of its own outside the
   * cap of ordinary requests. `timeoutMs` runs until the headers come; the
   * connection ends when `signal` aborts or the body's loop is left.
   */
  open(target: string, headers: Record<string, string>, timeoutMs: number, signal: AbortSignal): Promise<StreamAnswer>;
  /** Ends every connection, idle or busy: requests in flight fail, streams end. */
  close(): void;
}

/** Marks the error a request fails with when its time is up. */
export class TimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
}

/** Settings both senders take. */
export interface SenderOptions {
  /** Most ordinary requests on the wire at once. */
  maxConnections: number;
  /** PEM CA certificate(s) for https (node sender only). */
  ca?: string | Uint8Array;
  /** A PEM file to read them from when the node sender loads (a connection string's `ca`). */
  caFile?: string;
}

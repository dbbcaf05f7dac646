// The little of `node:http`, `node:https` and `node:buffer` the node sender
// uses, declared here rather than taken from @types/node: the package
// compiles without Node's types (`"types": []`), which proves that no other
// module leans on Node, and its declarations ask none of a user. The test
// build checks that Node's real modules fit these (test/node-types.test.ts).

export interface NodeIncomingMessage extends AsyncIterable<Uint8Array> {
  statusCode?: number | undefined;
  headers: Record<string, string | string[] | undefined>;
  /** True once the whole body arrived. */
  complete: boolean;
  setEncoding(encoding: 'utf8'): unknown;
  on(event: 'data', listener: (chunk: string) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
}

export interface NodeClientRequest {
  on(event: 'error', listener: (err: Error) => void): unknown;
  once(event: 'response', listener: () => void): unknown;
  setTimeout(ms: number, callback?: () => void): unknown;
  end(body?: string): unknown;
  destroy(error?: Error): unknown;
}

export interface NodeRequestOptions {
  method: string;
  hostname: string;
  port: string;
  path: string;
  headers: Record<string, string>;
  agent: NodeAgent;
  signal?: AbortSignal;
}

export interface NodeAgent {
  destroy(): void;
  /** Requests waiting for a socket, by host (typed loosely by @types/node as well). */
  readonly requests: Readonly<Record<string, ReadonlyArray<{ destroy(): unknown }> | undefined>>;
}

export interface NodeAgentOptions {
  keepAlive: boolean;
  maxSockets?: number;
  maxFreeSockets?: number;
  timeout?: number;
  scheduling?: 'lifo' | 'fifo';
  ca?: string;
}

/** What `node:http` and `node:https` both give. */
export interface NodeHttpModule {
  Agent: new (options: NodeAgentOptions) => NodeAgent;
  request(options: NodeRequestOptions, onResponse: (res: NodeIncomingMessage) => void): NodeClientRequest;
}

export interface NodeBufferModule {
  Buffer: { byteLength(text: string): number };
}

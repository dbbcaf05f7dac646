// Test helper: a TCP proxy in front of a server that can cut a connection
// after the request went through but before the answer reaches the client:
// the case where the client cannot know whether its write happened.

import * as net from 'node:net';

export class CuttingProxy {
  /** Connections whose answer was dropped. */
  cuts = 0;
  /** Client connections accepted so far. */
  accepted = 0;
  /** Client connections open now, and the most open at once. */
  open = 0;
  maxOpen = 0;
  /** Requests seen (counted by request lines through the proxy). */
  requests: string[] = [];
  private cutNext: ((requestLine: string) => boolean) | undefined;
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private readonly frozen = new WeakSet<net.Socket>();
  port = 0;

  constructor(private readonly targetPort: number) {
    this.server = net.createServer((client) => this.accept(client));
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The next request whose first line matches loses its answer (once). */
  cutOnce(match: (requestLine: string) => boolean): void {
    this.cutNext = match;
  }

  /**
   * The connections open now go silent both ways without closing: what a
   * connection looks like after a NAT or proxy on the way forgot it. New
   * connections work (but see freezeNew).
   */
  freeze(): void {
    for (const s of this.sockets) this.frozen.add(s);
  }

  /** Whether connections accepted from now on are frozen from the start. */
  freezeNew = false;

  private accept(client: net.Socket): void {
    const upstream = net.connect(this.targetPort, '127.0.0.1');
    this.accepted++;
    this.open++;
    this.maxOpen = Math.max(this.maxOpen, this.open);
    let counted = true;
    client.once('close', () => {
      if (counted) this.open--;
      counted = false;
    });
    this.sockets.add(client);
    this.sockets.add(upstream);
    if (this.freezeNew) {
      this.frozen.add(client);
      this.frozen.add(upstream);
    }
    let cutting = false;
    client.on('data', (chunk: Buffer) => {
      if (this.frozen.has(client)) return;
      const text = chunk.toString('latin1');
      for (const m of text.matchAll(/^(GET|POST|PUT|DELETE|HEAD|OPTIONS) [^\r\n]+/gm)) {
        this.requests.push(m[0]);
        if (this.cutNext?.(m[0])) {
          this.cutNext = undefined;
          cutting = true;
        }
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (this.frozen.has(upstream)) return;
      if (cutting) {
        // The server answered (so it did the work); the client never hears of it.
        this.cuts++;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('close', close);
    upstream.on('close', close);
    client.on('error', close);
    upstream.on('error', close);
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

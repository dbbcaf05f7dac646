// Test helper: a small HTTP server on 127.0.0.1 that answers what a test
// tells it to, for answers the real server cannot give (a position past
// 2^53, an older server's error shape), and that records every request, so
// a test can also show that a call sent nothing at all.

import * as http from 'node:http';

/** What the stand-in answers: the body as raw text (so it can hold numbers JSON.stringify would round). */
export interface Answer {
  status?: number;
  body: string;
  contentType?: string;
  headers?: Record<string, string>;
}

/** A request as the stand-in saw it. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export class StandIn {
  /** Request lines seen (`GET /all?from=1`), in order. */
  readonly requests: string[] = [];
  /** The same requests, with their headers and bodies. */
  readonly seen: SeenRequest[] = [];
  private readonly server: http.Server;
  private port = 0;

  constructor(private readonly answer: (method: string, url: string, request: SeenRequest) => Answer) {
    this.server = http.createServer((req, res) => {
      this.requests.push(`${req.method} ${req.url}`);
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        const seen: SeenRequest = { method: req.method!, url: req.url!, headers: req.headers, body };
        this.seen.push(seen);
        const a = this.answer(req.method!, req.url!, seen);
        res.writeHead(a.status ?? 200, { 'content-type': a.contentType ?? 'application/json', 'x-request-id': 'standin-1', ...a.headers });
        res.end(a.body);
      });
    });
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

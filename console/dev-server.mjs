// A development stand-in for the server that will serve the console itself:
// serves a build at /console/ and proxies every other path to a real
// indelible server. One origin for both, so the server's Origin rule lets
// the console's POSTs through.
//
// Usage: node console/dev-server.mjs --api http://127.0.0.1:PORT --dist OUTDIR [--port 0]
// Prints its URL. Bodies are piped, not buffered, so SSE flows as it comes.
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    api: { type: 'string' },
    dist: { type: 'string' },
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' },
  },
});
if (!values.api || !values.dist) {
  console.error('usage: node dev-server.mjs --api http://127.0.0.1:PORT --dist OUTDIR [--port 0]');
  process.exit(2);
}
const api = new URL(values.api);
const dist = resolve(values.dist);
const kFiles = {
  '/console/': ['index.html', 'text/html; charset=utf-8'],
  '/console/index.html': ['index.html', 'text/html; charset=utf-8'],
  '/console/app.js': ['app.js', 'text/javascript; charset=utf-8'],
  '/console/app.css': ['app.css', 'text/css; charset=utf-8'],
};
// The CSP the real server will send, so a violation shows up in development too.
const kCsp = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'";

async function serveFile(path, res) {
  const [name, type] = kFiles[path];
  try {
    const body = await readFile(join(dist, name));
    res.writeHead(200, { 'Content-Type': type, 'Content-Security-Policy': kCsp, 'Cache-Control': 'no-cache' });
    res.end(body);
  } catch {
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end(`missing ${name} in ${dist}: build first\n`);
  }
}

function proxy(req, res) {
  // Host becomes the API's, so the Origin rule sees a same-origin page:
  // rewrite Origin to match (the browser's is the dev server's).
  const headers = { ...req.headers, host: api.host };
  if (headers.origin) headers.origin = api.origin;
  const upstream = http.request(
    { hostname: api.hostname, port: api.port, path: req.url, method: req.method, headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      res.flushHeaders();
      answer.pipe(res);
    },
  );
  upstream.on('error', (e) => {
    if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ error: 'unavailable', message: `dev server: ${e.message}` }));
  });
  req.pipe(upstream);
  // A closed browser tab ends the upstream request too (an SSE reader would leak otherwise).
  res.on('close', () => upstream.destroy());
}

const server = http.createServer((req, res) => {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  if (path === '/' || path === '/console') {
    res.writeHead(302, { Location: '/console/' }).end();
  } else if (path in kFiles && (req.method === 'GET' || req.method === 'HEAD')) {
    void serveFile(path, res);
  } else {
    proxy(req, res);
  }
});
server.listen(Number(values.port), values.host, () => {
  const { port } = server.address();
  console.log(`console dev server on http://${values.host}:${port}/console/ (API ${api.origin})`);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));

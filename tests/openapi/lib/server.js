// A real `indelible serve` on a free port and a fresh data folder, and a
// small HTTP client that shows exactly what the server sent.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import http from 'node:http';
import net from 'node:net';
import { repoRoot } from './oas.js';

export const binary = process.env.INDELIBLE_BIN
  ? path.resolve(process.env.INDELIBLE_BIN)
  : path.join(repoRoot, 'build/dev/src/cli/indelible');

// Starts `indelible --data DIR serve --listen 127.0.0.1:0 ...extra`; resolves
// once it prints "listening on http://HOST:PORT".
export async function startServer(extra = [], { auth = false } = {}) {
  if (!existsSync(binary)) throw new Error(`no server binary at ${binary}: set INDELIBLE_BIN`);
  const dir = mkdtempSync(path.join(tmpdir(), 'indelible-openapi-'));
  const args = ['--data', path.join(dir, 'data'), 'serve', '--listen', '127.0.0.1:0', ...extra];
  const keyFile = path.join(dir, 'admin.key');
  if (auth) args.push('--auth', '--bootstrap-key-file', keyFile);
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const base = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start within 20 s:\n${output}`)), 20000);
    const onData = (chunk) => {
      output += chunk;
      const m = /listening on (http:\/\/[0-9.]+:[0-9]+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before listening:\n${output}`));
    });
  });
  const url = new URL(base);
  const server = {
    base,
    host: url.hostname,
    port: Number(url.port),
    adminKey: auth ? readFileSync(keyFile, 'utf8').trim() : undefined,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return server;
}

// One request on its own connection: {status, headers (lower-case), body}.
// `body`: a string or Buffer sent as is, or a value sent as JSON with
// Content-Type: application/json (unless headers say otherwise).
export function request(server, method, target, { headers = {}, body, json } = {}) {
  return new Promise((resolve, reject) => {
    const h = { ...headers };
    let payload;
    if (json !== undefined) {
      payload = Buffer.from(JSON.stringify(json));
      if (!Object.keys(h).some((k) => k.toLowerCase() === 'content-type')) h['Content-Type'] = 'application/json';
    } else if (body !== undefined) {
      payload = Buffer.isBuffer(body) ? body : Buffer.from(body);
    }
    if (payload) h['Content-Length'] = String(payload.length);
    const req = http.request(
      { host: server.host, port: server.port, method, path: target, headers: h, agent: false },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.setTimeout(70000, () => req.destroy(new Error(`${method} ${target}: no answer within 70 s`)));
    req.on('error', reject);
    req.end(payload);
  });
}

// A request written by hand on a socket, for what node:http will not send
// (oversized headers, a body it would frame differently). Reads until the
// server closes or `until(text)` holds.
export function rawRequest(server, text, { until } = {}) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(server.port, server.host);
    let data = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(parseRaw(data));
    }, 15000);
    socket.on('data', (c) => {
      data += c.toString('utf8');
      if (until && until(data)) {
        clearTimeout(timer);
        socket.destroy();
        resolve(parseRaw(data));
      }
    });
    socket.on('error', (e) => {
      // A server that answers and closes before the whole request was sent resets.
      if (data) {
        clearTimeout(timer);
        resolve(parseRaw(data));
      } else reject(e);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseRaw(data));
    });
    socket.write(text);
  });
}

export function parseRaw(data) {
  const end = data.indexOf('\r\n\r\n');
  const head = end < 0 ? data : data.slice(0, end);
  const lines = head.split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1]);
  const headers = {};
  for (const line of lines.slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  let body = end < 0 ? '' : data.slice(end + 4);
  if (headers['content-length'] !== undefined) body = body.slice(0, Number(headers['content-length']));
  return { status, headers, body };
}

// An SSE subscription: reads until `count` event messages came (or `ms`
// passed), then closes. Returns the head and the messages.
export function subscribe(server, target, { headers = {}, count = 1, ms = 10000 } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: server.host, port: server.port, method: 'GET', path: target, headers, agent: false },
      (res) => {
        let text = '';
        const done = () => {
          clearTimeout(timer);
          req.destroy();
          resolve({ status: res.statusCode, headers: res.headers, body: res.statusCode === 200 ? '' : text, text, messages: parseSse(text) });
        };
        const timer = setTimeout(done, ms);
        res.on('data', (c) => {
          text += c.toString('utf8');
          if (res.statusCode !== 200) return;
          if (parseSse(text).filter((m) => m.data !== undefined).length >= count) done();
        });
        res.on('end', done);
        res.on('error', () => done());
      },
    );
    req.on('error', reject);
    req.end();
  });
}

// Complete SSE messages (ended by a blank line): {id, data, comments}.
export function parseSse(text) {
  const messages = [];
  const blocks = text.split('\n\n');
  blocks.pop(); // not complete yet
  for (const block of blocks) {
    const m = { comments: [], lines: block.split('\n') };
    for (const line of m.lines) {
      if (line.startsWith(':')) m.comments.push(line.slice(1).trim());
      else if (line.startsWith('id: ')) m.id = line.slice(4);
      else if (line.startsWith('data: ')) m.data = (m.data === undefined ? '' : m.data + '\n') + line.slice(6);
      else m.other = line;
    }
    messages.push(m);
  }
  return messages;
}

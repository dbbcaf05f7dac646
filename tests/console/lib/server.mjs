// A real `indelible serve` on a free port and a data folder, stopped
// afterwards (SIGTERM, then SIGKILL), and a small JSON client for seeding and
// for checking the server's state behind the console's back.
import { spawn, execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export const binary = path.resolve(process.env.INDELIBLE_BIN ?? path.join(repoRoot, 'build/dev/src/cli/indelible'));

export function tempDir(prefix = 'indelible-console-') {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

// Starts `indelible --data DIR serve --listen 127.0.0.1:0 ...`; resolves once
// it prints "listening on http://HOST:PORT".
//   data: an existing data folder to serve (kept by stop()); default a new one
//   auth: --auth with a bootstrap admin key (server.adminKey)
export async function startServer({ data, auth = false, args = [] } = {}) {
  if (!existsSync(binary)) throw new Error(`no server binary at ${binary}: set INDELIBLE_BIN`);
  const dir = tempDir();
  const dataDir = data ?? path.join(dir, 'data');
  const keyFile = path.join(dir, 'keys', 'admin.key');
  const all = ['--data', dataDir, 'serve', '--listen', '127.0.0.1:0', ...args];
  if (auth) {
    mkdirSync(path.dirname(keyFile), { recursive: true, mode: 0o700 });
    all.push('--auth', '--bootstrap-key-file', keyFile);
  }
  const child = spawn(binary, all, { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let output = '';
  const base = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start within 30 s:\n${output}`)), 30000);
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
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before listening:\n${output}`));
    });
  });
  return {
    base,
    adminKey: auth ? readFileSync(keyFile, 'utf8').trim() : undefined,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// One JSON call: {status, headers, body (parsed JSON, or text)}. Throws on a
// status other than `expect` (default: any 2xx), with the server's answer.
export async function api(server, method, target, { json, key, expect, headers = {} } = {}) {
  const h = { ...headers };
  if (json !== undefined) h['Content-Type'] = 'application/json';
  if (key) h.Authorization = `Bearer ${key}`;
  const res = await fetch(server.base + target, { method, headers: h, body: json === undefined ? undefined : JSON.stringify(json) });
  const text = await res.text();
  let body = text;
  try {
    body = JSON.parse(text);
  } catch {}
  const ok = expect === undefined ? res.status >= 200 && res.status < 300 : res.status === expect;
  if (!ok) throw new Error(`${method} ${target}: ${res.status} ${text}`);
  return { status: res.status, headers: res.headers, body };
}

// Appends `count` small events to `stream` in arrays of `batch`, `inFlight`
// requests at a time (each append of an array is one commit, in order within
// the array; batches may interleave, which a single stream does not mind:
// versions are given by the server).
export async function seedStream(server, stream, count, { batch = 1000, inFlight = 4, key } = {}) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const first = next;
      const n = Math.min(batch, count - first);
      next += n;
      const events = Array.from({ length: n }, (_, i) => ({ type: 'Seeded', data: { n: first + i } }));
      await api(server, 'POST', `/streams/${encodeURIComponent(stream)}`, { json: events, key });
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
}

// Writes the events of one stream into a data folder through the CLI's
// `import` (the JSON Lines of `export`), before a server opens it.
export async function importStream(dataDir, stream, count, file) {
  const { createWriteStream } = await import('node:fs');
  const out = createWriteStream(file);
  const now = Date.now();
  for (let v = 0; v < count; v++) {
    const line = JSON.stringify({ id: randomUUID(), stream, version: v, position: v + 1, timestamp: now, type: 'Seeded', data: { n: v } }) + '\n';
    if (!out.write(line)) await new Promise((r) => out.once('drain', r));
  }
  await new Promise((r, j) => out.end((e) => (e ? j(e) : r())));
  await promisify(execFile)(binary, ['--data', dataDir, 'import', '--in', file], { maxBuffer: 1 << 24 });
}

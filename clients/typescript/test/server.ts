// Test helper: a real `indelible serve` on a free port with a temp data
// folder, stopped afterwards.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

// build-test/test/server.js -> the package folder is two levels up.
const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export const BIN = path.resolve(process.env.INDELIBLE_BIN ?? path.join(packageRoot, '..', '..', 'build', 'dev', 'src', 'cli', 'indelible'));

export function tempDir(prefix = 'indelible-ts-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

export interface ServerOptions {
  /** Data folder (a new temp one by default, removed by stop()). */
  data?: string;
  /** Port to listen on (default 0: any free one). */
  port?: number;
  /** More `serve` flags. */
  args?: string[];
}

export class Server {
  readonly url: string;
  readonly port: number;
  readonly data: string;
  private readonly ownsData: boolean;
  private exited: Promise<void>;
  stderr = '';

  private constructor(private readonly child: ChildProcess, url: string, data: string, ownsData: boolean, exited: Promise<void>) {
    this.url = url;
    this.port = Number(new URL(url).port);
    this.data = data;
    this.ownsData = ownsData;
    this.exited = exited;
  }

  static async start(options: ServerOptions = {}): Promise<Server> {
    if (!existsSync(BIN)) throw new Error(`indelible binary not found at ${BIN}: set INDELIBLE_BIN`);
    const ownsData = options.data === undefined;
    const data = options.data ?? tempDir();
    const args = ['--data', path.join(data, 'store'), 'serve', '--listen', `127.0.0.1:${options.port ?? 0}`, ...(options.args ?? [])];
    const child = spawn(BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`server did not start in 10 s: ${stderr}`)), 10000);
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening on (https?:\/\/[^\s]+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`server exited (${code}) before listening: ${stderr}`));
      });
    });
    const server = new Server(child, url, data, ownsData, exited);
    child.stderr!.on('data', (d: Buffer) => (server.stderr += d.toString()));
    server.stderr = stderr;
    return server;
  }

  /** SIGKILL: the process dies at once (a crash, or a restart test). */
  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }

  /** SIGTERM, then removes the data folder if it made it. */
  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
      await this.exited;
      clearTimeout(timer);
    }
    if (this.ownsData) rmSync(this.data, { recursive: true, force: true });
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Collects an async iterable into an array. */
export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** A unique-enough name for one test's streams and groups. */
export function unique(prefix: string): string {
  return `${prefix}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`;
}

// A server started with --auth and two clients on it: `admin` (the
// bootstrap key) and `writer` (a key of the writer role: append and read,
// no delete, not admin). `close` stops all three and removes the folder.
export interface AuthServer {
  server: Server;
  admin: import('./subject.js').Client;
  writer: import('./subject.js').Client;
  close(): Promise<void>;
}

export async function startAuthServer(): Promise<AuthServer> {
  const { Client } = await import('./subject.js');
  const { readFileSync } = await import('node:fs');
  const dir = tempDir();
  const server = await Server.start({ data: dir, args: ['--auth', '--bootstrap-key-file', path.join(dir, 'admin.key')] });
  const adminKey = readFileSync(path.join(dir, 'admin.key'), 'utf8').trim();
  const admin = new Client(server.url, { apiKey: adminKey });
  const res = await fetch(`${server.url}/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: unique('writer-'), roles: ['writer'] }),
  });
  if (res.status !== 201) throw new Error(`making a writer key: ${res.status} ${await res.text()}`);
  const writer = new Client(server.url, { apiKey: ((await res.json()) as { key: string }).key });
  return {
    server,
    admin,
    writer,
    async close() {
      admin.close();
      writer.close();
      await server.stop();
      rmSync(server.data, { recursive: true, force: true });
    },
  };
}


// An https server on a certificate for 127.0.0.1 signed by a private CA made
// here by openssl (as tests/testutil/test_certificates.h); `dir` holds
// ca.pem, and is the server's data folder (removed by the caller).
export async function startTlsServer(): Promise<{ server: Server; dir: string }> {
  const dir = tempDir();
  const sh = (cmd: string) => execFileSync('sh', ['-c', cmd], { cwd: dir, stdio: 'pipe' });
  sh("openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj '/CN=indelible test CA'");
  sh("openssl req -newkey rsa:2048 -nodes -keyout key.pem -out server.csr -subj '/CN=127.0.0.1'");
  sh("printf 'subjectAltName=IP:127.0.0.1\\nbasicConstraints=CA:FALSE\\n' > ext");
  sh('openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out cert.pem -days 2 -extfile ext');
  const server = await Server.start({ data: dir, args: ['--tls-cert', path.join(dir, 'cert.pem'), '--tls-key', path.join(dir, 'key.pem')] });
  return { server, dir };
}

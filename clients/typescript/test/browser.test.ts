// The client in a real browser: Debian's Chromium (/usr/bin/chromium,
// driven by playwright-core, which downloads no browser) loads the
// package's ESM build (dist/) from a small static server on loopback, and
// runs test/portable-checks.ts against `indelible serve --auth
// --allow-origin <that origin>`: the fetch transport, CORS preflights with
// credentials, SSE through web streams, aborts. Needs `npm run build`
// first (npm test does it). Skipped without Chromium, unless
// INDELIBLE_REQUIRE_BROWSER=1 (scripts/test-typescript.sh sets it).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Server, tempDir } from './server.js';
import { testTransport } from './subject.js';
import type { CheckResult } from './portable-checks.js';

// build-test/test/browser.test.js -> the package folder is two levels up.
const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const chromiumPath = process.env.INDELIBLE_CHROMIUM ?? '/usr/bin/chromium';
const required = process.env.INDELIBLE_REQUIRE_BROWSER === '1';
// The browser has fetch only: one run is enough (the suite's fetch run skips it).
const skip = testTransport === 'fetch' ? 'the browser run does not depend on the suite transport' : !existsSync(chromiumPath) && !required ? `no Chromium at ${chromiumPath}` : false;

const PAGE = '<!doctype html><meta charset="utf-8"><title>@indelible/client in a browser</title><p>checks run through page.evaluate</p>';

/** Serves the page, dist/ and build-test/ (the portable checks) of the package, nothing else; notes every path asked for. */
class StaticServer {
  readonly asked: string[] = [];
  private readonly server = http.createServer((req, res) => this.serve(req, res));
  origin = '';

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
    return this;
  }

  private serve(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', this.origin);
    this.asked.push(url.pathname);
    if (url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(PAGE);
      return;
    }
    const file = path.join(packageRoot, path.normalize(url.pathname));
    const allowed = ['dist', 'build-test'].some((dir) => file.startsWith(path.join(packageRoot, dir) + path.sep));
    if (!allowed || !file.endsWith('.js') || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' });
    res.end(readFileSync(file));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

let site: StaticServer;
let server: Server;
let apiKey: string;

before(async () => {
  if (skip) return;
  assert.ok(existsSync(path.join(packageRoot, 'dist', 'index.js')), 'dist/index.js is missing: run `npm run build` first');
  site = await new StaticServer().listen();
  const dir = tempDir();
  server = await Server.start({ data: dir, args: ['--auth', '--bootstrap-key-file', path.join(dir, 'admin.key'), '--allow-origin', site.origin] });
  apiKey = readFileSync(path.join(dir, 'admin.key'), 'utf8').trim();
});

after(async () => {
  if (skip) return;
  await server?.stop();
  await site?.close();
});

test('in Chromium: the ESM build over fetch (append, read, conflict, SSE, abort, credentials over CORS)', { skip }, async (t) => {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(String(err)));
    page.on('console', (msg) => {
      if (msg.type() === 'error') pageErrors.push(msg.text());
    });
    await page.goto(site.origin + '/');
    const results: CheckResult[] = await page.evaluate(
      async ({ url, key }) => {
        // Specifiers in variables: they are the page's URLs, not modules of this build.
        const libUrl = '/dist/index.js';
        const checksUrl = '/build-test/test/portable-checks.js';
        const lib = (await import(libUrl)) as typeof import('../src/index.js');
        const checks = (await import(checksUrl)) as typeof import('./portable-checks.js');
        return checks.runChecks(lib, url, key);
      },
      { url: server.url, key: apiKey },
    );
    for (const r of results) t.diagnostic(`${r.ok ? 'ok' : 'FAILED'}: ${r.name}: ${r.detail}`);
    for (const r of results) assert.ok(r.ok, `${r.name}: ${r.detail}`);
    assert.equal(results.length, 9);
    assert.equal(results.find((r) => r.name === 'transport')?.detail, 'fetch');
    // Never asked for: the node sender (and so no `node:` import) stays out of a browser.
    assert.ok(!site.asked.some((p) => p.endsWith('/node-sender.js')), `asked: ${site.asked.join(' ')}`);
    // A 401 and a 404 log as failed loads in the console; anything else is an error of the page.
    const unexpected = pageErrors.filter((e) => !/status of (401|404|409)/.test(e));
    assert.deepEqual(unexpected, []);
  } finally {
    await browser.close();
  }
});

// The package's builds in each runtime, against one real server with
// credentials: test/portable-checks.ts run by Node on the ESM build and on
// the CommonJS build (whose `import('node:http')` became a `require`), and
// by Deno and Bun on the ESM build (their fetch). Deno and Bun come from npm
// (clients/typescript/runtimes, installed by scripts/test-typescript.sh);
// each is skipped when missing, unless INDELIBLE_REQUIRE_RUNTIMES=1.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Server, tempDir } from './server.js';
import { testTransport } from './subject.js';
import { runChecks, type CheckResult } from './portable-checks.js';
import type * as Lib from '../src/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
// build-test/test -> the package folder is two levels up.
const packageRoot = path.resolve(here, '..', '..');
const required = process.env.INDELIBLE_REQUIRE_RUNTIMES === '1';
// The builds and runtimes do not depend on the suite's transport: run once.
const skipAll = testTransport === 'fetch' ? 'the runtime runs do not depend on the suite transport' : false;

let server: Server;
let apiKey: string;
let dir: string;

before(async () => {
  if (skipAll) return;
  assert.ok(existsSync(path.join(packageRoot, 'dist', 'cjs', 'index.js')), 'dist/ is missing: run `npm run build` first');
  dir = tempDir();
  server = await Server.start({ data: dir, args: ['--auth', '--bootstrap-key-file', path.join(dir, 'admin.key')] });
  apiKey = readFileSync(path.join(dir, 'admin.key'), 'utf8').trim();
});

after(async () => {
  if (skipAll) return;
  await server?.stop();
});

function report(t: { diagnostic(message: string): void }, results: CheckResult[], transport: string): void {
  for (const r of results) t.diagnostic(`${r.ok ? 'ok' : 'FAILED'}: ${r.name}: ${r.detail}`);
  for (const r of results) assert.ok(r.ok, `${r.name}: ${r.detail}`);
  assert.equal(results.length, 9);
  assert.equal(results.find((r) => r.name === 'transport')?.detail, transport);
}

test('Node, the ESM build (dist/index.js): node:http', { skip: skipAll }, async (t) => {
  const lib = (await import(pathToFileURL(path.join(packageRoot, 'dist', 'index.js')).href)) as typeof Lib;
  report(t, await runChecks(lib, server.url, apiKey), 'node');
});

test('Node, the CommonJS build (require of dist/cjs): node:http loaded through require', { skip: skipAll }, async (t) => {
  const lib = createRequire(import.meta.url)(path.join(packageRoot, 'dist', 'cjs', 'index.js')) as typeof Lib;
  report(t, await runChecks(lib, server.url, apiKey), 'node');
});

/** Where the runtime's binary is: its INDELIBLE_<NAME> variable, or runtimes/node_modules/.bin. */
function binary(name: 'deno' | 'bun'): string | undefined {
  const fromEnv = process.env[`INDELIBLE_${name.toUpperCase()}`];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const local = path.join(packageRoot, 'runtimes', 'node_modules', '.bin', name);
  return existsSync(local) ? local : undefined;
}

/** Runs the checks in another runtime: a small module that imports the ESM build and the checks, and prints the results. */
async function runElsewhere(command: string, args: (main: string) => string[]): Promise<{ results: CheckResult[]; version: string }> {
  const main = path.join(tempDir('indelible-runtime-'), 'main.mjs');
  const lib = pathToFileURL(path.join(packageRoot, 'dist', 'index.js')).href;
  const checks = pathToFileURL(path.join(here, 'portable-checks.js')).href;
  writeFileSync(
    main,
    `import { runChecks } from ${JSON.stringify(checks)};\n` +
      `const lib = await import(${JSON.stringify(lib)});\n` +
      `console.log(JSON.stringify(await runChecks(lib, ${JSON.stringify(server.url)}, ${JSON.stringify(apiKey)})));\n`,
  );
  const run = (argv: string[]) =>
    new Promise<string>((resolve, reject) => {
      const env = { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' };
      execFile(command, argv, { env, timeout: 60000 }, (err, stdout, stderr) => (err ? reject(new Error(`${command} ${argv.join(' ')}: ${err.message}\n${stderr}`)) : resolve(stdout)));
    });
  try {
    const version = (await run(['--version'])).split('\n')[0]!.trim();
    const out = await run(args(main));
    const last = out.trim().split('\n').pop()!;
    return { results: JSON.parse(last) as CheckResult[], version };
  } finally {
    rmSync(path.dirname(main), { recursive: true, force: true });
  }
}

for (const name of ['deno', 'bun'] as const) {
  const bin = binary(name);
  const skip = skipAll || (bin === undefined && !required ? `no ${name} (npm ci in clients/typescript/runtimes, or INDELIBLE_${name.toUpperCase()})` : false);
  test(`${name === 'deno' ? 'Deno' : 'Bun'}, the ESM build: fetch`, { skip }, async (t) => {
    assert.ok(bin !== undefined, `no ${name} binary`);
    const args = name === 'deno' ? (main: string) => ['run', `--allow-net=${new URL(server.url).host}`, `--allow-read=${packageRoot},${path.dirname(main)}`, main] : (main: string) => [main];
    const { results, version } = await runElsewhere(bin, args);
    t.diagnostic(version);
    report(t, results, 'fetch');
  });
}

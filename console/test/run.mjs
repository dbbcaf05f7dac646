// Runs the unit tests: esbuild compiles test/*.test.ts (and what they import)
// to a temp dir, then node:test runs them. No extra test dependency.
import * as esbuild from 'esbuild';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const tests = readdirSync(here).filter((f) => f.endsWith('.test.ts'));
const out = mkdtempSync(join(tmpdir(), 'console-test-'));
try {
  await esbuild.build({
    entryPoints: tests.map((f) => join(here, f)),
    bundle: true,
    platform: 'node',
    format: 'esm',
    outdir: out,
    outExtension: { '.js': '.mjs' },
    logLevel: 'warning',
  });
  const files = tests.map((f) => join(out, f.replace(/\.ts$/, '.mjs')));
  const run = spawnSync(process.execPath, ['--test', ...files], { stdio: 'inherit' });
  process.exitCode = run.status ?? 1;
} finally {
  rmSync(out, { recursive: true, force: true });
}

// Builds the console into OUTDIR: exactly index.html, app.js and app.css.
// Usage: node console/build.mjs OUTDIR
//
// The server serves these three files at /console/ under a CSP of
// default-src 'self': so no inline script, no source maps, no remote URLs.
import * as esbuild from 'esbuild';
import { mkdirSync, readFileSync, writeFileSync, statSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const outDir = process.argv[2];
if (!outDir) {
  console.error('usage: node build.mjs OUTDIR');
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });

// The bundled packages are MIT licensed, which asks for their notice in
// every copy, and their builds carry no /*! comment for esbuild to keep:
// app.js ends with each package's LICENSE file.
const pkg = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'));
const notices = Object.keys(pkg.dependencies).map((name) => {
  const text = readFileSync(join(here, 'node_modules', name, 'LICENSE'), 'utf8');
  if (text.includes('*/')) throw new Error(`${name}/LICENSE would end the comment that carries it`);
  return `${name}:\n\n${text.trim()}`;
});
const licences = `/*! The indelible console bundles these packages, under these licences.\n\n${notices.join('\n\n')}\n*/`;

await esbuild.build({
  entryPoints: [join(here, 'src/main.tsx')],
  bundle: true,
  minify: true,
  sourcemap: false,
  format: 'iife',
  target: ['es2020'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outfile: join(outDir, 'app.js'), // its CSS imports land in app.css beside it
  legalComments: 'eof', // the packages' licence notices, if they carry any
  footer: { js: licences },
  logLevel: 'warning',
});
writeFileSync(join(outDir, 'index.html'), readFileSync(join(here, 'src/index.html')));

let total = 0;
for (const name of ['index.html', 'app.js', 'app.css']) {
  const bytes = readFileSync(join(outDir, name));
  const gz = gzipSync(bytes, { level: 9 }).length;
  if (name !== 'index.html') total += gz;
  console.log(`${name.padEnd(10)} ${String(statSync(join(outDir, name)).size).padStart(8)} B  gzip ${String(gz).padStart(7)} B`);
}
console.log(`app.js + app.css gzipped: ${(total / 1024).toFixed(1)} KB (budget 250 KB) -> ${resolve(outDir)}`);

// The package's two builds from one source: ESM in dist/ (the package is
// "type": "module") and CommonJS in dist/cjs/, whose own package.json says
// so, for `require('@indelible/client')`; each with its declarations.
// dist/ is removed first: a file no longer built must not be packed.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
rmSync('dist', { recursive: true, force: true });
for (const project of ['tsconfig.json', 'tsconfig.cjs.json']) {
  execFileSync(process.execPath, [tsc, '-p', project], { stdio: 'inherit' });
}
writeFileSync('dist/cjs/package.json', JSON.stringify({ type: 'commonjs' }, null, 2) + '\n');

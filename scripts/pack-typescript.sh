#!/usr/bin/env bash
# The TypeScript client as an npm package file: a clean install of its
# build tools, a build (ESM and CommonJS), and `npm pack` into build/npm/.
# Prints the tarball's path; install it where you need the client with
#   npm install /path/to/indelible/build/npm/indelible-client-VERSION.tgz
set -euo pipefail
cd "$(dirname "$0")/.."
out=$PWD/build/npm
mkdir -p "$out"
cd clients/typescript
npm ci --no-audit --no-fund --loglevel=error >/dev/null
name=$(npm pack --pack-destination "$out" 2>/dev/null | tail -1)
echo "$out/$name"

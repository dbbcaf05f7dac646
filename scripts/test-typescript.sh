#!/usr/bin/env bash
# The TypeScript client (clients/typescript, npm package @indelible/client):
# a clean install from package-lock.json, a strict build, its tests against
# a real `indelible serve` (started and stopped by the tests), and the
# package as `npm pack` would publish it.
#   INDELIBLE_BIN=/path/to/indelible scripts/test-typescript.sh
# INDELIBLE_BIN defaults to the CI build, build/dev/src/cli/indelible.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
bin=${INDELIBLE_BIN:-$root/build/dev/src/cli/indelible}
case "$bin" in /*) ;; *) bin="$root/$bin" ;; esac
if [[ ! -x "$bin" ]]; then
  echo "test-typescript: no indelible binary at $bin (build it, or set INDELIBLE_BIN)" >&2
  exit 2
fi
cd clients/typescript
npm ci --no-audit --no-fund
npm run build
INDELIBLE_BIN="$bin" npm test
# What a user would get: the tarball's file list, checked for what must be there.
pack=$(mktemp -d)
trap 'rm -rf "$pack"' EXIT
npm pack --pack-destination "$pack" >/dev/null
tarball=$(ls "$pack"/*.tgz)
listing=$(tar -tzf "$tarball")
for f in package/package.json package/README.md package/dist/index.js package/dist/index.d.ts; do
  grep -qx "$f" <<<"$listing" || { echo "test-typescript: $f missing from $tarball" >&2; exit 1; }
done
if grep -qE '^package/(src|test|node_modules|build-test)/' <<<"$listing"; then
  echo "test-typescript: the tarball holds sources or tests:" >&2
  grep -E '^package/(src|test|node_modules|build-test)/' <<<"$listing" >&2
  exit 1
fi
# It installs and imports as an ESM package with types.
consumer="$pack/consumer"
mkdir -p "$consumer"
(cd "$consumer" && npm init -y >/dev/null && npm install --no-audit --no-fund "$tarball" >/dev/null &&
  node --input-type=module -e "import { Client, ConflictError } from '@indelible/client'; if (typeof Client !== 'function' || typeof ConflictError !== 'function') process.exit(1);")
echo "test-typescript: ok ($(wc -l <<<"$listing") files in $(basename "$tarball"))"

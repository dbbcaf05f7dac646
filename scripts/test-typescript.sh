#!/usr/bin/env bash
# The TypeScript client (clients/typescript, npm package @indelible/client):
# a clean install from package-lock.json, a strict build (ESM and CommonJS),
# its tests against a real `indelible serve` (started and stopped by the
# tests) twice, once per transport (node:http, then fetch), the same client
# in Chromium (Debian's, from apt), Deno and Bun (from npm), and the package
# as `npm pack` would publish it: installed in a temp folder, imported as
# ESM, required as CommonJS against a server, and type-checked by a
# TypeScript program without @types/node.
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
if [[ ! -x /usr/bin/chromium ]]; then
  apt-get update -qq
  apt-get install -y -qq chromium
fi
cd clients/typescript
npm ci --no-audit --no-fund
# Deno and Bun, from npm, for test/runtimes.test.ts.
(cd runtimes && npm ci --no-audit --no-fund --loglevel=error)
# npm test builds dist/ (both formats) and runs the suite with the runtime's
# default transport, node:http; the browser, Deno, Bun and CommonJS runs are in it.
INDELIBLE_BIN="$bin" INDELIBLE_REQUIRE_BROWSER=1 INDELIBLE_REQUIRE_RUNTIMES=1 npm test
# The whole suite again with every client on fetch.
echo "test-typescript: the suite again, transport fetch"
INDELIBLE_BIN="$bin" INDELIBLE_TEST_TRANSPORT=fetch node --test --test-concurrency=1 build-test/test/
# The declarations name no Node type (they would need @types/node).
if grep -rnE "from ['\"]node:|import\(['\"]node:|reference types=['\"]node|NodeJS\.|IncomingHttpHeaders|: Buffer|<Buffer|\| Buffer|Buffer \|" dist --include='*.d.ts'; then
  echo "test-typescript: Node types in the declarations above" >&2
  exit 1
fi
# What a user would get: the tarball's file list, checked for what must be there.
pack=$(mktemp -d)
serve_pid=
cleanup() {
  if [[ -n $serve_pid ]]; then
    kill "$serve_pid" 2>/dev/null || true
    wait "$serve_pid" 2>/dev/null || true
  fi
  rm -rf "$pack"
}
trap cleanup EXIT
npm pack --pack-destination "$pack" >/dev/null
tarball=$(ls "$pack"/*.tgz)
listing=$(tar -tzf "$tarball")
for f in package/package.json package/README.md package/CHANGELOG.md package/dist/index.js package/dist/index.d.ts \
  package/dist/cjs/package.json package/dist/cjs/index.js package/dist/cjs/index.d.ts; do
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
# TypeScript programs, ESM (.mts) and CommonJS (.cts), type-check against
# its declarations with "types": [] and no @types/node in the folder.
cp consumer/typed.mts consumer/typed.cts consumer/tsconfig.json consumer/require.cjs "$consumer/"
[[ ! -e "$consumer/node_modules/@types/node" ]] || { echo "test-typescript: @types/node in the consumer folder" >&2; exit 1; }
"$PWD/node_modules/.bin/tsc" -p "$consumer/tsconfig.json"
echo "test-typescript: typed.mts and typed.cts type-check without @types/node"
# A CommonJS program (require) appends and reads against a server.
"$bin" --data "$pack/store" serve --listen 127.0.0.1:0 >"$pack/serve.out" 2>&1 &
serve_pid=$!
url=
for _ in $(seq 100); do
  url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$pack/serve.out" | head -1 || true)
  [[ -n $url ]] && break
  sleep 0.1
done
[[ -n $url ]] || { echo "test-typescript: the server did not start: $(cat "$pack/serve.out")" >&2; exit 1; }
(cd "$consumer" && node require.cjs "$url")
# The documented way to get the package file (README "Install").
packed=$(cd "$root" && scripts/pack-typescript.sh)
[[ -f $packed ]] || { echo "test-typescript: scripts/pack-typescript.sh made no $packed" >&2; exit 1; }
echo "test-typescript: ok ($(wc -l <<<"$listing") files in $(basename "$tarball"))"

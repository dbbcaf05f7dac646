#!/usr/bin/env bash
# Builds the web console (console/: TypeScript, esbuild) into OUTDIR:
# index.html, app.js, app.css and a gzipped copy of each (FILE.gz), which
# cmake/embed_files.cmake embeds in the server. Called by the build
# (src/server/CMakeLists.txt); installs console/node_modules with `npm ci`
# when console/package-lock.json changed since the last install.
#
#   scripts/build-console.sh OUTDIR
set -euo pipefail
out=${1:?usage: build-console.sh OUTDIR}
console=$(cd "$(dirname "$0")/../console" && pwd -P)

command -v node >/dev/null 2>&1 || {
  echo "build-console.sh: Node.js is not installed (scripts/install-deps.sh installs it), or configure with -DINDELIBLE_WITH_CONSOLE=OFF" >&2
  exit 1
}
# Several build folders (dev, tsan, clang) may build at once: one npm ci.
exec 9<"$console/package-lock.json"
flock 9
stamp=$console/node_modules/.indelible-lock-sha256
want=$(sha256sum "$console/package-lock.json" | cut -d' ' -f1)
if [[ ! -f $stamp || $(cat "$stamp") != "$want" ]]; then
  (cd "$console" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) || {
    echo "build-console.sh: npm ci in $console failed (the npm registry, or npm's cache, must be reachable)" >&2
    exit 1
  }
  mkdir -p "$console/node_modules"
  echo "$want" >"$stamp"
fi
exec 9<&-

mkdir -p "$out"
node "$console/build.mjs" "$out"
# -n: no name or time in the header, so the same input gives the same bytes.
for file in index.html app.js app.css; do
  gzip -9 -n -c "$out/$file" >"$out/$file.gz"
done

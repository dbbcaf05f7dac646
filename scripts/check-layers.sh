#!/usr/bin/env bash
# The layer rule of DESIGN.md, checked from the build graph: configures
# build/layers (CMake only, nothing is compiled; a few seconds) with a File
# API query, then scripts/check_layers.py holds every #include in src/ and
# include/indelible/ to the targets' declared dependencies and those to the
# module order.
#   scripts/check-layers.sh              check the checkout
#   scripts/check-layers.sh --self-test  prove the check fails on planted
#                                        violations (a copy of the tree)
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/layers
mkdir -p "$build/.cmake/api/v1/query"
touch "$build/.cmake/api/v1/query/codemodel-v2"
cmake -S . -B "$build" -G Ninja -DINDELIBLE_TESTS=OFF >"$build/configure.log" 2>&1 || {
  cat "$build/configure.log" >&2
  echo "check-layers: configuring $build failed (see above)" >&2
  exit 1
}
if [[ "${1:-}" != "--self-test" ]]; then
  exec python3 scripts/check_layers.py "$build"
fi

# Each plant is FILE|LINE: the line is added to a copy of FILE, and the
# check must then fail naming that file. They cover a lower layer including
# a higher one, a public header, the client reaching a backend, one backend
# reaching another, net reaching aws above it, the client reaching aws (not
# among its dependencies), and a same-layer module.
plants=(
  'src/core/event.cc|#include "store/decide.h"'
  'src/store/decide.cc|#include "indelible/consumer_group.h"'
  'src/client/client.cc|#include "storage/embedded/engine.h"'
  'src/storage/embedded/engine.cc|#include "storage/dynamodb/tables.h"'
  'src/net/connection.cc|#include "aws/sigv4.h"'
  'src/client/client.cc|#include "aws/client.h"'
  'src/entities/load.cc|#include "indelible/projection.h"'
  'include/indelible/store.h|#include "indelible/server.h"'
)
copy=$(mktemp -d /tmp/indelible-layers.XXXXXX)
trap 'rm -rf "$copy"' EXIT
cp -r src include "$copy/"
python3 scripts/check_layers.py "$build" "$copy" || {
  echo "check-layers self-test: the unplanted copy must pass" >&2
  exit 1
}
failed=0
for plant in "${plants[@]}"; do
  file=${plant%%|*}
  line=${plant#*|}
  cp "$file" "$copy/$file.orig"
  printf '%s\n' "$line" >>"$copy/$file"
  if out=$(python3 scripts/check_layers.py "$build" "$copy" 2>&1); then
    echo "check-layers self-test: '$line' in $file was not caught" >&2
    failed=1
  elif ! grep -q "$file" <<<"$out"; then
    echo "check-layers self-test: '$line' in $file failed without naming it: $out" >&2
    failed=1
  fi
  mv "$copy/$file.orig" "$copy/$file"
done
[[ $failed -eq 0 ]] && echo "check-layers self-test: ${#plants[@]} planted violations caught"
exit $failed

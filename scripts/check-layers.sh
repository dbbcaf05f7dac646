#!/usr/bin/env bash
# The layer rule of DESIGN.md, checked on #includes: a module may include
# only itself and the modules above it. The same lists are the dependency
# lists of the CMake targets.
set -euo pipefail
cd "$(dirname "$0")/.."
declare -A allowed=(
  [core]="core"
  [storage]="core storage"
  [subscriptions]="core storage subscriptions"
  [entities]="core storage entities"
  [projections]="core storage subscriptions projections"
  [api]="core api"
  [server]="core storage subscriptions api server"
  [client]="core api client"
  [cli]="core storage subscriptions projections api cli bench server client"
)
status=0
for module in "${!allowed[@]}"; do
  [ -d "src/$module" ] || continue
  while IFS=: read -r file line include; do
    dep=$(sed -E 's/.*#include "([a-z_]+)\/.*/\1/' <<<"$include")
    [ "$dep" = "indelible" ] && continue
    if ! grep -qw "$dep" <<<"${allowed[$module]}"; then
      echo "check-layers: $file:$line: $module may not include $dep/ (allowed: ${allowed[$module]})" >&2
      status=1
    fi
  done < <(grep -rnE '^#include "[a-z_]+/' "src/$module" --include='*.h' --include='*.cc' || true)
done
# Public headers include only the standard library and indelible/*.
if grep -rnE '^#include ["<](rocksdb|boost|fmt|CLI)' include/; then
  echo "check-layers: public headers must include only std and indelible/*" >&2
  status=1
fi
exit $status

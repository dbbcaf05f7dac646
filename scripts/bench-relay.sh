#!/usr/bin/env bash
# The relay benchmark (docs/BENCHMARKS.md): starts a throwaway nats-server -js
# on a free loopback port (scripts/nats-server.sh), runs
# `indelible bench relay` against it RUNS times (medians), stops NATS.
#   scripts/bench-relay.sh [RUNS] [DATA_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
data=${2:-/var/tmp/ib}
nats_dir=$(mktemp -d /var/tmp/indelible-bench-nats.XXXXXX)
trap 'scripts/nats-server.sh stop "$nats_dir"; rm -rf "$nats_dir"' EXIT
[[ -x build/release/src/cli/indelible ]] || scripts/build.sh release indelible
url=$(scripts/nats-server.sh start "$nats_dir")
echo "# nats-server $(nats-server --version 2>&1 | head -1) at $url, JetStream in $nats_dir"
mkdir -p "$data"
build/release/src/cli/indelible bench relay --data "$data" --nats "$url" --runs "$runs"

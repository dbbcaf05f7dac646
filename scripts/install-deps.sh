#!/usr/bin/env bash
# Installs what indelible needs to build and test, from Debian 12's apt.
# Idempotent and quiet when everything is already there. Run as root.
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config git
  librocksdb-dev zlib1g-dev
  libboost1.81-dev libboost-json1.81-dev libboost-url1.81-dev
  libfmt-dev libcli11-dev
  # Event schemas (src/schemas/): JSON Schema validation (valijson, header
  # only), JSON Patch for declarative upcasters (nlohmann's JSON), and the
  # official JSON-Schema-Test-Suite the validator is held to.
  libvalijson-dev nlohmann-json3-dev json-schema-test-suite
  libnats-dev nats-server
  # The PostgreSQL read store: the client libraries, and the server that
  # scripts/postgres.sh starts for its tests (util-linux's runuser and ipcrm,
  # which it also uses, are in every Debian).
  libpq-dev libpqxx-dev postgresql-15
  # The SQLite read store (the embedded default for read models), and its shell.
  libsqlite3-dev sqlite3
  # The DynamoDB client: TLS and SigV4's SHA-256/HMAC. Its test servers
  # (scripts/dynamodb.sh): DynamoDB Local runs on Java 17; dynalite, and the
  # reference SigV4 signer of the tests, on Node.js (npm fetches them).
  # openssl (the command) makes the certificates of the https tests.
  libssl-dev openssl openjdk-17-jre-headless nodejs
  # The web console (console/) is built with Node.js and npm's esbuild;
  # its browser tests (tests/console) drive Debian's Chromium through
  # playwright-core, which downloads no browser of its own.
  chromium
  libgtest-dev libgmock-dev
  clang-format
  # scripts/check_layers.py (the layer rule from CMake's build graph) and
  # the tests' delay proxy.
  python3
  # The fuzzers (scripts/fuzz.sh): clang with libFuzzer and the sanitizer
  # runtimes; ccache shares compiled objects between build folders.
  clang libclang-rt-14-dev ccache
)

# Debian's npm is a package of its own; Node.js from elsewhere (NodeSource)
# brings npm with it and conflicts with Debian's npm package.
command -v npm >/dev/null 2>&1 || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages: ${missing[*]}; run as root (or: sudo $0)" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

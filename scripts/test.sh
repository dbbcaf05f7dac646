#!/usr/bin/env bash
# The README's second command: install what is missing, build, and run the
# whole suite the way CI does:
#   1. formatting and the layer rule from the build graph, with its
#      planted-violation self-test (cheap, first);
#   2. the library as others get it: the minimal release build (NATS,
#      PostgreSQL, DynamoDB off) with its unit tests, cmake --install, a
#      program built on the installed tree with find_package and with
#      pkg-config, and the .deb (scripts/check-install.sh; its own build
#      folder and ccache keep it to about 20 s once warm);
#   3. every test under AddressSanitizer + UndefinedBehaviorSanitizer (dev);
#   4. against the dev build's server: docs/openapi.json checked route by
#      route, error bodies included (tests/openapi), the TypeScript client's
#      suite (clients/typescript), the TypeScript ledger compared line by
#      line with the C++ one (examples/ledger-ts), the documents' runnable
#      shell blocks (tests/docs) and the web console driven in Chromium
#      (tests/console); Node.js and npm ci;
#   5. the libFuzzer harnesses, each for a bounded time (clang preset, ASan +
#      UBSan; docs/FUZZING.md), whose build is also the thread-safety check;
#   6. the concurrency tests again under ThreadSanitizer (tsan).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/check-format.sh
scripts/check-layers.sh
scripts/check-layers.sh --self-test

echo "== install: the minimal build, installed and used (scripts/check-install.sh)"
scripts/check-install.sh

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
jobs=${INDELIBLE_JOBS:-$(nproc)}

echo "== build and test: dev (ASan + UBSan)"
scripts/build.sh dev
ctest --test-dir build/dev -j "$jobs" --output-on-failure --timeout 900

echo "== the API description and the TypeScript client, against the dev build's server"
export INDELIBLE_BIN=$PWD/build/dev/src/cli/indelible
export INDELIBLE_LEDGER_BIN=$PWD/build/dev/examples/ledger/indelible-ledger
scripts/test-openapi.sh
scripts/test-typescript.sh
scripts/test-ledger-ts.sh
scripts/test-enrolment-ts.sh
# Every shell block of README.md and docs/*.md marked runnable, against a
# fresh server per file (tests/docs): a documented command that the program
# refuses fails here.
scripts/test-docs.sh

echo "== the web console in Chromium, against the dev build's server (tests/console)"
scripts/test-console.sh
# deploy/aws without an AWS account: type check, cdk synth under cdk-nag's
# AwsSolutions rules, the template's tests (docs/DEPLOY-AWS.md).
scripts/check-deploy-aws.sh

echo "== fuzz: every harness ${INDELIBLE_FUZZ_SECONDS:-15} s (clang, ASan + UBSan)"
scripts/fuzz.sh "${INDELIBLE_FUZZ_SECONDS:-15}"
scripts/check-thread-safety.sh  # the clang build above is the -Wthread-safety check; it can fail

echo "== build and test: tsan (concurrency tests)"
# The tsan preset passes -Wno-tsan: GCC warns that TSan cannot model the
# std::atomic_thread_fence Asio's handlers use, and -Werror would stop the
# build of the server library the conformance test links with. The fences are
# only in the server's Asio code, which these tests do not run.
scripts/build.sh tsan conformance_test entity_test projection_crash_test sync_pipeline_test \
  unit_test
TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:suppressions=$PWD/tests/tsan.supp} \
  ctest --test-dir build/tsan -j "$jobs" --output-on-failure --timeout 900 -R 'Concurren'

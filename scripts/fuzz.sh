#!/usr/bin/env bash
# Runs every libFuzzer harness of fuzz/ for a bounded time (docs/FUZZING.md):
#   scripts/fuzz.sh [SECONDS_PER_HARNESS]     (default 20)
# Configures and builds the harnesses (and what they link) in build/clang,
# the "clang" preset, with the src/ libraries they do not link: this build
# is also the thread-safety check (-Werror=thread-safety, docs/FUZZING.md),
# so it compiles every library of src/. Then runs each harness over a copy of its seed
# corpus in a temporary folder, so the repository is not modified. Fails on
# any crash, leak, timeout, out-of-memory or sanitizer report; the input is
# kept in the run's folder (printed) for docs/FUZZING.md's "add a crash".
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
harnesses=(fuzz_http_request fuzz_event_json fuzz_base64 fuzz_names_urls fuzz_embedded_format
  fuzz_dynamodb_items)

export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
if command -v ccache >/dev/null; then
  export CMAKE_C_COMPILER_LAUNCHER=${CMAKE_C_COMPILER_LAUNCHER:-ccache}
  export CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}
fi
# Configured every time (seconds), so a build folder from before a change of
# the preset's flags gets them: -Werror=thread-safety above all.
cmake --preset clang >/dev/null
# The harnesses link core, storage, subscriptions, dynamodb and server;
# the other libraries are compiled only (no link, no extra executable).
cmake --build build/clang -j "${INDELIBLE_JOBS:-$(nproc)}" --target fuzzers indelible_projections indelible_relay \
  indelible_entities indelible_client indelible_cli_base

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
work=$(mktemp -d /tmp/indelible-fuzz.XXXXXX)
failed=()
for h in "${harnesses[@]}"; do
  name=${h#fuzz_}
  mkdir -p "$work/$name/corpus" "$work/$name/artifacts"
  cp fuzz/corpus/"$name"/* "$work/$name/corpus/"
  status=0
  build/clang/fuzz/"$h" "$work/$name/corpus" -max_total_time="$seconds" -rss_limit_mb=2048 \
    -timeout=10 -print_final_stats=1 -artifact_prefix="$work/$name/artifacts/" \
    >"$work/$name/log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$name/log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/$name/log" | tail -1)
  if [[ $status -ne 0 ]] || grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' \
    "$work/$name/log"; then
    failed+=("$name")
    printf '%-18s FAILED (exit %s) after %s runs: %s\n' "$name" "$status" "${runs:-?}" \
      "$work/$name/log"
    # "terminate called" and what(): an exception out of the harness, which
    # libFuzzer reports only as a deadly signal.
    grep -E 'ERROR:|runtime error:|invariant failed|terminate called|what\(\):|SUMMARY:|Test unit written' \
      "$work/$name/log" |
      head -8 | sed 's/^/    /'
  else
    printf '%-18s ok: %s runs in %ss (%s/s), corpus %s -> %s inputs\n' "$name" "${runs:-?}" \
      "$seconds" "${rate:-?}" "$(ls fuzz/corpus/"$name" | wc -l)" "$(ls "$work/$name/corpus" | wc -l)"
  fi
done
if [[ ${#failed[@]} -ne 0 ]]; then
  echo "fuzz: ${#failed[@]} harness(es) failed: ${failed[*]} (logs and inputs in $work)"
  exit 1
fi
rm -rf "$work"
echo "fuzz: all ${#harnesses[@]} harnesses ran ${seconds}s each without a report"

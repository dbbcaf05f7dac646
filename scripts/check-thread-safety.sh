#!/usr/bin/env bash
# Proof that the thread-safety check of the clang build can fail: compiles
# tests/thread_safety/violation.cc with the clang preset's -Wthread-safety
# -Werror and requires clang to reject each planted violation (a guarded
# member read, a REQUIRES function called, a CondVar wait, all without the
# lock), then requires the same file with the lock taken (-DLOCKED) to
# compile. Syntax only: a second or two, no build directory.
set -euo pipefail
cd "$(dirname "$0")/.."
file=tests/thread_safety/violation.cc
flags=(-std=c++20 -fsyntax-only -Wthread-safety -Werror -I src)
expected=(
  "reading variable 'count_' requires holding mutex 'mu_'"
  "calling function 'BumpLocked' requires holding mutex 'mu_'"
  "calling function 'Wait' requires holding mutex 'mu_'"
)
log=$(mktemp /tmp/indelible-thread-safety.XXXXXX)
trap 'rm -f "$log"' EXIT
status=0
if clang++ "${flags[@]}" "$file" >"$log" 2>&1; then
  echo "check-thread-safety: $file compiled without the lock; the analysis is not on" >&2
  exit 1
fi
for message in "${expected[@]}"; do
  if ! grep -q "error: $message" "$log"; then
    echo "check-thread-safety: clang did not report: $message" >&2
    status=1
  fi
done
errors=$(grep -c 'error:' "$log" || true)
if [[ $errors -ne ${#expected[@]} ]]; then
  echo "check-thread-safety: expected ${#expected[@]} errors, clang reported $errors" >&2
  status=1
fi
if [[ $status -ne 0 ]]; then
  cat "$log" >&2
  exit 1
fi
if ! clang++ "${flags[@]}" -DLOCKED "$file" >"$log" 2>&1; then
  echo "check-thread-safety: $file with the lock taken does not compile:" >&2
  cat "$log" >&2
  exit 1
fi
echo "check-thread-safety: the ${#expected[@]} planted violations are errors; the locked twin compiles"

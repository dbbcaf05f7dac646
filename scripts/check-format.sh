#!/usr/bin/env bash
# Fails when a C++ file differs from what clang-format makes of it.
set -euo pipefail
cd "$(dirname "$0")/.."
files=$(git ls-files '*.h' '*.cc')
[ -z "$files" ] && exit 0
if ! clang-format --dry-run -Werror $files 2>/tmp/indelible-format.log; then
  head -40 /tmp/indelible-format.log >&2
  echo "check-format: run 'clang-format -i' on the files above" >&2
  exit 1
fi

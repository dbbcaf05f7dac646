#!/usr/bin/env bash
# check-install.sh: the library as others get it (README, "Install"). One
# release build with every integration off (INDELIBLE_WITH_NATS, _POSTGRES,
# _DYNAMODB: the minimal build, so the same run proves both), in
# build/install-check (reused; ccache), then:
#   1. its unit tests, and the CLI naming the option when asked for a
#      missing integration;
#   2. cmake --install into a temporary prefix; the installed tree holds the
#      headers, the libraries, the CMake package, indelible.pc, the command,
#      and no path into this checkout;
#   3. tests/install (a program on <indelible/store.h>) built against that
#      prefix with find_package(indelible), and run;
#   4. the same main.cc built with `pkg-config --cflags --libs indelible`,
#      and run;
#   5. cpack -G DEB: the package lists the headers, the CMake package and the
#      command, and its Depends covers every library the command loads;
#   6. add_subdirectory(indelible) from another project configures, with the
#      library and without the tests and programs (configured, not built).
# Any failure stops it with the step that failed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${INDELIBLE_INSTALL_BUILD:-build/install-check}
jobs=${INDELIBLE_JOBS:-$(nproc)}
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
  export CMAKE_C_COMPILER_LAUNCHER=${CMAKE_C_COMPILER_LAUNCHER:-ccache}
  export CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}
fi

work=$(mktemp -d /tmp/indelible-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
trap 'echo "check-install: FAILED at line $LINENO: $BASH_COMMAND" >&2' ERR
step() { echo "== check-install: $*"; }
fail() {
  echo "check-install: FAILED: $*" >&2
  exit 1
}
started=$SECONDS

step "configure and build $build (release; NATS, PostgreSQL, DynamoDB and the console off)"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DINDELIBLE_TESTS=ON \
  -DINDELIBLE_WITH_NATS=OFF -DINDELIBLE_WITH_POSTGRES=OFF -DINDELIBLE_WITH_DYNAMODB=OFF \
  -DINDELIBLE_WITH_CONSOLE=OFF \
  >"$work/configure.log" 2>&1 || {
  cat "$work/configure.log" >&2
  fail "configuring $build"
}
cmake --build "$build" -j "$jobs" --target indelible unit_test

step "unit tests"
"$build/tests/unit/unit_test" --gtest_brief=1

step "what the minimal build lacks, it names"
expect_option() {  # OPTION COMMAND...: the command fails and names -DOPTION=ON
  local option=$1 out
  shift
  if out=$("$@" 2>&1); then fail "'$*' succeeded in a build without it"; fi
  grep -q -- "-D$option=ON" <<<"$out" || fail "'$*' did not name $option: $out"
}
cli=$build/src/cli/indelible
ddb='dynamodb://127.0.0.1:9?region=x'
expect_option INDELIBLE_WITH_DYNAMODB "$cli" --data "$ddb" head s-1
expect_option INDELIBLE_WITH_DYNAMODB "$cli" --data "$ddb" rebuild-index
expect_option INDELIBLE_WITH_DYNAMODB "$cli" --data memory: import --from-eventlog "$ddb"
expect_option INDELIBLE_WITH_NATS "$cli" --data memory: relay nats --until-caught-up
expect_option INDELIBLE_WITH_NATS "$cli" bench relay --nats nats://127.0.0.1:9 --data "$work/bench"
expect_option INDELIBLE_WITH_POSTGRES "$cli" --data "file:$work/data" project \
  --read-store postgresql://u@127.0.0.1:9/db list

step "cmake --install into a temporary prefix"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
for f in include/indelible/store.h include/indelible/config.h lib/libindelible_core.a \
  lib/libindelible_storage.a lib/cmake/indelible/indelibleConfig.cmake \
  lib/cmake/indelible/indelibleConfigVersion.cmake lib/cmake/indelible/indelibleTargets.cmake \
  lib/pkgconfig/indelible.pc bin/indelible; do
  [[ -e "$prefix/$f" ]] || fail "the installed tree has no $f"
done
if grep -rl -e "$root" -e "$PWD/$build" "$prefix/lib/cmake" "$prefix/lib/pkgconfig" "$prefix/include"; then
  fail "installed files name this checkout or its build folder (above)"
fi
[[ -z "$(find "$prefix/include" -mindepth 1 -maxdepth 1 ! -name indelible)" ]] ||
  fail "the installed include/ holds more than indelible/"

step "a program built with find_package(indelible)"
cmake -S tests/install -B "$work/consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" >"$work/consumer-configure.log" 2>&1 || {
  cat "$work/consumer-configure.log" >&2
  fail "configuring tests/install against $prefix"
}
cmake --build "$work/consumer"
"$work/consumer/consumer"

step "the same program built with pkg-config"
# shellcheck disable=SC2046  # the flags are words
flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs indelible) ||
  fail "pkg-config --cflags --libs indelible"
# shellcheck disable=SC2086
${CXX:-c++} -std=c++20 -O1 tests/install/main.cc -o "$work/consumer-pc" $flags
"$work/consumer-pc"

step "cpack -G DEB"
(cd "$build" && cpack -G DEB -B "$work/deb" >"$work/cpack.log" 2>&1) || {
  cat "$work/cpack.log" >&2
  fail "cpack -G DEB"
}
deb=$(find "$work/deb" -maxdepth 1 -name '*.deb' | head -n 1)
[[ -n "$deb" ]] || fail "cpack made no .deb"
contents=$(dpkg-deb -c "$deb")
for f in ./usr/include/indelible/store.h ./usr/include/indelible/config.h \
  ./usr/lib/cmake/indelible/indelibleConfig.cmake ./usr/lib/pkgconfig/indelible.pc \
  ./usr/lib/libindelible_core.a ./usr/bin/indelible; do
  grep -q " $f\$" <<<"$contents" || fail "$(basename "$deb") has no $f"
done
depends=$(dpkg-deb -f "$deb" Depends)
# One package name a line, without version constraints.
depends_names=$(tr ',' '\n' <<<"$depends" | sed -e 's/^ *//' -e 's/ .*//')
# Every shared library the command loads comes from a package in Depends.
for lib in $(ldd "$cli" | awk '$3 ~ /^\// {print $3}'); do
  package=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null || dpkg -S "$lib" 2>/dev/null) ||
    fail "no Debian package holds $lib"
  package=${package%%:*}
  grep -Fxq "$package" <<<"$depends_names" ||
    fail "$(basename "$deb"): the command loads $lib of $package, not in Depends: $depends"
done
step "add_subdirectory(indelible) in another project (configure only)"
mkdir -p "$work/parent"
cat >"$work/parent/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.25)
project(parent LANGUAGES CXX)
add_subdirectory("$root" indelible)
add_executable(consumer "$root/tests/install/main.cc")
target_link_libraries(consumer PRIVATE indelible::indelible)
EOF
cmake -S "$work/parent" -B "$work/parent/build" -G Ninja -DINDELIBLE_WITH_NATS=OFF \
  -DINDELIBLE_WITH_POSTGRES=OFF -DINDELIBLE_WITH_DYNAMODB=OFF >"$work/parent.log" 2>&1 || {
  cat "$work/parent.log" >&2
  fail "configuring a project that adds indelible with add_subdirectory"
}
targets=$(ninja -C "$work/parent/build" -t targets all)
grep -q '^consumer:' <<<"$targets" || fail "add_subdirectory: no consumer target"
if grep -Eq '^indelible/(tests/unit/unit_test|src/cli/indelible|examples/todo/indelible-todo):' \
  <<<"$targets"; then
  fail "add_subdirectory: the tests or programs are built by default"
fi

echo "check-install: ok ($(basename "$deb"), $((SECONDS - started)) s)"

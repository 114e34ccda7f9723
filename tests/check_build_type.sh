#!/bin/sh
# SPDX-License-Identifier: MIT
# A plain configure (no CMAKE_BUILD_TYPE, a single-config generator) builds
# optimised: the top-level CMakeLists.txt chooses RelWithDebInfo, whose C
# flags carry -O2, and warnings stay warnings (SOFTPMU_WERROR off).
#   check_build_type.sh SOURCE_DIR [GENERATOR]
set -eu
src=$1
gen=${2:-Unix Makefiles}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
  echo "check_build_type: $*" >&2
  exit 1
}

cmake -S "$src" -B "$tmp" -G "$gen" -DSOFTPMU_TESTS=OFF \
  -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >"$tmp/configure.log" 2>&1 ||
  { cat "$tmp/configure.log" >&2; fail "the plain configure failed"; }
grep -q "No build type given: using RelWithDebInfo" "$tmp/configure.log" ||
  fail "the configure did not say which build type it chose"
type=$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$tmp/CMakeCache.txt")
[ "$type" = RelWithDebInfo ] ||
  fail "CMAKE_BUILD_TYPE is '$type', expected RelWithDebInfo"
werror=$(sed -n 's/^SOFTPMU_WERROR:BOOL=//p' "$tmp/CMakeCache.txt")
[ "$werror" = OFF ] || fail "SOFTPMU_WERROR is '$werror', expected OFF"
# The model's compile command (src/core/core.c) carries -O2.
line=$(grep '"command".*src/core/core\.c' "$tmp/compile_commands.json" | head -n 1)
[ -n "$line" ] || fail "no compile command for src/core/core.c"
case " $line " in
*" -O2 "*) ;;
*) fail "src/core/core.c is compiled without -O2: $line" ;;
esac
# A type given on the command line is kept.
cmake -S "$src" -B "$tmp/debug" -G "$gen" -DSOFTPMU_TESTS=OFF \
  -DCMAKE_BUILD_TYPE=Debug >"$tmp/debug.log" 2>&1 ||
  { cat "$tmp/debug.log" >&2; fail "the Debug configure failed"; }
type=$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$tmp/debug/CMakeCache.txt")
[ "$type" = Debug ] || fail "CMAKE_BUILD_TYPE is '$type' with Debug given"
echo "check_build_type: a plain configure is RelWithDebInfo (-O2)"

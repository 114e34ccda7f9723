#!/bin/sh
# SPDX-License-Identifier: MIT
# Install softpmu into a scratch prefix, move the prefix (the installed
# files must be relocatable), and build programs against it the ways C
# users do: pkg-config softpmu / softpmu-agent, and CMake's
# find_package(softpmu) with softpmu::softpmu / softpmu::agent; each
# linked shared and static. Each program checks the version its header,
# its library and its build system report are the same.
# With SOFTPMU and PREFIX (the command and CMAKE_INSTALL_PREFIX), also
# every installed file the command's manuals name must be installed.
#   check_install.sh BUILD_DIR SOURCE_DIR PROJECT_VERSION [SOFTPMU PREFIX]
set -eu
build=$1
src=$2
version=$3
softpmu=${4:-}
configured=${5:-}
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
  echo "check_install: $*" >&2
  exit 1
}
# needs BINARY LIB: the program loads libLIB.so at run time.
needs() { readelf -d "$1" | grep -q "NEEDED.*\[lib$2\.so"; }

cmake --install "$build" --prefix "$tmp/staged" >/dev/null
mv "$tmp/staged" "$tmp/prefix"
prefix=$tmp/prefix
pcdir=$(dirname "$(find "$prefix" -name softpmu.pc | head -n 1)")
libdir=$(dirname "$pcdir")
export PKG_CONFIG_PATH="$pcdir"

# ---- pkg-config ---------------------------------------------------------------
for pc in softpmu softpmu-agent; do
  v=$(pkg-config --modversion $pc)
  [ "$v" = "$version" ] || fail "pkg-config $pc: version $v, project $version"
done
pcprefix=$(pkg-config --variable=prefix softpmu)
[ "$(cd "$pcprefix" && pwd -P)" = "$(cd "$prefix" && pwd -P)" ] ||
  fail "softpmu.pc: prefix $pcprefix, installed at $prefix"

# build_pc NAME SOURCE MODULE shared|static
build_pc() {
  out=$tmp/pc_$1_$4
  if [ "$4" = shared ]; then
    # shellcheck disable=SC2046
    $cc -std=c11 -Wall -Wextra -Werror -o "$out" "$2" \
      $(pkg-config --cflags --libs "$3") -Wl,-rpath,"$libdir"
  else
    # shellcheck disable=SC2046
    $cc -std=c11 -Wall -Wextra -Werror -o "$out" "$2" \
      $(pkg-config --cflags --libs-only-L "$3") \
      -Wl,-Bstatic $(pkg-config --static --libs-only-l "$3") -Wl,-Bdynamic
  fi
}
for kind in shared static; do
  build_pc model "$src/tests/install/model.c" softpmu $kind
  build_pc agent "$src/tests/install/agent.c" softpmu-agent $kind
done
build_pc demo "$src/examples/demo.c" softpmu shared
for kind in shared static; do
  "$tmp/pc_model_$kind" "$version" >/dev/null || fail "pkg-config model $kind"
  "$tmp/pc_agent_$kind" "$version" >/dev/null || fail "pkg-config agent $kind"
done
"$tmp/pc_demo_shared" core2 | grep -q "probe passed" || fail "demo"
needs "$tmp/pc_model_shared" softpmu || fail "model not linked shared"
needs "$tmp/pc_agent_shared" softpmu-agent || fail "agent not linked shared"
for p in "$tmp/pc_model_static" "$tmp/pc_agent_static"; do
  if needs "$p" softpmu || needs "$p" softpmu-agent; then
    fail "$p: linked shared"
  fi
done

# ---- CMake find_package -----------------------------------------------------
want=$(echo "$version" | cut -d. -f1-2)
# consumer DIR [cmake args]: configure and build tests/install/.
consumer() {
  dir=$1
  shift
  cmake -S "$src/tests/install" -B "$dir" -DCMAKE_PREFIX_PATH="$prefix" \
    -DSPMU_WANT="$want" "$@" >"$tmp/cmake.log" 2>&1 &&
    cmake --build "$dir" >>"$tmp/cmake.log" 2>&1
}
consumer "$tmp/cm_shared" || { cat "$tmp/cmake.log"; fail "find_package, shared"; }
consumer "$tmp/cm_static" -DSOFTPMU_USE_STATIC_LIBS=ON ||
  { cat "$tmp/cmake.log"; fail "find_package, static"; }
for kind in shared static; do
  v=$(cat "$tmp/cm_$kind/found_version")
  [ "$v" = "$version" ] || fail "find_package: version $v, project $version"
  "$tmp/cm_$kind/consumer_model" "$v" >/dev/null || fail "find_package model $kind"
  "$tmp/cm_$kind/consumer_agent" "$v" >/dev/null || fail "find_package agent $kind"
done
needs "$tmp/cm_shared/consumer_model" softpmu || fail "softpmu::softpmu not shared"
needs "$tmp/cm_shared/consumer_agent" softpmu-agent || fail "softpmu::agent not shared"
for p in "$tmp/cm_static/consumer_model" "$tmp/cm_static/consumer_agent"; do
  if needs "$p" softpmu || needs "$p" softpmu-agent; then
    fail "$p: linked shared with SOFTPMU_USE_STATIC_LIBS"
  fi
done
# Another major is not compatible (SameMajorVersion); an earlier minor of
# the same major is.
major=$(echo "$version" | cut -d. -f1)
if cmake -S "$src/tests/install" -B "$tmp/cm_next" -DCMAKE_PREFIX_PATH="$prefix" \
    -DSPMU_WANT="$((major + 1)).0" >/dev/null 2>&1; then
  fail "find_package(softpmu $((major + 1)).0) accepted $version"
fi
cmake -S "$src/tests/install" -B "$tmp/cm_same" -DCMAKE_PREFIX_PATH="$prefix" \
  -DSPMU_WANT="$major.0" >/dev/null 2>&1 ||
  fail "find_package(softpmu $major.0) refused $version"
[ -e "$prefix/lib/libsoftpmu.so.$major" ] || [ -e "$prefix/lib64/libsoftpmu.so.$major" ] ||
  [ -n "$(find "$prefix" -name "libsoftpmu.so.$major")" ] ||
  fail "no libsoftpmu.so.$major (SONAME is the major version)"
# ---- the manuals name installed files -----------------------------------
if [ -n "$softpmu" ]; then
  for cmd in "" decode encode cpuid msrs run show stat record report; do
    # shellcheck disable=SC2086
    "$softpmu" help $cmd
  done | grep -o "$configured/[A-Za-z0-9_./-]*" | sed 's/[.]*$//' | sort -u |
    while read -r path; do
      [ -e "$prefix/${path#"$configured"/}" ] ||
        fail "the manuals name $path, which is not installed"
    done
fi
echo "installed softpmu $version: pkg-config and find_package, model and agent, shared and static"

#!/bin/sh
# Install softpmu into a scratch prefix and build a program against it the
# way an emulator would: pkg-config --cflags --libs softpmu.
set -eu
build=$1
src=$2
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
pcdir=$(dirname "$(find "$prefix" -name softpmu.pc | head -n 1)")
libdir=$(dirname "$pcdir")
export PKG_CONFIG_PATH="$pcdir"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror -o "$prefix/demo" "$src/examples/demo.c" \
  $(pkg-config --cflags --libs softpmu) -Wl,-rpath,"$libdir"
"$prefix/demo" core2 | grep -q "probe passed"
echo "installed softpmu builds and runs via pkg-config"

#!/bin/sh
# SPDX-License-Identifier: MIT
# The Debian symbols file (debian/libsoftpmu0.symbols) lists exactly the
# symbols the shared libraries export, so a function added to the public
# API is added there in the same change (a missing one makes
# dpkg-gensymbols add it with the Debian revision, which lintian refuses;
# a removed one fails the package build, as the ABI policy wants).
#   check_symbols.sh SYMBOLS LIBSOFTPMU.so LIBSOFTPMU-AGENT.so
SYMBOLS=$1 MODEL=$2 AGENT=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0
# check SONAME LIBRARY: the file's section for SONAME against nm's list.
check() {
  awk -v so="$1" '/^[^ *]/ { on = ($1 == so) } on && /^ / { sub(/@.*/, "", $1); print $1 }' \
    "$SYMBOLS" | LC_ALL=C sort >"$tmp/listed"
  nm -D --defined-only "$2" | awk '$2 ~ /^[TDBR]$/ { print $3 }' |
    LC_ALL=C sort >"$tmp/exported"
  if ! cmp -s "$tmp/listed" "$tmp/exported"; then
    echo "FAIL: $1: debian/libsoftpmu0.symbols and the library differ" \
      "(< listed only, > exported only):"
    diff "$tmp/listed" "$tmp/exported" | grep '^[<>]'
    status=1
  else
    echo "ok: $1: $(wc -l <"$tmp/exported") symbols, each listed"
  fi
}
check libsoftpmu.so.0 "$MODEL"
check libsoftpmu-agent.so.0 "$AGENT"
exit $status

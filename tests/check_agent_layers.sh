#!/bin/sh
# SPDX-License-Identifier: MIT
# The agent's files call only down (src/agent/internal.h): msr (0) <
# program (1) < share, pmi (2) < agent (3). For every object of the agent,
# each external symbol it uses that another agent object defines must come
# from a lower layer; a call up or sideways fails the test.
# Usage: check_agent_layers.sh OBJECT...   (the library's object files; a
# CMake list, separated by ';', is taken too). Only src/agent/ counts.
set -eu
rank() {
  case "$1" in
  msr) echo 0 ;; program) echo 1 ;; share | pmi) echo 2 ;; agent) echo 3 ;;
  *) echo "" ;;
  esac
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for o in $(printf '%s\n' "$@" | tr ';' '\n'); do
  case "$o" in */src/agent/*) ;; *) continue ;; esac
  f=$(basename "$o" | sed 's/\.c\.o$//; s/\.o$//')
  [ -n "$(rank "$f")" ] || continue
  nm --defined-only "$o" | awk '$2 == "T" { print $3 }' >"$tmp/$f.def"
  nm -u "$o" | awk '{ print $2 }' >"$tmp/$f.use"
done
bad=0
edges=0
for use in "$tmp"/*.use; do
  f=$(basename "$use" .use)
  for def in "$tmp"/*.def; do
    g=$(basename "$def" .def)
    [ "$f" = "$g" ] && continue
    for s in $(grep -Fxf "$def" "$use" || true); do
      edges=$((edges + 1))
      if [ "$(rank "$g")" -ge "$(rank "$f")" ]; then
        echo "agent layering: $f.c calls $s in $g.c (not a lower layer)"
        bad=1
      fi
    done
  done
done
[ "$edges" -gt 0 ] || { echo "agent layering: no agent objects given"; exit 1; }
[ "$bad" -eq 0 ] && echo "agent layering: $edges calls between files, all down"
exit "$bad"

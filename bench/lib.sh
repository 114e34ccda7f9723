# SPDX-License-Identifier: MIT
# Shared by the bench/ scripts (sourced): best SECONDS of $reps runs of a
# command, its output discarded.
best() {
  b=""
  i=0
  while [ "$i" -lt "$reps" ]; do
    s=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    e=$(date +%s.%N)
    t=$(awk -v e="$e" -v s="$s" 'BEGIN { printf "%.6f", e - s }')
    if [ -z "$b" ] || awk -v t="$t" -v b="$b" 'BEGIN { exit !(t < b) }'; then
      b=$t
    fi
    i=$((i + 1))
  done
  echo "$b"
}

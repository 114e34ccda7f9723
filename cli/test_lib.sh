# SPDX-License-Identifier: MIT
# Helpers of the command-line tests (test_cli.sh, test_run.sh), sourced
# after SOFTPMU is set: run the tool, compare its output exactly, count
# checks and failures. The sourcing script ends with `finish`.
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
# The user's cache, where scripts/qemu-user builds (need_qemu), before
# HOME is the test's own.
user_cache=${XDG_CACHE_HOME:-$HOME/.cache}
# record adds the files it samples to perf's build-id cache, $HOME/.debug,
# as perf record does: a HOME of the test's own keeps the user's clean.
HOME=$tmp/home
mkdir "$HOME" || exit 2
export HOME
failures=0
checks=0

# find_qemu: put a qemu-x86_64 that loads plugins first on PATH; status 1
# when there is none. The rule softpmu stat and record follow
# (perf/qemu_run.c): PATH's unless it cannot load plugins (a static build,
# Debian 13's: QEMU refuses -plugin there), then the one scripts/qemu-user
# built in the user's cache, 10.0 before 7.2.
find_qemu() {
  if command -v qemu-x86_64 >/dev/null 2>&1 &&
    qemu-x86_64 -plugin /dev/null --version >/dev/null 2>&1; then
    return 0
  fi
  for v in 10.0 7.2; do
    if [ -x "$user_cache/softpmu/qemu-user-$v/build/qemu-x86_64" ]; then
      PATH="$user_cache/softpmu/qemu-user-$v/build:$PATH"
      export PATH
      return 0
    fi
  done
  return 1
}

# need_qemu: the tests that run programs under qemu-x86_64 skip (77, said
# why) without one that loads plugins (find_qemu), or fail with
# SOFTPMU_REQUIRE_QEMU=1.
need_qemu() {
  find_qemu && return 0
  echo "no qemu-x86_64 that loads plugins (apt-get install qemu-user, or scripts/qemu-user): skipped"
  [ "${SOFTPMU_REQUIRE_QEMU:-0}" = 1 ] && exit 1
  exit 77
}

# build NAME DEFINES...: assemble the freestanding test program
# $SRC/NAME.S with $CC into $tmp/NAME.
build() {
  name=$1
  shift
  "$CC" -nostdlib -static "$@" -o "$tmp/$name" "$SRC/$name.S" ||
    fail "$name: does not assemble"
}

# run ARGS...: run the tool; the results are in $rc, $tmp/out, $tmp/err.
run() {
  "$SOFTPMU" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
}

fail() {
  printf 'FAIL: %s\n' "$*"
  failures=$((failures + 1))
}

# same FILE TEXT: FILE holds exactly TEXT and a newline (nothing if TEXT is
# empty); else show the difference.
same() {
  if [ -z "$2" ]; then
    [ ! -s "$1" ] && return 0
    : >"$tmp/want"
  else
    printf '%s\n' "$2" >"$tmp/want"
    cmp -s "$tmp/want" "$1" && return 0
  fi
  diff -u "$tmp/want" "$1" | sed 's/^/    /'
  return 1
}

# expect NAME STATUS STDOUT STDERR: the last run gave exactly these.
expect() {
  checks=$((checks + 1))
  [ "$rc" = "$2" ] || fail "$1: exit status $rc, expected $2"
  same "$tmp/out" "$3" || fail "$1: standard output differs (above)"
  same "$tmp/err" "$4" || fail "$1: standard error differs (above)"
}

# expect_lines NAME COUNT: the last run succeeded with COUNT output lines.
expect_lines() {
  checks=$((checks + 1))
  n=$(wc -l <"$tmp/out")
  [ "$rc" = 0 ] || fail "$1: exit status $rc, expected 0"
  [ "$n" -eq "$2" ] || fail "$1: $n lines, expected $2"
  same "$tmp/err" "" || fail "$1: standard error is not empty"
}

# expect_manual NAME: the last run printed a manual with every section.
expect_manual() {
  checks=$((checks + 1))
  [ "$rc" = 0 ] || fail "$1: exit status $rc, expected 0"
  for section in NAME SYNOPSIS DESCRIPTION OPTIONS 'EXIT STATUS' EXAMPLES; do
    grep -qx "$section" "$tmp/out" || fail "$1: no $section section"
  done
  [ "$(head -n 1 "$tmp/out")" = NAME ] || fail "$1: does not start with NAME"
  same "$tmp/err" "" || fail "$1: standard error is not empty"
}

# put FILE OFFSET VALUE: VALUE (0x and up to 16 hex digits) as 8
# little-endian bytes at byte OFFSET of FILE (the layout of /dev/cpu/N/msr,
# and of /dev/cpu/N/cpuid's registers, for softpmu show's --msr-file and
# --cpuid-file).
put() {
  bytes=$(printf '%s\n' "$3" | awk '{
    h = tolower($1); sub(/^0x/, "", h)
    while (length(h) < 16) h = "0" h
    s = ""
    for (i = 15; i >= 1; i -= 2)
      s = s sprintf("\\%03o", (index("0123456789abcdef", substr(h, i, 1)) - 1) * 16 + index("0123456789abcdef", substr(h, i + 1, 1)) - 1)
    print s
  }')
  # shellcheck disable=SC2059 # the bytes are octal escapes
  printf "$bytes" | dd of="$1" bs=1 seek=$(($2)) conv=notrunc 2>/dev/null
}

# finish: the summary line; the exit status of the whole test.
finish() {
  printf '%d checks, %d failed\n' "$checks" "$failures"
  [ "$failures" -eq 0 ]
}

# wait_for FILE: until FILE is not empty, at most 10 s (a program under
# test writes it once it runs).
wait_for() {
  i=0
  while [ ! -s "$1" ] && [ $i -lt 100 ]; do
    sleep 0.1
    i=$((i + 1))
  done
}

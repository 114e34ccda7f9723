# Helpers of the command-line tests (test_cli.sh, test_run.sh), sourced
# after SOFTPMU is set: run the tool, compare its output exactly, count
# checks and failures. The sourcing script ends with `finish`.
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
failures=0
checks=0

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

# finish: the summary line; the exit status of the whole test.
finish() {
  printf '%d checks, %d failed\n' "$checks" "$failures"
  [ "$failures" -eq 0 ]
}

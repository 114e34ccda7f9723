#!/bin/sh
# SPDX-License-Identifier: MIT
# How softpmu record and stat treat the program's run as perf does: a
# SIGINT sent to the command's pid alone (not its process group) stops
# record's program with SIGTERM, then perf.data is written and the
# program's status reported (perf record's __cmd_record kills the
# workload with SIGTERM once interrupted); stat ignores it while the
# program runs (perf stat). Across an execve, perf.data has what Linux
# gives perf record: the COMM with the exec flag, and one EXIT for the
# process, when it finally ends, a signal's end included (read back with
# perf script, skipped without perf unless SOFTPMU_REQUIRE_PERF=1).
#   test_record_run.sh SOFTPMU PLUGIN
# Skipped (77) without qemu-x86_64, unless SOFTPMU_REQUIRE_QEMU=1.
SOFTPMU=$1 PLUGIN=$2
. "$(dirname "$0")/../../cli/test_lib.sh"
need_qemu
export SOFTPMU_QEMU_PLUGIN="$PLUGIN"

# A program that says it runs ($tmp/up), then waits for $tmp/go (at most
# 30 s); exit status 7 when it was let go.
cat >"$tmp/waiter" <<WAITER
#!/bin/sh
echo up >"$tmp/up"
i=0
while [ ! -e "$tmp/go" ] && [ \$i -lt 600 ]; do sleep 0.05; i=\$((i + 1)); done
exit 7
WAITER
chmod +x "$tmp/waiter"

# record: SIGINT to softpmu alone; the program is stopped by SIGTERM
# (128 + 15), its samples written.
rm -f "$tmp/up" "$tmp/go"
"$SOFTPMU" record -o "$tmp/int.data" -- "$tmp/waiter" >"$tmp/out" 2>"$tmp/err" &
pid=$!
wait_for "$tmp/up"
kill -INT $pid
wait $pid
rc=$?
touch "$tmp/go"
checks=$((checks + 1))
[ "$rc" = 143 ] || fail "record, SIGINT: status $rc, expected 143"
sed -n '1s/wrote [0-9]* samples/wrote N samples/p' "$tmp/err" >"$tmp/err1"
same "$tmp/err1" "[ softpmu record: wrote N samples to $tmp/int.data ]" ||
  fail "record, SIGINT: the file is not written (above)"
sed -n '2,$p' "$tmp/err" >"$tmp/err2"
same "$tmp/err2" "softpmu: record: the program was killed by signal 15 (Terminated)" ||
  fail "record, SIGINT: the status is not reported (above)"
checks=$((checks + 1))
"$SOFTPMU" report -i "$tmp/int.data" >/dev/null 2>&1 ||
  fail "record, SIGINT: softpmu report cannot read the file"

# stat: the same SIGINT is ignored; the program runs to its end (let go
# after the signal) and its status and counts are given.
rm -f "$tmp/up" "$tmp/go"
"$SOFTPMU" stat -x , -e instructions -- "$tmp/waiter" >"$tmp/out" 2>"$tmp/err" &
pid=$!
wait_for "$tmp/up"
kill -INT $pid
sleep 0.3
touch "$tmp/go"
wait $pid
rc=$?
checks=$((checks + 1))
[ "$rc" = 7 ] || fail "stat, SIGINT: status $rc, expected 7 (the program's)"
grep -q '^[1-9][0-9]*,,instructions,' "$tmp/err" ||
  fail "stat, SIGINT: no count: $(cat "$tmp/err")"

# task_events FILE: perf script's task events of FILE, without times,
# every number of two digits or more (a pid) as P.
task_events() {
  perf script -i "$1" --show-task-events 2>/dev/null | grep PERF_RECORD_ |
    sed -E 's/^ *//; s/ +[0-9]+\.[0-9]+: / /; s/[0-9]{2,}/P/g; s/ +/ /g'
}

if command -v perf >/dev/null 2>&1 && perf version >/dev/null 2>&1; then
  # A program that execs one killed by a signal (QEMU 7.2 calls no exit
  # callback then): the EXIT at the end, at the last sample's time.
  printf '#!/bin/sh\nkill -TERM $$\n' >"$tmp/suicide"
  printf '#!/bin/sh\nexec "%s"\n' "$tmp/suicide" >"$tmp/execer"
  printf '#!/bin/sh\n"%s"\nexit 0\n' "$tmp/execer" >"$tmp/parent"
  chmod +x "$tmp/suicide" "$tmp/execer" "$tmp/parent"
  run record -o "$tmp/exec.data" -- "$tmp/execer"
  checks=$((checks + 1))
  [ "$rc" = 143 ] || fail "exec then killed: status $rc, expected 143"
  task_events "$tmp/exec.data" >"$tmp/tasks"
  same "$tmp/tasks" "execer P PERF_RECORD_COMM: execer:P/P
suicide P PERF_RECORD_COMM exec: suicide:P/P
suicide P PERF_RECORD_EXIT(P:P):(0:0)" || fail "exec then killed: task events (above)"
  checks=$((checks + 1))
  last=$(perf script -i "$tmp/exec.data" -F time 2>/dev/null | tail -n 1 |
    tr -d ' :')
  exit_at=$(perf script -i "$tmp/exec.data" --show-task-events -F time \
    2>/dev/null | grep EXIT | sed -E 's/^ *([0-9.]+):.*/\1/')
  # QEMU 9 and later call the exit callback before the signal ends the
  # program (frontends/qemu/tests/test_qemu10.sh): the plugin's own EXIT,
  # at the thread's time, which is the last sample's or later.
  major=$(qemu-x86_64 --version | sed -n '1s/.*version \([0-9]*\)\..*/\1/p')
  if [ "${major:-0}" -ge 9 ]; then
    awk -v e="$exit_at" -v l="$last" 'BEGIN { exit !(e != "" && e + 0 >= l + 0) }' ||
      fail "exec then killed: EXIT at '$exit_at', before the last sample at '$last'"
  else
    [ "$exit_at" = "$last" ] ||
      fail "exec then killed: EXIT at '$exit_at', last sample at '$last'"
  fi

  # The same in a forked child (two execs: the script, then the one it
  # execs): its FORK, COMM, each COMM exec, its EXIT (its parent's pid),
  # then the parent's.
  run record -o "$tmp/child.data" -- "$tmp/parent"
  checks=$((checks + 1))
  [ "$rc" = 0 ] || fail "child exec then killed: status $rc"
  task_events "$tmp/child.data" >"$tmp/tasks"
  same "$tmp/tasks" "parent P PERF_RECORD_COMM: parent:P/P
parent P PERF_RECORD_FORK(P:P):(P:P)
parent P PERF_RECORD_COMM: parent:P/P
execer P PERF_RECORD_COMM exec: execer:P/P
suicide P PERF_RECORD_COMM exec: suicide:P/P
suicide P PERF_RECORD_EXIT(P:P):(P:P)
parent P PERF_RECORD_EXIT(P:P):(0:0)" ||
    fail "child exec then killed: task events (above)"
elif [ "${SOFTPMU_REQUIRE_PERF:-0}" = 1 ]; then
  fail "perf not found: the exec checks need it (SOFTPMU_REQUIRE_PERF=1)"
fi

finish

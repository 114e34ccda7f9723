#!/bin/sh
# SPDX-License-Identifier: MIT
# How softpmu record and stat treat the program's run as perf does: a
# SIGINT sent to the command's pid alone (not its process group) stops
# record's program with SIGTERM, then perf.data is written and the
# program's status reported (perf record's __cmd_record kills the
# workload with SIGTERM once interrupted); stat ignores it while the
# program runs (perf stat).
#   test_record_run.sh SOFTPMU PLUGIN
# Skipped (77) without qemu-x86_64, unless SOFTPMU_REQUIRE_QEMU=1.
SOFTPMU=$1 PLUGIN=$2
if ! command -v qemu-x86_64 >/dev/null 2>&1; then
  echo "qemu-x86_64 not found (apt-get install qemu-user): skipped"
  [ "${SOFTPMU_REQUIRE_QEMU:-0}" = 1 ] && exit 1
  exit 77
fi
. "$(dirname "$0")/../../cli/test_lib.sh"
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
grep -q '^[0-9]*,,instructions,' "$tmp/err" ||
  fail "stat, SIGINT: no count: $(cat "$tmp/err")"

finish

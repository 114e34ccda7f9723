#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# softpmu stat through the QEMU plugin: freestanding programs whose counts
# are known by construction (the .S files here say how), run twice each;
# every count must equal its analytic value, and both runs must agree.
#   test_stat.sh CC SOFTPMU PLUGIN SRCDIR PLUGIN_COUNT7
# PLUGIN_COUNT7 hands its execution counts to the model every 7 executions:
# every check runs with it too.
# Skipped (77) when qemu-x86_64 is missing, unless SOFTPMU_REQUIRE_QEMU=1
# (scripts/check), when it fails.
CC=$1 SOFTPMU=$2 PLUGIN=$3 SRC=$4 PLUGIN7=$5
. "$(dirname "$0")/../../../cli/test_lib.sh"
need_qemu
export SOFTPMU_QEMU_PLUGIN="$PLUGIN"

EVENTS=instructions,branches,r01c4,r02c4,r08c4,r20c4,r40c4,r81d0,r82d0
EVENTS_INLINE=instructions,branches,r01c4,r02c4,r08c4,r40c4,r81d0,r82d0

# build NAME DEFINES...: a static program without libc.
# counts NAME: run it; $rc, and in $got "instructions=N branches=N ..."
# from softpmu stat's output.
counts() {
  "$SOFTPMU" stat -e "$EVENTS" -- "$tmp/$1" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  got=$(awk 'NF == 2 && $1 ~ /^[0-9,]+$/ {
    gsub(",", "", $1); printf "%s=%s ", $2, $1 }' "$tmp/err")
}

# check NAME WHAT INST BR COND CALL RET TAKEN FAR LOADS STORES
check() {
  name=$1 what=$2
  shift 2
  want="instructions=$1 branches=$2 r01c4=$3 r02c4=$4 r08c4=$5 r20c4=$6 r40c4=$7 r81d0=$8 r82d0=$9 "
  for run in 1 2 count7; do
    checks=$((checks + 1))
    [ $run = count7 ] && export SOFTPMU_QEMU_PLUGIN="$PLUGIN7"
    counts "$name"
    export SOFTPMU_QEMU_PLUGIN="$PLUGIN"
    [ "$rc" = 0 ] || fail "$name ($what), run $run: exit status $rc"
    [ "$got" = "$want" ] ||
      fail "$name ($what), run $run: got '$got', want '$want'"
  done
  # Without NEAR_TAKEN (r20c4) the plugin counts by inline adds alone
  # (README.md, "Speed"): the same counts.
  checks=$((checks + 1))
  want_inline=$(echo "$want" | sed 's/r20c4=[0-9]* //')
  EVENTS=$EVENTS_INLINE counts "$name"
  [ "$rc" = 0 ] || fail "$name ($what), inline: exit status $rc"
  [ "$got" = "$want_inline" ] ||
    fail "$name ($what), inline: got '$got', want '$want_inline'"
}

# Every near branch kind, loads and stores (hidden stack operands too).
# Taken per iteration: 2 calls, 2 returns, JMP, JE; JNZ all but once.
N=1000
build branches -DN=$N
check branches "branch kinds, loads, stores" \
  $((3 + 17 * N + 3)) $((8 * N + 1)) $((3 * N)) $((2 * N)) $((2 * N)) \
  $((6 * N + N - 1)) 1 $((4 * N)) $((4 * N))

# Loads and stores by direction: SIMD stores, TEST m,r (a load), LEA and
# NOP (no access).
N=1000
build mem -DN=$N
check mem "load and store directions" \
  $((2 + 9 * N + 3)) $((N + 1)) $N 0 0 $((N - 1)) 1 $((3 * N)) $((3 * N))

# REP STOSB and REP MOVSB of L bytes retire once each (SDM Vol. 2B, REP),
# however QEMU repeats them.
N=100 L=1000
build rep -DN=$N -DL=$L
check rep "REP string instructions retire once" \
  $((1 + 9 * N + 3)) $((N + 1)) $N 0 0 $((N - 1)) 1 $N $((2 * N))

# An instruction across a page end is counted once, in the block that
# executes it.
N=1000
build pagecross -DN=$N
check pagecross "an instruction across a page end" \
  $((1 + 1 + 4 * N + 3)) $((N + 2)) $N 0 0 $N 1 0 0

# A forked child's counts are added to its parent's.
P=300 C=500
build fork -DP=$P -DC=$C
check fork "a forked child's counts added" \
  $((14 + 2 * P + 6 + 2 * C)) $((P + C + 6)) $((P + C + 2)) 0 0 \
  $((P - 1 + 1 + C - 1)) 4 0 0

# Each thread its own model core; the counts are summed over threads.
T=3 M=1000 W=2000
build threads -DT=$T -DM=$M -DW=$W
check threads "threads summed" \
  $((5 + 11 * T + 2 * M + T * (6 + 2 * W))) $((3 * T + M + 1 + T * (W + 2))) \
  $((2 * T + M + T * (1 + W))) 0 0 $((T + M - 2 + T * W)) $((2 * T + 1)) 0 0
checks=$((checks + 1))
rm -f "$tmp/r"
qemu-x86_64 -plugin "$PLUGIN,out=$tmp/r,event=4300c0" "$tmp/threads" ||
  fail "threads: qemu-x86_64 failed"
grep -q "^softpmu-qemu 2 pid=[0-9]* threads=$((T + 1)) status=0 counting=inline,callback$" "$tmp/r" ||
  fail "threads: the results block names $((T + 1)) threads, counted inline until the second"
# One thread, no NEAR_TAKEN: inline adds from start to end; NEAR_TAKEN: a
# callback per block.
for ev in 4300c0:inline 4320c4:callback; do
  checks=$((checks + 1))
  rm -f "$tmp/r"
  qemu-x86_64 -plugin "$PLUGIN,out=$tmp/r,event=${ev%:*}" "$tmp/branches" ||
    fail "branches: qemu-x86_64 failed"
  grep -q "^softpmu-qemu 2 pid=[0-9]* threads=1 status=0 counting=${ev#*:}$" "$tmp/r" ||
    fail "event ${ev%:*}: counted by ${ev#*:}: $(cat "$tmp/r")"
done

# execve: followed (exec.c). The program execve.S starts runs under the
# plugin too: the counts are execve.S's up to its execve instruction plus
# the started program's own (loop.S, M iterations), in every event; no
# warning. A failed execve (ENOENT) returns -ENOENT to the program (its
# exit status 2) and counting goes on.
N=1000 M=500
build loop -DN=$M
build execve -DN=$N "-DPATH=\"$tmp/loop\""
check execve "execve followed: its program counted" \
  $((1 + 2 * N + 5 + 2 * M + 4)) $((N + M + 2)) $((N + M)) 0 0 \
  $((N + M - 2)) 2 0 0
! grep -q "a process called execve\|softpmu-qemu" "$tmp/err" ||
  fail "execve followed: stat warns: $(cat "$tmp/err")"
build execve -DN=$N '-DPATH="/nonexistent"'
run stat -e instructions -- "$tmp/execve"
checks=$((checks + 1))
[ "$rc" = 2 ] || fail "failed execve: exit status $rc, want 2 (ENOENT)"
got=$(awk '$2 == "instructions" { gsub(",", "", $1); print $1 }' "$tmp/err")
[ "$got" = $((1 + 2 * N + 9)) ] ||
  fail "failed execve: $got instructions, want $((1 + 2 * N + 9)) (each once)"
! grep -q "a process called execve\|softpmu-qemu" "$tmp/err" ||
  fail "failed execve: stat warns"

# Through a shell: sh -c PROG is sh up to its execve, then PROG's own
# count, in a block of the same pid (status=exec, then the exit status);
# sh -c 'PROG; PROG' forks for each, and each child's exec is followed.
# stat's total through sh differs between two programs by exactly their
# own counts' difference. Through `exec`: for a lone command Debian's dash
# vforks and waits, and how much of its wait path it runs depends on
# whether the child has ended yet (variants 19 instructions apart were
# seen), a count of the scheduling, not of the shell.
build loop -DN=$M
cp "$tmp/loop" "$tmp/loopa"
build loop -DN=$((M * 3))
cp "$tmp/loop" "$tmp/loopb"
rm -f "$tmp/res"
qemu-x86_64 -plugin "$PLUGIN,event=4300c0,out=$tmp/res" /bin/sh -c \
  "$tmp/loopa; $tmp/loopa" >"$tmp/out" 2>"$tmp/err"
checks=$((checks + 1))
got=$(awk '/^softpmu-qemu/ { st = $5 } /^event 0/ && st == "status=0" &&
  $3 == '$((2 * M + 4))' { n++ } END { print n + 0 }' "$tmp/res")
[ "$got" = 2 ] || fail "sh -c 'PROG; PROG': PROG counted $got times, want 2: $(cat "$tmp/res" "$tmp/err")"
got=$(grep -c 'status=exec ' "$tmp/res")
[ "$got" = 2 ] || fail "sh -c 'PROG; PROG': $got blocks end at an exec, want 2"
# Through env's execve: sh would format its parent's pid ($PPID) as it
# starts, a count that follows the pid's digits from run to run.
run stat -e instructions -- env "$tmp/loopa"
a=$(awk '$2 == "instructions" { gsub(",", "", $1); print $1 }' "$tmp/err")
run stat -e instructions -- env "$tmp/loopb"
b=$(awk '$2 == "instructions" { gsub(",", "", $1); print $1 }' "$tmp/err")
checks=$((checks + 1))
[ "$((b - a))" = $((2 * M * 2)) ] ||
  fail "env PROG: $b - $a instructions, want $((2 * M * 2)) (PROG's own)"
# With a guest_base (qemu's -B, which softpmu stat passes), guest
# address + base is the host address: the execve is still followed, its
# program counted (the plugin reads the base from QEMU).
rm -f "$tmp/res"
qemu-x86_64 -B 0x100000000 -plugin "$PLUGIN,event=4300c0,out=$tmp/res" \
  /bin/sh -c "$tmp/loopa" >"$tmp/out" 2>"$tmp/err"
rc=$?
checks=$((checks + 1))
got=$(awk '/^softpmu-qemu/ { st = $5 } /^event 0/ && st == "status=0" &&
  $3 == '$((2 * M + 4))' { n++ } END { print n + 0 }' "$tmp/res")
[ "$rc" = 0 ] && [ "$got" = 1 ] && grep -q "status=exec " "$tmp/res" ||
  fail "qemu -B: the execve is not followed: $(cat "$tmp/err" "$tmp/res")"
# A program the plugin does not follow (setuid): it runs, uncounted, and
# stat says so.
cp "$tmp/loopa" "$tmp/loopsuid"
chmod u+s "$tmp/loopsuid"
if [ -u "$tmp/loopsuid" ] && ! findmnt -n -o OPTIONS -T "$tmp" 2>/dev/null |
  grep -q nosuid; then
  run stat -e instructions -- sh -c "$tmp/loopsuid"
  checks=$((checks + 1))
  [ "$rc" = 0 ] || fail "setuid program: exit status $rc"
  grep -q "set-user-ID" "$tmp/err" ||
    fail "setuid program: the plugin does not say why it is not followed"
  grep -q "a process called execve" "$tmp/err" ||
    fail "setuid program: stat does not say it is not counted"
fi

# The exit status and the streams pass through; stat's own failures.
run stat -- sh -c 'echo out; echo err >&2; exit 3'
checks=$((checks + 1))
[ "$rc" = 3 ] || fail "exit status 3 passes through: got $rc"
same "$tmp/out" "out" || fail "standard output passes through"
grep -q '^err$' "$tmp/err" || fail "standard error passes through"
run stat -- "$tmp/no-such-program"
checks=$((checks + 1))
[ "$rc" = 127 ] || fail "a missing program: exit status $rc, want 127"
PATH=/nonexistent XDG_CACHE_HOME=$tmp/no-cache run stat -- /bin/true
checks=$((checks + 1))
[ "$rc" = 2 ] || fail "no qemu-x86_64: exit status $rc, want 2"
grep -q 'apt-get install qemu-user' "$tmp/err" ||
  fail "no qemu-x86_64: the message names apt-get install qemu-user"
run stat --no-model -e cycles,instructions:u -o "$tmp/o.txt" -- "$tmp/pagecross"
checks=$((checks + 1))
grep -q '^   <not supported>      cycles  *$' "$tmp/o.txt" ||
  fail "--no-model: cycles is <not supported> (-o FILE)"
grep -q '^             4,005      instructions:u  *$' "$tmp/o.txt" ||
  fail "instructions:u in perf's layout (-o FILE)"
[ ! -s "$tmp/err" ] || fail "-o FILE: nothing on standard error"
# -o FILE is opened and written before the program runs, as perf stat
# opens it: a directory, a missing directory, or a file that opens but
# takes no bytes (/proc/version: root may open it, its write fails) is
# refused with status 2 and the program, which would create a file, never
# runs; stat and record alike.
for cmd in stat record; do
  for out in "$tmp" "$tmp/no-such-dir/o.txt" /proc/version; do
    rm -f "$tmp/created"
    run $cmd -o "$out" -- sh -c ": >'$tmp/created'"
    checks=$((checks + 1))
    [ "$rc" = 2 ] && [ ! -e "$tmp/created" ] && grep -q -- "-o $out: " "$tmp/err" ||
      fail "$cmd -o $out: status $rc, created: $([ -e "$tmp/created" ] && echo yes), $(cat "$tmp/err")"
  done
done

# A program file that is neither ELF nor "#!" (execve(2) says ENOEXEC) is
# run by /bin/sh, as perf's execvp(3) runs it: counted, the program it
# starts followed (its line also holds the forked shell's instructions
# before the execve), its exit status passed through; an empty one too
# (status 0).
printf '"%s"\nexit 5\n' "$tmp/pagecross" >"$tmp/noshebang"
: >"$tmp/empty"
chmod +x "$tmp/noshebang" "$tmp/empty"
run stat --per-thread -x , -e instructions:u -- "$tmp/noshebang"
checks=$((checks + 1))
[ "$rc" = 5 ] && grep -q '^noshebang-[0-9]*,[1-9][0-9]*,,instructions:u,' "$tmp/err" &&
  grep -q '^pagecross-[0-9]*,[1-9][0-9]*,,instructions:u,' "$tmp/err" ||
  fail "a script without #!: status $rc, $(cat "$tmp/err")"
run stat -x , -e instructions:u -- "$tmp/empty"
checks=$((checks + 1))
[ "$rc" = 0 ] && grep -q '^[1-9][0-9]*,,instructions:u,' "$tmp/err" ||
  fail "an empty program file: status $rc, $(cat "$tmp/err")"

# record adds each sampled file to perf's build-id cache, $HOME/.debug, as
# perf record does: PATH/BUILDID/elf, the file itself, and
# .build-id/BU/ILDID linked to ../../PATH/BUILDID; perf archive, which
# packs the files from there, then takes the recording.
bid=$(readelf -n "$tmp/pagecross" | awk '/Build ID:/ { print $3 }')
mkdir -p "$tmp/home"
HOME=$tmp/home run record -e instructions -c 1000 -o "$tmp/bid.data" -- "$tmp/pagecross"
checks=$((checks + 1))
cache=$tmp/home/.debug
link=$cache/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-)
[ "$rc" = 0 ] && [ -n "$bid" ] &&
  [ "$(readlink "$link")" = "../..$tmp/pagecross/$bid" ] &&
  cmp -s "$cache$tmp/pagecross/$bid/elf" "$tmp/pagecross" ||
  fail "record: the build-id cache: status $rc, id '$bid', link '$(readlink "$link")', $(cat "$tmp/err")"
# -N (--no-buildid-cache), as perf record's: the cache is left alone, the
# recording still has the program's build id.
mkdir -p "$tmp/home-n"
HOME=$tmp/home-n run record -N -e instructions -c 1000 -o "$tmp/bid-n.data" -- "$tmp/pagecross"
checks=$((checks + 1))
[ "$rc" = 0 ] && [ ! -e "$tmp/home-n/.debug" ] ||
  fail "record -N: status $rc, $(ls -A "$tmp/home-n"), $(cat "$tmp/err")"
# A cache that cannot be written: the recording is kept (status 0), with
# one warning naming the first failure.
: >"$tmp/home-file"
HOME=$tmp/home-file run record -e instructions -c 1000 -o "$tmp/bid-f.data" -- "$tmp/pagecross"
checks=$((checks + 1))
[ "$rc" = 0 ] && [ -s "$tmp/bid-f.data" ] &&
  grep -qx "softpmu: record: warning: 1 file(s) not added to the build-id cache (perf archive packs from it): $tmp/home-file/.debug$tmp/pagecross/$bid: Not a directory; -N leaves the cache alone" "$tmp/err" ||
  fail "record, a cache that cannot be written: status $rc, $(cat "$tmp/err")"
if command -v perf >/dev/null 2>&1 && perf version >/dev/null 2>&1; then
  checks=$((checks + 1))
  HOME=$tmp/home-n perf buildid-list -i "$tmp/bid-n.data" 2>/dev/null |
    grep -qx "$bid $tmp/pagecross" ||
    fail "record -N: the build id of the program not in perf.data"
  checks=$((checks + 1))
  (cd "$tmp" && HOME=$tmp/home perf archive bid.data >/dev/null 2>&1) &&
    tar tjf "$tmp/bid.data.tar.bz2" | grep -qx "${tmp#/}/pagecross/$bid/elf" ||
    fail "perf archive: the recorded program is not packed"
fi

# Every spelling of BR_INST_RETIRED.NEAR_CALL (C4H/02H) counts the 2N near
# calls of the branches program; r00c4 is C4H/00H, every branch (8N + 1).
N=1000
build branches -DN=$N
run stat --no-model -e br_inst_retired.near_call,BR_INST_RETIRED:NEAR_CALL,r00c4 \
  -e cpu/event=0xc4,umask=0x02/,cycles,instructions:k -- "$tmp/branches"
checks=$((checks + 1))
[ "$rc" = 0 ] || fail "event spellings: exit status $rc"
for ev in br_inst_retired.near_call BR_INST_RETIRED:NEAR_CALL \
  cpu/event=0xc4,umask=0x02/; do
  checks=$((checks + 1))
  got=$(awk -v e="$ev" '$2 == e { gsub(",", "", $1); print $1 }' "$tmp/err")
  [ "$got" = $((2 * N)) ] || fail "$ev: got '$got', want $((2 * N))"
done
checks=$((checks + 1))
got=$(awk '$2 == "r00c4" { gsub(",", "", $1); print $1 }' "$tmp/err")
[ "$got" = $((8 * N + 1)) ] || fail "r00c4: got '$got', want $((8 * N + 1))"
checks=$((checks + 1))
grep -q '^   <not supported>      cycles  *$' "$tmp/err" ||
  fail "--no-model: cycles is <not supported>, not a count"
# :k counts kernel code only (OS without USR, SDM Vol. 3B 18.2.1.1):
# qemu-user runs none, so 0, with a note.
checks=$((checks + 1))
grep -q '^                 0      instructions:k  *$' "$tmp/err" ||
  fail "instructions:k counts 0"
[ "$(grep -c 'counts kernel code only' "$tmp/err")" = 1 ] ||
  fail "instructions:k: one note"

# --all-user: every event counts user code only (USR set, OS clear: SDM
# Vol. 3B 18.2.1.1), :k too, its name as given, as perf prints it; no note.
run stat --no-model --all-user -x , -e instructions:k,instructions -- "$tmp/pagecross"
checks=$((checks + 1))
[ "$rc" = 0 ] && grep -q '^4005,,instructions:k,' "$tmp/err" &&
  grep -q '^4005,,instructions,' "$tmp/err" &&
  ! grep -q 'counts kernel code only' "$tmp/err" ||
  fail "--all-user: $(cat "$tmp/err")"

# -x SEP: value, unit, event, run time, percentage running (perf-stat(1)).
run stat --no-model -x , -e r02c4,cycles -- "$tmp/branches"
checks=$((checks + 1))
grep -q "^$((2 * N)),,r02c4,[0-9]*,100.00,,\$" "$tmp/err" ||
  fail "-x ,: the r02c4 line"
grep -q '^<not supported>,,cycles,0,100.00,,$' "$tmp/err" ||
  fail "-x ,: the cycles line"
# -j: one JSON object per event.
run stat -j -e r02c4 -- "$tmp/branches"
checks=$((checks + 1))
grep -q "^{\"counter-value\" : \"$((2 * N)).000000\", \"unit\" : \"\", \"event\" : \"r02c4\", \"event-runtime\" : [0-9]*, \"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, \"metric-unit\" : \"\"}\$" \
  "$tmp/err" || fail "-j: the r02c4 object"
# -r 3: the mean of three runs, every one exact: a spread of 0.
run stat -r 3 -e r02c4 -o "$tmp/o.txt" -- "$tmp/branches"
checks=$((checks + 1))
[ "$rc" = 0 ] || fail "-r 3: exit status $rc"
grep -q "(3 runs):\$" "$tmp/o.txt" || fail "-r 3: the header says 3 runs"
grep -q '^             2,000      r02c4  *( +-  0.00% )$' "$tmp/o.txt" ||
  fail "-r 3: 2,000 near calls, spread 0.00%"
grep -q 'seconds time elapsed  ( +- ' "$tmp/o.txt" ||
  fail "-r 3: the elapsed time's spread"

# An event the profile lacks: the nearest names, usage status 2.
run stat -e br_inst_retired.near_cal -- "$tmp/branches"
checks=$((checks + 1))
[ "$rc" = 2 ] || fail "unknown event: exit status $rc, want 2"
grep -q "did you mean br_inst_retired.near_call?" "$tmp/err" ||
  fail "unknown event: the nearest name"

# A program killed by a signal: the signal is reported and the counts up
# to it are printed (the plugin, preloaded into qemu-x86_64, writes them
# from the kill() QEMU 7.2 sends itself; it runs no exit callback then):
# 1 + 2 x 1000 + 6 instructions, 1000 + 2 branches (the SYSCALLs), in
# both ways of counting. SIGKILL cannot be caught: no counts, and why.
build signal
for ev in instructions,branches instructions,branches,r20c4; do
  run stat -e $ev -- "$tmp/signal"
  checks=$((checks + 1))
  [ "$rc" = 143 ] || fail "killed by SIGTERM: exit status $rc, want 143"
  grep -q "killed by signal 15" "$tmp/err" ||
    fail "killed by SIGTERM: the signal is reported"
  got=$(awk 'NF == 2 && $1 ~ /^[0-9,]+$/ { gsub(",", "", $1); printf "%s=%s ", $2, $1 }' "$tmp/err")
  case "$got" in
  "instructions=2007 branches=1002 "*) ;;
  *) fail "killed by SIGTERM ($ev): counts '$got', want instructions=2007 branches=1002" ;;
  esac
done
# A system call QEMU restarts (a signal pending as it starts it: QEMU
# steps back to the SYSCALL and executes it again once the signal is
# delivered) retired once (SDM Vol. 3A 6.6): restart.S, N rt_sigprocmask
# calls under a 100 us SIGALRM timer, writes the signals H it took; with
# N = 20000 QEMU 7.2 restarts some 30 of its calls. Counted inline, and
# by a callback per block (r20c4: N - 1 loop branches and H RETs taken).
N=20000
build restart -DN=$N
for ev in instructions,r40c4 instructions,r40c4,r20c4; do
  "$SOFTPMU" stat -e $ev -- "$tmp/restart" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  h=$(od -An -td8 "$tmp/out" | tr -d ' ')
  got=$(awk 'NF == 2 && $1 ~ /^[0-9,]+$/ { gsub(",", "", $1); printf "%s=%s ", $2, $1 }' "$tmp/err")
  want="instructions=$((20 + 11 * N + 4 * h)) r40c4=$((N + 4 + h)) "
  case $ev in *r20c4) want="${want}r20c4=$((N - 1 + h)) " ;; esac
  checks=$((checks + 1))
  [ "$rc" = 0 ] && [ "$got" = "$want" ] ||
    fail "restarted system calls ($ev, $h signals): exit status $rc, counts '$got', want '$want'"
done

checks=$((checks + 1))
run stat -e instructions -- sh -c 'kill -9 $$'
[ "$rc" = 137 ] || fail "killed by SIGKILL: exit status $rc, want 137"
grep -q "SIGKILL cannot be caught" "$tmp/err" ||
  fail "killed by SIGKILL: why there are no counts"
grep -q '^     <not counted>      instructions  *$' "$tmp/err" ||
  fail "killed by SIGKILL: instructions <not counted>, not 0"

# A script runs under its "#!" interpreter, as the kernel runs it (qemu-x86_64
# runs ELF files only); its arguments and exit status pass through.
printf '#!/bin/sh -e\necho "script $1"\nexit 7\n' >"$tmp/script.sh"
chmod +x "$tmp/script.sh"
run stat -e instructions -- "$tmp/script.sh" arg
checks=$((checks + 1))
[ "$rc" = 7 ] && grep -q '^script arg$' "$tmp/out" &&
  grep -q ' instructions *$' "$tmp/err" ||
  fail "a script: exit status $rc, output '$(cat "$tmp/out")', $(cat "$tmp/err")"

# Options with their values attached, as perf takes them: -x, and
# --event=...
run stat -x, --event=instructions -- "$tmp/branches"
checks=$((checks + 1))
grep -q '^17006,,instructions,' "$tmp/err" ||
  fail "-x, --event=: $(cat "$tmp/err")"

# --multiplex: the counts scaled by enabled / running, with the percentage
# of the time each ran (the plugin's times for branches.S: 8985 and 8021
# instructions of 17006).
run stat --multiplex=1000 -e "$EVENTS" -- "$tmp/branches"
checks=$((checks + 1))
grep -q '^            17,006      instructions  *(52.83%)$' "$tmp/err" &&
  grep -q '^                 0      r40c4  *(47.17%)$' "$tmp/err" ||
  fail "--multiplex: scaled counts and percentages: $(cat "$tmp/err")"
run stat --multiplex=0 -e instructions -- "$tmp/branches"
checks=$((checks + 1))
[ "$rc" = 2 ] || fail "--multiplex=0: exit status $rc, want 2"

# multiplex=N: one PMU per thread, time-sliced in slices of N retired
# instructions among groups of events that fit its counters (Skylake: the
# fixed counter and 4 GP counters, then the other 4 events). Each event's
# time enabled is every instruction (17006 for branches.S), the groups'
# counters released and claimed again between slices, GLOBAL_CTRL last
# (SDM Vol. 3B 18.2.4.1, 18.2.4.3); the groups' times running partition
# it, and the result is the same on every run.
MUX="event=4300c0,event=4300c4,event=4301c4,event=4302c4,event=4308c4,event=4320c4,event=4340c4,event=4381d0,event=4382d0,multiplex=1000"
for run in 1 2; do
  rm -f "$tmp/mux$run"
  qemu-x86_64 -plugin "$PLUGIN,out=$tmp/mux$run,$MUX" "$tmp/branches" ||
    fail "multiplex: qemu-x86_64 failed"
done
checks=$((checks + 1))
[ "$(grep '^event' "$tmp/mux1")" = "$(grep '^event' "$tmp/mux2")" ] ||
  fail "multiplex: two runs differ"
checks=$((checks + 1))
awk '$1 == "event" { if ($4 != 17006) bad = 1; run[$2] = $5 }
  END { if (bad || run[0] != run[4] || run[5] != run[8] ||
            run[0] + run[5] != 17006 || run[0] == 17006) exit 1 }' \
  "$tmp/mux1" || fail "multiplex: times enabled and running: $(cat "$tmp/mux1")"

# grouped=: a perf group ({a,b}) is scheduled whole, in one slice. Events
# 3, 4 and 5 in one group (bits 4 and 5): the fixed counter and events 1
# and 2, then the group with event 6 (four GP counters), then events 7 and
# 8: three groups of the time, the grouped events always together.
rm -f "$tmp/muxg"
qemu-x86_64 -plugin "$PLUGIN,out=$tmp/muxg,$MUX,grouped=30" "$tmp/branches" ||
  fail "multiplex grouped: qemu-x86_64 failed"
checks=$((checks + 1))
awk '$1 == "event" { run[$2] = $5 }
  END { if (run[0] != run[2] || run[3] != run[4] || run[4] != run[5] ||
            run[5] != run[6] || run[7] != run[8] || run[7] == 0 ||
            run[0] + run[3] + run[7] != 17006) exit 1 }' \
  "$tmp/muxg" || fail "multiplex grouped: $(cat "$tmp/muxg")"
# softpmu stat passes {a,b} on as grouped= with --multiplex: the members
# run the same time.
run stat --multiplex=1000 -x , -e 'r00c4,r01c4,{r02c4,r08c4,r20c4},r40c4,r81d0,r82d0' -- "$tmp/branches"
checks=$((checks + 1))
[ "$rc" = 0 ] && [ "$(grep -c ',r02c4,\|,r08c4,\|,r20c4,' "$tmp/err")" = 3 ] &&
  [ "$(grep ',r02c4,\|,r08c4,\|,r20c4,' "$tmp/err" | cut -d, -f5 | sort -u | wc -l)" = 1 ] &&
  [ "$(grep ',r00c4,\|,r02c4,' "$tmp/err" | cut -d, -f5 | sort -u | wc -l)" = 2 ] ||
  fail "stat --multiplex with a group: $(cat "$tmp/err")"

# -I MSEC (interval.c): each thread's rows of intervals, a boundary at
# every 10^6 x MSEC instructions of its clock, at the exact instruction
# (the block that reaches it goes to the model one instruction per clock),
# summed over the threads. loop.S with N = 3,000,000: 6,000,004
# instructions, its JNZ at instructions 2, 4, ..., 2N (taken but the last),
# its SYSCALL (a far branch) the last: rows of 2,000,000 instructions, the
# last partial, at 0.006000004 s. Also with the plugin that hands its sums
# to the model every 7 blocks.
N=3000000
build loop -DN=$N
for plugin in "$PLUGIN" "$PLUGIN7"; do
  export SOFTPMU_QEMU_PLUGIN="$plugin"
  run stat -I 2 -x , -e instructions,branches,r20c4 -- "$tmp/loop"
  export SOFTPMU_QEMU_PLUGIN="$PLUGIN"
  expect "-I 2: exact rows ($(basename "$plugin"))" 0 "" "\
     0.002000000,2000000,,instructions,2000000,100.00,,
     0.002000000,999999,,branches,2000000,100.00,,
     0.002000000,999999,,r20c4,2000000,100.00,,
     0.004000000,2000000,,instructions,2000000,100.00,,
     0.004000000,1000000,,branches,2000000,100.00,,
     0.004000000,1000000,,r20c4,2000000,100.00,,
     0.006000000,2000000,,instructions,2000000,100.00,,
     0.006000000,1000000,,branches,2000000,100.00,,
     0.006000000,1000000,,r20c4,2000000,100.00,,
     0.006000004,4,,instructions,4,100.00,,
     0.006000004,2,,branches,4,100.00,,
     0.006000004,0,,r20c4,4,100.00,,"
done
# A modelled event splits at the same boundaries: its rows add up to the
# count of a run without -I.
run stat -x , -e cycles -- "$tmp/loop"
want=$(awk -F, '$3 == "cycles" { print $1 }' "$tmp/err")
run stat -I 1 -x , -e cycles -- "$tmp/loop"
checks=$((checks + 1))
got=$(awk -F, '$4 == "cycles" { n++; s += $2 } END { print n, s }' "$tmp/err")
[ -n "$want" ] && [ "$got" = "7 $want" ] ||
  fail "-I 1: the rows of cycles ($got) add up to the run's ($want)"

# Threads: each its own clock, from 0. threads.S with T = 2 workers of
# W = 1,500,000 iterations (3,000,006 instructions each) and M = 1,000,000
# in the first thread (2,000,027): -I 1 rows of 1,000,000 of each thread,
# the workers' last 6 in row 4; --per-thread each thread's own, which add
# up to the total.
T=2 M=1000000 W=1500000
build threads -DT=$T -DM=$M -DW=$W
run stat -I 1 -x , -e instructions -- "$tmp/threads"
expect "-I 1, threads" 0 "" "\
     0.001000000,3000000,,instructions,3000000,100.00,,
     0.002000000,3000000,,instructions,3000000,100.00,,
     0.003000000,2000027,,instructions,2000027,100.00,,
     0.003000006,12,,instructions,12,100.00,,"
run stat -I 1 --per-thread -x , -e instructions -- "$tmp/threads"
checks=$((checks + 1))
[ "$rc" = 0 ] && [ "$(cut -d, -f1,3 "$tmp/err" | sed 's/threads-[0-9]*,//' | tr '\n' ' ')" = "     0.001000000,1000000      0.001000000,1000000      0.001000000,1000000      0.002000000,1000000      0.002000000,1000000      0.002000000,1000000      0.003000000,1000000      0.003000000,1000000      0.003000000,27      0.003000006,6      0.003000006,6 " ] ||
  fail "-I 1 --per-thread, threads: $(cat "$tmp/err")"
run stat --per-thread -x , -e instructions -- "$tmp/threads"
checks=$((checks + 1))
[ "$rc" = 0 ] && [ "$(cut -d, -f2 "$tmp/err" | tr '\n' ' ')" = "3000006 3000006 2000027 " ] &&
  [ "$(cut -d, -f1 "$tmp/err" | sed 's/-[0-9]*$//' | sort -u)" = threads ] &&
  [ "$(cut -d, -f1 "$tmp/err" | sort -u | wc -l)" = 3 ] ||
  fail "--per-thread, threads: $(cat "$tmp/err")"

# The results file (protocol/results.h) says it all: each thread's rows add
# up to its counts, enabled and running times too, and the threads' to
# the process's, exactly; with a forked child, multiplexing, threads.
rows_add_up() {
  awk '$1 == "softpmu-qemu" { th = "" }
    $1 == "event" { pe[$2] = $3 " " $4 " " $5; np++ }
    $1 == "thread" { th = $2; nt++ }
    $1 == "tevent" { te[th, $2] = $3 " " $4 " " $5
      split(sum[$2], s, " "); sum[$2] = (s[1] + $3) " " (s[2] + $4) " " (s[3] + $5) }
    $1 == "interval" { split(rs[th, $3], s, " ")
      rs[th, $3] = (s[1] + $4) " " (s[2] + $5) " " (s[3] + $6) }
    $1 == "end" { for (k in te) if (te[k] != rs[k]) bad = bad " thread " k
      for (i in pe) if (pe[i] != sum[i]) bad = bad " event " i
      delete te; delete rs; delete pe; delete sum }
    END { if (bad != "" || nt == 0) { print "bad:" bad; exit 1 } }' "$1"
}
# --per-thread: a forked child is a thread of its own (2P + 14
# instructions in the parent, 2C + 6 in the child); the thread that
# called execve and the program it started are one, named by the new
# program, with both programs' instructions.
build fork -DP=300 -DC=500
run stat --per-thread -x , -e instructions -- "$tmp/fork"
checks=$((checks + 1))
[ "$rc" = 0 ] && [ "$(sed 's/-[0-9]*,/,/' "$tmp/err" | cut -d, -f1,2 | tr '\n' ' ')" = "fork,1006 fork,614 " ] ||
  fail "--per-thread, fork: $(cat "$tmp/err")"
N=1000 M=500
build loop -DN=$M
build execve -DN=$N "-DPATH=\"$tmp/loop\""
run stat --per-thread -x , -e instructions -- "$tmp/execve"
checks=$((checks + 1))
[ "$rc" = 0 ] && [ "$(sed 's/-[0-9]*,/,/' "$tmp/err" | cut -d, -f1,2)" = "loop,$((1 + 2 * N + 5 + 2 * M + 4))" ] ||
  fail "--per-thread, execve: $(cat "$tmp/err")"
build fork -DP=300000 -DC=500000
for args in "threads event=4300c0,event=4300c4" \
  "fork event=4300c0,event=4301c4" \
  "branches event=4300c0,event=4300c4,event=4301c4,event=4302c4,event=4308c4,event=4320c4,event=4340c4,event=4381d0,event=4382d0,multiplex=1000"; do
  rm -f "$tmp/iv"
  qemu-x86_64 -plugin "$PLUGIN,out=$tmp/iv,${args#* },interval=5000" "$tmp/${args%% *}" ||
    fail "interval=5000 ${args%% *}: qemu-x86_64 failed"
  checks=$((checks + 1))
  rows_add_up "$tmp/iv" || fail "interval=5000 ${args%% *}: the rows do not add up: $(cat "$tmp/iv")"
done

# --seed N: the program's random bytes are the seed's, the same on every
# run (docs/perf-options.md, "softpmu's own options"): getrandom(2)'s are
# the plugin's generator's (frontends/qemu/seed.c: SplitMix64 from N, its
# first two outputs little-endian), AT_RANDOM's QEMU's (-seed N: GLib's
# Mersenne Twister from N). Through an execve the plugin follows and in
# record mode too; without --seed they are the host's, new each run.
"$CC" -nostdlib -static -ffreestanding -fno-stack-protector -O2 \
  -o "$tmp/random" "$SRC/random.c" || fail "random.c: does not build"
SEED1="getrandom=c15c0289ec2d0a9167ec8e65a18debbe
at_random=f5b165224a58b791df6af1d8303e61cd"
SEED2="getrandom=ce56971cde355897421efc0b1046c8bf
at_random=439123a3fb9f39f01ff4683712c212bc"
for args in "1 $tmp/random" "1 $tmp/random" "0x1 $tmp/random" \
  "1 sh -c 'exec $tmp/random'" "2 $tmp/random"; do
  checks=$((checks + 1))
  eval "run stat --seed ${args%% *} -e instructions -- ${args#* }"
  case "${args%% *}" in 2) want=$SEED2 ;; *) want=$SEED1 ;; esac
  [ "$rc" = 0 ] && same "$tmp/out" "$want" ||
    fail "--seed ${args%% *}: $(cat "$tmp/out" "$tmp/err")"
done
checks=$((checks + 1))
run record --seed 1 -e instructions -c 1000 -o "$tmp/seed.data" -- "$tmp/random"
[ "$rc" = 0 ] && same "$tmp/out" "$SEED1" ||
  fail "record --seed 1: $(cat "$tmp/out" "$tmp/err")"
checks=$((checks + 1))
run stat -e instructions -- "$tmp/random"
cp "$tmp/out" "$tmp/host1"
run stat -e instructions -- "$tmp/random"
[ "$rc" = 0 ] && ! cmp -s "$tmp/out" "$tmp/host1" ||
  fail "no --seed: the same random bytes twice: $(cat "$tmp/out")"
for bad in x -1 18446744073709551616 0x ""; do
  checks=$((checks + 1))
  run stat --seed "$bad" -e instructions -- "$tmp/random"
  [ "$rc" = 2 ] && grep -q "^softpmu: stat: --seed $bad: a number from 0 to 2^64 - 1" "$tmp/err" ||
    fail "--seed '$bad': status $rc, $(cat "$tmp/err")"
done
# python3 draws its hash seed from getrandom: its count varies run to run
# without --seed, and is the same twice with it.
if command -v python3 >/dev/null; then
  for i in 1 2; do
    env -i PATH="$PATH" HOME=/tmp LANG=C "$SOFTPMU" stat --seed 1 --no-model \
      -x , -e instructions -- python3 -c pass >/dev/null 2>"$tmp/py$i"
  done
  checks=$((checks + 1))
  grep -q '^[0-9]*,,instructions,' "$tmp/py1" &&
    [ "$(cut -d, -f1 "$tmp/py1")" = "$(cut -d, -f1 "$tmp/py2")" ] ||
    fail "--seed 1, python3 -c pass: $(cat "$tmp/py1" "$tmp/py2")"
fi

# The plugin refuses CMASK (bits 31:24) rather than count it per block.
checks=$((checks + 1))
qemu-x86_64 -plugin "$PLUGIN,out=$tmp/r,event=10300c0" "$tmp/pagecross" \
  >"$tmp/out" 2>"$tmp/err" && fail "event with CMASK accepted"
grep -q "CMASK, INV and edge detect are not supported" "$tmp/err" ||
  fail "event with CMASK: no message"
finish

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The QEMU plugin's record mode (record.h): a counter preset to -period
# with INT set overflows, the model requests a PMI, the agent's PMI flow
# reloads the counter (SDM Vol. 3B 18.2.2), and the plugin writes a sample
# at the instruction whose retirement overflowed it. Freestanding programs
# whose instruction streams are known by construction: every sample's
# instruction, count, time, period and call chain must be the one the
# arithmetic gives.
#   test_record.sh CC PLUGIN SRCDIR REC_DUMP [PLUGIN7]
# PLUGIN7: the plugin built with a branch ring of 33 entries instead of 64
# (and sums handed over every 7 instructions): the branch stacks are run
# through it too.
# Skipped (77) when qemu-x86_64 is missing, unless SOFTPMU_REQUIRE_QEMU=1.
CC=$1 PLUGIN=$2 SRC=$3 DUMP=$4 PLUGIN7=${5:-$2}
. "$(dirname "$0")/../../../cli/test_lib.sh"
need_qemu

# record NAME ARGS: run it with the plugin in record mode; the stream as
# text in $tmp/rec.txt.
record() {
  name=$1
  shift
  rm -f "$tmp/rec"
  qemu-x86_64 -plugin "$PLUGIN,record=$tmp/rec,comm=$name,$1" "$tmp/$name" \
    >"$tmp/out" 2>"$tmp/err" || fail "$name ($1): qemu-x86_64 failed: $(cat "$tmp/err")"
  "$DUMP" "$tmp/rec" >"$tmp/rec.txt" || fail "$name ($1): malformed stream"
}

sym() { # address of symbol $1 in $tmp/record, decimal
  printf '%d' "0x$(nm "$tmp/record" | awk -v s="$1" '$3 == s { print $1 }')"
}

N=1000
build record -DN=$N
TOTAL=$((3 + 10 * N + 5))
LOOP=$(sym loop) AI=$(sym after_inner) AO=$(sym after_outer)
START=$(sym _start) OUTER=$(sym outer) INNER=$(sym inner)

# expect_inst P [STEP [SHIFT]]: the samples of INST_RETIRED.ANY (SDM Vol. 3B
# 18.2.2.1) with period P, one per STEP (default P) instructions: sample k
# at instruction k*STEP, time k*STEP, with the address of that
# instruction (SHIFT 1: of the one after it) and the call chain in force
# there ("TIME IP PERIOD EVENT CHAIN...", addresses in hexadecimal).
expect_inst() {
  awk -v P="$1" -v STEP="${2:-$1}" -v SHIFT="${3:-0}" -v N=$N \
    -v TOTAL=$TOTAL -v LOOP=$LOOP -v AI=$AI -v AO=$AO -v START=$START \
    -v OUTER=$OUTER -v INNER=$INNER '
  function addr(t, e, j) {
    if (t == 1) return START
    if (t == 2) return OUTER
    if (t == 3) return INNER
    if (t <= 3 + 10 * N) { j = (t - 4) % 10; return LOOP + (j == 9 ? 10 : j) }
    e = t - 3 - 10 * N   # RET, RET, MOV (5 bytes), XOR (2), SYSCALL
    return e == 1 ? LOOP + 12 : e == 2 ? AI : AO + (e == 3 ? 0 : e == 4 ? 5 : 7)
  }
  function chain(t) {
    if (t == 1 || t > 3 + 10 * N + 2) return ""
    if (t == 2 || t == 3 + 10 * N + 2) return sprintf(" %x", AO)
    return sprintf(" %x %x", AI, AO)
  }
  BEGIN {
    for (t = STEP; t <= TOTAL; t += STEP)
      printf "%d %x %d 0%s\n", t, addr(t + SHIFT), P, chain(t)
  }' >"$tmp/want"
}

# got: "TIME IP PERIOD EVENT CHAIN..." of every sample.
got() {
  awk '$1 == "sample" { $1 = $2 = $3 = ""; sub(/^ +/, ""); print }' \
    "$tmp/rec.txt"
}

for P in 1 7 97 1000 10008 10009; do
  checks=$((checks + 1))
  record record "event=5300c0,period=$P,callgraph=1"
  expect_inst $P
  got >"$tmp/got"
  cmp -s "$tmp/got" "$tmp/want" ||
    fail "instructions, period $P: samples differ: $(diff "$tmp/want" "$tmp/got" | head -5)"
  n=$(wc -l <"$tmp/got")
  [ "$n" -eq $((TOTAL / P)) ] ||
    fail "instructions, period $P: $n samples, want floor($TOTAL / $P) = $((TOTAL / P))"
done

# PEBS (precise=1, SDM Vol. 3B 18.4.4): the overflow arms PEBS and the
# assist comes at the next event, which reloads the counter from the DS
# area: a record every P + 1 instructions. Its IP is the EventingIP
# (record format 2 and later, the adaptive basic group; Skylake's format 3
# on a GP counter, Ice Lake's adaptive records on fixed counter 0) or the
# instruction after it (formats 0 and 1: Core 2, Nehalem).
for case in skylake:0 icelake:0 sapphirerapids:0 core2:1 nehalem:1; do
  checks=$((checks + 1))
  prof=${case%:*} shift=${case#*:}
  record record "profile=$prof,event=5300c0,period=1000,callgraph=1,precise=1"
  expect_inst 1000 1001 "$shift"
  got >"$tmp/got"
  cmp -s "$tmp/got" "$tmp/want" ||
    fail "PEBS on $prof: samples differ: $(diff "$tmp/want" "$tmp/got" | head -5)"
done
checks=$((checks + 1))
qemu-x86_64 -plugin "$PLUGIN,profile=coreduo,record=$tmp/rec,event=5300c0,period=1000,precise=1" \
  "$tmp/record" >"$tmp/out" 2>"$tmp/err" && fail "PEBS on coreduo accepted"
grep -q "precise=1: profile core-duo has no PEBS" "$tmp/err" ||
  fail "PEBS on coreduo: no message: $(cat "$tmp/err")"

# BR_INST_RETIRED.ALL_BRANCHES (C4H/00H, a general-purpose counter) with
# period 100: branch b is CALL, CALL, then the JNZ of iteration b - 2,
# retired as instruction 3 + 10 (b - 2); 1005 branches give 10 samples.
checks=$((checks + 1))
record record "event=5300c4,period=100,callgraph=1"
awk -v N=$N -v LOOP=$LOOP -v AI=$AI -v AO=$AO 'BEGIN {
  for (b = 100; b <= N + 5; b += 100)
    printf "%d %x 100 0 %x %x\n", 3 + 10 * (b - 2), LOOP + 10, AI, AO }' \
  >"$tmp/want"
got >"$tmp/got"
cmp -s "$tmp/got" "$tmp/want" ||
  fail "branches, period 100: samples differ: $(diff "$tmp/want" "$tmp/got" | head -5)"

# Each guest thread has its own PMU: each thread's samples come at its own
# instructions P, 2P, 3P, ...; every thread starts and ends in the stream.
T=3 M=1000 W=2000
build threads -DT=$T -DM=$M -DW=$W
checks=$((checks + 1))
record threads "event=5300c0,period=97"
for kind in thread exit; do
  n=$(awk -v k=$kind '$1 == k' "$tmp/rec.txt" | wc -l)
  [ "$n" -eq $((T + 1)) ] || fail "threads: $n $kind records, want $((T + 1))"
done
awk '$1 == "sample" { n[$3]++; if ($4 != 97 * n[$3]) bad = bad " " $3 ":" $4 }
  END { if (bad != "" || length(n) != 4) { print "bad" bad; exit 1 } }' \
  "$tmp/rec.txt" || fail "threads: each thread's samples at 97, 194, ..."

# A system call QEMU restarts retires once (SDM Vol. 3A 6.6): restart.S
# (N rt_sigprocmask calls under a SIGALRM timer, H signals written to
# stdout) retires 20 + 11 N + 4 H instructions, one sample every P.
build restart -DN=20000
for opt in "" ",callgraph=1"; do
  checks=$((checks + 1))
  record restart "event=5300c0,period=7$opt"
  h=$(od -An -td8 "$tmp/out" | tr -d ' ')
  n=$(awk '$1 == "sample"' "$tmp/rec.txt" | wc -l)
  [ "$n" -eq $(((20 + 11 * 20000 + 4 * h) / 7)) ] ||
    fail "restarted system calls (period 7$opt, $h signals): $n samples, want $(((20 + 11 * 20000 + 4 * h) / 7))"
done

# A forked child is a process of its own in the stream, its parent named.
P=300 C=500
build fork -DP=$P -DC=$C
checks=$((checks + 1))
record fork "event=5300c0,period=50"
awk '$1 == "process" { pid[++n] = $2; ppid[n] = $3 }
  END { exit !(n == 2 && ppid[1] == 0 && ppid[2] == pid[1]) }' \
  "$tmp/rec.txt" || fail "fork: two processes, the child's parent named"

# Branch stacks (branch=BITS, perf_event_attr.branch_sample_type): the
# plugin programs the model's LBRs as a driver does and reads them at each
# PMI. branchkinds.S takes every kind of near branch in a known order, so
# the stack at instruction t is the last DEPTH taken branches up to t that
# the filter records (SDM Vol. 3B 17.4.8: the stack holds the most recent
# records, a PMI's own branch included), most recent first; a
# model-specific stack is read whole from MSR_LASTBRANCH_TOS down (hw_idx
# = TOS = records mod DEPTH, 17.4.8.1), empty entries as 0, an
# architectural one from entry 0 to the first empty entry (hw_idx all
# ones). Flags: PREDICTED (2; no model=, so no branch predictor) where the
# format has a MISPRED bit (format 3 and up, architectural LBRs), none on
# Core 2 (format 1). Kinds: C near relative call, R near return, I near
# indirect call, J near indirect jump, j near relative jump, c Jcc.
BN=2000
"$CC" -nostdlib -static -DN=$BN -o "$tmp/branchkinds" "$SRC/branchkinds.S" ||
  fail "branchkinds: does not assemble"
bsym() { printf '%d' "0x$(nm "$tmp/branchkinds" | awk -v s="$1" '$3 == s { print $1 }')"; }
# expect_br P DEPTH ARCH FLAGS KINDS [CALLSTACK [TYPES]]; with TYPES each
# entry ends in its perf_branch_entry.type (PERF_BR_*, as Linux's driver
# maps the LBR's type: C CALL 4, R RET 6, I IND_CALL 5, J IND 3, j UNCOND
# 2, c COND 1).
expect_br() {
  awk -v P="$1" -v D="$2" -v ARCH="$3" -v FL="$4" -v KINDS="$5" -v CS="${6:-0}" \
    -v TY="${7:-0}" \
    -v N=$BN -v LOOP=$(bsym loop) -v F=$(bsym f) -v G=$(bsym g) \
    -v R1=$(bsym r1) -v R2=$(bsym r2) -v J=$(bsym j) -v K=$(bsym k) \
    -v JNZ=$(bsym jnz) '
  BEGIN {
    split("C R I R J j - c", kind, " ")
    split("4 6 5 6 3 2 0 1", ptype, " ")
    from[1] = LOOP; to[1] = F; from[2] = F; to[2] = R1
    from[3] = R1; to[3] = G; from[4] = G; to[4] = R2
    from[5] = R2; to[5] = J; from[6] = J; to[6] = K
    from[8] = JNZ; to[8] = LOOP
    total = 3 + 8 * N + 3; n = 0; sp = 0
    for (t = 1; t <= total; t++) {
      q = (t - 4) % 8 + 1
      if (t >= 4 && t <= 3 + 8 * N && q != 7 && !(q == 8 && t == 3 + 8 * N) &&
          index(KINDS, kind[q])) {
        if (CS && kind[q] == "R") { sp--; n-- }      # call stack: a return pops
        else { n++; f[n] = from[q]; o[n] = to[q]; k[n] = q }
      }
      if (t % P) continue
      tos = ARCH ? "ffffffffffffffff" : sprintf("%x", (n % D + D) % D)
      m = n < D ? n : D
      line = ""
      for (i = 0; i < m; i++)
        line = line sprintf(" %x>%x/%x/0%s", f[n - i], o[n - i], FL,
          TY ? "/" ptype[k[n - i]] : "")
      if (!ARCH && !CS)
        for (; m < D; m++) line = line sprintf(" 0>0/%x/0", FL)
      printf "brstack %s %d%s\n", tos, m, line
    }
  }' >"$tmp/want"
}
# record_br PROFILE BITS P [PLUGIN]: the brstack lines of a run in $tmp/got.
record_br() {
  rm -f "$tmp/rec"
  qemu-x86_64 -plugin "${4:-$PLUGIN},profile=$1,record=$tmp/rec,event=5300c0,period=$3,branch=$2" \
    "$tmp/branchkinds" >"$tmp/out" 2>"$tmp/err" ||
    fail "branch=$2 on $1: qemu-x86_64 failed: $(cat "$tmp/err")"
  "$DUMP" "$tmp/rec" | awk '$1 == "brstack"' >"$tmp/got"
}
# PROFILE DEPTH ARCH FLAGS BITS KINDS: any (8), any_call (10), any_ret
# (20), ind_call (40), cond (400), ind_jmp (1000), call (2000), and a
# union (cond|call), all with u (1), at a period where the stacks fill
# and one where the first samples see fewer branches than the depth.
for case in "skylake 32 0 2 9 CRIJjc" "skylake 32 0 2 11 CI" \
  "skylake 32 0 2 21 R" "skylake 32 0 2 41 I" "skylake 32 0 2 401 c" \
  "skylake 32 0 2 1001 J" "skylake 32 0 2 2001 C" "skylake 32 0 2 2401 Cc" \
  "icelake 32 0 2 9 CRIJjc" "haswell 16 0 2 9 CRIJjc" \
  "sandybridge 16 0 2 41 I" "nehalem 16 0 2 9 CRIJjc" "core2 4 0 0 9 CRIJjc" \
  "sapphirerapids 32 1 2 9 CRIJjc" "sapphirerapids 32 1 2 1001 J" \
  "sapphirerapids 32 1 2 2401 Cc"; do
  set -- $case
  for run in "1009 $PLUGIN" "13 $PLUGIN" "1009 $PLUGIN7"; do
    P=${run%% *}
    checks=$((checks + 1))
    record_br "$1" "$5" $P "${run#* }"
    expect_br $P "$2" "$3" "$4" "$6"
    [ -s "$tmp/want" ] && cmp -s "$tmp/got" "$tmp/want" ||
      fail "branch stacks, $1 branch=$5 period $P (${run#* }): $(diff "$tmp/want" "$tmp/got" | head -3 | cut -c1-300)"
  done
done
# TYPE_SAVE (10000): each entry's perf type, from the kind of the branch
# at FROM (model-specific LBRs, as Linux decodes the instruction there) or
# from IA32_LBR_x_INFO.BR_TYPE ("Architectural Last Branch Records"), also
# in call-stack mode and with a filter.
for case in "skylake 32 0 2 10009 CRIJjc 0" "haswell 16 0 2 10009 CRIJjc 0" \
  "core2 4 0 0 10009 CRIJjc 0" "sapphirerapids 32 1 2 10009 CRIJjc 0" \
  "sapphirerapids 32 1 2 12401 Cc 0" "skylake 32 0 2 10801 CRI 1" \
  "sapphirerapids 32 1 2 10801 CRI 1"; do
  set -- $case
  for run in "1009 $PLUGIN" "13 $PLUGIN7"; do
    P=${run%% *}
    checks=$((checks + 1))
    record_br "$1" "$5" $P "${run#* }"
    expect_br $P "$2" "$3" "$4" "$6" "$7" 1
    [ -s "$tmp/want" ] && cmp -s "$tmp/got" "$tmp/want" ||
      fail "branch types, $1 branch=$5 period $P (${run#* }): $(diff "$tmp/want" "$tmp/got" | head -3 | cut -c1-300)"
  done
done
# Call-stack mode (MSR_LBR_SELECT.EN_CALLSTACK, 17.9; IA32_LBR_CTL.
# CALL_STACK): calls push, returns pop, read to the first empty entry:
# only the call the sampled instruction is in.
for case in "skylake 32 0" "haswell 16 0" "sapphirerapids 32 1"; do
  set -- $case
  for pl in "$PLUGIN" "$PLUGIN7"; do
    checks=$((checks + 1))
    record_br "$1" 801 13 "$pl"
    expect_br 13 "$2" "$3" 2 CRI 1
    cmp -s "$tmp/got" "$tmp/want" ||
      fail "call stack on $1 ($pl): $(diff "$tmp/want" "$tmp/got" | head -3 | cut -c1-300)"
  done
done
# Call-stack mode past the stack's depth: recurse.S calls D = 40 deep, so
# the 16- and 32-entry stacks wrap (a push past the depth overwrites the
# oldest call, 17.9) and, coming back, pops clear the top and step back
# (model-specific: TOS moves; architectural: the entries shift up). The
# stack at each sample, emulated by those rules, read from the top to the
# first clear entry. Periods 7 (a sample every few blocks) and 53, 101
# (a call and its return often in the plugin's ring together).
"$CC" -nostdlib -static -DD=40 -DN=5 -o "$tmp/recurse" "$SRC/recurse.S" ||
  fail "recurse: does not assemble"
rsym() { printf '%d' "0x$(nm "$tmp/recurse" | awk -v s="$1" '$3 == s { print $1 }')"; }
for case in "skylake 32 0" "haswell 16 0" "sapphirerapids 32 1"; do
  set -- $case
  for run in "7 $PLUGIN" "53 $PLUGIN" "101 $PLUGIN" "53 $PLUGIN7"; do
    P=${run%% *} pl=${run#* }
    checks=$((checks + 1))
    rm -f "$tmp/rec"
    qemu-x86_64 -plugin "$pl,profile=$1,record=$tmp/rec,event=5300c0,period=$P,branch=801" \
      "$tmp/recurse" >"$tmp/out" 2>"$tmp/err" || fail "recurse on $1: $(cat "$tmp/err")"
    "$DUMP" "$tmp/rec" | awk '$1 == "brstack"' >"$tmp/got"
    awk -v D=40 -v N=5 -v P=$P -v DEPTH=$2 -v ARCH=$3 -v SC=$(rsym sc) \
      -v RC=$(rsym rc) -v R=$(rsym r) '
    function push(f) {
      if (ARCH) { for (i = DEPTH - 1; i > 0; i--) e[i] = e[i - 1]; e[0] = f }
      else { tos = (tos + 1) % DEPTH; e[tos] = f }
    }
    function pop() {
      if (ARCH) { for (i = 0; i < DEPTH - 1; i++) e[i] = e[i + 1]; e[DEPTH - 1] = 0 }
      else { e[tos] = 0; tos = (tos + DEPTH - 1) % DEPTH }
    }
    function insn(br) {
      t++
      if (br > 0) push(br); else if (br < 0) pop()
      if (t % P) return
      line = ""; m = 0
      for (i = 0; i < DEPTH; i++) {
        at = ARCH ? i : (tos + DEPTH - i) % DEPTH
        if (!e[at]) break
        line = line sprintf(" %x>%x/2/0", e[at], R); m++
      }
      printf "brstack %s %d%s\n", ARCH ? "ffffffffffffffff" : sprintf("%x", tos), m, line
    }
    BEGIN {
      for (i = 0; i < DEPTH; i++) e[i] = 0
      insn(0); insn(SC)
      for (L = 1; L <= D; L++) { insn(0); insn(0); if (L < D) insn(RC) }
      for (L = D; L >= 1; L--) { insn(0); for (j = 0; j < 2 * N; j++) insn(0); insn(-1) }
      insn(0); insn(0); insn(0)
    }' >"$tmp/want"
    [ -s "$tmp/want" ] && cmp -s "$tmp/got" "$tmp/want" ||
      fail "recursion in call-stack mode on $1, period $P ($pl): $(diff "$tmp/want" "$tmp/got" | head -3 | cut -c1-300)"
  done
done
# Branch stacks from the modelled micro-architecture (model=SPEC, lbr.c):
# each entry's MISPRED is the model's branch predictor's and its cycle
# count the timing model's core cycles since the previous entry (SDM Vol.
# 3B 17.12.1 MSR_LBR_INFO_x.CYC_CNT; IA32_LBR_x_INFO.CYC_CNT), each where
# the LBR format has it: MISPRED from format 3 (Table 17-8; in LBR_INFO
# from format 5) and in architectural LBRs, cycles in format 5 and timed
# architectural LBRs (CPUID.1CH:ECX[1]), else 0; Core 2 (format 1) has no
# flags. alt.S's taken branches are known by construction; the same run
# samples BR_MISP_RETIRED.ALL_BRANCHES (the model's branch-misses) with
# period 1, so its samples give the time of every mispredict: an entry is
# M exactly when a mispredict sample falls at its branch (the others fall
# at not-taken branches, which the LBRs do not record). The timing model
# (uarch/README.md, "Timing") gives, at instruction T, ceil(T / WIDTH) +
# MEM (the one cold fetch: the program is one cache line, served by
# memory) + PENALTY per mispredict up to T; an entry's cycles are its
# difference with the entry before. The instruction event's period makes
# the branches reach the LBRs both one block at a time near the samples
# and through the plugin's ring (PLUGIN7: a ring of 33).
AN=300 APER=4
"$CC" -nostdlib -static -DN=$AN -DPERIOD=$APER -o "$tmp/alt" "$SRC/alt.S" ||
  fail "alt: does not assemble"
asym() { printf '%d' "0x$(nm "$tmp/alt" | awk -v s="$1" '$3 == s { print $1 }')"; }
# PROFILE DEPTH ARCH FLAGS TIMED PART WIDTH MEM PENALTY
for case in "skylake 32 0 1 1 skylake 4 250 16" \
  "icelake 32 0 1 1 icelake 5 250 16" "haswell 16 0 1 0 haswell 4 230 15" \
  "nehalem 16 0 1 0 sandybridge 4 200 15" "core2 4 0 0 0 skylake 4 250 16" \
  "sapphirerapids 32 1 1 1 sapphirerapids 6 300 17"; do
  set -- $case
  for run in "1 $PLUGIN" "13 $PLUGIN" "13 $PLUGIN7" "1009 $PLUGIN"; do
    P=${run%% *}
    checks=$((checks + 1))
    rm -f "$tmp/rec"
    qemu-x86_64 -plugin "${run#* },profile=$1,record=$tmp/rec,event=5300c0,event=5300c5,period=$P,branch=9,model=part:$6" \
      "$tmp/alt" >"$tmp/out" 2>"$tmp/err" ||
      fail "model branch stacks on $1: qemu-x86_64 failed: $(cat "$tmp/err")"
    "$DUMP" "$tmp/rec" >"$tmp/rec.txt" || fail "model branch stacks on $1: malformed stream"
    awk '$1 == "sample" { ev = $7; if (ev == 1 && P == 1) print $4 > MISP }
      $1 == "brstack" && ev == 0' P=$P MISP="$tmp/misp" "$tmp/rec.txt" >"$tmp/got"
    [ "$P" = 1 ] && cp "$tmp/misp" "$tmp/misp.$1"
    awk -v P=$P -v D=$2 -v ARCH=$3 -v FLAGS=$4 -v TIMED=$5 -v W=$7 -v MEM=$8 \
      -v PEN=$9 -v N=$AN -v PER=$APER -v ALT=$(asym alt) -v SKIP=$(asym skip) \
      -v BACK=$(asym back) -v TOP=$(asym top) '
    function cyc(T, c) { # the timing model at instruction T
      while (nm < nmisp && misp[nm + 1] <= T) nm++
      c = int((T + W - 1) / W) + MEM + PEN * nm
      return c
    }
    function rec(f, o) {
      n++; from[n] = f; to[n] = o; at[n] = t
      mp[n] = (t in ismisp); c = cyc(t); cy[n] = c - last; last = c
      nM += mp[n]
    }
    function fl(i) { return FLAGS ? (mp[i] ? 1 : 2) : 0 }
    function sample(i, line, m) {
      m = n < D ? n : D; line = ""
      for (i = 0; i < m; i++)
        line = line sprintf(" %x>%x/%x/%d", from[n - i], to[n - i], fl(n - i),
          TIMED ? cy[n - i] : 0)
      if (!ARCH) for (; m < D; m++) line = line sprintf(" 0>0/%x/0", FLAGS ? 2 : 0)
      printf "brstack %s %d%s\n", ARCH ? "ffffffffffffffff" : sprintf("%x", n % D),
        ARCH && n < D ? n : D, line
    }
    # One instruction; br 1: the taken JNZ at alt, 2: the one at back.
    function insn(br) {
      t++
      if (br == 1) rec(ALT, SKIP)
      if (br == 2) rec(BACK, TOP)
      if (t % P == 0) sample()
    }
    { nmisp++; misp[nmisp] = $1; ismisp[$1] = 1 }
    END {
      insn(0); insn(0)
      for (i = 1; i <= N; i++) {
        insn(0); insn(0); insn(i % PER ? 1 : 0)
        if (i % PER == 0) insn(0)
        insn(0); insn(i < N ? 2 : 0)
      }
      insn(0); insn(0); insn(0)
      if (!nM || nM == n) print "no mispredicted entry, or no other"
    }' "$tmp/misp.$1" >"$tmp/want"
    [ -s "$tmp/want" ] && cmp -s "$tmp/got" "$tmp/want" ||
      fail "model branch stacks, $1 period $P (${run#* }): $(diff "$tmp/want" "$tmp/got" | head -3 | cut -c1-300)"
  done
done
# The same in call-stack mode (17.9), where a return right after its call
# in the ring cancels it: the cycles still run from the return, the last
# LBR update. recurse.S's stacks (and data, whose cold lines cost the
# memory latency) at every 53rd instruction must be those of a run that
# feeds every branch at its block (period 1), with either ring.
for prof in skylake sapphirerapids; do
  for run in "1 $PLUGIN" "53 $PLUGIN" "53 $PLUGIN7"; do
    P=${run%% *}
    rm -f "$tmp/rec"
    qemu-x86_64 -plugin "${run#* },profile=$prof,record=$tmp/rec,event=5300c0,period=$P,branch=801,model=part:skylake" \
      "$tmp/recurse" >"$tmp/out" 2>"$tmp/err" || fail "recurse with the model on $prof: $(cat "$tmp/err")"
    "$DUMP" "$tmp/rec" | awk '$1 == "sample" { t = $4 } $1 == "brstack" && t % 53 == 0' >"$tmp/got"
    [ "$P" = 1 ] && mv "$tmp/got" "$tmp/want" && continue
    checks=$((checks + 1))
    [ -s "$tmp/want" ] && grep -q '/2/[1-9]' "$tmp/want" && cmp -s "$tmp/want" "$tmp/got" ||
      fail "call stack with the model on $prof (${run#* }): $(diff "$tmp/want" "$tmp/got" | head -3 | cut -c1-300)"
  done
done
# What branch= refuses: a profile without LBRs (Core Duo), LBR_SELECT's
# filters on Core 2 (no MSR_LBR_SELECT, 17.5), call-stack mode before
# Haswell (EN_CALLSTACK, 17.9), PEBS with it.
for case in "core-duo:9:no last branch records" \
  "core2:401:no MSR_LBR_SELECT" "sandybridge:801:no LBR call-stack mode" \
  "skylake:9,precise=1:without precise=1"; do
  checks=$((checks + 1))
  prof=${case%%:*} rest=${case#*:}
  qemu-x86_64 -plugin "$PLUGIN,profile=$prof,record=$tmp/rec,event=5300c0,period=100,branch=${rest%%:*}" \
    "$tmp/branchkinds" >"$tmp/out" 2>"$tmp/err" && fail "branch= on $prof accepted"
  grep -q "${rest#*:}" "$tmp/err" || fail "branch= on $prof: no message: $(cat "$tmp/err")"
done

# Counting by packed lanes (count.c: the lines the events count, one a
# lane; each block counted as it starts when no event counts NEAR_TAKEN)
# against the general path, which model= selects and which adds nothing
# to the exact lines' samples: the same stream, pids aside, with one lane
# (instructions), two with call chains, NEAR_TAKEN (counted by the next
# block), five lines (more than the lanes: the general path both times),
# a REP string instruction's repeats (rep.S) and a fork, each
# through the plugin that hands its sums over every 7 instructions too.
build rep -DN=300 -DL=5
for run in "plugin $PLUGIN" "plugin7 $PLUGIN7"; do
  for case in "record:event=5300c0,period=97" \
    "record:event=5300c0,event=5300c4,period=89,callgraph=1" \
    "record:event=5320c4,event=5300c0,period=31,callgraph=1" \
    "record:event=5300c0,event=5300c4,event=5301c4,event=5381d0,event=5382d0,period=53" \
    "rep:event=5300c0,event=5382d0,period=41" "rep:event=5320c4,period=7" \
    "fork:event=5300c4,period=50,callgraph=1"; do
    checks=$((checks + 1))
    name=${case%%:*} args=${case#*:}
    for m in "" ",model=part:skylake"; do
      rm -f "$tmp/rec"
      qemu-x86_64 -plugin "${run#* },record=$tmp/rec,comm=$name,$args$m" \
        "$tmp/$name" >"$tmp/out" 2>"$tmp/err" ||
        fail "$name ($args$m, ${run%% *}): qemu-x86_64 failed: $(cat "$tmp/err")"
      "$DUMP" "$tmp/rec" | awk '{ $2 = $3 = ""; print }' | sort >"$tmp/got$m"
    done
    grep -q '^sample' "$tmp/got" || fail "$name ($args): no samples"
    cmp -s "$tmp/got" "$tmp/got,model=part:skylake" ||
      fail "$name ($args, ${run%% *}): packed and general paths differ: $(diff "$tmp/got" "$tmp/got,model=part:skylake" | head -3)"
  done
done

# What the plugin refuses: a period of 0, record without a period, a
# period above half the counter's range (2^47 on Skylake's 48-bit
# counters with full-width writes, SDM Vol. 3B 18.2.6: the counter is
# preset to -period and must stay negative).
for args in "period=0" "" "period=140737488355329"; do
  checks=$((checks + 1))
  rm -f "$tmp/rec"
  qemu-x86_64 -plugin "$PLUGIN,record=$tmp/rec,event=5300c4${args:+,$args}" \
    "$tmp/record" >"$tmp/out" 2>"$tmp/err" && fail "record with '$args' accepted"
  grep -q "softpmu-qemu: .*period" "$tmp/err" ||
    grep -q "softpmu-qemu: .*refuses" "$tmp/err" ||
    fail "record with '$args': no message: $(cat "$tmp/err")"
done
finish

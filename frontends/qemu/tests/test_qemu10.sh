#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The plugin under QEMU 10 (plugin API 4) against QEMU 7.2 (API 1): the
# freestanding test programs, whose guest code is the same under both,
# must give the same exact counts (every exact event, counted by
# callbacks and inline) and the same samples (instruction, address, call
# chain; record mode with and without PEBS, and sampling instructions
# alone, which QEMU 10 counts by an inline budget: budget.c) under both. QEMU 10 runs a
# REP string instruction's iterations inside one block: the counts are
# still the hardware's, one per REP instruction (SDM Vol. 2B, REP), and
# the modelled events (model.c; the default model, part:skylake, and
# cachegrind's) count the same under both: each iteration is one to the
# model. Some programs compare their mispredicted branches alone: loads.S,
# since QEMU 10 shows a plugin no access of FXSAVE, FXRSTOR, XSAVE or
# XRSTOR in user mode (README.md, "QEMU versions"), and those that touch
# their stack (a call, a push, a signal's frame), whose lines depend on
# where the stack starts: the two QEMUs start it at different addresses
# for one environment (their auxiliary vectors differ), so such a
# program's data lines fall differently under each.
# With 8 after the arguments, the same comparison of QEMU 8.2 (Ubuntu
# 24.04's, plugin API 1 as 7.2's, which names a vDSO and gives the
# environment in order as 10 does: auxv.c and stack.c make the start 7.2's).
#   test_qemu10.sh CC SOFTPMU PLUGIN SRCDIR REC_DUMP [8]
# QEMU 10's qemu-x86_64 is $SOFTPMU_QEMU10 (8.2's $SOFTPMU_QEMU8); any
# QEMU from 9.2 on may be given there (Ubuntu 25.04's 9.2 and 25.10's
# 10.1 from scripts/qemu-user --ubuntu 25.04 and 25.10 are compared so):
# the version its --version names is the one compared and reported. Skipped
# (77, said why) when it is unset, a failure when SOFTPMU_REQUIRE_QEMU10=1
# (SOFTPMU_REQUIRE_QEMU8=1). QEMU 7.2 is qemu-x86_64 on PATH (need_qemu),
# or the cached one (below).
CC=$1 SOFTPMU=$2 PLUGIN=$3 SRC=$4 DUMP=$5 OTHER=${6:-10}
. "$(dirname "$0")/../../../cli/test_lib.sh"
need_qemu
case $OTHER in
8) SOFTPMU_QEMU10=${SOFTPMU_QEMU8:-} require=${SOFTPMU_REQUIRE_QEMU8:-0} api=1 ;;
*) require=${SOFTPMU_REQUIRE_QEMU10:-0} api=4 ;;
esac
if [ -z "${SOFTPMU_QEMU10:-}" ] || [ ! -x "$SOFTPMU_QEMU10" ]; then
  echo "SOFTPMU_QEMU$OTHER (QEMU $OTHER's qemu-x86_64 with plugins) not set or not executable: skipped"
  [ "$require" = 1 ] && exit 1
  exit 77
fi
# QEMU 7.2: need_qemu's, unless that is QEMU 9 or newer (on Debian 13 it is
# the 10.0 scripts/qemu-user built), then the 7.2 of scripts/qemu-user
# --debian 12 in the user's cache; without one, nothing to compare with:
# skipped, since every other test has run the plugin under QEMU 10 there.
QEMU7=$(command -v qemu-x86_64)
major=$("$QEMU7" --version | sed -n '1s/.*version \([0-9]*\)\..*/\1/p')
if [ "${major:-0}" -ge 9 ]; then
  QEMU7=$user_cache/softpmu/qemu-user-7.2/build/qemu-x86_64
  if [ ! -x "$QEMU7" ]; then
    echo "no QEMU 7.2 to compare QEMU 10 with (qemu-x86_64 is QEMU $major; scripts/qemu-user --debian 12 builds 7.2): skipped"
    exit 77
  fi
fi
# The other QEMU's version, as its --version names it (10.0, 9.2, 8.2...):
# the messages name it; from 9 on it starts the program as 10.0 does.
OTHER=$("$SOFTPMU_QEMU10" --version | sed -n '1s/.*version \([0-9]*\.[0-9]*\).*/\1/p')
[ -n "$OTHER" ] || fail "$SOFTPMU_QEMU10 --version names no version"
later=false
[ "${OTHER%%.*}" -lt 9 ] || later=true
unset SOFTPMU_QEMU
export SOFTPMU_QEMU_PLUGIN="$PLUGIN"

EVENTS=instructions,branches,r01c4,r02c4,r08c4,r20c4,r40c4,r81d0,r82d0
EVENTS_INLINE=instructions,branches,r01c4,r02c4,r08c4,r40c4,r81d0,r82d0

# status_counts N: "status=N event=count ..." from softpmu stat's report
# in $tmp/err.
status_counts() {
  echo "status=$1 $(awk 'NF == 2 && $1 ~ /^[0-9,]+$/ {
    gsub(",", "", $1); printf "%s=%s ", $2, $1 }' "$tmp/err")"
}

# counts QEMU EVENTS NAME: "status=N event=count ..." from softpmu stat.
counts() {
  "$SOFTPMU" stat --qemu "$1" -e "$2" -- "$tmp/$3" >"$tmp/out" 2>"$tmp/err"
  status_counts $?
}

# same_counts NAME: the stat counts of both QEMUs, both ways of counting.
same_counts() {
  for ev in "$EVENTS" "$EVENTS_INLINE"; do
    checks=$((checks + 1))
    a=$(counts "$QEMU7" "$ev" "$1")
    b=$(counts "$SOFTPMU_QEMU10" "$ev" "$1")
    case "$a" in *instructions=*) ;; *) fail "$1: no counts under 7.2: '$a'" ;; esac
    [ "$a" = "$b" ] || fail "$1 ($ev): QEMU 7.2 '$a', QEMU $OTHER '$b'"
  done
}

# The modelled events (lines.h), four at a time (no multiplexing).
MODELLED="r003c,r4f2e,r412e,r0151 r00c5,r01c5,r01d1,r02d1 r04d1,r08d1,r10d1,r20d1"

# model_counts QEMU SPEC EVENTS NAME: as counts, with --model SPEC (stat
# marks a modelled count "(model)").
model_counts() {
  "$SOFTPMU" stat --qemu "$1" --model "$2" -e "$3" -- "$tmp/$4" \
    >"$tmp/out" 2>"$tmp/err"
  echo "status=$? $(awk '$1 ~ /^[0-9,]+$/ && $3 == "(model)" {
    gsub(",", "", $1); printf "%s=%s ", $2, $1 }' "$tmp/err")"
}

# same_model NAME [EVENTS...]: the modelled counts of both QEMUs, both
# models (EVENTS: those groups, else MODELLED's).
same_model() {
  name=$1
  shift
  [ $# -gt 0 ] || set -- $MODELLED
  for spec in part:skylake cachegrind; do
    for ev in "$@"; do
      checks=$((checks + 1))
      a=$(model_counts "$QEMU7" "$spec" "$ev" "$name")
      b=$(model_counts "$SOFTPMU_QEMU10" "$spec" "$ev" "$name")
      case "$a" in *=*=*) ;; *) fail "$name: no modelled counts under 7.2: '$a'" ;; esac
      [ "$a" = "$b" ] || fail "$name ($spec, $ev): QEMU 7.2 '$a', QEMU $OTHER '$b'"
    done
  done
}

# samples QEMU NAME ARGS: the plugin's record stream (preloaded, as
# softpmu record runs it, for its kill and sigaction hooks), as text, without
# the process and thread ids, sorted (threads interleave as the host runs
# them).
samples() {
  rm -f "$tmp/rec"
  LD_PRELOAD="$PLUGIN" "$1" -U LD_PRELOAD \
    -plugin "$PLUGIN,record=$tmp/rec,comm=$2,$3" "$tmp/$2" \
    >"$tmp/out" 2>"$tmp/err"
  "$DUMP" "$tmp/rec" | awk '{ $2 = $3 = ""; print }' | sort
}

# same_samples NAME ARGS
same_samples() {
  checks=$((checks + 1))
  samples "$QEMU7" "$1" "$2" >"$tmp/s7"
  samples "$SOFTPMU_QEMU10" "$1" "$2" >"$tmp/s10"
  # A program a signal ends: QEMU 10 calls the exit callback first, so
  # its stream has the thread's EXIT record; QEMU 7.2's has none (softpmu
  # record adds it at the last time it saw), nor has 8.2's. The rest must
  # be the same.
  if [ "$1" = signal ] && $later; then
    checks=$((checks + 1))
    grep -q '^exit ' "$tmp/s10" || fail "signal: no exit record under QEMU $OTHER"
    grep -v '^exit ' "$tmp/s10" >"$tmp/s10x"
    mv "$tmp/s10x" "$tmp/s10"
  fi
  grep -q '^sample' "$tmp/s7" || fail "$1 ($2): no samples under 7.2"
  cmp -s "$tmp/s7" "$tmp/s10" ||
    fail "$1 ($2): samples differ: $(diff "$tmp/s7" "$tmp/s10" | head -4)"
}

# The plugin states the API version it runs at (stat -v).
checks=$((checks + 1))
"$SOFTPMU" stat -v --qemu "$SOFTPMU_QEMU10" -e instructions -- /bin/true \
  >/dev/null 2>"$tmp/err"
grep -q "plugin API version $api\$" "$tmp/err" ||
  fail "stat -v under QEMU $OTHER: '$(head -n 1 "$tmp/err")', want API version $api"

build alt -DN=1000 -DPERIOD=4
build atomic -DN=1000 -DPERIOD=4
build avx -DN=1000 -DOFF=60 -DSTRIDE=64
build branches -DN=1000
build branchkinds -DN=100
build callchain -DN=1000
build fork -DP=3000 -DC=5000
build loads -DN=100 -DL=256 -DSTRIDE=1024
build loop -DN=10000
build mem -DN=1000
build pagecross -DN=1000
build record -DN=1000
build recurse -DD=40 -DN=5
build rep -DN=300 -DL=5
"$CC" -nostdlib -static -DN=3 -DL=1048576 -o "$tmp/rep_big" "$SRC/rep.S" ||
  fail "rep (1 MiB): does not assemble"
build signal
build stride -DP=3 -DNL=1000
build threads -DT=4 -DM=1000 -DW=2000
for p in alt atomic avx branches branchkinds callchain fork loads loop mem \
  pagecross record recurse rep rep_big signal stride threads; do
  same_counts $p
  case $p in
  loads | branches | branchkinds | callchain | loop | record | recurse | signal)
    same_model $p r00c5,r01c5
    ;;
  *) same_model $p ;;
  esac
done
# Ordinary libc programs (libc.c, dynamic and static), in a set
# environment: the plugin starts them as QEMU 7.2 does (auxv.c): no vDSO,
# the environment last variable first; --vdso leaves QEMU 10's start as
# it is. Both, static and dynamic, retire the same events under both and
# print the same (the dynamic linker's pages follow one another as under
# 7.2: -tb-size and the holes closed, README.md, "The guest's layout").
# libc_run QEMU EVENTS NAME [OPTION]: as counts, its output in $tmp/libc.
libc_run() {
  env -i PATH="$PATH" AA=1 BB=22 CCC=333 "$SOFTPMU" stat --qemu "$1" $4 \
    -e "$2" -- "$tmp/$3" AA CCC ZZ >"$tmp/libc" 2>"$tmp/err"
  status_counts $?
}
"$CC" -O2 -o "$tmp/libc_dyn" "$SRC/libc.c" || fail "libc.c: does not build"
"$CC" -O2 -static -o "$tmp/libc_static" "$SRC/libc.c" ||
  fail "libc.c: does not build -static"
for p in libc_static libc_dyn; do
  for ev in "$EVENTS" "$EVENTS_INLINE"; do
    checks=$((checks + 1))
    a=$(libc_run "$QEMU7" "$ev" $p)
    cp "$tmp/libc" "$tmp/libc7"
    b=$(libc_run "$SOFTPMU_QEMU10" "$ev" $p)
    case "$a" in *instructions=*) ;; *) fail "$p: no counts under 7.2: '$a'" ;; esac
    cmp -s "$tmp/libc7" "$tmp/libc" ||
      fail "$p: output differs: $(diff "$tmp/libc7" "$tmp/libc" | head -4)"
    [ "$a" = "$b" ] || fail "$p ($ev): QEMU 7.2 '$a', QEMU $OTHER '$b'"
  done
  checks=$((checks + 1))
  same "$tmp/libc7" "vdso=0 found=2 first=2697667 last=4291593908
CCC=333
BB=22
AA=1
PATH=$PATH" || fail "$p under QEMU 7.2: not the output above"
  checks=$((checks + 1))
  libc_run "$SOFTPMU_QEMU10" instructions $p --vdso >/dev/null
  same "$tmp/libc" "vdso=1 found=2 first=2697667 last=4291593908
PATH=$PATH
AA=1
BB=22
CCC=333" || fail "$p --vdso under QEMU $OTHER: not the output above"
done
# A program whose path makes its line of /proc/self/maps longer than 512
# bytes (PATH_MAX allows 4096): the plugin reads each line whole (layout.c,
# stack.c), finds the start under QEMU 8.2 too, and counts as under 7.2.
deep=d$(printf '%0200d' 0)/e$(printf '%0200d' 0)/f$(printf '%0150d' 0)
mkdir -p "$tmp/$deep" && cp "$tmp/libc_dyn" "$tmp/$deep/" ||
  fail "cannot copy libc_dyn to a long path"
checks=$((checks + 1))
a=$(libc_run "$QEMU7" "$EVENTS" "$deep/libc_dyn")
b=$(libc_run "$SOFTPMU_QEMU10" "$EVENTS" "$deep/libc_dyn")
case "$a" in *instructions=*) ;; *) fail "long path: no counts under 7.2: '$a'" ;; esac
! grep -q 'softpmu-qemu: cannot' "$tmp/err" ||
  fail "long path under QEMU $OTHER: $(grep 'softpmu-qemu: cannot' "$tmp/err")"
[ "$a" = "$b" ] || fail "long path: QEMU 7.2 '$a', QEMU $OTHER '$b'"
# The program's own "-E" is not one of QEMU's (cmdline.c counts QEMU's -E
# options before the program): its environment is reversed as under 7.2.
checks=$((checks + 1))
for q in "$QEMU7" "$SOFTPMU_QEMU10"; do
  env -i PATH="$PATH" AA=1 BB=22 "$SOFTPMU" stat --qemu "$q" -e "$EVENTS" \
    -- "$tmp/libc_dyn" -E >"$tmp/libc" 2>"$tmp/err"
  echo "status=$? $(awk 'NF == 2 && $1 ~ /^[0-9,]+$/ {
    gsub(",", "", $1); printf "%s=%s ", $2, $1 }' "$tmp/err")" >>"$tmp/libc"
  [ "$q" = "$QEMU7" ] && cp "$tmp/libc" "$tmp/libc7"
done
grep -q '^AA=1$' "$tmp/libc7" || fail "libc_dyn -E under 7.2: $(head -3 "$tmp/libc7")"
cmp -s "$tmp/libc7" "$tmp/libc" ||
  fail "libc_dyn -E: QEMU 7.2 and $OTHER differ: $(diff "$tmp/libc7" "$tmp/libc" | head -6)"
# Dynamic system programs, one process and two (sh, then /bin/true through
# the execve the plugin follows: QEMU's -tb-size carried over), in a set
# environment: the same exact counts under both.
# sys_counts QEMU EVENTS PROG ARGS...: as counts.
sys_counts() {
  q=$1
  ev=$2
  shift 2
  env -i PATH="$PATH" HOME=/tmp LANG=C PYTHONHASHSEED=0 PERL_HASH_SEED=0 \
    PERL_PERTURB_KEYS=0 "$SOFTPMU" stat --qemu "$q" -e "$ev" \
    -- "$@" >"$tmp/out" 2>"$tmp/err"
  status_counts $?
}
# same_sys EVENTS PROG ARGS...: sys_counts of both QEMUs.
same_sys() {
  checks=$((checks + 1))
  ev=$1
  shift
  a=$(sys_counts "$QEMU7" "$ev" "$@")
  cp "$tmp/out" "$tmp/out7"
  b=$(sys_counts "$SOFTPMU_QEMU10" "$ev" "$@")
  case "$a" in *instructions=*) ;; *) fail "$*: no counts under 7.2: '$a'" ;; esac
  [ "$a" = "$b" ] || fail "$* ($ev): QEMU 7.2 '$a', QEMU $OTHER '$b'"
  cmp -s "$tmp/out7" "$tmp/out" ||
    fail "$*: output differs: $(diff "$tmp/out7" "$tmp/out" | head -4)"
}
# The programs by their resolved paths: QEMU 8.2, 9.2 and 10.1 name a
# program in AT_EXECFN by its realpath, 7.2 and 10.0 as given, and the
# string's length moves every string of the start (README.md, "The
# program's start"; python3, a link to python3.11, retired 8 instructions
# more or 42 fewer, by environment, under 9.2 and 10.1 than under 7.2 by
# that name alone: python3 is run by its real path below).
true_=$(realpath /bin/true)
sh_=$(realpath /bin/sh)
# same_sys_sh EVENTS: same_sys of `sh -c 'exec true'`. dash formats its
# parent's pid ($PPID) as it starts, so its count follows the pid's digits,
# which the host assigns: the shell prints how many there are, and the
# pair is run again (three times at most) when the two runs had different
# ones, so that only runs alike in that are compared.
same_sys_sh() {
  for try in 1 2 3; do
    a=$(sys_counts "$QEMU7" "$1" "$sh_" -c "echo \${#PPID}; exec $true_")
    cp "$tmp/out" "$tmp/out7"
    b=$(sys_counts "$SOFTPMU_QEMU10" "$1" "$sh_" -c "echo \${#PPID}; exec $true_")
    cmp -s "$tmp/out7" "$tmp/out" || continue
    checks=$((checks + 1))
    case "$a" in *instructions=*) ;; *) fail "sh -c: no counts under 7.2: '$a'" ;; esac
    [ "$a" = "$b" ] || fail "sh -c 'exec true' ($1): QEMU 7.2 '$a', QEMU $OTHER '$b'"
    return
  done
  fail "sh -c 'exec true': the parent's pid had a different number of digits in 3 runs"
}
for ev in "$EVENTS" "$EVENTS_INLINE"; do
  same_sys "$ev" "$true_"
  # exec: a lone command dash would vfork, its wait racing the child.
  same_sys_sh "$ev"
done
# Programs that read their /proc/self/maps, which QEMU fakes: 7.2 prints
# the host's mappings of the guest, each with its first page's flags; 10
# its own table of the guest's pages (8.2 too), so under 10 and 8.2 the
# plugin writes 7.2's text into the file QEMU opened (procmaps.c):
# procmaps.c (through openat and open, as /proc/self/maps and
# /proc/PID/maps, a PROT_NONE page the host merges with the plugin's
# reservation, pthread_getattr_np), and grep, whose libsigsegv reads the
# file at start: the same text and counts under both (under 8.2 with the
# host page of the guest's vsyscall page reserved, layout.c: else its
# open_self_maps faults under a guest base).
"$CC" -O2 -o "$tmp/procmaps" "$SRC/procmaps.c" || fail "procmaps.c: does not build"
{
  for ev in "$EVENTS" "$EVENTS_INLINE"; do
    same_sys "$ev" "$tmp/procmaps"
  done
  checks=$((checks + 1))
  [ "$(grep -c '^4000000000-[0-9a-f]* r--p 00000000 .* '"$tmp/procmaps"'$' "$tmp/out7")" = 2 ] &&
    [ "$(grep -c '^40[0-9a-f]*-[0-9a-f]* rw-p 00000000 00:00 0  *\[stack\]$' "$tmp/out7")" = 2 ] &&
    [ "$(grep -c '^ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0  *\[vsyscall\]$' "$tmp/out7")" = 2 ] &&
    grep -q '^stack=0x40[0-9a-f]*000$' "$tmp/out7" &&
    ! grep -q 'heap\]\|vdso\]' "$tmp/out7" ||
    fail "procmaps under QEMU 7.2: $(head -5 "$tmp/out7")"
  same_sys instructions,branches "$(realpath "$(command -v grep)")" -c a \
    "$SRC/procmaps.c"
}
# Programs whose path depends on the guest's addresses: under QEMU 8.2 and
# 10 the plugin keeps QEMU 7.2's (layout.c: the program at 0x4000000000, its heap,
# the stack, the dynamic linker, libc, each mapping after the last) and
# starts the stack pointer one page below 7.2's, at its page offset (the
# stack's padding, auxv.c): a local array's strlen, memmove between the
# stack and the heap (layout.c, which prints the addresses it saw), python
# (its allocator checks address ranges, its arenas' alignment; hash seed
# fixed), perl (hash seed fixed), and layout through an execve (env: sh
# formats its parent's pid, whose digits vary run to run).
"$CC" -O2 -o "$tmp/layout" "$SRC/layout.c" || fail "layout.c: does not build"
for ev in "$EVENTS" "$EVENTS_INLINE"; do
  same_sys "$ev" "$tmp/layout"
done
checks=$((checks + 1))
grep -q '^total=289943 .* heap=0x4000[0-9a-f]* .*heap<local=1 big<local=0$' \
  "$tmp/out7" || fail "layout under QEMU 7.2: $(cat "$tmp/out7")"
same_sys instructions "$(realpath "$(command -v env)")" "$tmp/layout"
same_sys instructions perl -e 1
same_sys instructions,branches perl -e \
  'my %h = map { $_ => $_ * 2 } 1 .. 500; my $s = 0; $s += $h{$_} for sort keys %h; print "$s\n"'
if command -v python3 >/dev/null; then
  python3_=$(realpath "$(command -v python3)")
  same_sys instructions "$python3_" -c pass
  same_sys instructions,branches "$python3_" -c \
    'd = {str(i): [i] * (i % 7) for i in range(3000)}; print(sum(map(len, d.values())))'
fi

# Mappings the host kernel puts at a 2 MiB boundary (transparent huge
# pages): a file's of 2 MiB or more, an anonymous one whose length is a
# multiple of 2 MiB. 7.2 puts each after the last; under QEMU 10 the
# plugin places them where the kernel's first fit without that alignment
# is (layout.c): thp.c maps a 2,240,000-byte file (made next to the
# build, on its file system: a tmpfs /tmp may not align), 4 MiB and 1
# MiB, moves the latter to 8 MiB (mremap; QEMU finds the place with a
# mapping of its own) and attaches 4 MiB of System V shared memory (the
# same), and copies between them; cc1 (gcc's compiler proper, when
# installed) maps libisl (2 MiB) that way. The same under QEMU 8.2.
{
  thp_dir=$(mktemp -d "$PWD/qemu10-thp.XXXXXX") || thp_dir=$tmp
  trap 'rm -rf "$tmp" "$thp_dir"' EXIT INT TERM
  awk 'BEGIN { for (i = 0; i < 40000; i++) printf "%055d\n", i }' \
    >"$thp_dir/big"
  "$CC" -O2 -o "$tmp/thp" "$SRC/thp.c" || fail "thp.c: does not build"
  for ev in "$EVENTS" "$EVENTS_INLINE"; do
    same_sys "$ev" "$tmp/thp" "$thp_dir/big"
  done
  # Under 7.2 each mapping right after the last (the file's length in whole
  # pages, 0x223000, then 4 MiB, 1 MiB, 8 MiB), strlen's lengths summed
  # three times (twice without System V IPC).
  checks=$((checks + 1))
  read -r t f b s m sh <<EOF
$(sed -n 's/^total=\([0-9]*\) file=\(0x40[0-9a-f]\{8\}\) big=\(0x[0-9a-f]*\) small=\(0x[0-9a-f]*\) moved=\(0x[0-9a-f]*\) shm=\(0x[0-9a-f]*\|0\) .*/\1 \2 \3 \4 \5 \6/p' "$tmp/out7")
EOF
  case "$t:$sh" in
  1316418:0x*) [ $((sh)) = $((m + 0x800000)) ] || t= ;;
  877612:0) ;;
  *) t= ;;
  esac
  [ -n "$t" ] && [ $((b)) = $((f + 0x223000)) ] && [ $((s)) = $((b + 0x400000)) ] &&
    [ $((m)) = $((s + 0x100000)) ] ||
    fail "thp under QEMU 7.2: $(cat "$tmp/out7")"
  cc1=$(gcc -print-prog-name=cc1 2>/dev/null)
  if [ -x "$cc1" ] && [ "${cc1#/}" != "$cc1" ]; then
    echo 'int main(void){return 0;}' >"$tmp/t.c"
    # to /dev/null: cc1 writes a file it creates and one it replaces with
    # different instructions
    same_sys instructions "$cc1" -quiet "$tmp/t.c" -o /dev/null
  else
    echo "no cc1 (gcc -print-prog-name=cc1): its case skipped"
  fi
}

# The same command gives the same modelled counts on every run under QEMU
# 10 too, a dynamic program's included: QEMU 10 lets the host kernel place
# the guest's libraries, and softpmu runs it without address randomisation
# in the bottom-up layout, with a guest base and one malloc arena
# (perf/qemu_run.c, plugin.c; docs/decisions.md #98), so the guest's
# addresses, on which the modelled caches and predictors depend, are the
# same every time.
# model_twice NAME PROG ARGS...: two runs of stat's default events.
model_twice() {
  name=$1
  shift
  for i in 1 2; do
    checks=$((checks + 1))
    env -i PATH="$PATH" HOME=/tmp LANG=C "$SOFTPMU" stat \
      --qemu "$SOFTPMU_QEMU10" -x , -- "$@" >/dev/null 2>"$tmp/err" ||
      fail "$name: stat under QEMU $OTHER failed: $(cat "$tmp/err")"
    # the count and the event, not the time enabled
    awk -F , '$1 ~ /^[0-9]+$/ { print $1, $3, $NF }' "$tmp/err" >"$tmp/m$i"
  done
  grep -q '^[0-9]* cycles model$' "$tmp/m1" ||
    fail "$name: no modelled cycles under QEMU $OTHER: $(head -3 "$tmp/m1")"
  cmp -s "$tmp/m1" "$tmp/m2" ||
    fail "$name: modelled counts differ run to run under QEMU $OTHER: $(diff "$tmp/m1" "$tmp/m2" | head -4)"
}
model_twice true /bin/true
model_twice libc_dyn "$tmp/libc_dyn" AA CCC ZZ
model_twice gzip gzip -c "$SRC/libc.c"

# Through an execve the plugin follows (exec.c), LD_PRELOAD handed by -E:
# the same environment, in the same order, under both.
for q in "$QEMU7" "$SOFTPMU_QEMU10"; do
  env -i PATH="$PATH" AA=1 BB=22 "$SOFTPMU" stat --qemu "$q" -e instructions \
    -- sh -c "CCC=333 LD_PRELOAD=/nonexistent.so exec $tmp/libc_static AA" \
    >"$tmp/libc" 2>"$tmp/err"
  [ "$q" = "$QEMU7" ] && cp "$tmp/libc" "$tmp/libc7"
done
checks=$((checks + 1))
grep -q '^LD_PRELOAD=/nonexistent.so$' "$tmp/libc7" ||
  fail "sh -c 'exec libc_static' under QEMU 7.2: $(head -3 "$tmp/libc7")"
cmp -s "$tmp/libc7" "$tmp/libc" ||
  fail "sh -c 'exec libc_static': $(diff "$tmp/libc7" "$tmp/libc" | head -4)"

# --seed 1: the same random bytes under both (getrandom's from the
# plugin's generator, AT_RANDOM's from QEMU's -seed, which both QEMUs
# draw alike), the exact ones test_stat.sh names.
"$CC" -nostdlib -static -ffreestanding -fno-stack-protector -O2 \
  -o "$tmp/random" "$SRC/random.c" || fail "random.c: does not build"
for q in "$QEMU7" "$SOFTPMU_QEMU10"; do
  checks=$((checks + 1))
  "$SOFTPMU" stat --qemu "$q" --seed 1 -e instructions -- "$tmp/random" \
    >"$tmp/out" 2>"$tmp/err"
  same "$tmp/out" "getrandom=c15c0289ec2d0a9167ec8e65a18debbe
at_random=f5b165224a58b791df6af1d8303e61cd" ||
    fail "--seed 1 under $q: $(cat "$tmp/out" "$tmp/err")"
done

for case in "record:event=5300c0,period=97" \
  "record:event=5300c0,event=5300c4,period=89,callgraph=1" \
  "record:event=5320c4,event=5300c0,period=31,callgraph=1" \
  "rep:event=5300c0,event=5382d0,period=41" "rep:event=5320c4,period=7" \
  "rep_big:event=5300c0,event=5382d0,period=3" \
  "branches:event=5300c0,event=5301c4,event=5381d0,event=5382d0,period=53" \
  "record:event=5300c0,period=1009,precise=1" \
  "loads:event=5300c0,event=5381d0,period=17" \
  "record:event=5300c0,period=1" "record:event=5300c0,period=10007" \
  "rep:event=5300c0,period=7" "rep_big:event=5300c0,period=3" \
  "threads:event=5300c0,period=101" "fork:event=5300c0,period=50" \
  "signal:event=5300c0,period=13" "loads:event=5300c0,period=5" \
  "recurse:event=5300c0,period=53,callgraph=1" \
  "fork:event=5300c4,period=50,callgraph=1"; do
  same_samples "${case%%:*}" "${case#*:}"
done
finish

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The modelled micro-architecture (plugin argument model=SPEC, model.c):
# its events reach the PMU model as event lines (lines.h, enum mline) and
# count what the stated model gives on programs known by construction.
#   test_model.sh cachegrind CC PLUGIN SRCDIR
#     the cachegrind configuration against valgrind's cachegrind
#     (--cache-sim=yes --branch-sim=yes --vex-guest-chase=no, the same
#     --I1/--D1/--LL; without chasing VEX translates each block as the
#     program runs it, as callgrind does by default: chasing past a branch
#     drops conditional branches it can decide, tests/branches.S's JE):
#     L1D.REPLACEMENT = D1mr + D1mw, LONGEST_LAT_CACHE.REFERENCE = I1mr +
#     D1mr + D1mw, LONGEST_LAT_CACHE.MISS = ILmr + DLmr + DLmw,
#     BR_MISP_RETIRED.ALL_BRANCHES = Bcm + Bim, .CONDITIONAL = Bcm, on
#     freestanding programs; the differences of definition checked exactly;
#     and the counts by construction.
#   test_model.sh part CC PLUGIN SRCDIR REC_DUMP REPLAY
#     the part configurations: counts by construction, per-thread models,
#     samples of a modelled event on the load that caused it, refusals.
# Skipped (77) without a qemu-x86_64 that loads plugins (need_qemu) and,
# for cachegrind, without valgrind, unless SOFTPMU_REQUIRE_QEMU=1
# (SOFTPMU_REQUIRE_VALGRIND=1 for valgrind).
MODE=$1 CC=$2 PLUGIN=$3 SRC=$4 DUMP=$5 REPLAY=$6
need() { # TOOL REQUIRE_VARIABLE_VALUE
  command -v "$1" >/dev/null 2>&1 && return 0
  echo "$1 not found: skipped"
  [ "$2" = 1 ] && exit 1
  exit 77
}
. "$(dirname "$0")/../../../cli/test_lib.sh"
need_qemu
[ "$MODE" = cachegrind ] && need valgrind "${SOFTPMU_REQUIRE_VALGRIND:-0}"

# IA32_PERFEVTSELx values (EN, USR, OS; SDM Vol. 3B 18.2.1.1) of the
# modelled events (lines.h) and of INST_RETIRED.ANY_P.
INST=4300c0 CYCLES=43003c LLC_REF=434f2e LLC_MISS=43412e L1D_REPL=430151
MISP=4300c5 MISP_COND=4301c5 LD_L1_HIT=4301d1 LD_L2_HIT=4302d1
LD_L3_HIT=4304d1 LD_L1_MISS=4308d1 LD_L2_MISS=4310d1 LD_L3_MISS=4320d1

sym() { # PROGRAM SYMBOL: its address, decimal
  printf '%d' "0x$(nm "$tmp/$1" | awk -v s="$2" '$3 == s { print $1 }')"
}

# QEMU's option syntax splits the plugin's arguments at commas; a comma in
# a value is written twice.
esc() { printf '%s' "$1" | sed 's/,/,,/g'; }

# counts SPEC EVENTS PROGRAM [ARGS]: the plugin's counts of EVENTS (comma
# separated selects), in order, on one line, in $got.
counts() {
  spec=$1 events=$2
  shift 2
  rm -f "$tmp/counts"
  args=$(printf '%s' "$events" | sed 's/\([^,]*\)/event=\1/g')
  qemu-x86_64 -plugin "$PLUGIN,out=$tmp/counts,$args,model=$(esc "$spec")" \
    "$@" >/dev/null 2>"$tmp/qerr" || fail "$*: qemu-x86_64 failed: $(cat "$tmp/qerr")"
  got=$(awk '$1 == "event" { printf "%s%s", sep, $3; sep = " " }' "$tmp/counts")
}

check() { # WHAT GOT WANT
  checks=$((checks + 1))
  [ "$2" = "$3" ] || fail "$1: got $2, want $3"
}

# Lines of text between two symbols of a program: each is fetched, missed
# once by a cold cache, and kept by an L1I larger than the program.
code_lines() { # PROGRAM FIRST END
  a=$(sym "$1" "$2") b=$(sym "$1" "$3")
  echo $(((b - 1) / 64 - a / 64 + 1))
}

# ---- the cachegrind configuration against cachegrind -------------------
if [ "$MODE" = cachegrind ]; then
  # cg NAME I1 D1 LL [ARGS]: cachegrind's summary of $tmp/NAME into cg_*
  # and the plugin's counts into sp_*.
  cg() {
    name=$1 i1=$2 d1=$3 ll=$4
    shift 4
    valgrind -q --tool=cachegrind --cache-sim=yes --branch-sim=yes \
      --vex-guest-chase=no \
      --I1="$i1" --D1="$d1" --LL="$ll" --cachegrind-out-file="$tmp/cg.out" \
      "$tmp/$name" "$@" >/dev/null 2>"$tmp/vgerr" ||
      fail "$name: valgrind failed: $(cat "$tmp/vgerr")"
    eval "$(awk '/^events:/ { for (i = 2; i <= NF; i++) n[i] = $i }
      /^summary:/ { for (i = 2; i <= NF; i++) v[n[i]] = $i }
      END { printf "cg_repl=%d cg_ref=%d cg_miss=%d cg_misp=%d cg_cond=%d",
        v["D1mr"] + v["D1mw"], v["I1mr"] + v["D1mr"] + v["D1mw"],
        v["ILmr"] + v["DLmr"] + v["DLmw"], v["Bcm"] + v["Bim"], v["Bcm"]
        printf " cg_dr=%d cg_d1mr=%d\n", v["Dr"], v["D1mr"] }' \
      "$tmp/cg.out")"
    counts "cachegrind:I1=$i1:D1=$d1:LL=$ll" \
      "$L1D_REPL,$LLC_REF,$LLC_MISS,$MISP,$MISP_COND,$LD_L1_HIT,$LD_L1_MISS" \
      "$tmp/$name" "$@"
    set -- $got
    sp_repl=$1 sp_ref=$2 sp_miss=$3 sp_misp=$4 sp_cond=$5
    sp_dr=$(($6 + $7)) sp_d1mr=$7
  }
  # equal NAME I1 D1 LL [ARGS]: every compared count is cachegrind's.
  equal() {
    label="$1 ($2 $3 $4)"
    cg "$@"
    check "$label: L1D.REPLACEMENT = D1mr + D1mw" "$sp_repl" "$cg_repl"
    check "$label: LONGEST_LAT_CACHE.REFERENCE = I1mr + D1mr + D1mw" \
      "$sp_ref" "$cg_ref"
    check "$label: LONGEST_LAT_CACHE.MISS = ILmr + DLmr + DLmw" \
      "$sp_miss" "$cg_miss"
    check "$label: BR_MISP_RETIRED.ALL_BRANCHES = Bcm + Bim" \
      "$sp_misp" "$cg_misp"
    check "$label: BR_MISP_RETIRED.CONDITIONAL = Bcm" "$sp_cond" "$cg_cond"
  }
  # loads NAME I1 D1 LL [ARGS]: equal, and the reads too (Dr, D1mr). Not
  # on every program: VEX drops a load whose value nothing uses (mem.S's
  # TEST, whose flags DEC overwrites), which the processor still makes.
  loads() {
    equal "$@"
    check "$label: MEM_LOAD_RETIRED.L1_HIT + .L1_MISS = Dr" "$sp_dr" "$cg_dr"
    check "$label: MEM_LOAD_RETIRED.L1_MISS = D1mr" "$sp_d1mr" "$cg_d1mr"
  }
  G1="32768,8,64 4096,2,64 65536,4,64"
  G2="16384,4,32 8192,4,32 131072,8,32"
  build mem -DN=1000
  build record -DN=1000
  build pagecross -DN=1000
  build loop -DN=1000
  build rep -DN=100 -DL=1000
  for g in "$G1" "$G2"; do
    for p in mem record pagecross loop rep; do
      equal $p $g
    done
  done
  # The strided walk: NL lines, P passes (stride.S). Under G1 (D1 of 64
  # lines, LL of 1024): 512 lines miss D1 on every pass and LL once;
  # 2048 lines miss both on every pass; the code misses I1 and LL once
  # per line of text.
  build stride -DNL=512 -DP=3
  equal stride $G1
  code=$(code_lines stride _start text_end)
  check "stride 512x3: D1 misses by construction" "$sp_repl" 1536
  check "stride 512x3: LL misses by construction" "$sp_miss" $((512 + code))
  build stride -DNL=2048 -DP=2
  equal stride $G1
  equal stride $G2
  cg stride $G1
  check "stride 2048x2: D1 misses by construction" "$sp_repl" 4096
  check "stride 2048x2: LL misses by construction" "$sp_miss" $((4096 + code))
  # avx.S: 32-byte loads and stores (VMOVDQU ymm), which QEMU makes in
  # pieces of 8 and VEX whole, are one access each (model.c), within a
  # line or across two: one reference, a miss if either line missed, as
  # cachegrind counts it. By construction under G1: N reads (Dr); the
  # first access of an iteration misses once in place (STRIDE 0) and on
  # every iteration walking (STRIDE 64, 128), and the second hits: D1mr
  # is those misses when the load is first, 0 when the store is.
  for c in "0 0" "32 0" "48 0" "0 64" "48 64" "48 128" \
    "48 0 -DSTORE_FIRST" "48 64 -DSTORE_FIRST" "48 128 -DSTORE_FIRST"; do
    set -- $c
    build avx -DN=1000 -DOFF=$1 -DSTRIDE=$2 $3
    loads avx $G2
    loads avx $G1
    miss=$((1 + 999 * ($2 > 0))) d1mr=$miss
    [ -n "$3" ] && d1mr=0
    check "avx OFF=$1 STRIDE=$2 $3: Dr, D1mr, L1D.REPLACEMENT by construction" \
      "$sp_dr $sp_d1mr $sp_repl" "1000 $d1mr $miss"
  done
  # A branch with a known period (alt.S): equal to cachegrind, and each
  # further period of 64 iterations costs exactly one mispredict, the
  # iteration whose outcome differs (its history, the last 7 outcomes, is
  # the same as the iterations' around it).
  for n in 1024 1088 1280; do
    build alt -DN=$n -DPERIOD=64
    equal alt $G1
    eval "misp_$n=$sp_misp"
  done
  build alt -DN=1000 -DPERIOD=4
  equal alt $G1
  check "alt: one more period, one more mispredict" $((misp_1088 - misp_1024)) 1
  check "alt: four more periods, four more" $((misp_1280 - misp_1024)) 4
  # loop.S, one branch taken 999 times then not: cachegrind's 2-bit
  # counters start at 0 (not taken) and are indexed by the last 7
  # outcomes: the first 8 outcomes meet a fresh counter each and are
  # mispredicted, the 9th finds the all-taken counter at 1 (mispredicted,
  # now 2); from then on taken is predicted, and the last outcome is
  # mispredicted: 10.
  cg loop $G1
  check "loop: mispredicts by construction" "$sp_cond" 10
  # A REP string instruction: cachegrind fetches it once per iteration
  # and once more for the final check of RCX, and counts each check as a
  # conditional branch but the first of a run, which VEX decides when it
  # translates the block that set RCX to a constant; the model, which
  # cannot know that, counts one branch per check. The counts compared
  # above are equal nonetheless on rep.S.
  # branches.S: the caches and the conditional branches are equal; the
  # indirect ones are not, by definition: VEX folds the JMP through a
  # register just loaded with a constant into a direct jump, so cachegrind
  # counts one indirect branch fewer per iteration (Bc 3000, Bi 1000 for
  # N = 1000) and its indirect mispredicts differ. (With chasing, VEX's
  # default, it also drops the JE after CMP r, r: Bc 2000.)
  build branches -DN=1000
  cg branches $G1
  check "branches: L1D.REPLACEMENT = D1mr + D1mw" "$sp_repl" "$cg_repl"
  check "branches: LONGEST_LAT_CACHE.MISS = ILmr + DLmr + DLmw" \
    "$sp_miss" "$cg_miss"
  check "branches: BR_MISP_RETIRED.CONDITIONAL = Bcm" "$sp_cond" "$cg_cond"
  bc=$(awk '/^events:/ { for (i = 2; i <= NF; i++) n[i] = $i }
    /^summary:/ { for (i = 2; i <= NF; i++) if (n[i] == "Bc" || n[i] == "Bi") printf "%s ", $i }' "$tmp/cg.out")
  check "branches: cachegrind's Bc and Bi (VEX folds the indirect JMP)" "$bc" "3000 1000 "
  # atomic.S: an atomic read-modify-write (XCHG m, LOCK ADD) is, for
  # cachegrind, a conditional branch never taken (VEX's compare-and-swap
  # restarts the instruction through a conditional exit), which enters
  # the predictor's history and counters; the model counts it so, and
  # the mispredicts are equal (with a period of 4, 263 where the model
  # without that rule gave 21). LOCK CMPXCHG is no branch.
  for per in 4 8; do
    build atomic -DN=1000 -DPERIOD=$per
    equal atomic $G1
    bc=$(awk '/^events:/ { for (i = 2; i <= NF; i++) n[i] = $i }
      /^summary:/ { for (i = 2; i <= NF; i++) if (n[i] == "Bc") print $i }' "$tmp/cg.out")
    check "atomic PERIOD=$per: cachegrind's Bc, 4 N (two atomics, two Jcc)" "$bc" 4000
  done
  check "atomic PERIOD=8: mispredicts" "$sp_cond" 137
  # A libc program (walk.c): the start-up differs (glibc picks its
  # functions by CPUID, and valgrind and QEMU present different CPUs), so
  # the totals differ; what the walk adds is the same in both: 1000 more
  # lines are 2000 more D1 misses (D1 holds 64 lines) and 1000 more LL
  # misses (LL holds them all), and no more mispredicts.
  "$CC" -O1 -static -o "$tmp/walk" "$SRC/walk.c" || fail "walk.c: does not build"
  L="32768,8,64 4096,2,64 8388608,16,64"
  cg walk $L 1000
  a="$sp_repl $sp_miss $sp_misp" b="$cg_repl $cg_miss $cg_misp"
  cg walk $L 2000
  set -- $a $b
  check "walk.c: the walk's D1 misses" "$((sp_repl - $1)) $((cg_repl - $4))" "2000 2000"
  check "walk.c: the walk's LL misses" "$((sp_miss - $2)) $((cg_miss - $5))" "1000 1000"
  check "walk.c: the walk's mispredicts" "$((sp_misp - $3)) $((cg_misp - $6))" "0 0"
  finish
  exit
fi

# ---- the part configurations ---------------------------------------------
# Ice Lake (L1D 48 KB, L2 512 KB, LLC 8 MB): 4096 lines (256 KB) walked 3
# times miss L1D on every load, are served by memory on the first pass and
# by L2 on the others (MEM_LOAD_RETIRED by level).
build stride -DNL=4096 -DP=3
counts part:icelake "$LD_L1_HIT,$LD_L1_MISS,$LD_L2_HIT,$LD_L2_MISS,$LD_L3_HIT,$LD_L3_MISS,$L1D_REPL,$INST" "$tmp/stride"
check "icelake stride 4096x3: L1_HIT L1_MISS L2_HIT L2_MISS L3_HIT L3_MISS L1D.REPLACEMENT INST" \
  "$got" "0 12288 8192 4096 0 4096 12288 $((1 + 3 * (4 + 4 * 4096) + 3))"
# Skylake (inclusive 8 MB LLC, adaptive insertion: uarch/llc.c): twice
# the LLC's lines, walked twice. Every load misses L1D; the first pass is
# served by memory; in the second, each of the 8192 - 32 LLC sets that
# insert by BIP keeps 15 of its 32 lines from the first pass
# (test_uarch_cache, test_part_llc_resists_a_repeated_scan), less one in
# each set that a text line (held in L1I: the LLC keeps it) occupies.
build stride -DNL=262144 -DP=2
code=$(code_lines stride _start text_end)
counts part:skylake "$LD_L3_MISS,$LD_L1_HIT,$L1D_REPL" "$tmp/stride"
check "skylake stride 2xLLC: L3_MISS L1_HIT L1D.REPLACEMENT" "$got" \
  "$((524288 - (8192 - 32) * 15 + code)) 0 524288"
# Sapphire Rapids (one 1.875 MB non-inclusive LLC slice, 2048 sets of 15
# ways, adaptive; L2 2 MB): 4 MB walked twice misses L2 on every load;
# the LLC misses on every load of the first pass and, in the second, each
# of its 2048 - 32 BIP sets keeps 14 of its 32 lines (as on Skylake, one
# way fewer); the text misses once per line (nothing invalidates L1I: the
# LLC is not inclusive).
build stride -DNL=65536 -DP=2
code=$(code_lines stride _start text_end)
counts part:sapphirerapids "$LD_L3_MISS,$LLC_MISS,$LLC_REF" "$tmp/stride"
miss=$((131072 - (2048 - 32) * 14))
check "sapphirerapids stride 4 MB x2: L3_MISS LLC.MISS LLC.REFERENCE" "$got" \
  "$miss $((miss + code)) $((131072 + code))"
# avx.S: each 32-byte load or store (VMOVDQU ymm, which QEMU makes in
# four pieces of 8) is one access (model.c), so MEM_LOAD_RETIRED counts
# each load once, by where it was served, as MEM_INST_RETIRED.ALL_LOADS
# counts the N loads; L1D.REPLACEMENT counts lines, so an access across
# two new lines fills two. Load first: in place (STRIDE 0) the first load
# misses (memory) and the others hit; walking (STRIDE 64, 128) every load
# misses L1D and the LLC. Store first: every load hits.
# avx_case WIDTH OFF STRIDE [DEFINES]
avx_case() {
  w=$1 off=$2 stride=$3
  shift 3
  build avx -DN=1000 -DOFF=$off -DSTRIDE=$stride "$@"
  cross=$(((off + w) > 64))
  case $stride in
  0) repl=$((1 + cross)) loads="999 1" l3=1 ;;
  64) repl=$((1000 + cross)) loads="0 1000" l3=1000 ;;
  *) repl=$((1000 * (1 + cross))) loads="0 1000" l3=1000 ;;
  esac
  case "$*" in *STORE_FIRST*) loads="1000 0" l3=0 ;; esac
  counts part:skylake "$LD_L1_HIT,$LD_L1_MISS,$L1D_REPL,$LD_L3_MISS,4381d0,4382d0" "$tmp/avx"
  check "avx width $w OFF=$off STRIDE=$stride $*: L1_HIT L1_MISS L1D.REPLACEMENT L3_MISS ALL_LOADS ALL_STORES" \
    "$got" "$loads $repl $l3 1000 1000"
}
for c in "0 0" "32 0" "48 0" "0 64" "48 64" "48 128" \
  "48 0 -DSTORE_FIRST" "48 64 -DSTORE_FIRST" "48 128 -DSTORE_FIRST"; do
  avx_case 32 $c
done
# The same with 64-byte zmm accesses (VMOVDQU64, AVX-512), where QEMU runs
# them: QEMU 7.2's TCG does not emulate AVX-512 (no CPU model softpmu stat
# gives it exposes AVX-512: perf/qemu_run.c), so the instruction raises
# #UD, the program gets SIGILL, and the zmm cases are skipped, saying so.
# (Nor does valgrind 3.19 run AVX-512: no zmm case against cachegrind.)
build avx -DN=1 -DOFF=0 -DSTRIDE=0 -DZMM
if qemu-x86_64 "$tmp/avx" >/dev/null 2>&1; then
  for c in "0 0" "32 0" "0 64" "32 64" "32 128" "32 64 -DSTORE_FIRST"; do
    avx_case 64 $c -DZMM
  done
else
  echo "avx.S -DZMM: skipped: qemu-x86_64 does not run AVX-512 (SIGILL)"
fi

# MEM_LOAD_RETIRED counts retired load instructions ("retired load
# instructions with at least one uop that hit/missed", SDM Vol. 3B Chapter
# 19, Table 19-3), one each by the deepest level its reads reached, so
# that L1_HIT + L1_MISS = ALL_LOADS, L2_HIT + L2_MISS = L1_MISS and
# L3_HIT + L3_MISS = L2_MISS exactly, whatever the accesses: a REP string
# instruction's iterations, a load QEMU makes in pieces (across lines, a
# ymm one), XSAVE's reads, a libc program's mix.
LOADS="4381d0,$LD_L1_HIT,$LD_L1_MISS,$LD_L2_HIT,$LD_L2_MISS,$LD_L3_HIT,$LD_L3_MISS"
# sums WHAT: the three sums of $got (counts of $LOADS) are ALL_LOADS.
sums() {
  what=$1
  set -- $got
  check "$what: L1_HIT + L1_MISS = ALL_LOADS" $(($2 + $3)) $1
  check "$what: L2_HIT + L2_MISS = L1_MISS" $(($4 + $5)) $3
  check "$what: L3_HIT + L3_MISS = L2_MISS" $(($6 + $7)) $5
}
# loads.S, N iterations of nine loads: walking (STRIDE 1024) the six at
# ld_* read new lines (memory) and the three at hit_* hit; in place
# (STRIDE 0) only the first iteration's six miss. Cachegrind's
# configuration has no L2: L2_MISS is L1_MISS there.
# QEMU 9 and later make XSAVE's accesses unseen by the plugin
# (frontends/qemu/README.md, "QEMU versions"): its load at ld_xsave is
# an L1 hit there, one miss fewer each iteration (the first, in place).
CGL="cachegrind:I1=32768,8,64:D1=32768,8,64:LL=8388608,16,64"
major=$(qemu-x86_64 --version | sed -n '1s/.*version \([0-9]*\)\..*/\1/p')
walk="300 600 0 600 0 600" still="894 6 0 6 0 6"
l3miss="ld_movs ld_lods ld_cmps ld_cross ld_ymm ld_xsave" l1hit="hit_rep0 hit_fx hit_xs"
if [ "${major:-0}" -ge 9 ]; then
  walk="400 500 0 500 0 500" still="895 5 0 5 0 5"
  l3miss="ld_movs ld_lods ld_cmps ld_cross ld_ymm" l1hit="hit_rep0 hit_fx ld_xsave hit_xs"
fi
for c in "1024 part:skylake $walk" "0 part:skylake $still" \
  "1024 $CGL $walk" "0 $CGL $still"; do
  set -- $c
  build loads -DN=100 -DL=256 -DSTRIDE=$1
  counts $2 "$LOADS" "$tmp/loads"
  check "loads.S STRIDE=$1 $2: ALL_LOADS L1_HIT L1_MISS L2_HIT L2_MISS L3_HIT L3_MISS" \
    "$got" "900 $3 $4 $5 $6 $7 $8"
  sums "loads.S STRIDE=$1 $2"
done
# The same counts per instruction, in record mode (a sample every
# event): each load counted on its own address, a REP string instruction
# once, when it stops repeating.
build loads -DN=100 -DL=256 -DSTRIDE=1024
for ev in "$LD_L3_MISS $l3miss" "$LD_L1_HIT $l1hit"; do
  set -- $ev
  sel=$1
  shift
  want=$(for s; do printf '%x 100\n' "$(sym loads $s)"; done | sort)
  rm -f "$tmp/rec"
  qemu-x86_64 -plugin "$PLUGIN,record=$tmp/rec,period=1,event=$sel,model=part:skylake" \
    "$tmp/loads" 2>"$tmp/qerr" || fail "record $sel: $(cat "$tmp/qerr")"
  got=$("$DUMP" "$tmp/rec" | awk '$1 == "sample" { n[$5]++ }
    END { for (ip in n) print ip, n[ip] }' | sort)
  check "loads.S record event=$sel: 100 samples on each of $*" "$got" "$want"
done
# A libc program, in both configurations: the sums hold exactly.
for spec in part:skylake part:icelake "$CGL"; do
  for prog in /bin/true "/bin/ls -l /"; do
    counts "$spec" "$LOADS" $prog
    sums "$prog ($spec)"
  done
done

# loop.S under the part predictor (gshare, 2^16 counters at 1, weakly not
# taken, 16 bits of history): the taken outcomes 0 to 16 see histories
# 0, 1, 3, ... 0xffff, each a fresh counter, and are mispredicted; the
# 17th moved the all-taken counter to 2; the last (not taken) is
# mispredicted: 18, all conditional.
build loop -DN=1000
counts part:skylake "$MISP_COND,$MISP" "$tmp/loop"
check "loop: mispredicts by construction" "$got" "18 18"

# replay SPEC: the model's conditional mispredicts for the stream on stdin
# (uarch_replay, written out by construction below).
replay() {
  "$REPLAY" "$1" | awk '$1 == "bcm" { print $2 }'
}
# alt.S: the stream by construction; each further period one mispredict.
for n in 1024 1088; do
  build alt -DN=$n -DPERIOD=64
  ALT=$(sym alt alt) BACK=$(sym alt back)
  want=$(awk -v n=$n -v a=$ALT -v b=$BACK 'BEGIN {
    for (i = 1; i <= n; i++) { print "c", a, (i % 64 != 0); print "c", b, (i < n) } }' |
    replay part:skylake)
  counts part:skylake "$MISP_COND" "$tmp/alt"
  check "alt N=$n: mispredicts of the stream by construction" "$got" "$want"
  eval "alt_$n=$got"
done
check "alt: one more period, one more mispredict" $((alt_1088 - alt_1024)) 1

# Threads (threads.S, T workers): each thread has its own model, so the
# mispredicts are the main thread's stream through a fresh predictor plus
# T times a worker's.
T=3 W=1000 M=500
build threads -DT=$T -DW=$W -DM=$M
IC=$(sym threads is_child) SB=$(sym threads spawn_back)
MB=$(sym threads main_back) WB=$(sym threads worker_back)
main=$(awk -v t=$T -v m=$M -v ic=$IC -v sb=$SB -v mb=$MB 'BEGIN {
  for (i = 1; i <= t; i++) { print "c", ic, 0; print "c", sb, (i < t) }
  for (i = 1; i <= m; i++) print "c", mb, (i < m) }' | replay part:skylake)
worker=$(awk -v w=$W -v ic=$IC -v wb=$WB 'BEGIN {
  print "c", ic, 1; for (i = 1; i <= w; i++) print "c", wb, (i < w) }' |
  replay part:skylake)
counts part:skylake "$MISP_COND,$INST" "$tmp/threads"
check "threads: per-thread predictors" "$got" \
  "$((main + T * worker)) $((5 + 11 * T + 2 * M + T * (6 + 2 * W)))"

# Record: a modelled event samples on the load that caused it. recmiss.S
# misses L1D on the load at `miss` (NL lines, 2 passes; L2 holds them
# all, so the LLC misses only on the first pass) and hits at `hit`; sample
# k is the k*period-th miss, at instruction 1 + q (5 NL + 4) + 2 + 5 i + 1
# of the program (pass q, line i).
NL=1000
build recmiss -DNL=$NL -DP=2
MISS=$(printf '%x' "$(sym recmiss miss)")
for ev in "$LD_L1_MISS 100 2" "$L1D_REPL 7 2" "$LD_L3_MISS 97 1"; do
  set -- $ev
  rm -f "$tmp/rec"
  qemu-x86_64 -plugin "$PLUGIN,record=$tmp/rec,period=$2,event=$1,model=part:skylake" \
    "$tmp/recmiss" 2>"$tmp/qerr" || fail "record $1: $(cat "$tmp/qerr")"
  "$DUMP" "$tmp/rec" | awk '$1 == "sample" { print $4, $5, $6 }' >"$tmp/got"
  awk -v p=$2 -v nl=$NL -v passes=$3 -v ip=$MISS 'BEGIN {
    for (m = p; m <= passes * nl; m += p) {
      q = int((m - 1) / nl); i = (m - 1) % nl
      print 1 + q * (5 * nl + 4) + 2 + 5 * i + 1, ip, p } }' >"$tmp/want"
  checks=$((checks + 1))
  cmp -s "$tmp/want" "$tmp/got" ||
    fail "record event=$1 period=$2: samples not on the missing load: $(diff "$tmp/want" "$tmp/got" | head -5)"
done

# Without model=, a modelled event is refused; model= takes the uarch
# parser's specifications and refuses what it refuses.
refused() { # WHAT ARGS MESSAGE
  checks=$((checks + 1))
  if qemu-x86_64 -plugin "$PLUGIN,out=$tmp/x,$2" "$tmp/loop" 2>"$tmp/qerr"; then
    fail "$1: accepted"
  fi
  grep -qxF "softpmu-qemu: $3" "$tmp/qerr" || fail "$1: $(cat "$tmp/qerr")"
}
refused "a modelled event without model=" "event=$MISP" \
  "event=$MISP: event C5H umask 00H is produced by the modelled micro-architecture only: give model=SPEC (cachegrind:I1=S,A,L:D1=S,A,L:LL=S,A,L or part:NAME)"
refused "an unknown part" "event=$MISP,model=part:nosuch" \
  "model=part:nosuch: unknown part 'nosuch' (known: skylake, haswell, sandybridge, icelake, sapphirerapids)"
refused "a bad triple" "event=$MISP,model=cachegrind:D1=24576,,8,,64" \
  "model=cachegrind:D1=24576,8,64: D1: Cache set count is not a power of two."
# Without model= the exact engine counts inline as before; with it, by a
# callback per block (the model needs each block's successor).
rm -f "$tmp/x"
qemu-x86_64 -plugin "$PLUGIN,out=$tmp/x,event=$INST" "$tmp/loop"
qemu-x86_64 -plugin "$PLUGIN,out=$tmp/x,event=$INST,model=part:skylake" "$tmp/loop"
check "counting without and with model=" \
  "$(awk '$1 == "softpmu-qemu" { printf "%s ", $6 } $1 == "event" { printf "%s ", $3 }' "$tmp/x")" \
  "counting=inline 2004 counting=callback 2004 "
finish

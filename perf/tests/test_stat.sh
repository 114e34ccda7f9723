#!/bin/sh
# SPDX-License-Identifier: MIT
# softpmu stat's modelled events, without running anything: results files
# written here (the plugin's format, frontends/qemu/README.md) printed with
# --from, so every layout and option is checked exactly whether or not
# qemu-x86_64 and the plugin are there. The plugin's side is
# test_stat_model.sh.
#   test_stat.sh SOFTPMU
SOFTPMU=$1
. "$(dirname "$0")/../../cli/test_lib.sh"

# The default set's counts: cycles 40000, instructions 17006, branches
# 8001, branch-misses 1001, cache-references 3000, cache-misses 1200.
cat >"$tmp/res" <<'EOF'
softpmu-qemu 2 pid=100 threads=1 status=0 counting=inline
event 0 40000 17006 17006
event 1 17006 17006 17006
event 2 8001 17006 17006
event 3 1001 17006 17006
event 4 3000 17006 17006
event 5 1200 17006 17006
end
EOF

# No -e: perf stat's hardware events and the LLC's, the modelled ones
# marked, perf's metrics (17006 / 40000 = 0.43 insn per cycle, 1001 / 8001
# = 12.51% of all branches, 1200 / 3000 = 40.000% of all cache refs)
# marked as derived from modelled counts, and the model's line: Skylake's
# part, the geometry of its CPUID leaf 04H.
run stat --from "$tmp/res" -- ./prog a
expect "default set" 0 "" "
 Performance counter stats for './prog a':

            40,000      cycles (model)                                                     
            17,006      instructions                     #    0.43  insn per cycle (model) 
             8,001      branches                                                           
             1,001      branch-misses (model)            #   12.51% of all branches (model)
             3,000      cache-references (model)                                           
             1,200      cache-misses (model)             #   40.000 % of all cache refs (model)

 model: part:skylake (L1I 32K 8-way, L1D 32K 8-way, L2 256K 4-way, LLC 8M 16-way inclusive, 64 B lines; gshare 2^16, BTB 4096, RSB 16; 4 wide, +12/+42/+250 cycles to L2/LLC/memory, +16 a mispredict)

       0.000000000 seconds time elapsed

       0.000000000 seconds user
       0.000000000 seconds sys

"

# -x , and -j: the marks in perf's machine-readable layouts.
run stat -x , --from "$tmp/res" -- ./prog
expect "default set, -x ," 0 "" "\
# model: part:skylake (L1I 32K 8-way, L1D 32K 8-way, L2 256K 4-way, LLC 8M 16-way inclusive, 64 B lines; gshare 2^16, BTB 4096, RSB 16; 4 wide, +12/+42/+250 cycles to L2/LLC/memory, +16 a mispredict)
40000,,cycles,0,100.00,,,model
17006,,instructions,0,100.00,0.43,insn per cycle (model)
8001,,branches,0,100.00,,
1001,,branch-misses,0,100.00,12.51,of all branches (model),model
3000,,cache-references,0,100.00,,,model
1200,,cache-misses,0,100.00,40.000,of all cache refs (model),model"
run stat -j -e cycles,instructions --from "$tmp/res"
expect "-j" 0 "" "\
{\"model\" : \"part:skylake (L1I 32K 8-way, L1D 32K 8-way, L2 256K 4-way, LLC 8M 16-way inclusive, 64 B lines; gshare 2^16, BTB 4096, RSB 16; 4 wide, +12/+42/+250 cycles to L2/LLC/memory, +16 a mispredict)\"}
{\"counter-value\" : \"40000.000000\", \"unit\" : \"\", \"event\" : \"cycles\", \"event-runtime\" : 0, \"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, \"metric-unit\" : \"\", \"modelled\" : true}
{\"counter-value\" : \"17006.000000\", \"unit\" : \"\", \"event\" : \"instructions\", \"event-runtime\" : 0, \"pcnt-running\" : 100.00, \"metric-value\" : 0.425150, \"metric-unit\" : \"insn per cycle (model)\"}"

# Exact events alone: no mark, no model line, no metric.
run stat -x , -e instructions,branches --from "$tmp/res"
expect "exact events" 0 "" "\
40000,,instructions,0,100.00,,
17006,,branches,0,100.00,,"

# --no-model: the modelled events are <not supported> and no model is
# named (the file's events are the two exact ones then).
run stat --no-model -x , --from "$tmp/res"
expect "--no-model" 0 "" "\
<not supported>,,cycles,0,100.00,,
40000,,instructions,0,100.00,,
17006,,branches,0,100.00,,
<not supported>,,branch-misses,0,100.00,,
<not supported>,,cache-references,0,100.00,,
<not supported>,,cache-misses,0,100.00,,"

# --model: cachegrind's geometry (the triples of --I1/--D1/--LL) and, with
# -v, every parameter of the model.
run stat -x , -v -e L1-dcache-load-misses,instructions --from "$tmp/res" \
  --model cachegrind:I1=32768,8,64:D1=32768,8,64:LL=8388608,16,64
expect "--model cachegrind -v" 0 "" "\
# model: cachegrind:I1=32768,8,64:D1=32768,8,64:LL=8388608,16,64 (I1 32K 8-way, D1 32K 8-way, LL 8M 16-way, 64 B lines; cachegrind's predictor; 4 wide, +12/+200 cycles to LL/memory, +15 a mispredict)
# I1   32768 B, 8 ways, 64 B lines, 64 sets, true LRU
# D1   32768 B, 8 ways, 64 B lines, 64 sets, true LRU
# LL   8388608 B, 16 ways, 64 B lines, 8192 sets, true LRU
# branches: cachegrind's 2^14 two-bit counters indexed by 7 bits of history and of the address, 512 last indirect targets; returns not predicted
# timing (not cycle-accurate): 4 instructions a cycle; extra cycles 12 for an LL hit, 200 for memory, 15 a mispredict; reference cycles = core cycles x 1 / 1
# cost: the model is fed every fetch, data access and branch; --no-model counts the exact events alone, several times faster
40000,,L1-dcache-load-misses,0,100.00,,,model
17006,,instructions,0,100.00,,"
run stat -v -e r01c5 --cpu haswell --from "$tmp/res"
checks=$((checks + 1))
grep -q '^ model: part:haswell (L1I 32K 8-way, L1D 32K 8-way, L2 256K 8-way, LLC 8M 16-way inclusive' "$tmp/err" &&
  grep -q '^        L2   262144 B, 8 ways, 64 B lines, 512 sets, true LRU$' "$tmp/err" &&
  grep -q '^            40,000      r01c5 (model) ' "$tmp/err" ||
  fail "-v on haswell: $(cat "$tmp/err")"

# Refused: a specification the parser refuses (its message), --model with
# --no-model, a modelled event on a profile without a part (Core 2), which
# --model then allows; on such a profile the default set says why its
# modelled events are <not supported>.
run stat --model cachegrind:D1=1000,3,64 --from "$tmp/res"
checks=$((checks + 1))
[ "$rc" = 2 ] && head -n 1 "$tmp/err" | grep -qx \
  "softpmu: stat: --model cachegrind:D1=1000,3,64: D1: Cache set count is not a power of two." ||
  fail "--model refused: status $rc, $(cat "$tmp/err")"
run stat --model part:skylake --no-model --from "$tmp/res"
checks=$((checks + 1))
[ "$rc" = 2 ] && head -n 1 "$tmp/err" | grep -qx \
  "softpmu: stat: --model and --no-model: one or the other" ||
  fail "--model with --no-model: status $rc, $(cat "$tmp/err")"
run stat --cpu core2 -e instructions,cycles --from "$tmp/res"
expect "core2 cycles" 2 "" "\
softpmu: stat: cycles is an estimate of the modelled micro-architecture, and core2 has no model of its own (no cache geometry): choose one with --model part:NAME or --model cachegrind:I1=SIZE,ASSOC,LINE:D1=SIZE,ASSOC,LINE:LL=SIZE,ASSOC,LINE, or leave modelled events out with --no-model"
run stat --cpu core2 --model part:skylake -x , -e instructions,cycles \
  --from "$tmp/res"
expect "core2 --model part:skylake" 0 "" "\
# model: part:skylake (L1I 32K 8-way, L1D 32K 8-way, L2 256K 4-way, LLC 8M 16-way inclusive, 64 B lines; gshare 2^16, BTB 4096, RSB 16; 4 wide, +12/+42/+250 cycles to L2/LLC/memory, +16 a mispredict)
40000,,instructions,0,100.00,2.35,insn per cycle (model)
17006,,cycles,0,100.00,,,model"
run stat --cpu core2 -x , --from "$tmp/res"
expect "core2 default set" 0 "" "\
softpmu: stat: note: no modelled micro-architecture (core2 states no part (no cache geometry)): cycles, branch-misses and the cache events are <not supported>; choose one with --model
<not supported>,,cycles,0,100.00,,
40000,,instructions,0,100.00,,
17006,,branches,0,100.00,,
<not supported>,,branch-misses,0,100.00,,
<not supported>,,cache-references,0,100.00,,
<not supported>,,cache-misses,0,100.00,,"

# -c PROFILE, stat's former spelling of --cpu: the same result, with a
# warning naming --cpu (-c is record's period, as in perf).
run stat -c core2 -x , --from "$tmp/res"
expect "stat -c PROFILE, deprecated" 0 "" "\
softpmu: stat: warning: -c PROFILE is deprecated, write --cpu PROFILE (-c is record's period, as in perf)
softpmu: stat: note: no modelled micro-architecture (core2 states no part (no cache geometry)): cycles, branch-misses and the cache events are <not supported>; choose one with --model
<not supported>,,cycles,0,100.00,,
40000,,instructions,0,100.00,,
17006,,branches,0,100.00,,
<not supported>,,branch-misses,0,100.00,,
<not supported>,,cache-references,0,100.00,,
<not supported>,,cache-misses,0,100.00,,"

run stat --from "$tmp/no-such-file"
checks=$((checks + 1))
[ "$rc" = 2 ] && grep -q "stat: --from $tmp/no-such-file: No such file" "$tmp/err" ||
  fail "--from a missing file: status $rc, $(cat "$tmp/err")"

# The results format's version (protocol/results.h) is checked: a block of
# another version is refused with the reason.
sed 's/^softpmu-qemu 2 /softpmu-qemu 1 /' "$tmp/res" >"$tmp/res1"
run stat --from "$tmp/res1"
expect "--from a block of format version 1" 2 "" \
  "softpmu: stat: --from $tmp/res1: a results block of format version 1: this softpmu reads version 2"

# perf's modifiers (:h is :u here, :H changes nothing, :pp and :P are
# accepted and ignored when counting) and perf's names of the fixed
# counters' events, each resolved to its architectural equivalent (SDM
# Vol. 3B Table 18-2). :G alone counts no code here: no guest runs.
run stat -x , -e inst_retired.any:u,cpu_clk_unhalted.thread:pp,cpu_clk_unhalted.ref_tsc:P,instructions:h,branches:H,cycles:Gk --from "$tmp/res"
expect "perf's modifiers and fixed-counter names" 0 "" "\
# model: part:skylake (L1I 32K 8-way, L1D 32K 8-way, L2 256K 4-way, LLC 8M 16-way inclusive, 64 B lines; gshare 2^16, BTB 4096, RSB 16; 4 wide, +12/+42/+250 cycles to L2/LLC/memory, +16 a mispredict)
40000,,inst_retired.any:u,0,100.00,,
17006,,cpu_clk_unhalted.thread:pp,0,100.00,,,model
8001,,cpu_clk_unhalted.ref_tsc:P,0,100.00,,,model
1001,,instructions:h,0,100.00,,
3000,,branches:H,0,100.00,,
1200,,cycles:Gk,0,100.00,,,model"
# A precise level needs PEBS (SDM Vol. 3B 18.4.4); :P is the highest the
# profile has, none on Core Duo.
run stat --cpu core-duo -x , -e instructions:pp --from "$tmp/res"
expect ":pp without PEBS" 2 "" "softpmu: stat: instructions:pp: core-duo has no PEBS (SDM Vol. 3B 18.4.4), so no precise level: leave out :p (or write :P, the highest the profile has)"
run stat --cpu core-duo -x , -e instructions:P --from "$tmp/res"
expect ":P without PEBS" 0 "" "40000,,instructions:P,0,100.00,,"

# -d, -dd, -ddd: perf stat 6.1's detailed sets appended to the default
# set (or to the events given), as perf appends them: L1-dcache-loads
# (exact: loads retired) and L1-dcache-load-misses (modelled) count, with
# perf's metric of them (250 / 5000 = 5.00% of all L1-dcache accesses);
# LLC, TLB, instruction-cache and prefetch events are <not supported>.
cat "$tmp/res" >"$tmp/resd"
sed -i '/^end$/d' "$tmp/resd"
printf 'event 6 5000 17006 17006\nevent 7 250 17006 17006\nend\n' >>"$tmp/resd"
run stat -d --from "$tmp/resd" -- ./prog
expect "-d" 0 "" "
 Performance counter stats for './prog':

            40,000      cycles (model)                                                     
            17,006      instructions                     #    0.43  insn per cycle (model) 
             8,001      branches                                                           
             1,001      branch-misses (model)            #   12.51% of all branches (model)
             3,000      cache-references (model)                                           
             1,200      cache-misses (model)             #   40.000 % of all cache refs (model)
             5,000      L1-dcache-loads                                                    
               250      L1-dcache-load-misses (model)    #    5.00% of all L1-dcache accesses (model)
   <not supported>      LLC-loads                                                   
   <not supported>      LLC-load-misses                                             

 model: part:skylake (L1I 32K 8-way, L1D 32K 8-way, L2 256K 4-way, LLC 8M 16-way inclusive, 64 B lines; gshare 2^16, BTB 4096, RSB 16; 4 wide, +12/+42/+250 cycles to L2/LLC/memory, +16 a mispredict)

       0.000000000 seconds time elapsed

       0.000000000 seconds user
       0.000000000 seconds sys

"
for dd in "-dd" "-d -d" "--detailed -d"; do
  # shellcheck disable=SC2086 # one -d or two
  run stat -x , -e instructions $dd --from "$tmp/res"
  expect "stat $dd" 0 "" "\
# model: part:skylake (L1I 32K 8-way, L1D 32K 8-way, L2 256K 4-way, LLC 8M 16-way inclusive, 64 B lines; gshare 2^16, BTB 4096, RSB 16; 4 wide, +12/+42/+250 cycles to L2/LLC/memory, +16 a mispredict)
40000,,instructions,0,100.00,,
17006,,L1-dcache-loads,0,100.00,,
8001,,L1-dcache-load-misses,0,100.00,47.05,of all L1-dcache accesses (model),model
<not supported>,,LLC-loads,0,100.00,,
<not supported>,,LLC-load-misses,0,100.00,,
<not supported>,,L1-icache-loads,0,100.00,,
<not supported>,,L1-icache-load-misses,0,100.00,,
<not supported>,,dTLB-loads,0,100.00,,
<not supported>,,dTLB-load-misses,0,100.00,,
<not supported>,,iTLB-loads,0,100.00,,
<not supported>,,iTLB-load-misses,0,100.00,,"
done
run stat -x , -e instructions -ddd --no-model --from "$tmp/res"
expect "stat -ddd" 0 "" "\
40000,,instructions,0,100.00,,
17006,,L1-dcache-loads,0,100.00,,
<not supported>,,L1-dcache-load-misses,0,100.00,,
<not supported>,,LLC-loads,0,100.00,,
<not supported>,,LLC-load-misses,0,100.00,,
<not supported>,,L1-icache-loads,0,100.00,,
<not supported>,,L1-icache-load-misses,0,100.00,,
<not supported>,,dTLB-loads,0,100.00,,
<not supported>,,dTLB-load-misses,0,100.00,,
<not supported>,,iTLB-loads,0,100.00,,
<not supported>,,iTLB-load-misses,0,100.00,,
<not supported>,,L1-dcache-prefetches,0,100.00,,
<not supported>,,L1-dcache-prefetch-misses,0,100.00,,"

# --no-big-num: no digit grouping, as perf; -B (--big-num) puts it back,
# the last one given counting.
run stat --no-big-num -e instructions,branches --from "$tmp/res" -- ./prog
expect "--no-big-num" 0 "" "
 Performance counter stats for './prog':

             40000      instructions                                                       
             17006      branches                                                           

       0.000000000 seconds time elapsed

       0.000000000 seconds user
       0.000000000 seconds sys

"
run stat --no-big-num -B -e instructions --from "$tmp/res"
checks=$((checks + 1))
grep -q '^            40,000      instructions  *$' "$tmp/err" ||
  fail "--no-big-num -B: $(cat "$tmp/err")"

# --all-user: the names as given (perf prints them so); the counts are
# the plugin's (frontends/qemu/tests/test_stat.sh runs it).
run stat --all-user -x , -e instructions:k,branches --from "$tmp/res"
expect "--all-user" 0 "" "\
40000,,instructions:k,0,100.00,,
17006,,branches,0,100.00,,"

# --per-thread: the plugin writes one block per process, its threads
# summed (protocol/results.h), so each process's counts, prefixed as perf
# prefixes a thread's ("%16s-%-8d": the command, as the kernel names it,
# and the pid), each event's largest first, perf's metrics within one
# process (17006 / 40000 = 0.43, 10000 / 50000 = 0.20).
cat >"$tmp/procs" <<'EOF2'
softpmu-qemu 2 pid=100 threads=1 status=0 counting=inline
event 0 40000 17006 17006
event 1 17006 17006 17006
end
softpmu-qemu 2 pid=101 threads=2 status=0 counting=inline
event 0 50000 20000 20000
event 1 10000 20000 20000
end
EOF2
run stat --per-thread -e cycles,instructions,dTLB-loads --from "$tmp/procs" -- ./prog a
expect "--per-thread" 0 "" "
 Performance counter stats for './prog a':

            prog-101                  50,000      cycles (model)                                                     
            prog-100                  40,000      cycles (model)                                                     
            prog-100                  17,006      instructions                     #    0.43  insn per cycle (model) 
            prog-101                  10,000      instructions                     #    0.20  insn per cycle (model) 
            prog-100         <not supported>      dTLB-loads                                                  
            prog-101         <not supported>      dTLB-loads                                                  

 model: part:skylake (L1I 32K 8-way, L1D 32K 8-way, L2 256K 4-way, LLC 8M 16-way inclusive, 64 B lines; gshare 2^16, BTB 4096, RSB 16; 4 wide, +12/+42/+250 cycles to L2/LLC/memory, +16 a mispredict)

       0.000000000 seconds time elapsed

       0.000000000 seconds user
       0.000000000 seconds sys

"
run stat --per-thread -x , -e instructions --from "$tmp/procs" -- /usr/bin/a-very-long-command-name
expect "--per-thread -x ," 0 "" "\
a-very-long-com-101,50000,,instructions,0,100.00,,
a-very-long-com-100,40000,,instructions,0,100.00,,"
run stat --per-thread -j -e instructions --from "$tmp/procs" -- ./prog
expect "--per-thread -j" 0 "" "\
{\"thread\" : \"prog-101\", \"counter-value\" : \"50000.000000\", \"unit\" : \"\", \"event\" : \"instructions\", \"event-runtime\" : 0, \"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, \"metric-unit\" : \"\"}
{\"thread\" : \"prog-100\", \"counter-value\" : \"40000.000000\", \"unit\" : \"\", \"event\" : \"instructions\", \"event-runtime\" : 0, \"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, \"metric-unit\" : \"\"}"
# A pid's blocks before and after an execve the plugin followed (status
# exec) are one process: 40000 + 5 instructions.
cat >"$tmp/procx" <<'EOF2'
softpmu-qemu 2 pid=100 threads=1 status=exec counting=inline
event 0 40000 17006 17006
end
softpmu-qemu 2 pid=101 threads=1 status=0 counting=inline
event 0 7 7 7
end
softpmu-qemu 2 pid=100 threads=1 status=0 counting=inline
event 0 5 5 5
end
EOF2
run stat --per-thread -x , -e instructions --from "$tmp/procx" -- sh
expect "--per-thread, one process across its execve" 0 "" "\
sh-100,40005,,instructions,0,100.00,,
sh-101,7,,instructions,0,100.00,,"
run stat --per-thread -r 2 -- ./prog
checks=$((checks + 1))
[ "$rc" = 2 ] && head -n 1 "$tmp/err" | grep -qx "softpmu: stat: --per-thread and -r: each run's processes are new ones, whose counts cannot be averaged" ||
  fail "--per-thread -r 2: status $rc, $(cat "$tmp/err")"
run stat --per-thread -A -- ./prog
checks=$((checks + 1))
[ "$rc" = 2 ] && head -n 1 "$tmp/err" | grep -qx "softpmu: stat: -A and --per-thread: one or the other" ||
  fail "--per-thread -A: status $rc, $(cat "$tmp/err")"

# --per-thread with the plugin's thread lines (protocol/results.h): each
# thread by its COMM-TID, its own counts (the tevent lines), whose sum is
# the process's; each event's largest first; a multiplexed thread's count
# scaled by its own enabled / running (500 * 2 = 1,000, 400 * 2 = 800).
cat >"$tmp/ivres" <<'EOF2'
softpmu-qemu 2 pid=100 threads=2 status=0 counting=callback
event 0 2500000 2500000 2500000
event 1 900 2500000 1250000
thread 100 1500000 prog
tevent 0 1500000 1500000 1500000
tevent 1 500 1500000 750000
interval 1 0 1000000 1000000 1000000
interval 1 1 300 1000000 500000
interval 2 0 500000 500000 500000
interval 2 1 200 500000 250000
thread 101 1000000 worker
tevent 0 1000000 1000000 1000000
tevent 1 400 1000000 500000
interval 1 0 1000000 1000000 1000000
interval 1 1 400 1000000 500000
end
EOF2
run stat --per-thread -x , -e instructions,branches --from "$tmp/ivres" -- ./prog
expect "--per-thread: each thread" 0 "" "\
prog-100,1500000,,instructions,0,100.00,,
worker-101,1000000,,instructions,0,100.00,,
prog-100,1000,,branches,0,50.00,,
worker-101,800,,branches,0,50.00,,"

# -I MSEC: the rows of intervals (interval K: the events while a thread's
# clock, 10^6 instructions a millisecond, was in [(K-1)T, KT)), summed
# over the threads, as perf stat -I prints an interval's counts: the time
# at its end first ("%6lu.%09lu"), the last row ending at the largest
# clock (1,500,000: 0.0015 s), the column header once in the default
# layout; a row's multiplexed count scaled by its own enabled / running
# (300 + 400 over half the time: 1,400), its run time its instructions
# running. The rows add up to the counts exactly (2,500,000; 900 raw).
run stat -I 1 -e instructions,branches --from "$tmp/ivres" -- ./prog
expect "-I" 0 "" "\
#           time             counts unit events
     0.001000000          2,000,000      instructions                                                       
     0.001000000              1,400      branches                                                             (50.00%)
     0.001500000            500,000      instructions                                                       
     0.001500000                400      branches                                                             (50.00%)"
run stat -I 1 -x , -e instructions,branches,dTLB-loads --from "$tmp/ivres"
expect "-I -x ," 0 "" "\
     0.001000000,2000000,,instructions,2000000,100.00,,
     0.001000000,1400,,branches,1000000,50.00,,
     0.001000000,<not supported>,,dTLB-loads,0,100.00,,
     0.001500000,500000,,instructions,500000,100.00,,
     0.001500000,400,,branches,250000,50.00,,
     0.001500000,<not supported>,,dTLB-loads,0,100.00,,"
run stat -I 1 -j -e instructions --from "$tmp/ivres"
expect "-I -j" 0 "" "\
{\"interval\" : 0.001000000, \"counter-value\" : \"2000000.000000\", \"unit\" : \"\", \"event\" : \"instructions\", \"event-runtime\" : 2000000, \"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, \"metric-unit\" : \"\"}
{\"interval\" : 0.001500000, \"counter-value\" : \"500000.000000\", \"unit\" : \"\", \"event\" : \"instructions\", \"event-runtime\" : 500000, \"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, \"metric-unit\" : \"\"}"
# -I --per-thread: each thread's rows, in perf's per-thread interval
# layout (COMM-TID after the time), each event's largest first within an
# interval, a thread only in the intervals it ran in.
run stat -I 1 --per-thread -e instructions,branches --from "$tmp/ivres" -- ./prog
expect "-I --per-thread" 0 "" "\
#           time             comm-pid                  counts unit events
     0.001000000             prog-100               1,000,000      instructions                                                       
     0.001000000           worker-101               1,000,000      instructions                                                       
     0.001000000           worker-101                     800      branches                                                             (50.00%)
     0.001000000             prog-100                     600      branches                                                             (50.00%)
     0.001500000             prog-100                 500,000      instructions                                                       
     0.001500000             prog-100                     400      branches                                                             (50.00%)"
run stat -I 1 --per-thread -x , -e instructions --from "$tmp/ivres"
expect "-I --per-thread -x ," 0 "" "\
     0.001000000,prog-100,1000000,,instructions,1000000,100.00,,
     0.001000000,worker-101,1000000,,instructions,1000000,100.00,,
     0.001500000,prog-100,500000,,instructions,500000,100.00,,"
# --interval-count N: the first N rows only, as perf stops printing.
run stat -I 1 --interval-count 1 -x , -e instructions --from "$tmp/ivres"
expect "-I --interval-count 1" 0 "" "\
     0.001000000,2000000,,instructions,2000000,100.00,,"
# -A: perf's header and prefix of a CPU's interval lines.
run stat -I 1 -A -e instructions --from "$tmp/ivres"
expect "-I -A" 0 "" "softpmu: stat: note: -A: one modelled CPU, CPU0: each thread of the program counts on a PMU of its own, and their counts are summed as on one CPU
#           time CPU                    counts unit events
     0.001000000 CPU0                2,000,000      instructions                                                       
     0.001500000 CPU0                  500,000      instructions                                                       "
# perf prints its column header every 25 intervals: 26 rows, two headers.
{
  echo "softpmu-qemu 2 pid=7 threads=1 status=0 counting=callback"
  echo "thread 7 26000000 prog"
  k=1
  while [ $k -le 26 ]; do
    echo "interval $k 0 1000000 1000000 1000000"
    k=$((k + 1))
  done
  echo end
} >"$tmp/rows26"
run stat -I 1 -e instructions --from "$tmp/rows26"
checks=$((checks + 1))
[ "$rc" = 0 ] && [ "$(grep -c '^#           time             counts unit events$' "$tmp/err")" = 2 ] &&
  [ "$(sed -n 27p "$tmp/err")" = "#           time             counts unit events" ] &&
  [ "$(grep -c '^     0.0[0-9][0-9]000000          1,000,000      instructions' "$tmp/err")" = 26 ] ||
  fail "-I: the header every 25 rows: $(cat "$tmp/err")"

# What -I refuses, and how (exit status 2): a value that is not a number
# of milliseconds (perf takes an unsigned int; -I 0 is no interval), -r
# (each run's intervals are its own), --interval-count without -I (perf's
# rule), --interval-clear (the rows are printed after the run).
for args in "-I x" "-I -5" "-I 4294967296" "-I 10 -r 2" "--interval-count 2" \
  "--interval-clear -I 10" "-I 10 --interval-count y"; do
  # shellcheck disable=SC2086
  run stat $args -e instructions --from "$tmp/ivres"
  checks=$((checks + 1))
  [ "$rc" = 2 ] && grep -q "^softpmu: stat: " "$tmp/err" ||
    fail "stat $args: status $rc, $(cat "$tmp/err")"
done
run stat -I 10 -r 2 -e instructions --from "$tmp/ivres"
checks=$((checks + 1))
head -n 1 "$tmp/err" | grep -qx "softpmu: stat: -I and -r: each run's intervals are its own, and cannot be averaged: drop -r, or run stat -I once per run" ||
  fail "-I -r: $(cat "$tmp/err")"
run stat --interval-count 2 -e instructions --from "$tmp/ivres"
checks=$((checks + 1))
head -n 1 "$tmp/err" | grep -qx "softpmu: stat: --interval-count goes with -I MSEC (interval-print): add -I MSEC, or drop --interval-count" ||
  fail "--interval-count without -I: $(cat "$tmp/err")"
run stat -I 1 -x , -e instructions --from "$tmp/res"
expect "-I, results without rows" 0 "" "softpmu: stat: -I: the results hold no intervals (no instruction ran, or the plugin ran without interval=N)"
run stat -I 0 -x , -e instructions --from "$tmp/ivres"
expect "-I 0: no interval" 0 "" "2500000,,instructions,0,100.00,,"

# -A: one modelled CPU, CPU0, in perf's layout of a CPU's counts
# ("CPU%-7d"); the counts are the sums, said once.
run stat -A -e cycles,instructions --from "$tmp/procs" -- ./prog
expect "-A" 0 "" "softpmu: stat: note: -A: one modelled CPU, CPU0: each thread of the program counts on a PMU of its own, and their counts are summed as on one CPU

 Performance counter stats for './prog':

CPU0                   90,000      cycles (model)                                                     
CPU0                   27,006      instructions                     #    0.30  insn per cycle (model) 

 model: part:skylake (L1I 32K 8-way, L1D 32K 8-way, L2 256K 4-way, LLC 8M 16-way inclusive, 64 B lines; gshare 2^16, BTB 4096, RSB 16; 4 wide, +12/+42/+250 cycles to L2/LLC/memory, +16 a mispredict)

       0.000000000 seconds time elapsed

       0.000000000 seconds user
       0.000000000 seconds sys

"
run stat --no-aggr -x , -e instructions,dTLB-loads --from "$tmp/procs"
expect "-A -x ," 0 "" "softpmu: stat: note: -A: one modelled CPU, CPU0: each thread of the program counts on a PMU of its own, and their counts are summed as on one CPU
CPU0,90000,,instructions,0,100.00,,
CPU0,<not supported>,,dTLB-loads,0,100.00,,"
run stat -A -j -e instructions --from "$tmp/procs"
expect "-A -j" 0 "" "softpmu: stat: note: -A: one modelled CPU, CPU0: each thread of the program counts on a PMU of its own, and their counts are summed as on one CPU
{\"cpu\" : \"0\", \"counter-value\" : \"90000.000000\", \"unit\" : \"\", \"event\" : \"instructions\", \"event-runtime\" : 0, \"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, \"metric-unit\" : \"\"}"

# -M: perf's metrics that are one produced event over another, counted
# with their two events as perf's metric expressions spell them, the
# metric on the first one's line ("%8.2f" and its name), marked when a
# modelled count goes into it: IPC = 40000 / 17006, IpBranch = 8001 /
# 1001; CPI, and L1MPKI = 1000 x 8001 / 1001, from two -M.
run stat -M IPC,IpBranch --from "$tmp/res" -- ./prog
expect "-M IPC,IpBranch" 0 "" "
 Performance counter stats for './prog':

            40,000      INST_RETIRED.ANY                 #     2.35 IPC (model)            
            17,006      CPU_CLK_UNHALTED.THREAD (model)                                    
             8,001      INST_RETIRED.ANY                 #     7.99 IpBranch               
             1,001      BR_INST_RETIRED.ALL_BRANCHES                                       

 model: part:skylake (L1I 32K 8-way, L1D 32K 8-way, L2 256K 4-way, LLC 8M 16-way inclusive, 64 B lines; gshare 2^16, BTB 4096, RSB 16; 4 wide, +12/+42/+250 cycles to L2/LLC/memory, +16 a mispredict)

       0.000000000 seconds time elapsed

       0.000000000 seconds user
       0.000000000 seconds sys

"
run stat -x , -M cpi -M L1MPKI --from "$tmp/res"
expect "-M cpi -M L1MPKI" 0 "" "\
# model: part:skylake (L1I 32K 8-way, L1D 32K 8-way, L2 256K 4-way, LLC 8M 16-way inclusive, 64 B lines; gshare 2^16, BTB 4096, RSB 16; 4 wide, +12/+42/+250 cycles to L2/LLC/memory, +16 a mispredict)
40000,,CPU_CLK_UNHALTED.THREAD,0,100.00,2.35,CPI (model),model
17006,,INST_RETIRED.ANY,0,100.00,,
8001,,MEM_LOAD_RETIRED.L1_MISS,0,100.00,7993.01,L1MPKI (model),model
1001,,INST_RETIRED.ANY,0,100.00,,"
run stat -M tma_frontend_bound --from "$tmp/res"
checks=$((checks + 1))
[ "$rc" = 2 ] && head -n 1 "$tmp/err" | grep -qx "softpmu: stat: -M tma_frontend_bound: not a metric of the events this engine produces; those are IPC, CPI, IpBranch, IpCall, IpMispredict, BpTkBranch, L1MPKI, L2MPKI, L3MPKI" ||
  fail "-M refused: status $rc, $(cat "$tmp/err")"

# Event groups, {a,b} and {a,b}:MODS, printed as perf prints a group's
# members (each its own line): a member without modifiers takes the
# group's and is named so (cycles:u); one with its own keeps its name and
# counts where both allow (instructions:k in {...}:u: nowhere, perf ORs
# the exclusions); perf's metrics pair the members.
run stat -x , -e '{cycles,instructions}:u,branches' -e '{instructions:k,r00c4}:u' -e '{r01c4}' --from "$tmp/res"
expect "event groups" 0 "" "\
# model: part:skylake (L1I 32K 8-way, L1D 32K 8-way, L2 256K 4-way, LLC 8M 16-way inclusive, 64 B lines; gshare 2^16, BTB 4096, RSB 16; 4 wide, +12/+42/+250 cycles to L2/LLC/memory, +16 a mispredict)
40000,,cycles:u,0,100.00,,,model
17006,,instructions:u,0,100.00,0.43,insn per cycle (model)
8001,,branches,0,100.00,,
1001,,instructions:k,0,100.00,,
3000,,r00c4:u,0,100.00,,
1200,,r01c4,0,100.00,,"
for bad in '{cycles,instructions' '{cycles}x'; do
  run stat -e "$bad" --from "$tmp/res"
  checks=$((checks + 1))
  [ "$rc" = 2 ] && head -n 1 "$tmp/err" | grep -qxF "softpmu: stat: -e $bad: a group is {EVENT,...} or {EVENT,...}:MODIFIERS" ||
    fail "group $bad refused: status $rc, $(cat "$tmp/err")"
done
run stat -e '{cycles}:zz' --from "$tmp/res"
checks=$((checks + 1))
[ "$rc" = 2 ] && head -n 1 "$tmp/err" | grep -qxF "softpmu: stat: {...}:zz: not perf's modifiers" ||
  fail "group modifiers refused: status $rc, $(cat "$tmp/err")"

# perf's target options cannot apply: the program runs under qemu-x86_64,
# in user mode, so there is no system, other process or thread, CPU or
# cgroup to count. One sentence, status 2, for stat and record alike, the
# option's value attached or not.
for opt in "-a" "--all-cpus" "-p 1" "-p1" "--pid=1" "-t 1" "--tid 1" \
  "-C 0" "-G grp" "--cgroup=grp"; do
  # shellcheck disable=SC2086 # the option and its value, split
  run stat $opt -- ./prog
  case $opt in
  -a | --all-cpus) what="-a" none="there is no system to count" ;;
  -p* | --pid*) what="-p" none="there is no other process to count" ;;
  -t* | --tid*) what="-t" none="there is no other thread to count" ;;
  -C*) what="-C" none="there are no CPUs to choose" ;;
  *) what="-G" none="there is no cgroup to count" ;;
  esac
  expect "stat $opt refused" 2 "" "softpmu: stat: $what: the program runs under qemu-x86_64, in user mode: $none, only the program stat starts (its threads and forked children)"
done
run record -p 1 -- ./prog
expect "record -p refused" 2 "" "softpmu: record: -p: the program runs under qemu-x86_64, in user mode: there is no other process to count, only the program record starts (its threads and forked children)"
run record -a -- ./prog
expect "record -a refused" 2 "" "softpmu: record: -a: the program runs under qemu-x86_64, in user mode: there is no system to count, only the program record starts (its threads and forked children)"

# An empty event list (-e '', -e ,) would print an empty table: refused.
for list in '' ','; do
  run stat -e "$list" --from "$tmp/res"
  checks=$((checks + 1))
  [ "$rc" = 2 ] && head -n 1 "$tmp/err" | grep -qxF \
    "softpmu: stat: -e '$list': an empty event list" ||
    fail "-e '$list': status $rc, $(cat "$tmp/err")"
done

# -o FILE starts as perf stat's does: "# started on" and ctime(3)'s date,
# then a blank line; then the layout stat prints on standard error.
started='^# started on [A-Z][a-z][a-z] [A-Z][a-z][a-z] [ 1-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-6][0-9] [0-9][0-9][0-9][0-9]$'
for layout in "" "-x ," "-j"; do
  # shellcheck disable=SC2086 # the layout's options, split
  run stat $layout -e instructions,cycles --from "$tmp/res"
  cp "$tmp/err" "$tmp/want-o"
  # shellcheck disable=SC2086
  run stat $layout -e instructions,cycles -o "$tmp/o" --from "$tmp/res"
  checks=$((checks + 1))
  { [ "$rc" = 0 ] && [ ! -s "$tmp/err" ] &&
    head -n 1 "$tmp/o" | grep -q "$started" &&
    [ -z "$(sed -n 2p "$tmp/o")" ] &&
    tail -n +3 "$tmp/o" | cmp -s - "$tmp/want-o"; } ||
    fail "-o with '$layout': # started on, a blank line, the layout: $(cat "$tmp/o")"
done

# Running a program, with a stand-in qemu-x86_64 that notes its pid in
# $RAN and sleeps (the plugin: any readable file; the program is looked
# up first).
mkdir -p "$tmp/bin" "$tmp/tmpdir"
printf '#!/bin/sh\n[ "$*" = "-plugin $SOFTPMU_QEMU_PLUGIN --version" ] && exec echo "qemu-x86_64 version 7.2.0"\necho $$ >"$RAN"\nexec sleep "${NAP:-0}"\n' >"$tmp/bin/qemu-x86_64"
chmod +x "$tmp/bin/qemu-x86_64"
standin() {
  RAN="$tmp/ran" PATH="$tmp/bin:$PATH" SOFTPMU_QEMU_PLUGIN="$tmp/res" \
    TMPDIR="$tmp/tmpdir" "$SOFTPMU" "$@" >"$tmp/out" 2>"$tmp/err"
}

# An -o FILE that cannot be written is found before the program runs:
# status 2, the program not run.
rm -f "$tmp/ran"
standin stat -o "$tmp/no-dir/o" -- /bin/true
rc=$?
expect "-o FILE not writable" 2 "" \
  "softpmu: stat: -o $tmp/no-dir/o: No such file or directory"
checks=$((checks + 1))
[ ! -e "$tmp/ran" ] || fail "-o FILE not writable: the program ran"

# A directory as the program: "Is a directory", 126, as a shell says.
standin stat -- "$tmp/bin"
rc=$?
expect "a directory as the program" 126 "" \
  "softpmu: stat: $tmp/bin: Is a directory"

# Killed by SIGTERM or SIGHUP while the program runs: the temporary file
# is removed, the program gets the signal and is waited for, and stat
# dies of the signal (128 + N).
for sig in TERM:15 HUP:1; do
  n=${sig#*:} sig=${sig%:*}
  rm -f "$tmp/ran"
  (NAP=30 RAN="$tmp/ran" PATH="$tmp/bin:$PATH" SOFTPMU_QEMU_PLUGIN="$tmp/res" \
    TMPDIR="$tmp/tmpdir" exec "$SOFTPMU" stat -e instructions -- /bin/true \
    >"$tmp/out" 2>"$tmp/err") &
  pid=$!
  wait_for "$tmp/ran"
  checks=$((checks + 1))
  [ -n "$(ls -A "$tmp/tmpdir")" ] || fail "SIG$sig: no temporary file in TMPDIR"
  kill -s $sig $pid
  wait $pid
  rc=$?
  checks=$((checks + 1))
  want=$((128 + n))
  [ "$rc" = "$want" ] || fail "SIG$sig: exit status $rc, want $want"
  [ -z "$(ls -A "$tmp/tmpdir")" ] ||
    fail "SIG$sig: left in TMPDIR: $(ls -A "$tmp/tmpdir")"
  ! kill -0 "$(cat "$tmp/ran")" 2>/dev/null ||
    fail "SIG$sig: the program still runs"
done

run stat --help
expect_manual "stat --help"
run record --help
expect_manual "record --help"

finish

#!/bin/sh
# SPDX-License-Identifier: MIT
# Tests of the softpmu command-line tool: each runs the built binary and
# checks its exit status, its standard output and its standard error
# exactly. Expected values come from the library (spmu_profile_cpuid,
# spmu_msr_list, the catalogue) and are checked against the SDM where a
# comment says so.
#
# usage: test_cli.sh PATH/TO/softpmu
set -u

SOFTPMU=${1:?usage: test_cli.sh PATH/TO/softpmu}
. "$(dirname "$0")/test_lib.sh"

# ---- decode ---------------------------------------------------------------

# GLOBAL_STATUS bit 0 = PMC0, bit 34 = fixed counter 2, bit 63 = CondChgd
# (SDM 18.2.2.2); default profile skylake, every command's.
run decode IA32_PERF_GLOBAL_STATUS 0x8000000400000001
expect "decode GLOBAL_STATUS" 0 "\
IA32_PERF_GLOBAL_STATUS (0x38e) = 0x8000000400000001 on skylake
      0  Ovf_PMC0       1  IA32_PMC0 overflowed
     34  Ovf_FixedCtr2  1  IA32_FIXED_CTR2 overflowed
     63  CondChgd       1  PMU state changed (condition changed)" ""

# The same MSR by number (decimal 910 = 0x38e) and in lower case.
run decode 910 0x8000000400000001
expect "decode by decimal address" 0 "\
IA32_PERF_GLOBAL_STATUS (0x38e) = 0x8000000400000001 on skylake
      0  Ovf_PMC0       1  IA32_PMC0 overflowed
     34  Ovf_FixedCtr2  1  IA32_FIXED_CTR2 overflowed
     63  CondChgd       1  PMU state changed (condition changed)" ""
run decode --cpu skylake ia32_perf_global_status 0x70000000f
expect "decode lower case, skylake" 0 "\
IA32_PERF_GLOBAL_STATUS (0x38e) = 0x70000000f on skylake
      0  Ovf_PMC0       1  IA32_PMC0 overflowed
      1  Ovf_PMC1       1  IA32_PMC1 overflowed
      2  Ovf_PMC2       1  IA32_PMC2 overflowed
      3  Ovf_PMC3       1  IA32_PMC3 overflowed
     32  Ovf_FixedCtr0  1  IA32_FIXED_CTR0 overflowed
     33  Ovf_FixedCtr1  1  IA32_FIXED_CTR1 overflowed
     34  Ovf_FixedCtr2  1  IA32_FIXED_CTR2 overflowed" ""

# A former name (IA32_PERFCTR0) and a value with no field set.
run decode IA32_PERFCTR0 0
expect "decode former name, zero" 0 "\
IA32_PMC0 (0xc1) = 0x0 on skylake
  no field is set" ""

# VALUE as rdmsr (msr-tools) prints it: bare hex, so 300000001 is
# 0x300000001 (Ovf_PMC0, Ovf_FixedCtr0, Ovf_FixedCtr1; SDM 18.2.2.2), the
# same with 0x, and decimal only after 0n (12884901889 = 0x300000001).
status_300000001="\
IA32_PERF_GLOBAL_STATUS (0x38e) = 0x300000001 on skylake
      0  Ovf_PMC0       1  IA32_PMC0 overflowed
     32  Ovf_FixedCtr0  1  IA32_FIXED_CTR0 overflowed
     33  Ovf_FixedCtr1  1  IA32_FIXED_CTR1 overflowed"
run decode --cpu skylake IA32_PERF_GLOBAL_STATUS 300000001
expect "decode bare hex, as rdmsr prints it" 0 "$status_300000001" ""
run decode --cpu skylake IA32_PERF_GLOBAL_STATUS 0x300000001
expect "decode 0x hex" 0 "$status_300000001" ""
run decode --cpu skylake IA32_PERF_GLOBAL_STATUS 0X300000001
expect "decode 0X hex" 0 "$status_300000001" ""
run decode --cpu skylake IA32_PERF_GLOBAL_STATUS 0n12884901889
expect "decode 0n decimal" 0 "$status_300000001" ""
run decode --cpu skylake IA32_PERF_GLOBAL_STATUS 0N12884901889
expect "decode 0N decimal" 0 "$status_300000001" ""
# rdmsr -0 pads to 16 digits; the MSR by address stays 0x-hex or decimal.
run decode --cpu skylake 0x186 00000000004300c0
expect "decode zero-padded bare hex by address" 0 "\
IA32_PERFEVTSEL0 (0x186) = 0x4300c0 on skylake
    7:0  EVENT  0xc0  event select: the event logic unit
     16  USR    1     count when CPL > 0
     17  OS     1     count when CPL = 0
     22  EN     1     enable the counter" ""
want=$(cat "$tmp/out")
run decode --cpu skylake 0x186 4300c0
expect "decode bare hex by address" 0 "$want" ""
run decode --cpu skylake IA32_PMC0 ffffffffffff
expect "decode bare hex of letters only" 0 "\
IA32_PMC0 (0xc1) = 0xffffffffffff on skylake
   47:0  COUNT  0xffffffffffff  counter value (the counter width)" ""

# Reserved bits: AnyThread (EVTSEL bit 21) is reserved once deprecated
# (v5, CPUID.0AH:EDX[15]); reported, exit 0, or 1 with --strict.
run decode --cpu icelake IA32_PERFEVTSEL0 0x600000
expect "decode reserved bits" 0 "\
IA32_PERFEVTSEL0 (0x186) = 0x600000 on icelake
     22  EN  1  enable the counter
reserved bits set: bit 21 (0x200000), reserved in profile icelake" ""
run decode --strict --cpu icelake IA32_PERFEVTSEL0 0x600000
expect "decode --strict, reserved bits" 1 "\
IA32_PERFEVTSEL0 (0x186) = 0x600000 on icelake
     22  EN  1  enable the counter
reserved bits set: bit 21 (0x200000), reserved in profile icelake" ""
run decode --strict --cpu skylake IA32_PERFEVTSEL0 0x600000
expect "decode --strict, AnyThread valid on v4" 0 "\
IA32_PERFEVTSEL0 (0x186) = 0x600000 on skylake
     21  ANY  1  AnyThread: count events of every thread of the core
     22  EN   1  enable the counter" ""

# Bits in no field but not reserved: the host-owned bits of MISC_ENABLE.
run decode IA32_MISC_ENABLE 0x1081
expect "decode other bits" 0 "\
IA32_MISC_ENABLE (0x1a0) = 0x1081 on skylake
      7  PERFMON_AVAILABLE  1  performance monitoring available
     12  PEBS_UNAVAILABLE   1  PEBS not supported
other bits set: bit 0 (0x1), in no field and not reserved" ""

# ---- encode, and the round trip through decode -------------------------

# EVENT C0H (instructions retired), USR bit 16, OS bit 17, EN bit 22
# (SDM 18.2.1.1): 0x4300c0. Field names in any case.
run encode IA32_PERFEVTSEL0 event=0xc0 usr=1 os=1 en=1
expect "encode PERFEVTSEL0" 0 "0x4300c0" ""
run encode --cpu core2 ia32_perfevtsel0 EVENT=192 Usr=1 oS=1 En=1
expect "encode PERFEVTSEL0, any case, decimal" 0 "0x4300c0" ""
run decode IA32_PERFEVTSEL0 0x4300c0
expect "decode what encode built" 0 "\
IA32_PERFEVTSEL0 (0x186) = 0x4300c0 on skylake
    7:0  EVENT  0xc0  event select: the event logic unit
     16  USR    1     count when CPL > 0
     17  OS     1     count when CPL = 0
     22  EN     1     enable the counter" ""

# Round trip through the shell: cycles with CMASK=1, INV (bits 24, 23).
run encode IA32_PERFEVTSEL1 event=0x3c umask=0x01 cmask=1 inv=1 en=1
expect "encode PERFEVTSEL1" 0 "0x1c0013c" ""
run decode IA32_PERFEVTSEL1 "$(cat "$tmp/out")"
expect "round trip PERFEVTSEL1" 0 "\
IA32_PERFEVTSEL1 (0x187) = 0x1c0013c on skylake
    7:0  EVENT  0x3c  event select: the event logic unit
   15:8  UMASK  0x1   unit mask: the condition within the event
     22  EN     1     enable the counter
     23  INV    1     invert the CMASK comparison (>= becomes <)
  31:24  CMASK  0x1   counter mask: count cycles with at least CMASK events" ""

# FIXED_CTR_CTRL: EN0 = 3 (all rings) in bits 1:0, PMI0 bit 3.
run encode IA32_FIXED_CTR_CTRL en0=3 pmi0=1
expect "encode FIXED_CTR_CTRL" 0 "0xb" ""
run encode IA32_PERF_GLOBAL_CTRL en_pmc0=1 en_fixed_ctr2=1
expect "encode GLOBAL_CTRL" 0 "0x400000001" ""
run encode IA32_PERFEVTSEL0
expect "encode with no field" 0 "0x0" ""

# Too wide: CMASK is 8 bits, EN0 2 bits, USR 1 bit.
run encode IA32_PERFEVTSEL0 event=0xc0 cmask=300
expect "encode too wide" 2 "" "softpmu: CMASK is 8 bits wide; 300 does not fit"
run encode IA32_FIXED_CTR_CTRL en0=4
expect "encode too wide, 2 bits" 2 "" "softpmu: EN0 is 2 bits wide; 4 does not fit"
run encode IA32_PERFEVTSEL0 usr=0x2
expect "encode too wide, 1 bit" 2 "" "softpmu: USR is 1 bit wide; 0x2 does not fit"

# Unknown fields list the MSR's fields (and presets that have one the
# profile lacks).
run encode --cpu sapphirerapids IA32_PERFEVTSEL0 evnt=1
expect "encode unknown field" 2 "" "\
softpmu: IA32_PERFEVTSEL0 has no field 'evnt'
softpmu: its fields: EVENT UMASK USR OS E PC INT EN INV CMASK IN_TX ADAPTIVE"
run encode --cpu sapphirerapids IA32_PERFEVTSEL0 any=1
expect "encode field absent from profile" 2 "" "\
softpmu: IA32_PERFEVTSEL0 has no field 'any' in profile sapphirerapids; presets that have it: nehalem, sandybridge, haswell, skylake
softpmu: its fields: EVENT UMASK USR OS E PC INT EN INV CMASK IN_TX ADAPTIVE"
run encode IA32_PERFEVTSEL0 usr
expect "encode not FIELD=VALUE" 2 "" "softpmu: 'usr' is not FIELD=VALUE"
run encode IA32_PERFEVTSEL0 usr=yes
expect "encode bad number" 2 "" \
  "softpmu: usr: 'yes' is not a number (0x-hex or decimal)"

# ---- bad input -------------------------------------------------------------

run decode IA32_PERF_GLOBAL_STAUS 1
expect "unknown MSR, one suggestion" 2 "" "\
softpmu: unknown MSR 'IA32_PERF_GLOBAL_STAUS'
softpmu: did you mean IA32_PERF_GLOBAL_STATUS?"
run decode IA32_PERF_GLOBAL_STAT 1
expect "unknown MSR, a truncated name" 2 "" "\
softpmu: unknown MSR 'IA32_PERF_GLOBAL_STAT'
softpmu: did you mean IA32_PERF_GLOBAL_STATUS or IA32_PERF_GLOBAL_CTRL?"
run decode ia32_pmc 1
expect "unknown MSR, three suggestions" 2 "" "\
softpmu: unknown MSR 'ia32_pmc'
softpmu: did you mean IA32_PMC0, IA32_PMC1 or IA32_PMC2?"
run encode status ovf_pmc0=1
expect "unknown MSR, part of a name" 2 "" "\
softpmu: unknown MSR 'status'
softpmu: did you mean IA32_PERF_GLOBAL_STATUS, IA32_PERF_GLOBAL_STATUS_SET or IA32_PERF_GLOBAL_STATUS_RESET?"
run decode zzzz 1
expect "unknown MSR, nothing near" 2 "" "softpmu: unknown MSR 'zzzz'"

# Known MSRs that the profile lacks, by name and by number.
run decode --cpu haswell IA32_PERF_GLOBAL_INUSE 0
expect "MSR absent from profile" 2 "" \
  "softpmu: IA32_PERF_GLOBAL_INUSE is not present in profile haswell; presets that have it: skylake, icelake, sapphirerapids"
run decode --cpu haswell 0x392 0
expect "MSR number absent from profile" 2 "" \
  "softpmu: MSR 0x392 is not present in profile haswell; presets that have it: skylake, icelake, sapphirerapids"
run decode 0x10 0
expect "MSR number absent everywhere" 2 "" \
  "softpmu: MSR 0x10 is not present in profile skylake"

run decode --cpu bogus IA32_PMC0 1
expect "unknown profile" 2 "" \
  "softpmu: unknown profile 'bogus'; known: core-duo, core2, nehalem, sandybridge, haswell, skylake, icelake, sapphirerapids, pentium4, pentium4-noht"
run decode --cpu skylak IA32_PMC0 1
expect "unknown profile, did you mean" 2 "" "\
softpmu: unknown profile 'skylak'; known: core-duo, core2, nehalem, sandybridge, haswell, skylake, icelake, sapphirerapids, pentium4, pentium4-noht
softpmu: did you mean skylake?"
run cpuid --cpu base=sapphire,gp=2
expect "unknown base profile, did you mean" 2 "" "\
softpmu: unknown profile 'sapphire'; known: core-duo, core2, nehalem, sandybridge, haswell, skylake, icelake, sapphirerapids, pentium4, pentium4-noht
softpmu: did you mean sapphirerapids?"
run msrs --cpu pentium
expect "unknown profile, the nearest" 2 "" "\
softpmu: unknown profile 'pentium'; known: core-duo, core2, nehalem, sandybridge, haswell, skylake, icelake, sapphirerapids, pentium4, pentium4-noht
softpmu: did you mean pentium4?"
run cpuid --cpu base=skylake,gp=9
expect "impossible profile" 2 "" \
  "softpmu: gp=9: the architectural MSR ranges hold at most 8 GP counters (IA32_PMC0-7)"

run decode IA32_PMC0 0x1ffffffffffffffff
expect "value wider than 64 bits" 2 "" \
  "softpmu: '0x1ffffffffffffffff' is not a 64-bit value (hex, 0x optional, as rdmsr prints it; decimal after 0n)"
run decode IA32_PMC0 1ffffffffffffffff
expect "bare hex value wider than 64 bits" 2 "" \
  "softpmu: '1ffffffffffffffff' is not a 64-bit value (hex, 0x optional, as rdmsr prints it; decimal after 0n)"
run decode IA32_PMC0 12xyz
expect "value not a number" 2 "" \
  "softpmu: '12xyz' is not a 64-bit value (hex, 0x optional, as rdmsr prints it; decimal after 0n)"
run decode IA32_PMC0 0n12ab
expect "0n value not decimal" 2 "" \
  "softpmu: '0n12ab' is not a 64-bit value (hex, 0x optional, as rdmsr prints it; decimal after 0n)"
run decode IA32_PMC0 0n18446744073709551616
expect "0n value wider than 64 bits" 2 "" \
  "softpmu: '0n18446744073709551616' is not a 64-bit value (hex, 0x optional, as rdmsr prints it; decimal after 0n)"

run decode IA32_PMC0
expect "decode missing argument" 2 "" "\
softpmu: decode: missing argument
usage: softpmu decode [--cpu PROFILE] [--strict] MSR VALUE"
run encode
expect "encode missing argument" 2 "" "\
softpmu: encode: missing argument
usage: softpmu encode [--cpu PROFILE] MSR [FIELD=VALUE]..."
run cpuid extra
expect "cpuid extra argument" 2 "" "\
softpmu: cpuid: unexpected argument 'extra'
usage: softpmu cpuid [--cpu PROFILE]"
run decode --cpu
expect "option without its value" 2 "" "\
softpmu: decode: option '--cpu' needs a value
usage: softpmu decode [--cpu PROFILE] [--strict] MSR VALUE"
run msrs --strict
expect "option of another command" 2 "" "\
softpmu: msrs: unknown option '--strict'
usage: softpmu msrs [--cpu PROFILE] [--fields | --absent]"
run
expect "no command" 2 "" \
  "usage: softpmu COMMAND [OPTIONS] [ARGUMENTS]  (softpmu --help lists them)"
run decod
expect "unknown command" 2 "" "\
softpmu: unknown command 'decod'
softpmu: did you mean decode or record?
usage: softpmu COMMAND [OPTIONS] [ARGUMENTS]  (softpmu --help lists them)"

# ---- cpuid -----------------------------------------------------------------

# Skylake, SDM CPUID.0AH: EAX = 0x07300404 is version 4 (7:0), 4 GP
# counters (15:8), 48 bits wide (23:16 = 0x30), 7 events (31:24); EBX = 0,
# all seven available; ECX reserved before v5; EDX = 0x603 is 3 fixed
# counters (4:0) 48 bits wide (12:5 = 0x30). Leaf 01H: ECX = 0x8014 is
# DTES64 (2), DS-CPL (4), PDCM (15); EDX = 0x200000 is DS (21).
# Skylake's leaf 04H is the Core i7-6700K's (SDM Vol. 2A CPUID, Table 3-8):
# EAX 0x1c004121 = type 1 (data), level 1, self-initializing, 2 threads
# share it (EAX[25:14] = 1), 8 core IDs (EAX[31:26] = 7); L2 EBX 0x00c0003f
# is 4 ways, ECX 0x3ff 1024 sets: 256 KB; L3 16 ways x 8192 sets = 8 MB,
# EDX 6 inclusive with complex indexing.
run cpuid --cpu skylake
expect "cpuid skylake" 0 "\
CPUID.0AH  EAX 0x07300404  EBX 0x00000000  ECX 0x00000000  EDX 0x00000603
CPUID.01H  EAX 0x00000000  EBX 0x00000000  ECX 0x00008014  EDX 0x00200000
CPUID.04H.0  EAX 0x1c004121  EBX 0x01c0003f  ECX 0x0000003f  EDX 0x00000000
CPUID.04H.1  EAX 0x1c004122  EBX 0x01c0003f  ECX 0x0000003f  EDX 0x00000000
CPUID.04H.2  EAX 0x1c004143  EBX 0x00c0003f  ECX 0x000003ff  EDX 0x00000000
CPUID.04H.3  EAX 0x1c03c163  EBX 0x03c0003f  ECX 0x00001fff  EDX 0x00000006
CPUID.04H.4  EAX 0x00000000  EBX 0x00000000  ECX 0x00000000  EDX 0x00000000

Leaf 0AH, architectural performance monitoring, on skylake
  EAX[7:0]    4     version ID
  EAX[15:8]   4     general-purpose counters per thread
  EAX[23:16]  48    general-purpose counter width
  EAX[31:24]  7     length of the EBX event vector
  EBX[0]      0     UnHalted Core Cycles (3CH/00H) available
  EBX[1]      0     Instruction Retired (C0H/00H) available
  EBX[2]      0     UnHalted Reference Cycles (3CH/01H) available
  EBX[3]      0     LLC Reference (2EH/4FH) available
  EBX[4]      0     LLC Misses (2EH/41H) available
  EBX[5]      0     Branch Instruction Retired (C4H/00H) available
  EBX[6]      0     Branch Misses Retired (C5H/00H) available
  ECX[31:0]   0x0   reserved before version 5
  EDX[4:0]    3     contiguous fixed counters
  EDX[12:5]   48    fixed counter width
  EDX[15]     0     AnyThread deprecation
  fixed counters: 0-2
  AnyThread (IA32_PERFEVTSELx bit 21): available
Leaf 01H, the PMU bits (softpmu defines only these)
  ECX[2]      1     DTES64: 64-bit DS save area layout
  ECX[4]      1     DS-CPL: CPL-qualified debug store
  ECX[15]     1     PDCM: IA32_PERF_CAPABILITIES exists
  EDX[21]     1     DS: debug store (BTS, PEBS)
Leaf 04H, deterministic cache parameters
  sub-leaf 0: L1 data, 32 KB: 8 ways x 1 partition x 64 B lines x 64 sets; shared by 2 logical processors
  sub-leaf 1: L1 instruction, 32 KB: 8 ways x 1 partition x 64 B lines x 64 sets; shared by 2 logical processors
  sub-leaf 2: L2 unified, 256 KB: 4 ways x 1 partition x 64 B lines x 1024 sets; shared by 2 logical processors
  sub-leaf 3: L3 unified, 8 MB: 16 ways x 1 partition x 64 B lines x 8192 sets; shared by 16 logical processors; inclusive; complex indexing
  sub-leaf 4: type 0, no more caches
  addressable core IDs in the package: 8 (EAX[31:26] + 1)" ""

# Sapphire Rapids: EAX = 0x08300805 is version 5, 8 GP
# counters of 48 bits, 8 events (Topdown Slots is bit 7); ECX = 0xf is the
# fixed-counter bitmap (v5); EDX = 0x8604 is 4 fixed counters of 48 bits
# and AnyThread deprecated (bit 15). Leaf 1CH (architectural LBRs): EAX =
# 0x8000000f is depths 8, 16, 24, 32 (bits 3:0) and LIP (bit 31); EBX = 7
# CPL and branch filtering and call-stack mode; ECX = 7 the mispredict
# bit, timed LBRs and the branch type. Leaf 0DH: sub-leaf 1 ECX = 0x8000
# is IA32_XSS bit 15 (the LBR state component); sub-leaf 0FH EAX = 0x328
# is its size, 808 = 40 + 24 x 32 bytes (the deepest depth), EBX 0 and
# ECX[0] 1 a supervisor component. Leaf 04H: one core of the part,
# L1D 48 KB 12-way (EBX 0x02c0003f: ways - 1 = 11 in EBX[31:22], line - 1 =
# 63), L2 2 MB 16-way of 2048 sets, its 1.875 MB 15-way slice of the
# non-inclusive L3 (EDX 4: complex indexing only), then type 0.
run cpuid --cpu sapphirerapids
expect "cpuid sapphirerapids" 0 "\
CPUID.0AH  EAX 0x08300805  EBX 0x00000000  ECX 0x0000000f  EDX 0x00008604
CPUID.01H  EAX 0x00000000  EBX 0x00000000  ECX 0x00008014  EDX 0x00200000
CPUID.1CH  EAX 0x8000000f  EBX 0x00000007  ECX 0x00000007  EDX 0x00000000
CPUID.0DH.01H  EAX 0x00000000  EBX 0x00000000  ECX 0x00008000  EDX 0x00000000
CPUID.0DH.0FH  EAX 0x00000328  EBX 0x00000000  ECX 0x00000001  EDX 0x00000000
CPUID.04H.0  EAX 0x00004121  EBX 0x02c0003f  ECX 0x0000003f  EDX 0x00000000
CPUID.04H.1  EAX 0x00004122  EBX 0x01c0003f  ECX 0x0000003f  EDX 0x00000000
CPUID.04H.2  EAX 0x00004143  EBX 0x03c0003f  ECX 0x000007ff  EDX 0x00000000
CPUID.04H.3  EAX 0x00004163  EBX 0x0380003f  ECX 0x000007ff  EDX 0x00000004
CPUID.04H.4  EAX 0x00000000  EBX 0x00000000  ECX 0x00000000  EDX 0x00000000

Leaf 0AH, architectural performance monitoring, on sapphirerapids
  EAX[7:0]    5     version ID
  EAX[15:8]   8     general-purpose counters per thread
  EAX[23:16]  48    general-purpose counter width
  EAX[31:24]  8     length of the EBX event vector
  EBX[0]      0     UnHalted Core Cycles (3CH/00H) available
  EBX[1]      0     Instruction Retired (C0H/00H) available
  EBX[2]      0     UnHalted Reference Cycles (3CH/01H) available
  EBX[3]      0     LLC Reference (2EH/4FH) available
  EBX[4]      0     LLC Misses (2EH/41H) available
  EBX[5]      0     Branch Instruction Retired (C4H/00H) available
  EBX[6]      0     Branch Misses Retired (C5H/00H) available
  EBX[7]      0     Topdown Slots (A4H/01H) available
  ECX[31:0]   0xf   fixed counter bitmap
  EDX[4:0]    4     contiguous fixed counters
  EDX[12:5]   48    fixed counter width
  EDX[15]     1     AnyThread deprecation
  fixed counters: 0-3
  AnyThread (IA32_PERFEVTSELx bit 21): deprecated: bit 21 is reserved
Leaf 01H, the PMU bits (softpmu defines only these)
  ECX[2]      1     DTES64: 64-bit DS save area layout
  ECX[4]      1     DS-CPL: CPL-qualified debug store
  ECX[15]     1     PDCM: IA32_PERF_CAPABILITIES exists
  EDX[21]     1     DS: debug store (BTS, PEBS)
Leaf 1CH, architectural last branch records
  EAX[7:0]    15    supported depths: 8 * (n + 1) for each bit n
  EAX[30]     0     deep C-state reset
  EAX[31]     1     IP values contain LIP
  EBX[0]      1     CPL filtering (IA32_LBR_CTL.OS/USR)
  EBX[1]      1     branch filtering (IA32_LBR_CTL[22:16])
  EBX[2]      1     call-stack mode
  ECX[0]      1     mispredict bit
  ECX[1]      1     timed LBRs (cycle count)
  ECX[2]      1     branch type field
  depths: 8 16 24 32
Leaf 0DH, the architectural LBR state component (XSAVES component 15)
  ECX[15]     1     sub-leaf 01H: IA32_XSS[15], LBR state, supported
  EAX         808   sub-leaf 0FH: size of the component in bytes
  EBX         0     sub-leaf 0FH: offset (0: supervisor state)
  ECX[0]      1     sub-leaf 0FH: supervisor state (set in IA32_XSS)
Leaf 04H, deterministic cache parameters
  sub-leaf 0: L1 data, 48 KB: 12 ways x 1 partition x 64 B lines x 64 sets; shared by 2 logical processors
  sub-leaf 1: L1 instruction, 32 KB: 8 ways x 1 partition x 64 B lines x 64 sets; shared by 2 logical processors
  sub-leaf 2: L2 unified, 2 MB: 16 ways x 1 partition x 64 B lines x 2048 sets; shared by 2 logical processors
  sub-leaf 3: L3 unified, 1920 KB: 15 ways x 1 partition x 64 B lines x 2048 sets; shared by 2 logical processors; complex indexing
  sub-leaf 4: type 0, no more caches
  addressable core IDs in the package: 1 (EAX[31:26] + 1)" ""

# Core 2 (v2): EAX = 0x07280202, two 40-bit counters; EDX = 0x503 is three
# fixed counters of 40 bits (0x28 << 5 | 3).
run cpuid --cpu core2
checks=$((checks + 1))
head -n 1 "$tmp/out" >"$tmp/first"
same "$tmp/first" \
  "CPUID.0AH  EAX 0x07280202  EBX 0x00000000  ECX 0x00000000  EDX 0x00000503" ||
  fail "cpuid core2: registers differ"

# EBX = 0x44: events 2 and 6 marked not available.
run cpuid --cpu base=skylake,unavailable=0x44
checks=$((checks + 1))
grep '^  EBX\[[26]\]' "$tmp/out" >"$tmp/ebx"
same "$tmp/ebx" "\
  EBX[2]      1     UnHalted Reference Cycles (3CH/01H) not available
  EBX[6]      1     Branch Misses Retired (C5H/00H) not available" ||
  fail "cpuid unavailable events differ"

# A leaf stated apart (SDM Vol. 2A Table 3-8): version 5 with ECX = 0 and
# EDX[4:0] = 4 still has fixed counters 0-3 (EDX[4:0] > i).
run cpuid --cpu base=icelake,fixed_contig=4,fixed_ecx=0
checks=$((checks + 1))
grep -e '^CPUID.0AH' -e '^  ECX\[31' -e '^  EDX\[4' -e '^  fixed' "$tmp/out" >"$tmp/fx"
same "$tmp/fx" "\
CPUID.0AH  EAX 0x08300805  EBX 0x00000000  ECX 0x00000000  EDX 0x00008604
  ECX[31:0]   0x0   fixed counter bitmap
  EDX[4:0]    4     contiguous fixed counters
  fixed counters: 0-3" || fail "cpuid fixed_contig/fixed_ecx stated apart"

# ---- msrs ------------------------------------------------------------------

# One line per MSR: as many lines as spmu_msr_list counts (Ice Lake: 43
# plus 100 LBR MSRs, 32 x FROM/TO/INFO, TOS, LBR_SELECT and the 2 LER
# MSRs; Sapphire Rapids: 43 plus 101 architectural LBR MSRs, 32 x
# FROM/TO/INFO, LBR_CTL, LBR_DEPTH and 3 LER; Skylake 28 + 100; Core 2
# 16 + 11, 4 x FROM/TO, TOS and 2 LER; Core Duo 7).
run msrs --cpu sapphirerapids
expect_lines "msrs sapphirerapids" 144
run msrs --cpu icelake
expect_lines "msrs icelake" 143
run msrs --cpu skylake
expect_lines "msrs skylake" 128
run msrs --cpu core2
expect_lines "msrs core2" 27
# --absent: the addresses Core 2 raises #GP for (SDM Vol. 2B RDMSR,
# WRMSR; spmu_msr_absent_list, docs/decisions.md #96), one run a line:
# its 4-entry stack at 40H / 60H leaves 44H on (48H, 49H, 4EH, 4FH, 79H
# are the host's), no Nehalem stack at 680H, no architectural LBRs.
run msrs --cpu core2 --absent
checks=$((checks + 1))
same "$tmp/out" "\
0x044-0x047
0x04a-0x04d
0x050-0x05f
0x064-0x078
0x07a-0x07f
0x0c3-0x0c8
0x188-0x18d
0x1c8
0x1d7-0x1d8
0x1da-0x1dc
0x1e0
0x300-0x308
0x30c-0x318
0x329
0x360-0x371
0x391-0x392
0x3a0-0x3be
0x3c0-0x3c5
0x3c8-0x3cd
0x3e0-0x3e1
0x3f0
0x3f2
0x3f6-0x3f7
0x4c1-0x4c8
0x680-0x69f
0x6c0-0x6df
0xdc0-0xddf
0x1200-0x12ff
0x14ce-0x14cf
0x1500-0x16ff"
run msrs --cpu core-duo
expect "msrs core-duo" 0 "\
0x0c1  IA32_PMC0         counter-sx  0x0     general-purpose counter; writes sign-extend bit 31
0x0c2  IA32_PMC1         counter-sx  0x0     general-purpose counter; writes sign-extend bit 31
0x186  IA32_PERFEVTSEL0  rw          0x0     event select for IA32_PMC0
0x187  IA32_PERFEVTSEL1  rw          0x0     event select for IA32_PMC1
0x1a0  IA32_MISC_ENABLE  rw          0x1080  perf availability bits (read-only); other bits host-owned
0x1d9  IA32_DEBUGCTL     rw          0x0     debug control: LBR, BTS, freeze
0x600  IA32_DS_AREA      rw          0x0     linear address of the DS save area (canonical)" ""
run msrs --cpu core-duo --fields
checks=$((checks + 1))
sed -n '/^0x186/,/^0x187/p' "$tmp/out" >"$tmp/evtsel"
same "$tmp/evtsel" "\
0x186  IA32_PERFEVTSEL0  rw          0x0     event select for IA32_PMC0
          7:0  EVENT                  rw   event select: the event logic unit
         15:8  UMASK                  rw   unit mask: the condition within the event
           16  USR                    rw   count when CPL > 0
           17  OS                     rw   count when CPL = 0
           18  E                      rw   edge detect: count deasserted-to-asserted transitions
           19  PC                     rw   pin control
           20  INT                    rw   APIC interrupt (PMI) on overflow
           22  EN                     rw   enable the counter
           23  INV                    rw   invert the CMASK comparison (>= becomes <)
        31:24  CMASK                  rw   counter mask: count cycles with at least CMASK events
0x187  IA32_PERFEVTSEL1  rw          0x0     event select for IA32_PMC1" ||
  fail "msrs --fields: PERFEVTSEL0 differs"

# ---- show -------------------------------------------------------------------

# show reads a PMU through the hardware backend; --msr-file and --cpuid-file
# put regular files in place of /dev/cpu/N/msr and /dev/cpu/N/cpuid, with
# the devices' layout: an MSR is the 8 bytes at offset = its address, a
# CPUID leaf the 16 bytes EAX, EBX, ECX, EDX at offset = leaf (sub-leaf 0),
# little-endian; past the end of the file is #GP. (put, of test_lib.sh,
# writes them.)

# The leaves overlap in a flat file: 01H is bytes 1-16, 07H 7-22, 0AH
# 10-25, so leaves 01H and 07H are made of leaf 0AH's bytes. Here leaf 0AH
# EAX = 0x07280101 (SDM CPUID.0AH: version 1, one GP counter of 40 bits,
# 7 events) makes CPUID.01H ECX 0x28010100 (no PDCM, no DTES64), EDX 0x7
# (no DS), and CPUID.07H EBX 0x00072801, whose bit 11 is RTM.
put "$tmp/cpuid1" 10 0x0000000007280101
put "$tmp/cpuid1" 18 0
# Perfmon v1 with one GP counter: its four MSRs lie apart, so each reads
# just what was written. PMC0 = -16 in 40 bits; IA32_PERFEVTSEL0 =
# 0x5300c0: EVENT C0H, USR (16), OS (17), INT (20), EN (22) (SDM 18.2.1.1);
# IA32_MISC_ENABLE 0x1880: perfmon available (7), BTS (11) and PEBS (12)
# unavailable. The file ends before IA32_DEBUGCTL (1D9H): #GP. Before v4
# INUSE is computed (SDM 18.2.4.3): EVTSEL0[7:0] != 0 is bit 0, its INT
# makes PMI_InUse (bit 63).
put "$tmp/msr1" 0xc1 0xfffffffff0
put "$tmp/msr1" 0x186 0x5300c0
put "$tmp/msr1" 0x1a0 0x1880
run show -C 1 --msr-file "$tmp/msr1" --cpuid-file "$tmp/cpuid1"
expect "show v1: computed INUSE, #GP" 0 "\
CPU 1: MSRs from $tmp/msr1, CPUID from $tmp/cpuid1
CPUID.0AH  EAX 0x07280101  EBX 0x00000000  ECX 0x00000000  EDX 0x00000000
CPUID.01H  EAX 0x00000000  EBX 0x00000000  ECX 0x28010100  EDX 0x00000007
CPUID.07H  EAX 0x01000000  EBX 0x00072801  ECX 0x00000000  EDX 0x00000000
perfmon v1: 1 GP counter of 40 bits, no fixed counters
architectural events: 7 enumerated, all available
CPUID.01H: PDCM 0, DS 0, DTES64 0, DS-CPL 0; CPUID.07H: RTM 1, Intel PT 0, SGX 0
decoded as the profile name=cpu1,version=1,gp=1,gp_width=40,events=7,unavailable=0x0,fixed_mask=0x0,fixed_width=0,threads=1,perf_capabilities=0x0,pdcm=0,ds=0,dtes64=0,ds_cpl=0,bts=0,pebs=0,rtm=1,pt=0,sgx=0,uncore_pmi=0,precise_store=0,any_deprecated=0

The 4 MSRs of this PMU:
0x0c1  IA32_PMC0         0xfffffffff0 (-16)
0x186  IA32_PERFEVTSEL0  0x5300c0
         7:0  EVENT  0xc0  event select: the event logic unit
          16  USR    1     count when CPL > 0
          17  OS     1     count when CPL = 0
          20  INT    1     APIC interrupt (PMI) on overflow
          22  EN     1     enable the counter
0x1a0  IA32_MISC_ENABLE  0x1880
           7  PERFMON_AVAILABLE  1  performance monitoring available
          11  BTS_UNAVAILABLE    1  branch trace storage not supported
          12  PEBS_UNAVAILABLE   1  PEBS not supported
0x1d9  IA32_DEBUGCTL     #GP

In use, computed as IA32_PERF_GLOBAL_INUSE would be (perfmon v1 has none) = 0x8000000000000001:
  IA32_PMC0        PERFEVTSEL0_InUse  EVENT=0xc0, USR, OS, INT, EN; counting
  PMI              PMI_InUse          IA32_PERFEVTSEL0.INT
Free: none" ""

# Perfmon v4 (Skylake's CPUID.0AH: EAX 0x07300404, EDX 0x603: 4 GP and 3
# fixed counters of 48 bits). Leaf 07H EBX comes out 0x00073004: SGX (bit
# 2), so GLOBAL_STATUS has ASCI; no RTM, no Intel PT.
put "$tmp/cpuid4" 10 0x0000000007300404
put "$tmp/cpuid4" 18 0x0000060300000000
# The v4 MSRs 38DH-392H are neighbours: each reads its own first byte and
# the next ones' bytes above it. Written: IA32_PERFEVTSEL3 = 0x5300c0
# (EVENT C0H, USR, OS, INT, EN), IA32_FIXED_CTR_CTRL = 0xb0 (EN1 = 3, PMI1:
# SDM 18.2.2.1), GLOBAL_CTRL = 0x8 (EN_PMC3), INUSE = 0x8000000200000008
# (PERFEVTSEL3_InUse, FC1_InUse, PMI_InUse; SDM 18.2.4.3). So EVTSEL0-2
# read EVTSEL3's bytes shifted (event 0: not in use), and FIXED_CTR_CTRL,
# STATUS, CTRL, STATUS_RESET and STATUS_SET read INUSE's and CTRL's bytes
# as reserved bits: decode reports them. The summary comes from INUSE:
# PMC3 counts (EN, GLOBAL_CTRL bit 3, no CTR_Frz), fixed counter 1 does not
# (GLOBAL_CTRL bit 33 clear); INT and PMI1 hold the PMI.
put "$tmp/msr4" 0x189 0x5300c0
put "$tmp/msr4" 0x1a0 0x1880
put "$tmp/msr4" 0x38d 0xb0
put "$tmp/msr4" 0x38f 0x8
put "$tmp/msr4" 0x392 0x8000000200000008
run show -C 2 --msr-file "$tmp/msr4" --cpuid-file "$tmp/cpuid4"
expect "show v4: INUSE, counting or not, who holds the PMI" 0 "\
CPU 2: MSRs from $tmp/msr4, CPUID from $tmp/cpuid4
CPUID.0AH  EAX 0x07300404  EBX 0x00000000  ECX 0x00000000  EDX 0x00000603
CPUID.01H  EAX 0x00000000  EBX 0x00000000  ECX 0x30040400  EDX 0x00000007
CPUID.07H  EAX 0x04000000  EBX 0x00073004  ECX 0x00000000  EDX 0x03000000
perfmon v4: 4 GP counters of 48 bits, fixed counters 0-2 of 48 bits
architectural events: 7 enumerated, all available
CPUID.01H: PDCM 0, DS 0, DTES64 0, DS-CPL 0; CPUID.07H: RTM 0, Intel PT 0, SGX 1
decoded as the profile name=cpu2,version=4,gp=4,gp_width=48,events=7,unavailable=0x0,fixed_mask=0x7,fixed_width=48,threads=1,perf_capabilities=0x0,pdcm=0,ds=0,dtes64=0,ds_cpl=0,bts=0,pebs=0,rtm=0,pt=0,sgx=1,uncore_pmi=1,precise_store=0,any_deprecated=0

The 19 MSRs of this PMU:
0x0c1  IA32_PMC0                      0x0
0x0c2  IA32_PMC1                      0x0
0x0c3  IA32_PMC2                      0x0
0x0c4  IA32_PMC3                      0x0
0x186  IA32_PERFEVTSEL0               0x5300c0000000
       31:24  CMASK  0xc0  counter mask: count cycles with at least CMASK events
       reserved bits set: bits 40-41, 44, 46 (0x530000000000), reserved in profile cpu2
0x187  IA32_PERFEVTSEL1               0x5300c00000
          22  EN   1  enable the counter
          23  INV  1  invert the CMASK comparison (>= becomes <)
       reserved bits set: bits 32-33, 36, 38 (0x5300000000), reserved in profile cpu2
0x188  IA32_PERFEVTSEL2               0x5300c000
        15:8  UMASK  0xc0  unit mask: the condition within the event
       31:24  CMASK  0x53  counter mask: count cycles with at least CMASK events
0x189  IA32_PERFEVTSEL3               0x5300c0
         7:0  EVENT  0xc0  event select: the event logic unit
          16  USR    1     count when CPL > 0
          17  OS     1     count when CPL = 0
          20  INT    1     APIC interrupt (PMI) on overflow
          22  EN     1     enable the counter
0x1a0  IA32_MISC_ENABLE               0x1880
           7  PERFMON_AVAILABLE  1  performance monitoring available
          11  BTS_UNAVAILABLE    1  branch trace storage not supported
          12  PEBS_UNAVAILABLE   1  PEBS not supported
0x1d9  IA32_DEBUGCTL                  0x0
0x309  IA32_FIXED_CTR0                0x0
0x30a  IA32_FIXED_CTR1                0x0
0x30b  IA32_FIXED_CTR2                0x0
0x38d  IA32_FIXED_CTR_CTRL            0x800000800b0
         5:4  EN1   0x3  enable: 0 off, 1 OS (CPL 0), 2 USR (CPL > 0), 3 all rings
           7  PMI1  1    PMI on overflow
       reserved bits set: bits 19, 43 (0x80000080000), reserved in profile cpu2
0x38e  IA32_PERF_GLOBAL_STATUS        0x800000800
       reserved bits set: bits 11, 35 (0x800000800), reserved in profile cpu2
0x38f  IA32_PERF_GLOBAL_CTRL          0x200000008000008
           3  EN_PMC3  1  enable IA32_PMC3
       reserved bits set: bits 27, 57 (0x200000008000000), reserved in profile cpu2
0x390  IA32_PERF_GLOBAL_STATUS_RESET  0x2000000080000
       reserved bits set: bits 19, 49 (0x2000000080000), reserved in profile cpu2
0x391  IA32_PERF_GLOBAL_STATUS_SET    0x20000000800
       reserved bits set: bits 11, 41 (0x20000000800), reserved in profile cpu2
0x392  IA32_PERF_GLOBAL_INUSE         0x8000000200000008
           3  PERFEVTSEL3_InUse  1  IA32_PERFEVTSEL3[7:0] != 0
          33  FC1_InUse          1  IA32_FIXED_CTR_CTRL enable field of IA32_FIXED_CTR1 != 0
          63  PMI_InUse          1  some INT, fixed PMI or PEBS enable bit is set

In use, from IA32_PERF_GLOBAL_INUSE 0x8000000200000008:
  IA32_PMC3        PERFEVTSEL3_InUse  EVENT=0xc0, USR, OS, INT, EN; counting
  IA32_FIXED_CTR1  FC1_InUse          EN1=0x3, PMI1; not counting: IA32_PERF_GLOBAL_CTRL.EN_FIXED_CTR1 clear
  PMI              PMI_InUse          IA32_PERFEVTSEL3.INT, IA32_FIXED_CTR_CTRL.PMI1
Free: IA32_PMC0, IA32_PMC1, IA32_PMC2, IA32_FIXED_CTR0, IA32_FIXED_CTR2" ""

# The same as JSON: one object; the in-use part.
run show --json --cpu-num 2 --msr-file "$tmp/msr4" --cpuid-file "$tmp/cpuid4"
checks=$((checks + 1))
sed 's/.*,"inuse":/"inuse":/' "$tmp/out" >"$tmp/lines"
same "$tmp/lines" '"inuse":{"from":"IA32_PERF_GLOBAL_INUSE","result":"ok","value":"0x8000000200000008","counters":[{"counter":"IA32_PMC0","bit":0,"in_use":false},{"counter":"IA32_PMC1","bit":1,"in_use":false},{"counter":"IA32_PMC2","bit":2,"in_use":false},{"counter":"IA32_PMC3","bit":3,"in_use":true,"flag":"PERFEVTSEL3_InUse","control":["EVENT=0xc0","USR","OS","INT","EN"],"state":"counting"},{"counter":"IA32_FIXED_CTR0","bit":32,"in_use":false},{"counter":"IA32_FIXED_CTR1","bit":33,"in_use":true,"flag":"FC1_InUse","control":["EN1=0x3","PMI1"],"state":"not counting: IA32_PERF_GLOBAL_CTRL.EN_FIXED_CTR1 clear"},{"counter":"IA32_FIXED_CTR2","bit":34,"in_use":false}],"pmi":{"in_use":true,"by":["IA32_PERFEVTSEL3.INT","IA32_FIXED_CTR_CTRL.PMI1"]}}}' &&
  [ "$rc" = 0 ] || fail "show --json: the inuse object differs (above)"
grep -q '"msrs":\[{"addr":"0xc1","name":"IA32_PMC0","result":"ok","value":"0x0","fields":\[\]}' "$tmp/out" ||
  fail "show --json: the MSR list differs"

# A CPU that enumerates more than softpmu models: perfmon version 6 and
# ten GP counters (EAX 0x07300a06; EDX 0x8604 with ECX 0xf: four fixed
# counters, AnyThread deprecated) is decoded as version 5 with eight, and
# says so.
put "$tmp/cpuid6" 10 0x0000000007300a06
put "$tmp/cpuid6" 18 0x000086040000000f
run show --msr-file "$tmp/msr4" --cpuid-file "$tmp/cpuid6"
checks=$((checks + 1))
sed -n '5p;8,10p' "$tmp/out" >"$tmp/lines"
same "$tmp/lines" "\
perfmon v5: 8 GP counters of 48 bits, fixed counters 0-3 of 48 bits
decoded as the profile name=cpu0,version=5,gp=8,gp_width=48,events=7,unavailable=0x0,fixed_mask=0xf,fixed_width=48,threads=1,perf_capabilities=0x0,pdcm=0,ds=0,dtes64=0,ds_cpl=0,bts=0,pebs=0,rtm=0,pt=0,sgx=0,uncore_pmi=1,precise_store=0,any_deprecated=1
note: perfmon version 6: softpmu models versions 1-5; the MSRs are decoded as version 5
note: 10 GP counters: the architectural MSR ranges hold 8; IA32_PMC8 and up are left out" &&
  [ "$rc" = 0 ] || fail "show: notes on what softpmu does not model (above)"

# An event select that faults stops the scan: the summary says why; the
# MSR list shows #GP. (The file holds only IA32_PMC0.)
put "$tmp/msr0" 0xc1 0x1234
run show --msr-file "$tmp/msr0" --cpuid-file "$tmp/cpuid1"
checks=$((checks + 1))
tail -n 6 "$tmp/out" >"$tmp/lines"
same "$tmp/lines" "\
0x0c1  IA32_PMC0         0x1234
0x186  IA32_PERFEVTSEL0  #GP
0x1a0  IA32_MISC_ENABLE  #GP
0x1d9  IA32_DEBUGCTL     #GP

In use: unknown: RDMSR 0x186 raised #GP" && [ "$rc" = 0 ] ||
  fail "show: a faulting event select (above)"

# CPUID.0AH version 0: no architectural PMU, said plainly.
put "$tmp/cpuid0" 10 0
put "$tmp/cpuid0" 18 0
run show --msr-file "$tmp/msr0" --cpuid-file "$tmp/cpuid0"
checks=$((checks + 1))
tail -n 1 "$tmp/out" >"$tmp/lines"
same "$tmp/lines" "no architectural PMU: CPUID.0AH:EAX[7:0] (the version ID) is 0" &&
  [ "$rc" = 0 ] || fail "show: version 0"

# No device: the backend's plain explanation, exit 2, nothing on stdout.
# (No machine has a CPU 4095 online.)
run show -C 4095
expect "show: no msr device" 2 "" \
  "softpmu: /dev/cpu/4095/msr does not exist: the msr driver is not loaded (run \`modprobe msr\` as root), or that CPU is not online"
if [ ! -e /dev/cpu/0/msr ]; then
  run show
  expect "show: this machine has no msr device" 2 "" \
    "softpmu: /dev/cpu/0/msr does not exist: the msr driver is not loaded (run \`modprobe msr\` as root), or that CPU is not online"
fi
run show --msr-file "$tmp/msr1" --cpu-num 4095
expect "show: no cpuid device" 2 "" \
  "softpmu: /dev/cpu/4095/cpuid does not exist: the cpuid driver is not loaded (run \`modprobe cpuid\` as root), or that CPU is not online"
run show --msr-file "$tmp/none" --cpuid-file "$tmp/cpuid1"
expect "show: a missing file" 2 "" "softpmu: cannot open $tmp/none: No such file or directory"
# Permission: only a user without CAP_DAC_OVERRIDE sees it on a file.
if [ "$(id -u)" != 0 ]; then
  cp "$tmp/msr1" "$tmp/locked" && chmod 000 "$tmp/locked"
  run show --msr-file "$tmp/locked" --cpuid-file "$tmp/cpuid1"
  expect "show: an unreadable file" 2 "" "softpmu: cannot open $tmp/locked: Permission denied"
fi
# --cpu names a profile in every command; show reads this machine and
# takes its CPU as -C N (as perf stat -C).
run show --cpu skylake
expect "show: --cpu is a profile, refused" 2 "" "\
softpmu: show: --cpu names a profile, and show reads this machine; its CPU number is -C N (--cpu-num N); \`softpmu cpuid --cpu PROFILE\` describes a modelled one
usage: softpmu show [-C N] [--json]"
run show -C skylake
expect "show: -C is a CPU number" 2 "" "\
softpmu: show: -C takes the number of a CPU of this machine (0, 1, ...), not 'skylake'
usage: softpmu show [-C N] [--json]"
run decode -C 1 IA32_PMC0 1
expect "decode: -C is show's" 2 "" "\
softpmu: decode: unknown option '-C'
usage: softpmu decode [--cpu PROFILE] [--strict] MSR VALUE"
run show extra
expect "show: no arguments" 2 "" "\
softpmu: show: unexpected argument 'extra'
usage: softpmu show [-C N] [--json]"
run decode --msr-file x IA32_PMC0 0
expect "--msr-file is for show only" 2 "" "\
softpmu: decode: unknown option '--msr-file'
usage: softpmu decode [--cpu PROFILE] [--strict] MSR VALUE"

# ---- one default profile, one meaning per option letter ---------------------

# Every command that models a processor defaults to skylake and says so in
# its manual; report models none and has no --cpu.
run cpuid
checks=$((checks + 1))
head -n 1 "$tmp/out" >"$tmp/first"
same "$tmp/first" \
  "CPUID.0AH  EAX 0x07300404  EBX 0x00000000  ECX 0x00000000  EDX 0x00000603" ||
  fail "cpuid: the default profile is not skylake"
run msrs
expect_lines "msrs: the default profile is skylake" 128
for cmd in decode encode cpuid msrs run stat record; do
  run "$cmd" --help
  checks=$((checks + 1))
  grep -q 'Default: skylake' "$tmp/out" ||
    fail "$cmd --help does not name the default profile skylake"
  grep -q -- '--cpu PROFILE' "$tmp/out" ||
    fail "$cmd --help does not describe --cpu PROFILE"
  grep -q -- '-c, --cpu' "$tmp/out" &&
    fail "$cmd --help still gives -c as the profile's option"
done
run report --help
checks=$((checks + 1))
grep -q -- '--cpu' "$tmp/out" && fail "report --help describes a --cpu it does not take"
run report --cpu skylake
expect "report: no profile" 2 "" "\
softpmu: report: unknown option or argument '--cpu'
usage: softpmu report [-i FILE] [--stdio] [--sort sym|srcline] [--folded [--event NAME]]"
# --stdio is taken, as perf report takes it (the only layout printed): the
# failure is the missing file's, not the option's.
run report --stdio -i "$tmp/no-such.data"
expect "report --stdio" 2 "" "\
softpmu: report: $tmp/no-such.data: No such file or directory"

# -c PROFILE, the former spelling, works with a warning naming --cpu (-c is
# record's period, as in perf); attached (-cicelake) too.
deprecated="softpmu: decode: warning: -c PROFILE is deprecated, write --cpu PROFILE (-c is record's period, as in perf)"
run decode -c icelake IA32_PERFEVTSEL0 0x600000
expect "decode -c PROFILE, deprecated" 0 "\
IA32_PERFEVTSEL0 (0x186) = 0x600000 on icelake
     22  EN  1  enable the counter
reserved bits set: bit 21 (0x200000), reserved in profile icelake" "$deprecated"
want=$(cat "$tmp/out")
run decode -cicelake IA32_PERFEVTSEL0 0x600000
expect "decode -cPROFILE, deprecated" 0 "$want" "$deprecated"
run cpuid -c core2
checks=$((checks + 1))
head -n 1 "$tmp/out" >"$tmp/first"
same "$tmp/first" \
  "CPUID.0AH  EAX 0x07280202  EBX 0x00000000  ECX 0x00000000  EDX 0x00000503" ||
  fail "cpuid -c core2: registers differ"
same "$tmp/err" "softpmu: cpuid: warning: -c PROFILE is deprecated, write --cpu PROFILE (-c is record's period, as in perf)" ||
  fail "cpuid -c core2: no deprecation warning"
run show -c 0
expect "show: -c is a profile, refused" 2 "" "\
softpmu: show: -c names a profile, and show reads this machine; its CPU number is -C N (--cpu-num N); \`softpmu cpuid --cpu PROFILE\` describes a modelled one
usage: softpmu show [-C N] [--json]"

# ---- manuals and version ---------------------------------------------------

for cmd in decode encode cpuid msrs run show; do
  run "$cmd" --help
  expect_manual "$cmd --help"
  run "$cmd" -h
  expect_manual "$cmd -h"
  run help "$cmd"
  expect_manual "help $cmd"
done
run --help
expect_manual "--help"
run help
expect_manual "help"
run --version
checks=$((checks + 1))
[ "$rc" = 0 ] && grep -Eqx 'softpmu [0-9]+\.[0-9]+\.[0-9]+' "$tmp/out" ||
  fail "--version: status $rc, output $(cat "$tmp/out")"

finish

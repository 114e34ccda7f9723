/* SPDX-License-Identifier: MIT */
/* The register catalogue: every MSR of the architectural and the NetBurst
 * PMU, declared once.
 *
 * Section numbers are those of the Intel SDM Vol. 3B, order 325384-059US
 * (chapter 18 "Performance Monitoring", chapter 17 "Debug, Branch Profile,
 * TSC, and Resource Monitoring Features") and Vol. 3C chapter 35 (MSR
 * tables); "Arch LBR" is the chapter "Architectural Last Branch Records"
 * that later orders of Vol. 3B add. "(Linux)" marks layouts that come from
 * Linux and KVM sources because the SDM text of that order predates them.
 *
 * Nothing else in the project switches on an MSR number: masks, lookup,
 * decode/encode, docs/msrs.md and the per-register tests all come from here.
 */
#include <stddef.h>

#include "core/msr.h"
#include "core/state.h"
#include "regs/catalog.h"
#include "softpmu/netburst.h"

#define NF(a) ((uint8_t)(sizeof(a) / sizeof((a)[0])))
#define ST(m) ((int)offsetof(struct spmu_regs, m))
#define NBST(m) ((int)offsetof(struct spmu_nb_regs, m))
#define LBST(m) ((int)offsetof(struct spmu_lbr_regs, m))

/* Not formatted: the catalogue is a table, aligned by meaning. */
/* clang-format off */
/* Field initialisers: F = one field; FR = repeated per counter. */
#define F(n, l, w, req, b)                                                   \
  {.name = n, .lsb = l, .width = w, .repeat = SPMU_REP_ONE, .only_inst = -1, \
   .access = SPMU_ACCESS_RW, .requires = req, .brief = b}
#define FRO(n, l, w, req, b)                                                 \
  {.name = n, .lsb = l, .width = w, .repeat = SPMU_REP_ONE, .only_inst = -1, \
   .access = SPMU_ACCESS_RO, .requires = req, .brief = b}
#define FR(n, l, w, rep, str, max, req, b)                                   \
  {.name = n, .lsb = l, .width = w, .repeat = rep, .stride = str,            \
   .max_inst = max, .only_inst = -1, .access = SPMU_ACCESS_RW,               \
   .requires = req, .brief = b}

/* A field present only in profiles without capability exc. */
#define FX(n, l, w, exc, b)                                                  \
  {.name = n, .lsb = l, .width = w, .repeat = SPMU_REP_ONE, .only_inst = -1, \
   .access = SPMU_ACCESS_RW, .excludes = exc, .brief = b}
#define FROX(n, l, w, exc, b)                                                \
  {.name = n, .lsb = l, .width = w, .repeat = SPMU_REP_ONE, .only_inst = -1, \
   .access = SPMU_ACCESS_RO, .excludes = exc, .brief = b}
/* A field of register instance i only. */
#define FI(n, l, w, i, req, b)                                               \
  {.name = n, .lsb = l, .width = w, .repeat = SPMU_REP_ONE, .only_inst = i,  \
   .access = SPMU_ACCESS_RW, .requires = req, .brief = b}

#define PEBS_EN(n, l, rep, max, req, b)                                      \
  {.name = n, .lsb = l, .width = 1, .repeat = rep, .stride = 1,              \
   .max_inst = max, .only_inst = -1, .access = SPMU_ACCESS_RW,               \
   .flags = SPMU_FF_PEBS_EN, .requires = req, .brief = b}

/* A counter: one field as wide as the counter. */
static const struct spmu_field_def counter_fields[] = {
  F("COUNT", 0, 0, 0, "counter value (the counter width)"),
};

/* IA32_PERFEVTSELx — SDM 18.2.1.1 Figure 18-1; 18.2.3 (ANY, v3);
 * 18.11.5.1 (IN_TX, IN_TXCP on PERFEVTSEL2 only); ADAPTIVE (Linux). */
static const struct spmu_field_def evtsel_fields[] = {
  F("EVENT", 0, 8, 0, "event select: the event logic unit"),
  F("UMASK", 8, 8, 0, "unit mask: the condition within the event"),
  F("USR", 16, 1, 0, "count when CPL > 0"),
  F("OS", 17, 1, 0, "count when CPL = 0"),
  F("E", 18, 1, 0, "edge detect: count deasserted-to-asserted transitions"),
  F("PC", 19, 1, 0, "pin control"),
  F("INT", 20, 1, 0, "APIC interrupt (PMI) on overflow"),
  F("ANY", 21, 1, CAP(ANY), "AnyThread: count events of every thread of the core"),
  F("EN", 22, 1, 0, "enable the counter"),
  F("INV", 23, 1, 0, "invert the CMASK comparison (>= becomes <)"),
  F("CMASK", 24, 8, 0, "counter mask: count cycles with at least CMASK events"),
  F("IN_TX", 32, 1, CAP(RTM), "count only inside a transactional region"),
  {.name = "IN_TXCP", .lsb = 33, .width = 1, .only_inst = 2,
   .access = SPMU_ACCESS_RW, .requires = CAP(RTM),
   .brief = "exclude aborted transactional regions (PERFEVTSEL2 only)"},
  F("ADAPTIVE", 34, 1, CAP(BASELINE), "adaptive PEBS record for this counter"),
};

/* IA32_FIXED_CTR_CTRL — SDM 18.2.2.1 Figure 18-2; 18.2.3 Figure 18-7 (ANY);
 * ADAPTIVE bits 32+4i (Linux). */
static const struct spmu_field_def fixed_ctrl_fields[] = {
  FR("EN%u", 0, 2, SPMU_REP_FIXED, 4, 0, 0,
     "enable: 0 off, 1 OS (CPL 0), 2 USR (CPL > 0), 3 all rings"),
  FR("ANY%u", 2, 1, SPMU_REP_FIXED, 4, 0, CAP(ANY), "AnyThread"),
  FR("PMI%u", 3, 1, SPMU_REP_FIXED, 4, 0, 0, "PMI on overflow"),
  FR("ADAPTIVE%u", 32, 1, SPMU_REP_FIXED, 4, 8, CAP(BASELINE),
     "adaptive PEBS record for this fixed counter"),
};

/* IA32_PERF_GLOBAL_CTRL — SDM 18.2.2.2 Figure 18-3; PERF_METRICS (Linux). */
static const struct spmu_field_def global_ctrl_fields[] = {
  FR("EN_PMC%u", 0, 1, SPMU_REP_GP, 1, 0, 0, "enable IA32_PMC%u"),
  FR("EN_FIXED_CTR%u", 32, 1, SPMU_REP_FIXED, 1, 0, 0, "enable IA32_FIXED_CTR%u"),
  F("EN_PERF_METRICS", 48, 1, CAP(PERF_METRICS), "enable MSR_PERF_METRICS"),
};

/* IA32_PERF_GLOBAL_STATUS and its write views (OVF_CTRL / STATUS_RESET /
 * STATUS_SET) — SDM 18.2.2.2 Figure 18-4, 18.2.4.1 Figure 18-10,
 * 18.2.4.2 Figures 18-11/18-12, Vol. 3C Table 35-2. ASCI is bit 60 (the MSR
 * table's "58" for ASCI is a typo; Figure 18-10 has 60). */
static const struct spmu_field_def status_fields[] = {
  FR("Ovf_PMC%u", 0, 1, SPMU_REP_GP, 1, 0, 0, "IA32_PMC%u overflowed"),
  FR("Ovf_FixedCtr%u", 32, 1, SPMU_REP_FIXED, 1, 0, 0, "IA32_FIXED_CTR%u overflowed"),
  F("Ovf_PerfMetrics", 48, 1, CAP(PERF_METRICS), "PERF_METRICS overflowed"),
  F("Trace_ToPA_PMI", 55, 1, CAP(PT), "Intel PT ToPA buffer full"),
  F("LBR_Frz", 58, 1, CAP(V4), "LBRs frozen by FREEZE_LBRS_ON_PMI"),
  F("CTR_Frz", 59, 1, CAP(V4), "counters frozen by FREEZE_PERFMON_ON_PMI"),
  F("ASCI", 60, 1, CAP(V4) | CAP(SGX), "counts may include SGX enclave activity"),
  F("Ovf_Uncore", 61, 1, CAP(UNCORE_PMI), "uncore counter overflowed"),
  F("OvfBuf", 62, 1, 0, "DS buffer reached its interrupt threshold"),
  F("CondChgd", 63, 1, 0, "PMU state changed (condition changed)"),
};

/* IA32_PERF_GLOBAL_INUSE — SDM 18.2.4.3 Figure 18-13. */
static const struct spmu_field_def inuse_fields[] = {
  FR("PERFEVTSEL%u_InUse", 0, 1, SPMU_REP_GP, 1, 0, 0,
     "IA32_PERFEVTSEL%u[7:0] != 0"),
  FR("FC%u_InUse", 32, 1, SPMU_REP_FIXED, 1, 0, 0,
     "IA32_FIXED_CTR_CTRL enable field of IA32_FIXED_CTR%u != 0"),
  F("PMI_InUse", 63, 1, 0, "some INT, fixed PMI or PEBS enable bit is set"),
};

/* IA32_PERF_CAPABILITIES — SDM 18.6.2.4 / 17.4.1, Vol. 3C Table 35-2;
 * bits 14-17 (Linux). */
static const struct spmu_field_def perfcap_fields[] = {
  FRO("LBR_FMT", 0, 6, 0, "LBR record format"),
  FRO("PEBS_TRAP", 6, 1, 0, "1: trap-like PEBS (IP after the instruction)"),
  FRO("PEBS_ARCH_REG", 7, 1, 0, "PEBS saves architectural registers"),
  FRO("PEBS_REC_FMT", 8, 4, 0, "PEBS record format"),
  FRO("SMM_FREEZE", 12, 1, 0, "DEBUGCTL.FREEZE_WHILE_SMM supported"),
  FRO("FW_WRITE", 13, 1, 0, "full-width counter writes via IA32_A_PMCx"),
  FRO("PEBS_BASELINE", 14, 1, 0, "adaptive PEBS"),
  FRO("PERF_METRICS", 15, 1, 0, "MSR_PERF_METRICS available"),
  FRO("PEBS_OUTPUT_PT", 16, 1, 0, "PEBS output to Intel PT"),
  FRO("PEBS_TIMING_INFO", 17, 1, 0, "PEBS timing information"),
};

/* IA32_MISC_ENABLE — Vol. 3C Table 35-2. softpmu owns only the perf bits;
 * the rest of the register belongs to the host CPU model (open). */
static const struct spmu_field_def misc_fields[] = {
  FRO("PERFMON_AVAILABLE", 7, 1, 0, "performance monitoring available"),
  FRO("BTS_UNAVAILABLE", 11, 1, 0, "branch trace storage not supported"),
  FRO("PEBS_UNAVAILABLE", 12, 1, 0, "PEBS not supported"),
};

/* IA32_DEBUGCTL — SDM 17.4.1 Figure 17-3, 17.4.9 (BTS/BTINT/BTS_OFF_*),
 * 18.2.4.1 (freeze, streamlined on v4), 17.4.8 (FREEZE_WHILE_SMM),
 * 17.3.3 (RTM_DEBUG), 18.8.2 (ENABLE_UNCORE_PMI). */
static const struct spmu_field_def debugctl_fields[] = {
  F("LBR", 0, 1, 0, "record last branches"),
  F("BTF", 1, 1, 0, "single-step on branches"),
  F("TR", 6, 1, 0, "send branch trace messages"),
  F("BTS", 7, 1, CAP(DS) | CAP(BTS), "store branch records in the BTS buffer"),
  F("BTINT", 8, 1, CAP(DS) | CAP(BTS), "interrupt when the BTS buffer is full"),
  F("BTS_OFF_OS", 9, 1, CAP(DS_CPL), "no BTS records at CPL 0"),
  F("BTS_OFF_USR", 10, 1, CAP(DS_CPL), "no BTS records at CPL > 0"),
  F("FREEZE_LBRS_ON_PMI", 11, 1, CAP(V2), "freeze LBRs on a PMI"),
  F("FREEZE_PERFMON_ON_PMI", 12, 1, CAP(V2), "freeze counters on a PMI"),
  F("ENABLE_UNCORE_PMI", 13, 1, CAP(UNCORE_PMI), "uncore counters may raise PMIs"),
  F("FREEZE_WHILE_SMM", 14, 1, CAP(SMM_FREEZE), "freeze counters while in SMM"),
  F("RTM_DEBUG", 15, 1, CAP(RTM), "advanced debugging of RTM regions"),
};

/* IA32_PEBS_ENABLE — layouts per generation: SDM 18.4.4 (Core 2, bit 0),
 * 18.6.1.1 (Nehalem: PEBS_EN 3:0, LL_EN 35:32), 18.7.4.2 (Sandy Bridge:
 * PS_EN 63); Ice Lake baseline layout (Linux). PEBS exists only on PMC0-3
 * before the baseline layout. */
static const struct spmu_field_def pebs_enable_fields[] = {
  PEBS_EN("PEBS_EN_PMC%u", 0, SPMU_REP_GP, 1, CAP(PEBS_FMT0), "PEBS on IA32_PMC0"),
  PEBS_EN("PEBS_EN_PMC%u", 0, SPMU_REP_GP, 4, CAP(PEBS_LL), "PEBS on IA32_PMC%u"),
  PEBS_EN("PEBS_EN_PMC%u", 0, SPMU_REP_GP, 0, CAP(BASELINE), "PEBS on IA32_PMC%u"),
  PEBS_EN("PEBS_EN_FIXED%u", 32, SPMU_REP_FIXED, 0, CAP(BASELINE),
          "PEBS on IA32_FIXED_CTR%u"),
  FR("LL_EN_PMC%u", 32, 1, SPMU_REP_GP, 1, 4, CAP(PEBS_LL),
     "load-latency PEBS on IA32_PMC%u"),
  F("PS_EN", 63, 1, CAP(PEBS_PS), "precise store PEBS on IA32_PMC3"),
};

/* MSR_PEBS_DATA_CFG — adaptive PEBS groups (Linux, kvm-unit-tests). */
static const struct spmu_field_def data_cfg_fields[] = {
  F("MEMINFO", 0, 1, 0, "Memory Info group"),
  F("GPR", 1, 1, 0, "general-purpose registers group"),
  F("XMM", 2, 1, 0, "XMM registers group"),
  F("LBR", 3, 1, 0, "LBR group"),
  F("LBR_ENTRIES", 24, 8, 0, "number of LBR entries - 1"),
};

/* MSR_PEBS_LD_LAT_THRESHOLD — SDM 18.6.1.2 (minimum useful value 3). */
static const struct spmu_field_def ld_lat_fields[] = {
  F("THRESHOLD", 0, 16, 0, "load latency threshold in core cycles"),
};

/* MSR_PEBS_FRONTEND — SDM 18.3.8.1 (Skylake front-end events); layout as
 * Linux programs it. */
static const struct spmu_field_def frontend_fields[] = {
  F("EVTSEL", 0, 8, 0, "front-end event sub-select"),
  F("IDQ_BUBBLE_LENGTH", 8, 12, 0, "IDQ bubble length in cycles"),
  F("IDQ_BUBBLE_WIDTH", 20, 3, 0, "IDQ bubble width"),
};

/* IA32_DS_AREA — SDM 17.4.9: linear address of the DS save area. */
static const struct spmu_field_def ds_area_fields[] = {
  F("DS_AREA", 0, 64, 0, "linear address of the DS management area"),
};

/* A field present with capabilities req and without exc. */
#define FRX(n, l, w, req, exc, b)                                            \
  {.name = n, .lsb = l, .width = w, .repeat = SPMU_REP_ONE, .only_inst = -1, \
   .access = SPMU_ACCESS_RW, .requires = req, .excludes = exc, .brief = b}

/* MSR_LASTBRANCH_x_FROM_IP — SDM 17.4.8.1 (formats of
 * IA32_PERF_CAPABILITIES[5:0]), 17.7.1 Table 17-8 (format 3: MISPRED in bit
 * 63, bits 62:0 the address sign-extended from bit 47), 17.9 (format 4:
 * IN_TX 62, TSX_ABORT 61, bits 60:0 the address). Formats 1-2 and 5: 64
 * address bits (format 5, 17.12: FROM_IP as TO_IP, the flags in
 * MSR_LBR_INFO_x only). */
static const struct spmu_field_def lbr_from_fields[] = {
  FRX("FROM_IP", 0, 64, 0, CAP(LBR_FLAGS),
      "branch source linear address (64 bits)"),
  FRX("FROM_IP", 0, 63, CAP(LBR_FLAGS), CAP(LBR_FMT4),
      "branch source address, sign-extended from bit 47 to bit 62"),
  FRX("FROM_IP", 0, 61, CAP(LBR_FMT4), 0,
      "branch source address, sign-extended from bit 47 to bit 60"),
  F("TSX_ABORT", 61, 1, CAP(LBR_FMT4), "the branch is a TSX abort"),
  F("IN_TX", 62, 1, CAP(LBR_FMT4), "the branch retired inside a transaction"),
  F("MISPRED", 63, 1, CAP(LBR_FLAGS), "the branch was mispredicted"),
};

/* MSR_LASTBRANCH_x_TO_IP — SDM 17.7.1 Table 17-9: the target address,
 * bits 63:48 the sign extension of bit 47. IA32_LBR_x_FROM_IP / TO_IP of
 * architectural LBRs are the same 64-bit linear address. */
static const struct spmu_field_def lbr_to_fields[] = {
  F("TO_IP", 0, 64, 0, "branch target linear address (canonical)"),
};
static const struct spmu_field_def arch_lbr_from_fields[] = {
  F("FROM_IP", 0, 64, 0, "branch source linear address (canonical)"),
};

/* MSR_LBR_INFO_x — SDM 17.12.1 (LBR format 5): elapsed cycles, TSX and
 * misprediction flags of entry x; bits 60:16 reserved. */
static const struct spmu_field_def lbr_info_fields[] = {
  F("CYC_CNT", 0, 16, 0, "core cycles since the previous LBR entry (saturating)"),
  F("TSX_ABORT", 61, 1, 0, "the branch is a TSX abort"),
  F("IN_TX", 62, 1, 0, "the branch retired inside a transaction"),
  F("MISPRED", 63, 1, 0, "the branch was mispredicted"),
};

/* IA32_LBR_x_INFO — SDM "Architectural Last Branch Records", IA32_LBR_x_INFO
 * layout: BR_TYPE 59:56 (0 JCC, 1 near indirect JMP, 2 near relative JMP,
 * 3 near indirect CALL, 4 near relative CALL, 5 near RET, 8 other), the
 * cycle count and its valid bit; bits 55:16 reserved. */
static const struct spmu_field_def arch_lbr_info_fields[] = {
  F("CYC_CNT", 0, 16, 0, "core cycles since the previous LBR entry (saturating)"),
  F("BR_TYPE", 56, 4, 0, "branch type"),
  F("CYC_CNT_VALID", 60, 1, 0, "CYC_CNT holds a count"),
  F("TSX_ABORT", 61, 1, 0, "the branch is a TSX abort"),
  F("IN_TX", 62, 1, 0, "the branch retired inside a transaction"),
  F("MISPRED", 63, 1, 0, "the branch was mispredicted"),
};

/* MSR_LASTBRANCH_TOS — SDM 17.4.8 Table 17-4, 17.7.1 Table 17-10: the
 * entry holding the most recent branch, an M-bit pointer (2 bits for 4
 * entries, 4 for 16, 5 for 32); the rest reserved. */
static const struct spmu_field_def lbr_tos_fields[] = {
  F("TOS", 0, 2, CAP(LBR_CORE2), "entry of the most recent branch"),
  FRX("TOS", 0, 4, CAP(LBR_NHM), CAP(LBR_32), "entry of the most recent branch"),
  F("TOS", 0, 5, CAP(LBR_32), "entry of the most recent branch"),
};

/* MSR_LBR_SELECT — SDM 17.7.2 Table 17-11 (1: do not record), 17.9.1
 * Table 17-13 (EN_CALLSTACK, Haswell and later). */
static const struct spmu_field_def lbr_select_fields[] = {
  F("CPL_EQ_0", 0, 1, 0, "do not record branches in ring 0"),
  F("CPL_NEQ_0", 1, 1, 0, "do not record branches in rings 1-3"),
  F("JCC", 2, 1, 0, "do not record conditional branches"),
  F("NEAR_REL_CALL", 3, 1, 0, "do not record near relative calls"),
  F("NEAR_IND_CALL", 4, 1, 0, "do not record near indirect calls"),
  F("NEAR_RET", 5, 1, 0, "do not record near returns"),
  F("NEAR_IND_JMP", 6, 1, 0, "do not record near indirect jumps"),
  F("NEAR_REL_JMP", 7, 1, 0, "do not record near relative jumps"),
  F("FAR_BRANCH", 8, 1, 0, "do not record far branches"),
  F("EN_CALLSTACK", 9, 1, CAP(LBR_CALLSTACK),
    "call-stack mode: calls push, returns pop"),
};

/* IA32_LBR_CTL — SDM "Architectural Last Branch Records" (1: record);
 * the CPL, call-stack and branch-type bits exist as CPUID.1CH:EBX says. */
static const struct spmu_field_def arch_lbr_ctl_fields[] = {
  F("LBREn", 0, 1, 0, "enable LBR recording"),
  F("OS", 1, 1, CAP(ALBR_CPL), "record branches in ring 0"),
  F("USR", 2, 1, CAP(ALBR_CPL), "record branches in rings 1-3"),
  F("CALL_STACK", 3, 1, CAP(ALBR_STACK), "call-stack mode: calls push, returns pop"),
  F("COND", 16, 1, CAP(ALBR_FILTER), "record conditional branches"),
  F("NEAR_IND_JMP", 17, 1, CAP(ALBR_FILTER), "record near indirect jumps"),
  F("NEAR_REL_JMP", 18, 1, CAP(ALBR_FILTER), "record near relative jumps"),
  F("NEAR_IND_CALL", 19, 1, CAP(ALBR_FILTER), "record near indirect calls"),
  F("NEAR_REL_CALL", 20, 1, CAP(ALBR_FILTER), "record near relative calls"),
  F("NEAR_RET", 21, 1, CAP(ALBR_FILTER), "record near returns"),
  F("OTHER_BRANCH", 22, 1, CAP(ALBR_FILTER), "record other branches (far, ...)"),
};

/* IA32_LBR_DEPTH — the entries recording uses; writable with a depth
 * CPUID.1CH:EAX[7:0] lists, which clears every entry. */
static const struct spmu_field_def arch_lbr_depth_fields[] = {
  F("DEPTH", 0, 9, 0, "LBR entries in use (8 * (n + 1) for each EAX[n])"),
};

/* The last exception record: the last branch taken before an exception or
 * interrupt. MSR_LER_FROM_LIP / MSR_LER_TO_LIP — SDM 17.4.8.3 (64-bit
 * linear addresses), Vol. 3C Tables 35-3 ff. (read-only); IA32_LER_FROM_IP
 * / TO_IP / INFO — "Architectural Last Branch Records" (read-write, INFO as
 * IA32_LBR_x_INFO). Recorded at a clock whose branch has SPMU_BRANCH_EVENT
 * (src/lbr). */
static const struct spmu_field_def ler_ip_fields[] = {
  F("IP", 0, 64, 0, "linear address (canonical)"),
};

/* MSR_PERF_METRICS — fractions of TOPDOWN.SLOTS, one byte each (Linux). */
static const struct spmu_field_def perf_metrics_fields[] = {
  F("RETIRING", 0, 8, 0, "retiring"),
  F("BAD_SPECULATION", 8, 8, 0, "bad speculation"),
  F("FRONTEND_BOUND", 16, 8, 0, "front-end bound"),
  F("BACKEND_BOUND", 24, 8, 0, "back-end bound"),
  F("HEAVY_OPS", 32, 8, 0, "heavy operations (level 2)"),
  F("BRANCH_MISPREDICT", 40, 8, 0, "branch mispredicts (level 2)"),
  F("FETCH_LATENCY", 48, 8, 0, "fetch latency (level 2)"),
  F("MEMORY_BOUND", 56, 8, 0, "memory bound (level 2)"),
};

/* ---- NetBurst (SDM 18.15-18.16) ---------------------------------------- */

/* A NetBurst counter: 40 bits, all of them written by WRMSR (SDM 18.15.2,
 * Figure 18-44); bits 63:40 reserved. */
static const struct spmu_field_def nb_counter_fields[] = {
  F("COUNT", 0, 0, 0, "counter value (40 bits)"),
};

/* ESCR — SDM 18.15.1 Figure 18-43 (one logical processor: USR bit 2, OS
 * bit 3, bits 1:0 reserved), 18.16.1 Figure 18-47 (Hyper-Threading:
 * T1_USR 0, T1_OS 1, T0_USR 2, T0_OS 3). Bits 63:31 reserved. */
static const struct spmu_field_def nb_escr_fields[] = {
  F("T1_USR", 0, 1, CAP(NB_HT), "count thread 1's events at CPL > 0"),
  F("T1_OS", 1, 1, CAP(NB_HT), "count thread 1's events at CPL 0"),
  F("T0_USR", 2, 1, CAP(NB_HT), "count thread 0's events at CPL > 0"),
  F("T0_OS", 3, 1, CAP(NB_HT), "count thread 0's events at CPL 0"),
  FX("USR", 2, 1, CAP(NB_HT), "count at CPL > 0"),
  FX("OS", 3, 1, CAP(NB_HT), "count at CPL 0"),
  F("TAG_ENABLE", 4, 1, 0, "tag uops that meet the event (at-retirement)"),
  F("TAG_VALUE", 5, 4, 0, "execution tag bits to set on a tagged uop"),
  F("EVENT_MASK", 9, 16, 0, "event mask: the events of the class to count"),
  F("EVENT_SELECT", 25, 6, 0, "event select: the class of events"),
};

/* CCCR — SDM 18.15.3 Figure 18-45 (one logical processor: bits 17:16
 * "must be set to 11B", OVF_PMI bit 26), 18.16.2 Figure 18-48
 * (Hyper-Threading: active thread, OVF_PMI_T0 26, OVF_PMI_T1 27).
 * Bits 11:0, 29:28 and 63:32 reserved. */
#define NB_CCCR_COMMON                                                       \
  F("ENABLE", 12, 1, 0, "enable counting"),                                  \
  F("ESCR_SELECT", 13, 3, 0, "the ESCR (its Table 18-63 number) to count"),   \
  F("ACTIVE_THREAD", 16, 2, CAP(NB_HT),                                      \
    "count when 00 no, 01 one, 10 both, 11 any logical processor is active"), \
  FROX("ACTIVE_THREAD", 16, 2, CAP(NB_HT),                                   \
       "must be 11B without Hyper-Threading"),                               \
  F("COMPARE", 18, 1, 0, "threshold filtering on"),                          \
  F("COMPLEMENT", 19, 1, 0, "count values <= THRESHOLD (else >)"),           \
  F("THRESHOLD", 20, 4, 0, "threshold 0-15"),                                \
  F("EDGE", 24, 1, 0, "count false-to-true edges of the threshold output"),  \
  F("FORCE_OVF", 25, 1, 0, "every increment overflows"),                     \
  F("OVF_PMI_T0", 26, 1, CAP(NB_HT), "PMI to logical processor 0 on overflow"), \
  FX("OVF_PMI", 26, 1, CAP(NB_HT), "PMI on overflow"),                       \
  F("OVF_PMI_T1", 27, 1, CAP(NB_HT), "PMI to logical processor 1 on overflow"), \
  F("CASCADE", 30, 1, 0, "count while the alternate counter's OVF is set"),  \
  F("OVF", 31, 1, 0, "overflowed (sticky: software clears it)")

static const struct spmu_field_def nb_cccr_fields[] = {NB_CCCR_COMMON};

/* The IQ CCCRs add extended cascading (SDM 18.15.5.7 Table 18-65): bit 11
 * of IQ_CCCR0/3/4/5 (reserved in IQ_CCCR1/2). "Counter 4/5" are IQ
 * counters 16/17, "counter 0/3" IQ counters 12/15. */
static const struct spmu_field_def nb_iq_cccr_fields[] = {
  FI("CASCNT4INTO0", 11, 1, 0, CAP(NB_EXT_CASCADE),
     "count while counter 16's OVF is set (extended cascading)"),
  FI("CASCNT5INTO3", 11, 1, 3, CAP(NB_EXT_CASCADE),
     "count while counter 17's OVF is set (extended cascading)"),
  FI("CASCNT5INTO4", 11, 1, 4, CAP(NB_EXT_CASCADE),
     "count while counter 17's OVF is set (extended cascading)"),
  FI("CASCNT4INTO5", 11, 1, 5, CAP(NB_EXT_CASCADE),
     "count while counter 16's OVF is set (extended cascading)"),
  NB_CCCR_COMMON,
};

/* MSR_DEBUGCTLA — SDM 17.11.1 Figure 17-12; BTS_OFF_OS/USR with DS-CPL
 * (17.4.9.4). Bits 63:7 reserved. */
static const struct spmu_field_def debugctla_fields[] = {
  F("LBR", 0, 1, 0, "record last branches"),
  F("BTF", 1, 1, 0, "single-step on branches"),
  F("TR", 2, 1, 0, "send branch trace messages"),
  F("BTS", 3, 1, CAP(DS) | CAP(BTS), "store branch records in the BTS buffer"),
  F("BTINT", 4, 1, CAP(DS) | CAP(BTS), "interrupt when the BTS buffer is full"),
  F("BTS_OFF_OS", 5, 1, CAP(DS_CPL), "no BTS records at CPL 0"),
  F("BTS_OFF_USR", 6, 1, CAP(DS_CPL), "no BTS records at CPL > 0"),
};

/* MSR_PEBS_ENABLE (P4) — Vol. 3C Table 35-41, SDM 18.15.6.4, 18.16.3:
 * 12:0 the replay-tagging metric (Table 19-33), 24 UOP_TAG, 25
 * ENABLE_PEBS_MY_THR (ENABLE_PEBS without HT), 26 ENABLE_PEBS_OTH_THR (HT
 * only); 23:13 and 63:27 reserved. */
static const struct spmu_field_def nb_pebs_enable_fields[] = {
  F("METRIC", 0, 13, 0, "replay-tagging metric select (Table 19-33)"),
  F("UOP_TAG", 24, 1, 0, "enable replay tagging"),
  F("ENABLE_PEBS_MY_THR", 25, 1, CAP(NB_HT),
    "PEBS for the logical processor that accesses the MSR"),
  FX("ENABLE_PEBS", 25, 1, CAP(NB_HT), "enable PEBS on IQ_COUNTER4"),
  F("ENABLE_PEBS_OTH_THR", 26, 1, CAP(NB_HT),
    "PEBS for the other logical processor"),
};

/* MSR_PEBS_MATRIX_VERT — SDM 18.15.6.4, Table 19-33 names bits 0 (load
 * metrics), 1 (store metrics) and 4 (Tagged_mispred_branch); the rest is
 * reserved (decisions.md, NetBurst). */
static const struct spmu_field_def nb_matrix_vert_fields[] = {
  F("LOADS", 0, 1, 0, "replay-tag loads"),
  F("STORES", 1, 1, 0, "replay-tag stores"),
  F("BRANCHES", 4, 1, 0, "replay-tag branches"),
};

/* MSR_TC_PRECISE_EVENT — SDM 18.15.6.2: front-end tagging of trace-cache
 * events; the SDM defines no bit ("None of the events currently supported
 * requires the use of" it), so the value is stored and has no effect. */
static const struct spmu_field_def nb_tc_precise_fields[] = {
  F("VALUE", 0, 64, 0, "stored as written; no bit is defined"),
};

#define FIELDS(a) .fields = (a), .nfields = NF(a)

/* Counter group masks (SDM 18.15.2): BPU 0-3, MS 4-7, FLAME 8-11, IQ
 * 12-17; ESCR0 of a pair feeds the first counters, ESCR1 the second. */
#define C_BPU0 0x00003u
#define C_BPU1 0x0000Cu
#define C_MS0 0x00030u
#define C_MS1 0x000C0u
#define C_FLAME0 0x00300u
#define C_FLAME1 0x00C00u
#define C_IQ0 0x13000u /* 12, 13, 16 */
#define C_IQ1 0x2C000u /* 14, 15, 17 */

/* An ESCR pair (one ESCR for SSU): name template and its first index, the
 * address of ESCR0, the unit, the CCCR select, the counters each feeds
 * (SDM Table 18-63, 18.15.1 / 18.16.1). */
#define ESCR(nm, base, a, n, u, s, c0, c1, req)                              \
  {.name = nm, .name_base = base, .addr = a, .repeat = SPMU_REP_COUNT,       \
   .count = n, .policy = SPMU_POLICY_RW, .shared = true,                     \
   .requires = CAP(NETBURST) | (req), .storage = NBST(escr[2 * ((u) - 1)]),  \
   FIELDS(nb_escr_fields),                                                   \
   .escr = &(const struct spmu_nb_escr_def){(u), (s), {(c0), (c1)}},         \
   .sdm = "18.15.1, 18.16.1, Table 18-63",                                   \
   .brief = "event selection control (NetBurst ESCR)"}

/* A group of counters or of CCCRs (SDM Table 18-63). */
#define NB_CTR(nm, a, n, first)                                              \
  {.name = nm, .addr = a, .repeat = SPMU_REP_COUNT, .count = n,              \
   .ctr_width = 40, .policy = SPMU_POLICY_COUNTER, .shared = true,           \
   .requires = CAP(NETBURST), .storage = NBST(ctr[first]),                   \
   FIELDS(nb_counter_fields), .sdm = "18.15.2, Table 18-63",                 \
   .brief = "NetBurst counter (40 bits, all written)"}
#define NB_CCCR(nm, a, n, first, flds)                                       \
  {.name = nm, .addr = a, .repeat = SPMU_REP_COUNT, .count = n,              \
   .policy = SPMU_POLICY_RW, .reset = SPMU_RESET_NB_CCCR, .shared = true,    \
   .requires = CAP(NETBURST), .storage = NBST(cccr[first]), FIELDS(flds),    \
   .sdm = "18.15.3, 18.16.2, Table 18-63",                                   \
   .brief = "counter configuration control (filtering, overflow)"}

const struct spmu_reg_def spmu_catalog[] = {
  {.name = "IA32_PMC%u", .former = "IA32_PERFCTR%u", .addr = 0xC1,
   .repeat = SPMU_REP_GP, .policy = SPMU_POLICY_COUNTER_SX,
   .requires = CAP(V1), .storage = ST(ctr), FIELDS(counter_fields),
   .sdm = "18.2.1.1, 18.2.5",
   .brief = "general-purpose counter; writes sign-extend bit 31"},
  {.name = "IA32_PERFEVTSEL%u", .addr = 0x186, .repeat = SPMU_REP_GP,
   .policy = SPMU_POLICY_RW, .requires = CAP(V1), .storage = ST(evtsel),
   FIELDS(evtsel_fields), .sdm = "18.2.1.1, 18.2.3",
   .brief = "event select for IA32_PMC%u"},
  {.name = "IA32_FIXED_CTR%u", .former = "MSR_PERF_FIXED_CTR%u",
   .addr = 0x309, .repeat = SPMU_REP_FIXED, .policy = SPMU_POLICY_COUNTER,
   .requires = CAP(V2), .storage = ST(ctr[SPMU_MAX_GP]), FIELDS(counter_fields),
   .sdm = "18.2.2.1", .brief = "fixed-function counter"},
  {.name = "MSR_PERF_METRICS", .addr = 0x329, .policy = SPMU_POLICY_RW,
   .requires = CAP(V2) | CAP(PERF_METRICS), .storage = ST(perf_metrics),
   FIELDS(perf_metrics_fields), .sdm = "(Linux)",
   .brief = "top-down metrics as fractions of TOPDOWN.SLOTS"},
  {.name = "IA32_PERF_CAPABILITIES", .addr = 0x345,
   .policy = SPMU_POLICY_CONST, .reset = SPMU_RESET_PERFCAP,
   .requires = CAP(PDCM), .storage = ST(perf_capabilities),
   FIELDS(perfcap_fields), .sdm = "18.6.2.4, 17.4.1",
   .brief = "PMU capabilities (read-only)"},
  {.name = "IA32_FIXED_CTR_CTRL", .former = "MSR_PERF_FIXED_CTR_CTRL",
   .addr = 0x38D, .policy = SPMU_POLICY_RW, .requires = CAP(V2),
   .storage = ST(fixed_ctr_ctrl), FIELDS(fixed_ctrl_fields),
   .sdm = "18.2.2.1, 18.2.3", .brief = "fixed counter controls"},
  {.name = "IA32_PERF_GLOBAL_STATUS", .former = "MSR_PERF_GLOBAL_STATUS",
   .addr = 0x38E, .policy = SPMU_POLICY_RO, .requires = CAP(V2),
   .storage = ST(global_status), FIELDS(status_fields),
   .sdm = "18.2.2.2, 18.2.4.1", .brief = "overflow and status bits (read-only)"},
  {.name = "IA32_PERF_GLOBAL_CTRL", .former = "MSR_PERF_GLOBAL_CTRL",
   .addr = 0x38F, .policy = SPMU_POLICY_RW, .reset = SPMU_RESET_GP_ENABLES,
   .requires = CAP(V2), .storage = ST(global_ctrl), FIELDS(global_ctrl_fields),
   .sdm = "18.2.2.2", .brief = "global counter enables"},
  {.name = "IA32_PERF_GLOBAL_OVF_CTRL", .former = "MSR_PERF_GLOBAL_OVF_CTRL",
   .addr = 0x390, .policy = SPMU_POLICY_W1C, .requires = CAP(V2),
   .excludes = CAP(V4), .alias = true, .storage = ST(global_status),
   FIELDS(status_fields), .field_prefix = "Clr", .sdm = "18.2.2.2",
   .brief = "write 1 to clear GLOBAL_STATUS bits (v2-v3); reads 0"},
  {.name = "IA32_PERF_GLOBAL_STATUS_RESET", .addr = 0x390,
   .policy = SPMU_POLICY_W1C, .requires = CAP(V4), .alias = true,
   .storage = ST(global_status), FIELDS(status_fields), .field_prefix = "Clr",
   .sdm = "18.2.4.2", .brief = "write 1 to clear GLOBAL_STATUS bits; reads 0"},
  {.name = "IA32_PERF_GLOBAL_STATUS_SET", .addr = 0x391,
   .policy = SPMU_POLICY_W1S, .requires = CAP(V4), .alias = true,
   .storage = ST(global_status), FIELDS(status_fields), .field_prefix = "Set",
   .field_exclude = UINT64_C(1) << 63, .sdm = "18.2.4.2",
   .brief = "write 1 to set GLOBAL_STATUS bits (not CondChgd); reads 0"},
  {.name = "IA32_PERF_GLOBAL_INUSE", .addr = 0x392,
   .policy = SPMU_POLICY_COMPUTED, .requires = CAP(V4), .storage = -1,
   .compute = spmu_inuse_compute, FIELDS(inuse_fields), .sdm = "18.2.4.3",
   .brief = "which counters and the PMI are in use (read-only, live)"},
  {.name = "IA32_MISC_ENABLE", .addr = 0x1A0, .policy = SPMU_POLICY_RW,
   .reset = SPMU_RESET_MISC, .open = true, .storage = ST(misc_enable),
   FIELDS(misc_fields), .sdm = "Vol. 3C Table 35-2",
   .brief = "perf availability bits (read-only); other bits host-owned"},
  {.name = "IA32_DEBUGCTL", .former = "MSR_DEBUGCTLA", .addr = 0x1D9,
   .policy = SPMU_POLICY_RW, .excludes = CAP(NETBURST),
   .storage = ST(debugctl), FIELDS(debugctl_fields),
   .sdm = "17.4.1, 18.2.4.1", .brief = "debug control: LBR, BTS, freeze"},
  {.name = "IA32_PEBS_ENABLE", .addr = 0x3F1, .policy = SPMU_POLICY_RW,
   .requires = CAP(PEBS), .excludes = CAP(NETBURST),
   .storage = ST(pebs_enable),
   FIELDS(pebs_enable_fields), .sdm = "18.4.4, 18.6.1.1, 18.7.4.2",
   .brief = "PEBS enables (layout per generation)"},
  {.name = "MSR_PEBS_DATA_CFG", .addr = 0x3F2, .policy = SPMU_POLICY_RW,
   .requires = CAP(BASELINE), .storage = ST(pebs_data_cfg),
   FIELDS(data_cfg_fields), .sdm = "(Linux)",
   .brief = "adaptive PEBS record groups"},
  {.name = "MSR_PEBS_LD_LAT_THRESHOLD", .former = "MSR_PEBS_LD_LAT",
   .addr = 0x3F6, .policy = SPMU_POLICY_RW, .requires = CAP(LD_LAT),
   .storage = ST(pebs_ld_lat), FIELDS(ld_lat_fields), .sdm = "18.6.1.2",
   .brief = "load-latency PEBS threshold"},
  {.name = "MSR_PEBS_FRONTEND", .addr = 0x3F7, .policy = SPMU_POLICY_RW,
   .requires = CAP(FRONTEND), .storage = ST(pebs_frontend),
   FIELDS(frontend_fields), .sdm = "18.3.8.1",
   .brief = "front-end precise event qualifier"},
  {.name = "IA32_A_PMC%u", .addr = 0x4C1, .repeat = SPMU_REP_GP,
   .policy = SPMU_POLICY_COUNTER, .requires = CAP(V1) | CAP(FW_WRITE),
   .alias = true, .storage = ST(ctr), FIELDS(counter_fields),
   .sdm = "18.2.5", .brief = "full-width alias of IA32_PMC%u"},
  /* NetBurst: counters, CCCRs, ESCRs (SDM Table 18-63), DEBUGCTLA and the
   * tagging / PEBS MSRs. */
  NB_CTR("MSR_BPU_COUNTER%u", 0x300, 4, 0),
  NB_CTR("MSR_MS_COUNTER%u", 0x304, 4, 4),
  NB_CTR("MSR_FLAME_COUNTER%u", 0x308, 4, 8),
  NB_CTR("MSR_IQ_COUNTER%u", 0x30C, 6, 12),
  NB_CCCR("MSR_BPU_CCCR%u", 0x360, 4, 0, nb_cccr_fields),
  NB_CCCR("MSR_MS_CCCR%u", 0x364, 4, 4, nb_cccr_fields),
  NB_CCCR("MSR_FLAME_CCCR%u", 0x368, 4, 8, nb_cccr_fields),
  NB_CCCR("MSR_IQ_CCCR%u", 0x36C, 6, 12, nb_iq_cccr_fields),
  ESCR("MSR_BSU_ESCR%u", 0, 0x3A0, 2, SPMU_NB_BSU, 7, C_BPU0, C_BPU1, 0),
  ESCR("MSR_FSB_ESCR%u", 0, 0x3A2, 2, SPMU_NB_FSB, 6, C_BPU0, C_BPU1, 0),
  ESCR("MSR_FIRM_ESCR%u", 0, 0x3A4, 2, SPMU_NB_FIRM, 1, C_FLAME0, C_FLAME1, 0),
  ESCR("MSR_FLAME_ESCR%u", 0, 0x3A6, 2, SPMU_NB_FLAME, 0, C_FLAME0, C_FLAME1, 0),
  ESCR("MSR_DAC_ESCR%u", 0, 0x3A8, 2, SPMU_NB_DAC, 5, C_FLAME0, C_FLAME1, 0),
  ESCR("MSR_MOB_ESCR%u", 0, 0x3AA, 2, SPMU_NB_MOB, 2, C_BPU0, C_BPU1, 0),
  ESCR("MSR_PMH_ESCR%u", 0, 0x3AC, 2, SPMU_NB_PMH, 4, C_BPU0, C_BPU1, 0),
  ESCR("MSR_SAAT_ESCR%u", 0, 0x3AE, 2, SPMU_NB_SAAT, 2, C_FLAME0, C_FLAME1, 0),
  ESCR("MSR_U2L_ESCR%u", 0, 0x3B0, 2, SPMU_NB_U2L, 3, C_FLAME0, C_FLAME1, 0),
  ESCR("MSR_BPU_ESCR%u", 0, 0x3B2, 2, SPMU_NB_BPU, 0, C_BPU0, C_BPU1, 0),
  ESCR("MSR_IS_ESCR%u", 0, 0x3B4, 2, SPMU_NB_IS, 1, C_BPU0, C_BPU1, 0),
  ESCR("MSR_ITLB_ESCR%u", 0, 0x3B6, 2, SPMU_NB_ITLB, 3, C_BPU0, C_BPU1, 0),
  ESCR("MSR_CRU_ESCR%u", 0, 0x3B8, 2, SPMU_NB_CRU0, 4, C_IQ0, C_IQ1, 0),
  ESCR("MSR_IQ_ESCR%u", 0, 0x3BA, 2, SPMU_NB_IQ, 0, C_IQ0, C_IQ1,
       CAP(NB_IQ_ESCR)),
  ESCR("MSR_RAT_ESCR%u", 0, 0x3BC, 2, SPMU_NB_RAT, 2, C_IQ0, C_IQ1, 0),
  ESCR("MSR_SSU_ESCR%u", 0, 0x3BE, 1, SPMU_NB_SSU, 3, C_IQ0, 0, 0),
  ESCR("MSR_MS_ESCR%u", 0, 0x3C0, 2, SPMU_NB_MS, 0, C_MS0, C_MS1, 0),
  ESCR("MSR_TBPU_ESCR%u", 0, 0x3C2, 2, SPMU_NB_TBPU, 2, C_MS0, C_MS1, 0),
  ESCR("MSR_TC_ESCR%u", 0, 0x3C4, 2, SPMU_NB_TC, 1, C_MS0, C_MS1, 0),
  ESCR("MSR_IX_ESCR%u", 0, 0x3C8, 2, SPMU_NB_IX, 5, C_BPU0, C_BPU1, 0),
  ESCR("MSR_ALF_ESCR%u", 0, 0x3CA, 2, SPMU_NB_ALF, 1, C_IQ0, C_IQ1, 0),
  ESCR("MSR_CRU_ESCR%u", 2, 0x3CC, 2, SPMU_NB_CRU2, 5, C_IQ0, C_IQ1, 0),
  ESCR("MSR_CRU_ESCR%u", 4, 0x3E0, 2, SPMU_NB_CRU4, 6, C_IQ0, C_IQ1, 0),
  {.name = "MSR_DEBUGCTLA", .former = "IA32_DEBUGCTL", .addr = 0x1D9,
   .policy = SPMU_POLICY_RW, .requires = CAP(NETBURST),
   .storage = ST(debugctl), FIELDS(debugctla_fields), .sdm = "17.11.1",
   .brief = "debug control (NetBurst layout): LBR, BTS"},
  {.name = "MSR_TC_PRECISE_EVENT", .addr = 0x3F0, .policy = SPMU_POLICY_RW,
   .requires = CAP(NETBURST), .shared = true, .storage = NBST(tc_precise),
   FIELDS(nb_tc_precise_fields), .sdm = "18.15.6.2, Table 19-31",
   .brief = "front-end tagging of trace-cache events (no bit defined)"},
  {.name = "MSR_PEBS_ENABLE", .former = "IA32_PEBS_ENABLE", .addr = 0x3F1,
   .policy = SPMU_POLICY_RW, .requires = CAP(NETBURST) | CAP(PEBS),
   .shared = true, .storage = NBST(pebs_enable), .view = spmu_nb_pebs_view,
   FIELDS(nb_pebs_enable_fields), .sdm = "18.15.6.4, 18.16.3, Table 35-41",
   .brief = "PEBS and replay tagging (NetBurst layout)"},
  {.name = "MSR_PEBS_MATRIX_VERT", .addr = 0x3F2, .policy = SPMU_POLICY_RW,
   .requires = CAP(NETBURST), .shared = true,
   .storage = NBST(pebs_matrix_vert), FIELDS(nb_matrix_vert_fields),
   .sdm = "18.15.6.4, Table 19-33",
   .brief = "uop types that replay tagging tags"},
  {.name = "IA32_DS_AREA", .addr = 0x600, .policy = SPMU_POLICY_RW,
   .check = SPMU_CHECK_CANONICAL, .requires = CAP(DS), .storage = ST(ds_area),
   FIELDS(ds_area_fields), .sdm = "17.4.9",
   .brief = "linear address of the DS save area (canonical)"},
  /* The model-specific LBR stack (SDM 17.4.8, 17.5 Core 2, 17.7-17.12
   * Nehalem to Skylake) and architectural LBRs. */
  {.name = "MSR_LASTBRANCH_%u_FROM_IP", .addr = 0x40, .repeat = SPMU_REP_LBR,
   .policy = SPMU_POLICY_RW, .check = SPMU_CHECK_LBR_FROM, .lbr = true,
   .requires = CAP(LBR_CORE2), .storage = LBST(from), FIELDS(lbr_from_fields),
   .sdm = "17.5, 17.4.8.1", .brief = "LBR entry %u: branch source (Core 2)"},
  {.name = "MSR_LASTBRANCH_%u_TO_IP", .addr = 0x60, .repeat = SPMU_REP_LBR,
   .policy = SPMU_POLICY_RW, .check = SPMU_CHECK_CANONICAL, .lbr = true,
   .requires = CAP(LBR_CORE2), .storage = LBST(to), FIELDS(lbr_to_fields),
   .sdm = "17.5, 17.4.8.1", .brief = "LBR entry %u: branch target (Core 2)"},
  {.name = "MSR_LBR_SELECT", .addr = 0x1C8,
   .policy = SPMU_POLICY_RW, .lbr = true, .requires = CAP(LBR_NHM),
   .storage = LBST(select), FIELDS(lbr_select_fields),
   .sdm = "17.7.2, 17.9.1", .brief = "LBR filter by CPL and branch type"},
  {.name = "MSR_LASTBRANCH_TOS", .addr = 0x1C9, .policy = SPMU_POLICY_RW,
   .lbr = true, .requires = CAP(LBR), .storage = LBST(tos),
   FIELDS(lbr_tos_fields), .sdm = "17.4.8, 17.7.1",
   .brief = "LBR top of stack: the most recent entry"},
  {.name = "MSR_LER_FROM_LIP", .addr = 0x1DD, .policy = SPMU_POLICY_RO,
   .lbr = true, .requires = CAP(LBR), .storage = LBST(ler_from),
   FIELDS(ler_ip_fields), .sdm = "17.4.8.3, Vol. 3C Table 35-3",
   .brief = "last exception record: source of the last branch before it"},
  {.name = "MSR_LER_TO_LIP", .addr = 0x1DE, .policy = SPMU_POLICY_RO,
   .lbr = true, .requires = CAP(LBR), .storage = LBST(ler_to),
   FIELDS(ler_ip_fields), .sdm = "17.4.8.3, Vol. 3C Table 35-3",
   .brief = "last exception record: target of the last branch before it"},
  {.name = "IA32_LER_FROM_IP", .addr = 0x1DD, .policy = SPMU_POLICY_RW,
   .check = SPMU_CHECK_CANONICAL, .lbr = true, .requires = CAP(ARCH_LBR),
   .storage = LBST(ler_from), FIELDS(ler_ip_fields), .sdm = "Arch LBR",
   .brief = "last branch before an interrupt or exception: source"},
  {.name = "IA32_LER_TO_IP", .addr = 0x1DE, .policy = SPMU_POLICY_RW,
   .check = SPMU_CHECK_CANONICAL, .lbr = true, .requires = CAP(ARCH_LBR),
   .storage = LBST(ler_to), FIELDS(ler_ip_fields), .sdm = "Arch LBR",
   .brief = "last branch before an interrupt or exception: target"},
  {.name = "IA32_LER_INFO", .addr = 0x1E0, .policy = SPMU_POLICY_RW,
   .lbr = true, .requires = CAP(ARCH_LBR), .storage = LBST(ler_info),
   FIELDS(arch_lbr_info_fields), .sdm = "Arch LBR",
   .brief = "last branch before an interrupt or exception: info"},
  {.name = "MSR_LASTBRANCH_%u_FROM_IP", .addr = 0x680, .repeat = SPMU_REP_LBR,
   .policy = SPMU_POLICY_RW, .check = SPMU_CHECK_LBR_FROM, .lbr = true,
   .requires = CAP(LBR_NHM), .storage = LBST(from), FIELDS(lbr_from_fields),
   .sdm = "17.7.1 Table 17-8, 17.4.8.1", .brief = "LBR entry %u: branch source"},
  {.name = "MSR_LASTBRANCH_%u_TO_IP", .addr = 0x6C0, .repeat = SPMU_REP_LBR,
   .policy = SPMU_POLICY_RW, .check = SPMU_CHECK_CANONICAL, .lbr = true,
   .requires = CAP(LBR_NHM), .storage = LBST(to), FIELDS(lbr_to_fields),
   .sdm = "17.7.1 Table 17-9", .brief = "LBR entry %u: branch target"},
  {.name = "MSR_LBR_INFO_%u", .addr = 0xDC0, .repeat = SPMU_REP_LBR,
   .policy = SPMU_POLICY_RW, .lbr = true, .requires = CAP(LBR_INFO),
   .storage = LBST(info), FIELDS(lbr_info_fields), .sdm = "17.12.1",
   .brief = "LBR entry %u: cycles, TSX and misprediction"},
  {.name = "IA32_LBR_%u_INFO", .addr = 0x1200, .repeat = SPMU_REP_LBR,
   .policy = SPMU_POLICY_RW, .lbr = true, .requires = CAP(ARCH_LBR),
   .storage = LBST(info), FIELDS(arch_lbr_info_fields), .sdm = "Arch LBR",
   .brief = "arch LBR entry %u: type, cycles, flags"},
  {.name = "IA32_LBR_CTL", .addr = 0x14CE, .policy = SPMU_POLICY_RW,
   .lbr = true, .requires = CAP(ARCH_LBR), .storage = LBST(ctl),
   FIELDS(arch_lbr_ctl_fields), .sdm = "Arch LBR",
   .brief = "architectural LBR enable and filters"},
  {.name = "IA32_LBR_DEPTH", .addr = 0x14CF, .policy = SPMU_POLICY_RW,
   .reset = SPMU_RESET_LBR_DEPTH, .check = SPMU_CHECK_LBR_DEPTH, .lbr = true,
   .requires = CAP(ARCH_LBR), .storage = LBST(depth),
   FIELDS(arch_lbr_depth_fields), .sdm = "Arch LBR",
   .brief = "architectural LBR entries in use; a write clears them"},
  {.name = "IA32_LBR_%u_FROM_IP", .addr = 0x1500, .repeat = SPMU_REP_LBR,
   .policy = SPMU_POLICY_RW, .check = SPMU_CHECK_CANONICAL, .lbr = true,
   .requires = CAP(ARCH_LBR), .storage = LBST(from),
   FIELDS(arch_lbr_from_fields), .sdm = "Arch LBR",
   .brief = "arch LBR entry %u: branch source"},
  {.name = "IA32_LBR_%u_TO_IP", .addr = 0x1600, .repeat = SPMU_REP_LBR,
   .policy = SPMU_POLICY_RW, .check = SPMU_CHECK_CANONICAL, .lbr = true,
   .requires = CAP(ARCH_LBR), .storage = LBST(to), FIELDS(lbr_to_fields),
   .sdm = "Arch LBR", .brief = "arch LBR entry %u: branch target"},
};
/* clang-format on */

const size_t spmu_catalog_len = sizeof(spmu_catalog) / sizeof(spmu_catalog[0]);

/* The debug and LBR address blocks beyond the catalogue's MSRs (SDM Vol.
 * 4, the MSR table of each family; Vol. 2B RDMSR / WRMSR: #GP(0) for an
 * unimplemented MSR). The NetBurst LBR facility (Pentium 4 table; SDM Vol.
 * 3B 17.11), which no profile models (lbr_depth needs netburst=0): the
 * last exception record at 1D7H-1D8H, MSR_LASTBRANCH_TOS at 1DAH and the
 * 4-entry stack of models 0-2 at 1DBH-1DEH (1DDH-1DEH are the catalogue's
 * LER MSRs; 1DBH-1DCH are also the P6 family's LastBranchFromIP and
 * LastBranchToIP). The architectural LBR entries (SDM Vol. 3B
 * "Architectural Last Branch Records"): IA32_LBR_x_INFO at 1200H + x,
 * IA32_LBR_x_FROM_IP at 1500H + x and IA32_LBR_x_TO_IP at 1600H + x, each
 * block 256 addresses, the catalogue's 32 entries first. */
const struct spmu_msr_block spmu_msr_reserved[] = {
    {0x1D7, 0x1D8, "Vol. 4 Pentium 4 MSR_LER_FROM_LIP, MSR_LER_TO_LIP"},
    {0x1DA, 0x1DC, "Vol. 4 Pentium 4 MSR_LASTBRANCH_TOS, _0, _1"},
    {0x1220, 0x12FF, "Arch LBR IA32_LBR_x_INFO"},
    {0x1520, 0x15FF, "Arch LBR IA32_LBR_x_FROM_IP"},
    {0x1620, 0x16FF, "Arch LBR IA32_LBR_x_TO_IP"},
};

const size_t spmu_msr_reserved_len =
    sizeof(spmu_msr_reserved) / sizeof(spmu_msr_reserved[0]);

/* Inside the span of Core 2's stack at 40H / 60H (32 entries, as every
 * repeated LBR def): IA32_SPEC_CTRL (48H), IA32_PRED_CMD (49H), IA32_PPIN_CTL
 * (4EH), IA32_PPIN (4FH) and IA32_BIOS_UPDT_TRIG (79H), SDM Vol. 4 Table 2-2,
 * architectural MSRs that processors of these generations have. */
const uint32_t spmu_msr_foreign[] = {0x48, 0x49, 0x4E, 0x4F, 0x79};

const size_t spmu_msr_foreign_len =
    sizeof(spmu_msr_foreign) / sizeof(spmu_msr_foreign[0]);

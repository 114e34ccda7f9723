/* The register catalogue: every MSR of the architectural PMU, declared once.
 *
 * Section numbers are those of the Intel SDM Vol. 3B, order 325384-059US
 * (chapter 18 "Performance Monitoring", chapter 17 "Debug, Branch Profile,
 * TSC, and Resource Monitoring Features") and Vol. 3C chapter 35 (MSR
 * tables). "(Linux)" marks layouts that come from Linux and KVM sources
 * because the SDM text predates them (facts sheet, intro).
 *
 * Nothing else in the project switches on an MSR number: masks, lookup,
 * decode/encode, docs/msrs.md and the per-register tests all come from here.
 */
#include <stddef.h>

#include "arch/msr.h"
#include "arch/state.h"
#include "regs/catalog.h"

#define NF(a) ((uint8_t)(sizeof(a) / sizeof((a)[0])))
#define ST(m) ((int)offsetof(struct spmu_regs, m))

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
  FR("EN_PMC%u", 0, 1, SPMU_REP_GP, 1, 0, 0, "enable IA32_PMCi"),
  FR("EN_FIXED_CTR%u", 32, 1, SPMU_REP_FIXED, 1, 0, 0, "enable IA32_FIXED_CTRj"),
  F("EN_PERF_METRICS", 48, 1, CAP(PERF_METRICS), "enable MSR_PERF_METRICS"),
};

/* IA32_PERF_GLOBAL_STATUS and its write views (OVF_CTRL / STATUS_RESET /
 * STATUS_SET) — SDM 18.2.2.2 Figure 18-4, 18.2.4.1 Figure 18-10,
 * 18.2.4.2 Figures 18-11/18-12, Vol. 3C Table 35-2. ASCI is bit 60 (the MSR
 * table's "58" for ASCI is a typo; Figure 18-10 has 60). */
static const struct spmu_field_def status_fields[] = {
  FR("Ovf_PMC%u", 0, 1, SPMU_REP_GP, 1, 0, 0, "IA32_PMCi overflowed"),
  FR("Ovf_FixedCtr%u", 32, 1, SPMU_REP_FIXED, 1, 0, 0, "IA32_FIXED_CTRj overflowed"),
  F("Ovf_PerfMetrics", 48, 1, CAP(PERF_METRICS), "PERF_METRICS overflowed"),
  F("Trace_ToPA_PMI", 55, 1, CAP(PT), "Intel PT ToPA buffer full"),
  F("LBR_Frz", 58, 1, CAP(V4), "LBRs frozen by FREEZE_LBRS_ON_PMI"),
  F("CTR_Frz", 59, 1, CAP(V4), "counters frozen by FREEZE_PERFMON_ON_PMI"),
  F("ASCI", 60, 1, CAP(V4) | CAP(SGX), "counts may include SGX enclave activity"),
  F("Ovf_Uncore", 61, 1, CAP(UNCORE_PMI), "uncore counter overflowed"),
  F("OvfBuf", 62, 1, 0, "DS buffer reached its interrupt threshold"),
  F("CondChgd", 63, 1, 0, "PMU state changed (condition changed)"),
};

/* IA32_PERF_GLOBAL_INUSE — SDM 18.2.4.3 Figure 18-13 (seed 000). */
static const struct spmu_field_def inuse_fields[] = {
  FR("PERFEVTSEL%u_InUse", 0, 1, SPMU_REP_GP, 1, 0, 0,
     "IA32_PERFEVTSELi[7:0] != 0"),
  FR("FC%u_InUse", 32, 1, SPMU_REP_FIXED, 1, 0, 0,
     "IA32_FIXED_CTR_CTRL enable field of counter j != 0"),
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
  PEBS_EN("PEBS_EN_PMC%u", 0, SPMU_REP_GP, 4, CAP(PEBS_LL), "PEBS on IA32_PMCi"),
  PEBS_EN("PEBS_EN_PMC%u", 0, SPMU_REP_GP, 0, CAP(BASELINE), "PEBS on IA32_PMCi"),
  PEBS_EN("PEBS_EN_FIXED%u", 32, SPMU_REP_FIXED, 0, CAP(BASELINE),
          "PEBS on IA32_FIXED_CTRj"),
  FR("LL_EN_PMC%u", 32, 1, SPMU_REP_GP, 1, 4, CAP(PEBS_LL),
     "load-latency PEBS on IA32_PMCi"),
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

#define FIELDS(a) .fields = (a), .nfields = NF(a)

const struct spmu_reg_def spmu_catalog[] = {
  {.name = "IA32_PMC%u", .former = "IA32_PERFCTR%u", .addr = 0xC1,
   .repeat = SPMU_REP_GP, .policy = SPMU_POLICY_COUNTER_SX,
   .requires = CAP(V1), .storage = ST(ctr), FIELDS(counter_fields),
   .sdm = "18.2.1.1, 18.2.5",
   .brief = "general-purpose counter; writes sign-extend bit 31"},
  {.name = "IA32_PERFEVTSEL%u", .addr = 0x186, .repeat = SPMU_REP_GP,
   .policy = SPMU_POLICY_RW, .requires = CAP(V1), .storage = ST(evtsel),
   FIELDS(evtsel_fields), .sdm = "18.2.1.1, 18.2.3",
   .brief = "event select for IA32_PMCi"},
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
   .policy = SPMU_POLICY_RW, .storage = ST(debugctl), FIELDS(debugctl_fields),
   .sdm = "17.4.1, 18.2.4.1", .brief = "debug control: LBR, BTS, freeze"},
  {.name = "IA32_PEBS_ENABLE", .addr = 0x3F1, .policy = SPMU_POLICY_RW,
   .requires = CAP(PEBS), .storage = ST(pebs_enable),
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
   .sdm = "18.2.5", .brief = "full-width alias of IA32_PMCi"},
  {.name = "IA32_DS_AREA", .addr = 0x600, .policy = SPMU_POLICY_RW,
   .check = SPMU_CHECK_CANONICAL, .requires = CAP(DS), .storage = ST(ds_area),
   FIELDS(ds_area_fields), .sdm = "17.4.9",
   .brief = "linear address of the DS save area (canonical)"},
};

const size_t spmu_catalog_len = sizeof(spmu_catalog) / sizeof(spmu_catalog[0]);

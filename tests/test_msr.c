/* SPDX-License-Identifier: MIT */
/* Guest-path WRMSR/RDMSR semantics of every architectural PMU MSR, rule by
 * rule (SDM Vol. 3B chapter 18 and its register figures; Vol. 3C Table
 * 35-2; the KVM test suites' checks, rephrased for the model). */
#define SPMU_TEST_FIXTURE
#include "helpers.h"

#define GP_OK(msr, v) assert_int_equal(spmu_wrmsr(lp, (msr), (v)), SPMU_OK)
#define GP_FAULT(msr, v) assert_int_equal(spmu_wrmsr(lp, (msr), (v)), SPMU_GP)

/* A faulting write leaves the register as it was. */
static void fault_keeps(uint32_t msr, uint64_t v)
{
  uint64_t before = rd(lp, msr);
  GP_FAULT(msr, v);
  assert_int_equal(rd(lp, msr), before);
}

/* KVM pmu test "check_gp_counters_write_width" and SDM 18.2.5: 0xffff
 * through IA32_PMCx reads back where the counter exists and #GPs past N;
 * through IA32_A_PMCx the same with FW_WRITE, and #GP without it. */
static void test_pmc_0xffff_present_or_gp_18_2_5(void **state)
{
  const char *name;
  (void)state;
  FOR_EACH_PRESET(name) {
    const spmu_profile *p;
    unsigned i;
    use(name);
    p = spmu_core_profile(core);
    for (i = 0; i < SPMU_MAX_GP; i++) {
      uint64_t v;
      bool fw = (p->perf_capabilities & SPMU_PERFCAP_FW_WRITE) != 0;
      if (i < p->gp) {
        GP_OK(MSR_PMC0 + i, 0xffff);
        assert_int_equal(rd(lp, MSR_PMC0 + i), 0xffff);
      } else {
        GP_FAULT(MSR_PMC0 + i, 0xffff);
        assert_int_equal(spmu_rdmsr(lp, MSR_PMC0 + i, &v), SPMU_GP);
      }
      if (i < p->gp && fw) {
        GP_OK(MSR_A_PMC0 + i, 0xfffe);
        assert_int_equal(rd(lp, MSR_PMC0 + i), 0xfffe);
      } else {
        GP_FAULT(MSR_A_PMC0 + i, 0xffff);
        assert_int_equal(spmu_rdmsr(lp, MSR_A_PMC0 + i, &v), SPMU_GP);
      }
    }
  }
}

/* SDM 18.2.5 / KVM check_rdpmc: 0xff0123456789 through IA32_PMCx keeps bits
 * 31:0 sign-extended from bit 31 (0) and masked to the width; through
 * IA32_A_PMCx the full value, masked to the width. */
static void test_pmc_write_sign_extends_bit31_18_2_5(void **state)
{
  (void)state;
  use("skylake");
  GP_OK(MSR_PMC0, 0xff0123456789ULL);
  assert_int_equal(rd(lp, MSR_PMC0), 0x23456789ULL);
  GP_OK(MSR_PMC0 + 1, 0x80000000ULL);
  assert_int_equal(rd(lp, MSR_PMC0 + 1), 0xffff80000000ULL);
  GP_OK(MSR_PMC0 + 2, (uint64_t)-100000);
  assert_int_equal(rd(lp, MSR_PMC0 + 2), 0xfffffffe7960ULL);
  GP_OK(MSR_A_PMC0, 0xff0123456789ULL);
  assert_int_equal(rd(lp, MSR_PMC0), 0xff0123456789ULL);
  assert_int_equal(rd(lp, MSR_A_PMC0), 0xff0123456789ULL);

  use("core2"); /* 40-bit counters */
  GP_OK(MSR_PMC0, 0x80000001ULL);
  assert_int_equal(rd(lp, MSR_PMC0), 0xff80000001ULL);
}

/* SDM 18.2.5: bits above the width of an IA32_A_PMCx write are reserved. */
static void test_a_pmc_above_width_gp_18_2_5(void **state)
{
  (void)state;
  use("skylake");
  GP_OK(MSR_A_PMC0, 0x1234);
  fault_keeps(MSR_A_PMC0, 1ULL << 48);
  fault_keeps(MSR_A_PMC0, 0xff0123456789ULL | (1ULL << 63));
  assert_int_equal(rd(lp, MSR_PMC0), 0x1234);
}

/* SDM 18.2.2.1: fixed counters take full-width writes; bits above the
 * width are reserved (softpmu's documented choice); absent counters #GP. */
static void test_fixed_counters_full_width_18_2_2_1(void **state)
{
  uint64_t v;
  (void)state;
  use("skylake");
  GP_OK(MSR_FIXED_CTR0 + 2, 0xff0123456789ULL);
  assert_int_equal(rd(lp, MSR_FIXED_CTR0 + 2), 0xff0123456789ULL);
  fault_keeps(MSR_FIXED_CTR0 + 2, 1ULL << 48);
  GP_FAULT(MSR_FIXED_CTR0 + 3, 0);
  assert_int_equal(spmu_rdmsr(lp, MSR_FIXED_CTR0 + 3, &v), SPMU_GP);
  use("icelake");
  GP_OK(MSR_FIXED_CTR0 + 3, 5);
  assert_int_equal(rd(lp, MSR_FIXED_CTR0 + 3), 5);
  /* A v5 bitmap with a hole: counter 1 absent, 2 present (CPUID.0AH:ECX). */
  use("version=5,gp=4,fixed_mask=0x5");
  GP_FAULT(MSR_FIXED_CTR0 + 1, 0);
  GP_OK(MSR_FIXED_CTR0 + 2, 7);
}

/* SDM 18.2.2.2 + KVM: IA32_PERF_GLOBAL_CTRL resets with every GP enable set;
 * enable bits of absent counters are reserved. */
static void test_global_ctrl_reset_and_reserved_18_2_2_2(void **state)
{
  (void)state;
  use("core2");
  assert_int_equal(rd(lp, MSR_GLOBAL_CTRL), 0x3);
  use("icelake");
  assert_int_equal(rd(lp, MSR_GLOBAL_CTRL), 0xff);
  GP_OK(MSR_GLOBAL_CTRL, 0xffULL | 0xfULL << 32 | 1ULL << 48);
  use("skylake");
  assert_int_equal(rd(lp, MSR_GLOBAL_CTRL), 0xf);
  GP_OK(MSR_GLOBAL_CTRL, 0x70000000fULL);
  fault_keeps(MSR_GLOBAL_CTRL, 1ULL << 4);  /* PMC4 absent */
  fault_keeps(MSR_GLOBAL_CTRL, 1ULL << 35); /* fixed 3 absent: KVM check */
  fault_keeps(MSR_GLOBAL_CTRL, 1ULL << 48); /* no PERF_METRICS */
}

/* SDM 18.2.2.1, 18.2.3: FIXED_CTR_CTRL nibbles of absent counters are
 * reserved (KVM: enabling an absent fixed counter #GPs); AnyThread from v3,
 * not where deprecated; ADAPTIVE bits with PEBS baseline. */
static void test_fixed_ctr_ctrl_reserved_18_2_2_1(void **state)
{
  (void)state;
  use("skylake");
  GP_OK(MSR_FIXED_CTR_CTRL, 0xfff);
  fault_keeps(MSR_FIXED_CTR_CTRL, 0x1000); /* counter 3 EN */
  fault_keeps(MSR_FIXED_CTR_CTRL, 1ULL << 32);
  use("core2");
  GP_OK(MSR_FIXED_CTR_CTRL, 0xbbb);
  fault_keeps(MSR_FIXED_CTR_CTRL, 0x4); /* ANY needs v3 */
  use("haswell");
  GP_OK(MSR_FIXED_CTR_CTRL, 0x444);
  use("icelake");
  GP_OK(MSR_FIXED_CTR_CTRL, 0xbbbbULL | 0x1111ULL << 32 /* ADAPTIVE0..3 */);
  fault_keeps(MSR_FIXED_CTR_CTRL, 0x4); /* AnyThread deprecated */
}

/* SDM 18.2.1.1, 18.2.3, 18.11.5.1: PERFEVTSEL reserved bits per profile. */
static void test_evtsel_reserved_bits_18_2_3(void **state)
{
  (void)state;
  use("core2");
  GP_OK(MSR_EVTSEL0, 0xffdfffffULL); /* all of 31:0 but ANY */
  assert_int_equal(rd(lp, MSR_EVTSEL0), 0xffdfffffULL);
  fault_keeps(MSR_EVTSEL0, 1ULL << 21); /* ANY before v3 */
  fault_keeps(MSR_EVTSEL0, 1ULL << 32); /* IN_TX needs RTM */
  use("haswell");
  GP_OK(MSR_EVTSEL0, 1ULL << 21 | 1ULL << 32);
  fault_keeps(MSR_EVTSEL0, 1ULL << 33); /* IN_TXCP: PERFEVTSEL2 only */
  GP_OK(MSR_EVTSEL0 + 2, 1ULL << 33);
  fault_keeps(MSR_EVTSEL0 + 2, 1ULL << 34); /* ADAPTIVE needs baseline */
  use("icelake");
  fault_keeps(MSR_EVTSEL0, 1ULL << 21); /* AnyThread deprecated (EDX[15]) */
  GP_OK(MSR_EVTSEL0 + 7, 1ULL << 34);
  fault_keeps(MSR_EVTSEL0, 1ULL << 63);
  GP_FAULT(MSR_EVTSEL0 + 8, 0); /* IA32_PERFEVTSEL8 does not exist */
}

/* SDM 18.2.2, 18.2.4: the global MSRs exist only for version > 1,
 * STATUS_SET and INUSE only from version 4, fixed counters from version 2. */
static void test_msrs_absent_by_version_18_2(void **state)
{
  static const uint32_t v2[] = {MSR_FIXED_CTR0, MSR_FIXED_CTR_CTRL,
                                MSR_GLOBAL_STATUS, MSR_GLOBAL_CTRL,
                                MSR_GLOBAL_OVF_CTRL};
  unsigned i;
  uint64_t v;
  (void)state;
  use("core-duo");
  for (i = 0; i < sizeof v2 / sizeof v2[0]; i++) {
    GP_FAULT(v2[i], 0);
    assert_int_equal(spmu_rdmsr(lp, v2[i], &v), SPMU_GP);
  }
  GP_FAULT(MSR_PERF_CAPABILITIES, 0); /* no PDCM on Core Duo */
  use("haswell");
  GP_FAULT(MSR_GLOBAL_STATUS_SET, 0);
  assert_int_equal(spmu_rdmsr(lp, MSR_GLOBAL_INUSE, &v), SPMU_GP);
  use("skylake");
  assert_int_equal(spmu_rdmsr(lp, MSR_GLOBAL_INUSE, &v), SPMU_OK);
  use("version=0");
  GP_FAULT(MSR_PMC0, 0);
  GP_FAULT(MSR_EVTSEL0, 0);
}

/* SDM 18.2.2.2: IA32_PERF_GLOBAL_STATUS is read-only: WRMSR #GP, state kept. */
static void test_global_status_read_only_18_2_2_2(void **state)
{
  const char *name;
  (void)state;
  FOR_EACH_PRESET(name) {
    use(name);
    if (spmu_core_profile(core)->version < 2)
      continue;
    assert_int_equal(spmu_host_wrmsr(lp, MSR_GLOBAL_STATUS, 1), SPMU_OK);
    fault_keeps(MSR_GLOBAL_STATUS, 0);
    fault_keeps(MSR_GLOBAL_STATUS, 1);
  }
}

/* SDM 18.2.2.2 (v2-3 OVF_CTRL) and 18.2.4.2 (v4 STATUS_RESET): write 1 to
 * clear, reads 0; bits of absent features are reserved. */
static void test_ovf_ctrl_clears_reads_zero_18_2_2_2(void **state)
{
  (void)state;
  use("haswell");
  assert_int_equal(
      spmu_host_wrmsr(lp, MSR_GLOBAL_STATUS, 0xC000000700000005ULL), SPMU_OK);
  GP_OK(MSR_GLOBAL_OVF_CTRL, 0x8000000100000001ULL);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 0x4000000600000004ULL);
  assert_int_equal(rd(lp, MSR_GLOBAL_OVF_CTRL), 0);
  GP_FAULT(MSR_GLOBAL_OVF_CTRL, 1ULL << 59); /* CTR_Frz is v4 */
  GP_FAULT(MSR_GLOBAL_OVF_CTRL, 1ULL << 4);  /* PMC4 absent */
  GP_OK(MSR_GLOBAL_OVF_CTRL, 1ULL << 61);    /* Ovf_Uncore (Nehalem+) */

  use("skylake");
  assert_int_equal(
      spmu_host_wrmsr(lp, MSR_GLOBAL_STATUS, 0x1C80000000000001ULL), SPMU_OK);
  GP_OK(MSR_GLOBAL_OVF_CTRL, 0x0800000000000001ULL); /* CTR_Frz, PMC0 */
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 0x1480000000000000ULL);
  GP_FAULT(MSR_GLOBAL_OVF_CTRL, 1ULL << 57);         /* reserved */
  GP_OK(MSR_GLOBAL_OVF_CTRL, 0x1480000000000000ULL); /* ASCI, LBR_Frz, 55 */
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 0);
}

/* SDM 18.2.4.2: STATUS_SET sets GLOBAL_STATUS bits; bit 63 (CondChgd) is
 * reserved; ASCI is bit 60 (the MSR table's "58" is a typo). */
static void test_status_set_18_2_4_2(void **state)
{
  (void)state;
  use("skylake");
  GP_OK(MSR_GLOBAL_STATUS_SET, 0x7C80000700000000ULL | 0xf);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 0x7C8000070000000fULL);
  GP_FAULT(MSR_GLOBAL_STATUS_SET, 1ULL << 57);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS_SET), 0);
  GP_FAULT(MSR_GLOBAL_STATUS_SET, 1ULL << 63);
  GP_FAULT(MSR_GLOBAL_STATUS_SET, 1ULL << 4);
  GP_FAULT(MSR_GLOBAL_STATUS_SET, 1ULL << 48); /* no PERF_METRICS */
  use("icelake");
  GP_OK(MSR_GLOBAL_STATUS_SET, 1ULL << 48 | 1ULL << 35);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 1ULL << 48 | 1ULL << 35);
}

/* SDM 18.2.4.3 Figure 18-13: INUSE is computed live from the event selects'
 * [7:0], the fixed enable fields, and INT / fixed PMI / PEBS enable bits. */
static void test_inuse_live_18_2_4_3(void **state)
{
  (void)state;
  use("skylake");
  assert_int_equal(rd(lp, MSR_GLOBAL_INUSE), 0);
  GP_OK(MSR_EVTSEL0 + 1, 0x3c);
  assert_int_equal(rd(lp, MSR_GLOBAL_INUSE), 0x2);
  GP_OK(MSR_EVTSEL0 + 2, 0x0100); /* UMASK only: event [7:0] is 0 */
  assert_int_equal(rd(lp, MSR_GLOBAL_INUSE), 0x2);
  GP_OK(MSR_EVTSEL0 + 3, 1ULL << 20); /* INT alone: PMI in use, not PMC3 */
  assert_int_equal(rd(lp, MSR_GLOBAL_INUSE), 0x8000000000000002ULL);
  GP_OK(MSR_EVTSEL0 + 3, 0);
  GP_OK(MSR_FIXED_CTR_CTRL, 0x210); /* FC1 OS, FC2 USR */
  assert_int_equal(rd(lp, MSR_GLOBAL_INUSE), 0x600000002ULL);
  GP_OK(MSR_FIXED_CTR_CTRL, 0x008); /* FC0 PMI only */
  assert_int_equal(rd(lp, MSR_GLOBAL_INUSE), 0x8000000000000002ULL);
  GP_OK(MSR_FIXED_CTR_CTRL, 0);
  GP_OK(MSR_PEBS_ENABLE, 1ULL << 32); /* LL_EN alone enables no PEBS */
  assert_int_equal(rd(lp, MSR_GLOBAL_INUSE), 0x2);
  GP_OK(MSR_PEBS_ENABLE, 1ULL << 3);
  assert_int_equal(rd(lp, MSR_GLOBAL_INUSE), 0x8000000000000002ULL);
  GP_FAULT(MSR_GLOBAL_INUSE, 0);
  use("icelake"); /* baseline: PEBS on a fixed counter counts too */
  GP_OK(MSR_PEBS_ENABLE, 1ULL << 33);
  assert_int_equal(rd(lp, MSR_GLOBAL_INUSE), 0x8000000000000000ULL);
}

/* Vol. 3C Table 35-2, SDM 18.6.2.4: PERF_CAPABILITIES is read-only. */
static void test_perf_capabilities_read_only(void **state)
{
  (void)state;
  use("haswell");
  assert_int_equal(rd(lp, MSR_PERF_CAPABILITIES), 0x32C4);
  fault_keeps(MSR_PERF_CAPABILITIES, 0x32C4);
  fault_keeps(MSR_PERF_CAPABILITIES, 0);
}

/* Vol. 3C Table 35-2: MISC_ENABLE bits 7, 11, 12 are read-only; the rest of
 * the register is the host CPU's and is stored. */
static void test_misc_enable_perf_bits_read_only(void **state)
{
  (void)state;
  use("core-duo");
  assert_int_equal(rd(lp, MSR_MISC_ENABLE), 1ULL << 7 | 1ULL << 12);
  use("skylake");
  assert_int_equal(rd(lp, MSR_MISC_ENABLE), 1ULL << 7);
  fault_keeps(MSR_MISC_ENABLE, 0);
  fault_keeps(MSR_MISC_ENABLE, 1ULL << 7 | 1ULL << 11);
  GP_OK(MSR_MISC_ENABLE, 1ULL << 7 | 1ULL << 0 | 1ULL << 34);
  assert_int_equal(rd(lp, MSR_MISC_ENABLE), 1ULL << 7 | 1ULL << 0 | 1ULL << 34);
  use("version=0");
  assert_int_equal(rd(lp, MSR_MISC_ENABLE), 1ULL << 11 | 1ULL << 12);
}

/* SDM 17.4.1, 18.2.4.1: DEBUGCTL bits by capability. */
static void test_debugctl_reserved_17_4_1(void **state)
{
  (void)state;
  use("core-duo");
  GP_OK(MSR_DEBUGCTL, 0x1C3);            /* LBR BTF TR BTS BTINT */
  fault_keeps(MSR_DEBUGCTL, 1ULL << 12); /* freeze needs v2 */
  fault_keeps(MSR_DEBUGCTL, 1ULL << 9);  /* BTS_OFF_OS needs DS-CPL */
  use("nehalem");
  GP_OK(MSR_DEBUGCTL, 0x3FC3);
  fault_keeps(MSR_DEBUGCTL, 1ULL << 14); /* no SMM freeze */
  fault_keeps(MSR_DEBUGCTL, 1ULL << 2);
  use("sandybridge");
  GP_OK(MSR_DEBUGCTL, 0x7FC3);
  fault_keeps(MSR_DEBUGCTL, 1ULL << 15); /* RTM_DEBUG needs RTM */
  use("haswell");
  GP_OK(MSR_DEBUGCTL, 0xFFC3);
  fault_keeps(MSR_DEBUGCTL, 1ULL << 16);
}

/* SDM 18.4.4, 18.6.1.1, 18.7.4.2 and the baseline layout: PEBS_ENABLE. */
static void test_pebs_enable_layouts(void **state)
{
  (void)state;
  use("core2");
  GP_OK(MSR_PEBS_ENABLE, 1);
  fault_keeps(MSR_PEBS_ENABLE, 2);
  use("nehalem");
  GP_OK(MSR_PEBS_ENABLE, 0xF0000000FULL);
  fault_keeps(MSR_PEBS_ENABLE, 1ULL << 63);
  use("sandybridge");
  GP_OK(MSR_PEBS_ENABLE, 0x8000000F0000000FULL);
  use("icelake");
  GP_OK(MSR_PEBS_ENABLE, 0xF000000FFULL);
  fault_keeps(MSR_PEBS_ENABLE, 1ULL << 36);
  fault_keeps(MSR_PEBS_ENABLE, 1ULL << 63);
  use("core-duo");
  GP_FAULT(MSR_PEBS_ENABLE, 0);
}

/* PEBS side MSRs: DATA_CFG (baseline), LD_LAT (format 1+), FRONTEND (3+). */
static void test_pebs_side_msrs(void **state)
{
  uint64_t v;
  (void)state;
  use("icelake");
  GP_OK(MSR_PEBS_DATA_CFG, 0xFF00000FULL);
  fault_keeps(MSR_PEBS_DATA_CFG, 0x10);
  use("skylake");
  assert_int_equal(spmu_rdmsr(lp, MSR_PEBS_DATA_CFG, &v), SPMU_GP);
  GP_OK(MSR_PEBS_FRONTEND, 0x7FFFFF);
  fault_keeps(MSR_PEBS_FRONTEND, 1ULL << 23);
  use("nehalem");
  GP_OK(MSR_PEBS_LD_LAT, 0xFFFF);
  fault_keeps(MSR_PEBS_LD_LAT, 0x10000);
  GP_FAULT(MSR_PEBS_FRONTEND, 0);
  use("core2");
  GP_FAULT(MSR_PEBS_LD_LAT, 3);
}

/* SDM 17.4.9: DS_AREA holds a linear address; a non-canonical one #GPs. */
static void test_ds_area_canonical_17_4_9(void **state)
{
  (void)state;
  use("skylake");
  GP_OK(MSR_DS_AREA, 0x00007ffffffff000ULL);
  GP_OK(MSR_DS_AREA, 0xffff800000000000ULL);
  fault_keeps(MSR_DS_AREA, 0x0000800000000000ULL);
  fault_keeps(MSR_DS_AREA, 0x8000000000000000ULL);
  assert_int_equal(rd(lp, MSR_DS_AREA), 0xffff800000000000ULL);
}

/* MSR_PERF_METRICS (Linux): present with PERF_CAPABILITIES[15], read-write. */
static void test_perf_metrics_present_with_cap(void **state)
{
  (void)state;
  use("icelake");
  GP_OK(MSR_PERF_METRICS, 0x0102030405060708ULL);
  assert_int_equal(rd(lp, MSR_PERF_METRICS), 0x0102030405060708ULL);
  use("skylake");
  GP_FAULT(MSR_PERF_METRICS, 0);
}

/* Linux check_hw_exists, for every profile with counters: read PMC0, XOR
 * 0xffff, write it back, read again: must match exactly. */
static void test_boot_probe_matches(void **state)
{
  const char *name;
  (void)state;
  FOR_EACH_PRESET(name) {
    uint64_t v;
    if (!preset_is_arch(name))
      continue; /* NetBurst: test_netburst.c */
    use(name);
    assert_int_equal(spmu_wrmsr(lp, MSR_PMC0, 0x12345678), SPMU_OK);
    v = rd(lp, MSR_PMC0) ^ 0xffff;
    GP_OK(MSR_PMC0, v);
    assert_int_equal(rd(lp, MSR_PMC0), v);
  }
}

/* Each logical processor of an SMT core has its own PMU state (SDM 18.2.1:
 * CPUID.0AH counts the counters per logical processor). */
static void test_threads_have_own_state(void **state)
{
  spmu_lp *other;
  (void)state;
  use("skylake");
  other = spmu_core_lp(core, 1);
  GP_OK(MSR_EVTSEL0, 0x4300c0);
  assert_int_equal(rd(other, MSR_EVTSEL0), 0);
  assert_int_equal(rd(lp, MSR_EVTSEL0), 0x4300c0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_pmc_0xffff_present_or_gp_18_2_5, teardown),
      cmocka_unit_test_teardown(test_pmc_write_sign_extends_bit31_18_2_5,
                                teardown),
      cmocka_unit_test_teardown(test_a_pmc_above_width_gp_18_2_5, teardown),
      cmocka_unit_test_teardown(test_fixed_counters_full_width_18_2_2_1,
                                teardown),
      cmocka_unit_test_teardown(test_global_ctrl_reset_and_reserved_18_2_2_2,
                                teardown),
      cmocka_unit_test_teardown(test_fixed_ctr_ctrl_reserved_18_2_2_1,
                                teardown),
      cmocka_unit_test_teardown(test_evtsel_reserved_bits_18_2_3, teardown),
      cmocka_unit_test_teardown(test_msrs_absent_by_version_18_2, teardown),
      cmocka_unit_test_teardown(test_global_status_read_only_18_2_2_2,
                                teardown),
      cmocka_unit_test_teardown(test_ovf_ctrl_clears_reads_zero_18_2_2_2,
                                teardown),
      cmocka_unit_test_teardown(test_status_set_18_2_4_2, teardown),
      cmocka_unit_test_teardown(test_inuse_live_18_2_4_3, teardown),
      cmocka_unit_test_teardown(test_perf_capabilities_read_only, teardown),
      cmocka_unit_test_teardown(test_misc_enable_perf_bits_read_only, teardown),
      cmocka_unit_test_teardown(test_debugctl_reserved_17_4_1, teardown),
      cmocka_unit_test_teardown(test_pebs_enable_layouts, teardown),
      cmocka_unit_test_teardown(test_pebs_side_msrs, teardown),
      cmocka_unit_test_teardown(test_ds_area_canonical_17_4_9, teardown),
      cmocka_unit_test_teardown(test_perf_metrics_present_with_cap, teardown),
      cmocka_unit_test_teardown(test_boot_probe_matches, teardown),
      cmocka_unit_test_teardown(test_threads_have_own_state, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

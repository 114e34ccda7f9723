/* SPDX-License-Identifier: MIT */
/* AnyThread (SDM 18.2.3, "AnyThread counting"): a counter with ANY set
 * counts the events of every logical processor of its core, matching each
 * thread's CPL with the counter's OS/USR (ENABLE) setting; without ANY it
 * counts only the events of the logical processor that programmed it. Its
 * overflow status, PMI and freeze stay its own logical processor's.
 * Deprecated (reserved) from CPUID.0AH:EDX[15] (Ice Lake presets on).
 *
 * Also: the host-raised GLOBAL_STATUS bits (spmu_signal): Trace_ToPA_PMI
 * (SDM 36.2.7.2), Ovf_Uncore (DEBUGCTL.ENABLE_UNCORE_PMI, Vol. 3C Table
 * 35-2), CondChgd. */
#include "helpers.h"

#include <stdlib.h>

#define INST_SEL UINT64_C(0xC0) /* INST_RETIRED.ANY, umask 0 */

static spmu_core *core;
static spmu_lp *t0, *t1;

/* PMIs seen, per logical processor index. */
static unsigned pmis[2];

static void on_pmi(void *opaque, spmu_lp *l)
{
  (void)opaque;
  pmis[spmu_lp_index(l)]++;
}

static void use(const char *spec)
{
  spmu_host h = {.pmi = on_pmi};
  spmu_core_free(core);
  core = core_for(spec);
  assert_int_equal(spmu_core_threads(core), 2);
  t0 = spmu_core_lp(core, 0);
  t1 = spmu_core_lp(core, 1);
  assert_int_equal(spmu_core_set_host(core, &h), SPMU_OK);
  pmis[0] = pmis[1] = 0;
}

static int teardown(void **state)
{
  (void)state;
  spmu_core_free(core);
  core = NULL;
  return 0;
}

static void wr(spmu_lp *l, uint32_t msr, uint64_t v)
{
  int rc = spmu_wrmsr(l, msr, v);
  if (rc != SPMU_OK)
    fail_msg("WRMSR %#x <- %#llx on lp %u: %s", msr, (unsigned long long)v,
             spmu_lp_index(l), spmu_errname(rc));
}

/* Deliver `clocks` clocks of `count` instructions retired at `cpl`. */
static int insts(spmu_lp *l, uint32_t count, uint8_t cpl, uint64_t clocks,
                 uint64_t *consumed)
{
  spmu_event_line line = {0xC0, 0x00, count};
  spmu_clock clk = {.lines = &line, .nlines = 1, .cpl = cpl, .flags = 0};
  uint64_t used = 0;
  int rc = spmu_deliver(l, &clk, clocks, &used);
  assert_true(rc >= 0);
  if (consumed)
    *consumed = used;
  else
    assert_int_equal(used, clocks);
  return rc;
}

/* PMC0 of lp l counts instructions at every CPL, enabled globally. */
static void count_insts(spmu_lp *l, uint64_t extra)
{
  wr(l, MSR_EVTSEL0, INST_SEL | EV_USR | EV_OS | EV_EN | extra);
  wr(l, MSR_GLOBAL_CTRL, 1);
}

/* SDM 18.2.3: with ANY, lp 0's counter counts both threads' events. */
static void test_any_counts_every_thread_18_2_3(void **state)
{
  (void)state;
  use("skylake");
  count_insts(t0, EV_ANY);
  insts(t1, 5, 3, 1, NULL);
  assert_int_equal(rd(t0, MSR_PMC0), 5);
  insts(t0, 7, 3, 1, NULL);
  assert_int_equal(rd(t0, MSR_PMC0), 12);
  insts(t1, 2, 0, 10, NULL);
  assert_int_equal(rd(t0, MSR_PMC0), 32);
  /* lp 1's own PMC0 is not programmed and stays 0. */
  assert_int_equal(rd(t1, MSR_PMC0), 0);
}

/* SDM 18.2.3: ANY = 0 counts only the programming thread's events. */
static void test_without_any_counts_own_thread_only_18_2_3(void **state)
{
  (void)state;
  use("skylake");
  count_insts(t0, 0);
  count_insts(t1, 0);
  insts(t1, 5, 3, 4, NULL);
  insts(t0, 3, 3, 1, NULL);
  assert_int_equal(rd(t0, MSR_PMC0), 3);
  assert_int_equal(rd(t1, MSR_PMC0), 20);
}

/* SDM 18.2.3: "including matching the thread's CPL with the OS/USR
 * setting": the other thread's CPL decides, against this counter's USR. */
static void test_any_matches_other_threads_cpl_18_2_3(void **state)
{
  (void)state;
  use("haswell");
  wr(t0, MSR_EVTSEL0, INST_SEL | EV_USR | EV_EN | EV_ANY);
  wr(t0, MSR_GLOBAL_CTRL, 1);
  insts(t1, 9, 0, 3, NULL); /* ring 0 on lp 1: filtered by USR only */
  assert_int_equal(rd(t0, MSR_PMC0), 0);
  insts(t1, 9, 3, 3, NULL);
  assert_int_equal(rd(t0, MSR_PMC0), 27);
  insts(t0, 1, 0, 1, NULL); /* lp 0's own ring 0: filtered too */
  assert_int_equal(rd(t0, MSR_PMC0), 27);
}

/* SDM 18.2.3 (Figure 18-7): the fixed counters' AnyThread bit, with the
 * other thread's CPL matched against the ENABLE field. */
static void test_fixed_any_counts_every_thread_18_2_3(void **state)
{
  (void)state;
  use("skylake");
  wr(t0, MSR_FIXED_CTR_CTRL, FX_EN_USR(0) | FX_ANY(0) | FX_EN_ALL(1));
  wr(t0, MSR_GLOBAL_CTRL, UINT64_C(3) << 32);
  insts(t1, 4, 3, 5, NULL);
  insts(t1, 4, 0, 5, NULL);
  assert_int_equal(rd(t0, MSR_FIXED_CTR0), 20);
  /* FIXED_CTR1 has no ANY: lp 1's cycles are not its own. */
  {
    spmu_event_line cyc = {0x3C, 0x00, 1};
    spmu_clock clk = {.lines = &cyc, .nlines = 1, .cpl = 3, .flags = 0};
    assert_int_equal(spmu_deliver(t1, &clk, 6, NULL), 0);
    assert_int_equal(rd(t0, MSR_FIXED_CTR0 + 1), 0);
    assert_int_equal(spmu_deliver(t0, &clk, 6, NULL), 0);
    assert_int_equal(rd(t0, MSR_FIXED_CTR0 + 1), 6);
  }
}

/* SDM 18.2.2.2, 18.2.3: an AnyThread counter overflowing on the other
 * thread's events sets its own lp's status bit and requests the PMI there,
 * at that clock; a batch stops there. */
static void test_any_overflow_pmi_on_owner_18_2_3(void **state)
{
  uint64_t used = 0;
  (void)state;
  use("skylake");
  count_insts(t0, EV_ANY | EV_INT);
  wr(t0, MSR_PMC0, (uint64_t)-100); /* sign-extended: 100 to overflow */
  assert_int_equal(insts(t1, 3, 3, 1000, &used), SPMU_TICK_PMI);
  assert_int_equal(used, 34); /* 34 * 3 = 102 >= 100 */
  assert_int_equal(rd(t0, MSR_PMC0), 2);
  assert_int_equal(rd(t0, MSR_GLOBAL_STATUS), 1);
  assert_int_equal(rd(t1, MSR_GLOBAL_STATUS), 0);
  assert_int_equal(pmis[0], 1);
  assert_int_equal(pmis[1], 0);
}

/* The deadline sees AnyThread counters of the other threads too. */
static void test_any_deadline_18_2_3(void **state)
{
  spmu_event_line line = {0xC0, 0x00, 3};
  spmu_clock clk = {.lines = &line, .nlines = 1, .cpl = 3, .flags = 0};
  (void)state;
  use("skylake");
  count_insts(t0, EV_ANY | EV_INT);
  wr(t0, MSR_PMC0, (uint64_t)-100);
  assert_int_equal(deadline_of(t1, &clk), 34);
  assert_int_equal(rd(t0, MSR_PMC0), (uint64_t)-100 & 0xffffffffffffULL);
  wr(t0, MSR_EVTSEL0, INST_SEL | EV_USR | EV_OS | EV_EN | EV_INT);
  assert_int_equal(deadline_of(t1, &clk), UINT64_MAX);
}

/* Freeze (SDM 18.2.4.1) and GLOBAL_CTRL gate an AnyThread counter by its
 * own lp's state, whoever delivers. */
static void test_any_gated_by_owner_state_18_2_4_1(void **state)
{
  (void)state;
  use("skylake");
  count_insts(t0, EV_ANY);
  wr(t0, MSR_GLOBAL_STATUS_SET, ST_CTR_FRZ);
  insts(t1, 5, 3, 2, NULL);
  assert_int_equal(rd(t0, MSR_PMC0), 0);
  wr(t0, MSR_STATUS_RESET, ST_CTR_FRZ);
  wr(t0, MSR_GLOBAL_CTRL, 0);
  insts(t1, 5, 3, 2, NULL);
  assert_int_equal(rd(t0, MSR_PMC0), 0);
  wr(t0, MSR_GLOBAL_CTRL, 1);
  insts(t1, 5, 3, 2, NULL);
  assert_int_equal(rd(t0, MSR_PMC0), 10);
  /* lp 1 freezing itself does not stop lp 0's counter. */
  wr(t1, MSR_GLOBAL_STATUS_SET, ST_CTR_FRZ);
  insts(t1, 5, 3, 2, NULL);
  assert_int_equal(rd(t0, MSR_PMC0), 20);
}

/* Edge detect on an AnyThread counter sees the other thread's clocks as
 * its own (SDM 18.2.1.1 E with 18.2.3). */
static void test_any_edge_across_threads_18_2_3(void **state)
{
  (void)state;
  use("skylake");
  count_insts(t0, EV_ANY | EV_E);
  insts(t1, 1, 3, 5, NULL); /* one rising edge */
  insts(t0, 1, 3, 5, NULL); /* still asserted: none */
  insts(t1, 0, 3, 1, NULL); /* deasserted */
  insts(t0, 2, 3, 1, NULL); /* rising edge */
  assert_int_equal(rd(t0, MSR_PMC0), 2);
}

/* Batched delivery from lp 1 equals single clocks for lp 0's AnyThread
 * counters (same state bit for bit), overflow in the middle included. */
static void test_any_batched_equals_single_clocks(void **state)
{
  spmu_core *other;
  spmu_lp *o0, *o1;
  size_t la = 0, lb = 0;
  unsigned char *a, *b;
  uint64_t used = 0, k;
  (void)state;
  use("skylake");
  count_insts(t0, EV_ANY | EV_INT);
  wr(t0, MSR_PMC0, (uint64_t)-1000);
  wr(t0, MSR_FIXED_CTR_CTRL, FX_EN_ALL(0) | FX_ANY(0));
  wr(t0, MSR_GLOBAL_CTRL, 1 | UINT64_C(1) << 32);
  other = core_for("skylake");
  assert_int_equal(spmu_core_save(core, NULL, 0, &la), SPMU_ENOSPC);
  a = malloc(la);
  b = malloc(la);
  assert_non_null(a);
  assert_non_null(b);
  assert_int_equal(spmu_core_save(core, a, la, &la), SPMU_OK);
  assert_int_equal(spmu_core_restore(other, a, la), SPMU_OK);
  o0 = spmu_core_lp(other, 0);
  o1 = spmu_core_lp(other, 1);
  (void)o0;
  assert_int_equal(insts(t1, 7, 3, 500, &used), SPMU_TICK_PMI);
  assert_int_equal(used, 143); /* 143 * 7 = 1001 */
  for (k = 0; k < used; k++)
    assert_int_equal(insts(o1, 7, 3, 1, NULL),
                     k + 1 == used ? SPMU_TICK_PMI : 0);
  assert_int_equal(spmu_core_save(core, a, la, &la), SPMU_OK);
  assert_int_equal(spmu_core_save(other, b, la, &lb), SPMU_OK);
  assert_int_equal(la, lb);
  assert_memory_equal(a, b, la);
  free(a);
  free(b);
  spmu_core_free(other);
}

/* CPUID.0AH:EDX[15] (v5): AnyThread is deprecated; the bits are reserved
 * and writing them raises #GP, as before v3 (core2 is v2). */
static void test_any_reserved_where_deprecated_18_2_3_1(void **state)
{
  const char *spec[] = {"icelake", "sapphirerapids", "core2"};
  unsigned i;
  (void)state;
  for (i = 0; i < 3; i++) {
    spmu_lp *l;
    spmu_core_free(core);
    core = core_for(spec[i]);
    l = spmu_core_lp(core, 0);
    assert_int_equal(spmu_wrmsr(l, MSR_EVTSEL0, INST_SEL | EV_EN | EV_ANY),
                     SPMU_GP);
    assert_int_equal(
        spmu_wrmsr(l, MSR_FIXED_CTR_CTRL, FX_EN_ALL(0) | FX_ANY(0)), SPMU_GP);
    assert_int_equal(rd(l, MSR_EVTSEL0), 0);
  }
}

/* ---- host-raised status bits ---------------------------------------- */

/* SDM 36.2.7.2: a ToPA PMI sets Trace_ToPA_PMI and requests a PMI, and
 * FREEZE_PERFMON_ON_PMI / FREEZE_LBRS_ON_PMI apply to it (v4: CTR_Frz,
 * LBR_Frz). Counting stops until the freeze is cleared. */
static void test_topa_pmi_sets_bit55_and_freezes_36_2_7_2(void **state)
{
  (void)state;
  use("skylake");
  count_insts(t0, 0);
  wr(t0, MSR_DEBUGCTL, DBG_FREEZE_PERFMON | DBG_FREEZE_LBRS | DBG_LBR);
  assert_int_equal(spmu_signal(t0, SPMU_SIGNAL_TOPA_PMI), SPMU_TICK_PMI);
  assert_int_equal(pmis[0], 1);
  assert_int_equal(pmis[1], 0);
  assert_int_equal(rd(t0, MSR_GLOBAL_STATUS),
                   ST_TOPA | ST_CTR_FRZ | ST_LBR_FRZ);
  insts(t0, 5, 3, 1, NULL);
  assert_int_equal(rd(t0, MSR_PMC0), 0);
  wr(t0, MSR_STATUS_RESET, ST_TOPA | ST_CTR_FRZ | ST_LBR_FRZ);
  assert_int_equal(rd(t0, MSR_GLOBAL_STATUS), 0);
  insts(t0, 5, 3, 1, NULL);
  assert_int_equal(rd(t0, MSR_PMC0), 5);
  assert_int_equal(rd(t1, MSR_GLOBAL_STATUS), 0);
}

/* Ovf_Uncore is set either way; the PMI only with ENABLE_UNCORE_PMI.
 * Legacy freeze (v3, Nehalem) clears GLOBAL_CTRL at that PMI. */
static void test_uncore_ovf_pmi_only_when_enabled_18_8_2(void **state)
{
  (void)state;
  use("nehalem");
  count_insts(t0, 0);
  wr(t0, MSR_DEBUGCTL, DBG_FREEZE_PERFMON);
  assert_int_equal(spmu_signal(t0, SPMU_SIGNAL_UNCORE_OVF), 0);
  assert_int_equal(pmis[0], 0);
  assert_int_equal(rd(t0, MSR_GLOBAL_STATUS), ST_UNCORE);
  assert_int_equal(rd(t0, MSR_GLOBAL_CTRL), 1);
  wr(t0, MSR_DEBUGCTL, DBG_FREEZE_PERFMON | DBG_UNCORE_PMI);
  assert_int_equal(spmu_signal(t0, SPMU_SIGNAL_UNCORE_OVF), SPMU_TICK_PMI);
  assert_int_equal(pmis[0], 1);
  assert_int_equal(rd(t0, MSR_GLOBAL_CTRL), 0);
  wr(t0, MSR_GLOBAL_OVF_CTRL, ST_UNCORE);
  assert_int_equal(rd(t0, MSR_GLOBAL_STATUS), 0);
}

/* CondChgd: set, no PMI, cleared through OVF_CTRL bit 63. */
static void test_condchgd_no_pmi_18_2_2_2(void **state)
{
  (void)state;
  use("haswell");
  assert_int_equal(spmu_signal(t1, SPMU_SIGNAL_COND_CHGD), 0);
  assert_int_equal(pmis[1], 0);
  assert_int_equal(rd(t1, MSR_GLOBAL_STATUS), ST_CONDCHGD);
  assert_int_equal(rd(t0, MSR_GLOBAL_STATUS), 0);
  wr(t1, MSR_GLOBAL_OVF_CTRL, ST_CONDCHGD);
  assert_int_equal(rd(t1, MSR_GLOBAL_STATUS), 0);
}

/* A status bit the profile lacks cannot be raised; state is unchanged. */
static void test_signal_refused_without_the_bit(void **state)
{
  spmu_lp *l;
  (void)state;
  use("haswell"); /* no Intel PT */
  assert_int_equal(spmu_signal(t0, SPMU_SIGNAL_TOPA_PMI), SPMU_ERESERVED);
  assert_int_equal(rd(t0, MSR_GLOBAL_STATUS), 0);
  assert_int_equal(pmis[0], 0);
  assert_int_equal(spmu_signal(t0, 0), SPMU_EINVAL);
  assert_int_equal(spmu_signal(t0, 4), SPMU_EINVAL);
  assert_int_equal(spmu_signal(NULL, SPMU_SIGNAL_COND_CHGD), SPMU_EINVAL);
  spmu_core_free(core);
  core = core_for("core2"); /* v2: no uncore PMI */
  l = spmu_core_lp(core, 0);
  assert_int_equal(spmu_signal(l, SPMU_SIGNAL_UNCORE_OVF), SPMU_ERESERVED);
  assert_int_equal(spmu_signal(l, SPMU_SIGNAL_COND_CHGD), 0);
  spmu_core_free(core);
  core = core_for("core-duo"); /* v1: no GLOBAL_STATUS at all */
  l = spmu_core_lp(core, 0);
  assert_int_equal(spmu_signal(l, SPMU_SIGNAL_COND_CHGD), SPMU_ERESERVED);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_any_counts_every_thread_18_2_3, teardown),
      cmocka_unit_test_teardown(test_without_any_counts_own_thread_only_18_2_3,
                                teardown),
      cmocka_unit_test_teardown(test_any_matches_other_threads_cpl_18_2_3,
                                teardown),
      cmocka_unit_test_teardown(test_fixed_any_counts_every_thread_18_2_3,
                                teardown),
      cmocka_unit_test_teardown(test_any_overflow_pmi_on_owner_18_2_3,
                                teardown),
      cmocka_unit_test_teardown(test_any_deadline_18_2_3, teardown),
      cmocka_unit_test_teardown(test_any_gated_by_owner_state_18_2_4_1,
                                teardown),
      cmocka_unit_test_teardown(test_any_edge_across_threads_18_2_3, teardown),
      cmocka_unit_test_teardown(test_any_batched_equals_single_clocks,
                                teardown),
      cmocka_unit_test_teardown(test_any_reserved_where_deprecated_18_2_3_1,
                                teardown),
      cmocka_unit_test_teardown(test_topa_pmi_sets_bit55_and_freezes_36_2_7_2,
                                teardown),
      cmocka_unit_test_teardown(test_uncore_ovf_pmi_only_when_enabled_18_8_2,
                                teardown),
      cmocka_unit_test_teardown(test_condchgd_no_pmi_18_2_2_2, teardown),
      cmocka_unit_test_teardown(test_signal_refused_without_the_bit, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

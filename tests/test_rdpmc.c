/* SPDX-License-Identifier: MIT */
/* RDPMC (SDM Vol. 2B "RDPMC"; SDM 18.2.1, 18.2.2; KVM check_rdpmc). */
#define SPMU_TEST_FIXTURE
#include "helpers.h"

#define FIXED (1u << 30)

static uint64_t pmc(uint32_t ecx)
{
  uint64_t v = 0xdeadbeef;
  int rc = spmu_rdpmc(lp, ecx, 0, false, &v);
  if (rc != SPMU_OK)
    fail_msg("RDPMC %#x: %s", ecx, spmu_errname(rc));
  return v;
}

static int pmc_rc(uint32_t ecx)
{
  uint64_t v;
  return spmu_rdpmc(lp, ecx, 0, false, &v);
}

/* KVM check_rdpmc: 0xff0123456789 through IA32_PMCx reads back through RDPMC
 * as bits 31:0 sign-extended from bit 31, masked to the width; through
 * IA32_A_PMCx masked to the width; fixed counters full width. */
static void test_rdpmc_reads_counters_kvm_check_rdpmc(void **state)
{
  const char *name;
  (void)state;
  FOR_EACH_PRESET(name) {
    const spmu_profile *p;
    unsigned i;
    if (!preset_is_arch(name))
      continue; /* NetBurst RDPMC: test_netburst.c */
    use(name);
    p = spmu_core_profile(core);
    for (i = 0; i < p->gp; i++) {
      uint64_t mask = p->gp_width == 64 ? ~0ULL : (1ULL << p->gp_width) - 1;
      assert_int_equal(spmu_wrmsr(lp, MSR_PMC0 + i, 0xff0123456789ULL),
                       SPMU_OK);
      assert_int_equal(pmc(i), 0x23456789ULL);
      assert_int_equal(spmu_wrmsr(lp, MSR_PMC0 + i, 0x89abcdefULL), SPMU_OK);
      assert_int_equal(pmc(i), 0xffffffff89abcdefULL & mask);
      if (p->perf_capabilities & SPMU_PERFCAP_FW_WRITE) {
        assert_int_equal(
            spmu_wrmsr(lp, MSR_A_PMC0 + i, 0xff0123456789ULL & mask), SPMU_OK);
        assert_int_equal(pmc(i), 0xff0123456789ULL & mask);
      }
    }
    for (i = 0; i < SPMU_MAX_FIXED; i++) {
      uint64_t mask = (1ULL << p->fixed_width) - 1;
      if (!(p->fixed_mask >> i & 1)) {
        assert_int_equal(pmc_rc(FIXED | i), SPMU_GP);
        continue;
      }
      assert_int_equal(
          spmu_wrmsr(lp, MSR_FIXED_CTR0 + i, 0xff0123456789ULL & mask),
          SPMU_OK);
      assert_int_equal(pmc(FIXED | i), 0xff0123456789ULL & mask);
    }
    assert_int_equal(pmc_rc(p->gp), SPMU_GP);
  }
}

/* KVM: RDPMC(64) #GPs; so does any index naming no counter. */
static void test_rdpmc_bad_index_gp(void **state)
{
  (void)state;
  use("skylake");
  assert_int_equal(pmc_rc(64), SPMU_GP);
  assert_int_equal(pmc_rc(4), SPMU_GP);
  assert_int_equal(pmc_rc(FIXED | 3), SPMU_GP);
  assert_int_equal(pmc_rc(FIXED | 64), SPMU_GP);
  assert_int_equal(pmc_rc(0x10000), SPMU_GP);
  assert_int_equal(pmc_rc(1u << 29), SPMU_GP); /* no PERF_METRICS here */
  use("version=0");
  assert_int_equal(pmc_rc(0), SPMU_GP);
  use("core-duo");
  assert_int_equal(pmc_rc(1), SPMU_OK);
  assert_int_equal(pmc_rc(FIXED), SPMU_GP);
}

/* Architectural perfmon has no ECX[31] fast-read form: #GP (softpmu's
 * choice, as KVM; kvm-unit-tests accepts #GP for it). */
static void test_rdpmc_fast_read_form_gp(void **state)
{
  (void)state;
  use("skylake");
  assert_int_equal(pmc_rc(0x80000000u), SPMU_GP);
  assert_int_equal(pmc_rc(0x80000000u | FIXED), SPMU_GP);
}

/* SDM Vol. 2B RDPMC: #GP at CPL > 0 unless CR4.PCE = 1; CPL 0 always. */
static void test_rdpmc_cpl_and_cr4_pce(void **state)
{
  uint64_t v;
  (void)state;
  use("skylake");
  assert_int_equal(spmu_rdpmc(lp, 0, 3, false, &v), SPMU_GP);
  assert_int_equal(spmu_rdpmc(lp, 0, 1, false, &v), SPMU_GP);
  assert_int_equal(spmu_rdpmc(lp, 0, 3, true, &v), SPMU_OK);
  assert_int_equal(spmu_rdpmc(lp, 0, 0, false, &v), SPMU_OK);
  assert_int_equal(spmu_rdpmc(lp, 0, 4, true, &v), SPMU_EINVAL);
}

/* Linux: RDPMC with ECX = 1<<29 reads MSR_PERF_METRICS. */
static void test_rdpmc_perf_metrics(void **state)
{
  (void)state;
  use("icelake");
  assert_int_equal(spmu_wrmsr(lp, MSR_PERF_METRICS, 0x1122334455667788ULL),
                   SPMU_OK);
  assert_int_equal(pmc(1u << 29), 0x1122334455667788ULL);
  assert_int_equal(pmc_rc((1u << 29) | 1), SPMU_GP);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_rdpmc_reads_counters_kvm_check_rdpmc,
                                teardown),
      cmocka_unit_test_teardown(test_rdpmc_bad_index_gp, teardown),
      cmocka_unit_test_teardown(test_rdpmc_fast_read_form_gp, teardown),
      cmocka_unit_test_teardown(test_rdpmc_cpl_and_cr4_pce, teardown),
      cmocka_unit_test_teardown(test_rdpmc_perf_metrics, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/* Per-register tests generated from the catalogue, for every preset:
 *  - every MSR reads its power-on value (Vol. 3A 9.1.1; SDM 18.2.2.2 for
 *    GLOBAL_CTRL);
 *  - setting any reserved bit #GPs and leaves the register unchanged;
 *  - read-only registers and read-only fields #GP on a change;
 *  - every writable bit of a read-write register can be set alone and reads
 *    back exactly;
 *  - every address in the PMU's range that the profile lacks #GPs on read
 *    and write (SDM: WRMSR/RDMSR of an unimplemented MSR #GP). */
#include "helpers.h"

static void check_profile(const char *name)
{
  spmu_profile p;
  spmu_core *core;
  spmu_lp *lp;
  uint32_t addrs[256], a;
  size_t n, k, next = 0;

  assert_int_equal(spmu_profile_parse(name, &p, NULL, 0), SPMU_OK);
  core = core_for(name);
  lp = spmu_core_lp(core, 0);
  n = spmu_msr_list(&p, addrs, 256);
  assert_true(n > 0 && n <= 256);

  for (k = 0; k < n; k++) {
    spmu_msr_info info;
    uint64_t before, mask;
    unsigned b;

    assert_int_equal(spmu_msr_info_get(&p, addrs[k], &info), SPMU_OK);
    before = rd(lp, addrs[k]);
    if (info.policy == SPMU_POLICY_W1C || info.policy == SPMU_POLICY_W1S ||
        info.policy == SPMU_POLICY_COMPUTED)
      assert_int_equal(before, 0);
    else if (rd(lp, info.target) != info.reset)
      fail_msg("%s %s: reset %#llx, catalogue says %#llx", name, info.name,
               (unsigned long long)before, (unsigned long long)info.reset);

    /* Reserved bits, one at a time. Counters: bits above the width. */
    mask = info.reserved;
    if (info.policy == SPMU_POLICY_COUNTER && info.width < 64)
      assert_int_equal(mask, ~0ULL << info.width);
    for (b = 0; b < 64; b++) {
      uint64_t t0, t1;
      if (!(mask >> b & 1))
        continue;
      t0 = rd(lp, info.target);
      if (spmu_wrmsr(lp, addrs[k], 1ULL << b) != SPMU_GP)
        fail_msg("%s %s: reserved bit %u did not #GP", name, info.name, b);
      t1 = rd(lp, info.target);
      assert_int_equal(t0, t1);
    }

    switch (info.policy) {
    case SPMU_POLICY_RO:
    case SPMU_POLICY_CONST:
    case SPMU_POLICY_COMPUTED:
      /* Read-only: even writing the current value faults. */
      assert_int_equal(spmu_wrmsr(lp, addrs[k], before), SPMU_GP);
      assert_int_equal(rd(lp, addrs[k]), before);
      break;
    case SPMU_POLICY_RW:
      for (b = 0; b < 64; b++) {
        uint64_t v = before ^ (1ULL << b);
        int rc;
        if (mask >> b & 1)
          continue;
        rc = spmu_wrmsr(lp, addrs[k], v);
        if (info.readonly >> b & 1) {
          assert_int_equal(rc, SPMU_GP);
          assert_int_equal(rd(lp, addrs[k]), before);
          continue;
        }
        /* Linear addresses: bits 47 and up sign-extend (DS_AREA, SDM
         * 17.4.9; LBR and LER _IP MSRs, 17.4.8.1); IA32_LBR_DEPTH takes
         * only the depths of CPUID.1CH (both in test_lbr.c). */
        if ((addrs[k] == MSR_DS_AREA || strstr(info.name, "_IP")) && b >= 47)
          continue;
        if (addrs[k] == 0x14CF)
          continue;
        if (rc != SPMU_OK)
          fail_msg("%s %s: writable bit %u faulted", name, info.name, b);
        assert_int_equal(rd(lp, addrs[k]), v);
        assert_int_equal(spmu_wrmsr(lp, addrs[k], before), SPMU_OK);
      }
      break;
    default:
      break;
    }
  }

  /* Absent addresses in the PMU's range #GP. */
  for (a = 0xC0; a < 0x610; a++) {
    uint64_t v;
    while (next < n && addrs[next] < a) /* below the range (Core 2 LBRs) */
      next++;
    if (next < n && addrs[next] == a) {
      next++;
      continue;
    }
    if (spmu_rdmsr(lp, a, &v) != SPMU_GP || spmu_wrmsr(lp, a, 0) != SPMU_GP)
      fail_msg("%s: absent MSR %#x did not #GP", name, a);
  }
  spmu_core_free(core);
}

static void test_every_register_of_every_preset(void **state)
{
  const char *name;
  (void)state;
  FOR_EACH_PRESET(name)
    check_profile(name);
}

/* Custom corners: v5 with a fixed-counter hole, v0 (no PMU), 8 GP v4. */
static void test_custom_profiles(void **state)
{
  (void)state;
  check_profile("version=5,gp=2,fixed_mask=0x5,fixed_width=48");
  check_profile("version=0");
  check_profile("base=skylake,gp=8,threads=1");
  check_profile("base=icelake,perf_capabilities=0x2000,pebs=0,lbr_depth=0");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_register_of_every_preset),
      cmocka_unit_test(test_custom_profiles),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

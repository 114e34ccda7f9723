/* SPDX-License-Identifier: MIT */
/* Shared helpers for the cmocka tests. Each test names the SDM rule it
 * checks in its function name or the comment above it. */
#ifndef SPMU_TEST_HELPERS_H
#define SPMU_TEST_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <softpmu/softpmu.h>

/* MSR addresses used by the tests (the SDM's numbers, written out so that a
 * wrong catalogue entry fails a test instead of hiding behind a lookup). */
#define MSR_PMC0 0xC1u
#define MSR_EVTSEL0 0x186u
#define MSR_MISC_ENABLE 0x1A0u
#define MSR_DEBUGCTL 0x1D9u
#define MSR_FIXED_CTR0 0x309u
#define MSR_PERF_METRICS 0x329u
#define MSR_PERF_CAPABILITIES 0x345u
#define MSR_FIXED_CTR_CTRL 0x38Du
#define MSR_GLOBAL_STATUS 0x38Eu
#define MSR_GLOBAL_CTRL 0x38Fu
#define MSR_GLOBAL_OVF_CTRL 0x390u
#define MSR_GLOBAL_STATUS_SET 0x391u
#define MSR_GLOBAL_INUSE 0x392u
#define MSR_PEBS_ENABLE 0x3F1u
#define MSR_PEBS_DATA_CFG 0x3F2u
#define MSR_PEBS_LD_LAT 0x3F6u
#define MSR_PEBS_FRONTEND 0x3F7u
#define MSR_A_PMC0 0x4C1u
#define MSR_DS_AREA 0x600u

/* Field bits the tests use, written out from the SDM (Figure 18-1, 18-2,
 * 17-3, 18-10) rather than taken from the catalogue, for the same reason
 * as the MSR numbers above. */
#define EV_USR (UINT64_C(1) << 16)
#define EV_OS (UINT64_C(1) << 17)
#define EV_E (UINT64_C(1) << 18)
#define EV_INT (UINT64_C(1) << 20)
#define EV_ANY (UINT64_C(1) << 21)
#define EV_EN (UINT64_C(1) << 22)
#define EV_INV (UINT64_C(1) << 23)
#define EV_CMASK(n) ((uint64_t)(n) << 24)
#define EV_IN_TX (UINT64_C(1) << 32)
#define EV_ADAPTIVE (UINT64_C(1) << 34)
#define FX_EN_ALL(j) (UINT64_C(3) << (4 * (j)))
#define FX_EN_USR(j) (UINT64_C(2) << (4 * (j)))
#define FX_ANY(j) (UINT64_C(4) << (4 * (j)))
#define FX_PMI(j) (UINT64_C(8) << (4 * (j)))
#define DBG_LBR (UINT64_C(1) << 0)
#define DBG_FREEZE_LBRS (UINT64_C(1) << 11)
#define DBG_FREEZE_PERFMON (UINT64_C(1) << 12)
#define DBG_UNCORE_PMI (UINT64_C(1) << 13)
#define DBG_FREEZE_SMM (UINT64_C(1) << 14)
#define ST_TOPA (UINT64_C(1) << 55)
#define ST_LBR_FRZ (UINT64_C(1) << 58)
#define ST_CTR_FRZ (UINT64_C(1) << 59)
#define ST_ASCI (UINT64_C(1) << 60)
#define ST_UNCORE (UINT64_C(1) << 61)
#define ST_OVF_BUF (UINT64_C(1) << 62)
#define ST_CONDCHGD (UINT64_C(1) << 63)
#define MSR_STATUS_RESET MSR_GLOBAL_OVF_CTRL /* 390H on v4+ */
#define W48 ((UINT64_C(1) << 48) - 1)

/* xorshift64: a reproducible stream for the property tests; each test
 * keeps (and seeds) its own state. */
static inline uint64_t xorshift64(uint64_t *state)
{
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return *state;
}

/* A core for a profile string; fails the test if it cannot be made. */
static inline spmu_core *core_for(const char *spec)
{
  spmu_profile p;
  spmu_core *c = NULL;
  char why[256] = "";
  int rc = spmu_profile_parse(spec, &p, why, sizeof why);
  if (rc != SPMU_OK)
    fail_msg("profile '%s': %s", spec, why);
  assert_int_equal(spmu_core_new(&p, &c), SPMU_OK);
  return c;
}

/* RDMSR that must succeed. */
static inline uint64_t rd(spmu_lp *lp, uint32_t msr)
{
  uint64_t v = 0xdeadbeef;
  int rc = spmu_rdmsr(lp, msr, &v);
  if (rc != SPMU_OK)
    fail_msg("RDMSR %#x: %s", msr, spmu_errname(rc));
  return v;
}

#ifdef SPMU_TEST_FIXTURE
/* One core under test and its logical processor 0; use() replaces them,
 * teardown() frees them after each test. */
static spmu_core *core;
static spmu_lp *lp;

#define WR(msr, v) assert_int_equal(spmu_wrmsr(lp, (msr), (v)), SPMU_OK)
#define HWR(msr, v) assert_int_equal(spmu_host_wrmsr(lp, (msr), (v)), SPMU_OK)

static inline void use(const char *spec)
{
  spmu_core_free(core);
  core = core_for(spec);
  lp = spmu_core_lp(core, 0);
}

static inline int teardown(void **state)
{
  (void)state;
  spmu_core_free(core);
  core = NULL;
  return 0;
}
#endif

/* Every preset, for loops over profiles. */
#define FOR_EACH_PRESET(name)                                                  \
  for (unsigned name##_i = 0;                                                  \
       (name = spmu_profile_preset_name(name##_i)) != NULL; name##_i++)

/* Is preset `name` an architectural-perfmon part (not NetBurst)? Loops
 * that test the architectural PMU skip the others. */
static inline int preset_is_arch(const char *name)
{
  spmu_profile p;
  return spmu_profile_parse(name, &p, NULL, 0) == SPMU_OK &&
         !(p.features & SPMU_FEAT_NETBURST);
}

/* spmu_deadline's answer for a valid call (SPMU_DEADLINE_NEVER: never). */
static inline uint64_t deadline_of(const spmu_lp *of, const spmu_clock *clk)
{
  uint64_t n = 0;
  assert_int_equal(spmu_deadline(of, clk, &n), SPMU_OK);
  return n;
}

#endif

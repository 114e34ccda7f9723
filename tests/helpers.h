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
#define FOR_EACH_PRESET(name)                                                \
  for (unsigned name##_i = 0;                                                \
       (name = spmu_profile_preset_name(name##_i)) != NULL; name##_i++)

#endif

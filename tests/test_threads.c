/* SPDX-License-Identifier: MIT */
/* The threading contract (docs/threading.md), checked under
 * ThreadSanitizer by scripts/check:
 *  - the library has no global mutable state: profiles, the catalogue
 *    queries and separate cores may be used from any number of threads at
 *    once;
 *  - one core (with its logical processors) is used by one thread at a
 *    time; a host that shares a core between threads serialises the calls
 *    itself.
 * Each thread's results are compared with the same work done on one
 * thread beforehand: exact values, whatever the interleaving. */
#define _POSIX_C_SOURCE 200809L
#include "helpers.h"

#include <pthread.h>
#include <stdlib.h>

#define THREADS 8
#define ROUNDS 200

struct result {
  uint64_t pmc0, fixed0, status;
  unsigned pmis;
  size_t blob;
  uint32_t cpuid_eax;
};

static void count_pmi(void *opaque, spmu_lp *l)
{
  (void)l;
  ++*(unsigned *)opaque;
}

/* A driver's session on a core of its own: catalogue lookups, programming,
 * sampling by overflow with PMIs, a snapshot round trip. */
static void session(const char *preset, struct result *r)
{
  spmu_profile p;
  spmu_core *c = NULL, *twin = NULL;
  spmu_lp *lp;
  spmu_event_line lines[2] = {{0xC0, 0x00, 3}, {0x3C, 0x00, 1}};
  spmu_clock clk = {.lines = lines, .nlines = 2, .cpl = 3};
  spmu_host h = {.opaque = &r->pmis, .pmi = count_pmi};
  uint32_t evtsel0 = 0, regs[4];
  unsigned char blob[8192];
  unsigned i;

  memset(r, 0, sizeof *r);
  if (spmu_profile_parse(preset, &p, NULL, 0) != SPMU_OK ||
      spmu_msr_lookup(&p, "IA32_PERFEVTSEL0", &evtsel0) != SPMU_OK ||
      spmu_core_new(&p, &c) != SPMU_OK || spmu_core_new(&p, &twin) != SPMU_OK)
    abort();
  spmu_core_set_host(c, &h);
  lp = spmu_core_lp(c, 0);
  spmu_cpuid(lp, 0xA, 0, regs);
  r->cpuid_eax = regs[0];
  spmu_wrmsr(lp, evtsel0, 0x5300C0); /* INST_RETIRED, INT */
  spmu_wrmsr(lp, MSR_PMC0, (uint64_t)-1000);
  spmu_wrmsr(lp, MSR_FIXED_CTR_CTRL, 0x3);
  spmu_wrmsr(lp, MSR_GLOBAL_CTRL, 0x100000001ULL);
  for (i = 0; i < ROUNDS; i++) {
    uint64_t used = 0, st = 0;
    if (spmu_deliver(lp, &clk, 100, &used) & SPMU_TICK_PMI) {
      spmu_rdmsr(lp, MSR_GLOBAL_STATUS, &st);
      spmu_wrmsr(lp, MSR_GLOBAL_OVF_CTRL, st);
      spmu_wrmsr(lp, MSR_PMC0, (uint64_t)-1000);
    }
  }
  if (spmu_core_save(c, blob, sizeof blob, &r->blob) != SPMU_OK ||
      spmu_core_restore(twin, blob, r->blob) != SPMU_OK)
    abort();
  lp = spmu_core_lp(twin, 0);
  spmu_rdmsr(lp, MSR_PMC0, &r->pmc0);
  spmu_rdmsr(lp, MSR_FIXED_CTR0, &r->fixed0);
  spmu_rdmsr(lp, MSR_GLOBAL_STATUS, &r->status);
  spmu_core_free(c);
  spmu_core_free(twin);
}

static const char *presets[THREADS] = {
    "core2",   "nehalem", "sandybridge",    "haswell",
    "skylake", "icelake", "sapphirerapids", "skylake"};
static struct result expect[THREADS], got[THREADS];

static void *run_session(void *arg)
{
  size_t i = (size_t)(uintptr_t)arg;
  session(presets[i], &got[i]);
  return NULL;
}

/* Separate cores on separate threads at once give exactly the results of
 * one thread doing the same work. */
static void test_separate_cores_in_parallel(void **state)
{
  pthread_t t[THREADS];
  size_t i;
  (void)state;
  for (i = 0; i < THREADS; i++)
    session(presets[i], &expect[i]);
  for (i = 0; i < THREADS; i++)
    assert_int_equal(
        pthread_create(&t[i], NULL, run_session, (void *)(uintptr_t)i), 0);
  for (i = 0; i < THREADS; i++)
    assert_int_equal(pthread_join(t[i], NULL), 0);
  for (i = 0; i < THREADS; i++) {
    assert_int_equal(got[i].pmc0, expect[i].pmc0);
    assert_int_equal(got[i].fixed0, expect[i].fixed0);
    assert_int_equal(got[i].status, expect[i].status);
    assert_int_equal(got[i].pmis, expect[i].pmis);
    assert_int_equal(got[i].blob, expect[i].blob);
    assert_int_equal(got[i].cpuid_eax, expect[i].cpuid_eax);
  }
  /* Period 1000 at 3 instructions a clock: the overflow is at clock 334
   * of each period, which is round 4 of 100 clocks; delivery stops there
   * and the round's other clocks are not delivered. 200 rounds: 50
   * periods of 334 clocks. */
  assert_int_equal(expect[4].pmis, 50);
  assert_int_equal(expect[4].fixed0, 50 * 334 * 3);
}

/* One core shared by two threads that take a lock around every call (the
 * host's job): both threads' events are all counted. */
static spmu_core *shared;
static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;

static void *shared_worker(void *arg)
{
  unsigned i, index = (unsigned)(uintptr_t)arg;
  spmu_event_line line = {0xC0, 0x00, 1};
  spmu_clock clk = {.lines = &line, .nlines = 1, .cpl = 3};
  for (i = 0; i < 1000; i++) {
    pthread_mutex_lock(&shared_lock);
    spmu_deliver(spmu_core_lp(shared, index), &clk, 7, NULL);
    pthread_mutex_unlock(&shared_lock);
  }
  return NULL;
}

static void test_shared_core_with_host_lock(void **state)
{
  pthread_t t[2];
  spmu_lp *l0, *l1;
  uintptr_t i;
  (void)state;
  shared = core_for("skylake"); /* two logical processors */
  l0 = spmu_core_lp(shared, 0);
  l1 = spmu_core_lp(shared, 1);
  /* lp 0 counts both threads' instructions (AnyThread), lp 1 its own. */
  assert_int_equal(spmu_wrmsr(l0, MSR_EVTSEL0, 0x6300C0 | EV_ANY), SPMU_OK);
  assert_int_equal(spmu_wrmsr(l0, MSR_GLOBAL_CTRL, 1), SPMU_OK);
  assert_int_equal(spmu_wrmsr(l1, MSR_EVTSEL0, 0x4300C0), SPMU_OK);
  assert_int_equal(spmu_wrmsr(l1, MSR_GLOBAL_CTRL, 1), SPMU_OK);
  for (i = 0; i < 2; i++)
    assert_int_equal(pthread_create(&t[i], NULL, shared_worker, (void *)i), 0);
  for (i = 0; i < 2; i++)
    assert_int_equal(pthread_join(t[i], NULL), 0);
  assert_int_equal(rd(l0, MSR_PMC0), 2 * 1000 * 7);
  assert_int_equal(rd(l1, MSR_PMC0), 1000 * 7);
  spmu_core_free(shared);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_separate_cores_in_parallel),
      cmocka_unit_test(test_shared_core_with_host_lock),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

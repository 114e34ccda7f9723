/* SPDX-License-Identifier: MIT */
/* Memory: the model allocates only when a core is created (spmu_core_new)
 * and never while it runs (no heap allocation during event delivery), and
 * its per-logical-processor state stays within 1 KiB.
 *
 * The test binary is linked with -Wl,--wrap for malloc, calloc, realloc
 * and free, so every call the library (linked statically) makes goes
 * through the counting wrappers below. */
#include "helpers.h"

#include <stdlib.h>

#include "core/objects.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);

static unsigned long allocs, frees;

void *__wrap_malloc(size_t n)
{
  allocs++;
  return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
  allocs++;
  return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
  allocs++;
  return __real_realloc(p, n);
}

void __wrap_free(void *p)
{
  if (p)
    frees++;
  __real_free(p);
}

static unsigned pmis;

static void on_pmi(void *opaque, spmu_lp *l)
{
  (void)opaque;
  (void)l;
  pmis++;
}

/* Everything a host does to a running core: MSR accesses, RDPMC, CPUID,
 * event delivery (single, batched, with overflow, PMIs and freeze), the
 * deadline, signals, save/restore and reset. None of it allocates. */
static void test_no_allocation_while_running(void **state)
{
  const char *name;
  (void)state;
  FOR_EACH_PRESET(name) {
    spmu_core *c = core_for(name);
    spmu_host h = {.pmi = on_pmi};
    spmu_lp *lp = spmu_core_lp(c, 0);
    spmu_event_line lines[3] = {{0xC0, 0, 3}, {0x3C, 0, 1}, {0xC4, 0, 1}};
    spmu_clock clk = {.lines = lines, .nlines = 3, .cpl = 3, .flags = 0};
    unsigned char blob[16384];
    size_t len = 0;
    uint64_t v, used;
    uint32_t regs[4];
    unsigned long before;
    unsigned i;

    assert_int_equal(spmu_core_set_host(c, &h), SPMU_OK);
    before = allocs;
    spmu_wrmsr(lp, MSR_EVTSEL0, 0x5300C0 | 1u << 20); /* INST, INT */
    spmu_wrmsr(lp, MSR_PMC0, (uint64_t)-1000);
    spmu_wrmsr(lp, MSR_FIXED_CTR_CTRL, 0xBBB);
    spmu_wrmsr(lp, MSR_GLOBAL_CTRL, 0x700000001ULL);
    spmu_wrmsr(lp, MSR_DEBUGCTL, 1u << 12);
    for (i = 0; i < 1000; i++)
      assert_true(spmu_deliver(lp, &clk, 1, &used) >= 0);
    assert_true(spmu_deliver(lp, &clk, 1000000000ULL, &used) >= 0);
    (void)deadline_of(lp, &clk);
    (void)spmu_rdmsr(lp, MSR_GLOBAL_STATUS, &v);
    (void)spmu_rdmsr(lp, MSR_GLOBAL_INUSE, &v);
    (void)spmu_rdpmc(lp, 0, 0, false, &v);
    (void)spmu_cpuid(lp, 0xA, 0, regs);
    (void)spmu_signal(lp, SPMU_SIGNAL_COND_CHGD);
    assert_int_equal(spmu_core_save(c, blob, sizeof blob, &len), SPMU_OK);
    assert_int_equal(spmu_core_restore(c, blob, len), SPMU_OK);
    assert_int_equal(spmu_core_reset(c), SPMU_OK);
    assert_int_equal(spmu_deliver(lp, &clk, 5, &used), 0);
    if (allocs != before)
      fail_msg("%s: %lu allocations while running", name, allocs - before);
    spmu_core_free(c);
  }
}

/* spmu_core_new allocates exactly once and spmu_core_free releases it. */
static void test_one_allocation_per_core(void **state)
{
  spmu_profile p;
  spmu_core *c = NULL;
  unsigned long a0 = allocs, f0 = frees;
  (void)state;
  assert_int_equal(spmu_profile_parse("skylake", &p, NULL, 0), SPMU_OK);
  assert_int_equal(spmu_core_new(&p, &c), SPMU_OK);
  assert_int_equal(allocs - a0, 1);
  spmu_core_free(c);
  assert_int_equal(frees - f0, 1);
}

/* Per-logical-processor state: struct spmu_lp (registers, edge state, the
 * compiled counter program). Restore staging is one register file per
 * core, whatever its logical processors (snapshot.c checks then replays). */
static void test_per_lp_state_within_1kib(void **state)
{
  (void)state;
  print_message("per-lp state: %zu bytes (struct spmu_lp); restore staging "
                "%zu bytes per core\n",
                sizeof(struct spmu_lp),
                sizeof(struct spmu_regs) + sizeof(struct spmu_nb_regs));
  assert_true(sizeof(struct spmu_lp) <= 1024);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_no_allocation_while_running),
      cmocka_unit_test(test_one_allocation_per_core),
      cmocka_unit_test(test_per_lp_state_within_1kib),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

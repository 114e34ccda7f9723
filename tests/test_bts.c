/* SPDX-License-Identifier: MIT */
/* The branch trace store (SDM 17.4.8-17.4.9, Table "CPL-qualified branch
 * trace store encodings"; Figures 17-8, 17-9): records of taken branches in the
 * DS area's BTS buffer, circular or with an interrupt at the threshold. */
#define SPMU_TEST_FIXTURE
#include "guest_mem.h"
#include "helpers.h"

#include <stdlib.h>

#define DBG_TR (UINT64_C(1) << 6)
#define DBG_BTS (UINT64_C(1) << 7)
#define DBG_BTINT (UINT64_C(1) << 8)
#define DBG_OFF_OS (UINT64_C(1) << 9)
#define DBG_OFF_USR (UINT64_C(1) << 10)
#define GM_BTS (GM_BASE + 0x3000)
#define REC 24u

static guest_mem *gm;

static void setup(const char *spec)
{
  use(spec);
  free(gm);
  gm = calloc(1, sizeof *gm);
  assert_non_null(gm);
  gm_attach(gm, core);
  assert_int_equal(spmu_wrmsr(lp, MSR_DS_AREA, GM_DS), SPMU_OK);
}

static int bts_teardown(void **state)
{
  free(gm);
  gm = NULL;
  return teardown(state);
}

/* 64-bit BTS fields (SDM 17.4.9.1 Figure 17-8): base 00H, index 08H, absolute
 * maximum 10H, interrupt threshold 18H. */
static void bts64(unsigned records, uint64_t threshold)
{
  gm_put(gm, GM_DS + 0x00, GM_BTS, 8);
  gm_put(gm, GM_DS + 0x08, GM_BTS, 8);
  gm_put(gm, GM_DS + 0x10, GM_BTS + (uint64_t)records * REC, 8);
  gm_put(gm, GM_DS + 0x18, threshold, 8);
}

static uint64_t bts_index(void)
{
  return gm_get(gm, GM_DS + 0x08, 8);
}

static void debugctl(uint64_t v)
{
  assert_int_equal(spmu_wrmsr(lp, MSR_DEBUGCTL, v), SPMU_OK);
}

/* Deliver one clock with a taken branch from -> to at cpl. */
static int branch(uint64_t from, uint64_t to, uint8_t cpl, uint8_t predicted)
{
  spmu_branch br = {.from = from, .to = to, .predicted = predicted};
  spmu_clock clk = {.cpl = cpl, .branch = &br};
  int rc = spmu_deliver(lp, &clk, 1, NULL);
  assert_true(rc >= 0);
  return rc;
}

/* TR + BTS, BTINT = 0, threshold past the maximum: a circular buffer, no
 * interrupt. Delivery stops after each stored record (decisions.md #35). */
static void test_circular_buffer_17_4_9(void **state)
{
  spmu_branch br = {.from = 0x401000, .to = 0x402000, .predicted = 1};
  spmu_clock clk = {.cpl = 3, .branch = &br};
  uint64_t used = 0;
  (void)state;
  setup("skylake");
  bts64(3, GM_BTS + 100 * REC);
  debugctl(DBG_TR | DBG_BTS);
  assert_int_equal(spmu_deliver(lp, &clk, 2, &used), SPMU_TICK_BTS);
  assert_int_equal(used, 1);
  assert_int_equal(spmu_deliver(lp, &clk, 1, &used), SPMU_TICK_BTS);
  assert_int_equal(bts_index(), GM_BTS + 2 * REC);
  assert_int_equal(gm_get(gm, GM_BTS + 0, 8), 0x401000);
  assert_int_equal(gm_get(gm, GM_BTS + 8, 8), 0x402000);
  assert_int_equal(gm_get(gm, GM_BTS + 16, 8), 0x10); /* predicted */
  branch(0x500000, 0x500100, 3, 0);
  assert_int_equal(bts_index(), GM_BTS + 3 * REC);
  /* Full: the next record wraps to the base. */
  assert_int_equal(branch(0x600000, 0x600100, 3, 0), SPMU_TICK_BTS);
  assert_int_equal(bts_index(), GM_BTS + REC);
  assert_int_equal(gm_get(gm, GM_BTS, 8), 0x600000);
  assert_int_equal(gm_get(gm, GM_BTS + 16, 8), 0);
  assert_int_equal(gm->pmis, 0);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 0);
  /* Never past the maximum. */
  assert_int_equal(gm_get(gm, GM_BTS + 3 * REC, 8), 0);
}

/* BTINT: an interrupt (PMI, OvfBuf) when the index reaches the threshold;
 * the buffer is not circular: a full buffer stores nothing more. */
static void test_btint_threshold_pmi_17_4_9(void **state)
{
  spmu_branch br = {.from = 0x401000, .to = 0x402000, .predicted = 0};
  spmu_clock clk = {.cpl = 0, .branch = &br};
  uint64_t used = 0;
  (void)state;
  setup("skylake");
  bts64(3, GM_BTS + 2 * REC);
  debugctl(DBG_TR | DBG_BTS | DBG_BTINT);
  assert_int_equal(spmu_deliver(lp, &clk, 10, &used), SPMU_TICK_BTS);
  assert_int_equal(used, 1);
  assert_int_equal(spmu_deliver(lp, &clk, 10, &used),
                   SPMU_TICK_BTS | SPMU_TICK_PMI);
  assert_int_equal(used, 1);
  assert_int_equal(gm->pmis, 1);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), ST_OVF_BUF);
  assert_int_equal(branch(1, 2, 0, 0), SPMU_TICK_BTS | SPMU_TICK_PMI);
  assert_int_equal(bts_index(), GM_BTS + 3 * REC);
  assert_int_equal(branch(3, 4, 0, 0), 0); /* full: nothing stored */
  assert_int_equal(bts_index(), GM_BTS + 3 * REC);
  assert_int_equal(gm_get(gm, GM_BTS + 3 * REC, 8), 0);
}

/* SDM note: clearing BTINT alone does not stop the threshold interrupt;
 * a threshold within the buffer still interrupts. */
static void test_threshold_interrupts_without_btint(void **state)
{
  (void)state;
  setup("skylake");
  bts64(4, GM_BTS + REC);
  debugctl(DBG_TR | DBG_BTS);
  assert_int_equal(branch(1, 2, 3, 0), SPMU_TICK_BTS | SPMU_TICK_PMI);
  assert_int_equal(gm->pmis, 1);
}

/* The CPL-qualified encodings: TR=0 or BTS=0 store nothing; BTS_OFF_OS
 * skips CPL 0, BTS_OFF_USR skips CPL > 0, both skip everything. */
static void test_cpl_qualified_encodings(void **state)
{
  static const struct {
    uint64_t dbg;
    unsigned stored_cpl0, stored_cpl3;
  } t[] = {
      {0, 0, 0},
      {DBG_TR, 0, 0},
      {DBG_BTS, 0, 0},
      {DBG_TR | DBG_BTS, 1, 1},
      {DBG_TR | DBG_BTS | DBG_OFF_OS, 0, 1},
      {DBG_TR | DBG_BTS | DBG_OFF_USR, 1, 0},
      {DBG_TR | DBG_BTS | DBG_OFF_OS | DBG_OFF_USR, 0, 0},
  };
  unsigned i;
  (void)state;
  for (i = 0; i < sizeof t / sizeof t[0]; i++) {
    setup("skylake");
    bts64(8, GM_BTS + 100 * REC);
    debugctl(t[i].dbg);
    branch(1, 2, 0, 0);
    assert_int_equal(bts_index(), GM_BTS + t[i].stored_cpl0 * REC);
    branch(3, 4, 3, 0);
    assert_int_equal(bts_index(),
                     GM_BTS + (t[i].stored_cpl0 + t[i].stored_cpl3) * REC);
  }
}

/* The 32-bit DS layout: fields 00H-0CH, 12-byte records. */
static void test_narrow_bts_layout(void **state)
{
  (void)state;
  setup("base=core2,dtes64=0");
  gm_put(gm, GM_DS + 0x0, GM_BTS, 4);
  gm_put(gm, GM_DS + 0x4, GM_BTS, 4);
  gm_put(gm, GM_DS + 0x8, GM_BTS + 120, 4);
  gm_put(gm, GM_DS + 0xC, GM_BTS + 1200, 4);
  debugctl(DBG_TR | DBG_BTS);
  assert_int_equal(branch(0x8048000, 0x8049000, 3, 1), SPMU_TICK_BTS);
  assert_int_equal(gm_get(gm, GM_DS + 0x4, 4), GM_BTS + 12);
  assert_int_equal(gm_get(gm, GM_BTS, 4), 0x8048000);
  assert_int_equal(gm_get(gm, GM_BTS + 4, 4), 0x8049000);
  assert_int_equal(gm_get(gm, GM_BTS + 8, 4), 0x10);
}

/* A failing write drops the record, leaves the index, tells the host and
 * stops the batch at that clock. */
static void test_failing_write_stops_batch(void **state)
{
  spmu_branch br = {.from = 1, .to = 2, .predicted = 0};
  spmu_clock clk = {.cpl = 3, .branch = &br};
  uint64_t used = 0;
  (void)state;
  setup("skylake");
  bts64(8, GM_BTS + 100 * REC);
  debugctl(DBG_TR | DBG_BTS);
  gm->fail_lo = GM_BTS;
  gm->fail_hi = GM_BTS + 8 * REC;
  gm->fail_writes = true;
  assert_int_equal(spmu_deliver(lp, &clk, 5, &used), SPMU_TICK_MEM_FAULT);
  assert_int_equal(used, 1);
  assert_int_equal(bts_index(), GM_BTS);
  assert_int_equal(gm->nlog, 0);
}

/* The deadline is 1 while a clock stores a branch record; delivery stops
 * after each record, so a huge batch costs one record per call; the
 * counters count those clocks. */
static void test_deadline_and_counting_with_bts(void **state)
{
  spmu_branch br = {.from = 1, .to = 2, .predicted = 0};
  spmu_event_line line = {0xC4, 0x00, 1}; /* branches retired */
  spmu_clock clk = {.lines = &line, .nlines = 1, .cpl = 3, .branch = &br};
  uint64_t used = 0;
  (void)state;
  setup("skylake");
  bts64(100, GM_BTS + 1000 * REC);
  assert_int_equal(spmu_wrmsr(lp, MSR_EVTSEL0, 0x4300C4), SPMU_OK);
  assert_int_equal(spmu_wrmsr(lp, MSR_GLOBAL_CTRL, 1), SPMU_OK);
  assert_int_equal(deadline_of(lp, &clk), UINT64_MAX);
  debugctl(DBG_TR | DBG_BTS);
  assert_int_equal(deadline_of(lp, &clk), 1);
  assert_int_equal(spmu_deliver(lp, &clk, UINT64_MAX, &used), SPMU_TICK_BTS);
  assert_int_equal(used, 1);
  for (unsigned i = 1; i < 50; i++)
    assert_int_equal(spmu_deliver(lp, &clk, UINT64_MAX, &used), SPMU_TICK_BTS);
  assert_int_equal(bts_index(), GM_BTS + 50 * REC);
  assert_int_equal(rd(lp, MSR_PMC0), 50);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_circular_buffer_17_4_9, bts_teardown),
      cmocka_unit_test_teardown(test_btint_threshold_pmi_17_4_9, bts_teardown),
      cmocka_unit_test_teardown(test_threshold_interrupts_without_btint,
                                bts_teardown),
      cmocka_unit_test_teardown(test_cpl_qualified_encodings, bts_teardown),
      cmocka_unit_test_teardown(test_narrow_bts_layout, bts_teardown),
      cmocka_unit_test_teardown(test_failing_write_stops_batch, bts_teardown),
      cmocka_unit_test_teardown(test_deadline_and_counting_with_bts,
                                bts_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/* What the model reports (events.h, spmu_host.event): one test per event
 * kind with the SDM rule it reports, both PMU families, AnyThread
 * attribution, the batch stop at every overflow, the order within a clock,
 * and the path without a callback. Every field asserted is exact. */
#define SPMU_TEST_FIXTURE
#include "guest_mem.h"
#include "helpers.h"

#include <stdlib.h>

#define INST_SEL (UINT64_C(0xC0) | EV_USR | EV_OS | EV_EN)
#define MAXEV 64

/* NetBurst (SDM 18.15): counter 0 fed by BSU_ESCR0 (CCCR select 7). */
#define P4_CTR(n) (0x300u + (n))
#define P4_CCCR(n) (0x360u + (n))
#define BSU_ESCR0 0x3A0u
#define CRU_ESCR2 0x3CCu
#define MSR_P4_PEBS_ENABLE 0x3F1u
#define MSR_MATRIX_VERT 0x3F2u
#define CC_EN (UINT64_C(1) << 12)
#define CC_SEL(s) ((uint64_t)(s) << 13)
#define CC_ANY (UINT64_C(3) << 16)
#define CC_PMI0 (UINT64_C(1) << 26)
#define ES_EVSEL(e) ((uint64_t)(e) << 25)
#define ES_MASK(m) ((uint64_t)(m) << 9)
#define ES_T0 (UINT64_C(3) << 2)
#define PE_UOP_TAG (UINT64_C(1) << 24)
#define PE_MY_THR (UINT64_C(1) << 25)
#define W40 ((UINT64_C(1) << 40) - 1)

/* BTS (SDM 17.4.1 Figure 17-3): TR, BTS, BTINT. */
#define DBG_TR (UINT64_C(1) << 6)
#define DBG_BTS (UINT64_C(1) << 7)
#define DBG_BTINT (UINT64_C(1) << 8)
#define GM_BTS (GM_BASE + 0x3000)

static spmu_event evs[MAXEV];
static unsigned nev;
static guest_mem *gm;

static void on_event(void *opaque, const spmu_event *ev)
{
  (void)opaque;
  if (nev < MAXEV)
    evs[nev] = *ev;
  nev++;
}

/* The logical processors of the pmi() calls, in order. */
static unsigned pmi_order[8], npmi_order;

static void on_pmi(void *opaque, spmu_lp *l)
{
  if (npmi_order < 8)
    pmi_order[npmi_order++] = (unsigned)spmu_lp_index(l);
  ((guest_mem *)opaque)->pmis++;
}

/* A core for spec with guest memory and the event callback. */
static void setup(const char *spec)
{
  spmu_host h = {.pmi = on_pmi,
                 .read_mem = gm_read,
                 .write_mem = gm_write,
                 .machine_state = gm_state,
                 .event = on_event};
  use(spec);
  free(gm);
  gm = calloc(1, sizeof *gm);
  assert_non_null(gm);
  h.opaque = gm;
  assert_int_equal(spmu_core_set_host(core, &h), SPMU_OK);
  nev = 0;
  npmi_order = 0;
}

static int ev_teardown(void **state)
{
  free(gm);
  gm = NULL;
  return teardown(state);
}

static const spmu_event *ev_at(unsigned i, unsigned kind)
{
  assert_true(i < nev);
  assert_int_equal(evs[i].kind, kind);
  return &evs[i];
}

static void assert_ctr(unsigned i, unsigned kind, spmu_lp *of, uint64_t clock,
                       unsigned counter, uint64_t old, uint64_t now)
{
  const spmu_event *e = ev_at(i, kind);
  assert_ptr_equal(e->lp, of);
  assert_int_equal(e->clock, clock);
  assert_int_equal(e->u.ctr.counter, counter);
  assert_int_equal(e->u.ctr.old, old);
  assert_int_equal(e->u.ctr.now, now);
  /* One wrap for an ordinary overflow; RELOAD has none. */
  assert_int_equal(e->u.ctr.wraps, kind == SPMU_EV_OVERFLOW);
}

static void assert_freeze(unsigned i, unsigned kind, uint32_t reg,
                          unsigned counters, uint64_t old, uint64_t now)
{
  const spmu_event *e = ev_at(i, kind);
  assert_ptr_equal(e->lp, lp);
  assert_int_equal(e->u.freeze.reg, reg);
  assert_int_equal(e->u.freeze.counters, counters);
  assert_int_equal(e->u.freeze.old, old);
  assert_int_equal(e->u.freeze.now, now);
}

static void assert_pmi(unsigned i, spmu_lp *of, uint64_t clock, uint64_t status)
{
  const spmu_event *e = ev_at(i, SPMU_EV_PMI);
  assert_ptr_equal(e->lp, of);
  assert_int_equal(e->clock, clock);
  assert_int_equal(e->u.pmi.status, status);
}

/* One line of n instructions retired at CPL 3. */
static int insts_on(spmu_lp *l, uint32_t n, uint64_t clocks, uint64_t *used)
{
  spmu_event_line line = {0xC0, 0x00, n};
  spmu_clock clk = {.lines = &line, .nlines = 1, .cpl = 3};
  return spmu_deliver(l, &clk, clocks, used);
}

/* ---- overflow and the batch stop ----------------------------------------- */

/* SDM 18.2.2.2: a counter overflows when it wraps past its width. With an
 * event callback each overflow is reported at its clock (GLOBAL_STATUS
 * numbering: PMC0 = 0, FIXED_CTR0 = 32) and the batch stops right after
 * it with SPMU_TICK_OVERFLOW, though neither counter requests a PMI. */
static void test_overflow_stops_batch_at_its_clock_18_2_2_2(void **state)
{
  uint64_t used = 0;
  (void)state;
  setup("skylake");
  WR(MSR_EVTSEL0, INST_SEL);
  WR(MSR_FIXED_CTR_CTRL, FX_EN_ALL(0));
  WR(MSR_GLOBAL_CTRL, 1 | UINT64_C(1) << 32);
  HWR(MSR_PMC0, W48 - 4);
  HWR(MSR_FIXED_CTR0, W48 - 7);
  assert_int_equal(insts_on(lp, 3, 100, &used), SPMU_TICK_OVERFLOW);
  assert_int_equal(used, 2);
  assert_int_equal(nev, 1);
  assert_ctr(0, SPMU_EV_OVERFLOW, lp, 2, 0, W48 - 1, 1);
  assert_int_equal(insts_on(lp, 3, 98, &used), SPMU_TICK_OVERFLOW);
  assert_int_equal(used, 1);
  assert_int_equal(nev, 2);
  assert_ctr(1, SPMU_EV_OVERFLOW, lp, 1, 32, W48 - 1, 1);
  assert_int_equal(insts_on(lp, 3, 97, &used), 0);
  assert_int_equal(used, 97);
  assert_int_equal(nev, 2);
  assert_int_equal(rd(lp, MSR_PMC0), 1 + 3 * 98);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 1 | UINT64_C(1) << 32);
}

/* SDM 18.2.3: an AnyThread counter counts the other thread's events; its
 * overflow and PMI are its own logical processor's, and so are the
 * events reported for them. */
static void test_anythread_events_name_the_owner_18_2_3(void **state)
{
  spmu_lp *t1;
  uint64_t used = 0;
  (void)state;
  setup("skylake");
  t1 = spmu_core_lp(core, 1);
  assert_int_equal(spmu_wrmsr(t1, MSR_EVTSEL0, INST_SEL | EV_ANY | EV_INT),
                   SPMU_OK);
  assert_int_equal(spmu_wrmsr(t1, MSR_GLOBAL_CTRL, 1), SPMU_OK);
  assert_int_equal(spmu_host_wrmsr(t1, MSR_PMC0, W48 - 1), SPMU_OK);
  assert_int_equal(insts_on(lp, 1, 10, &used),
                   SPMU_TICK_OVERFLOW | SPMU_TICK_PMI);
  assert_int_equal(used, 2);
  assert_int_equal(nev, 2);
  assert_ctr(0, SPMU_EV_OVERFLOW, t1, 2, 0, W48, 0);
  assert_pmi(1, t1, 2, 1);
  assert_int_equal(gm->pmis, 1);
}

/* ---- PMI and freeze ------------------------------------------------------ */

/* SDM 18.2.4.1 (v4+): with Freeze_PerfMon_On_PMI and Freeze_LBRs_On_PMI
 * the PMI request sets CTR_Frz and LBR_Frz. Order: OVERFLOW, FREEZE
 * (counters, then LBRs), PMI with GLOBAL_STATUS after. Clearing CTR_Frz
 * through STATUS_RESET ends the counter freeze (UNFREEZE, clock 0). */
static void test_pmi_and_streamlined_freeze_18_2_4_1(void **state)
{
  uint64_t used = 0, st = 1 | ST_CTR_FRZ | ST_LBR_FRZ;
  (void)state;
  setup("skylake");
  WR(MSR_EVTSEL0, INST_SEL | EV_INT);
  WR(MSR_GLOBAL_CTRL, 1);
  WR(MSR_DEBUGCTL, DBG_FREEZE_PERFMON | DBG_FREEZE_LBRS);
  HWR(MSR_PMC0, W48 - 1);
  assert_int_equal(insts_on(lp, 1, 10, &used),
                   SPMU_TICK_OVERFLOW | SPMU_TICK_PMI);
  assert_int_equal(used, 2);
  assert_int_equal(nev, 4);
  assert_ctr(0, SPMU_EV_OVERFLOW, lp, 2, 0, W48, 0);
  assert_freeze(1, SPMU_EV_FREEZE, MSR_GLOBAL_STATUS, 1, 1, 1 | ST_CTR_FRZ);
  assert_freeze(2, SPMU_EV_FREEZE, MSR_GLOBAL_STATUS, 0, 1 | ST_CTR_FRZ, st);
  assert_int_equal(evs[2].clock, 2);
  assert_pmi(3, lp, 2, st);
  /* A second freeze request while frozen reports no FREEZE. */
  assert_int_equal(spmu_signal(lp, SPMU_SIGNAL_TOPA_PMI), SPMU_TICK_PMI);
  assert_int_equal(nev, 6);
  assert_int_equal(evs[4].kind, SPMU_EV_SIGNAL);
  assert_pmi(5, lp, 0, st | ST_TOPA);
  WR(MSR_STATUS_RESET, ST_CTR_FRZ | 1);
  assert_int_equal(nev, 7);
  assert_freeze(6, SPMU_EV_UNFREEZE, MSR_GLOBAL_STATUS, 1, st | ST_TOPA,
                ST_LBR_FRZ | ST_TOPA);
  assert_int_equal(evs[6].clock, 0);
  /* Clearing the remaining bits ends nothing more. */
  WR(MSR_STATUS_RESET, ST_LBR_FRZ | ST_TOPA);
  assert_int_equal(nev, 7);
}

/* SDM 18.2.4.1 (v2-v3, legacy): the PMI request clears GLOBAL_CTRL and
 * DEBUGCTL.LBR; the counter freeze lasts until software writes
 * GLOBAL_CTRL (UNFREEZE: old 0, now the value written), once. INIT leaves
 * the freeze (SDM Vol. 3A 9.1: MSRs unchanged); RESET ends it silently. */
static void test_legacy_freeze_and_unfreeze_18_2_4_1(void **state)
{
  uint64_t used = 0;
  (void)state;
  setup("nehalem");
  WR(MSR_EVTSEL0, INST_SEL | EV_INT);
  WR(MSR_GLOBAL_CTRL, 3);
  WR(MSR_DEBUGCTL, DBG_FREEZE_PERFMON | DBG_FREEZE_LBRS | DBG_LBR);
  HWR(MSR_PMC0, W48);
  assert_int_equal(insts_on(lp, 1, 10, &used),
                   SPMU_TICK_OVERFLOW | SPMU_TICK_PMI);
  assert_int_equal(used, 1);
  assert_int_equal(nev, 4);
  assert_ctr(0, SPMU_EV_OVERFLOW, lp, 1, 0, W48, 0);
  assert_freeze(1, SPMU_EV_FREEZE, MSR_GLOBAL_CTRL, 1, 3, 0);
  assert_freeze(2, SPMU_EV_FREEZE, MSR_DEBUGCTL, 0,
                DBG_FREEZE_PERFMON | DBG_FREEZE_LBRS | DBG_LBR,
                DBG_FREEZE_PERFMON | DBG_FREEZE_LBRS);
  assert_pmi(3, lp, 1, 1);
  assert_int_equal(spmu_lp_init_signal(lp), SPMU_OK);
  WR(MSR_GLOBAL_CTRL, 1);
  assert_int_equal(nev, 5);
  assert_freeze(4, SPMU_EV_UNFREEZE, MSR_GLOBAL_CTRL, 1, 0, 1);
  WR(MSR_GLOBAL_CTRL, 3);
  assert_int_equal(nev, 5);
  /* Frozen again, then RESET: the next GLOBAL_CTRL write ends nothing. */
  HWR(MSR_PMC0, W48);
  assert_int_equal(insts_on(lp, 1, 1, &used),
                   SPMU_TICK_OVERFLOW | SPMU_TICK_PMI);
  assert_int_equal(nev, 8); /* OVERFLOW, FREEZE (counters), PMI */
  assert_int_equal(spmu_core_reset(core), SPMU_OK);
  WR(MSR_GLOBAL_CTRL, 1);
  assert_int_equal(nev, 8);
}

/* SDM 18.2.4.1 (legacy): a PMI with Freeze_PerfMon_On_PMI clears
 * GLOBAL_CTRL even when software had already cleared it: the freeze
 * starts (FREEZE, old = now = 0) and lasts until software writes
 * GLOBAL_CTRL (UNFREEZE), as after any legacy freeze (decisions.md #66).
 * The PMI here is an uncore overflow's (SDM 18.8.2, ENABLE_UNCORE_PMI). */
static void test_legacy_freeze_of_a_cleared_ctrl_18_2_4_1(void **state)
{
  (void)state;
  setup("nehalem");
  WR(MSR_GLOBAL_CTRL, 0);
  WR(MSR_DEBUGCTL, DBG_FREEZE_PERFMON | DBG_UNCORE_PMI);
  assert_int_equal(spmu_signal(lp, SPMU_SIGNAL_UNCORE_OVF), SPMU_TICK_PMI);
  assert_int_equal(nev, 3);
  assert_int_equal(ev_at(0, SPMU_EV_SIGNAL)->u.signal.bit, ST_UNCORE);
  assert_freeze(1, SPMU_EV_FREEZE, MSR_GLOBAL_CTRL, 1, 0, 0);
  assert_pmi(2, lp, 0, ST_UNCORE);
  WR(MSR_GLOBAL_CTRL, 1);
  assert_int_equal(nev, 4);
  assert_freeze(3, SPMU_EV_UNFREEZE, MSR_GLOBAL_CTRL, 1, 0, 1);
}

/* SDM 36.2.7.2 / 18.2.2.2: spmu_signal sets its GLOBAL_STATUS bit
 * (SIGNAL: sig, the bit's mask, clock 0); CondChgd requests no PMI. */
static void test_signal_event_18_2_2_2(void **state)
{
  (void)state;
  setup("skylake");
  assert_int_equal(spmu_signal(lp, SPMU_SIGNAL_COND_CHGD), 0);
  assert_int_equal(nev, 1);
  assert_ptr_equal(ev_at(0, SPMU_EV_SIGNAL)->lp, lp);
  assert_int_equal(evs[0].clock, 0);
  assert_int_equal(evs[0].u.signal.sig, SPMU_SIGNAL_COND_CHGD);
  assert_int_equal(evs[0].u.signal.bit, ST_CONDCHGD);
  assert_int_equal(spmu_signal(lp, SPMU_SIGNAL_TOPA_PMI), SPMU_TICK_PMI);
  assert_int_equal(nev, 3);
  assert_int_equal(ev_at(1, SPMU_EV_SIGNAL)->u.signal.bit, ST_TOPA);
  assert_pmi(2, lp, 0, ST_CONDCHGD | ST_TOPA);
}

/* ---- PEBS ---------------------------------------------------------------- */

/* PEBS buffer at GM_PEBS of `bytes`, threshold after `thresh`, PMC0's
 * reset value `reset`; PMC0 counts instructions with PEBS from preset. */
static void pebs_pmc0(uint64_t bytes, uint64_t thresh, uint64_t reset,
                      uint64_t preset)
{
  gm_ds64(gm, GM_PEBS, GM_PEBS + bytes, GM_PEBS + thresh);
  gm_put(gm, GM_DS + 0x40, reset, 8);
  WR(MSR_DS_AREA, GM_DS);
  WR(MSR_EVTSEL0, INST_SEL);
  HWR(MSR_PMC0, preset);
  WR(MSR_PEBS_ENABLE, 1);
  WR(MSR_GLOBAL_CTRL, 1);
}

static void assert_rec(unsigned i, unsigned kind, uint64_t addr, uint32_t size,
                       uint64_t counters, uint64_t index, uint64_t abs_max,
                       unsigned why)
{
  const spmu_event *e = ev_at(i, kind);
  assert_int_equal(e->u.rec.addr, addr);
  assert_int_equal(e->u.rec.size, size);
  assert_int_equal(e->u.rec.counters, counters);
  assert_int_equal(e->u.rec.index, index);
  assert_int_equal(e->u.rec.abs_max, abs_max);
  assert_int_equal(e->u.rec.why, why);
}

/* SDM 18.4.4, 17.4.9: the assist at the first event after the overflow
 * writes the record (PEBS: address, size, counters, index after, absolute
 * maximum), reloads PMC0 from its reset slot (RELOAD: the count the
 * clock left, the reset value), and at the interrupt threshold sets
 * OvfBuf with a PMI (THRESHOLD pebs = 1, then PMI). */
static void test_pebs_record_reload_threshold_18_4_4(void **state)
{
  uint64_t used = 0;
  (void)state;
  setup("skylake");
  pebs_pmc0(4096, 200, W48 - 99, W48 - 1);
  assert_int_equal(insts_on(lp, 1, 1000, &used), SPMU_TICK_OVERFLOW);
  assert_int_equal(used, 2);
  assert_ctr(0, SPMU_EV_OVERFLOW, lp, 2, 0, W48, 0);
  nev = 0;
  assert_int_equal(insts_on(lp, 1, 1000, &used),
                   SPMU_TICK_PEBS | SPMU_TICK_PMI);
  assert_int_equal(used, 1);
  assert_int_equal(nev, 4);
  assert_rec(0, SPMU_EV_PEBS, GM_PEBS, 200, 1, GM_PEBS + 200, GM_PEBS + 4096,
             0);
  assert_int_equal(evs[0].clock, 1);
  assert_ctr(1, SPMU_EV_RELOAD, lp, 1, 0, 1, W48 - 99);
  assert_int_equal(ev_at(2, SPMU_EV_THRESHOLD)->u.threshold.pebs, 1);
  assert_pmi(3, lp, 1, ST_OVF_BUF);
}

/* SDM 17.4.9: a record that does not fit below the absolute maximum is
 * not written (PEBS_DROP, SPMU_DROP_BOUNDS, index unchanged); a failing
 * write drops it too (SPMU_DROP_MEM_FAULT with the failed access). */
static void test_pebs_drops_bounds_and_fault_17_4_9(void **state)
{
  const spmu_event *e;
  uint64_t used = 0;
  (void)state;
  setup("skylake");
  pebs_pmc0(100, 50, 0, W48);
  assert_int_equal(insts_on(lp, 1, 1, &used), SPMU_TICK_OVERFLOW);
  nev = 0;
  assert_int_equal(insts_on(lp, 1, 1, &used), SPMU_TICK_PEBS_LOST);
  assert_int_equal(nev, 1);
  assert_rec(0, SPMU_EV_PEBS_DROP, GM_PEBS, 0, 1, GM_PEBS, GM_PEBS + 100,
             SPMU_DROP_BOUNDS);
  pebs_pmc0(4096, 4096, 0, W48);
  gm->fail_lo = GM_PEBS;
  gm->fail_hi = GM_PEBS + 1;
  gm->fail_writes = true;
  assert_int_equal(insts_on(lp, 1, 1, &used), SPMU_TICK_OVERFLOW);
  nev = 0;
  assert_int_equal(insts_on(lp, 1, 1, &used),
                   SPMU_TICK_PEBS_LOST | SPMU_TICK_MEM_FAULT);
  assert_int_equal(nev, 1);
  assert_rec(0, SPMU_EV_PEBS_DROP, GM_PEBS, 0, 1, GM_PEBS, GM_PEBS + 4096,
             SPMU_DROP_MEM_FAULT);
  e = &evs[0];
  assert_int_equal(e->u.rec.fault_addr, GM_PEBS);
  assert_int_equal(e->u.rec.fault_len, 200);
  assert_int_equal(e->u.rec.fault_write, 1);
}

/* The order within one clock (events.h): PMC1's overflow requests a PMI
 * (OVERFLOW, FREEZE), then PMC0's PEBS assist due at the same clock
 * (PEBS, RELOAD, THRESHOLD); the threshold's PMI is the same interrupt
 * and the freeze has already started, so neither is reported again; the
 * PMI comes last, as the call ends. */
static void test_order_within_a_clock(void **state)
{
  static const unsigned kinds[] = {SPMU_EV_OVERFLOW,  SPMU_EV_FREEZE,
                                   SPMU_EV_PEBS,      SPMU_EV_RELOAD,
                                   SPMU_EV_THRESHOLD, SPMU_EV_PMI};
  uint64_t used = 0;
  unsigned i;
  (void)state;
  setup("skylake");
  pebs_pmc0(4096, 200, 5, W48);
  WR(MSR_EVTSEL0 + 1, INST_SEL | EV_INT);
  WR(MSR_GLOBAL_CTRL, 3);
  WR(MSR_DEBUGCTL, DBG_FREEZE_PERFMON);
  HWR(MSR_PMC0 + 1, W48 - 1);
  assert_int_equal(insts_on(lp, 1, 1, &used), SPMU_TICK_OVERFLOW);
  nev = 0;
  assert_int_equal(insts_on(lp, 1, 1, &used),
                   SPMU_TICK_OVERFLOW | SPMU_TICK_PMI | SPMU_TICK_PEBS);
  assert_int_equal(nev, 6);
  for (i = 0; i < 6; i++) {
    assert_int_equal(evs[i].kind, kinds[i]);
    assert_int_equal(evs[i].clock, 1);
  }
  assert_int_equal(evs[0].u.ctr.counter, 1);
  assert_int_equal(gm->pmis, 1);
}

/* ---- BTS ----------------------------------------------------------------- */

static void bts64(unsigned records, uint64_t threshold)
{
  gm_put(gm, GM_DS + 0x00, GM_BTS, 8);
  gm_put(gm, GM_DS + 0x08, GM_BTS, 8);
  gm_put(gm, GM_DS + 0x10, GM_BTS + (uint64_t)records * 24, 8);
  gm_put(gm, GM_DS + 0x18, threshold, 8);
  WR(MSR_DS_AREA, GM_DS);
}

static int branch(void)
{
  spmu_branch br = {.from = 0x401000, .to = 0x402000, .predicted = 1};
  spmu_clock clk = {.cpl = 3, .branch = &br};
  return spmu_deliver(lp, &clk, 1, NULL);
}

/* SDM 17.4.8-17.4.9: each stored branch record is reported (BTS: where,
 * 24 bytes, index after); at the threshold THRESHOLD pebs = 0 and a PMI;
 * with BTINT a full buffer stores nothing and does not wrap (BTS_DROP,
 * SPMU_DROP_FULL, with the buffer's base). */
static void test_bts_record_threshold_and_full_17_4_9(void **state)
{
  (void)state;
  setup("skylake");
  bts64(2, GM_BTS + 48);
  WR(MSR_DEBUGCTL, DBG_TR | DBG_BTS | DBG_BTINT);
  assert_int_equal(branch(), SPMU_TICK_BTS);
  assert_int_equal(nev, 1);
  assert_rec(0, SPMU_EV_BTS, GM_BTS, 24, 0, GM_BTS + 24, GM_BTS + 48, 0);
  assert_int_equal(evs[0].clock, 1);
  assert_int_equal(branch(), SPMU_TICK_BTS | SPMU_TICK_PMI);
  assert_int_equal(nev, 4);
  assert_rec(1, SPMU_EV_BTS, GM_BTS + 24, 24, 0, GM_BTS + 48, GM_BTS + 48, 0);
  assert_int_equal(ev_at(2, SPMU_EV_THRESHOLD)->u.threshold.pebs, 0);
  assert_pmi(3, lp, 1, ST_OVF_BUF);
  assert_int_equal(branch(), 0);
  assert_int_equal(nev, 5);
  assert_rec(4, SPMU_EV_BTS_DROP, GM_BTS + 48, 0, 0, GM_BTS + 48, GM_BTS + 48,
             SPMU_DROP_FULL);
  assert_int_equal(evs[4].u.rec.base, GM_BTS);
}

/* SDM 17.4.9: without BTINT the buffer is circular, but a buffer that
 * cannot hold one record at its base stores nothing (BTS_DROP, bounds). */
static void test_bts_no_room_at_base_17_4_9(void **state)
{
  (void)state;
  setup("skylake");
  bts64(0, GM_BTS + 1000);
  WR(MSR_DEBUGCTL, DBG_TR | DBG_BTS);
  assert_int_equal(branch(), 0);
  assert_int_equal(nev, 1);
  assert_rec(0, SPMU_EV_BTS_DROP, GM_BTS, 0, 0, GM_BTS, GM_BTS,
             SPMU_DROP_BOUNDS);
  assert_int_equal(evs[0].u.rec.base, GM_BTS);
}

/* SDM 18.2.2.2: a clock that adds more than 2^width makes the counter
 * pass its width several times; OVERFLOW says how often (wraps), so the
 * clock's count is now - old + wraps * 2^width. A 32-bit PMC0 at 5 gets
 * three lines of 2^32 - 1 instructions: 3 * 2^32 - 3 more, so it passes
 * its width 3 times and holds 2. */
static void test_overflow_counts_every_wrap_18_2_2_2(void **state)
{
  static const spmu_event_line lines[3] = {{0xC0, 0x00, UINT32_MAX},
                                           {0xC0, 0x00, UINT32_MAX},
                                           {0xC0, 0x00, UINT32_MAX}};
  spmu_clock clk = {.lines = lines, .nlines = 3, .cpl = 3};
  const spmu_event *e;
  (void)state;
  setup("base=skylake,gp_width=32");
  WR(MSR_EVTSEL0, INST_SEL);
  WR(MSR_GLOBAL_CTRL, 1);
  HWR(MSR_PMC0, 5);
  assert_int_equal(spmu_deliver(lp, &clk, 1, NULL), SPMU_TICK_OVERFLOW);
  assert_int_equal(nev, 1);
  e = ev_at(0, SPMU_EV_OVERFLOW);
  assert_int_equal(e->u.ctr.counter, 0);
  assert_int_equal(e->u.ctr.old, 5);
  assert_int_equal(e->u.ctr.now, 2);
  assert_int_equal(e->u.ctr.wraps, 3);
}

/* SDM 18.2.3 with 17.4.9.2: in one clock of logical processor 0, logical
 * processor 1's AnyThread PMC0 overflows and requests a PMI first, then
 * logical processor 0's BTS record reaches the interrupt threshold. The
 * PMI events follow the pmi() calls' order, the delivering logical
 * processor first, each right before its call, at the clock. */
static void test_pmi_events_in_pmi_call_order_18_2_3(void **state)
{
  spmu_event_line line = {0xC0, 0x00, 1};
  spmu_branch br = {.from = 0x401000, .to = 0x402000, .predicted = 0};
  spmu_clock clk = {.lines = &line, .nlines = 1, .cpl = 3, .branch = &br};
  spmu_lp *t1;
  (void)state;
  setup("skylake");
  t1 = spmu_core_lp(core, 1);
  assert_int_equal(spmu_wrmsr(t1, MSR_EVTSEL0, INST_SEL | EV_ANY | EV_INT),
                   SPMU_OK);
  assert_int_equal(spmu_wrmsr(t1, MSR_GLOBAL_CTRL, 1), SPMU_OK);
  assert_int_equal(spmu_host_wrmsr(t1, MSR_PMC0, W48), SPMU_OK);
  bts64(2, GM_BTS + 24);
  WR(MSR_DEBUGCTL, DBG_TR | DBG_BTS);
  assert_int_equal(spmu_deliver(lp, &clk, 1, NULL),
                   SPMU_TICK_OVERFLOW | SPMU_TICK_PMI | SPMU_TICK_BTS);
  assert_int_equal(nev, 5);
  assert_ctr(0, SPMU_EV_OVERFLOW, t1, 1, 0, W48, 0);
  assert_rec(1, SPMU_EV_BTS, GM_BTS, 24, 0, GM_BTS + 24, GM_BTS + 48, 0);
  assert_int_equal(ev_at(2, SPMU_EV_THRESHOLD)->u.threshold.pebs, 0);
  assert_pmi(3, lp, 1, ST_OVF_BUF);
  assert_pmi(4, t1, 1, 1);
  assert_int_equal(npmi_order, 2);
  assert_int_equal(pmi_order[0], 0);
  assert_int_equal(pmi_order[1], 1);
}

/* SDM 18.2.4.1-18.2.4.2 (v4+): CTR_Frz freezes the counters however it
 * gets set. Setting it through GLOBAL_STATUS_SET or a host write of
 * GLOBAL_STATUS starts a counter freeze (FREEZE, reg GLOBAL_STATUS,
 * counters = 1, clock 0); setting it again starts none; clearing it ends
 * it (UNFREEZE). Other bits start nothing. */
static void test_software_freeze_18_2_4_2(void **state)
{
  (void)state;
  setup("skylake");
  WR(MSR_GLOBAL_STATUS_SET, 1);
  assert_int_equal(nev, 0);
  WR(MSR_GLOBAL_STATUS_SET, ST_CTR_FRZ);
  assert_int_equal(nev, 1);
  assert_freeze(0, SPMU_EV_FREEZE, MSR_GLOBAL_STATUS, 1, 1, 1 | ST_CTR_FRZ);
  assert_int_equal(evs[0].clock, 0);
  WR(MSR_GLOBAL_STATUS_SET, ST_CTR_FRZ);
  assert_int_equal(nev, 1);
  HWR(MSR_GLOBAL_STATUS, 0);
  assert_int_equal(nev, 2);
  assert_freeze(1, SPMU_EV_UNFREEZE, MSR_GLOBAL_STATUS, 1, 1 | ST_CTR_FRZ, 0);
  HWR(MSR_GLOBAL_STATUS, ST_CTR_FRZ | ST_LBR_FRZ);
  assert_int_equal(nev, 3);
  assert_freeze(2, SPMU_EV_FREEZE, MSR_GLOBAL_STATUS, 1, 0,
                ST_CTR_FRZ | ST_LBR_FRZ);
}

/* spmu_counter_enabled: SDM 18.2.2 (a GP counter's EN, a fixed counter's
 * enable field, and from v2 the GLOBAL_CTRL bit), 18.15.5.1 (NetBurst
 * CCCR.ENABLE); counters numbered as in GLOBAL_STATUS. */
static void test_counter_enabled_18_2_2(void **state)
{
  (void)state;
  setup("skylake");
  assert_int_equal(spmu_counter_enabled(lp, 0), 0);
  WR(MSR_GLOBAL_CTRL, 0);
  WR(MSR_EVTSEL0, INST_SEL);
  assert_int_equal(spmu_counter_enabled(lp, 0), 0); /* GLOBAL_CTRL 0 */
  WR(MSR_GLOBAL_CTRL, 1 | UINT64_C(1) << 33);
  assert_int_equal(spmu_counter_enabled(lp, 0), 1);
  assert_int_equal(spmu_counter_enabled(lp, 33), 0); /* field 0 */
  WR(MSR_FIXED_CTR_CTRL, 0x10);                      /* FIXED_CTR1: OS only */
  assert_int_equal(spmu_counter_enabled(lp, 33), 1);
  assert_int_equal(spmu_counter_enabled(lp, 32), 0);
  WR(MSR_EVTSEL0, INST_SEL & ~EV_EN);
  assert_int_equal(spmu_counter_enabled(lp, 0), 0);
  assert_int_equal(spmu_counter_enabled(lp, 4), SPMU_EINVAL);  /* 4 GP */
  assert_int_equal(spmu_counter_enabled(lp, 35), SPMU_EINVAL); /* 3 fixed */
  assert_int_equal(spmu_counter_enabled(NULL, 0), SPMU_EINVAL);
  /* v1: no GLOBAL_CTRL, the EN bit alone. */
  setup("core-duo");
  WR(MSR_EVTSEL0, INST_SEL);
  assert_int_equal(spmu_counter_enabled(lp, 0), 1);
  assert_int_equal(spmu_counter_enabled(lp, 32), SPMU_EINVAL);
  setup("pentium4-noht");
  assert_int_equal(spmu_counter_enabled(lp, 0), 0);
  WR(P4_CCCR(0), CC_SEL(7) | CC_ANY | CC_EN);
  assert_int_equal(spmu_counter_enabled(lp, 0), 1);
  assert_int_equal(spmu_counter_enabled(lp, 18), SPMU_EINVAL);
}

/* ---- NetBurst ------------------------------------------------------------ */

/* One BSQ_cache_reference line (bit 0) per clock, through spmu_deliver
 * (the same call as for the architectural PMU). */
static int bsq_on(uint64_t clocks, uint64_t *used)
{
  spmu_nb_line ln = {SPMU_NB_BSU, 0x0C, 0, 1};
  spmu_clock clk = {.nb_lines = &ln, .nb_nlines = 1, .cpl = 0};
  return spmu_deliver(lp, &clk, clocks, used);
}

/* SDM 18.15.3: a NetBurst counter (40 bits) overflows and sets OVF; with
 * OVF_PMI the PMI is requested at its next increment (PMI status 0). */
static void test_netburst_overflow_then_pmi_18_15_3(void **state)
{
  uint64_t used = 0;
  (void)state;
  setup("pentium4-noht");
  WR(BSU_ESCR0, ES_EVSEL(0x0C) | ES_MASK(1) | ES_T0);
  WR(P4_CCCR(0), CC_SEL(7) | CC_ANY | CC_EN | CC_PMI0);
  WR(P4_CTR(0), W40 - 2);
  assert_int_equal(bsq_on(100, &used), SPMU_TICK_OVERFLOW);
  assert_int_equal(used, 3);
  assert_int_equal(nev, 1);
  assert_ctr(0, SPMU_EV_OVERFLOW, lp, 3, 0, W40, 0);
  assert_int_equal(bsq_on(100, &used), SPMU_TICK_PMI);
  assert_int_equal(used, 1);
  assert_int_equal(nev, 2);
  assert_pmi(1, lp, 1, 0);
  assert_int_equal(gm->pmis, 1);
}

/* SDM 18.15.7: NetBurst PEBS on IQ_COUNTER4 (counter 16): the record
 * (40 bytes, 32-bit layout) is reported with counter 16 and the counter's
 * reload from the DS area's reset value. */
static void test_netburst_pebs_18_15_7(void **state)
{
  static const spmu_nb_retire miss = {.uops = 1, .kind = 0x01, .replay = 0x1};
  spmu_clock clk = {.retire = &miss, .nretire = 1};
  uint64_t used = 0;
  (void)state;
  setup("pentium4-noht");
  gm_put(gm, GM_DS + 0x10, GM_PEBS, 4);
  gm_put(gm, GM_DS + 0x14, GM_PEBS, 4);
  gm_put(gm, GM_DS + 0x18, GM_PEBS + 400, 4);
  gm_put(gm, GM_DS + 0x1C, GM_PEBS + 400, 4);
  gm_put(gm, GM_DS + 0x20, W40 - 9, 8);
  WR(MSR_DS_AREA, GM_DS);
  WR(MSR_P4_PEBS_ENABLE, PE_UOP_TAG | PE_MY_THR | 0x1);
  WR(MSR_MATRIX_VERT, 0x1);
  WR(CRU_ESCR2, ES_EVSEL(0x09) | ES_MASK(1) | ES_T0);
  WR(P4_CCCR(16), CC_SEL(5) | CC_ANY | CC_EN);
  WR(P4_CTR(16), W40);
  assert_int_equal(spmu_deliver(lp, &clk, 10, &used), SPMU_TICK_OVERFLOW);
  assert_int_equal(used, 1);
  assert_ctr(0, SPMU_EV_OVERFLOW, lp, 1, 16, W40, 0);
  nev = 0;
  assert_int_equal(spmu_deliver(lp, &clk, 10, &used), SPMU_TICK_PEBS);
  assert_int_equal(used, 1);
  assert_int_equal(nev, 2);
  assert_rec(0, SPMU_EV_PEBS, GM_PEBS, 40, UINT64_C(1) << 16, GM_PEBS + 40,
             GM_PEBS + 400, 0);
  assert_ctr(1, SPMU_EV_RELOAD, lp, 1, 16, 1, W40 - 9);
}

/* ---- without a callback -------------------------------------------------- */

/* Deliver `clocks` clocks of clk to l, resuming after each stop; the
 * return value and consumed count of each call go to rcs / useds. */
static unsigned drive(spmu_lp *l, const spmu_clock *clk, uint64_t clocks,
                      int *rcs, uint64_t *useds)
{
  unsigned n = 0;
  while (clocks) {
    uint64_t u = 0;
    int r = spmu_deliver(l, clk, clocks, &u);
    assert_true(r >= 0);
    assert_true(u >= 1 && u <= clocks);
    rcs[n] = r;
    useds[n++] = u;
    clocks -= u;
  }
  return n;
}

/* The event callback changes only where batches stop: three cores get the
 * same clocks; the one with the callback ends with the same counters,
 * status and PMIs as the one without, and one that had the callback and
 * removed it returns exactly what the one without returns, call by call.
 * spmu_deadline reports nothing. */
static void test_no_callback_same_results(void **state)
{
  spmu_core *c[3];
  spmu_lp *l[3];
  guest_mem *m = calloc(3, sizeof *m);
  spmu_host h;
  uint64_t rng = 0x9e3779b97f4a7c15u;
  unsigned i, call, k;
  (void)state;
  assert_non_null(m);
  for (i = 0; i < 3; i++) {
    c[i] = core_for("skylake");
    l[i] = spmu_core_lp(c[i], 0);
    h = (spmu_host){
        .opaque = &m[i], .pmi = on_pmi, .event = i ? on_event : NULL};
    assert_int_equal(spmu_core_set_host(c[i], &h), SPMU_OK);
    if (i == 2) {
      h.event = NULL;
      assert_int_equal(spmu_core_set_host(c[i], &h), SPMU_OK);
    }
    for (k = 0; k < 4; k++) {
      uint64_t sel = (k == 2 ? 0x3C : 0xC0) | EV_USR | EV_OS | EV_EN |
                     (k == 1 ? EV_INT : 0);
      assert_int_equal(spmu_wrmsr(l[i], MSR_EVTSEL0 + k, sel), SPMU_OK);
      assert_int_equal(spmu_host_wrmsr(l[i], MSR_PMC0 + k, W48 - 100 * k),
                       SPMU_OK);
    }
    assert_int_equal(spmu_wrmsr(l[i], MSR_GLOBAL_CTRL, 0xF), SPMU_OK);
  }
  nev = 0;
  for (call = 0; call < 300; call++) {
    spmu_event_line lines[2] = {{0xC0, 0, (uint32_t)(xorshift64(&rng) % 7)},
                                {0x3C, 0, 1}};
    spmu_clock clk = {.lines = lines, .nlines = 2, .cpl = 3};
    uint64_t clocks = 1 + xorshift64(&rng) % 50, dl = 0, u[3][64];
    int rc[3][64];
    unsigned n[3], before = nev;
    assert_int_equal(spmu_deadline(l[1], &clk, &dl), SPMU_OK);
    assert_int_equal(nev, before);
    for (i = 0; i < 3; i++)
      n[i] = drive(l[i], &clk, clocks, rc[i], u[i]);
    assert_int_equal(n[2], n[0]);
    for (k = 0; k < n[0]; k++) {
      assert_int_equal(rc[2][k], rc[0][k]);
      assert_int_equal(u[2][k], u[0][k]);
      assert_int_equal(rc[0][k] & SPMU_TICK_OVERFLOW, 0);
    }
    /* The callback's first stop is at or before the first PMI. */
    assert_true(u[1][0] <= u[0][0]);
    if (u[1][0] < u[0][0])
      assert_int_equal(rc[1][0], SPMU_TICK_OVERFLOW);
  }
  for (k = 0; k < 4; k++) {
    assert_int_equal(rd(l[1], MSR_PMC0 + k), rd(l[0], MSR_PMC0 + k));
    assert_int_equal(rd(l[2], MSR_PMC0 + k), rd(l[0], MSR_PMC0 + k));
  }
  assert_int_equal(rd(l[1], MSR_GLOBAL_STATUS), rd(l[0], MSR_GLOBAL_STATUS));
  assert_int_equal(rd(l[2], MSR_GLOBAL_STATUS), rd(l[0], MSR_GLOBAL_STATUS));
  assert_true(m[0].pmis > 0);
  assert_int_equal(m[1].pmis, m[0].pmis);
  assert_int_equal(m[2].pmis, m[0].pmis);
  assert_true(nev > m[0].pmis); /* overflows without a PMI were reported */
  for (i = 0; i < 3; i++)
    spmu_core_free(c[i]);
  free(m);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_overflow_stops_batch_at_its_clock_18_2_2_2,
                                ev_teardown),
      cmocka_unit_test_teardown(test_anythread_events_name_the_owner_18_2_3,
                                ev_teardown),
      cmocka_unit_test_teardown(test_pmi_and_streamlined_freeze_18_2_4_1,
                                ev_teardown),
      cmocka_unit_test_teardown(test_legacy_freeze_and_unfreeze_18_2_4_1,
                                ev_teardown),
      cmocka_unit_test_teardown(test_legacy_freeze_of_a_cleared_ctrl_18_2_4_1,
                                ev_teardown),
      cmocka_unit_test_teardown(test_signal_event_18_2_2_2, ev_teardown),
      cmocka_unit_test_teardown(test_pebs_record_reload_threshold_18_4_4,
                                ev_teardown),
      cmocka_unit_test_teardown(test_pebs_drops_bounds_and_fault_17_4_9,
                                ev_teardown),
      cmocka_unit_test_teardown(test_order_within_a_clock, ev_teardown),
      cmocka_unit_test_teardown(test_bts_record_threshold_and_full_17_4_9,
                                ev_teardown),
      cmocka_unit_test_teardown(test_bts_no_room_at_base_17_4_9, ev_teardown),
      cmocka_unit_test_teardown(test_overflow_counts_every_wrap_18_2_2_2,
                                ev_teardown),
      cmocka_unit_test_teardown(test_pmi_events_in_pmi_call_order_18_2_3,
                                ev_teardown),
      cmocka_unit_test_teardown(test_software_freeze_18_2_4_2, ev_teardown),
      cmocka_unit_test_teardown(test_counter_enabled_18_2_2, ev_teardown),
      cmocka_unit_test_teardown(test_netburst_overflow_then_pmi_18_15_3,
                                ev_teardown),
      cmocka_unit_test_teardown(test_netburst_pebs_18_15_7, ev_teardown),
      cmocka_unit_test_teardown(test_no_callback_same_results, ev_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

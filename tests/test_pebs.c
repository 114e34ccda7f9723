/* SPDX-License-Identifier: MIT */
/* PEBS and the DS save area: arming, the assist on the next event, bounds
 * check, records in every format, counter reload, OvfBuf and the threshold
 * PMI, failing memory (SDM 17.4.9 Figures 17-5 to 17-10, 18.4.4, 18.6.2,
 * 18.8.1, 18.9; kvm-unit-tests pmu_pebs, rephrased).
 * Every value asserted is exact. */
#define SPMU_TEST_FIXTURE
#include "guest_mem.h"
#include "helpers.h"

#include <stdlib.h>

#define INST_SEL (UINT64_C(0xC0) | EV_USR | EV_OS | EV_EN)

static guest_mem *gm;

/* A core for spec with guest memory attached and a recognisable machine
 * state: register n holds 0x1000 + n, and so on. */
static void setup(const char *spec)
{
  unsigned i;
  use(spec);
  free(gm);
  gm = calloc(1, sizeof *gm);
  assert_non_null(gm);
  gm_attach(gm, core);
  gm->state.rflags = 0x246;
  gm->state.ip = 0x401000;
  gm->state.next_ip = 0x401003;
  for (i = 0; i < 16; i++) {
    gm->state.gpr[i] = 0x1000 + i;
    gm->state.xmm[i][0] = 0x2000 + i;
    gm->state.xmm[i][1] = 0x3000 + i;
  }
  gm->state.tsc = 0x123456789;
  gm->state.tx_abort = 0x55;
}

static int pebs_teardown(void **state)
{
  free(gm);
  gm = NULL;
  return teardown(state);
}

/* DS area at GM_DS; PEBS buffer of `bytes` at GM_PEBS with the interrupt
 * threshold after `thresh` bytes; PMC0 reset value `reset`. */
static void ds(uint64_t bytes, uint64_t thresh, uint64_t reset)
{
  gm_ds64(gm, GM_PEBS, GM_PEBS + bytes, GM_PEBS + thresh);
  gm_put(gm, GM_DS + 0x40, reset, 8);
  WR(MSR_DS_AREA, GM_DS);
}

/* Deliver `clocks` clocks of `n` instructions retired at CPL 3, resuming
 * after each stop; returns the tick bits of every call or'ed. */
static int insts(uint32_t n, uint64_t clocks)
{
  spmu_event_line line = {0xC0, 0x00, n};
  spmu_clock clk = {.lines = &line, .nlines = 1, .cpl = 3};
  int rc = 0;
  while (clocks) {
    uint64_t used = 0;
    int r = spmu_deliver(lp, &clk, clocks, &used);
    assert_true(r >= 0);
    rc |= r;
    assert_true(used >= 1 && used <= clocks);
    clocks -= used;
  }
  return rc;
}

/* PMC0 counts instructions with PEBS on it, preset to `preset`. */
static void pebs_pmc0(uint64_t preset)
{
  WR(MSR_EVTSEL0, INST_SEL);
  HWR(MSR_PMC0, preset);
  WR(MSR_PEBS_ENABLE, 1);
  WR(MSR_GLOBAL_CTRL, 1);
}

/* SDM 18.4.4: the overflow arms PEBS, the next event performs
 * the assist: record at the index, index advanced, counter reloaded from
 * its reset slot, its overflow status cleared; at the threshold OvfBuf and
 * a PMI. Batched delivery stops right after the assist. */
static void test_overflow_arms_next_event_assists_18_4_4(void **state)
{
  spmu_event_line line = {0xC0, 0x00, 1};
  spmu_clock clk = {.lines = &line, .nlines = 1, .cpl = 3};
  uint64_t used = 0;
  (void)state;
  setup("skylake");
  ds(4096, 200, W48 - 99);
  pebs_pmc0(W48 - 1);
  assert_int_equal(deadline_of(lp, &clk), 3);
  assert_int_equal(spmu_deliver(lp, &clk, 1000, &used),
                   SPMU_TICK_PEBS | SPMU_TICK_PMI);
  assert_int_equal(used, 3); /* 2nd event wraps, 3rd assists */
  assert_int_equal(gm_index64(gm), GM_PEBS + 200);
  assert_int_equal(rd(lp, MSR_PMC0), W48 - 99);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), ST_OVF_BUF);
  assert_int_equal(gm->pmis, 1);
  /* Format 3 (SDM 18.9.1): applicable counters at 90H, TSC at C0H. */
  assert_int_equal(gm_get(gm, GM_PEBS + 0x90, 8), 1);
  assert_int_equal(gm_get(gm, GM_PEBS + 0xC0, 8), 0x123456789);
  /* Only the record slot and the index were written. */
  assert_int_equal(gm->nlog, 2);
  assert_int_equal(gm->log[0].la, GM_PEBS);
  assert_int_equal(gm->log[0].len, 200);
  assert_int_equal(gm->log[1].la, GM_DS + 0x28);
  assert_int_equal(gm->log[1].len, 8);
}

/* kvm-unit-tests pmu_pebs: counters preset to 0, 2^48-16, 2^48-2 and
 * 2^48-1 with a one-page buffer and the threshold one record in; 8 events.
 * Without an overflow the index stays at the base and the buffer is
 * untouched; with one, OvfBuf and at least one record. */
static void test_kvm_presets_one_page_buffer(void **state)
{
  static const uint64_t presets[4] = {0, W48 - 15, W48 - 1, W48};
  static const int records[4] = {0, 0, 1, 1};
  unsigned i;
  (void)state;
  for (i = 0; i < 4; i++) {
    uint8_t zero[4096] = {0};
    setup("skylake");
    ds(4096, 200, W48 - 999);
    pebs_pmc0(presets[i]);
    insts(1, 8);
    assert_int_equal(gm_index64(gm), GM_PEBS + 200u * records[i]);
    if (!records[i]) {
      assert_memory_equal(gm->b + (GM_PEBS - GM_BASE), zero, sizeof zero);
      assert_int_equal(rd(lp, MSR_GLOBAL_STATUS) & ST_OVF_BUF, 0);
    } else {
      assert_int_equal(rd(lp, MSR_GLOBAL_STATUS) & ST_OVF_BUF, ST_OVF_BUF);
      /* Applicable counters intersect the enabled mask (PMC0). */
      assert_int_equal(gm_get(gm, GM_PEBS + 0x90, 8) & 1, 1);
    }
  }
}

/* SDM 17.4.9: PEBS never writes past the absolute maximum; when the next
 * record does not fit the assist is skipped entirely (no record, no
 * reload, status kept) and the buffer is not circular. */
static void test_full_buffer_skips_assist_17_4_9(void **state)
{
  int rc;
  (void)state;
  setup("skylake");
  ds(400, 4096, W48 - 9); /* room for two records; threshold never met */
  pebs_pmc0(W48);
  insts(1, 11); /* overflow, assist, 9 events to wrap, overflow, assist */
  assert_int_equal(gm_index64(gm), GM_PEBS + 200);
  insts(1, 11);
  assert_int_equal(gm_index64(gm), GM_PEBS + 400);
  rc = insts(1, 2); /* overflow, then the assist that does not fit */
  assert_int_equal(rc, SPMU_TICK_PEBS_LOST);
  assert_int_equal(gm_index64(gm), GM_PEBS + 400);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 1); /* Ovf_PMC0 kept */
  assert_int_equal(rd(lp, MSR_PMC0), 1);          /* not reloaded */
  assert_int_equal(gm->pmis, 0);
}

/* A memory callback that fails never crashes the model and never writes
 * elsewhere: the record is dropped, the host is told, and nothing else
 * changes (decisions.md #28). */
static void test_failing_memory_drops_record(void **state)
{
  (void)state;
  setup("skylake");
  ds(4096, 200, W48 - 9);
  pebs_pmc0(W48);
  gm->fail_lo = GM_PEBS;
  gm->fail_hi = GM_PEBS + 4096;
  gm->fail_writes = true;
  assert_int_equal(insts(1, 2), SPMU_TICK_PEBS_LOST | SPMU_TICK_MEM_FAULT);
  assert_int_equal(gm_index64(gm), GM_PEBS);
  assert_int_equal(gm->nlog, 0);
  assert_int_equal(rd(lp, MSR_PMC0), 1);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 1);
  /* A DS area that cannot be read: the same. */
  setup("skylake");
  ds(4096, 200, W48 - 9);
  pebs_pmc0(W48);
  gm->fail_lo = GM_DS;
  gm->fail_hi = GM_DS + 0x40;
  gm->fail_reads = true;
  assert_int_equal(insts(1, 2), SPMU_TICK_PEBS_LOST | SPMU_TICK_MEM_FAULT);
  assert_int_equal(gm->nlog, 0);
  /* No memory callbacks at all. */
  setup("skylake");
  spmu_core_set_host(core, NULL);
  WR(MSR_DS_AREA, GM_DS);
  pebs_pmc0(W48);
  assert_int_equal(insts(1, 2), SPMU_TICK_PEBS_LOST | SPMU_TICK_MEM_FAULT);
  assert_int_equal(rd(lp, MSR_PMC0), 1);
}

/* Legacy record layouts (SDM 17.4.9.1 Figure 17-10, 18.6.2.1, 18.8.1.1,
 * 18.9.1), by profile: size and fields. */
static void test_legacy_record_formats(void **state)
{
  static const struct {
    const char *cpu;
    unsigned size;
  } f[4] = {
      {"core2", 144}, {"nehalem", 176}, {"haswell", 192}, {"skylake", 200}};
  /* RAX, RBX, RCX, RDX, RSI, RDI, RBP, RSP by register number. */
  static const unsigned legacy[8] = {0, 3, 1, 2, 6, 7, 5, 4};
  spmu_mem_access mem = {.addr = 0x7fff0000, .source = 3, .latency = 42};
  spmu_event_line line = {0xC0, 0x00, 1};
  spmu_clock clk = {.lines = &line, .nlines = 1, .cpl = 3, .mem = &mem};
  unsigned i, r;
  (void)state;
  for (i = 0; i < 4; i++) {
    uint64_t rec = GM_PEBS;
    setup(f[i].cpu);
    ds(4096, 4096, 0);
    gm_put(gm, GM_DS + 0x40, 0, 8);
    pebs_pmc0(f[i].size == 144 ? 0xFFFFFFFFFFULL : W48); /* 40-bit core2 */
    assert_int_equal(spmu_deliver(lp, &clk, 1, NULL), 0);
    assert_int_equal(spmu_deliver(lp, &clk, 1, NULL), SPMU_TICK_PEBS);
    assert_int_equal(gm_index64(gm), rec + f[i].size);
    assert_int_equal(gm_get(gm, rec + 0x00, 8), 0x246);
    /* All four presets report trap-like PEBS: RIP is the next one. */
    assert_int_equal(gm_get(gm, rec + 0x08, 8), 0x401003);
    for (r = 0; r < 8; r++)
      assert_int_equal(gm_get(gm, rec + 0x10 + 8 * r, 8), 0x1000 + legacy[r]);
    for (r = 8; r < 16; r++)
      assert_int_equal(gm_get(gm, rec + 0x10 + 8 * r, 8), 0x1000 + r);
    if (f[i].size >= 176) {
      /* 90H: GLOBAL_STATUS at the assist (Ovf_PMC0) before format 3,
       * applicable counters from format 3: both 1 here. */
      assert_int_equal(gm_get(gm, rec + 0x90, 8), 1);
      assert_int_equal(gm_get(gm, rec + 0x98, 8), 0x7fff0000);
      assert_int_equal(gm_get(gm, rec + 0xA0, 8), 3);
      assert_int_equal(gm_get(gm, rec + 0xA8, 8), 42);
    }
    if (f[i].size >= 192) {
      assert_int_equal(gm_get(gm, rec + 0xB0, 8), 0x401000); /* EventingIP */
      assert_int_equal(gm_get(gm, rec + 0xB8, 8), 0x55);     /* TX abort */
    }
    if (f[i].size >= 200)
      assert_int_equal(gm_get(gm, rec + 0xC0, 8), 0x123456789);
    /* Nothing past the record. */
    assert_int_equal(gm_get(gm, rec + f[i].size, 8), 0);
  }
}

/* IA32_PERF_CAPABILITIES[6] = 0: fault-like PEBS, RIP is the eventing
 * instruction (SDM 18.6.2.1; Vol. 4 Table 2-2, IA32_PERF_CAPABILITIES). */
static void test_fault_like_rip_perfcap6(void **state)
{
  (void)state;
  setup("base=skylake,perf_capabilities=0x3385");
  ds(4096, 4096, 0);
  pebs_pmc0(W48);
  assert_int_equal(insts(1, 2), SPMU_TICK_PEBS);
  assert_int_equal(gm_get(gm, GM_PEBS + 0x08, 8), 0x401000);
}

/* The threshold PMI freezes like an overflow PMI (SDM 17.4.7, 18.2.4.1:
 * the freeze is triggered by a counter overflow with a PMI or by the PEBS
 * buffer reaching its threshold). */
static void test_threshold_pmi_freezes_v4(void **state)
{
  (void)state;
  setup("skylake");
  ds(4096, 200, W48 - 9);
  WR(MSR_DEBUGCTL, DBG_FREEZE_PERFMON);
  pebs_pmc0(W48);
  assert_int_equal(insts(1, 2), SPMU_TICK_PEBS | SPMU_TICK_PMI);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), ST_OVF_BUF | ST_CTR_FRZ);
  insts(1, 5);
  assert_int_equal(rd(lp, MSR_PMC0), W48 - 9); /* frozen */
}

/* Batched delivery gives the same state and the same guest memory as
 * single clocks, assists included. */
static void test_batched_equals_single_with_pebs(void **state)
{
  spmu_event_line line = {0xC0, 0x00, 3};
  spmu_clock clk = {.lines = &line, .nlines = 1, .cpl = 3};
  guest_mem *g1;
  spmu_core *c1;
  spmu_lp *l1;
  uint8_t a[4096], b[4096];
  size_t la = 0, lb = 0;
  uint64_t left = 500, used;
  (void)state;
  setup("skylake");
  ds(4096, 1000, W48 - 29);
  pebs_pmc0(W48 - 10);
  WR(MSR_FIXED_CTR_CTRL, 0x3);
  WR(MSR_GLOBAL_CTRL, 1 | UINT64_C(1) << 32);
  g1 = malloc(sizeof *g1);
  assert_non_null(g1);
  memcpy(g1, gm, sizeof *g1);
  c1 = core_for("skylake");
  gm_attach(g1, c1);
  assert_int_equal(spmu_core_save(core, a, sizeof a, &la), SPMU_OK);
  assert_int_equal(spmu_core_restore(c1, a, la), SPMU_OK);
  l1 = spmu_core_lp(c1, 0);
  while (left) {
    assert_true(spmu_deliver(lp, &clk, left, &used) >= 0);
    left -= used;
  }
  for (left = 0; left < 500; left++)
    assert_true(spmu_deliver(l1, &clk, 1, NULL) >= 0);
  assert_int_equal(spmu_core_save(core, a, sizeof a, &la), SPMU_OK);
  assert_int_equal(spmu_core_save(c1, b, sizeof b, &lb), SPMU_OK);
  assert_int_equal(la, lb);
  assert_memory_equal(a, b, la);
  assert_memory_equal(gm->b, g1->b, GM_SIZE);
  assert_int_equal(gm->pmis, g1->pmis);
  assert_true(gm_index64(gm) > GM_PEBS);
  spmu_core_free(c1);
  free(g1);
}

/* decisions.md #27: PEBS needs ANY = E = INV = CMASK = 0; otherwise the
 * counter counts and overflows as without PEBS and never arms. */
static void test_pebs_requires_plain_event(void **state)
{
  static const uint64_t extra[3] = {EV_E, EV_E | EV_INV | UINT64_C(16) << 24,
                                    UINT64_C(1) << 24};
  unsigned i;
  (void)state;
  for (i = 0; i < 3; i++) {
    setup("skylake");
    ds(4096, 200, 0);
    WR(MSR_EVTSEL0, INST_SEL | extra[i]);
    HWR(MSR_PMC0, W48);
    WR(MSR_PEBS_ENABLE, 1);
    WR(MSR_GLOBAL_CTRL, 1);
    insts(1, 5);
    assert_int_equal(gm_index64(gm), GM_PEBS);
    assert_int_equal(rd(lp, MSR_GLOBAL_STATUS) & 1, 1);
  }
}

/* The total-cycles encoding Linux uses for precise cycles (INV, CMASK=16:
 * every clock counts, as fewer than 16 events occur in it) arms: the
 * overflow at the 2nd clock, the assist at the 3rd (SDM 18.4.4), with 5
 * instructions a clock (decisions.md #27). */
static void test_pebs_inv_cmask_total_cycles_arms(void **state)
{
  spmu_event_line line = {0xC0, 0x01, 5};
  spmu_clock clk = {.lines = &line, .nlines = 1, .cpl = 3};
  uint64_t used = 0;
  (void)state;
  setup("skylake");
  ds(4096, 200, W48 - 99);
  WR(MSR_EVTSEL0, INST_SEL | 0x100 | EV_INV | UINT64_C(16) << 24);
  HWR(MSR_PMC0, W48 - 1);
  WR(MSR_PEBS_ENABLE, 1);
  WR(MSR_GLOBAL_CTRL, 1);
  assert_int_equal(spmu_deliver(lp, &clk, 1000, &used),
                   SPMU_TICK_PEBS | SPMU_TICK_PMI);
  assert_int_equal(used, 3);
  assert_int_equal(gm_index64(gm), GM_PEBS + 200);
  assert_int_equal(rd(lp, MSR_PMC0), W48 - 99);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), ST_OVF_BUF);
}

/* The armed state is part of a snapshot: restored, the next event still
 * performs the assist. */
static void test_armed_survives_snapshot(void **state)
{
  uint8_t a[4096];
  size_t len = 0;
  (void)state;
  setup("skylake");
  ds(4096, 4096, 0);
  pebs_pmc0(W48);
  insts(1, 1); /* overflow: armed */
  assert_int_equal(spmu_core_save(core, a, sizeof a, &len), SPMU_OK);
  assert_int_equal(spmu_core_reset(core), SPMU_OK);
  assert_int_equal(spmu_core_restore(core, a, len), SPMU_OK);
  assert_int_equal(insts(1, 1), SPMU_TICK_PEBS);
  assert_int_equal(gm_index64(gm), GM_PEBS + 200);
}

/* Adaptive PEBS (format 4, Ice Lake): the size field (bits 63:48) is the
 * size of the groups DATA_CFG selects, for a counter with ADAPTIVE; every
 * one of the 16 group combinations. */
static void test_adaptive_sizes_all_data_cfg(void **state)
{
  unsigned cfg;
  (void)state;
  for (cfg = 0; cfg < 16; cfg++) {
    uint64_t size = 32 + ((cfg & 1) ? 32 : 0) + ((cfg & 2) ? 144 : 0) +
                    ((cfg & 4) ? 256 : 0) + ((cfg & 8) ? 3 * 24 : 0);
    uint64_t data_cfg = cfg | UINT64_C(2) << 24; /* 3 LBR entries */
    setup("icelake");
    ds(4096, 4096, 0);
    WR(MSR_PEBS_DATA_CFG, data_cfg);
    WR(MSR_EVTSEL0, INST_SEL | EV_ADAPTIVE);
    HWR(MSR_PMC0, W48);
    WR(MSR_PEBS_ENABLE, 1);
    WR(MSR_GLOBAL_CTRL, 1);
    assert_int_equal(insts(1, 2), SPMU_TICK_PEBS);
    assert_int_equal(gm_index64(gm), GM_PEBS + size);
    assert_int_equal(gm_get(gm, GM_PEBS, 8), size << 48 | data_cfg);
    assert_int_equal(gm_get(gm, GM_PEBS + 0x08, 8), 0x401000);
    assert_int_equal(gm_get(gm, GM_PEBS + 0x10, 8), 1);
    assert_int_equal(gm_get(gm, GM_PEBS + 0x18, 8), 0x123456789);
  }
}

/* A counter without ADAPTIVE writes Basic-only records, format field 0,
 * even when DATA_CFG asks for more. */
static void test_adaptive_bit_off_basic_only(void **state)
{
  (void)state;
  setup("icelake");
  ds(4096, 4096, 0);
  WR(MSR_PEBS_DATA_CFG, 0xF);
  pebs_pmc0(W48);
  assert_int_equal(insts(1, 2), SPMU_TICK_PEBS);
  assert_int_equal(gm_get(gm, GM_PEBS, 8), UINT64_C(32) << 48);
  assert_int_equal(gm_index64(gm), GM_PEBS + 32);
}

/* SDM 18.4.4 with 18.2.2: an overflow arms PEBS until the assist clears
 * its overflow status; software that clears the status itself (STATUS_RESET
 * as it stops a counter) disarms it. kvm-unit-tests pmu_pebs's sequence:
 * PMC1 (branch misses) overflows with no event after it, the test stops
 * it and clears the status, then PMC2 (adaptive, MemInfo) overflows and
 * assists: the record is PMC2's alone, sized by its ADAPTIVE bit, and
 * reaches the threshold (OvfBuf). */
static void test_cleared_overflow_disarms_pebs_18_4_4(void **state)
{
  spmu_event_line miss = {0xC5, 0x00, 1};
  spmu_clock clk = {.lines = &miss, .nlines = 1, .cpl = 3};
  (void)state;
  setup("icelake");
  ds(4096, 64, 0);
  WR(MSR_PEBS_DATA_CFG, 1); /* MemInfo: 64-byte records */
  WR(MSR_EVTSEL0 + 1, 0xC5 | EV_USR | EV_OS | EV_EN | EV_ADAPTIVE);
  HWR(MSR_PMC0 + 1, W48);
  WR(MSR_PEBS_ENABLE, 2);
  WR(MSR_GLOBAL_CTRL, 2);
  assert_int_equal(spmu_deliver(lp, &clk, 1, NULL), 0); /* wraps: armed */
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 2);
  WR(MSR_GLOBAL_CTRL, 0);
  WR(MSR_PEBS_ENABLE, 0);
  WR(MSR_STATUS_RESET, rd(lp, MSR_GLOBAL_STATUS));
  WR(MSR_EVTSEL0 + 1, 0);
  HWR(MSR_PMC0 + 1, 0);
  WR(MSR_EVTSEL0 + 2, INST_SEL | EV_ADAPTIVE);
  HWR(MSR_PMC0 + 2, W48);
  WR(MSR_PEBS_ENABLE, 4);
  WR(MSR_GLOBAL_CTRL, 4);
  assert_int_equal(insts(1, 2), SPMU_TICK_PEBS | SPMU_TICK_PMI);
  assert_int_equal(gm_index64(gm), GM_PEBS + 64);
  assert_int_equal(gm_get(gm, GM_PEBS, 8), UINT64_C(64) << 48 | 1);
  assert_int_equal(gm_get(gm, GM_PEBS + 0x10, 8), 4); /* Applicable */
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), ST_OVF_BUF);
}

/* SDM 18.4.4 with 18.2.2: the overflow status cleared by a host write of
 * IA32_PERF_GLOBAL_STATUS (a VMM restoring the guest's state) disarms
 * PEBS as the guest's STATUS_RESET does: the event after it performs no
 * assist, writes no record, and counts on. */
static void test_host_status_write_disarms_pebs_18_4_4(void **state)
{
  (void)state;
  setup("skylake");
  ds(4096, 200, W48 - 99);
  pebs_pmc0(W48 - 1);
  assert_int_equal(insts(1, 2), 0); /* the 2nd event wraps: armed */
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 1);
  HWR(MSR_GLOBAL_STATUS, 0);
  assert_int_equal(insts(1, 1), 0);
  assert_int_equal(gm_index64(gm), GM_PEBS);
  assert_int_equal(gm->nlog, 0);
  assert_int_equal(rd(lp, MSR_PMC0), 1);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 0);
}

/* A profile without LBRs of its own (lbr_depth=0): the LBR group holds
 * exactly what the host supplied (a host that keeps its own LBRs), zeros
 * past it. */
static void test_adaptive_lbr_entries_from_host(void **state)
{
  uint64_t rec = GM_PEBS, lbr;
  unsigned i;
  (void)state;
  setup("base=icelake,lbr_depth=0");
  ds(4096, 4096, 0);
  memset(gm->b + (GM_PEBS - GM_BASE), 0xAA, 1024); /* stale bytes */
  gm->state.nlbr = 2;
  for (i = 0; i < 2; i++) {
    gm->state.lbr[i].from = 0x5000 + i;
    gm->state.lbr[i].to = 0x6000 + i;
    gm->state.lbr[i].info = 0x7000 + i;
  }
  WR(MSR_PEBS_DATA_CFG, 8 | UINT64_C(3) << 24); /* LBR group, 4 entries */
  WR(MSR_EVTSEL0, INST_SEL | EV_ADAPTIVE);
  HWR(MSR_PMC0, W48);
  WR(MSR_PEBS_ENABLE, 1);
  WR(MSR_GLOBAL_CTRL, 1);
  assert_int_equal(insts(1, 2), SPMU_TICK_PEBS);
  assert_int_equal(gm_get(gm, rec, 8) >> 48, 32 + 4 * 24);
  lbr = rec + 32;
  for (i = 0; i < 4; i++) {
    assert_int_equal(gm_get(gm, lbr + 24 * i, 8), i < 2 ? 0x5000 + i : 0);
    assert_int_equal(gm_get(gm, lbr + 24 * i + 8, 8), i < 2 ? 0x6000 + i : 0);
    assert_int_equal(gm_get(gm, lbr + 24 * i + 16, 8), i < 2 ? 0x7000 + i : 0);
  }
}

/* SDM 18.9.2 (adaptive PEBS, LBR group) with the model's LBRs (Ice Lake,
 * 32 entries, format 5): the group holds the model's stack, most recent
 * first, FROM / TO / LBR_INFO as the MSRs read them, including the branch
 * of the eventing clock; the host's machine_state entries are not used. */
static void test_adaptive_lbr_group_reads_model_stack(void **state)
{
  spmu_event_line line = {0xC0, 0x00, 1};
  spmu_branch br = {.from = 0x401000,
                    .to = 0x402000,
                    .predicted = 0,
                    .type = SPMU_BR_JCC,
                    .flags = SPMU_BRANCH_CYCLES,
                    .cycles = 3};
  spmu_clock clk = {.lines = &line, .nlines = 1, .cpl = 3, .branch = &br};
  uint64_t lbr = GM_PEBS + 32;
  (void)state;
  setup("icelake");
  ds(4096, 4096, 0);
  gm->state.nlbr = 1; /* a host's own entry: not used */
  gm->state.lbr[0].from = 0xdead;
  WR(MSR_DEBUGCTL, 1);                          /* DEBUGCTL.LBR */
  WR(MSR_PEBS_DATA_CFG, 8 | UINT64_C(3) << 24); /* LBR group, 4 entries */
  WR(MSR_EVTSEL0, INST_SEL | EV_ADAPTIVE);
  HWR(MSR_PMC0, W48 - 1);
  WR(MSR_PEBS_ENABLE, 1);
  WR(MSR_GLOBAL_CTRL, 1);
  assert_int_equal(spmu_deliver(lp, &clk, 1, NULL), 0); /* 1st branch */
  br.from = 0x402010;
  br.to = 0x403000;
  br.predicted = 1;
  assert_int_equal(spmu_deliver(lp, &clk, 1, NULL), 0); /* overflows: armed */
  br.from = 0x403010;
  br.to = 0x404000;
  assert_int_equal(spmu_deliver(lp, &clk, 1, NULL), SPMU_TICK_PEBS);
  assert_int_equal(gm_get(gm, GM_PEBS, 8) >> 48, 32 + 4 * 24);
  assert_int_equal(gm_get(gm, lbr, 8), 0x403010);
  assert_int_equal(gm_get(gm, lbr + 8, 8), 0x404000);
  assert_int_equal(gm_get(gm, lbr + 16, 8), 3);
  assert_int_equal(gm_get(gm, lbr + 24, 8), 0x402010);
  /* Format 5: FROM as TO, MISPRED in the INFO only (SDM 17.12). */
  assert_int_equal(gm_get(gm, lbr + 48, 8), 0x401000);
  assert_int_equal(gm_get(gm, lbr + 64, 8), UINT64_C(1) << 63 | 3);
  assert_int_equal(gm_get(gm, lbr + 72, 8), 0);
  assert_int_equal(gm_get(gm, lbr + 80, 8), 0);
}

/* Fixed-counter PEBS (baseline layout, PEBS_ENABLE bit 32 + j): reload
 * from the fixed reset slot 80H + 8j, applicable counters bit 32 + j. */
static void test_fixed_counter_pebs_baseline(void **state)
{
  (void)state;
  setup("icelake");
  ds(4096, 4096, 0);
  gm_put(gm, GM_DS + 0x80, W48 - 4, 8);
  WR(MSR_FIXED_CTR_CTRL, 0x3);
  HWR(MSR_FIXED_CTR0, W48);
  WR(MSR_PEBS_ENABLE, UINT64_C(1) << 32);
  WR(MSR_GLOBAL_CTRL, UINT64_C(1) << 32);
  assert_int_equal(insts(1, 2), SPMU_TICK_PEBS);
  assert_int_equal(gm_get(gm, GM_PEBS + 0x10, 8), UINT64_C(1) << 32);
  assert_int_equal(rd(lp, MSR_FIXED_CTR0), W48 - 4);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 0);
}

/* SDM 18.6.1.2: an LL_EN counter counts loads whose latency is greater
 * than MSR_PEBS_LD_LAT_THRESHOLD (never below 3); stores and clocks
 * without a memory access are ignored (decisions.md #33). */
static void test_load_latency_threshold_18_6_1_2(void **state)
{
  static const struct {
    uint64_t thresh, latency;
    uint8_t store;
    bool mem;
    uint64_t counted;
  } c[] = {
      {10, 10, 0, true, 0},   {10, 11, 0, true, 1}, {10, 100, 1, true, 0},
      {10, 100, 0, false, 0}, {2, 3, 0, true, 0},   {2, 4, 0, true, 1},
  };
  unsigned i;
  (void)state;
  for (i = 0; i < sizeof c / sizeof c[0]; i++) {
    spmu_mem_access mem = {.addr = 0x9000,
                           .source = 1,
                           .latency = c[i].latency,
                           .store = c[i].store};
    spmu_event_line line = {0x0B, 0x10, 1}; /* LATENCY_ABOVE_THRESHOLD */
    spmu_clock clk = {
        .lines = &line, .nlines = 1, .cpl = 3, .mem = c[i].mem ? &mem : NULL};
    setup("nehalem");
    WR(MSR_EVTSEL0, 0x100B | EV_USR | EV_OS | EV_EN);
    WR(MSR_PEBS_LD_LAT, c[i].thresh);
    WR(MSR_PEBS_ENABLE, UINT64_C(1) << 32 | 1);
    WR(MSR_GLOBAL_CTRL, 1);
    assert_int_equal(spmu_deliver(lp, &clk, 5, NULL), 0);
    assert_int_equal(rd(lp, MSR_PMC0), 5 * c[i].counted);
  }
}

/* SDM 17.4.9: without DTES64 and outside IA-32e mode the DS area has the
 * 32-bit layout (PEBS fields at 10H-1CH, 4 bytes each; reset at 20H) and
 * the record is the 40-byte one (Figure 17-7); in IA-32e mode the 64-bit
 * layout. */
static void test_narrow_ds_layout_17_4_9(void **state)
{
  spmu_event_line line = {0xC0, 0x00, 1};
  spmu_clock clk = {.lines = &line, .nlines = 1, .cpl = 3};
  static const unsigned legacy[8] = {0, 3, 1, 2, 6, 7, 5, 4};
  unsigned r;
  (void)state;
  setup("base=core2,dtes64=0");
  gm_put(gm, GM_DS + 0x10, GM_PEBS, 4);
  gm_put(gm, GM_DS + 0x14, GM_PEBS, 4);
  gm_put(gm, GM_DS + 0x18, GM_PEBS + 400, 4);
  gm_put(gm, GM_DS + 0x1C, GM_PEBS + 40, 4);
  gm_put(gm, GM_DS + 0x20, 0xFFFFFFFF00ULL, 8);
  WR(MSR_DS_AREA, GM_DS);
  pebs_pmc0(0xFFFFFFFFFFULL);
  assert_int_equal(spmu_deliver(lp, &clk, 1, NULL), 0);
  assert_int_equal(spmu_deliver(lp, &clk, 1, NULL),
                   SPMU_TICK_PEBS | SPMU_TICK_PMI);
  assert_int_equal(gm_get(gm, GM_DS + 0x14, 4), GM_PEBS + 40);
  assert_int_equal(gm_get(gm, GM_DS + 0x18, 4), GM_PEBS + 400);
  assert_int_equal(gm_get(gm, GM_PEBS, 4), 0x246);
  assert_int_equal(gm_get(gm, GM_PEBS + 4, 4), 0x401003);
  for (r = 0; r < 8; r++)
    assert_int_equal(gm_get(gm, GM_PEBS + 8 + 4 * r, 4), 0x1000 + legacy[r]);
  assert_int_equal(gm_get(gm, GM_PEBS + 40, 8), 0);
  assert_int_equal(rd(lp, MSR_PMC0), 0xFFFFFFFF00ULL);
  /* IA-32e mode: the same profile uses the 64-bit layout. */
  setup("base=core2,dtes64=0");
  ds(4096, 4096, 0);
  pebs_pmc0(0xFFFFFFFFFFULL);
  clk.flags = SPMU_CLK_IA32E;
  assert_int_equal(spmu_deliver(lp, &clk, 2, NULL), SPMU_TICK_PEBS);
  assert_int_equal(gm_index64(gm), GM_PEBS + 144);
}

/* SDM 18.9.4.3: PS_EN (PEBS_ENABLE bit 63, Sandy Bridge) makes PMC3 a
 * precise-store counter: its records carry the store's linear address and
 * status (98H, A0H). */
static void test_precise_store_pmc3_18_9_4_3(void **state)
{
  spmu_mem_access st = {.addr = 0x7ffe1000, .source = 0x5, .store = 1};
  spmu_event_line line = {0xCD, 0x02, 1}; /* MEM_TRANS_RETIRED.PRECISE_STORE */
  spmu_clock clk = {.lines = &line, .nlines = 1, .cpl = 3, .mem = &st};
  (void)state;
  setup("sandybridge");
  ds(4096, 4096, 0);
  WR(MSR_EVTSEL0 + 3, 0x02CD | EV_USR | EV_OS | EV_EN);
  HWR(MSR_PMC0 + 3, W48);
  WR(MSR_PEBS_ENABLE, UINT64_C(1) << 63);
  WR(MSR_GLOBAL_CTRL, 8);
  assert_int_equal(spmu_deliver(lp, &clk, 2, NULL), SPMU_TICK_PEBS);
  assert_int_equal(gm_index64(gm), GM_PEBS + 176);
  assert_int_equal(gm_get(gm, GM_PEBS + 0x98, 8), 0x7ffe1000);
  assert_int_equal(gm_get(gm, GM_PEBS + 0xA0, 8), 0x5);
  /* Haswell has no PS_EN: bit 63 is reserved there. */
  setup("haswell");
  assert_int_equal(spmu_wrmsr(lp, MSR_PEBS_ENABLE, UINT64_C(1) << 63), SPMU_GP);
}

/* kvm-unit-tests pmu_pebs: all 16 DATA_CFG combinations with several
 * counters at once (PMC0, PMC1 and every fixed counter), all overflowing
 * at the same clock: one record for all of them (applicable counters
 * 0xF00000003), its groups those of PMC0 (ADAPTIVE; decisions.md #29),
 * and every counter reloaded from its own reset slot. */
static void test_adaptive_many_counters_all_data_cfg(void **state)
{
  unsigned cfg, j;
  (void)state;
  for (cfg = 0; cfg < 16; cfg++) {
    uint64_t size = 32 + ((cfg & 1) ? 32 : 0) + ((cfg & 2) ? 144 : 0) +
                    ((cfg & 4) ? 256 : 0) + ((cfg & 8) ? 24 : 0);
    spmu_event_line lines[5] = {{0xC0, 0x00, 1},
                                {0x3C, 0x00, 1},
                                {0x00, 0x03, 1},
                                {0x00, 0x04, 1},
                                {0xC4, 0x00, 1}};
    spmu_clock clk = {.lines = lines, .nlines = 5, .cpl = 3};
    setup("icelake");
    ds(4096, 4096, W48 - 7);
    gm_put(gm, GM_DS + 0x48, W48 - 8, 8); /* PMC1 */
    for (j = 0; j < 4; j++)
      gm_put(gm, GM_DS + 0x80 + 8 * j, W48 - 10 - j, 8);
    WR(MSR_PEBS_DATA_CFG, cfg);
    WR(MSR_EVTSEL0, INST_SEL | EV_ADAPTIVE);
    WR(MSR_EVTSEL0 + 1, 0xC4 | EV_USR | EV_OS | EV_EN);
    WR(MSR_FIXED_CTR_CTRL, 0x3333);
    HWR(MSR_PMC0, W48);
    HWR(MSR_PMC0 + 1, W48);
    for (j = 0; j < 4; j++)
      HWR(MSR_FIXED_CTR0 + j, W48);
    WR(MSR_PEBS_ENABLE, 0xF00000003ULL);
    WR(MSR_GLOBAL_CTRL, 0xF00000003ULL);
    assert_int_equal(spmu_deliver(lp, &clk, 1, NULL), 0);
    assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 0xF00000003ULL);
    assert_int_equal(spmu_deliver(lp, &clk, 1, NULL), SPMU_TICK_PEBS);
    assert_int_equal(gm_index64(gm), GM_PEBS + size);
    assert_int_equal(gm_get(gm, GM_PEBS, 8), size << 48 | cfg);
    assert_int_equal(gm_get(gm, GM_PEBS + 0x10, 8), 0xF00000003ULL);
    assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 0);
    assert_int_equal(rd(lp, MSR_PMC0), W48 - 7);
    assert_int_equal(rd(lp, MSR_PMC0 + 1), W48 - 8);
    for (j = 0; j < 4; j++)
      assert_int_equal(rd(lp, MSR_FIXED_CTR0 + j), W48 - 10 - j);
  }
}

/* DATA_CFG[31:24] can ask for 256 LBR entries; the record holds at most
 * the 32 an LBR stack of these parts has (decisions.md #65; a fuzz
 * finding: the record once overran its buffer). */
static void test_adaptive_lbr_entries_clamped_to_32(void **state)
{
  (void)state;
  setup("icelake");
  ds(4096, 4096, 0);
  WR(MSR_PEBS_DATA_CFG, 8 | UINT64_C(255) << 24);
  WR(MSR_EVTSEL0, INST_SEL | EV_ADAPTIVE);
  HWR(MSR_PMC0, W48);
  WR(MSR_PEBS_ENABLE, 1);
  WR(MSR_GLOBAL_CTRL, 1);
  assert_int_equal(insts(1, 2), SPMU_TICK_PEBS);
  assert_int_equal(gm_get(gm, GM_PEBS, 8) >> 48, 32 + 32 * 24);
  assert_int_equal(gm_index64(gm), GM_PEBS + 32 + 32 * 24);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_overflow_arms_next_event_assists_18_4_4,
                                pebs_teardown),
      cmocka_unit_test_teardown(test_kvm_presets_one_page_buffer,
                                pebs_teardown),
      cmocka_unit_test_teardown(test_full_buffer_skips_assist_17_4_9,
                                pebs_teardown),
      cmocka_unit_test_teardown(test_failing_memory_drops_record,
                                pebs_teardown),
      cmocka_unit_test_teardown(test_legacy_record_formats, pebs_teardown),
      cmocka_unit_test_teardown(test_fault_like_rip_perfcap6, pebs_teardown),
      cmocka_unit_test_teardown(test_threshold_pmi_freezes_v4, pebs_teardown),
      cmocka_unit_test_teardown(test_batched_equals_single_with_pebs,
                                pebs_teardown),
      cmocka_unit_test_teardown(test_pebs_requires_plain_event, pebs_teardown),
      cmocka_unit_test_teardown(test_pebs_inv_cmask_total_cycles_arms,
                                pebs_teardown),
      cmocka_unit_test_teardown(test_armed_survives_snapshot, pebs_teardown),
      cmocka_unit_test_teardown(test_cleared_overflow_disarms_pebs_18_4_4,
                                pebs_teardown),
      cmocka_unit_test_teardown(test_host_status_write_disarms_pebs_18_4_4,
                                pebs_teardown),
      cmocka_unit_test_teardown(test_adaptive_sizes_all_data_cfg,
                                pebs_teardown),
      cmocka_unit_test_teardown(test_adaptive_bit_off_basic_only,
                                pebs_teardown),
      cmocka_unit_test_teardown(test_adaptive_lbr_entries_from_host,
                                pebs_teardown),
      cmocka_unit_test_teardown(test_adaptive_lbr_group_reads_model_stack,
                                pebs_teardown),
      cmocka_unit_test_teardown(test_adaptive_lbr_entries_clamped_to_32,
                                pebs_teardown),
      cmocka_unit_test_teardown(test_fixed_counter_pebs_baseline,
                                pebs_teardown),
      cmocka_unit_test_teardown(test_load_latency_threshold_18_6_1_2,
                                pebs_teardown),
      cmocka_unit_test_teardown(test_narrow_ds_layout_17_4_9, pebs_teardown),
      cmocka_unit_test_teardown(test_precise_store_pmc3_18_9_4_3,
                                pebs_teardown),
      cmocka_unit_test_teardown(test_adaptive_many_counters_all_data_cfg,
                                pebs_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/* The counting engine: event lines in, counter increments, filtering,
 * overflow, PMI requests, freeze, batched delivery and the deadline, rule
 * by rule (SDM Vol. 3B 18.2.1-18.2.4, 18.6.2.2; Vol. 2A Table 3-8 for
 * CPUID.0AH; Vol. 4 Table 2-2 for the MSRs; the KVM pmu test suite's
 * checks, rephrased for the model).
 *
 * Each test names the SDM rule or KVM check it covers. Every count asserted
 * is an exact value. */
#define SPMU_TEST_FIXTURE
#include "helpers.h"

#include <stdlib.h>

/* IA32_PERFEVTSELx fields (SDM 18.2.1.1 Figure 18-1; Vol. 4 Table 2-2). */
#define EV_SEL(...) EV_SEL_(__VA_ARGS__) /* EV_SEL(INST) works too */
#define EV_SEL_(ev, um) ((uint64_t)(ev) | (uint64_t)(um) << 8)

/* IA32_DEBUGCTL (SDM 17.4.1) and IA32_PERF_GLOBAL_STATUS (SDM 18.2.4.1). */

/* Architectural event encodings (SDM 18.2.1.2, Table 18-1). */
#define INST 0xC0, 0x00
#define BRANCH 0xC4, 0x00
#define CYCLES 0x3C, 0x00

static uint64_t wmask(unsigned w)
{
  return w >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << w) - 1;
}

static const spmu_profile *prof(void)
{
  return spmu_core_profile(core);
}

static uint64_t gp_mask(void)
{
  return wmask(prof()->gp_width);
}

static uint64_t fx_mask(void)
{
  return wmask(prof()->fixed_width);
}

/* Every enable bit IA32_PERF_GLOBAL_CTRL has for the profile. */
static uint64_t all_enables(const spmu_profile *p)
{
  return wmask(p->gp) | (uint64_t)p->fixed_mask << 32;
}

/* The line fixed counter j counts (events.h; SDM 18.2.2.1). */
static spmu_event_line fixed_line(unsigned j, uint32_t count)
{
  spmu_event_line l = {0x00, (uint8_t)(j + 1), count};
  if (j == 0)
    l = (spmu_event_line){INST, count};
  else if (j == 1)
    l = (spmu_event_line){CYCLES, count};
  return l;
}

/* The host's PMI callback: counts PMIs. */
static void on_pmi(void *opaque, spmu_lp *l)
{
  (void)l;
  ++*(unsigned *)opaque;
}

static void hook(spmu_core *c, unsigned *count)
{
  spmu_host h = {.opaque = count, .pmi = on_pmi};
  *count = 0;
  assert_int_equal(spmu_core_set_host(c, &h), SPMU_OK);
}

/* Deliver `clocks` repetitions of one clock with one line; returns the
 * TICK bits and checks the whole batch was consumed unless a PMI stopped
 * it. */
static int feed_on(spmu_lp *l, uint8_t ev, uint8_t um, uint32_t count,
                   uint8_t cpl, uint8_t flags, uint64_t clocks)
{
  spmu_event_line line = {ev, um, count};
  spmu_clock clk = {.lines = &line, .nlines = 1, .cpl = cpl, .flags = flags};
  uint64_t consumed = 0;
  int rc = spmu_deliver(l, &clk, clocks, &consumed);
  assert_true(rc >= 0);
  if (!(rc & SPMU_TICK_PMI))
    assert_int_equal(consumed, clocks);
  return rc;
}

static int feed(uint8_t ev, uint8_t um, uint32_t count, uint8_t cpl,
                uint64_t clocks)
{
  return feed_on(lp, ev, um, count, cpl, 0, clocks);
}

/* The whole core as a snapshot blob (malloc'd; caller frees). */
static unsigned char *blob(spmu_core *c, size_t *len)
{
  unsigned char *b;
  *len = 0;
  assert_int_equal(spmu_core_save(c, NULL, 0, len), SPMU_ENOSPC);
  b = malloc(*len);
  assert_non_null(b);
  assert_int_equal(spmu_core_save(c, b, *len, len), SPMU_OK);
  return b;
}

static void assert_same_state(spmu_core *a, spmu_core *b)
{
  size_t la, lb;
  unsigned char *ba = blob(a, &la), *bb = blob(b, &lb);
  assert_int_equal(la, lb);
  assert_memory_equal(ba, bb, la);
  free(ba);
  free(bb);
}

/* ------------------------------------------------------------------------
 * 1. KVM pmu test "check_gp_counters" / "check_fixed_counters": a loop of N
 *    iterations of 10 instructions and 1 branch, fed as events. Each
 *    iteration is ONE clock with the lines {C0H/00H x10, C4H/00H x1}.
 *    SDM 18.2.2.2 / 18.2.4.1 flow: configure everything with GLOBAL_CTRL
 *    clear, set GLOBAL_CTRL last; on v1 (no GLOBAL_CTRL) EN alone enables.
 *    Two passes swap which half of the GP counters counts which event, so
 *    every GP counter is checked with both.
 * ---------------------------------------------------------------------- */
static void test_kvm_loop_10_instructions_1_branch_every_preset(void **state)
{
  const unsigned N = 1000;
  const spmu_event_line lines[] = {{INST, 10}, {BRANCH, 1}};
  const spmu_clock clk = {.lines = lines, .nlines = 2, .cpl = 3, .flags = 0};
  const char *name;
  (void)state;
  FOR_EACH_PRESET(name) {
    unsigned pass;
    for (pass = 0; pass < 2; pass++) {
      const spmu_profile *p;
      uint64_t fctl = 0, consumed;
      unsigned i, j, it, pmis;
      use(name);
      p = prof();
      hook(core, &pmis);
      if (p->version >= 2)
        WR(MSR_GLOBAL_CTRL, 0);
      for (i = 0; i < p->gp; i++) {
        bool inst = (i < p->gp / 2) != (pass == 1);
        WR(MSR_PMC0 + i, 0);
        WR(MSR_EVTSEL0 + i,
           EV_EN | EV_USR | EV_OS | (inst ? EV_SEL(INST) : EV_SEL(BRANCH)));
      }
      for (j = 0; j < SPMU_MAX_FIXED; j++)
        if (p->fixed_mask >> j & 1) {
          WR(MSR_FIXED_CTR0 + j, 0);
          fctl |= UINT64_C(3) << (4 * j);
        }
      if (p->version >= 2) {
        WR(MSR_FIXED_CTR_CTRL, fctl);
        WR(MSR_GLOBAL_CTRL, all_enables(p)); /* last */
      }
      for (it = 0; it < N; it++) {
        assert_int_equal(spmu_deliver(lp, &clk, 1, &consumed), 0);
        assert_int_equal(consumed, 1);
      }
      for (i = 0; i < p->gp; i++) {
        bool inst = (i < p->gp / 2) != (pass == 1);
        assert_int_equal(rd(lp, MSR_PMC0 + i), inst ? 10u * N : N);
      }
      /* Fixed counter 0 is INST_RETIRED.ANY; the others see no line. */
      for (j = 0; j < SPMU_MAX_FIXED; j++)
        if (p->fixed_mask >> j & 1)
          assert_int_equal(rd(lp, MSR_FIXED_CTR0 + j), j == 0 ? 10u * N : 0);
      if (p->version >= 2)
        assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 0);
      assert_int_equal(pmis, 0);
    }
  }
}

/* ------------------------------------------------------------------------
 * 2. KVM "check_counter_overflow"; SDM 18.2.2.2, 18.2.5, 18.6.2.2: preset
 *    a GP counter to 1-C through IA32_PMCx (sign extension from bit 31),
 *    deliver C events (C clocks of one event): counter = 1, its STATUS bit
 *    set, exactly one PMI iff INT; OVF_CTRL with that status clears it.
 * ---------------------------------------------------------------------- */
static void test_kvm_counter_overflow_gp_18_2_2_2(void **state)
{
  const uint64_t C = 1000;
  const char *name;
  (void)state;
  FOR_EACH_PRESET(name) {
    unsigned i, pmis, intr;
    use(name);
    hook(core, &pmis);
    for (i = 0; i < prof()->gp; i++)
      for (intr = 0; intr < 2; intr++) {
        uint64_t k, status;
        pmis = 0;
        if (prof()->version >= 2)
          WR(MSR_GLOBAL_CTRL, 0);
        WR(MSR_EVTSEL0 + i, 0);
        WR(MSR_PMC0 + i, (uint64_t)(1 - (int64_t)C));
        assert_int_equal(rd(lp, MSR_PMC0 + i), (1 - C) & gp_mask());
        WR(MSR_EVTSEL0 + i,
           EV_EN | EV_USR | EV_OS | EV_SEL(INST) | (intr ? EV_INT : 0));
        if (prof()->version >= 2)
          WR(MSR_GLOBAL_CTRL, UINT64_C(1) << i);
        for (k = 0; k < C; k++)
          feed(INST, 1, 0, 1);
        assert_int_equal(rd(lp, MSR_PMC0 + i), 1);
        assert_int_equal(pmis, intr ? 1 : 0);
        if (prof()->version >= 2) {
          status = rd(lp, MSR_GLOBAL_STATUS);
          assert_int_equal(status, UINT64_C(1) << i);
          WR(MSR_GLOBAL_OVF_CTRL, status);
          assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 0);
        }
        WR(MSR_EVTSEL0 + i, 0);
      }
  }
}

/* Same for fixed counter j with its PMI bit (FIXED_CTR_CTRL bit 4j+3,
 * SDM 18.2.2.1): status bit 32+j (SDM 18.2.2.2 Figure 18-4). */
static void test_kvm_counter_overflow_fixed_18_2_2_1(void **state)
{
  const uint64_t C = 1000;
  const char *name;
  (void)state;
  FOR_EACH_PRESET(name) {
    unsigned j, pmis, intr;
    use(name);
    if (prof()->version < 2)
      continue;
    hook(core, &pmis);
    for (j = 0; j < SPMU_MAX_FIXED; j++) {
      if (!(prof()->fixed_mask >> j & 1))
        continue;
      for (intr = 0; intr < 2; intr++) {
        spmu_event_line line = fixed_line(j, 1);
        uint64_t k, status;
        pmis = 0;
        WR(MSR_GLOBAL_CTRL, 0);
        WR(MSR_FIXED_CTR_CTRL, 0);
        WR(MSR_FIXED_CTR0 + j, (1 - C) & fx_mask());
        WR(MSR_FIXED_CTR_CTRL, (UINT64_C(3) | (intr ? 8 : 0)) << (4 * j));
        WR(MSR_GLOBAL_CTRL, UINT64_C(1) << (32 + j));
        for (k = 0; k < C; k++)
          feed(line.event, line.umask, 1, 0, 1);
        assert_int_equal(rd(lp, MSR_FIXED_CTR0 + j), 1);
        assert_int_equal(pmis, intr ? 1 : 0);
        status = rd(lp, MSR_GLOBAL_STATUS);
        assert_int_equal(status, UINT64_C(1) << (32 + j));
        WR(MSR_GLOBAL_OVF_CTRL, status);
        assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 0);
      }
    }
  }
}

/* SDM 18.2.2.2: several counters overflowing in one clock request
 * one PMI (one callback), every STATUS bit set. */
static void test_overflow_same_clock_one_pmi_18_2_2_2(void **state)
{
  const spmu_event_line lines[] = {{INST, 1}, {BRANCH, 1}};
  const spmu_clock clk = {.lines = lines, .nlines = 2, .cpl = 0, .flags = 0};
  uint64_t consumed;
  unsigned pmis;
  (void)state;
  use("skylake");
  hook(core, &pmis);
  WR(MSR_GLOBAL_CTRL, 0);
  WR(MSR_PMC0, 0xffffffff);
  WR(MSR_PMC0 + 1, 0xffffffff);
  WR(MSR_FIXED_CTR0, fx_mask());
  WR(MSR_EVTSEL0, EV_EN | EV_OS | EV_INT | EV_SEL(INST));
  WR(MSR_EVTSEL0 + 1, EV_EN | EV_OS | EV_INT | EV_SEL(BRANCH));
  WR(MSR_FIXED_CTR_CTRL, 0xb);
  WR(MSR_GLOBAL_CTRL, 0x100000003ULL);
  assert_int_equal(spmu_deliver(lp, &clk, 1, &consumed), SPMU_TICK_PMI);
  assert_int_equal(consumed, 1);
  assert_int_equal(pmis, 1);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 0x100000003ULL);
  assert_int_equal(rd(lp, MSR_PMC0), 0);
  assert_int_equal(rd(lp, MSR_PMC0 + 1), 0);
  assert_int_equal(rd(lp, MSR_FIXED_CTR0), 0);

  /* The same inside a batch: both wrap at clock 4 of 10 -> one PMI. */
  WR(MSR_GLOBAL_OVF_CTRL, 0x100000003ULL);
  WR(MSR_PMC0, (uint64_t)-4);
  WR(MSR_PMC0 + 1, (uint64_t)-4);
  WR(MSR_FIXED_CTR0, (UINT64_C(0) - 4) & fx_mask());
  pmis = 0;
  assert_int_equal(spmu_deliver(lp, &clk, 10, &consumed), SPMU_TICK_PMI);
  assert_int_equal(consumed, 4);
  assert_int_equal(pmis, 1);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 0x100000003ULL);
}

/* ------------------------------------------------------------------------
 * 3. SDM 18.2.1.1 (CMASK, INV, E, USR, OS): per-clock increments
 *    1,2,3,1,0,4 on one line.
 * ---------------------------------------------------------------------- */
static const uint32_t seq[] = {1, 2, 3, 1, 0, 4};

static uint64_t count_seq(uint64_t evtsel)
{
  size_t k;
  use("skylake");
  WR(MSR_GLOBAL_CTRL, 0);
  WR(MSR_EVTSEL0, evtsel | EV_EN | EV_SEL(INST));
  WR(MSR_GLOBAL_CTRL, 1);
  for (k = 0; k < sizeof seq / sizeof seq[0]; k++)
    feed(INST, seq[k], 3, 1);
  return rd(lp, MSR_PMC0);
}

/* CMASK = 2: +1 in each clock whose increment >= 2 (2, 3, 4). */
static void test_cmask_counts_clocks_ge_cmask_18_2_1_1(void **state)
{
  (void)state;
  assert_int_equal(count_seq(EV_USR | EV_CMASK(2)), 3);
}

/* INV with CMASK = 2: +1 in each clock whose increment < 2 (1, 1, 0). */
static void test_cmask_inv_counts_clocks_lt_cmask_18_2_1_1(void **state)
{
  (void)state;
  assert_int_equal(count_seq(EV_USR | EV_CMASK(2) | EV_INV), 3);
  /* With CMASK = 2 both comparisons give 3 on this sequence; CMASK = 3
   * tells them apart: < 3 in 1,2,1,0 -> 4 (>= 3 would be 3,4 -> 2). */
  assert_int_equal(count_seq(EV_USR | EV_CMASK(3) | EV_INV), 4);
  assert_int_equal(count_seq(EV_USR | EV_CMASK(3)), 2);
  /* INV with E: rising edges of (inc < 3): T T F T T F -> clocks 1, 4. */
  assert_int_equal(count_seq(EV_USR | EV_CMASK(3) | EV_INV | EV_E), 2);
}

/* E with CMASK = 2: rising edges of (inc >= 2) only: F T T F F T -> 2. */
static void test_edge_cmask_counts_rising_edges_18_2_1_1(void **state)
{
  (void)state;
  assert_int_equal(count_seq(EV_USR | EV_CMASK(2) | EV_E), 2);
}

/* CMASK = 0: the raw increments are added: 1+2+3+1+0+4 = 11. */
static void test_cmask_zero_adds_raw_increments_18_2_1_1(void **state)
{
  (void)state;
  assert_int_equal(count_seq(EV_USR), 11);
  /* INV is ignored with CMASK = 0 (SDM 18.2.1.1: INV inverts the CMASK
   * comparison only). */
  assert_int_equal(count_seq(EV_USR | EV_INV), 11);
}

/* Edge state is kept across separate deliveries and across batches: a
 * condition that holds in two consecutive calls counts once. */
static void test_edge_state_kept_across_calls_18_2_1_1(void **state)
{
  (void)state;
  use("skylake");
  WR(MSR_GLOBAL_CTRL, 0);
  WR(MSR_EVTSEL0, EV_EN | EV_USR | EV_E | EV_CMASK(2) | EV_SEL(INST));
  WR(MSR_GLOBAL_CTRL, 1);
  feed(INST, 3, 3, 1);
  feed(INST, 3, 3, 50);
  feed(INST, 5, 3, 1);
  assert_int_equal(rd(lp, MSR_PMC0), 1);
  feed(INST, 1, 3, 7);
  feed(INST, 2, 3, 9);
  assert_int_equal(rd(lp, MSR_PMC0), 2);
}

/* The edge state left by clocks of counters without CMASK or E (the
 * engine's plain path keeps it as the lines seen) is what a counter
 * reprogrammed with E starts from: "the event occurred" in the last clock
 * (decisions.md #19). */
static void test_edge_state_after_plain_clocks_18_2_1_1(void **state)
{
  (void)state;
  use("skylake");
  WR(MSR_GLOBAL_CTRL, 0);
  WR(MSR_EVTSEL0, EV_EN | EV_USR | EV_SEL(INST));
  WR(MSR_EVTSEL0 + 1, EV_EN | EV_USR | EV_SEL(BRANCH));
  WR(MSR_GLOBAL_CTRL, 3);
  feed(INST, 2, 3, 1); /* PMC0's condition true, PMC1's false */
  assert_int_equal(rd(lp, MSR_PMC0), 2);
  WR(MSR_EVTSEL0, EV_EN | EV_USR | EV_E | EV_CMASK(1) | EV_SEL(INST));
  WR(MSR_EVTSEL0 + 1, EV_EN | EV_USR | EV_E | EV_CMASK(1) | EV_SEL(BRANCH));
  {
    spmu_event_line l[2] = {{INST, 1}, {BRANCH, 1}};
    spmu_clock clk = {.lines = l, .nlines = 2, .cpl = 3};
    assert_int_equal(spmu_deliver(lp, &clk, 1, NULL), 0);
  }
  /* PMC0: true -> true, no edge. PMC1: false -> true, one edge. */
  assert_int_equal(rd(lp, MSR_PMC0), 2);
  assert_int_equal(rd(lp, MSR_PMC0 + 1), 1);
  /* A clock at CPL 0 is filtered for USR counters: their condition is
   * false there, so the next USR clock is a rising edge again. */
  WR(MSR_EVTSEL0, EV_EN | EV_USR | EV_SEL(INST));
  feed(INST, 4, 0, 1);
  WR(MSR_EVTSEL0, EV_EN | EV_USR | EV_E | EV_CMASK(1) | EV_SEL(INST));
  feed(INST, 4, 3, 1);
  assert_int_equal(rd(lp, MSR_PMC0), 3);
}

/* SDM 18.2.1.1: a counter adds the increments of the lines whose event
 * select and umask both match its own, and nothing for any other line.
 * Twelve counters on twelve different lines (8 GP + 4 fixed), clocks of
 * 0-16 lines drawn from those and eight lines no counter counts, with
 * repeats, at random CPLs: every counter equals the sum the test computes
 * itself. With 1 or 2 distinct lines the engine compares keys instead of
 * hashing them; both are checked. */
static void test_many_lines_exact_sums_18_2_1_1(void **state)
{
  static const spmu_event_line keys[20] = {{0xC0, 0x00, 0},
                                           {0x3C, 0x00, 0},
                                           {0x00, 0x03, 0},
                                           {0x00, 0x04, 0},
                                           {0xC4, 0x00, 0},
                                           {0xC5, 0x00, 0},
                                           {0x2E, 0x4F, 0},
                                           {0x2E, 0x41, 0},
                                           {0xD1, 0x01, 0},
                                           {0xD1, 0x02, 0},
                                           {0x0E, 0x01, 0},
                                           {0xA3, 0x04, 0},
                                           /* counted by nobody */
                                           {0xC0, 0x01, 0},
                                           {0x01, 0xC0, 0},
                                           {0x3C, 0x01, 0},
                                           {0x00, 0x05, 0},
                                           {0xC4, 0x20, 0},
                                           {0x2E, 0x00, 0},
                                           {0xFF, 0xFF, 0},
                                           {0x00, 0x00, 0}};
  uint64_t seed = 0x2545F4914F6CDD1DULL;
  unsigned ngp;
  (void)state;
  for (ngp = 1; ngp <= 8; ngp += 7) {
    uint64_t want[12] = {0}, ctrl = 0, fctl = 0;
    unsigned i, c, clock, nfixed = ngp == 8 ? 4 : 0;
    use("icelake");
    /* GP i counts keys[4 + i] (USR only for odd i), fixed j counts
     * keys[j] (ring 3, or user only for j = 2). */
    for (i = 0; i < ngp; i++) {
      WR(MSR_EVTSEL0 + i, EV_EN | EV_USR | (i & 1 ? 0 : EV_OS) |
                              EV_SEL(keys[4 + i].event, keys[4 + i].umask));
      ctrl |= UINT64_C(1) << i;
    }
    for (i = 0; i < nfixed; i++) {
      fctl |= (uint64_t)(i == 2 ? 2 : 3) << (4 * i);
      ctrl |= UINT64_C(1) << (32 + i);
    }
    WR(MSR_FIXED_CTR_CTRL, fctl);
    WR(MSR_GLOBAL_CTRL, ctrl);
    for (clock = 0; clock < 2000; clock++) {
      spmu_event_line l[16];
      size_t n = (unsigned)xorshift64(&seed) % 17, k;
      uint8_t cpl = (uint8_t)((unsigned)xorshift64(&seed) % 4);
      spmu_clock clk = {.lines = l, .nlines = n, .cpl = cpl};
      for (k = 0; k < n; k++) {
        l[k] = keys[(unsigned)xorshift64(&seed) % 20];
        l[k].count = (unsigned)xorshift64(&seed) % 7;
      }
      assert_int_equal(spmu_deliver(lp, &clk, 1, NULL), 0);
      for (k = 0; k < n; k++) {
        for (i = 0; i < ngp; i++)
          if (l[k].event == keys[4 + i].event &&
              l[k].umask == keys[4 + i].umask && (cpl != 0 || !(i & 1)))
            want[i] += l[k].count;
        for (i = 0; i < nfixed; i++)
          if (l[k].event == keys[i].event && l[k].umask == keys[i].umask &&
              (cpl != 0 || i != 2))
            want[8 + i] += l[k].count;
      }
    }
    for (c = 0; c < ngp; c++)
      assert_int_equal(rd(lp, MSR_PMC0 + c), want[c]);
    for (c = 0; c < nfixed; c++)
      assert_int_equal(rd(lp, MSR_FIXED_CTR0 + c), want[8 + c]);
    assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 0);
  }
}

/* SDM 18.2.2.2 with the full 64-bit width a profile may give (gp_width=64,
 * CPUID.0AH:EAX[23:16]): the counter wraps at 2^64, sets its status bit and
 * requests the PMI, one clock at a time and in a batch. */
static void test_overflow_at_64_bit_width_18_2_2_2(void **state)
{
  unsigned pmis, batch;
  (void)state;
  for (batch = 0; batch < 2; batch++) {
    use("base=skylake,gp_width=64");
    hook(core, &pmis);
    WR(MSR_EVTSEL0, EV_EN | EV_USR | EV_INT | EV_SEL(INST));
    HWR(MSR_PMC0, UINT64_MAX - 4);
    WR(MSR_GLOBAL_CTRL, 1);
    if (batch) {
      assert_int_equal(feed(INST, 2, 3, 10), SPMU_TICK_PMI);
    } else {
      assert_int_equal(feed(INST, 2, 3, 1), 0);
      assert_int_equal(feed(INST, 2, 3, 1), 0);
      assert_int_equal(feed(INST, 2, 3, 1), SPMU_TICK_PMI);
    }
    /* 2^64 - 5 + 6 = 2^64 + 1 -> 1. */
    assert_int_equal(rd(lp, MSR_PMC0), 1);
    assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 1);
    assert_int_equal(pmis, 1);
  }
}

/* USR counts only at CPL > 0, OS only at CPL 0 (SDM 18.2.1.1). */
static void test_usr_os_by_cpl_18_2_1_1(void **state)
{
  unsigned cpl;
  (void)state;
  use("skylake");
  WR(MSR_GLOBAL_CTRL, 0);
  WR(MSR_EVTSEL0, EV_EN | EV_USR | EV_SEL(INST));
  WR(MSR_EVTSEL0 + 1, EV_EN | EV_OS | EV_SEL(INST));
  WR(MSR_EVTSEL0 + 2, EV_EN | EV_USR | EV_OS | EV_SEL(INST));
  WR(MSR_EVTSEL0 + 3, EV_EN | EV_SEL(INST)); /* neither: never */
  WR(MSR_GLOBAL_CTRL, 0xf);
  for (cpl = 0; cpl < 4; cpl++)
    feed(INST, 1u << cpl, (uint8_t)cpl, 1); /* 1, 2, 4, 8 */
  assert_int_equal(rd(lp, MSR_PMC0), 2 + 4 + 8);
  assert_int_equal(rd(lp, MSR_PMC0 + 1), 1);
  assert_int_equal(rd(lp, MSR_PMC0 + 2), 15);
  assert_int_equal(rd(lp, MSR_PMC0 + 3), 0);
}

/* Only the line the EVTSEL programs counts (event AND umask match). */
static void test_event_and_umask_must_match_18_2_1_1(void **state)
{
  const spmu_event_line lines[] = {
      {0x2E, 0x4F, 3}, {0x2E, 0x41, 5}, {0x2E, 0x4F, 2}, {0xC0, 0x4F, 7}};
  const spmu_clock clk = {.lines = lines, .nlines = 4, .cpl = 0, .flags = 0};
  (void)state;
  use("skylake");
  WR(MSR_GLOBAL_CTRL, 0);
  WR(MSR_EVTSEL0, EV_EN | EV_OS | EV_SEL(0x2E, 0x4F));
  WR(MSR_EVTSEL0 + 1, EV_EN | EV_OS | EV_SEL(0x2E, 0x41));
  WR(MSR_GLOBAL_CTRL, 0x3);
  assert_int_equal(spmu_deliver(lp, &clk, 1, NULL), 0);
  assert_int_equal(rd(lp, MSR_PMC0), 5);
  assert_int_equal(rd(lp, MSR_PMC0 + 1), 5);
}

/* ------------------------------------------------------------------------
 * 4. KVM: writing 0 to a running counter restarts it; writing
 *    all ones then one event overflows (SDM 18.2.5).
 * ---------------------------------------------------------------------- */
static void test_write_zero_restarts_running_counter_18_2_5(void **state)
{
  (void)state;
  use("skylake");
  WR(MSR_GLOBAL_CTRL, 0);
  WR(MSR_EVTSEL0, EV_EN | EV_USR | EV_OS | EV_SEL(INST));
  WR(MSR_FIXED_CTR_CTRL, 0x3);
  WR(MSR_GLOBAL_CTRL, 0x100000001ULL);
  feed(INST, 1, 0, 5);
  assert_int_equal(rd(lp, MSR_PMC0), 5);
  assert_int_equal(rd(lp, MSR_FIXED_CTR0), 5);
  WR(MSR_PMC0, 0);
  WR(MSR_FIXED_CTR0, 0);
  feed(INST, 1, 0, 3);
  assert_int_equal(rd(lp, MSR_PMC0), 3);
  assert_int_equal(rd(lp, MSR_FIXED_CTR0), 3);
}

static void all_ones_then_one_event(uint32_t msr, uint64_t value, bool host)
{
  unsigned pmis;
  use("skylake");
  hook(core, &pmis);
  WR(MSR_GLOBAL_CTRL, 0);
  WR(MSR_EVTSEL0, EV_EN | EV_USR | EV_OS | EV_INT | EV_SEL(INST));
  WR(MSR_GLOBAL_CTRL, 1);
  if (host)
    HWR(msr, value);
  else
    WR(msr, value);
  assert_int_equal(rd(lp, MSR_PMC0), gp_mask());
  assert_int_equal(feed(INST, 1, 0, 1), SPMU_TICK_PMI);
  assert_int_equal(rd(lp, MSR_PMC0), 0);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 1);
  assert_int_equal(pmis, 1);
}

static void test_write_all_ones_then_one_event_overflows_18_2_5(void **state)
{
  (void)state;
  /* 0xffffffff through IA32_PMC0 sign-extends to all ones. */
  all_ones_then_one_event(MSR_PMC0, 0xffffffff, false);
  /* Full width through IA32_A_PMC0 (PERF_CAPABILITIES.FW_WRITE). */
  all_ones_then_one_event(MSR_A_PMC0, wmask(48), false);
  /* Host path: the full counter as given. */
  all_ones_then_one_event(MSR_PMC0, wmask(48), true);
}

/* ------------------------------------------------------------------------
 * 5. SDM 18.2.2.2 / 18.2.4.1: a GP counter counts iff EN & GLOBAL_CTRL bit
 *    (v2+) & !CTR_Frz (v4+); a fixed counter iff its ENABLE field matches
 *    the CPL & its GLOBAL_CTRL bit (& !CTR_Frz).
 * ---------------------------------------------------------------------- */
static void test_gp_enable_expression_18_2_2_2(void **state)
{
  unsigned en, gc, frz;
  (void)state;
  for (en = 0; en < 2; en++)
    for (gc = 0; gc < 2; gc++)
      for (frz = 0; frz < 2; frz++) {
        use("skylake");
        WR(MSR_GLOBAL_CTRL, 0);
        WR(MSR_EVTSEL0, (en ? EV_EN : 0) | EV_USR | EV_OS | EV_SEL(INST));
        if (frz)
          WR(MSR_GLOBAL_STATUS_SET, ST_CTR_FRZ);
        WR(MSR_GLOBAL_CTRL, gc ? 0xf : 0xe);
        feed(INST, 7, 3, 3);
        assert_int_equal(rd(lp, MSR_PMC0), en && gc && !frz ? 21 : 0);
      }
  /* v3 (haswell): EN & GLOBAL_CTRL. */
  use("haswell");
  WR(MSR_GLOBAL_CTRL, 0);
  WR(MSR_EVTSEL0, EV_EN | EV_USR | EV_SEL(INST));
  feed(INST, 7, 3, 1);
  assert_int_equal(rd(lp, MSR_PMC0), 0);
  WR(MSR_GLOBAL_CTRL, 1);
  feed(INST, 7, 3, 1);
  assert_int_equal(rd(lp, MSR_PMC0), 7);
  /* v1 (core-duo): no GLOBAL_CTRL, EN alone enables. */
  use("core-duo");
  WR(MSR_EVTSEL0, EV_USR | EV_SEL(INST));
  feed(INST, 7, 3, 1);
  assert_int_equal(rd(lp, MSR_PMC0), 0);
  WR(MSR_EVTSEL0, EV_EN | EV_USR | EV_SEL(INST));
  feed(INST, 7, 3, 1);
  assert_int_equal(rd(lp, MSR_PMC0), 7);
}

/* SDM 18.2.2.1 (Figure 18-2): ENABLE 0 off, 1 CPL 0, 2 CPL > 0, 3 all rings;
 * AND'ed with the GLOBAL_CTRL bit; CTR_Frz stops fixed counters too. */
static void test_fixed_enable_field_and_global_ctrl_18_2_2_1(void **state)
{
  unsigned en, gc, cpl;
  (void)state;
  for (en = 0; en < 4; en++)
    for (gc = 0; gc < 2; gc++)
      for (cpl = 0; cpl < 4; cpl++) {
        bool ring = cpl == 0 ? (en & 1) : (en & 2);
        use("skylake");
        WR(MSR_GLOBAL_CTRL, 0);
        WR(MSR_FIXED_CTR_CTRL, (uint64_t)en << 4); /* fixed counter 1 */
        WR(MSR_GLOBAL_CTRL, gc ? 0x200000000ULL : 0x500000000ULL);
        feed(CYCLES, 2, (uint8_t)cpl, 5);
        assert_int_equal(rd(lp, MSR_FIXED_CTR0 + 1), ring && gc ? 10 : 0);
      }
  use("skylake");
  WR(MSR_FIXED_CTR_CTRL, 0x30);
  WR(MSR_GLOBAL_STATUS_SET, ST_CTR_FRZ);
  WR(MSR_GLOBAL_CTRL, 0x200000000ULL);
  feed(CYCLES, 2, 0, 5);
  assert_int_equal(rd(lp, MSR_FIXED_CTR0 + 1), 0);
}

/* SDM 18.2.2.2: GLOBAL_CTRL = 0 stops every counter. */
static void test_global_ctrl_clear_nothing_counts_18_2_2_2(void **state)
{
  const spmu_event_line lines[] = {{INST, 3}, {CYCLES, 3}, {0x00, 0x03, 3}};
  const spmu_clock clk = {.lines = lines, .nlines = 3, .cpl = 0, .flags = 0};
  unsigned i;
  (void)state;
  use("skylake");
  for (i = 0; i < 4; i++)
    WR(MSR_EVTSEL0 + i, EV_EN | EV_USR | EV_OS | EV_SEL(INST));
  WR(MSR_FIXED_CTR_CTRL, 0x333);
  WR(MSR_GLOBAL_CTRL, 0);
  assert_int_equal(spmu_deliver(lp, &clk, 100, NULL), 0);
  for (i = 0; i < 4; i++)
    assert_int_equal(rd(lp, MSR_PMC0 + i), 0);
  for (i = 0; i < 3; i++)
    assert_int_equal(rd(lp, MSR_FIXED_CTR0 + i), 0);
}

/* ------------------------------------------------------------------------
 * 6. Freeze on PMI (SDM 18.2.4.1, 17.4.7):
 *    the freeze happens at the clock of the overflow.
 * ---------------------------------------------------------------------- */
/* Program PMC0 (INT, preset -3), PMC1 and fixed counter 0, all counting
 * instructions, with the given DEBUGCTL; GLOBAL_CTRL last. */
static void freeze_setup(uint64_t debugctl, uint64_t int_bit)
{
  WR(MSR_GLOBAL_CTRL, 0);
  WR(MSR_DEBUGCTL, debugctl);
  WR(MSR_EVTSEL0, EV_EN | EV_USR | EV_OS | int_bit | EV_SEL(INST));
  WR(MSR_PMC0, (uint64_t)-3);
  WR(MSR_EVTSEL0 + 1, EV_EN | EV_USR | EV_OS | EV_SEL(INST));
  WR(MSR_PMC0 + 1, 0);
  WR(MSR_FIXED_CTR_CTRL, 0x3);
  WR(MSR_FIXED_CTR0, 0);
  WR(MSR_GLOBAL_CTRL, 0x100000003ULL);
}

static void assert_counts(uint64_t pmc0, uint64_t pmc1, uint64_t fx0)
{
  assert_int_equal(rd(lp, MSR_PMC0), pmc0 & gp_mask());
  assert_int_equal(rd(lp, MSR_PMC0 + 1), pmc1);
  assert_int_equal(rd(lp, MSR_FIXED_CTR0), fx0);
}

/* v2-v3 legacy: the overflow clears GLOBAL_CTRL (and DEBUGCTL.LBR with
 * FREEZE_LBRS_ON_PMI) at that clock; nothing counts until software sets
 * GLOBAL_CTRL again. */
static void test_freeze_legacy_clears_global_ctrl_18_2_4_1(void **state)
{
  const char *name;
  (void)state;
  FOR_EACH_PRESET(name) {
    unsigned pmis;
    use(name);
    if (prof()->version < 2 || prof()->version > 3)
      continue;
    hook(core, &pmis);
    freeze_setup(DBG_LBR | DBG_FREEZE_LBRS | DBG_FREEZE_PERFMON, EV_INT);
    assert_int_equal(feed(INST, 1, 0, 2), 0);
    assert_int_equal(rd(lp, MSR_GLOBAL_CTRL), 0x100000003ULL);
    assert_int_equal(feed(INST, 1, 0, 1), SPMU_TICK_PMI); /* clock 3 */
    assert_int_equal(pmis, 1);
    assert_int_equal(rd(lp, MSR_GLOBAL_CTRL), 0);
    assert_int_equal(rd(lp, MSR_DEBUGCTL),
                     DBG_FREEZE_LBRS | DBG_FREEZE_PERFMON);
    assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 1);
    /* The overflowing clock itself is counted by every counter. */
    assert_counts(0, 3, 3);
    /* Frozen: later events are not counted, by any counter. */
    assert_int_equal(feed(INST, 1, 0, 5), 0);
    assert_counts(0, 3, 3);
    /* Software acknowledges and re-enables: counting resumes. */
    WR(MSR_GLOBAL_OVF_CTRL, 1);
    WR(MSR_GLOBAL_CTRL, 0x100000003ULL);
    assert_int_equal(feed(INST, 1, 0, 2), 0);
    assert_counts(2, 5, 5);
    assert_int_equal(pmis, 1);
  }
}

/* Legacy, FREEZE_PERFMON_ON_PMI without FREEZE_LBRS_ON_PMI: DEBUGCTL.LBR
 * stays set; FREEZE_LBRS alone clears LBR but GLOBAL_CTRL keeps counting. */
static void
test_freeze_legacy_lbr_bit_only_with_freeze_lbrs_18_2_4_1(void **state)
{
  (void)state;
  use("haswell");
  freeze_setup(DBG_LBR | DBG_FREEZE_PERFMON, EV_INT);
  feed(INST, 1, 0, 3);
  assert_int_equal(rd(lp, MSR_GLOBAL_CTRL), 0);
  assert_int_equal(rd(lp, MSR_DEBUGCTL), DBG_LBR | DBG_FREEZE_PERFMON);
  use("haswell");
  freeze_setup(DBG_LBR | DBG_FREEZE_LBRS, EV_INT);
  feed(INST, 1, 0, 3);
  assert_int_equal(rd(lp, MSR_GLOBAL_CTRL), 0x100000003ULL);
  assert_int_equal(rd(lp, MSR_DEBUGCTL), DBG_FREEZE_LBRS);
  feed(INST, 1, 0, 2);
  assert_counts(2, 5, 5);
}

/* v4+ streamlined: GLOBAL_CTRL untouched, STATUS.CTR_Frz (and LBR_Frz with
 * FREEZE_LBRS_ON_PMI) set, DEBUGCTL.LBR untouched; nothing counts while
 * CTR_Frz is set (the SDM 18.2.4.1 expression, other counters too, even after a
 * GLOBAL_CTRL write); STATUS_RESET of bit 59 resumes counting. */
static void test_freeze_streamlined_ctr_frz_18_2_4_1(void **state)
{
  const char *name;
  (void)state;
  FOR_EACH_PRESET(name) {
    unsigned pmis;
    use(name);
    if (prof()->version < 4)
      continue;
    hook(core, &pmis);
    freeze_setup(DBG_LBR | DBG_FREEZE_LBRS | DBG_FREEZE_PERFMON, EV_INT);
    assert_int_equal(feed(INST, 1, 0, 2), 0);
    assert_int_equal(feed(INST, 1, 0, 1), SPMU_TICK_PMI); /* clock 3 */
    assert_int_equal(pmis, 1);
    assert_int_equal(rd(lp, MSR_GLOBAL_CTRL), 0x100000003ULL);
    assert_int_equal(rd(lp, MSR_DEBUGCTL),
                     DBG_LBR | DBG_FREEZE_LBRS | DBG_FREEZE_PERFMON);
    assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 1 | ST_CTR_FRZ | ST_LBR_FRZ);
    assert_counts(0, 3, 3);
    assert_int_equal(feed(INST, 1, 0, 5), 0);
    assert_counts(0, 3, 3);
    /* GLOBAL_CTRL stays the primary control, but CTR_Frz is a read-only
     * enable: writing GLOBAL_CTRL does not unfreeze. */
    WR(MSR_GLOBAL_CTRL, 0x100000003ULL);
    assert_int_equal(feed(INST, 1, 0, 5), 0);
    assert_counts(0, 3, 3);
    /* STATUS_RESET bit 59 resumes counting. */
    WR(MSR_GLOBAL_OVF_CTRL, ST_CTR_FRZ);
    assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 1 | ST_LBR_FRZ);
    assert_int_equal(feed(INST, 1, 0, 2), 0);
    assert_counts(2, 5, 5);
    assert_int_equal(pmis, 1);
  }
}

/* v4, FREEZE_PERFMON_ON_PMI alone: CTR_Frz but not LBR_Frz. */
static void
test_freeze_streamlined_no_lbr_frz_without_bit11_18_2_4_1(void **state)
{
  (void)state;
  use("skylake");
  freeze_setup(DBG_FREEZE_PERFMON, EV_INT);
  feed(INST, 1, 0, 3);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 1 | ST_CTR_FRZ);
  use("skylake");
  freeze_setup(DBG_LBR | DBG_FREEZE_LBRS, EV_INT);
  feed(INST, 1, 0, 3);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 1 | ST_LBR_FRZ);
  assert_int_equal(rd(lp, MSR_DEBUGCTL), DBG_LBR | DBG_FREEZE_LBRS);
  feed(INST, 1, 0, 2);
  assert_counts(2, 5, 5);
}

/* SDM 18.2.4.1, 17.4.7: the trigger is an overflow of a counter
 * configured to generate a PMI. Without INT the overflow freezes nothing. */
static void test_freeze_needs_pmi_counter_18_2_4_1(void **state)
{
  unsigned pmis;
  (void)state;
  use("haswell");
  hook(core, &pmis);
  freeze_setup(DBG_LBR | DBG_FREEZE_LBRS | DBG_FREEZE_PERFMON, 0);
  assert_int_equal(feed(INST, 1, 0, 5), 0);
  assert_int_equal(rd(lp, MSR_GLOBAL_CTRL), 0x100000003ULL);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 1);
  assert_counts(2, 5, 5);
  use("skylake");
  hook(core, &pmis);
  freeze_setup(DBG_LBR | DBG_FREEZE_LBRS | DBG_FREEZE_PERFMON, 0);
  assert_int_equal(feed(INST, 1, 0, 5), 0);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 1);
  assert_counts(2, 5, 5);
  assert_int_equal(pmis, 0);
}

/* ------------------------------------------------------------------------
 * 7. Batched delivery: K clocks in one call give state identical
 *    bit for bit to K single clocks.
 * ---------------------------------------------------------------------- */
/* Program both cores' LP 0 identically with a mixed set of counters. */
static void program_mixed(spmu_core *c, uint64_t pmc0)
{
  spmu_lp *l = spmu_core_lp(c, 0);
  assert_int_equal(spmu_wrmsr(l, MSR_GLOBAL_CTRL, 0), SPMU_OK);
  /* PMC0: instructions, INT, preset. */
  assert_int_equal(spmu_wrmsr(l, MSR_EVTSEL0,
                              EV_EN | EV_USR | EV_OS | EV_INT | EV_SEL(INST)),
                   SPMU_OK);
  assert_int_equal(spmu_wrmsr(l, MSR_PMC0, pmc0), SPMU_OK);
  /* PMC1: edge + CMASK 2 on branches (3 per clock): fires once. */
  assert_int_equal(
      spmu_wrmsr(l, MSR_EVTSEL0 + 1,
                 EV_EN | EV_USR | EV_OS | EV_E | EV_CMASK(2) | EV_SEL(BRANCH)),
      SPMU_OK);
  /* PMC2: CMASK 2 on branches: +1 per clock. */
  assert_int_equal(spmu_wrmsr(l, MSR_EVTSEL0 + 2,
                              EV_EN | EV_USR | EV_CMASK(2) | EV_SEL(BRANCH)),
                   SPMU_OK);
  /* PMC3: INV CMASK 3 on cycles (1 per clock): +1 per clock. */
  assert_int_equal(
      spmu_wrmsr(l, MSR_EVTSEL0 + 3,
                 EV_EN | EV_USR | EV_INV | EV_CMASK(3) | EV_SEL(CYCLES)),
      SPMU_OK);
  assert_int_equal(spmu_wrmsr(l, MSR_FIXED_CTR_CTRL, 0x333), SPMU_OK);
  assert_int_equal(spmu_wrmsr(l, MSR_GLOBAL_CTRL, 0x70000000fULL), SPMU_OK);
}

static void test_batch_equals_single_clocks_overflow_in_middle(void **state)
{
  const spmu_event_line lines[] = {{INST, 1}, {BRANCH, 3}, {CYCLES, 1}};
  const spmu_clock clk = {.lines = lines, .nlines = 3, .cpl = 3, .flags = 0};
  spmu_core *a, *b;
  spmu_lp *la, *lb;
  unsigned pa, pb, k;
  uint64_t consumed = 0, c1;
  (void)state;
  a = core_for("skylake");
  b = core_for("skylake");
  la = spmu_core_lp(a, 0);
  lb = spmu_core_lp(b, 0);
  hook(a, &pa);
  hook(b, &pb);
  program_mixed(a, (uint64_t)-5);
  program_mixed(b, (uint64_t)-5);
  assert_same_state(a, b);

  /* Batch of 100 stops at the PMI clock, 5. */
  assert_int_equal(spmu_deliver(la, &clk, 100, &consumed), SPMU_TICK_PMI);
  assert_int_equal(consumed, 5);
  assert_int_equal(pa, 1);
  for (k = 1; k <= 5; k++) {
    assert_int_equal(spmu_deliver(lb, &clk, 1, &c1),
                     k == 5 ? SPMU_TICK_PMI : 0);
    assert_int_equal(c1, 1);
  }
  assert_int_equal(pb, 1);
  assert_same_state(a, b);
  assert_int_equal(rd(la, MSR_PMC0), 0);
  assert_int_equal(rd(la, MSR_PMC0 + 1), 1);
  assert_int_equal(rd(la, MSR_PMC0 + 2), 5);
  assert_int_equal(rd(la, MSR_PMC0 + 3), 5);
  assert_int_equal(rd(la, MSR_FIXED_CTR0), 5);
  assert_int_equal(rd(la, MSR_FIXED_CTR0 + 1), 5);
  assert_int_equal(rd(la, MSR_GLOBAL_STATUS), 1);

  /* The rest: 95 more clocks, no further PMI (PMC0 is at 0). */
  assert_int_equal(spmu_deliver(la, &clk, 95, &consumed), 0);
  assert_int_equal(consumed, 95);
  for (k = 0; k < 95; k++)
    assert_int_equal(spmu_deliver(lb, &clk, 1, NULL), 0);
  assert_same_state(a, b);
  assert_int_equal(rd(la, MSR_PMC0), 95);
  assert_int_equal(rd(la, MSR_PMC0 + 1), 1);
  assert_int_equal(rd(la, MSR_PMC0 + 2), 100);
  assert_int_equal(rd(la, MSR_FIXED_CTR0), 100);
  spmu_core_free(a);
  spmu_core_free(b);
}

/* A PMI counter that wraps in the very first clock of a batch; and a
 * counter without INT that wraps mid-batch does not stop it (only a PMI
 * stops a batch), but its status bit is set. */
static void test_batch_first_clock_pmi_and_silent_wrap(void **state)
{
  uint64_t consumed;
  unsigned pmis;
  (void)state;
  use("skylake");
  hook(core, &pmis);
  WR(MSR_GLOBAL_CTRL, 0);
  WR(MSR_EVTSEL0, EV_EN | EV_OS | EV_INT | EV_SEL(INST));
  WR(MSR_PMC0, 0xffffffff);
  WR(MSR_GLOBAL_CTRL, 1);
  assert_int_equal(feed(INST, 1, 0, 1000), SPMU_TICK_PMI);
  {
    spmu_event_line line = {INST, 1};
    spmu_clock clk = {.lines = &line, .nlines = 1, .cpl = 0, .flags = 0};
    assert_int_equal(rd(lp, MSR_PMC0), 0);
    WR(MSR_GLOBAL_OVF_CTRL, 1);
    WR(MSR_EVTSEL0, EV_EN | EV_OS | EV_SEL(INST)); /* no INT */
    WR(MSR_PMC0, (uint64_t)-10);
    assert_int_equal(spmu_deliver(lp, &clk, 1000, &consumed), 0);
    assert_int_equal(consumed, 1000);
    assert_int_equal(rd(lp, MSR_PMC0), 990);
    assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 1);
    assert_int_equal(pmis, 1);
  }
}

/* xorshift64, fixed seed: the property test is reproducible. */
static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(void)
{
  return xorshift64(&rng);
}
static uint64_t below(uint64_t n)
{
  return rnd() % n;
}

/* The same guest write on both cores; both must agree. */
static int both_wr(spmu_lp *a, spmu_lp *b, uint32_t msr, uint64_t v)
{
  int ra = spmu_wrmsr(a, msr, v), rb = spmu_wrmsr(b, msr, v);
  assert_int_equal(ra, rb);
  return ra;
}

static void both_hwr(spmu_lp *a, spmu_lp *b, uint32_t msr, uint64_t v)
{
  assert_int_equal(spmu_host_wrmsr(a, msr, v), SPMU_OK);
  assert_int_equal(spmu_host_wrmsr(b, msr, v), SPMU_OK);
}

static const spmu_event_line pool[] = {{INST, 0},       {BRANCH, 0},
                                       {CYCLES, 0},     {0x2E, 0x4F, 0},
                                       {0x00, 0x03, 0}, {0x00, 0x04, 0}};
#define NPOOL (sizeof pool / sizeof pool[0])

/* A near-overflow preset, or a small value. */
static uint64_t rnd_preset(uint64_t mask)
{
  switch (below(3)) {
  case 0:
    return below(100);
  case 1:
    return mask - below(50);
  default:
    return mask - below(2000);
  }
}

static void rnd_program(spmu_lp *a, spmu_lp *b, const spmu_profile *p)
{
  unsigned i, j;
  uint64_t fctl = 0, dbg = 0;
  if (p->version >= 2)
    assert_int_equal(both_wr(a, b, MSR_GLOBAL_CTRL, 0), SPMU_OK);
  for (i = 0; i < p->gp; i++) {
    const spmu_event_line *e = &pool[below(4)];
    uint64_t sel = EV_SEL(e->event, e->umask);
    if (below(2))
      sel |= EV_USR;
    if (below(2))
      sel |= EV_OS;
    if (below(4) == 0)
      sel |= EV_E;
    if (below(4) == 0)
      sel |= EV_INV;
    if (below(2))
      sel |= EV_INT;
    if (below(5))
      sel |= EV_EN;
    sel |= EV_CMASK(below(4));
    assert_int_equal(both_wr(a, b, MSR_EVTSEL0 + i, sel), SPMU_OK);
    both_hwr(a, b, MSR_PMC0 + i, rnd_preset(wmask(p->gp_width)));
  }
  if (p->version < 2)
    return;
  for (j = 0; j < SPMU_MAX_FIXED; j++)
    if (p->fixed_mask >> j & 1) {
      fctl |= (rnd() & 0xb) << (4 * j);
      both_hwr(a, b, MSR_FIXED_CTR0 + j, rnd_preset(wmask(p->fixed_width)));
    }
  assert_int_equal(both_wr(a, b, MSR_FIXED_CTR_CTRL, fctl), SPMU_OK);
  if (below(2))
    dbg |= DBG_LBR;
  if (below(3) == 0)
    dbg |= DBG_FREEZE_LBRS;
  if (below(3) == 0)
    dbg |= DBG_FREEZE_PERFMON;
  if ((p->perf_capabilities & SPMU_PERFCAP_SMM_FREEZE) && below(3) == 0)
    dbg |= DBG_FREEZE_SMM;
  assert_int_equal(both_wr(a, b, MSR_DEBUGCTL, dbg), SPMU_OK);
  /* GLOBAL_CTRL last (SDM 18.2.4.1). */
  assert_int_equal(both_wr(a, b, MSR_GLOBAL_CTRL, rnd() & all_enables(p)),
                   SPMU_OK);
}

/* Force PMC0 to interrupt within < 500 clocks of the given clock. */
static void force_pmi_soon(spmu_lp *a, spmu_lp *b, const spmu_profile *p,
                           spmu_event_line *lines, size_t *n, spmu_clock *clk)
{
  size_t k;
  bool have = false;
  assert_int_equal(both_wr(a, b, MSR_EVTSEL0,
                           EV_EN | EV_USR | EV_OS | EV_INT | EV_SEL(INST)),
                   SPMU_OK);
  both_hwr(a, b, MSR_PMC0, wmask(p->gp_width) - below(500));
  if (p->version >= 2)
    assert_int_equal(both_wr(a, b, MSR_GLOBAL_CTRL, rd(a, MSR_GLOBAL_CTRL) | 1),
                     SPMU_OK);
  if (p->version >= 4)
    assert_int_equal(both_wr(a, b, MSR_GLOBAL_OVF_CTRL, ST_CTR_FRZ), SPMU_OK);
  for (k = 0; k < *n; k++)
    if (lines[k].event == 0xC0 && lines[k].umask == 0 && lines[k].count) {
      have = true;
      break;
    }
  if (!have)
    lines[(*n)++] = (spmu_event_line){INST, (uint32_t)(1 + below(3))};
  clk->nlines = *n;
  clk->flags &= (uint8_t)~SPMU_CLK_SMM;
}

/* Property: over random programs, clocks and batch sizes, one
 * batched call equals single clocks up to the batch's consumed count
 * (stopping at the first PMI as the batch does): identical blobs,
 * identical PMI counts; the deadline predicts the PMI clock and changes
 * nothing. */
static void test_batch_equals_single_clocks_property(void **state)
{
  unsigned npresets = 0, round;
  const char *name;
  (void)state;
  /* The architectural presets (listed before the NetBurst ones). */
  FOR_EACH_PRESET(name)
    npresets += preset_is_arch(name) ? 1u : 0u;
  rng = 0x9E3779B97F4A7C15ULL;
  for (round = 0; round < 200; round++) {
    const char *pname = spmu_profile_preset_name((unsigned)below(npresets));
    spmu_core *ca = core_for(pname), *cb = core_for(pname);
    spmu_lp *a = spmu_core_lp(ca, 0), *b = spmu_core_lp(cb, 0);
    const spmu_profile *p = spmu_core_profile(ca);
    unsigned pa, pb, step;
    hook(ca, &pa);
    hook(cb, &pb);
    rnd_program(a, b, p);
    for (step = 0; step < 6; step++) {
      spmu_event_line lines[NPOOL + 1];
      size_t n = (size_t)below(4), k, la, lb;
      spmu_clock clk;
      uint64_t K, consumed = 0, dl, t;
      unsigned char *before, *after;
      int rc;
      /* Software between batches: acknowledge overflow (and CTR_Frz),
       * re-enable, or reprogram. */
      switch (below(6)) {
      case 0:
        if (p->version >= 2)
          (void)both_wr(a, b, MSR_GLOBAL_OVF_CTRL, rd(a, MSR_GLOBAL_STATUS));
        break;
      case 1:
        if (p->version >= 2)
          assert_int_equal(
              both_wr(a, b, MSR_GLOBAL_CTRL, rnd() & all_enables(p)), SPMU_OK);
        break;
      case 2:
        rnd_program(a, b, p);
        break;
      default:
        break;
      }

      for (k = 0; k < n; k++) {
        lines[k] = pool[below(NPOOL)];
        lines[k].count = (uint32_t)below(6);
      }
      clk = (spmu_clock){.lines = lines,
                         .nlines = n,
                         .cpl = (uint8_t)below(4),
                         .flags = (uint8_t)below(8)};
      if (below(8) == 0) {
        K = 1000000000;
        force_pmi_soon(a, b, p, lines, &n, &clk);
      } else {
        K = 1 + below(1000);
      }
      before = blob(ca, &la);
      dl = deadline_of(a, &clk);
      after = blob(ca, &lb);
      assert_int_equal(la, lb);
      assert_memory_equal(before, after, la);
      free(before);
      free(after);

      rc = spmu_deliver(a, &clk, K, &consumed);
      assert_true(rc == 0 || rc == SPMU_TICK_PMI);
      if (rc & SPMU_TICK_PMI) {
        assert_int_equal(dl, consumed);
        assert_int_equal(pa, 1);
      } else {
        assert_int_equal(consumed, K);
        assert_true(dl > K);
        assert_int_equal(pa, 0);
      }
      /* Precondition of single-stepping (K = 1e9 only with a forced PMI
       * within 500 clocks). */
      assert_true(consumed >= 1 && consumed <= 1000);
      for (t = 1; t <= consumed; t++) {
        uint64_t c1 = 0;
        int r1 = spmu_deliver(b, &clk, 1, &c1);
        assert_int_equal(c1, 1);
        if (t < consumed)
          assert_int_equal(r1, 0);
        else
          assert_int_equal(r1, rc);
      }
      assert_int_equal(pa, pb);
      assert_same_state(ca, cb);
      pa = pb = 0;
    }
    spmu_core_free(ca);
    spmu_core_free(cb);
  }
}

/* ------------------------------------------------------------------------
 * 8. spmu_deadline: clocks up to and including the PMI clock; UINT64_MAX
 *    when nothing can interrupt; no state change, no callback.
 * ---------------------------------------------------------------------- */
static void test_deadline_predicts_pmi_clock(void **state)
{
  spmu_event_line line = {INST, 1};
  spmu_clock clk = {.lines = &line, .nlines = 1, .cpl = 0, .flags = 0};
  unsigned char *before, *after;
  size_t lb, la;
  uint64_t consumed;
  unsigned pmis;
  (void)state;
  use("skylake");
  hook(core, &pmis);
  WR(MSR_GLOBAL_CTRL, 0);
  WR(MSR_EVTSEL0, EV_EN | EV_OS | EV_INT | EV_SEL(INST));
  WR(MSR_PMC0, (uint64_t)-5);
  WR(MSR_GLOBAL_CTRL, 1);
  before = blob(core, &lb);
  assert_int_equal(deadline_of(lp, &clk), 5);
  after = blob(core, &la);
  assert_int_equal(la, lb);
  assert_memory_equal(before, after, la);
  free(before);
  free(after);
  assert_int_equal(pmis, 0);
  /* Two events per clock: wraps at clock 3. */
  line.count = 2;
  assert_int_equal(deadline_of(lp, &clk), 3);
  line.count = 1;
  assert_int_equal(spmu_deliver(lp, &clk, 100, &consumed), SPMU_TICK_PMI);
  assert_int_equal(consumed, 5);
  /* The counter is now 0: 2^48 clocks to the next wrap. */
  assert_int_equal(deadline_of(lp, &clk), UINT64_C(1) << 48);
  /* Nothing can interrupt: the line is absent / CPL filtered / no INT. */
  line.event = 0xC4;
  assert_int_equal(deadline_of(lp, &clk), UINT64_MAX);
  line.event = 0xC0;
  clk.cpl = 3;
  assert_int_equal(deadline_of(lp, &clk), UINT64_MAX);
  clk.cpl = 0;
  WR(MSR_EVTSEL0, EV_EN | EV_OS | EV_SEL(INST));
  assert_int_equal(deadline_of(lp, &clk), UINT64_MAX);
  WR(MSR_EVTSEL0, EV_OS | EV_INT | EV_SEL(INST));
  assert_int_equal(deadline_of(lp, &clk), UINT64_MAX);
  assert_int_equal(pmis, 1);
}

/* Deadline of a fixed counter with its PMI bit. */
static void test_deadline_fixed_counter(void **state)
{
  spmu_event_line line = {CYCLES, 4};
  spmu_clock clk = {.lines = &line, .nlines = 1, .cpl = 3, .flags = 0};
  (void)state;
  use("skylake");
  WR(MSR_GLOBAL_CTRL, 0);
  WR(MSR_FIXED_CTR_CTRL, 0xa0);           /* fixed 1: USR, PMI */
  WR(MSR_FIXED_CTR0 + 1, fx_mask() - 39); /* 40 to wrap: 10 clocks */
  WR(MSR_GLOBAL_CTRL, 0x200000000ULL);
  assert_int_equal(deadline_of(lp, &clk), 10);
  clk.cpl = 0;
  assert_int_equal(deadline_of(lp, &clk), UINT64_MAX);
}

/* ------------------------------------------------------------------------
 * 9. ASCI, FREEZE_WHILE_SMM, IN_TX.
 * ---------------------------------------------------------------------- */
/* SDM 18.2.4.1 (Figure 18-10): STATUS.ASCI (bit 60) is set when an enabled
 * counter counts in an enclave; only where SGX is enumerated. */
static void test_asci_set_by_enclave_counting_18_2_4_1(void **state)
{
  const char *name;
  (void)state;
  FOR_EACH_PRESET(name) {
    bool sgx;
    use(name);
    if (prof()->version < 2)
      continue;
    sgx = (prof()->features & SPMU_FEAT_SGX) != 0;
    WR(MSR_GLOBAL_CTRL, 0);
    WR(MSR_EVTSEL0, EV_EN | EV_USR | EV_SEL(INST));
    WR(MSR_GLOBAL_CTRL, 1);
    feed_on(lp, INST, 1, 3, 0, 10);
    assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 0);
    feed_on(lp, INST, 1, 3, SPMU_CLK_ENCLAVE, 10);
    assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), sgx ? ST_ASCI : 0);
    assert_int_equal(rd(lp, MSR_PMC0), 20);
  }
  /* Haswell has no SGX: no ASCI; Skylake sets it, and OVF_CTRL clears it. */
  use("haswell");
  WR(MSR_EVTSEL0, EV_EN | EV_USR | EV_SEL(INST));
  feed_on(lp, INST, 1, 3, SPMU_CLK_ENCLAVE, 1);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 0);
  use("skylake");
  WR(MSR_EVTSEL0, EV_EN | EV_USR | EV_SEL(INST));
  feed_on(lp, INST, 1, 3, SPMU_CLK_ENCLAVE, 1);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), ST_ASCI);
  WR(MSR_GLOBAL_OVF_CTRL, ST_ASCI);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 0);
  /* The fixed counters count too, but only at a CPL their ENABLE field
   * selects (decisions.md #26): OS-only FIXED_CTR0 in a ring-3 enclave
   * clock is not enabled. */
  WR(MSR_GLOBAL_CTRL, 0);
  WR(MSR_EVTSEL0, 0);
  WR(MSR_FIXED_CTR_CTRL, 0x1);
  WR(MSR_GLOBAL_CTRL, 0x100000000ULL);
  feed_on(lp, INST, 1, 3, SPMU_CLK_ENCLAVE, 1);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 0);
  WR(MSR_FIXED_CTR_CTRL, 0x3);
  feed_on(lp, INST, 1, 3, SPMU_CLK_ENCLAVE, 1);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), ST_ASCI);
}

/* SDM 17.4.8 / 18.8 (Vol. 4 Table 2-2, IA32_DEBUGCTL bit 14): with
 * FREEZE_WHILE_SMM, clocks in SMM are not counted (GP and fixed). */
static void test_freeze_while_smm_17_4_8(void **state)
{
  (void)state;
  use("sandybridge");
  WR(MSR_GLOBAL_CTRL, 0);
  WR(MSR_EVTSEL0, EV_EN | EV_USR | EV_OS | EV_SEL(INST));
  WR(MSR_FIXED_CTR_CTRL, 0x3);
  WR(MSR_GLOBAL_CTRL, 0x100000001ULL);
  feed_on(lp, INST, 2, 0, SPMU_CLK_SMM, 5); /* bit 14 clear: counts */
  assert_int_equal(rd(lp, MSR_PMC0), 10);
  assert_int_equal(rd(lp, MSR_FIXED_CTR0), 10);
  WR(MSR_DEBUGCTL, DBG_FREEZE_SMM);
  feed_on(lp, INST, 2, 0, SPMU_CLK_SMM, 5);
  assert_int_equal(rd(lp, MSR_PMC0), 10);
  assert_int_equal(rd(lp, MSR_FIXED_CTR0), 10);
  feed_on(lp, INST, 2, 0, 0, 5); /* out of SMM */
  assert_int_equal(rd(lp, MSR_PMC0), 20);
  assert_int_equal(rd(lp, MSR_FIXED_CTR0), 20);
}

/* SDM 18.11.5.1: IN_TX (EVTSEL bit 32) counts only inside a transactional
 * region. */
static void test_in_tx_counts_only_in_transaction_18_11_5_1(void **state)
{
  (void)state;
  use("haswell");
  WR(MSR_GLOBAL_CTRL, 0);
  WR(MSR_EVTSEL0, EV_EN | EV_USR | EV_IN_TX | EV_SEL(INST));
  WR(MSR_EVTSEL0 + 1, EV_EN | EV_USR | EV_SEL(INST));
  WR(MSR_GLOBAL_CTRL, 0x3);
  feed_on(lp, INST, 3, 3, 0, 4);
  feed_on(lp, INST, 5, 3, SPMU_CLK_IN_TX, 2);
  assert_int_equal(rd(lp, MSR_PMC0), 10);
  assert_int_equal(rd(lp, MSR_PMC0 + 1), 22);
}

/* ------------------------------------------------------------------------
 * 10. Bad input: SPMU_EINVAL, nothing delivered.
 * ---------------------------------------------------------------------- */
static void test_deliver_bad_input_einval(void **state)
{
  spmu_event_line line = {INST, 1};
  spmu_clock clk = {.lines = &line, .nlines = 1, .cpl = 0, .flags = 0};
  spmu_clock bad;
  uint64_t consumed = 77;
  (void)state;
  use("skylake");
  WR(MSR_EVTSEL0, EV_EN | EV_USR | EV_OS | EV_SEL(INST));
  assert_int_equal(spmu_deliver(NULL, &clk, 1, &consumed), SPMU_EINVAL);
  assert_int_equal(spmu_deliver(lp, NULL, 1, &consumed), SPMU_EINVAL);
  assert_int_equal(spmu_deliver(lp, &clk, 0, &consumed), SPMU_EINVAL);
  bad = clk;
  bad.cpl = 4;
  assert_int_equal(spmu_deliver(lp, &bad, 1, &consumed), SPMU_EINVAL);
  bad = clk;
  bad.lines = NULL;
  assert_int_equal(spmu_deliver(lp, &bad, 1, &consumed), SPMU_EINVAL);
  assert_int_equal(consumed, 0);
  assert_int_equal(rd(lp, MSR_PMC0), 0);
  /* nlines = 0 with lines = NULL is a clock with no events. */
  bad.nlines = 0;
  assert_int_equal(spmu_deliver(lp, &bad, 3, &consumed), 0);
  assert_int_equal(consumed, 3);
  assert_int_equal(spmu_deliver(lp, &clk, 1, NULL), 0);
  assert_int_equal(rd(lp, MSR_PMC0), 1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(
          test_kvm_loop_10_instructions_1_branch_every_preset, teardown),
      cmocka_unit_test_teardown(test_kvm_counter_overflow_gp_18_2_2_2,
                                teardown),
      cmocka_unit_test_teardown(test_kvm_counter_overflow_fixed_18_2_2_1,
                                teardown),
      cmocka_unit_test_teardown(test_overflow_same_clock_one_pmi_18_2_2_2,
                                teardown),
      cmocka_unit_test_teardown(test_cmask_counts_clocks_ge_cmask_18_2_1_1,
                                teardown),
      cmocka_unit_test_teardown(test_cmask_inv_counts_clocks_lt_cmask_18_2_1_1,
                                teardown),
      cmocka_unit_test_teardown(test_edge_cmask_counts_rising_edges_18_2_1_1,
                                teardown),
      cmocka_unit_test_teardown(test_cmask_zero_adds_raw_increments_18_2_1_1,
                                teardown),
      cmocka_unit_test_teardown(test_edge_state_kept_across_calls_18_2_1_1,
                                teardown),
      cmocka_unit_test_teardown(test_edge_state_after_plain_clocks_18_2_1_1,
                                teardown),
      cmocka_unit_test_teardown(test_many_lines_exact_sums_18_2_1_1, teardown),
      cmocka_unit_test_teardown(test_overflow_at_64_bit_width_18_2_2_2,
                                teardown),
      cmocka_unit_test_teardown(test_usr_os_by_cpl_18_2_1_1, teardown),
      cmocka_unit_test_teardown(test_event_and_umask_must_match_18_2_1_1,
                                teardown),
      cmocka_unit_test_teardown(test_write_zero_restarts_running_counter_18_2_5,
                                teardown),
      cmocka_unit_test_teardown(
          test_write_all_ones_then_one_event_overflows_18_2_5, teardown),
      cmocka_unit_test_teardown(test_gp_enable_expression_18_2_2_2, teardown),
      cmocka_unit_test_teardown(
          test_fixed_enable_field_and_global_ctrl_18_2_2_1, teardown),
      cmocka_unit_test_teardown(test_global_ctrl_clear_nothing_counts_18_2_2_2,
                                teardown),
      cmocka_unit_test_teardown(test_freeze_legacy_clears_global_ctrl_18_2_4_1,
                                teardown),
      cmocka_unit_test_teardown(
          test_freeze_legacy_lbr_bit_only_with_freeze_lbrs_18_2_4_1, teardown),
      cmocka_unit_test_teardown(test_freeze_streamlined_ctr_frz_18_2_4_1,
                                teardown),
      cmocka_unit_test_teardown(
          test_freeze_streamlined_no_lbr_frz_without_bit11_18_2_4_1, teardown),
      cmocka_unit_test_teardown(test_freeze_needs_pmi_counter_18_2_4_1,
                                teardown),
      cmocka_unit_test_teardown(
          test_batch_equals_single_clocks_overflow_in_middle, teardown),
      cmocka_unit_test_teardown(test_batch_first_clock_pmi_and_silent_wrap,
                                teardown),
      cmocka_unit_test_teardown(test_batch_equals_single_clocks_property,
                                teardown),
      cmocka_unit_test_teardown(test_deadline_predicts_pmi_clock, teardown),
      cmocka_unit_test_teardown(test_deadline_fixed_counter, teardown),
      cmocka_unit_test_teardown(test_asci_set_by_enclave_counting_18_2_4_1,
                                teardown),
      cmocka_unit_test_teardown(test_freeze_while_smm_17_4_8, teardown),
      cmocka_unit_test_teardown(test_in_tx_counts_only_in_transaction_18_11_5_1,
                                teardown),
      cmocka_unit_test_teardown(test_deliver_bad_input_einval, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

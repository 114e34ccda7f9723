/* SPDX-License-Identifier: MIT */
/* The cache models: LRU replacement, write-allocate, strided walks whose
 * miss counts follow from the geometry, accesses straddling lines (one
 * reference in cachegrind's rules, one per line in the part's), and the
 * inclusive LLC's back-invalidation. */
#include "uarch_test.h"

/* D1 of 4096 B, 2-way, 64 B lines: 32 sets, so addresses 2048 B apart
 * share a set. */
#define CG_SMALL "cachegrind:I1=32768,8,64:D1=4096,2,64:LL=65536,4,64"
#define SET_STRIDE 2048u
#define BASE 0x10000000u

/* LRU: in a 2-way set, A B A C evicts B (least recently used), not A. */
static void test_lru_evicts_least_recently_used(void **state)
{
  spmu_uarch *u = new_model(CG_SMALL);
  uint64_t a = BASE, b = BASE + SET_STRIDE, c = BASE + 2 * SET_STRIDE;

  (void)state;
  assert_int_equal(spmu_uarch_access(u, a, 8, 0, 0), SPMU_UARCH_MEM);
  assert_int_equal(spmu_uarch_access(u, b, 8, 0, 0), SPMU_UARCH_MEM);
  assert_int_equal(spmu_uarch_access(u, a, 8, 0, 0), SPMU_UARCH_L1);
  assert_int_equal(spmu_uarch_access(u, c, 8, 0, 0), SPMU_UARCH_MEM);
  assert_int_equal(spmu_uarch_access(u, a, 8, 0, 0), SPMU_UARCH_L1);
  /* B was evicted from D1 but is still in LL (4 ways). */
  assert_int_equal(spmu_uarch_access(u, b, 8, 0, 0), SPMU_UARCH_LLC);
  assert_int_equal(counts_of(u).d1mr, 4);
  assert_int_equal(counts_of(u).dlmr, 3);
  spmu_uarch_free(u);
}

/* Write-allocate: a write miss fills the line, so a read of it hits. */
static void test_write_miss_allocates(void **state)
{
  spmu_uarch *u = new_model(CG_SMALL);
  spmu_uarch_counts n;

  (void)state;
  assert_int_equal(spmu_uarch_access(u, BASE + 8, 4, 1, 0), SPMU_UARCH_MEM);
  assert_int_equal(spmu_uarch_access(u, BASE, 8, 0, 0), SPMU_UARCH_L1);
  n = counts_of(u);
  assert_int_equal(n.dw, 1);
  assert_int_equal(n.d1mw, 1);
  assert_int_equal(n.dlmw, 1);
  assert_int_equal(n.dr, 1);
  assert_int_equal(n.d1mr, 0);
  spmu_uarch_free(u);
}

/* A walk of N lines in one set of W ways (N > W), repeated: with LRU each
 * line was evicted W lines before it comes back, so every pass misses N
 * times. 5 lines 2048 B apart: one D1 set (2 ways); in LL (256 sets, 4
 * ways) the lines are 32 sets apart, so each of them has its own set and
 * stays: LL misses only on the first pass. */
static void test_strided_walk_misses_every_line_every_pass(void **state)
{
  spmu_uarch *u = new_model(CG_SMALL);
  spmu_uarch_counts n;
  const unsigned lines = 5, passes = 4;

  (void)state;
  for (unsigned p = 0; p < passes; p++)
    for (unsigned i = 0; i < lines; i++)
      spmu_uarch_access(u, BASE + i * SET_STRIDE, 8, 0, 0);
  n = counts_of(u);
  assert_int_equal(n.dr, lines * passes);
  assert_int_equal(n.d1mr, lines * passes);
  assert_int_equal(n.dlmr, lines);
  spmu_uarch_free(u);
}

/* The same rule on the part's real geometry (Skylake: L1D 32 KB = 512
 * lines, L2 256 KB = 4096 lines, LLC 8 MB): a sequential walk of 1024
 * lines misses L1D 1024 times per pass; it fits L2, which misses only on
 * the first pass, as does the LLC. */
static void test_part_sequential_walk_larger_than_l1d(void **state)
{
  spmu_uarch *u = new_model("part:skylake");
  spmu_uarch_counts n;
  const unsigned lines = 1024, passes = 3;

  (void)state;
  for (unsigned p = 0; p < passes; p++)
    for (unsigned i = 0; i < lines; i++)
      spmu_uarch_access(u, BASE + i * 64u, 8, 0, 0);
  n = counts_of(u);
  assert_int_equal(n.l1d_refs, lines * passes);
  assert_int_equal(n.l1d_misses, lines * passes);
  assert_int_equal(n.l2_refs, lines * passes);
  assert_int_equal(n.l2_misses, lines);
  assert_int_equal(n.llc_refs, lines);
  assert_int_equal(n.llc_misses, lines);
  assert_int_equal(n.served_l2, lines * (passes - 1));
  assert_int_equal(n.served_mem, lines);
  spmu_uarch_free(u);
}

/* PASSES walks of LINES 8-byte loads, one a 64-byte line from BASE; each
 * pass over new lines (FRESH) or over the same ones again. */
static void walk(spmu_uarch *u, unsigned lines, unsigned passes, int fresh)
{
  for (unsigned p = 0; p < passes; p++)
    for (unsigned i = 0; i < lines; i++)
      spmu_uarch_access(u, BASE + ((fresh ? (uint64_t)p * lines : 0) + i) * 64u,
                        8, 0, 0);
}

/* A walk over new lines larger than the part's LLC: 2 x 8 MB of lines,
 * then 2 x 8 MB more: every reference misses, whatever the insertion
 * policy (a walk over new lines shows its misses). */
static void test_part_walk_new_lines_misses_each(void **state)
{
  spmu_uarch *u = new_model("part:skylake");
  spmu_uarch_counts n;
  const unsigned lines = 2u * 8388608u / 64u, passes = 2;

  (void)state;
  walk(u, lines, passes, 1);
  n = counts_of(u);
  assert_int_equal(n.llc_refs, (uint64_t)lines * passes);
  assert_int_equal(n.llc_misses, (uint64_t)lines * passes);
  assert_int_equal(n.dlmr, (uint64_t)lines * passes);
  assert_int_equal(n.l1d_misses, (uint64_t)lines * passes);
  assert_int_equal(n.dr_served_mem, (uint64_t)lines * passes);
  assert_int_equal(n.dr_served_l2 + n.dr_served_llc, 0);
  spmu_uarch_free(u);
}

/* Rule (llc.c, adaptive insertion): the same 2 x 8 MB walked twice. Each
 * of the 8192 LLC sets sees 32 lines a pass (call them 1-32) for 16
 * ways. The selector stays at 512 or more (in pass 1 an LRU leader's miss
 * and a BIP leader's take turns; in pass 2 the LRU leaders miss more), so
 * every set but the 32 LRU leaders inserts by BIP. Pass 1: lines 1-16
 * fill the empty ways at MRU; line 17, the set's first BIP insertion,
 * goes to MRU (evicting 1); 18-32 each replace the LRU way: 3-17 stay.
 * Pass 2: 1 and 2 miss (the LRU way), 3-17 hit, 18-32 miss. The LRU
 * leaders miss all 32. So pass 2 misses 262144 - (8192 - 32) x 15. */
static void test_part_llc_resists_a_repeated_scan(void **state)
{
  spmu_uarch *u = new_model("part:skylake");
  spmu_uarch_counts n;
  const unsigned lines = 2u * 8388608u / 64u, passes = 2;

  (void)state;
  walk(u, lines, passes, 0);
  n = counts_of(u);
  assert_int_equal(n.llc_refs, (uint64_t)lines * passes);
  assert_int_equal(n.llc_misses, lines + lines - (8192u - 32u) * 15u);
  assert_int_equal(n.dr_served_llc, (8192u - 32u) * 15u);
  spmu_uarch_free(u);
}

/* Rule (llc.c, query-based selection): a scan of 2 x LLC new lines
 * leaves a line in constant use resident. Line A is read between every
 * two lines of the scan: it hits L1D, so the inclusive LLC never sees it,
 * but it is never chosen to go while L1D holds it, so it is never
 * back-invalidated and hits L1D throughout. */
static void test_part_scan_leaves_line_in_use(void **state)
{
  spmu_uarch *u = new_model("part:skylake");
  const unsigned lines = 2u * 8388608u / 64u;
  const uint64_t a = 0x7f000000u;
  spmu_uarch_counts n;

  (void)state;
  assert_int_equal(spmu_uarch_access(u, a, 8, 0, 0), SPMU_UARCH_MEM);
  for (unsigned i = 0; i < lines; i++) {
    spmu_uarch_access(u, BASE + (uint64_t)i * 64u, 8, 0, 0);
    assert_int_equal(spmu_uarch_access(u, a, 8, 0, 0), SPMU_UARCH_L1);
  }
  n = counts_of(u);
  assert_int_equal(n.llc_misses, lines + 1u);
  assert_int_equal(n.llc_back_invalidations, 0);
  spmu_uarch_free(u);
}

/* Cachegrind's straddle rule: an access touching two lines is one
 * reference, a miss if either line misses (both missing is still one
 * miss), and both lines are filled. */
static void test_cachegrind_straddle_is_one_reference(void **state)
{
  spmu_uarch *u = new_model(CG_SMALL);
  spmu_uarch_counts n;

  (void)state;
  /* Bytes 60..67: lines BASE and BASE+64, both new: one miss. */
  assert_int_equal(spmu_uarch_access(u, BASE + 60, 8, 0, 0), SPMU_UARCH_MEM);
  /* Both lines were filled. */
  assert_int_equal(spmu_uarch_access(u, BASE + 64, 8, 0, 0), SPMU_UARCH_L1);
  assert_int_equal(spmu_uarch_access(u, BASE, 8, 0, 0), SPMU_UARCH_L1);
  /* Lines BASE+64 (present) and BASE+128 (new): one miss. */
  assert_int_equal(spmu_uarch_access(u, BASE + 124, 8, 1, 0), SPMU_UARCH_MEM);
  n = counts_of(u);
  assert_int_equal(n.dr, 3);
  assert_int_equal(n.d1mr, 1);
  assert_int_equal(n.dlmr, 1);
  assert_int_equal(n.dw, 1);
  assert_int_equal(n.d1mw, 1);
  assert_int_equal(n.l1d_refs, 4);
  assert_int_equal(n.llc_refs, 2);
  spmu_uarch_free(u);
}

/* In cachegrind's rules an L1 miss sends the whole access to LL: here
 * line 0 is in D1 but no longer in LL, line 64 in LL but not in D1; the
 * access to both misses D1 (line 64), and LL then references line 0 too,
 * which misses. Referencing only the line that missed D1 would hit. */
static void test_cachegrind_l1_miss_sends_whole_access_to_ll(void **state)
{
  spmu_uarch *u = new_model(CG_SMALL);
  const uint64_t ll_set_stride = 16384; /* LL: 256 sets of 64 B */

  (void)state;
  spmu_uarch_access(u, BASE, 8, 0, 0);
  /* Four more lines of line 0's LL set (4 ways); line 0 is re-read in
   * between, hits D1 (2 ways) each time, and so ages in LL until evicted. */
  for (unsigned i = 1; i <= 4; i++) {
    spmu_uarch_access(u, BASE + i * ll_set_stride, 8, 0, 0);
    if (i < 4)
      assert_int_equal(spmu_uarch_access(u, BASE, 8, 0, 0), SPMU_UARCH_L1);
  }
  /* Line 64 into LL, then out of D1 (two lines of its D1 set, other LL
   * sets). */
  spmu_uarch_access(u, BASE + 64, 8, 0, 0);
  spmu_uarch_access(u, BASE + 64 + SET_STRIDE, 8, 0, 0);
  spmu_uarch_access(u, BASE + 64 + 2 * SET_STRIDE, 8, 0, 0);
  assert_int_equal(counts_of(u).dlmr, 8);
  assert_int_equal(spmu_uarch_access(u, BASE + 60, 8, 0, 0), SPMU_UARCH_MEM);
  assert_int_equal(counts_of(u).d1mr, 9);
  assert_int_equal(counts_of(u).dlmr, 9);
  spmu_uarch_free(u);
}

/* Cachegrind's tags start at 0: the line at address 0 is present in every
 * way at the start, so a first access to it hits. */
static void test_cachegrind_line_zero_starts_present(void **state)
{
  spmu_uarch *u = new_model(CG_SMALL);

  (void)state;
  assert_int_equal(spmu_uarch_access(u, 0, 8, 0, 0), SPMU_UARCH_L1);
  assert_int_equal(spmu_uarch_access(u, 0, 8, 0, 1), SPMU_UARCH_L1);
  assert_int_equal(counts_of(u).d1mr, 0);
  assert_int_equal(counts_of(u).i1mr, 0);
  spmu_uarch_free(u);
}

/* Instruction fetches go through I1 and are counted as Ir, I1mr, ILmr;
 * they share LL with data. */
static void test_fetch_goes_through_i1_and_shares_ll(void **state)
{
  spmu_uarch *u = new_model(CG_SMALL);
  spmu_uarch_counts n;

  (void)state;
  assert_int_equal(spmu_uarch_access(u, 0x401000, 4, 0, 1), SPMU_UARCH_MEM);
  assert_int_equal(spmu_uarch_access(u, 0x401004, 4, 0, 1), SPMU_UARCH_L1);
  /* The same line as data: D1 misses, LL hits. */
  assert_int_equal(spmu_uarch_access(u, 0x401008, 8, 0, 0), SPMU_UARCH_LLC);
  n = counts_of(u);
  assert_int_equal(n.ir, 2);
  assert_int_equal(n.i1mr, 1);
  assert_int_equal(n.ilmr, 1);
  assert_int_equal(n.d1mr, 1);
  assert_int_equal(n.dlmr, 0);
  spmu_uarch_free(u);
}

/* The part's rule: a line-crossing access is one reference per line, but
 * one access in the cachegrind-named counts. */
static void test_part_straddle_is_one_reference_per_line(void **state)
{
  spmu_uarch *u = new_model("part:skylake");
  spmu_uarch_counts n;

  (void)state;
  assert_int_equal(spmu_uarch_access(u, BASE + 60, 8, 0, 0), SPMU_UARCH_MEM);
  n = counts_of(u);
  assert_int_equal(n.l1d_refs, 2);
  assert_int_equal(n.l1d_misses, 2);
  assert_int_equal(n.llc_misses, 2);
  assert_int_equal(n.dr, 1);
  assert_int_equal(n.d1mr, 1);
  assert_int_equal(n.dlmr, 1);
  spmu_uarch_free(u);
}

/* A part with a direct-mapped L1I and a 2-way L1D of 32 sets in front of
 * a 4-way LLC of 8 sets, no L2: lines 8 apart share an LLC set; lines 8,
 * 16, 24 and 40 after line 0 take L1D sets 8, 16, 24 and 8 (both ways).
 * Too few sets for set dueling to matter: LRU insertion (adaptive 0). */
static spmu_uarch *small_part(int inclusive)
{
  spmu_uarch_config cfg;
  char err[128];
  spmu_uarch *u;

  memset(&cfg, 0, sizeof cfg);
  cfg.mode = SPMU_UARCH_PART;
  cfg.l1i = (spmu_uarch_geom){2048, 1, 64};
  cfg.l1d = (spmu_uarch_geom){4096, 2, 64};
  cfg.llc = (spmu_uarch_geom){2048, 4, 64};
  cfg.llc_inclusive = inclusive;
  cfg.bpred = (spmu_uarch_bpred_geom){8, 16, 4};
  cfg.timing = (spmu_uarch_timing){1, 0, 10, 100, 10, 1, 1, 0, 0};
  u = spmu_uarch_new(&cfg, err, sizeof err);
  if (!u)
    fail_msg("%s", err);
  return u;
}

/* Rule (llc.c, query-based selection): an inclusive LLC does not evict a
 * line L1D holds while another can go, and when every line of the set is
 * held it evicts the last one asked (ways - 1 are kept). Line A keeps
 * hitting L1D, so the LLC never sees it and it becomes its set's LRU
 * line; lines 8, 16, 24 and 32 of its LLC set fill L1D sets 8, 16, 24
 * and A's second way: all held. The fifth line of the set (32) asks A, 8
 * and 16, keeps them, and evicts 24, back-invalidated from L1D. Without
 * inclusion, true LRU evicts A from the LLC alone. A hits L1D either way.
 */
static void test_inclusive_llc_keeps_lines_held_above(void **state)
{
  (void)state;
  for (int inclusive = 0; inclusive <= 1; inclusive++) {
    spmu_uarch *u = small_part(inclusive);
    uint64_t a = BASE;
    /* A's LLC set (mod 8); L1D sets 8, 16, 24 and A's (mod 32). */
    static const uint64_t other[4] = {8, 16, 24, 32};

    spmu_uarch_access(u, a, 8, 0, 0);
    for (unsigned i = 0; i < 4; i++) {
      assert_int_equal(spmu_uarch_access(u, a, 8, 0, 0), SPMU_UARCH_L1);
      spmu_uarch_access(u, a + other[i] * 64u, 8, 0, 0);
    }
    /* Inclusive: every line of the set is held in L1D (two ways of set
     * 0, one of 8, 16, 24): A, 8 and 16 are asked and kept, 24 goes and
     * is back-invalidated. Not inclusive: true LRU, A goes from the LLC
     * alone. Either way A still hits L1D. */
    assert_int_equal(counts_of(u).llc_back_invalidations, inclusive ? 1 : 0);
    assert_int_equal(spmu_uarch_access(u, a, 8, 0, 0), SPMU_UARCH_L1);
    assert_int_equal(spmu_uarch_access(u, a + 24 * 64u, 8, 0, 0),
                     inclusive ? SPMU_UARCH_MEM : SPMU_UARCH_L1);
    spmu_uarch_free(u);
  }
}

/* Rule (llc.c): the LRU candidate L1D no longer holds is the one that
 * goes: line 40 (L1D set 8, which already holds 8 and 72) pushes 8 out of
 * L1D before the LLC chooses, so the LLC evicts 8, asked first, kept by
 * nothing: no back-invalidation. */
static void test_inclusive_llc_evicts_line_not_held(void **state)
{
  spmu_uarch *u = small_part(1);
  static const uint64_t lines[5] = {8, 72, 16, 24, 40};

  (void)state;
  for (unsigned i = 0; i < 5; i++)
    spmu_uarch_access(u, BASE + lines[i] * 64u, 8, 0, 0);
  assert_int_equal(counts_of(u).llc_back_invalidations, 0);
  assert_int_equal(counts_of(u).llc_misses, 5);
  spmu_uarch_free(u);
}

/* A fetch repeated within the line fetched last hits L1I without a
 * lookup, unless the inclusive LLC removed that line in between: data
 * lines 8, 16, 24 (held in L1D), then code line C (held in L1I), all in
 * one LLC set; data line 40 (L1D set 8's second way) finds every line
 * of the set held above: 8, 16 and 24 are asked and kept, C, asked last,
 * goes, and by inclusion leaves L1I; fetching C again misses to memory. */
static void test_repeated_fetch_after_back_invalidation(void **state)
{
  spmu_uarch *u = small_part(1);
  uint64_t c = BASE;

  (void)state;
  for (uint64_t i = 1; i <= 3; i++)
    spmu_uarch_access(u, c + i * 8 * 64, 8, 0, 0);
  assert_int_equal(spmu_uarch_access(u, c, 4, 0, 1), SPMU_UARCH_MEM);
  assert_int_equal(spmu_uarch_access(u, c + 4, 4, 0, 1), SPMU_UARCH_L1);
  spmu_uarch_access(u, c + 40 * 64, 8, 0, 0);
  assert_int_equal(counts_of(u).llc_back_invalidations, 1);
  assert_int_equal(spmu_uarch_access(u, c + 8, 4, 0, 1), SPMU_UARCH_MEM);
  assert_int_equal(counts_of(u).ir, 3);
  assert_int_equal(counts_of(u).l1i_refs, 3);
  assert_int_equal(counts_of(u).i1mr, 2);
  spmu_uarch_free(u);
}

/* spmu_uarch_fetch_run counts as a fetch at a time does: a run marked
 * same (three fetches within line C after C's first) is three L1I hits;
 * after data line 40 back-invalidated C (the construction of the test
 * above), a run marked same goes through the hierarchy (a miss to memory)
 * instead, exactly as spmu_uarch_access per fetch counts it (rule:
 * uarch.h, spmu_uarch_fetch_run). */
static void test_fetch_run_counts_as_each_fetch(void **state)
{
  static const spmu_uarch_fetch run[4] = {
      {BASE, 4, 0}, {BASE + 4, 4, 3}, {BASE + 8, 4, 2}, {BASE + 12, 4, 1}};
  spmu_uarch *u = small_part(1), *each = small_part(1);
  spmu_uarch_counts a, b;

  (void)state;
  for (uint64_t i = 1; i <= 3; i++) {
    spmu_uarch_access(u, BASE + i * 8 * 64, 8, 0, 0);
    spmu_uarch_access(each, BASE + i * 8 * 64, 8, 0, 0);
  }
  spmu_uarch_fetch_run(u, run, 4);
  for (unsigned i = 0; i < 4; i++)
    spmu_uarch_access(each, run[i].addr, run[i].len, 0, 1);
  spmu_uarch_access(u, BASE + 40 * 64, 8, 0, 0);
  spmu_uarch_access(each, BASE + 40 * 64, 8, 0, 0);
  spmu_uarch_fetch_run(u, &run[1], 3);
  for (unsigned i = 1; i < 4; i++)
    spmu_uarch_access(each, run[i].addr, run[i].len, 0, 1);
  a = counts_of(u);
  b = counts_of(each);
  assert_int_equal(a.ir, 7);
  assert_int_equal(a.i1mr, 2);
  assert_int_equal(a.ilmr, 2);
  /* Line 40 evicted C, removing it from L1I; C's return found every line
   * of the set held again and evicted 40, asked last, removing it from
   * L1D. */
  assert_int_equal(a.llc_back_invalidations, 2);
  assert_memory_equal(&a, &b, sizeof a);
  spmu_uarch_free(u);
  spmu_uarch_free(each);
}

/* spmu_uarch_data_hits counts what accesses within the line of the last
 * data access count: a read and a write hit, one L1D reference each. */
static void test_data_hits_count_as_mru_accesses(void **state)
{
  spmu_uarch *u = new_model(CG_SMALL), *each = new_model(CG_SMALL);
  spmu_uarch_counts a, b;

  (void)state;
  spmu_uarch_access(u, BASE, 8, 0, 0);
  spmu_uarch_access(each, BASE, 8, 0, 0);
  spmu_uarch_data_hits(u, 2, 1);
  spmu_uarch_access(each, BASE + 8, 8, 0, 0);
  spmu_uarch_access(each, BASE + 16, 8, 0, 0);
  spmu_uarch_access(each, BASE + 24, 8, 1, 0);
  a = counts_of(u);
  b = counts_of(each);
  assert_int_equal(a.dr, 3);
  assert_int_equal(a.dw, 1);
  assert_int_equal(a.l1d_refs, 4);
  assert_int_equal(a.d1mr, 1);
  assert_memory_equal(&a, &b, sizeof a);
  spmu_uarch_free(u);
  spmu_uarch_free(each);
}

/* Reset empties the caches and the counts. */
static void test_reset_empties_everything(void **state)
{
  spmu_uarch *u = new_model(CG_SMALL);

  (void)state;
  spmu_uarch_access(u, BASE, 8, 0, 0);
  spmu_uarch_reset(u);
  assert_int_equal(counts_of(u).dr, 0);
  assert_int_equal(spmu_uarch_access(u, BASE, 8, 0, 0), SPMU_UARCH_MEM);
  spmu_uarch_free(u);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lru_evicts_least_recently_used),
      cmocka_unit_test(test_write_miss_allocates),
      cmocka_unit_test(test_strided_walk_misses_every_line_every_pass),
      cmocka_unit_test(test_part_sequential_walk_larger_than_l1d),
      cmocka_unit_test(test_part_walk_new_lines_misses_each),
      cmocka_unit_test(test_part_llc_resists_a_repeated_scan),
      cmocka_unit_test(test_part_scan_leaves_line_in_use),
      cmocka_unit_test(test_cachegrind_straddle_is_one_reference),
      cmocka_unit_test(test_cachegrind_l1_miss_sends_whole_access_to_ll),
      cmocka_unit_test(test_cachegrind_line_zero_starts_present),
      cmocka_unit_test(test_fetch_goes_through_i1_and_shares_ll),
      cmocka_unit_test(test_part_straddle_is_one_reference_per_line),
      cmocka_unit_test(test_inclusive_llc_keeps_lines_held_above),
      cmocka_unit_test(test_inclusive_llc_evicts_line_not_held),
      cmocka_unit_test(test_repeated_fetch_after_back_invalidation),
      cmocka_unit_test(test_fetch_run_counts_as_each_fetch),
      cmocka_unit_test(test_data_hits_count_as_mru_accesses),
      cmocka_unit_test(test_reset_empties_everything),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

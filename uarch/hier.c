/* SPDX-License-Identifier: MIT */
/* The cache hierarchies: which caches an access goes through, and what is
 * counted.
 *
 * Cachegrind configuration (its simulator's rules, followed exactly):
 *   - an instruction fetch references I1, a data read or write D1; an I1
 *     or D1 miss references LL with the same address and length; nothing
 *     else reaches LL;
 *   - an access is one reference per cache, whatever it straddles: every
 *     line it touches is referenced in address order (each updates LRU),
 *     and the reference misses if any of them missed;
 *   - every way starts holding block 0 (cachegrind zeroes its tags), so a
 *     first access to the line at address 0 hits.
 * Part configuration (L1I, L1D -> L2 -> LLC):
 *   - an access is split into the lines it touches, each a reference of
 *     its own that goes down the hierarchy until a level hits, filling
 *     every level it missed (write-allocate);
 *   - L2 is neither inclusive nor exclusive of L1: no back-invalidation;
 *   - an inclusive LLC removes the line it evicts from L1I, L1D and L2
 *     (llc.c chooses that line and where the new one goes);
 *   - the cachegrind-named counts (I1mr, DLmr, ...) count accesses: one
 *     misses L1 if any of its lines did, the LLC if any line did. */
#include "internal.h"

#include <string.h>

/* The empty tag of the part caches: no block number reaches it (lines are
 * at least 16 bytes, so blocks stay below 2^60). */
#define SPMU_HIER_NO_LINE UINT64_MAX

int spmu_hier_init(spmu_hier *h, const spmu_uarch_config *cfg)
{
  uint64_t empty = cfg->mode == SPMU_UARCH_CACHEGRIND ? 0 : SPMU_HIER_NO_LINE;

  memset(h, 0, sizeof *h);
  h->cachegrind = cfg->mode == SPMU_UARCH_CACHEGRIND;
  h->has_l2 = !h->cachegrind && cfg->l2.size != 0;
  h->inclusive = !h->cachegrind && cfg->llc_inclusive;
  h->timing = cfg->timing;
  if (spmu_cache_init(&h->l1i, &cfg->l1i, empty) ||
      spmu_cache_init(&h->l1d, &cfg->l1d, empty) ||
      (h->has_l2 && spmu_cache_init(&h->l2, &cfg->l2, empty)) ||
      spmu_cache_init(&h->llc, &cfg->llc, empty)) {
    spmu_hier_fini(h);
    return -1;
  }
  if (spmu_llc_init(&h->llc_policy, &h->llc,
                    !h->cachegrind && cfg->llc_adaptive)) {
    spmu_hier_fini(h);
    return -1;
  }
  return 0;
}

void spmu_hier_fini(spmu_hier *h)
{
  spmu_cache_fini(&h->l1i);
  spmu_cache_fini(&h->l1d);
  spmu_cache_fini(&h->l2);
  spmu_cache_fini(&h->llc);
  spmu_llc_fini(&h->llc_policy);
}

void spmu_hier_clear(spmu_hier *h)
{
  spmu_cache_clear(&h->l1i);
  spmu_cache_clear(&h->l1d);
  if (h->has_l2)
    spmu_cache_clear(&h->l2);
  spmu_cache_clear(&h->llc);
  h->last_i = h->last_d = 0;
  h->mlp = (spmu_mlp){0};
  spmu_llc_clear(&h->llc_policy);
}

/* The last byte of an access (len 0 counts as 1; no wrap past 2^64). */
static uint64_t last_byte(uint64_t addr, uint32_t len)
{
  uint64_t span = len ? len - 1u : 0u;

  return addr > UINT64_MAX - span ? UINT64_MAX : addr + span;
}

/* Cachegrind's reference: every line of [addr, last] in order; 1 if any
 * missed. */
static int cg_ref(spmu_cache *c, uint64_t addr, uint64_t last)
{
  uint64_t b = addr >> c->line_bits, end = last >> c->line_bits, victim = 0;
  int miss = 0;

  for (;; b++) {
    miss |= spmu_cache_ref(c, b, &victim);
    if (b == end)
      return miss;
  }
}

static spmu_uarch_level cg_access(spmu_hier *h, spmu_uarch_counts *n,
                                  uint64_t addr, uint64_t last, int is_write,
                                  int is_fetch)
{
  spmu_cache *l1 = is_fetch ? &h->l1i : &h->l1d;
  uint64_t *refs = is_fetch ? &n->ir : is_write ? &n->dw : &n->dr;
  uint64_t *m1 = is_fetch ? &n->i1mr : is_write ? &n->d1mw : &n->d1mr;
  uint64_t *ml = is_fetch ? &n->ilmr : is_write ? &n->dlmw : &n->dlmr;
  uint64_t is_read = !is_fetch && !is_write;

  (*refs)++;
  if (is_fetch)
    n->l1i_refs++;
  else
    n->l1d_refs++;
  if (!cg_ref(l1, addr, last))
    return SPMU_UARCH_L1;
  (*m1)++;
  if (is_fetch)
    n->l1i_misses++;
  else
    n->l1d_misses++;
  n->llc_refs++;
  if (!cg_ref(&h->llc, addr, last)) {
    n->served_llc++;
    n->dr_served_llc += is_read;
    spmu_timing_long(&h->timing, &h->mlp, n, SPMU_UARCH_LLC, is_fetch);
    return SPMU_UARCH_LLC;
  }
  (*ml)++;
  n->llc_misses++;
  n->served_mem++;
  n->dr_served_mem += is_read;
  spmu_timing_long(&h->timing, &h->mlp, n, SPMU_UARCH_MEM, is_fetch);
  return SPMU_UARCH_MEM;
}

/* An inclusive LLC evicted victim: remove it from the levels above. */
static void back_invalidate(spmu_hier *h, spmu_uarch_counts *n, uint64_t victim)
{
  if (h->last_i == victim + 1)
    h->last_i = 0;
  if (h->last_d == victim + 1)
    h->last_d = 0;
  n->llc_back_invalidations += (uint64_t)spmu_cache_invalidate(&h->l1i, victim);
  n->llc_back_invalidations += (uint64_t)spmu_cache_invalidate(&h->l1d, victim);
  if (h->has_l2)
    n->llc_back_invalidations +=
        (uint64_t)spmu_cache_invalidate(&h->l2, victim);
}

/* One line down the part hierarchy: the level that served it. */
static spmu_uarch_level part_line(spmu_hier *h, spmu_uarch_counts *n,
                                  uint64_t block, int is_fetch)
{
  uint64_t victim = SPMU_HIER_NO_LINE; /* set by every miss */

  if (is_fetch) {
    n->l1i_refs++;
    if (!spmu_cache_ref(&h->l1i, block, &victim))
      return SPMU_UARCH_L1;
    n->l1i_misses++;
  } else {
    n->l1d_refs++;
    if (!spmu_cache_ref(&h->l1d, block, &victim))
      return SPMU_UARCH_L1;
    n->l1d_misses++;
  }
  if (h->has_l2) {
    n->l2_refs++;
    if (!spmu_cache_ref(&h->l2, block, &victim))
      return SPMU_UARCH_L2;
    n->l2_misses++;
  }
  n->llc_refs++;
  if (!spmu_llc_ref(h, block, &victim))
    return SPMU_UARCH_LLC;
  n->llc_misses++;
  if (h->inclusive && victim != SPMU_HIER_NO_LINE)
    back_invalidate(h, n, victim);
  return SPMU_UARCH_MEM;
}

/* The cachegrind-named counts of one part access that reached deepest. */
static void part_count(spmu_uarch_counts *n, spmu_uarch_level deepest,
                       int is_write, int is_fetch)
{
  uint64_t *refs = is_fetch ? &n->ir : is_write ? &n->dw : &n->dr;
  uint64_t *m1 = is_fetch ? &n->i1mr : is_write ? &n->d1mw : &n->d1mr;
  uint64_t *ml = is_fetch ? &n->ilmr : is_write ? &n->dlmw : &n->dlmr;
  uint64_t is_read = !is_fetch && !is_write;

  (*refs)++;
  if (deepest > SPMU_UARCH_L1)
    (*m1)++;
  if (deepest == SPMU_UARCH_MEM)
    (*ml)++;
  if (deepest == SPMU_UARCH_L2) {
    n->served_l2++;
    n->dr_served_l2 += is_read;
  } else if (deepest == SPMU_UARCH_LLC) {
    n->served_llc++;
    n->dr_served_llc += is_read;
  } else if (deepest == SPMU_UARCH_MEM) {
    n->served_mem++;
    n->dr_served_mem += is_read;
  }
}

static spmu_uarch_level part_access(spmu_hier *h, spmu_uarch_counts *n,
                                    uint64_t addr, uint64_t last, int is_write,
                                    int is_fetch)
{
  uint32_t bits = h->l1d.line_bits; /* one line size in a part (config.c) */
  uint64_t b = addr >> bits, end = last >> bits;
  spmu_uarch_level deepest = SPMU_UARCH_L1, lvl;

  for (;; b++) {
    lvl = part_line(h, n, b, is_fetch);
    if (lvl > deepest)
      deepest = lvl;
    if (b == end)
      break;
  }
  part_count(n, deepest, is_write, is_fetch);
  if (deepest >= SPMU_UARCH_LLC)
    spmu_timing_long(&h->timing, &h->mlp, n, deepest, is_fetch);
  return deepest;
}

spmu_uarch_level spmu_hier_access_slow(spmu_hier *h, spmu_uarch_counts *n,
                                       uint64_t addr, uint32_t len,
                                       int is_write, int is_fetch)
{
  uint64_t last = last_byte(addr, len);
  uint64_t *mru = is_fetch ? &h->last_i : &h->last_d;
  uint32_t bits = is_fetch ? h->l1i.line_bits : h->l1d.line_bits;
  spmu_uarch_level lvl;

  if (h->cachegrind)
    lvl = cg_access(h, n, addr, last, is_write, is_fetch);
  else
    lvl = part_access(h, n, addr, last, is_write, is_fetch);
  /* Its last line is now the most recently used of its L1 set: it was
   * referenced last, and the LLC's evictions during the access removed
   * older lines only (the line itself is the LLC's most recent). */
  *mru = (last >> bits) + 1;
  return lvl;
}

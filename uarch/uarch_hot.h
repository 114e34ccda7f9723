/* SPDX-License-Identifier: MIT */
/* The model's per-access steps, inline: uarch.h's access, fetch, branch
 * and retire calls as static inline functions over the handle's layout
 * (internal.h), for a front end that feeds the model every fetch and data
 * access and would otherwise pay a call or three for each
 * (frontends/qemu/model.c). Each counts and changes state exactly as the
 * uarch.h function of the same name without _hot, which calls it; only
 * an access that misses L1 (or straddles two lines) leaves them, for
 * hier.c. Not installed. */
#ifndef SPMU_UARCH_HOT_H
#define SPMU_UARCH_HOT_H

#include "internal.h"

/* k fetches that hit L1I, counted as the front counts an L1 hit (a
 * reference of the L1 and a fetch). */
static inline void spmu_uarch_fetch_hits_hot(spmu_uarch *u, uint64_t k)
{
  u->n.ir += k;
  u->n.l1i_refs += k;
}

/* Data reads and writes that hit L1D (a reference of the L1 and a read or
 * write each). */
static inline void spmu_uarch_data_hits_hot(spmu_uarch *u, uint64_t reads,
                                            uint64_t writes)
{
  u->n.dr += reads;
  u->n.dw += writes;
  u->n.l1d_refs += reads + writes;
}

/* ---- the front of every access ------------------------------------------
 * An access within one line that its L1 holds is an L1 hit in both
 * configurations, counted the same (hier.c: cachegrind's one reference of
 * the L1, the part's one line and one access served by L1), and moves the
 * line to the front of its set (true LRU, cache.c): done here, with no
 * call; the line is then the one its L1 referenced last (hier.c's last_i,
 * last_d). The line the L1 referenced last is the front way of its set,
 * found there at the first compare. Every other access (an L1 miss, two
 * lines) goes to hier.c, which looks the L1 up again: the lookup here
 * changed nothing when it missed. */
static inline spmu_uarch_level spmu_uarch_access_hot(spmu_uarch *u,
                                                     uint64_t addr,
                                                     uint32_t len, int is_write,
                                                     int is_fetch)
{
  spmu_hier *h = &u->hier;
  spmu_cache *l1 = is_fetch ? &h->l1i : &h->l1d;
  uint64_t *mru = is_fetch ? &h->last_i : &h->last_d;
  uint32_t bits = l1->line_bits;
  uint64_t block = addr >> bits, span = len ? len - 1u : 0u;
  uint64_t last = addr > UINT64_MAX - span ? UINT64_MAX : addr + span;

  if (__builtin_expect(last >> bits == block, 1) && spmu_cache_hit(l1, block)) {
    *mru = block + 1;
    if (is_fetch)
      spmu_uarch_fetch_hits_hot(u, 1);
    else
      spmu_uarch_data_hits_hot(u, !is_write, !!is_write);
    return SPMU_UARCH_L1;
  }
  return spmu_hier_access_slow(h, &u->n, addr, len, is_write, is_fetch);
}

/* spmu_uarch_access_hot of a data access within one L1D line, block (its
 * address >> the L1D's line bits), known by the caller. */
static inline spmu_uarch_level
spmu_uarch_data_line_hot(spmu_uarch *u, uint64_t addr, uint32_t len,
                         uint64_t block, int is_write)
{
  spmu_hier *h = &u->hier;

  if (spmu_cache_hit(&h->l1d, block)) {
    h->last_d = block + 1;
    spmu_uarch_data_hits_hot(u, !is_write, !!is_write);
    return SPMU_UARCH_L1;
  }
  return spmu_hier_access_slow(h, &u->n, addr, len, is_write, 0);
}

/* spmu_uarch_access_hot of a data access over two lines (never an L1
 * hit of one line): hier.c's. */
static inline spmu_uarch_level
spmu_uarch_data_lines(spmu_uarch *u, uint64_t addr, uint32_t len, int is_write)
{
  return spmu_hier_access_slow(&u->hier, &u->n, addr, len, is_write, 0);
}

/* A run of fetches marked same is within the line its L1I referenced last
 * (the fetch before it): each is the hit the front counts on that line,
 * unless an inclusive LLC's back-invalidation took that line out (last_i
 * no longer names it; a fetch that misses the LLC evicts another line,
 * never its own, so within a run only a data access can take it out). */
static inline void
spmu_uarch_fetch_run_hot(spmu_uarch *u, const spmu_uarch_fetch *f, uint32_t n)
{
  const spmu_hier *h = &u->hier;
  uint32_t bits = h->l1i.line_bits;
  uint32_t i = 0, run;

  while (i < n) {
    run = f[i].same;
    if (run && (!h->inclusive || h->last_i == (f[i].addr >> bits) + 1)) {
      run = run < n - i ? run : n - i;
      spmu_uarch_fetch_hits_hot(u, run);
      i += run;
      continue;
    }
    spmu_uarch_access_hot(u, f[i].addr, f[i].len, 0, 1);
    i++;
  }
}

static inline int spmu_uarch_branch_hot(spmu_uarch *u, uint64_t pc,
                                        uint64_t next, spmu_uarch_br kind,
                                        int taken, uint64_t target)
{
  return spmu_bpred_branch(&u->bpred, &u->n, pc, next, kind, taken, target);
}

/* spmu_uarch_cycles; the core cycles alone; the issue of the instructions,
 * and the cycles beyond it (the latencies and mispredictions). */
static inline uint64_t spmu_uarch_issue_cycles_hot(const spmu_uarch *u,
                                                   uint64_t instructions)
{
  return spmu_timing_issue_hot(&u->cfg.timing, instructions);
}

static inline uint64_t spmu_uarch_stall_cycles_hot(const spmu_uarch *u,
                                                   const spmu_uarch_counts *n)
{
  return spmu_timing_stall_hot(&u->cfg.timing, n);
}

static inline uint64_t spmu_uarch_core_cycles_hot(const spmu_uarch *u,
                                                  const spmu_uarch_counts *n)
{
  return spmu_timing_core_hot(&u->cfg.timing, n);
}

/* spmu_uarch_cycles. */
static inline void spmu_uarch_cycles_hot(const spmu_uarch *u,
                                         const spmu_uarch_counts *n,
                                         uint64_t *core, uint64_t *ref)
{
  spmu_timing_cycles_hot(&u->cfg.timing, n, core, ref);
}

static inline void spmu_uarch_retire_hot(spmu_uarch *u, uint64_t n)
{
  u->n.instructions += n;
}

static inline void spmu_uarch_load_retired_hot(spmu_uarch *u,
                                               spmu_uarch_level lvl, uint64_t n)
{
  switch (lvl) {
  case SPMU_UARCH_L1:
    u->n.loads_l1 += n;
    break;
  case SPMU_UARCH_L2:
    u->n.loads_l2 += n;
    break;
  case SPMU_UARCH_LLC:
    u->n.loads_llc += n;
    break;
  case SPMU_UARCH_MEM:
    u->n.loads_mem += n;
    break;
  }
}

#endif

/* SPDX-License-Identifier: MIT */
/* The micro-architecture model: the configuration's caches, predictor and
 * counts in one handle; the front end's calls go to hier.c and bpred.c. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct spmu_uarch {
  spmu_uarch_config cfg;
  spmu_hier hier;
  spmu_bpred bpred;
  spmu_uarch_counts n;
};

static void say(char *err, size_t errlen, const char *what)
{
  if (err && errlen)
    snprintf(err, errlen, "%s", what);
}

spmu_uarch *spmu_uarch_new(const spmu_uarch_config *cfg, char *err,
                           size_t errlen)
{
  const char *why = cfg ? spmu_uarch_config_check(cfg) : "no configuration";
  spmu_uarch *u;

  if (why) {
    say(err, errlen, why);
    return NULL;
  }
  u = calloc(1, sizeof *u);
  if (!u) {
    say(err, errlen, "out of memory");
    return NULL;
  }
  u->cfg = *cfg;
  if (spmu_hier_init(&u->hier, cfg)) {
    free(u);
    say(err, errlen, "out of memory");
    return NULL;
  }
  if (spmu_bpred_init(&u->bpred, cfg)) {
    spmu_hier_fini(&u->hier);
    free(u);
    say(err, errlen, "out of memory");
    return NULL;
  }
  return u;
}

void spmu_uarch_free(spmu_uarch *u)
{
  if (!u)
    return;
  spmu_hier_fini(&u->hier);
  spmu_bpred_fini(&u->bpred);
  free(u);
}

void spmu_uarch_reset(spmu_uarch *u)
{
  spmu_hier_clear(&u->hier);
  spmu_bpred_clear(&u->bpred);
  memset(&u->n, 0, sizeof u->n);
}

/* ---- the front of every access ------------------------------------------
 * An access within the line its L1 referenced last (hier.c's last_i,
 * last_d) is a hit on the most recently used way, which changes no order:
 * only the counts move, as cachegrind's rules and the part's count an L1
 * hit (a reference of the L1 and a fetch, read or write). Kept here,
 * inline, so that it costs no call; every other access goes to hier.c. */

static inline void fetch_hits(spmu_uarch_counts *n, uint64_t k)
{
  n->ir += k;
  n->l1i_refs += k;
}

static inline void data_hits(spmu_uarch_counts *n, uint64_t reads,
                             uint64_t writes)
{
  n->dr += reads;
  n->dw += writes;
  n->l1d_refs += reads + writes;
}

static inline spmu_uarch_level front_access(spmu_uarch *u, uint64_t addr,
                                            uint32_t len, int is_write,
                                            int is_fetch)
{
  spmu_hier *h = &u->hier;
  uint32_t bits = is_fetch ? h->l1i.line_bits : h->l1d.line_bits;
  uint64_t block = addr >> bits, span = len ? len - 1u : 0u;
  uint64_t last = addr > UINT64_MAX - span ? UINT64_MAX : addr + span;

  if ((is_fetch ? h->last_i : h->last_d) == block + 1 &&
      last >> bits == block) {
    if (is_fetch)
      fetch_hits(&u->n, 1);
    else
      data_hits(&u->n, !is_write, !!is_write);
    return SPMU_UARCH_L1;
  }
  return spmu_hier_access_slow(h, &u->n, addr, len, is_write, is_fetch);
}

spmu_uarch_level spmu_uarch_access(spmu_uarch *u, uint64_t addr, uint32_t len,
                                   int is_write, int is_fetch)
{
  return front_access(u, addr, len, is_write, is_fetch);
}

void spmu_uarch_fetch_hits(spmu_uarch *u, uint64_t n)
{
  fetch_hits(&u->n, n);
}

void spmu_uarch_data_hits(spmu_uarch *u, uint64_t reads, uint64_t writes)
{
  data_hits(&u->n, reads, writes);
}

/* A run of fetches marked same is within the line its L1I referenced last
 * (the fetch before it): each is the hit the front counts on that line,
 * unless an inclusive LLC's back-invalidation took that line out (last_i
 * no longer names it; a fetch that misses the LLC evicts another line,
 * never its own, so within a run only a data access can take it out). */
void spmu_uarch_fetch_run(spmu_uarch *u, const spmu_uarch_fetch *f, uint32_t n)
{
  const spmu_hier *h = &u->hier;
  uint32_t bits = h->l1i.line_bits;
  uint32_t i = 0, run;

  while (i < n) {
    run = f[i].same;
    if (run && (!h->inclusive || h->last_i == (f[i].addr >> bits) + 1)) {
      run = run < n - i ? run : n - i;
      fetch_hits(&u->n, run);
      i += run;
      continue;
    }
    front_access(u, f[i].addr, f[i].len, 0, 1);
    i++;
  }
}

int spmu_uarch_branch(spmu_uarch *u, uint64_t pc, uint64_t next,
                      spmu_uarch_br kind, int taken, uint64_t target)
{
  return spmu_bpred_branch(&u->bpred, &u->n, pc, next, kind, taken, target);
}

void spmu_uarch_retire(spmu_uarch *u, uint64_t n)
{
  u->n.instructions += n;
}

void spmu_uarch_load_retired(spmu_uarch *u, spmu_uarch_level lvl, uint64_t n)
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

void spmu_uarch_get_counts(const spmu_uarch *u, spmu_uarch_counts *out)
{
  *out = u->n;
  spmu_timing_cycles(&u->cfg.timing, &u->n, &out->core_cycles,
                     &out->ref_cycles);
}

const spmu_uarch_counts *spmu_uarch_peek_counts(const spmu_uarch *u)
{
  return &u->n;
}

void spmu_uarch_cycles(const spmu_uarch *u, const spmu_uarch_counts *n,
                       uint64_t *core, uint64_t *ref)
{
  spmu_timing_cycles(&u->cfg.timing, n, core, ref);
}

const spmu_uarch_config *spmu_uarch_get_config(const spmu_uarch *u)
{
  return &u->cfg;
}

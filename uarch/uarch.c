/* SPDX-License-Identifier: MIT */
/* The micro-architecture model: the configuration's caches, predictor and
 * counts in one handle; the front end's calls go to hier.c and bpred.c. */
#include "uarch_hot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The per-access steps are uarch_hot.h's, inline; these are their calls. */

spmu_uarch_level spmu_uarch_access(spmu_uarch *u, uint64_t addr, uint32_t len,
                                   int is_write, int is_fetch)
{
  return spmu_uarch_access_hot(u, addr, len, is_write, is_fetch);
}

void spmu_uarch_fetch_hits(spmu_uarch *u, uint64_t n)
{
  spmu_uarch_fetch_hits_hot(u, n);
}

void spmu_uarch_data_hits(spmu_uarch *u, uint64_t reads, uint64_t writes)
{
  spmu_uarch_data_hits_hot(u, reads, writes);
}

void spmu_uarch_fetch_run(spmu_uarch *u, const spmu_uarch_fetch *f, uint32_t n)
{
  spmu_uarch_fetch_run_hot(u, f, n);
}

int spmu_uarch_branch(spmu_uarch *u, uint64_t pc, uint64_t next,
                      spmu_uarch_br kind, int taken, uint64_t target)
{
  return spmu_bpred_branch(&u->bpred, &u->n, pc, next, kind, taken, target);
}

void spmu_uarch_retire(spmu_uarch *u, uint64_t n)
{
  spmu_uarch_retire_hot(u, n);
}

void spmu_uarch_load_retired(spmu_uarch *u, spmu_uarch_level lvl, uint64_t n)
{
  spmu_uarch_load_retired_hot(u, lvl, n);
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

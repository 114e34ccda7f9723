/* SPDX-License-Identifier: MIT */
/* The architectural perfmon engine's table (core/engine.h): its RDPMC
 * index space, its power-on state and its snapshot words; counting is in
 * count.c. */
#include <stdint.h>

#include "arch/arch.h"
#include "core/engine.h"
#include "softpmu/error.h"

static void arch_reset(spmu_core *core)
{
  unsigned i;

  for (i = 0; i < core->nlp; i++) {
    core->lp[i].edge = 0;
    core->lp[i].edge_keys = 0;
    core->lp[i].armed = 0;
  }
}

/* RDPMC (SDM Vol. 2B "RDPMC"; SDM 18.2.1, 18.2.2):
 *  - #GP when CPL > 0 and CR4.PCE = 0;
 *  - ECX[30] = 1 selects fixed counter ECX[29:0], ECX[30] = 0 GP counter
 *    ECX[29:0]; ECX = 1<<29 selects MSR_PERF_METRICS where it exists (Linux);
 *  - #GP "if ECX does not indicate a supported counter": any other bit, an
 *    absent counter, and the ECX[31] fast-read form, which architectural
 *    perfmon does not define (KVM faults it too).
 * The value is the counter's width bits, as stored. The core has checked
 * CPL and CR4.PCE. */
static int arch_rdpmc(spmu_lp *lp, uint32_t ecx, uint64_t *value)
{
  const struct spmu_applied *a = &lp->core->a;
  uint32_t idx = ecx & 0x3fffffffu;

  if (a->prof.version == 0 || (ecx & 0x80000000u))
    return SPMU_GP;
  if (ecx & 0x40000000u) {
    if (idx >= SPMU_MAX_FIXED || !(a->prof.fixed_mask & (UINT32_C(1) << idx)))
      return SPMU_GP;
    *value = lp->r.ctr[SPMU_CTR_FIXED(idx)];
    return SPMU_OK;
  }
  if (ecx == 0x20000000u && (a->caps & CAP(PERF_METRICS))) {
    *value = lp->r.perf_metrics;
    return SPMU_OK;
  }
  if (idx >= a->prof.gp)
    return SPMU_GP;
  *value = lp->r.ctr[idx];
  return SPMU_OK;
}

/* The snapshot words (core/snapshot.c): the edge-detect conditions (bit i
 * = PMCi) and the PEBS counters armed (engine counter index). */
static void arch_save_words(const spmu_core *core, unsigned i, uint32_t *edge,
                            uint32_t *armed)
{
  *edge = spmu_lp_edge(&core->lp[i]);
  *armed = core->lp[i].armed;
}

static bool arch_words_valid(const spmu_core *core, unsigned i, uint32_t edge,
                             uint32_t armed)
{
  uint32_t gp = (uint32_t)spmu_width_mask(core->a.prof.gp);

  (void)i;
  return !(edge & ~gp) && !(armed & ~(gp | (uint32_t)core->a.prof.fixed_mask
                                               << SPMU_CTR_FIXED(0)));
}

static void arch_load_words(spmu_core *core, unsigned i, uint32_t edge,
                            uint32_t armed)
{
  core->lp[i].edge = edge;
  core->lp[i].edge_keys = 0;
  core->lp[i].armed = armed;
}

const struct spmu_engine spmu_engine_arch = {
    .reset = arch_reset,
    .rdpmc = arch_rdpmc,
    .rebuild = spmu_arch_refresh,
    .deliver = spmu_arch_deliver,
    .deadline = spmu_arch_deadline,
    .save_words = arch_save_words,
    .words_valid = arch_words_valid,
    .load_words = arch_load_words,
};

/* SPDX-License-Identifier: MIT */
/* Branch predictors.
 *
 * Cachegrind configuration (--branch-sim=yes, its rules on x86/amd64):
 *   - conditional branches: 2^14 two-bit saturating counters, all starting
 *     at 0 (strongly not taken); the index is 14 bits, the low 7 bits of
 *     the global history above the low 7 bits of the branch's address:
 *     index = (history & 0x7f) << 7 | (pc & 0x7f). Predict taken when the
 *     counter is 2 or 3; then shift the outcome into the history (bit 0)
 *     and move the counter one step towards it, saturating at 0 and 3;
 *   - indirect jumps and calls: 512 last targets, all starting at 0,
 *     indexed by pc & 0x1ff; mispredicted when the stored target differs,
 *     which is then replaced by the actual one;
 *   - returns are not predicted (cachegrind assumes a return-stack
 *     predictor that never fails): never a mispredict.
 * Part configuration: a stated default, a model and not Intel's (whose
 * predictors are not documented):
 *   - conditional branches: gshare, 2^h two-bit counters starting at 1
 *     (weakly not taken), index = (pc ^ history) mod 2^h over the last h
 *     outcomes, the same prediction and update rules as above;
 *   - indirect jumps and calls: a direct-mapped BTB (entries a power of
 *     two, index pc mod entries) holding the branch's address and its last
 *     target; mispredicted unless the entry holds this branch and target;
 *   - returns: a return-stack buffer; a call pushes its return address
 *     (the oldest entry is overwritten when full), a return pops one and
 *     is mispredicted if it was empty or held another address;
 *   - direct jumps and calls are always predicted (their target is in the
 *     instruction). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static uint64_t mask(uint32_t bits)
{
  return bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
}

int spmu_bpred_init(spmu_bpred *b, const spmu_uarch_config *cfg)
{
  const spmu_uarch_bpred_geom *g = &cfg->bpred;
  int cg = cfg->mode == SPMU_UARCH_CACHEGRIND;

  memset(b, 0, sizeof *b);
  b->cachegrind = cg;
  b->ctr_bits =
      cg ? SPMU_BP_CG_HIST_BITS + SPMU_BP_CG_IADDR_BITS : g->hist_bits;
  b->hist_bits = cg ? SPMU_BP_CG_HIST_BITS : g->hist_bits;
  b->btb_bits = SPMU_BP_CG_BTAC_BITS;
  if (!cg)
    for (b->btb_bits = 0; (1u << b->btb_bits) < g->btb; b->btb_bits++)
      ;
  b->rsb_len = cg ? 0 : g->rsb;
  b->ctr_mask = mask(b->ctr_bits);
  b->hist_mask = mask(b->hist_bits);
  b->btb_mask = mask(b->btb_bits);
  b->ctr = malloc((size_t)1 << b->ctr_bits);
  b->btb_target = malloc(((size_t)1 << b->btb_bits) * sizeof(uint64_t));
  if (!cg) {
    b->btb_pc = malloc(((size_t)1 << b->btb_bits) * sizeof(uint64_t));
    b->rsb = malloc((b->rsb_len ? b->rsb_len : 1) * sizeof(uint64_t));
  }
  if (!b->ctr || !b->btb_target || (!cg && (!b->btb_pc || !b->rsb))) {
    spmu_bpred_fini(b);
    return -1;
  }
  spmu_bpred_clear(b);
  return 0;
}

void spmu_bpred_fini(spmu_bpred *b)
{
  free(b->ctr);
  free(b->btb_pc);
  free(b->btb_target);
  free(b->rsb);
  b->ctr = NULL;
  b->btb_pc = b->btb_target = b->rsb = NULL;
}

void spmu_bpred_clear(spmu_bpred *b)
{
  size_t nbtb = (size_t)1 << b->btb_bits;

  memset(b->ctr, b->cachegrind ? 0 : 1, (size_t)1 << b->ctr_bits);
  for (size_t i = 0; i < nbtb; i++) {
    b->btb_target[i] = 0;
    if (b->btb_pc)
      b->btb_pc[i] = SPMU_BPRED_BTB_NONE;
  }
  b->hist = 0;
  b->rsb_top = b->rsb_used = 0;
}

int spmu_bpred_cond(spmu_bpred *b, uint64_t pc, int taken)
{
  return spmu_bp_cond(b, pc, taken);
}

int spmu_bpred_indirect(spmu_bpred *b, uint64_t pc, uint64_t target)
{
  return spmu_bp_indirect(b, pc, target);
}

void spmu_bpred_call(spmu_bpred *b, uint64_t ret_addr)
{
  spmu_bp_call(b, ret_addr);
}

int spmu_bpred_ret(spmu_bpred *b, uint64_t target)
{
  return spmu_bp_ret(b, target);
}

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

#define CG_HIST_BITS 7u
#define CG_IADDR_BITS 7u
#define CG_BTAC_BITS 9u

/* The part BTB's empty entry: no branch is at this address. */
#define SPMU_BTB_NONE UINT64_MAX

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
  b->ctr_bits = cg ? CG_HIST_BITS + CG_IADDR_BITS : g->hist_bits;
  b->hist_bits = cg ? CG_HIST_BITS : g->hist_bits;
  b->btb_bits = CG_BTAC_BITS;
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
      b->btb_pc[i] = SPMU_BTB_NONE;
  }
  b->hist = 0;
  b->rsb_top = b->rsb_used = 0;
}

static inline size_t cond_index(const spmu_bpred *b, uint64_t pc)
{
  if (b->cachegrind)
    return (size_t)((b->hist & mask(CG_HIST_BITS)) << CG_IADDR_BITS |
                    (pc & mask(CG_IADDR_BITS)));
  return (size_t)((pc ^ b->hist) & b->ctr_mask);
}

static inline int bp_cond(spmu_bpred *b, uint64_t pc, int taken)
{
  size_t i = cond_index(b, pc);
  int predicted = b->ctr[i] >= 2;

  taken = taken != 0;
  b->hist = (b->hist << 1 | (uint64_t)taken) & b->hist_mask;
  if (taken && b->ctr[i] < 3)
    b->ctr[i]++;
  else if (!taken && b->ctr[i] > 0)
    b->ctr[i]--;
  return predicted != taken;
}

static inline int bp_indirect(spmu_bpred *b, uint64_t pc, uint64_t target)
{
  size_t i = (size_t)(pc & b->btb_mask);
  int hit = b->btb_target[i] == target && (!b->btb_pc || b->btb_pc[i] == pc);

  b->btb_target[i] = target;
  if (b->btb_pc)
    b->btb_pc[i] = pc;
  return !hit;
}

static inline void bp_call(spmu_bpred *b, uint64_t ret_addr)
{
  if (b->rsb_len == 0)
    return;
  b->rsb_top = b->rsb_top + 1 == b->rsb_len ? 0 : b->rsb_top + 1;
  b->rsb[b->rsb_top] = ret_addr;
  if (b->rsb_used < b->rsb_len)
    b->rsb_used++;
}

static inline int bp_ret(spmu_bpred *b, uint64_t target)
{
  uint64_t predicted;

  if (b->cachegrind)
    return 0;
  if (b->rsb_used == 0)
    return 1;
  predicted = b->rsb[b->rsb_top];
  b->rsb_top = b->rsb_top == 0 ? b->rsb_len - 1 : b->rsb_top - 1;
  b->rsb_used--;
  return predicted != target;
}

/* One retired branch of any kind: its predictor, its counts. */
int spmu_bpred_branch(spmu_bpred *b, spmu_uarch_counts *n, uint64_t pc,
                      uint64_t next, spmu_uarch_br kind, int taken,
                      uint64_t target)
{
  int misp = 0;

  n->branches++;
  switch (kind) {
  case SPMU_UARCH_BR_COND:
    misp = bp_cond(b, pc, taken);
    n->bc++;
    n->bcm += (uint64_t)misp;
    break;
  case SPMU_UARCH_BR_IND_CALL:
    bp_call(b, next);
    /* fall through */
  case SPMU_UARCH_BR_IND_JUMP:
    misp = bp_indirect(b, pc, target);
    n->bi++;
    n->bim += (uint64_t)misp;
    break;
  case SPMU_UARCH_BR_CALL:
    bp_call(b, next);
    break;
  case SPMU_UARCH_BR_RET:
    misp = bp_ret(b, target);
    n->ret++;
    n->retm += (uint64_t)misp;
    break;
  case SPMU_UARCH_BR_JUMP:
    break;
  }
  return misp;
}

int spmu_bpred_cond(spmu_bpred *b, uint64_t pc, int taken)
{
  return bp_cond(b, pc, taken);
}

int spmu_bpred_indirect(spmu_bpred *b, uint64_t pc, uint64_t target)
{
  return bp_indirect(b, pc, target);
}

void spmu_bpred_call(spmu_bpred *b, uint64_t ret_addr)
{
  bp_call(b, ret_addr);
}

int spmu_bpred_ret(spmu_bpred *b, uint64_t target)
{
  return bp_ret(b, target);
}

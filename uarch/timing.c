/* SPDX-License-Identifier: MIT */
/* The timing model: core and reference cycles from the counts. It is NOT
 * cycle-accurate and models no pipeline: a machine that issues
 * issue_width instructions per cycle, plus
 *   - lat_l2 cycles for each access served by L2 (no overlap; an L1 hit
 *     costs nothing beyond issue);
 *   - long_stall: the accesses served by the LLC or memory, with the
 *     overlap of the data accesses among them (below);
 *   - misp_penalty cycles for each mispredicted branch.
 * core = ceil(instructions / issue_width)
 *        + served_l2 * lat_l2 + long_stall
 *        + (Bcm + Bim + returns mispredicted) * misp_penalty
 * ref  = core * ref_num / ref_den (rounded down): the reference clock that
 * CPU_CLK_UNHALTED.REF_TSC counts (fixed counter 2, SDM Vol. 3B 18.2.2.1
 * Table 18-2) against the core clock of CPU_CLK_UNHALTED.THREAD (fixed
 * counter 1); 1/1 models a core running at its base (TSC) frequency.
 *
 * Memory-level parallelism (long_stall), first-order interval analysis
 * (Karkhanis and Smith, "A First-Order Superscalar Processor Model", ISCA
 * 2004): an out-of-order core keeps issuing past a load that misses until
 * its reorder buffer fills, so the independent misses that begin within
 * one ROB window are outstanding together, as many as the L1D has fill
 * buffers, and cost about one latency. The rule:
 *   - a data access served by the LLC or memory joins the open group when
 *     its instruction index is less than rob past the index of the
 *     group's first and the group has fewer than fill_buffers members;
 *     otherwise it opens a new group;
 *   - a group pays the longest latency among its members: the first pays
 *     its own (lat_llc or lat_mem), each later one what it adds to the
 *     group's (lat_mem - lat_llc when a memory access joins a group of
 *     LLC hits; nothing otherwise);
 *   - an instruction fetch served by the LLC or memory pays its full
 *     latency and leaves the group as it is: the front end waits for it;
 *   - the instruction index is the instructions retired before the access
 *     (spmu_uarch_retire): the QEMU front ends retire a block when it
 *     ends, so every access of a block has the index of the block's
 *     start (a block kept per instruction for a sample, its own);
 *   - fill_buffers 0 or 1 (the cachegrind configuration): no overlap,
 *     every access pays its full latency.
 * Data dependences are not known to the model: a chain of dependent
 * misses (a pointer chase) within one window is charged as if
 * independent. */
#include "internal.h"

void spmu_timing_long(const spmu_uarch_timing *t, spmu_mlp *g,
                      spmu_uarch_counts *n, spmu_uarch_level lvl, int is_fetch)
{
  uint32_t lat = lvl == SPMU_UARCH_MEM ? t->lat_mem : t->lat_llc;
  uint64_t at = n->instructions;

  if (is_fetch || t->fill_buffers <= 1) {
    n->long_stall += lat;
    return;
  }
  if (g->members && g->members < t->fill_buffers && at - g->first < t->rob) {
    g->members++;
    if (lat > g->paid) {
      n->long_stall += lat - g->paid;
      g->paid = lat;
    }
    return;
  }
  *g = (spmu_mlp){.first = at, .members = 1, .paid = lat};
  n->long_stall += lat;
}

void spmu_timing_cycles(const spmu_uarch_timing *t, const spmu_uarch_counts *n,
                        uint64_t *core, uint64_t *ref)
{
  spmu_timing_cycles_hot(t, n, core, ref);
}

/* SPDX-License-Identifier: MIT */
/* The timing model: core and reference cycles from the counts. It is NOT
 * cycle-accurate and models no pipeline: an in-order machine that issues
 * issue_width instructions per cycle, plus, with no overlap between them
 * (no memory-level parallelism, no out-of-order execution):
 *   - lat_l2, lat_llc or lat_mem cycles for each access served by L2, the
 *     LLC or memory (an L1 hit costs nothing beyond issue);
 *   - misp_penalty cycles for each mispredicted branch.
 * core = ceil(instructions / issue_width)
 *        + served_l2 * lat_l2 + served_llc * lat_llc + served_mem * lat_mem
 *        + (Bcm + Bim + returns mispredicted) * misp_penalty
 * ref  = core * ref_num / ref_den (rounded down): the reference clock that
 * CPU_CLK_UNHALTED.REF_TSC counts (fixed counter 2, SDM Vol. 3B 18.2.2.1
 * Table 18-2) against the core clock of CPU_CLK_UNHALTED.THREAD (fixed
 * counter 1); 1/1 models a core running at its base (TSC) frequency. */
#include "internal.h"

void spmu_timing_cycles(const spmu_uarch_timing *t, const spmu_uarch_counts *n,
                        uint64_t *core, uint64_t *ref)
{
  spmu_timing_cycles_hot(t, n, core, ref);
}

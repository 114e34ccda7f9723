/* SPDX-License-Identifier: MIT */
/* Last branch records (src/lbr): recording the host's branches into the
 * logical processor's LBR file (core/state.h struct spmu_lbr_regs), the
 * model-specific stacks (SDM Vol. 3B 17.4.8, 17.5-17.12) and
 * architectural LBRs ("Architectural Last Branch Records"). The counting
 * engine calls it for the clocks it delivers; the DS code reads the stack
 * for adaptive PEBS's LBR group. It never requests a PMI: the freeze on
 * PMI is the PMI path's (core/pmi.c), and recording reads its result
 * (DEBUGCTL.LBR, GLOBAL_STATUS.LBR_Frz). */
#ifndef SPMU_LBR_LBR_H
#define SPMU_LBR_LBR_H

#include <stdbool.h>
#include <stdint.h>

#include "core/objects.h"

/* Does lp record anything of the branch of clk (LBRs enabled and not
 * frozen, and the branch passes the CPL and type filters, or it is an
 * exception or interrupt, which updates the last exception record)? False
 * when clk has no branch or the profile no LBRs. */
bool spmu_lbr_takes(const spmu_lp *lp, const spmu_clock *clk);

/* Record clk's branch n times (n identical clocks) on lp: the stack, the
 * last-branch latch and, for an exception or interrupt, the last exception
 * record; the caller has checked spmu_lbr_takes before the clocks. */
void spmu_lbr_record(spmu_lp *lp, const spmu_clock *clk, uint64_t n);

/* Clear every entry of an LBR file (FROM, TO, INFO; IA32_LBR_DEPTH
 * writes). */
void spmu_lbr_clear(struct spmu_lbr_regs *l);

/* The entries of lp's stack, most recent first, up to cap; returns the
 * depth in use (0 without LBRs). */
unsigned spmu_lbr_entries(const spmu_lp *lp, spmu_lbr_entry *out, unsigned cap);

#endif

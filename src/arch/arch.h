/* SPDX-License-Identifier: MIT */
/* The architectural perfmon engine (v1-v5, SDM 18.2-18.9): what its files
 * share. The core reaches it only through spmu_engine_arch (arch.c). */
#ifndef SPMU_ARCH_ARCH_H
#define SPMU_ARCH_ARCH_H

#include <stdint.h>

#include "core/objects.h"

/* Rebuild the programs of every stale logical processor (count.c). */
void spmu_arch_refresh(spmu_core *core);

/* spmu_deliver and spmu_deadline on an architectural core (count.c). */
int spmu_arch_deliver(spmu_lp *lp, const spmu_clock *clk, uint64_t clocks,
                      uint64_t *consumed);
int spmu_arch_deadline(spmu_lp *lp, const spmu_clock *clk, uint64_t *clocks);

/* The edge-detect state of lp's GP counters (bit i = PMCi's CMASK/INV
 * condition in the last clock), pending or not (count.c). */
uint32_t spmu_lp_edge(const spmu_lp *lp);

#endif

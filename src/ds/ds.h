/* SPDX-License-Identifier: MIT */
/* The DS save area (src/ds): PEBS records and BTS records (SDM 17.4.8,
 * 17.4.9, 18.4.4, 18.6.2, 18.15.7), for both engines. It reaches guest
 * memory through the host's callbacks and reports what it wrote or
 * dropped (spmu_emit); it never requests a PMI and calls no engine: it
 * returns what happened (a record, a drop, the interrupt threshold
 * reached) to the engine that called it. */
#ifndef SPMU_DS_DS_H
#define SPMU_DS_DS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/objects.h"
#include "util/bits.h"

/* Perform the PEBS assist of lp at clock clk for the armed counters
 * `applicable` (bit c): bounds check, record, index, counter reload from
 * the DS reset slots, overflow status cleared. Returns SPMU_TICK_PEBS, or
 * SPMU_TICK_PEBS_LOST (with SPMU_TICK_MEM_FAULT when a memory callback
 * failed). *threshold is set when the new index reached the interrupt
 * threshold: the caller then sets OvfBuf and requests the PMI
 * (spmu_buffer_threshold); the DS code never requests a PMI. */
unsigned spmu_pebs_assist(spmu_lp *lp, const spmu_clock *clk,
                          uint32_t applicable, bool *threshold);

/* The NetBurst PEBS assist of lp (SDM 18.15.7): the record (the 40-byte
 * 32-bit form, or the 64-bit one with the 64-bit DS layout) and the new
 * PEBS index, as spmu_pebs_assist, through the same DS code. On
 * SPMU_TICK_PEBS, *reset is the DS area's PEBS counter reset value and
 * *threshold says the index reached the interrupt threshold; the caller
 * reloads counter `counter` (the PEBS counter, as events number it) and
 * requests the PMI. */
unsigned spmu_nb_pebs_assist(spmu_lp *lp, const spmu_clock *clk,
                             unsigned counter, uint64_t *reset,
                             bool *threshold);

/* Does a branch in clk go to the BTS buffer (SDM 17.4.9.3 Table 17-x:
 * TR and BTS set, not filtered by BTS_OFF_OS / BTS_OFF_USR)? */
bool spmu_bts_stores(const spmu_lp *lp, const spmu_clock *clk);

/* Store clk's branch record in the BTS buffer (SDM 17.4.8-17.4.9):
 * circular when BTINT is clear, stopped at the absolute maximum when set.
 * Returns SPMU_TICK_BTS, SPMU_TICK_MEM_FAULT, or 0 when no record fits;
 * *threshold is set when the new index reached the interrupt threshold
 * (the caller then calls spmu_buffer_threshold). */
unsigned spmu_bts_store(spmu_lp *lp, const spmu_clock *clk, bool *threshold);

#endif

/* SPDX-License-Identifier: MIT */
/* The PMI path and the event report (core/pmi.c): what the engines
 * (src/arch, src/netburst), the DS code (src/ds) and the core (core.c)
 * call to request and raise PMIs and to report events. It works on the
 * objects of core/objects.h and calls nothing above it: no engine, no
 * LBR code (the freeze on PMI sets the LBR freeze bits in the registers,
 * which src/lbr reads). */
#ifndef SPMU_CORE_PMI_H
#define SPMU_CORE_PMI_H

#include <stdbool.h>
#include <stdint.h>

#include "core/objects.h"
#include "softpmu/events.h"

/* ---- The PMI path (src/core/pmi.c) --------------------------------------
 * An engine requests a PMI with spmu_request_pmi at the clock the
 * condition happens (the freeze-on-PMI rules apply there); the requests of
 * a call are collected in core->pmi_lps, and spmu_raise_pmis calls the
 * host's pmi() for them when the call ends. It is the one caller of
 * host.pmi. */

/* Request a PMI on lp. Architectural PMU: freeze-on-PMI (SDM 18.2.4.1,
 * 17.4.7). NetBurst has no freeze on PMI (its DEBUGCTLA has no such bit,
 * SDM 17.11.1): only the request. */
void spmu_request_pmi(spmu_lp *lp);

/* A DS buffer's index reached its interrupt threshold (SDM 17.4.9.2,
 * 18.6.2.4; pebs: the PEBS buffer, else BTS): OvfBuf in GLOBAL_STATUS
 * (architectural PMU) and a PMI request. The DS code reports the
 * threshold; the engine that called it calls this. */
void spmu_buffer_threshold(spmu_lp *lp, bool pebs);

/* ---- What the model reports (events.h; src/core/pmi.c) ------------------
 * Every emitter tests spmu_reporting first (one branch, on rare paths
 * only), so nothing is built without an event callback. */
static inline bool spmu_reporting(const spmu_core *core)
{
  return core->report != NULL;
}

/* Report ev (kind and union filled) as happening to lp at the current
 * clock. */
void spmu_emit(spmu_lp *lp, spmu_event *ev);

/* Report a counter event (SPMU_EV_OVERFLOW, SPMU_EV_RELOAD) of counter
 * `counter` (GLOBAL_STATUS numbering; NetBurst: n); wraps: OVERFLOW's
 * count of wraps in the clock, 0 for RELOAD. */
void spmu_emit_ctr(spmu_lp *lp, unsigned kind, unsigned counter, uint64_t old,
                   uint64_t now, uint64_t wraps);

/* Report SPMU_EV_PMI and call the host's pmi() for every logical
 * processor with a PMI requested since the last call (first, then the
 * others by index) and forget the requests; `clock` is the clock of the
 * requests within the delivery call (0 outside one). spmu_raise_pmis is
 * the engines' call: most calls have none. */
void spmu_raise_requested_pmis(spmu_core *core, spmu_lp *first, uint64_t clock);
static inline void spmu_raise_pmis(spmu_core *core, spmu_lp *first,
                                   uint64_t clock)
{
  if (core->pmi_lps)
    spmu_raise_requested_pmis(core, first, clock);
}

#endif

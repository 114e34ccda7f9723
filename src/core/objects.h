/* SPDX-License-Identifier: MIT */
/* The core and logical-processor objects: what the core (core.c,
 * snapshot.c), the PMI path (pmi.c), both engines (src/arch,
 * src/netburst), the DS code (src/ds) and the LBRs (src/lbr) share. Types
 * and two inline helpers only: it calls no function, so every file above
 * it can include it without a circle. The engines meet the core through
 * struct spmu_engine (core/engine.h); the core holds their state types
 * (arch/prog.h, netburst/nb.h: types only) and calls no engine by name. */
#ifndef SPMU_CORE_OBJECTS_H
#define SPMU_CORE_OBJECTS_H

#include <stdbool.h>

#include "arch/prog.h"
#include "core/msr.h"
#include "core/state.h"
#include "netburst/nb.h"
#include "regs/applied.h"
#include "softpmu/events.h"
#include "softpmu/pmu.h"
#include "util/bits.h"

struct spmu_engine;

struct spmu_lp {
  spmu_core *core;
  unsigned index;
  struct spmu_regs r;
  /* The architectural engine's state (src/arch; unused on NetBurst).
   * Counting-engine state that is not an MSR: bit i = the CMASK/INV
   * condition of GP counter i held in the previous clock (edge detect). */
  uint32_t edge;
  /* After a plain clock (count.c plain_clock) the edge state is pending:
   * SPMU_EDGE_PENDING, the clock variant, and bit d for each of the
   * program's keys d with a nonzero count. spmu_lp_edge derives it. */
  uint32_t edge_keys;
  /* PEBS counters that overflowed and wait for their next event to
   * perform the assist (bit c; SDM 18.4.4). */
  uint32_t armed;
  /* Legacy freeze (v2-v3, SDM 18.2.4.1): a PMI request cleared
   * GLOBAL_CTRL and software has not written it since. Not an MSR and
   * not in the snapshot: it only decides when SPMU_EV_UNFREEZE is
   * reported (decisions.md). RESET clears it; INIT leaves it. */
  bool pmi_frozen;
  /* Derived from r; valid unless the core marks this lp stale. */
  struct spmu_prog prog;
};

struct spmu_core {
  struct spmu_applied a;
  spmu_host host;
  unsigned nlp;
  uint32_t stale;   /* lps whose registers changed since the engine last
                       compiled them (bit = lp index; engine->rebuild) */
  uint32_t any_lps; /* lps whose prog has AnyThread entries */
  struct spmu_lp lp[SPMU_MAX_THREADS];
  /* (After lp[]: the offsets the counting hot path reads stay put.) */
  const struct spmu_engine *engine; /* chosen from the profile */
  uint32_t pmi_lps; /* lps that requested a PMI in the current call */
  /* Where events go: host.event, or NULL while nothing may be reported
   * (spmu_deadline's dry runs). */
  void (*report)(void *opaque, const spmu_event *ev);
  uint64_t clock; /* the clock's number within spmu_deliver, 0 outside */
  /* NetBurst profiles: the shared register file and the engine's state
   * (src/netburst). */
  struct spmu_nb_regs nb_regs;
  struct spmu_nb nb;
  /* Staging for spmu_core_restore, so a restore never half-applies and
   * never allocates: each logical processor's records are checked here
   * first, then replayed onto the real registers (snapshot.c). */
  struct spmu_regs scratch;
  struct spmu_nb_regs nb_scratch;
  struct spmu_lbr_regs lbr_scratch;
  /* Each logical processor's LBR file (state.h), by index. */
  struct spmu_lbr_regs lbr[SPMU_MAX_THREADS];
};

/* Something in lp's register file changed: its compiled counters must be
 * rebuilt before the next clock. Every path that writes registers calls it. */
static inline void spmu_lp_touch(struct spmu_lp *lp)
{
  lp->core->stale |= UINT32_C(1) << lp->index;
}

/* The register files an access of lp reaches (its own and the core's
 * shared NetBurst file). */
static inline struct spmu_regfiles spmu_lp_file(struct spmu_lp *lp)
{
  return (struct spmu_regfiles){&lp->r, &lp->core->nb_regs, lp->index,
                                &lp->core->lbr[lp->index]};
}

#endif

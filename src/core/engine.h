/* SPDX-License-Identifier: MIT */
/* How the core meets a counting engine: one table of operations that each
 * PMU family provides (the architectural perfmon engine in src/arch, the
 * NetBurst engine in src/netburst). spmu_core_new chooses the table from
 * the profile; the core calls the engine only through it, and the engines
 * never call each other. */
#ifndef SPMU_CORE_ENGINE_H
#define SPMU_CORE_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/objects.h"

struct spmu_engine {
  /* Power-on: forget the engine's state that is not an MSR (the register
   * files are reset by the core). */
  void (*reset)(spmu_core *core);
  /* RDPMC of ecx on lp, after the core's CPL / CR4.PCE check (SDM Vol. 2B
   * RDPMC): SPMU_OK with *value, or SPMU_GP. */
  int (*rdpmc)(spmu_lp *lp, uint32_t ecx, uint64_t *value);
  /* Recompile what depends on the registers of the logical processors in
   * core->stale, and clear it. */
  void (*rebuild)(spmu_core *core);
  /* spmu_deliver (events.h) once the core has checked lp, clk->cpl and
   * clocks and rebuilt: SPMU_TICK_* bits or SPMU_EINVAL for a clock the
   * engine cannot read. The engine requests PMIs (spmu_request_pmi) and
   * calls spmu_raise_pmis before it returns. */
  int (*deliver)(spmu_lp *lp, const spmu_clock *clk, uint64_t clocks,
                 uint64_t *consumed);
  /* spmu_deadline (events.h): changes no state the guest or the host can
   * see. The core has rebuilt, silenced the event report, and forgets the
   * PMI requests of the dry run afterwards. SPMU_OK or SPMU_EINVAL. */
  int (*deadline)(spmu_lp *lp, const spmu_clock *clk, uint64_t *clocks);
  /* The snapshot's two words of logical processor i (core/snapshot.c):
   * read, check, and set the engine's state that is not an MSR. */
  void (*save_words)(const spmu_core *core, unsigned i, uint32_t *edge,
                     uint32_t *armed);
  bool (*words_valid)(const spmu_core *core, unsigned i, uint32_t edge,
                      uint32_t armed);
  void (*load_words)(spmu_core *core, unsigned i, uint32_t edge,
                     uint32_t armed);
};

/* The two engines (src/arch/arch.c, src/netburst/engine.c). */
extern const struct spmu_engine spmu_engine_arch;
extern const struct spmu_engine spmu_engine_netburst;

#endif

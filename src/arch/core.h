/* The core and logical-processor objects (private to src/arch). */
#ifndef SPMU_ARCH_CORE_H
#define SPMU_ARCH_CORE_H

#include "arch/state.h"
#include "regs/applied.h"
#include "softpmu/events.h"
#include "softpmu/pmu.h"

struct spmu_lp {
  spmu_core *core;
  unsigned index;
  struct spmu_regs r;
  /* Counting-engine state that is not an MSR: bit i = the CMASK/INV
   * condition of GP counter i held in the previous clock (edge detect). */
  uint32_t edge;
};

struct spmu_core {
  struct spmu_applied a;
  spmu_host host;
  unsigned nlp;
  struct spmu_lp lp[SPMU_MAX_THREADS];
  /* Staging for spmu_core_restore, so a restore never half-applies and
   * never allocates. */
  struct spmu_regs scratch[SPMU_MAX_THREADS];
  uint32_t scratch_edge[SPMU_MAX_THREADS];
};

#endif

/* The core and logical-processor objects (private to src/arch). */
#ifndef SPMU_ARCH_CORE_H
#define SPMU_ARCH_CORE_H

#include "arch/state.h"
#include "regs/applied.h"
#include "softpmu/pmu.h"

struct spmu_lp {
  spmu_core *core;
  unsigned index;
  struct spmu_regs r;
};

struct spmu_core {
  struct spmu_applied a;
  unsigned nlp;
  struct spmu_lp lp[SPMU_MAX_THREADS];
  /* Staging for spmu_core_restore, so a restore never half-applies and
   * never allocates. */
  struct spmu_regs scratch[SPMU_MAX_THREADS];
};

#endif

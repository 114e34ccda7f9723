/* The register file of one logical processor: the state the catalogue's
 * `storage` offsets point into. Counters hold width bits only. */
#ifndef SPMU_ARCH_STATE_H
#define SPMU_ARCH_STATE_H

#include <stdint.h>

#include "softpmu/profile.h"

struct spmu_regs {
  /* The counters, in the counting engine's order: IA32_PMC0-7 at 0-7,
   * IA32_FIXED_CTR0-15 at SPMU_MAX_GP + j. */
  uint64_t ctr[SPMU_MAX_GP + SPMU_MAX_FIXED];
  uint64_t evtsel[SPMU_MAX_GP];
  uint64_t fixed_ctr_ctrl;
  uint64_t global_ctrl;
  uint64_t global_status;
  uint64_t perf_capabilities;
  uint64_t perf_metrics;
  uint64_t misc_enable;
  uint64_t debugctl;
  uint64_t pebs_enable;
  uint64_t pebs_data_cfg;
  uint64_t pebs_ld_lat;
  uint64_t pebs_frontend;
  uint64_t ds_area;
};

#endif

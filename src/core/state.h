/* The register file of one logical processor: the state the catalogue's
 * `storage` offsets point into (shared defs: struct spmu_nb_regs below).
 * Counters hold width bits only. */
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

/* The NetBurst register file of a core (SDM 18.15-18.16): counters, CCCRs,
 * ESCRs and the tagging MSRs are one set per physical processor, shared by
 * its logical processors (Table 35-41 marks them "Shared"). DEBUGCTLA and
 * DS_AREA stay in each logical processor's struct spmu_regs ("Unique"). */
#define SPMU_NB_NCTR 18
#define SPMU_NB_NESCR 46 /* 23 units x 2 (SSU has no ESCR1) */
struct spmu_nb_regs {
  uint64_t ctr[SPMU_NB_NCTR];  /* 300H + n, 40 bits */
  uint64_t cccr[SPMU_NB_NCTR]; /* 360H + n */
  uint64_t escr[SPMU_NB_NESCR]; /* slot 2 * (unit - 1) + k */
  uint64_t tc_precise;         /* MSR_TC_PRECISE_EVENT 3F0H */
  uint64_t pebs_enable;        /* MSR_PEBS_ENABLE 3F1H; bits 25/26 stored
                                  as thread 0 / thread 1 (the MY_THR /
                                  OTH_THR view is per logical processor) */
  uint64_t pebs_matrix_vert;   /* MSR_PEBS_MATRIX_VERT 3F2H */
};

#endif

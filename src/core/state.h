/* SPDX-License-Identifier: MIT */
/* The register file of one logical processor: the state the catalogue's
 * `storage` offsets point into (shared defs: struct spmu_nb_regs below).
 * Counters hold width bits only. */
#ifndef SPMU_ARCH_STATE_H
#define SPMU_ARCH_STATE_H

#include <stdint.h>

#include "softpmu/pmu.h"
#include "softpmu/profile.h"
#include "util/bits.h"

/* The index spaces of the counters, written down once (SDM 18.2.2.2
 * Figures 18-3 to 18-5; Vol. 2B RDPMC):
 *   engine counter index c: GP counter i is c = i, fixed counter j is
 *     c = SPMU_CTR_FIXED(j) = 8 + j. struct spmu_regs ctr[c], the
 *     profile's width_mask[c], the engine's counter masks, the DS reset
 *     slot c and the snapshot's armed word use it.
 *   GLOBAL_* bit: GP counter i is bit i, fixed counter j is bit
 *     SPMU_GLOBAL_FIXED(j) = 32 + j. GLOBAL_CTRL, GLOBAL_STATUS,
 *     OVF_CTRL / STATUS_RESET / STATUS_SET, GLOBAL_INUSE, baseline
 *     PEBS_ENABLE, PEBS records' counter fields and spmu_event counter
 *     numbers use it (so does the agent).
 *   RDPMC ECX: GP counter i is i, fixed counter j is (1 << 30) | j.
 * SPMU_STATUS_BIT and spmu_status_of turn the first into the second. */
#define SPMU_CTR_FIXED(j) (SPMU_MAX_GP + (j))
#define SPMU_GLOBAL_FIXED(j) SPMU_COUNTER_FIXED(j) /* softpmu/pmu.h */

/* The GLOBAL_* bit number of engine counter index c. */
#define SPMU_STATUS_BIT(c)                                                     \
  ((c) < SPMU_MAX_GP ? (unsigned)(c)                                           \
                     : (unsigned)SPMU_GLOBAL_FIXED(-SPMU_MAX_GP + (c)))

/* The GLOBAL_* bits of the counters in ctrs (bit c = engine counter c). */
static inline uint64_t spmu_status_of(uint64_t ctrs)
{
  return (ctrs & spmu_width_mask(SPMU_MAX_GP)) | (ctrs >> SPMU_CTR_FIXED(0))
                                                     << SPMU_GLOBAL_FIXED(0);
}

/* The engine counter indices (bit c) of the counters in the GLOBAL_* bits
 * st: spmu_status_of's inverse. */
static inline uint64_t spmu_ctrs_of(uint64_t st)
{
  return (st & spmu_width_mask(SPMU_MAX_GP)) |
         (st >> SPMU_GLOBAL_FIXED(0) & spmu_width_mask(SPMU_MAX_FIXED))
             << SPMU_CTR_FIXED(0);
}

struct spmu_regs {
  /* The counters by engine counter index: IA32_PMC0-7 at 0-7,
   * IA32_FIXED_CTR0-15 at SPMU_CTR_FIXED(j). */
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

/* The LBR file of one logical processor (SDM Vol. 3B 17.4.8, 17.5-17.12,
 * "Architectural Last Branch Records"): the stack and its control MSRs.
 * Kept apart from struct spmu_regs so that the counting engine's copies of
 * a logical processor (spmu_deadline's dry runs) stay small; the
 * catalogue's `lbr` defs point into it. Model-specific stacks: entry i is
 * FROM_IP/TO_IP/INFO i, the most recent at MSR_LASTBRANCH_TOS.
 * Architectural LBRs: entry 0 is the most recent. */
#define SPMU_LBR_MAX 32
struct spmu_lbr_regs {
  uint64_t from[SPMU_LBR_MAX];
  uint64_t to[SPMU_LBR_MAX];
  uint64_t info[SPMU_LBR_MAX];
  uint64_t tos;      /* MSR_LASTBRANCH_TOS */
  uint64_t select;   /* MSR_LBR_SELECT */
  uint64_t ctl;      /* IA32_LBR_CTL */
  uint64_t depth;    /* IA32_LBR_DEPTH */
  uint64_t ler_from; /* IA32_LER_FROM_IP */
  uint64_t ler_to;   /* IA32_LER_TO_IP */
  uint64_t ler_info; /* IA32_LER_INFO */
  /* Not an MSR: the last branch the LBRs recorded (from, to as a linear
   * address sign-extended from bit 47; info as IA32_LBR_x_INFO, 0 for
   * model-specific LBRs), which an exception or interrupt copies into the
   * LER MSRs (SDM 17.4.8.3; "Architectural Last Branch Records"). */
  uint64_t last_from, last_to, last_info;
};

/* The NetBurst register file of a core (SDM 18.15-18.16): counters, CCCRs,
 * ESCRs and the tagging MSRs are one set per physical processor, shared by
 * its logical processors (Table 35-41 marks them "Shared"). DEBUGCTLA and
 * DS_AREA stay in each logical processor's struct spmu_regs ("Unique"). */
#define SPMU_NB_NCTR 18
#define SPMU_NB_NESCR 46 /* 23 units x 2 (SSU has no ESCR1) */
struct spmu_nb_regs {
  uint64_t ctr[SPMU_NB_NCTR];   /* 300H + n, 40 bits */
  uint64_t cccr[SPMU_NB_NCTR];  /* 360H + n */
  uint64_t escr[SPMU_NB_NESCR]; /* slot 2 * (unit - 1) + k */
  uint64_t tc_precise;          /* MSR_TC_PRECISE_EVENT 3F0H */
  uint64_t pebs_enable;         /* MSR_PEBS_ENABLE 3F1H; bits 25/26 stored
                                   as thread 0 / thread 1 (the MY_THR /
                                   OTH_THR view is per logical processor) */
  uint64_t pebs_matrix_vert;    /* MSR_PEBS_MATRIX_VERT 3F2H */
};

#endif

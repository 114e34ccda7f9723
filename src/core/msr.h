/* SPDX-License-Identifier: MIT */
/* The MSR access algorithm: one write and one read routine for every MSR,
 * driven by the catalogue's policy and the masks of the applied profile. */
#ifndef SPMU_ARCH_MSR_H
#define SPMU_ARCH_MSR_H

#include <stdbool.h>
#include <stdint.h>

#include "core/state.h"
#include "regs/applied.h"
#include "softpmu/regs.h"
#include "util/bits.h"

/* The field bits the model's behaviour depends on (SPMU_EVTSEL_*, ...) are
 * public: softpmu/regs.h. */

/* Where an access finds an MSR's state: the accessing logical
 * processor's register file, or for `shared` defs the core's NetBurst
 * register file; index is the accessing logical processor (views). */
struct spmu_regfiles {
  struct spmu_regs *lp;
  struct spmu_nb_regs *nb;
  unsigned index;
  struct spmu_lbr_regs *lbr; /* the logical processor's LBR file */
};

enum spmu_wr {
  SPMU_WR_OK,
  SPMU_WR_RESERVED, /* a reserved bit is set, or the value is invalid */
  SPMU_WR_READONLY, /* the write would change read-only state */
};

/* Write v to MSR m of register file f. host selects the host path (may
 * set read-only state, counters take the value unmodified). */
enum spmu_wr spmu_msr_write(const struct spmu_applied *a,
                            const struct spmu_regfiles *f,
                            const struct spmu_msr_rt *m, uint64_t v, bool host);

/* What RDMSR of m returns. */
uint64_t spmu_msr_read(const struct spmu_applied *a,
                       const struct spmu_regfiles *f,
                       const struct spmu_msr_rt *m);

/* Put every MSR of f (the logical processor's and the shared ones) to its
 * power-on value. */
void spmu_regs_reset(const struct spmu_applied *a,
                     const struct spmu_regfiles *f);

/* MSR_PEBS_ENABLE's per-thread view (SDM 18.16.3): bit 25 is the
 * accessing logical processor's PEBS enable ("my thread"), bit 26 the
 * other's; the shared register stores thread 0's at 25, thread 1's at 26. */
uint64_t spmu_nb_pebs_view(uint64_t v, unsigned lp);
#define SPMU_NB_PEBS_T0 BIT64(25)
#define SPMU_NB_PEBS_T1 BIT64(26)
#define SPMU_NB_PEBS_UOP_TAG BIT64(24)
#define SPMU_NB_PEBS_METRIC GENMASK64(12, 0)

/* IA32_PERF_GLOBAL_INUSE from the event selects, FIXED_CTR_CTRL and
 * PEBS_ENABLE (SDM 18.2.4.3). */
uint64_t spmu_inuse_compute(const struct spmu_applied *a,
                            const struct spmu_regs *r);

/* The address bits of an LBR FROM_IP in the profile's record format
 * (SDM 17.4.8.1): 64 (formats 1-2, architectural LBRs), 63 (format 3:
 * MISPRED in bit 63) or 61 (formats 4-5: TSX flags in bits 62:61). */
unsigned spmu_lbr_ip_bits(const struct spmu_applied *a);

/* Is the MSR's state part of a snapshot (stored, not derived, not an alias)? */
bool spmu_msr_saved(const struct spmu_msr_rt *m);

#endif

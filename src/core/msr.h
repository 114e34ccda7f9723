/* The MSR access algorithm: one write and one read routine for every MSR,
 * driven by the catalogue's policy and the masks of the applied profile. */
#ifndef SPMU_ARCH_MSR_H
#define SPMU_ARCH_MSR_H

#include <stdbool.h>
#include <stdint.h>

#include "core/state.h"
#include "regs/applied.h"
#include "util/bits.h"

/* Field positions the model's behaviour depends on. They restate catalogue
 * fields; tests/test_catalog.c checks each against the table. */
#define SPMU_EVTSEL_EVENT GENMASK64(7, 0)
#define SPMU_EVTSEL_UMASK_SHIFT 8
#define SPMU_EVTSEL_USR BIT64(16)
#define SPMU_EVTSEL_OS BIT64(17)
#define SPMU_EVTSEL_E BIT64(18)
#define SPMU_EVTSEL_INT BIT64(20)
#define SPMU_EVTSEL_ANY BIT64(21)
#define SPMU_EVTSEL_EN BIT64(22)
#define SPMU_EVTSEL_INV BIT64(23)
#define SPMU_EVTSEL_CMASK_SHIFT 24
#define SPMU_EVTSEL_IN_TX BIT64(32)
#define SPMU_FIXED_EN(j) (UINT64_C(3) << (4 * (j)))
#define SPMU_FIXED_ANY(j) (UINT64_C(4) << (4 * (j)))
#define SPMU_FIXED_PMI(j) (UINT64_C(8) << (4 * (j)))
#define SPMU_DEBUGCTL_LBR BIT64(0)
#define SPMU_DEBUGCTL_TR BIT64(6)
#define SPMU_DEBUGCTL_BTS BIT64(7)
#define SPMU_DEBUGCTL_BTINT BIT64(8)
#define SPMU_DEBUGCTL_BTS_OFF_OS BIT64(9)
#define SPMU_DEBUGCTL_BTS_OFF_USR BIT64(10)
#define SPMU_DEBUGCTL_FREEZE_LBRS BIT64(11)
#define SPMU_DEBUGCTL_FREEZE_PERFMON BIT64(12)
#define SPMU_DEBUGCTL_ENABLE_UNCORE_PMI BIT64(13)
#define SPMU_DEBUGCTL_FREEZE_WHILE_SMM BIT64(14)
#define SPMU_STATUS_TRACE_TOPA_PMI BIT64(55)
#define SPMU_STATUS_LBR_FRZ BIT64(58)
#define SPMU_STATUS_CTR_FRZ BIT64(59)
#define SPMU_STATUS_ASCI BIT64(60)
#define SPMU_STATUS_OVF_UNCORE BIT64(61)
#define SPMU_STATUS_OVF_BUF BIT64(62)
#define SPMU_STATUS_COND_CHGD BIT64(63)
#define SPMU_MSR_DEBUGCTL 0x1D9u
#define SPMU_MSR_GLOBAL_STATUS 0x38Eu
#define SPMU_MSR_GLOBAL_CTRL 0x38Fu
#define SPMU_INUSE_PMI BIT64(63)

/* Where an access finds an MSR's state: the accessing logical
 * processor's register file, or for `shared` defs the core's NetBurst
 * register file; index is the accessing logical processor (views). */
struct spmu_regfiles {
  struct spmu_regs *lp;
  struct spmu_nb_regs *nb;
  unsigned index;
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

/* Is the MSR's state part of a snapshot (stored, not derived, not an alias)? */
bool spmu_msr_saved(const struct spmu_msr_rt *m);

#endif

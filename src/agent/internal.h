/* SPDX-License-Identifier: MIT */
/* The agent's state, shared by every file of the agent library (private to
 * src/agent).
 *
 * Layers. Each file calls only the layers below it; no file calls up or
 * sideways, so the agent's call graph has no loop:
 *
 *   3  agent.c    the agent object: creation, discovery of the PMU (CPUID
 *                 leaf 0AH through spmu_profile_from_cpuid, SDM Vol. 2A
 *                 Table 3-8), the accessors, and release on free.
 *   2  share.c    the sharing protocol (SDM 18.2.4.3, 18.2.2): scan,
 *                 claim, reprogram and release, and who holds the PMI
 *                 (SDM 17.4.7 freeze on PMI is set by the agent holding it).
 *      pmi.c      the PMI handler flows (SDM 18.2.4.1, 18.2.4.2, 18.2.2,
 *                 18.15.3). Beside share.c: neither calls the other.
 *   1  program.c  counter programming (program.h): counter values, control
 *                 words, event checks, start, stop, overflow acknowledge
 *                 (SDM 18.2.1.1, 18.2.2, 18.2.5).
 *   0  msr.c      backend access (msr.h): RDMSR, WRMSR, RDPMC, CPUID and
 *                 the LVT unmask through spmu_backend, the read-modify-write
 *                 of a shared MSR, and the #GP bookkeeping.
 *
 * This header holds only data: the MSR numbers, the fields, the state
 * struct and inline accessors of it; the functions of a layer are declared
 * in its own header (msr.h, program.h), which its callers include. The
 * test agent_layers (tests/check_agent_layers.sh) reads the objects'
 * symbols and fails on a call up or sideways.
 */
#ifndef SPMU_AGENT_INTERNAL_H
#define SPMU_AGENT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "softpmu/agent.h"
#include "softpmu/error.h"
#include "softpmu/regs.h"
#include "util/bits.h"

/* MSRs (SDM Vol. 4 Table 2-2). */
#define AG_PMC0 0xC1u
#define AG_EVTSEL0 0x186u
#define AG_DEBUGCTL 0x1D9u
#define AG_FIXED_CTR0 0x309u
#define AG_PERF_CAPABILITIES 0x345u
#define AG_FIXED_CTR_CTRL 0x38Du
#define AG_GLOBAL_STATUS 0x38Eu
#define AG_GLOBAL_CTRL 0x38Fu
#define AG_GLOBAL_OVF_CTRL 0x390u /* IA32_PERF_GLOBAL_STATUS_RESET on v4+ */
#define AG_GLOBAL_INUSE 0x392u
#define AG_PEBS_ENABLE 0x3F1u
#define AG_A_PMC0 0x4C1u

/* Field bits: softpmu/regs.h (SPMU_EVTSEL_*, SPMU_FIXED_*, ...); the
 * whole 4-bit block of fixed counter j in IA32_FIXED_CTR_CTRL (SDM 18.2.2
 * Figure 18-2): */
#define AG_FIXED_FIELD(j) (UINT64_C(0xF) << (4 * (j)))
#define AG_NSLOT (SPMU_MAX_GP + SPMU_MAX_FIXED)

/* NetBurst (SDM 18.15.1-18.15.3, 18.16.1-18.16.2, Table 18-63): counter
 * n at 300H + n, its CCCR at 360H + n, 40 bits. */
#define AG_NB_NCTR 18u
#define AG_NB_COUNTER0 0x300u
#define AG_NB_CCCR0 0x360u
#define AG_NB_WIDTH 40u
#define AG_NB_MAX_PERIOD BIT64(AG_NB_WIDTH - 1)
#define AG_CCCR_EXT_CASCADE BIT64(11)
#define AG_CCCR_ENABLE BIT64(12)
#define AG_CCCR_SELECT_SHIFT 13
#define AG_CCCR_SELECT GENMASK64(15, 13)
#define AG_CCCR_ACTIVE_SHIFT 16
#define AG_CCCR_OVF_PMI_T0 BIT64(26)
#define AG_CCCR_OVF_PMI_T1 BIT64(27)
#define AG_CCCR_CASCADE BIT64(30)
#define AG_CCCR_OVF BIT64(31)
#define AG_ESCR_T0_OS BIT64(3)
#define AG_ESCR_T0_USR BIT64(2)
#define AG_ESCR_T1_OS BIT64(1)
#define AG_ESCR_T1_USR BIT64(0)
#define AG_ESCR_OS_USR GENMASK64(3, 0)

/* One NetBurst counter the agent holds, with the ESCR its claim took. */
struct ag_nb_ctr {
  uint32_t escr;      /* the ESCR's address */
  uint64_t escr_val;  /* what the claim wrote to the ESCR */
  uint64_t cccr;      /* what the claim wrote to the CCCR (ENABLE set) */
  uint64_t period;    /* 0: counting */
  uint64_t prev_escr; /* the ESCR, CCCR and counter value the claim found */
  uint64_t prev_cccr;
  uint64_t prev_value;
  uint64_t samples;
};

/* One counter the agent holds. */
struct ag_ctr {
  spmu_agent_event ev;
  uint64_t ctl;        /* GP: event select without EN; fixed: its field */
  uint64_t prev_ctl;   /* the same as the claim found it */
  uint64_t prev_value; /* the counter value the claim found */
  bool prev_global;    /* its GLOBAL_CTRL bit as the claim found it */
  uint64_t samples;
};

struct spmu_agent {
  spmu_backend be;
  spmu_agent_pmu pmu;
  uint64_t present;  /* counters that exist */
  uint64_t owned;    /* counters held */
  uint64_t running;  /* held and started */
  uint64_t sampling; /* held with period != 0 (INT / PMI set) */
  bool pmi_owned;    /* this agent holds the PMI */
  bool freeze;       /* it set FREEZE_PERFMON_ON_PMI */
  bool freeze_saved; /* prev_freeze holds what DEBUGCTL had */
  bool prev_freeze;
  uint32_t fault_msr;
  /* GP counter i at slot i, fixed counter j at SPMU_MAX_GP + j. */
  struct ag_ctr ctr[AG_NSLOT];
  /* A NetBurst agent's counters (pmu.netburst), counter n at nb[n]. */
  struct ag_nb_ctr nb[AG_NB_NCTR];
};

static inline bool ag_is_fixed(unsigned c)
{
  return c >= SPMU_AGENT_FIXED(0);
}

static inline unsigned ag_fixed_index(unsigned c)
{
  return c - SPMU_AGENT_FIXED(0);
}

static inline struct ag_ctr *ag_slot(spmu_agent *a, unsigned c)
{
  return &a->ctr[ag_is_fixed(c) ? SPMU_MAX_GP + ag_fixed_index(c) : c];
}

static inline const struct ag_ctr *ag_cslot(const spmu_agent *a, unsigned c)
{
  return &a->ctr[ag_is_fixed(c) ? SPMU_MAX_GP + ag_fixed_index(c) : c];
}

static inline bool ag_present(const spmu_agent *a, unsigned c)
{
  return c < 64 && (a->present >> c & 1);
}

/* Lowest counter of a non-empty set. */
static inline unsigned ag_first(uint64_t set)
{
  return (unsigned)__builtin_ctzll(set);
}

#endif

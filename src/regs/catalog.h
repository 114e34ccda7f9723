/* SPDX-License-Identifier: MIT */
/* The register catalogue: every MSR of the architectural and the NetBurst
 * PMU, declared once.
 *
 * Index spaces (one comment for all of them):
 *  - MSR address: what WRMSR/RDMSR take in ECX (C1H+i for IA32_PMCi ...);
 *  - counter index: GP counter i, fixed counter j;
 *  - global bit: GP counter i is bit i, fixed counter j is bit 32+j of
 *    GLOBAL_CTRL / GLOBAL_STATUS / OVF_CTRL / STATUS_SET / INUSE;
 *  - RDPMC ECX: i for GP counter i, (1<<30)|j for fixed counter j;
 *  - NetBurst: counter n (0-17) is MSR 300H+n with its CCCR at 360H+n and
 *    RDPMC ECX n; an ESCR is slot 2*(unit-1)+k, k = 0 for ESCR0 of the
 *    unit's pair (enum spmu_nb_unit), 1 for ESCR1; the CCCR's ESCR-select
 *    value is per pair (SDM Table 18-63).
 *
 * A register ("def") may repeat once per GP or fixed counter; a field may
 * repeat once per GP or fixed counter inside one register. Whether a def or
 * field exists in a profile is a set of capability bits (SPMU_CAP_*) the
 * profile must have (requires) and must not have (excludes).
 */
#ifndef SPMU_REGS_CATALOG_H
#define SPMU_REGS_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "softpmu/profile.h"
#include "softpmu/regs.h"

/* Availability conditions, derived from a profile by spmu_profile_caps(). */
enum spmu_cap_bit {
  SPMU_CAP_V1,   /* CPUID.0AH:EAX[7:0] >= 1 */
  SPMU_CAP_V2,   /* >= 2: fixed counters, GLOBAL_* MSRs */
  SPMU_CAP_V3,   /* >= 3 */
  SPMU_CAP_V4,   /* >= 4: STATUS_RESET/SET, INUSE, freeze bits */
  SPMU_CAP_V5,   /* >= 5 */
  SPMU_CAP_PDCM, /* IA32_PERF_CAPABILITIES exists */
  SPMU_CAP_DS,
  SPMU_CAP_DS_CPL,
  SPMU_CAP_BTS,
  SPMU_CAP_PEBS,
  SPMU_CAP_RTM,
  SPMU_CAP_PT,
  SPMU_CAP_SGX,
  SPMU_CAP_UNCORE_PMI,
  SPMU_CAP_ANY,            /* AnyThread: v3+ and not deprecated */
  SPMU_CAP_FW_WRITE,       /* PERF_CAPABILITIES[13] */
  SPMU_CAP_BASELINE,       /* PERF_CAPABILITIES[14], with PEBS */
  SPMU_CAP_PERF_METRICS,   /* PERF_CAPABILITIES[15] */
  SPMU_CAP_SMM_FREEZE,     /* PERF_CAPABILITIES[12] */
  SPMU_CAP_PEBS_FMT0,      /* PEBS, record format 0 (Core 2) */
  SPMU_CAP_PEBS_LL,        /* PEBS, formats 1-3 (Nehalem..Skylake layout) */
  SPMU_CAP_PEBS_PS,        /* PEBS_LL and precise store (SNB/IVB) */
  SPMU_CAP_LD_LAT,         /* PEBS, format >= 1: load-latency threshold */
  SPMU_CAP_FRONTEND,       /* PEBS, format >= 3: MSR_PEBS_FRONTEND */
  SPMU_CAP_NETBURST,       /* the NetBurst PMU (SDM 18.15) */
  SPMU_CAP_NB_HT,          /* NetBurst with two logical processors (18.16) */
  SPMU_CAP_NB_IQ_ESCR,     /* MSR_IQ_ESCR0/1 (family 0FH models 1-2) */
  SPMU_CAP_NB_EXT_CASCADE, /* IQ CCCR bit 11 (SDM 18.15.5.7) */
  SPMU_CAP_LBR,            /* the model-specific LBR stack (lbr_depth > 0) */
  SPMU_CAP_LBR_CORE2,      /* its Core 2 layout: 4 entries at 40H / 60H,
                              no MSR_LBR_SELECT (SDM 17.5) */
  SPMU_CAP_LBR_NHM,        /* the Nehalem-and-later layout: 16 or 32 entries
                              at 680H / 6C0H, MSR_LBR_SELECT (17.7) */
  SPMU_CAP_LBR_32,         /* 32 entries (17.12) */
  SPMU_CAP_LBR_FLAGS,      /* LBR formats 3-4: MISPRED in FROM_IP[63] */
  SPMU_CAP_LBR_FMT4,       /* LBR format 4: IN_TX / TSX_ABORT in
                              FROM_IP[62:61] (format 5 has them in
                              MSR_LBR_INFO_x only, 17.12.1) */
  SPMU_CAP_LBR_INFO,       /* LBR format 5: MSR_LBR_INFO_x (17.12) */
  SPMU_CAP_ARCH_LBR,       /* architectural LBRs (CPUID.07H:EDX[19]) */
  SPMU_CAP_ALBR_CPL,       /* CPUID.1CH:EBX[0]: CPL filtering */
  SPMU_CAP_ALBR_FILTER,    /* CPUID.1CH:EBX[1]: branch filtering */
  SPMU_CAP_ALBR_STACK,     /* CPUID.1CH:EBX[2]: call-stack mode */
  SPMU_CAP_LBR_CALLSTACK,  /* LBR format 4+: MSR_LBR_SELECT.EN_CALLSTACK
                              (17.9) */
};
#define CAP(x) (UINT64_C(1) << SPMU_CAP_##x)

enum spmu_repeat {
  SPMU_REP_ONE,   /* one instance */
  SPMU_REP_GP,    /* once per GP counter present */
  SPMU_REP_FIXED, /* once per fixed counter present */
  SPMU_REP_COUNT, /* `count` instances (NetBurst counters, CCCRs, ESCRs) */
  SPMU_REP_LBR,   /* once per LBR stack entry: the profile's lbr_depth, or
                     for architectural LBRs the deepest depth of leaf 1CH */
};

enum spmu_reset {
  SPMU_RESET_ZERO,
  SPMU_RESET_LBR_DEPTH,  /* the deepest depth CPUID.1CH:EAX[7:0] lists */
  SPMU_RESET_GP_ENABLES, /* every GP enable bit set (GLOBAL_CTRL) */
  SPMU_RESET_MISC,       /* MISC_ENABLE perf bits from the profile */
  SPMU_RESET_PERFCAP,    /* the profile's PERF_CAPABILITIES */
  SPMU_RESET_NB_CCCR,    /* 0; active thread 11B without HT (Figure 18-45) */
};

enum spmu_check {
  SPMU_CHECK_NONE,
  SPMU_CHECK_CANONICAL, /* a linear address: bits 63:47 equal */
  SPMU_CHECK_LBR_FROM,  /* an LBR FROM_IP: the address bits of the LBR
                           format sign-extend bit 47 (SDM 17.4.8.1) */
  SPMU_CHECK_LBR_DEPTH, /* a depth CPUID.1CH:EAX[7:0] lists */
};

struct spmu_field_def {
  const char *name; /* "%u" is replaced by the counter index */
  uint8_t lsb;
  uint8_t width;    /* 0: the counter width of the register */
  uint8_t repeat;   /* enum spmu_repeat */
  uint8_t stride;   /* bits between repeated instances */
  uint8_t max_inst; /* only instances below this (0: no limit) */
  int8_t only_inst; /* only in register instance n (-1: every one) */
  uint8_t access;   /* spmu_access */
  uint8_t flags;    /* SPMU_FF_* */
  uint64_t requires, excludes;
  const char *brief;
};

/* Field roles the model needs to find without naming an MSR. */
#define SPMU_FF_PEBS_EN 0x01 /* enables PEBS on a counter (PMI_InUse) */

struct spmu_applied;
struct spmu_regs;
typedef uint64_t (*spmu_compute_fn)(const struct spmu_applied *a,
                                    const struct spmu_regs *r);
/* A per-logical-processor view of shared state: what logical processor
 * `lp` reads for stored value v, and what it stores when it writes v (the
 * map is its own inverse). */
typedef uint64_t (*spmu_view_fn)(uint64_t v, unsigned lp);

/* A NetBurst ESCR pair (SDM Table 18-63): the unit (enum spmu_nb_unit),
 * the CCCR ESCR-select value that picks it, and the counters ESCR0 and
 * ESCR1 feed (bit n = counter n). The model and the event table both use
 * it; nothing else lists ESCR addresses. */
struct spmu_nb_escr_def {
  uint8_t unit;
  uint8_t sel;
  uint32_t ctrs[2];
};

struct spmu_reg_def {
  const char *name;   /* SDM name; "%u" is replaced by the index
                         (plus name_base) */
  const char *former; /* another name the SDM or Linux uses, or NULL */
  uint32_t addr;      /* address of instance 0 */
  uint8_t repeat;     /* enum spmu_repeat */
  uint8_t count;      /* instances of SPMU_REP_COUNT */
  uint8_t name_base;  /* the name's index of instance 0 (CRU_ESCR2/3) */
  uint8_t ctr_width;  /* counters of a fixed width (NetBurst: 40), or 0
                         for the profile's GP / fixed width */
  bool shared;        /* state in the core's NetBurst register file,
                         shared by its logical processors (SDM Table
                         35-41 "Shared"); storage is an offset into
                         struct spmu_nb_regs */
  uint8_t policy;     /* spmu_policy */
  uint8_t reset;      /* enum spmu_reset */
  uint8_t check;      /* enum spmu_check */
  bool open;          /* bits not declared are host-owned, not reserved */
  bool alias;         /* another name for state another def saves */
  bool lbr;           /* state in the logical processor's LBR file
                         (struct spmu_lbr_regs); storage is an offset
                         into it */
  uint64_t requires, excludes;
  int storage; /* offsetof(struct spmu_regs, ...), -1 if none */
  spmu_compute_fn compute;
  spmu_view_fn view; /* per-logical-processor view of shared state */
  const struct spmu_nb_escr_def *escr; /* NetBurst ESCR pair, or NULL */
  const struct spmu_field_def *fields;
  uint8_t nfields;
  const char *field_prefix; /* prepended to field names (W1C/W1S views) */
  uint64_t field_exclude;   /* field bits this view lacks */
  const char *sdm;
  const char *brief;
};

extern const struct spmu_reg_def spmu_catalog[];
extern const size_t spmu_catalog_len;

/* An address block of the debug and LBR facilities that no modelled
 * processor has an MSR in, first through last: the rest of a layout the
 * catalogue models part of (spmu_msr_absent_list). */
struct spmu_msr_block {
  uint32_t first, last;
  const char *sdm;
};

extern const struct spmu_msr_block spmu_msr_reserved[];
extern const size_t spmu_msr_reserved_len;

/* Architectural MSRs of other facilities that lie inside a block of the
 * catalogue (the 32 entries at 40H and 60H that a repeated LBR def spans):
 * never absent, they are the host's. */
extern const uint32_t spmu_msr_foreign[];
extern const size_t spmu_msr_foreign_len;

#endif

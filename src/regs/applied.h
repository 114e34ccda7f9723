/* SPDX-License-Identifier: MIT */
/* A profile applied to the catalogue: every present MSR with its masks,
 * computed once (when a core is created, or for a catalogue query), so the
 * hot path is a table lookup and `if (value & rsvd) fault`. */
#ifndef SPMU_REGS_APPLIED_H
#define SPMU_REGS_APPLIED_H

#include "core/state.h"
#include "regs/catalog.h"

/* Upper bound on MSRs one profile has: 4 per-GP defs x 8, 1 per-fixed x 16,
 * plus the singletons (72), plus the LBRs: 3 x 32 stack MSRs and 5 others
 * (173); NetBurst: 18 counters, 18 CCCRs, 45 ESCRs and 6 others (87).
 * The index holds slot + 1 in a byte: a static assert in applied.c. */
#define SPMU_MAX_MSRS 200
/* Every MSR softpmu models lies below this address (the last is
 * IA32_LBR_31_TO_IP, 161FH). */
#define SPMU_MSR_SPAN 0x1620

struct spmu_msr_rt {
  const struct spmu_reg_def *def;
  uint32_t addr;
  uint8_t inst;   /* counter index for repeated defs */
  uint8_t width;  /* counter width, or 64 */
  uint64_t valid; /* bits declared by available fields */
  uint64_t rsvd;  /* bits that #GP when set */
  uint64_t ro;    /* bits a write must not change */
  uint64_t reset; /* power-on value */
};

struct spmu_applied {
  spmu_profile prof;
  uint64_t caps;             /* CAP(...) bits */
  unsigned lbr_entries;      /* LBR stack MSRs (SPMU_REP_LBR instances) */
  uint64_t gp_mask;          /* global bits of the GP counters */
  uint64_t fixed_mask;       /* global bits of the fixed counters (32+j) */
  uint64_t gp_width_mask;    /* value mask of a GP counter */
  uint64_t fixed_width_mask; /* value mask of a fixed counter */
  uint64_t width_mask[SPMU_MAX_GP + SPMU_MAX_FIXED]; /* by counter index */
  uint64_t pebs_en_mask; /* bits of SPMU_FF_PEBS_EN fields (PMI_InUse) */
  /* NetBurst (SDM Table 18-63): the ESCR slot that CCCR ESCR-select value
   * s picks for counter n, or -1 when no ESCR with that select feeds
   * counter n (the counter then counts nothing). */
  int8_t nb_escr_for[SPMU_NB_NCTR][8];
  uint16_t nb_escr_addr[SPMU_NB_NESCR]; /* slot -> MSR address; 0 absent */
  unsigned nmsr;
  struct spmu_msr_rt msr[SPMU_MAX_MSRS];
  uint8_t index[SPMU_MSR_SPAN]; /* address -> msr slot + 1; 0 = absent */
};

/* Capability bits of a profile (assumed valid). */
uint64_t spmu_profile_caps(const spmu_profile *p);

/* The LBR stack's entries: lbr_depth, or for architectural LBRs the
 * deepest depth CPUID.1CH:EAX[7:0] lists (8 * (n + 1) for its highest bit
 * n); 0 without LBRs. Valid profiles only. */
unsigned spmu_lbr_max_depth(const spmu_profile *p);

/* A short text for capability bit `bit` (enum spmu_cap_bit), or NULL. */
const char *spmu_cap_text(unsigned bit);

/* Apply a valid profile: fills *a. */
void spmu_applied_init(struct spmu_applied *a, const spmu_profile *p);

/* The profile part of *a only (prof, caps and the counter masks), which
 * spmu_def_instances, spmu_field_instances and spmu_msr_rt_init need; msr,
 * index and the NetBurst tables are left as they are. For a catalogue
 * query about one MSR, which needs no other. */
void spmu_applied_init_base(struct spmu_applied *a, const spmu_profile *p);

/* The instances of def d that exist in the profile of a (a bitmap, bit k =
 * instance k at d->addr + k; 0 if d is absent). Needs the base only. */
uint32_t spmu_def_instances(const struct spmu_applied *a,
                            const struct spmu_reg_def *d);

/* The instances of def d that some profile can have (bit k = the MSR at
 * d->addr + k): the catalogue's addresses of d, whatever the profile. */
uint32_t spmu_def_span(const struct spmu_reg_def *d);

/* Instance inst of def d in the profile of a: fills *m (masks, width,
 * reset); ORs the bits of its PEBS enable fields into *pebs_en unless
 * pebs_en is NULL. Needs the base only. */
void spmu_msr_rt_init(const struct spmu_applied *a,
                      const struct spmu_reg_def *d, unsigned inst,
                      struct spmu_msr_rt *m, uint64_t *pebs_en);

/* The present MSR at addr, or NULL. */
static inline const struct spmu_msr_rt *
spmu_applied_find(const struct spmu_applied *a, uint32_t addr)
{
  if (addr >= SPMU_MSR_SPAN || a->index[addr] == 0)
    return NULL;
  return &a->msr[a->index[addr] - 1];
}

/* The counter indices k for which field f exists in register instance
 * reg_inst of this profile (a bitmap; bit 0 alone for unrepeated fields).
 * Instance k sits at bit f->lsb + k * f->stride. */
uint32_t spmu_field_instances(const struct spmu_applied *a,
                              const struct spmu_field_def *f,
                              unsigned reg_inst);

/* Format a name template with an index ("IA32_PMC%u", 3 -> "IA32_PMC3"). */
void spmu_name_format(char *buf, size_t len, const char *tmpl,
                      const char *prefix, unsigned idx);

#endif

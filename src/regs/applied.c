/* SPDX-License-Identifier: MIT */
/* Applying a profile to the catalogue: which MSRs and fields exist, and the
 * masks of each, computed once. */
#include <stdio.h>
#include <string.h>

#include "core/state.h"
#include "regs/applied.h"
#include "util/bits.h"

/* The LBR capabilities (SDM 17.4.8.1 and 17.5-17.12 for the
 * model-specific stack, "Architectural Last Branch Records" for leaf 1CH). */
static uint64_t lbr_caps(const spmu_profile *p)
{
  unsigned fmt = (unsigned)(p->perf_capabilities & SPMU_PERFCAP_LBR_FMT_MASK);
  uint64_t c = 0;

  if (p->features & SPMU_FEAT_ARCH_LBR) {
    c |= CAP(ARCH_LBR);
    if (p->lbr_leaf_1c[1] & 1)
      c |= CAP(ALBR_CPL);
    if (p->lbr_leaf_1c[1] & 2)
      c |= CAP(ALBR_FILTER);
    if (p->lbr_leaf_1c[1] & 4)
      c |= CAP(ALBR_STACK);
    return c;
  }
  if (!p->lbr_depth)
    return 0;
  c |= CAP(LBR);
  c |= p->lbr_depth == 4 ? CAP(LBR_CORE2) : CAP(LBR_NHM);
  if (p->lbr_depth == 32)
    c |= CAP(LBR_32);
  /* The flags in FROM_IP[63:61]: MISPRED from format 3 (Table 17-8),
   * IN_TX and TSX_ABORT in format 4 (17.9). Format 5 (Skylake, 17.12)
   * simplifies FROM_IP to TO_IP's layout, a sign-extended address in bits
   * 63:0, and has the flags in MSR_LBR_INFO_x only (17.12.1). */
  if (fmt == 3 || fmt == 4)
    c |= CAP(LBR_FLAGS);
  if (fmt == 4)
    c |= CAP(LBR_FMT4);
  if (fmt >= 4)
    c |= CAP(LBR_CALLSTACK);
  if (fmt == 5)
    c |= CAP(LBR_INFO);
  return c;
}

unsigned spmu_lbr_max_depth(const spmu_profile *p)
{
  if (p->features & SPMU_FEAT_ARCH_LBR)
    return 8u * (32u - (unsigned)spmu_clz32(p->lbr_leaf_1c[0] & 0xffu));
  return p->lbr_depth;
}

uint64_t spmu_profile_caps(const spmu_profile *p)
{
  uint64_t c = lbr_caps(p);
  unsigned fmt =
      (unsigned)((p->perf_capabilities & SPMU_PERFCAP_PEBS_FMT_MASK) >>
                 SPMU_PERFCAP_PEBS_FMT_SHIFT);
  uint64_t pc = (p->features & SPMU_FEAT_PDCM) ? p->perf_capabilities : 0;
  bool pebs = (p->features & SPMU_FEAT_PEBS) != 0;

  if (p->version >= 1)
    c |= CAP(V1);
  if (p->version >= 2)
    c |= CAP(V2);
  if (p->version >= 3)
    c |= CAP(V3);
  if (p->version >= 4)
    c |= CAP(V4);
  if (p->version >= 5)
    c |= CAP(V5);
  if (p->features & SPMU_FEAT_PDCM)
    c |= CAP(PDCM);
  if (p->features & SPMU_FEAT_DS)
    c |= CAP(DS);
  if (p->features & SPMU_FEAT_DS_CPL)
    c |= CAP(DS_CPL);
  if (p->features & SPMU_FEAT_BTS)
    c |= CAP(BTS);
  if (pebs)
    c |= CAP(PEBS);
  if (p->features & SPMU_FEAT_RTM)
    c |= CAP(RTM);
  if (p->features & SPMU_FEAT_PT)
    c |= CAP(PT);
  if (p->features & SPMU_FEAT_SGX)
    c |= CAP(SGX);
  if (p->features & SPMU_FEAT_UNCORE_PMI)
    c |= CAP(UNCORE_PMI);
  /* SDM 18.2.3: AnyThread from v3; CPUID.0AH:EDX[15] deprecates it (v5). */
  if (p->version >= 3 && !(p->features & SPMU_FEAT_ANY_DEPRECATED))
    c |= CAP(ANY);
  if (pc & SPMU_PERFCAP_FW_WRITE)
    c |= CAP(FW_WRITE);
  if (pc & SPMU_PERFCAP_PERF_METRICS)
    c |= CAP(PERF_METRICS);
  if (pc & SPMU_PERFCAP_SMM_FREEZE)
    c |= CAP(SMM_FREEZE);
  if (pebs) {
    if (pc & SPMU_PERFCAP_PEBS_BASELINE)
      c |= CAP(BASELINE);
    else if (fmt == 0)
      c |= CAP(PEBS_FMT0);
    else
      c |= CAP(PEBS_LL);
    if ((c & CAP(PEBS_LL)) && (p->features & SPMU_FEAT_PRECISE_STORE))
      c |= CAP(PEBS_PS);
    if (fmt >= 1)
      c |= CAP(LD_LAT);
    if (fmt >= 3)
      c |= CAP(FRONTEND);
  }
  if (p->features & SPMU_FEAT_NETBURST) {
    c |= CAP(NETBURST);
    if (p->threads > 1)
      c |= CAP(NB_HT);
    if (p->features & SPMU_FEAT_NB_IQ_ESCR)
      c |= CAP(NB_IQ_ESCR);
    if (p->features & SPMU_FEAT_NB_EXT_CASCADE)
      c |= CAP(NB_EXT_CASCADE);
  }
  return c;
}

const char *spmu_cap_text(unsigned bit)
{
  static const char *const text[] = {
      [SPMU_CAP_V1] = "v1+",
      [SPMU_CAP_V2] = "v2+",
      [SPMU_CAP_V3] = "v3+",
      [SPMU_CAP_V4] = "v4+",
      [SPMU_CAP_V5] = "v5+",
      [SPMU_CAP_PDCM] = "PDCM",
      [SPMU_CAP_DS] = "DS",
      [SPMU_CAP_DS_CPL] = "DS-CPL",
      [SPMU_CAP_BTS] = "BTS",
      [SPMU_CAP_PEBS] = "PEBS",
      [SPMU_CAP_RTM] = "RTM",
      [SPMU_CAP_PT] = "Intel PT",
      [SPMU_CAP_SGX] = "SGX",
      [SPMU_CAP_UNCORE_PMI] = "uncore PMI",
      [SPMU_CAP_ANY] = "AnyThread (v3+, not deprecated)",
      [SPMU_CAP_FW_WRITE] = "PERF_CAPABILITIES.FW_WRITE",
      [SPMU_CAP_BASELINE] = "PEBS baseline",
      [SPMU_CAP_PERF_METRICS] = "PERF_CAPABILITIES.PERF_METRICS",
      [SPMU_CAP_SMM_FREEZE] = "PERF_CAPABILITIES.SMM_FREEZE",
      [SPMU_CAP_PEBS_FMT0] = "PEBS format 0",
      [SPMU_CAP_PEBS_LL] = "PEBS formats 1-3",
      [SPMU_CAP_PEBS_PS] = "PEBS precise store",
      [SPMU_CAP_LD_LAT] = "PEBS format 1+",
      [SPMU_CAP_FRONTEND] = "PEBS format 3+",
      [SPMU_CAP_NETBURST] = "NetBurst",
      [SPMU_CAP_NB_HT] = "NetBurst with Hyper-Threading",
      [SPMU_CAP_NB_IQ_ESCR] = "NetBurst family 0FH models 1-2 (iq_escr)",
      [SPMU_CAP_NB_EXT_CASCADE] = "NetBurst extended cascading (ext_cascade)",
      [SPMU_CAP_LBR] = "model-specific LBRs (lbr_depth)",
      [SPMU_CAP_LBR_CORE2] = "the Core 2 LBR stack (lbr_depth=4)",
      [SPMU_CAP_LBR_NHM] = "LBR stack of 16 or 32 (Nehalem and later)",
      [SPMU_CAP_LBR_32] = "LBR stack of 32",
      [SPMU_CAP_LBR_FLAGS] = "LBR formats 3-4",
      [SPMU_CAP_LBR_FMT4] = "LBR format 4",
      [SPMU_CAP_LBR_INFO] = "LBR format 5",
      [SPMU_CAP_ARCH_LBR] = "architectural LBRs",
      [SPMU_CAP_ALBR_CPL] = "arch LBR CPL filtering (CPUID.1CH:EBX[0])",
      [SPMU_CAP_ALBR_FILTER] = "arch LBR branch filtering (CPUID.1CH:EBX[1])",
      [SPMU_CAP_ALBR_STACK] = "arch LBR call-stack mode (CPUID.1CH:EBX[2])",
      [SPMU_CAP_LBR_CALLSTACK] = "LBR format 4+",
  };
  return bit < sizeof(text) / sizeof(text[0]) && text[bit] ? text[bit] : NULL;
}

static bool avail(uint64_t caps, uint64_t requires, uint64_t excludes)
{
  return (caps & requires) == requires && (caps & excludes) == 0;
}

/* Counter indices that exist for a repeat kind (bitmap); count is the
 * number of instances of SPMU_REP_COUNT. */
static uint32_t repeat_set(const struct spmu_applied *a, unsigned repeat,
                           unsigned count)
{
  switch (repeat) {
  case SPMU_REP_GP:
    return (uint32_t)spmu_width_mask(a->prof.gp);
  case SPMU_REP_FIXED:
    return a->prof.fixed_mask;
  case SPMU_REP_COUNT:
    return (uint32_t)spmu_width_mask(count);
  case SPMU_REP_LBR:
    return (uint32_t)spmu_width_mask(a->lbr_entries);
  default:
    return 1;
  }
}

uint32_t spmu_def_span(const struct spmu_reg_def *d)
{
  switch (d->repeat) {
  case SPMU_REP_GP:
    return (uint32_t)spmu_width_mask(SPMU_MAX_GP);
  case SPMU_REP_FIXED:
    return (uint32_t)spmu_width_mask(SPMU_MAX_FIXED);
  case SPMU_REP_COUNT:
    return (uint32_t)spmu_width_mask(d->count);
  case SPMU_REP_LBR:
    /* 32: the deepest stack (SDM 17.12) and arch LBR depth modelled */
    return UINT32_MAX;
  default:
    return 1;
  }
}

uint32_t spmu_field_instances(const struct spmu_applied *a,
                              const struct spmu_field_def *f, unsigned reg_inst)
{
  uint32_t set;

  if (!avail(a->caps, f->requires, f->excludes))
    return 0;
  if (f->only_inst >= 0 && (unsigned)f->only_inst != reg_inst)
    return 0;
  set = repeat_set(a, f->repeat, 1);
  if (f->max_inst)
    set &= (uint32_t)spmu_width_mask(f->max_inst);
  return set;
}

void spmu_name_format(char *buf, size_t len, const char *tmpl,
                      const char *prefix, unsigned idx)
{
  const char *pct = strstr(tmpl, "%u");

  if (!prefix)
    prefix = "";
  if (pct)
    snprintf(buf, len, "%s%.*s%u%s", prefix, (int)(pct - tmpl), tmpl, idx,
             pct + 2);
  else
    snprintf(buf, len, "%s%s", prefix, tmpl);
}

static uint64_t reset_value(const struct spmu_applied *a,
                            const struct spmu_reg_def *d)
{
  const spmu_profile *p = &a->prof;

  switch (d->reset) {
  case SPMU_RESET_GP_ENABLES:
    /* KVM (pmu_intel.c): "At RESET, Intel CPUs set all enable bits for
     * general purpose counters in IA32_PERF_GLOBAL_CTRL". */
    return a->gp_mask;
  case SPMU_RESET_MISC:
    /* Vol. 3C Table 35-2: bit 7 perfmon available, 11 BTS unavailable,
     * 12 PEBS unavailable. */
    return (p->version || (p->features & SPMU_FEAT_NETBURST) ? BIT64(7) : 0) |
           ((p->features & SPMU_FEAT_BTS) ? 0 : BIT64(11)) |
           ((p->features & SPMU_FEAT_PEBS) ? 0 : BIT64(12));
  case SPMU_RESET_PERFCAP:
    return p->perf_capabilities;
  case SPMU_RESET_LBR_DEPTH:
    /* Architectural LBRs: IA32_LBR_DEPTH resets to the deepest supported
     * depth (decisions.md, LBR). */
    return a->lbr_entries;
  case SPMU_RESET_NB_CCCR:
    /* SDM 18.15.3: CCCRs reset to 0; without Hyper-Threading bits 17:16
     * "must be set to 11B" (Figure 18-45), so they read 11B from reset and
     * a write must keep them (decisions.md, NetBurst). */
    return (a->caps & CAP(NB_HT)) ? 0 : UINT64_C(3) << 16;
  default:
    return 0;
  }
}

/* SDM Table 18-63: ESCR k of a pair feeds the counters of its group; a
 * CCCR of one of them picks it with the pair's ESCR-select value. */
static void map_escr(struct spmu_applied *a, const struct spmu_reg_def *d,
                     unsigned inst, uint32_t addr)
{
  unsigned slot = 2u * (d->escr->unit - 1u) + inst, n;
  uint32_t ctrs = d->escr->ctrs[inst];

  a->nb_escr_addr[slot] = (uint16_t)addr;
  for (n = 0; n < SPMU_NB_NCTR; n++)
    if (ctrs >> n & 1)
      a->nb_escr_for[n][d->escr->sel] = (int8_t)slot;
}

void spmu_msr_rt_init(const struct spmu_applied *a,
                      const struct spmu_reg_def *d, unsigned inst,
                      struct spmu_msr_rt *m, uint64_t *pebs_en)
{
  unsigned i;

  memset(m, 0, sizeof(*m));
  m->def = d;
  m->addr = d->addr + inst;
  m->inst = (uint8_t)inst;
  /* Counters have the profile's width; every other MSR is 64 bits. */
  m->width = 64;
  if (d->policy == SPMU_POLICY_COUNTER || d->policy == SPMU_POLICY_COUNTER_SX)
    m->width = d->ctr_width                  ? d->ctr_width
               : d->repeat == SPMU_REP_FIXED ? a->prof.fixed_width
                                             : a->prof.gp_width;

  for (i = 0; i < d->nfields; i++) {
    const struct spmu_field_def *f = &d->fields[i];
    uint32_t set = spmu_field_instances(a, f, inst);
    unsigned w = f->width ? f->width : m->width;
    unsigned k;

    for (k = 0; set; k++, set >>= 1) {
      uint64_t bits;
      if (!(set & 1))
        continue;
      bits = spmu_field_mask(f->lsb + k * f->stride, w);
      m->valid |= bits;
      if (f->access == SPMU_ACCESS_RO)
        m->ro |= bits;
      if ((f->flags & SPMU_FF_PEBS_EN) && pebs_en)
        *pebs_en |= bits;
    }
  }
  m->valid &= ~d->field_exclude;
  m->rsvd = d->open ? 0 : ~m->valid;
  if (d->policy == SPMU_POLICY_COUNTER_SX)
    m->rsvd = 0; /* bits 63:32 of a PMCx write are not examined */
  m->reset = reset_value(a, d);
}

static void apply_one(struct spmu_applied *a, const struct spmu_reg_def *d,
                      unsigned inst)
{
  struct spmu_msr_rt *m = &a->msr[a->nmsr];

  spmu_msr_rt_init(a, d, inst, m, &a->pebs_en_mask);
  if (d->escr)
    map_escr(a, d, inst, m->addr);

  a->index[m->addr] = (uint8_t)(a->nmsr + 1);
  a->nmsr++;
}

_Static_assert(SPMU_MAX_MSRS < 255, "index holds slot + 1 in a byte");

void spmu_applied_init_base(struct spmu_applied *a, const spmu_profile *p)
{
  size_t i;

  a->prof = *p;
  a->caps = spmu_profile_caps(p);
  a->lbr_entries = spmu_lbr_max_depth(p);
  a->gp_mask = spmu_width_mask(p->gp);
  a->fixed_mask = (uint64_t)p->fixed_mask << SPMU_GLOBAL_FIXED(0);
  a->gp_width_mask = spmu_width_mask(p->gp_width);
  a->fixed_width_mask = spmu_width_mask(p->fixed_width);
  for (i = 0; i < SPMU_MAX_GP + SPMU_MAX_FIXED; i++)
    a->width_mask[i] = i < SPMU_MAX_GP ? a->gp_width_mask : a->fixed_width_mask;
  a->pebs_en_mask = 0;
  a->nmsr = 0;
}

uint32_t spmu_def_instances(const struct spmu_applied *a,
                            const struct spmu_reg_def *d)
{
  if (!avail(a->caps, d->requires, d->excludes))
    return 0;
  return repeat_set(a, d->repeat, d->count);
}

void spmu_applied_init(struct spmu_applied *a, const spmu_profile *p)
{
  size_t i;
  unsigned k;

  memset(a, 0, sizeof(*a));
  memset(a->nb_escr_for, -1, sizeof a->nb_escr_for);
  spmu_applied_init_base(a, p);

  for (i = 0; i < spmu_catalog_len; i++) {
    const struct spmu_reg_def *d = &spmu_catalog[i];
    uint32_t set = spmu_def_instances(a, d);

    for (k = 0; set; k++, set >>= 1)
      if (set & 1)
        apply_one(a, d, k);
  }
}

/* SPDX-License-Identifier: MIT */
/* One write algorithm and one read algorithm for every MSR (in the manner of
 * QEMU's register API): the catalogue says what a write means (policy), the
 * applied profile says which bits may be written (masks). */
#include "core/msr.h"

/* The def's storage: in the core's NetBurst file for shared defs, in the
 * logical processor's file otherwise. */
static uint64_t *slot_of(const struct spmu_regfiles *f,
                         const struct spmu_msr_rt *m)
{
  char *file = m->def->shared ? (char *)f->nb
               : m->def->lbr  ? (char *)f->lbr
                              : (char *)f->lp;
  uint64_t *base = (uint64_t *)(void *)(file + m->def->storage);
  /* Repeated defs store instance k at storage + k; A_PMCk aliases PMCk. */
  return base + (m->def->repeat == SPMU_REP_ONE ? 0 : m->inst);
}

/* What logical processor f->index sees of a stored value, and stores for
 * a written one (the view is its own inverse). */
static uint64_t viewed(const struct spmu_regfiles *f,
                       const struct spmu_msr_rt *m, uint64_t v)
{
  return m->def->view ? m->def->view(v, f->index) : v;
}

uint64_t spmu_nb_pebs_view(uint64_t v, unsigned lp)
{
  uint64_t t0 = v & SPMU_NB_PEBS_T0, t1 = v & SPMU_NB_PEBS_T1;

  if (lp == 0)
    return v;
  /* Logical processor 1: its own enable (thread 1, bit 26 stored) is its
   * bit 25, the other's (thread 0) its bit 26. */
  return (v & ~(SPMU_NB_PEBS_T0 | SPMU_NB_PEBS_T1)) | t0 << 1 | t1 >> 1;
}

/* SDM 3.3.7.1: a 48-bit linear address is canonical when bits 63:47 are all
 * equal. softpmu models 48-bit linear addresses (no LA57). */
static bool canonical48(uint64_t v)
{
  uint64_t top = v >> 47;
  return top == 0 || top == (UINT64_C(1) << 17) - 1;
}

/* SDM 17.4.8.1: the address bits of an LBR FROM_IP sign-extend bit 47 up
 * to the top of the address field of the profile's LBR format (63, 62 or
 * 60; architectural LBRs: a canonical 64-bit address). */
static bool lbr_from_ok(const struct spmu_applied *a, uint64_t v)
{
  unsigned top = spmu_lbr_ip_bits(a) - 1;
  uint64_t hi = (v & spmu_width_mask(top + 1)) >> 47;
  return hi == 0 || hi == spmu_width_mask(top - 46);
}

/* SDM "Architectural Last Branch Records": IA32_LBR_DEPTH takes
 * 8 * (n + 1) for each bit n of CPUID.1CH:EAX[7:0]. */
static bool lbr_depth_ok(const struct spmu_applied *a, uint64_t v)
{
  return v && v % 8 == 0 && v <= 64 &&
         (a->prof.lbr_leaf_1c[0] >> (v / 8 - 1) & 1);
}

/* The value checks of the catalogue (enum spmu_check). */
static bool check_ok(const struct spmu_applied *a, const struct spmu_msr_rt *m,
                     uint64_t v)
{
  switch (m->def->check) {
  case SPMU_CHECK_CANONICAL:
    return canonical48(v);
  case SPMU_CHECK_LBR_FROM:
    return lbr_from_ok(a, v);
  case SPMU_CHECK_LBR_DEPTH:
    return lbr_depth_ok(a, v);
  default:
    return true;
  }
}

unsigned spmu_lbr_ip_bits(const struct spmu_applied *a)
{
  if (a->caps & CAP(LBR_FMT4))
    return 61;
  if (a->caps & CAP(LBR_FLAGS))
    return 63;
  return 64;
}

enum spmu_wr spmu_msr_write(const struct spmu_applied *a,
                            const struct spmu_regfiles *f,
                            const struct spmu_msr_rt *m, uint64_t v, bool host)
{
  uint64_t width = spmu_width_mask(m->width);
  uint64_t *slot;

  switch ((spmu_policy)m->def->policy) {
  case SPMU_POLICY_RW:
    slot = slot_of(f, m);
    v = viewed(f, m, v);
    if (v & m->rsvd)
      return SPMU_WR_RESERVED;
    /* IA32_MISC_ENABLE perf bits are read-only: KVM faults a guest write
     * that changes them; softpmu does the same on both paths. */
    if ((v ^ *slot) & m->ro)
      return SPMU_WR_READONLY;
    if (!check_ok(a, m, v))
      return SPMU_WR_RESERVED;
    *slot = v;
    return SPMU_WR_OK;

  case SPMU_POLICY_RO:
    /* SDM 18.2.2.2: IA32_PERF_GLOBAL_STATUS is read-only; WRMSR #GP.
     * A VMM restores it through the host path. */
    if (!host)
      return SPMU_WR_READONLY;
    if (v & m->rsvd)
      return SPMU_WR_RESERVED;
    *slot_of(f, m) = v;
    return SPMU_WR_OK;

  case SPMU_POLICY_CONST:
  case SPMU_POLICY_COMPUTED:
    /* Read-only to the guest; the host may only write what is there. */
    if (!host)
      return SPMU_WR_READONLY;
    return v == spmu_msr_read(a, f, m) ? SPMU_WR_OK : SPMU_WR_READONLY;

  case SPMU_POLICY_W1C:
    /* SDM 18.2.2.2, 18.2.4.2: each 1 clears the GLOBAL_STATUS bit. */
    if (v & m->rsvd)
      return SPMU_WR_RESERVED;
    *slot_of(f, m) &= ~v;
    return SPMU_WR_OK;

  case SPMU_POLICY_W1S:
    /* SDM 18.2.4.2: each 1 sets the GLOBAL_STATUS bit (bit 63 reserved). */
    if (v & m->rsvd)
      return SPMU_WR_RESERVED;
    *slot_of(f, m) |= v;
    return SPMU_WR_OK;

  case SPMU_POLICY_COUNTER_SX:
    /* SDM 18.2.5: a write to IA32_PMCx sets bits 31:0 and sign-extends bit
     * 31 to the counter width; bits 63:32 of the value are not used. The
     * host path restores the full counter instead. */
    if (host) {
      if (v & ~width)
        return SPMU_WR_RESERVED;
      *slot_of(f, m) = v;
    } else {
      *slot_of(f, m) = spmu_sext32(v) & width;
    }
    return SPMU_WR_OK;

  case SPMU_POLICY_COUNTER:
    /* SDM 18.2.5: IA32_A_PMCx take the full width; bits above it are
     * reserved. softpmu applies the same rule to IA32_FIXED_CTRx (KVM
     * masks instead; Linux always writes masked values). */
    if (v & ~width)
      return SPMU_WR_RESERVED;
    *slot_of(f, m) = v;
    return SPMU_WR_OK;
  }
  return SPMU_WR_RESERVED;
}

uint64_t spmu_msr_read(const struct spmu_applied *a,
                       const struct spmu_regfiles *f,
                       const struct spmu_msr_rt *m)
{
  switch ((spmu_policy)m->def->policy) {
  case SPMU_POLICY_W1C:
  case SPMU_POLICY_W1S:
    /* Write-only actions: the SDM gives them no readable state; reads
     * return 0 (as KVM does for OVF_CTRL). */
    return 0;
  case SPMU_POLICY_COMPUTED:
    return m->def->compute(a, f->lp);
  default:
    return viewed(f, m, *slot_of(f, m));
  }
}

bool spmu_msr_saved(const struct spmu_msr_rt *m)
{
  switch ((spmu_policy)m->def->policy) {
  case SPMU_POLICY_RW:
  case SPMU_POLICY_RO:
  case SPMU_POLICY_COUNTER_SX:
  case SPMU_POLICY_COUNTER:
    return !m->def->alias;
  default:
    return false;
  }
}

void spmu_regs_reset(const struct spmu_applied *a,
                     const struct spmu_regfiles *f)
{
  unsigned i;

  *f->lp = (struct spmu_regs){0};
  *f->nb = (struct spmu_nb_regs){0};
  *f->lbr = (struct spmu_lbr_regs){0};
  for (i = 0; i < a->nmsr; i++) {
    const struct spmu_msr_rt *m = &a->msr[i];
    if (m->def->storage >= 0 && !m->def->alias)
      *slot_of(f, m) = m->reset;
  }
}

uint64_t spmu_inuse_compute(const struct spmu_applied *a,
                            const struct spmu_regs *r)
{
  uint64_t v = 0;
  bool pmi = false;
  unsigned i;

  for (i = 0; i < a->prof.gp; i++) {
    if (r->evtsel[i] & SPMU_EVTSEL_EVENT)
      v |= BIT64(i);
    if (r->evtsel[i] & SPMU_EVTSEL_INT)
      pmi = true;
  }
  for (i = 0; i < SPMU_MAX_FIXED; i++) {
    if (!(a->prof.fixed_mask & (UINT32_C(1) << i)))
      continue;
    if (r->fixed_ctr_ctrl & SPMU_FIXED_EN(i))
      v |= BIT64(SPMU_GLOBAL_FIXED(i));
    if (r->fixed_ctr_ctrl & SPMU_FIXED_PMI(i))
      pmi = true;
  }
  if (r->pebs_enable & a->pebs_en_mask)
    pmi = true;
  return pmi ? v | SPMU_INUSE_PMI : v;
}

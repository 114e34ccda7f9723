/* The public PMU object: creation, reset, and the guest and host paths. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arch/core.h"
#include "arch/msr.h"
#include "softpmu/error.h"

int spmu_core_new(const spmu_profile *profile, spmu_core **out)
{
  spmu_core *c;
  unsigned i;

  if (!profile || !out)
    return SPMU_EINVAL;
  *out = NULL;
  if (spmu_profile_validate(profile, NULL, 0) != SPMU_OK)
    return SPMU_EPROFILE;
  c = calloc(1, sizeof(*c));
  if (!c)
    return SPMU_ENOMEM;
  spmu_applied_init(&c->a, profile);
  c->nlp = profile->threads;
  for (i = 0; i < c->nlp; i++) {
    c->lp[i].core = c;
    c->lp[i].index = i;
  }
  spmu_core_reset(c);
  *out = c;
  return SPMU_OK;
}

void spmu_core_free(spmu_core *core) { free(core); }

const spmu_profile *spmu_core_profile(const spmu_core *core)
{
  return core ? &core->a.prof : NULL;
}

unsigned spmu_core_threads(const spmu_core *core)
{
  return core ? core->nlp : 0;
}

spmu_lp *spmu_core_lp(spmu_core *core, unsigned i)
{
  return core && i < core->nlp ? &core->lp[i] : NULL;
}

spmu_core *spmu_lp_core(const spmu_lp *lp) { return lp ? lp->core : NULL; }

int spmu_lp_index(const spmu_lp *lp)
{
  return lp ? (int)lp->index : SPMU_EINVAL;
}

int spmu_core_reset(spmu_core *core)
{
  unsigned i;

  if (!core)
    return SPMU_EINVAL;
  for (i = 0; i < core->nlp; i++) {
    struct spmu_file f = spmu_lp_file(&core->lp[i]);
    spmu_regs_reset(&core->a, &f);
    core->lp[i].edge = 0;
    core->lp[i].edge_keys = 0;
    core->lp[i].armed = 0;
    core->lp[i].pmi_frozen = false;
    spmu_lp_touch(&core->lp[i]);
  }
  spmu_nb_reset(&core->nb);
  core->pmi_lps = 0;
  core->clock = 0;
  return SPMU_OK;
}

int spmu_lp_init_signal(spmu_lp *lp)
{
  /* SDM Vol. 3A 9.1: INIT leaves MSRs unchanged, so there is nothing to do
   * to the register file, and a legacy freeze on PMI (GLOBAL_CTRL cleared)
   * outlives it: pmi_frozen stays. The model keeps no other state between
   * calls that INIT could drop (PMI requests are delivered before the call
   * that made them returns). The call exists so hosts forward INIT as they
   * forward RESET. */
  return lp ? SPMU_OK : SPMU_EINVAL;
}

/* The end of a counter freeze on PMI (SDM 18.2.4.1): legacy (v2-v3) when
 * software writes GLOBAL_CTRL after the freeze cleared it; v4+ when
 * CTR_Frz goes from 1 to 0 (STATUS_RESET / OVF_CTRL, or a host write of
 * GLOBAL_STATUS). old_status is GLOBAL_STATUS before the write. */
static void unfreeze(spmu_lp *lp, const struct spmu_msr_rt *m,
                     uint64_t old_status)
{
  spmu_event ev = {.kind = SPMU_EV_UNFREEZE};

  ev.u.freeze.counters = 1;
  if (m->addr == SPMU_MSR_GLOBAL_CTRL && lp->pmi_frozen) {
    lp->pmi_frozen = false;
    ev.u.freeze.reg = SPMU_MSR_GLOBAL_CTRL;
    ev.u.freeze.now = lp->r.global_ctrl;
  } else if ((old_status & ~lp->r.global_status) & SPMU_STATUS_CTR_FRZ) {
    ev.u.freeze.reg = SPMU_MSR_GLOBAL_STATUS;
    ev.u.freeze.old = old_status;
    ev.u.freeze.now = lp->r.global_status;
  } else {
    return;
  }
  if (spmu_reporting(lp->core))
    spmu_emit(lp, &ev);
}

/* After a successful write of m: the counting engine's compiled programs
 * depend on the control MSRs, not on the architectural counters' values,
 * so a counter write (a PMI handler's reload) leaves them valid. */
static void written(spmu_lp *lp, const struct spmu_msr_rt *m,
                    uint64_t old_status)
{
  bool counter = m->def->policy == SPMU_POLICY_COUNTER ||
                 m->def->policy == SPMU_POLICY_COUNTER_SX;
  if (!counter || (lp->core->a.caps & CAP(NETBURST)))
    spmu_lp_touch(lp);
  if (!counter)
    unfreeze(lp, m, old_status);
}

int spmu_wrmsr(spmu_lp *lp, uint32_t msr, uint64_t value)
{
  const struct spmu_msr_rt *m;
  struct spmu_file f;
  uint64_t old_status;

  if (!lp)
    return SPMU_EINVAL;
  /* An MSR the profile lacks raises #GP (SDM Vol. 2B WRMSR). */
  m = spmu_applied_find(&lp->core->a, msr);
  if (!m)
    return SPMU_GP;
  f = spmu_lp_file(lp);
  old_status = lp->r.global_status;
  if (spmu_msr_write(&lp->core->a, &f, m, value, false) != SPMU_WR_OK)
    return SPMU_GP;
  written(lp, m, old_status);
  return SPMU_OK;
}

int spmu_rdmsr(spmu_lp *lp, uint32_t msr, uint64_t *value)
{
  const struct spmu_msr_rt *m;
  struct spmu_file f;

  if (!lp || !value)
    return SPMU_EINVAL;
  m = spmu_applied_find(&lp->core->a, msr);
  if (!m)
    return SPMU_GP;
  f = spmu_lp_file(lp);
  *value = spmu_msr_read(&lp->core->a, &f, m);
  return SPMU_OK;
}

int spmu_host_wrmsr(spmu_lp *lp, uint32_t msr, uint64_t value)
{
  const struct spmu_msr_rt *m;
  struct spmu_file f;
  uint64_t old_status;

  if (!lp)
    return SPMU_EINVAL;
  m = spmu_applied_find(&lp->core->a, msr);
  if (!m)
    return SPMU_ENOMSR;
  f = spmu_lp_file(lp);
  old_status = lp->r.global_status;
  switch (spmu_msr_write(&lp->core->a, &f, m, value, true)) {
  case SPMU_WR_OK:
    written(lp, m, old_status);
    return SPMU_OK;
  case SPMU_WR_READONLY:
    return SPMU_EREADONLY;
  default:
    return SPMU_ERESERVED;
  }
}

int spmu_host_rdmsr(const spmu_lp *lp, uint32_t msr, uint64_t *value)
{
  const struct spmu_msr_rt *m;
  struct spmu_file f;

  if (!lp || !value)
    return SPMU_EINVAL;
  m = spmu_applied_find(&lp->core->a, msr);
  if (!m)
    return SPMU_ENOMSR;
  /* Reads change nothing: the file is only read through. */
  f = spmu_lp_file((spmu_lp *)(uintptr_t)lp);
  *value = spmu_msr_read(&lp->core->a, &f, m);
  return SPMU_OK;
}

/* RDPMC (SDM Vol. 2B "RDPMC"; SDM 18.2.1, 18.2.2):
 *  - #GP when CPL > 0 and CR4.PCE = 0;
 *  - ECX[30] = 1 selects fixed counter ECX[29:0], ECX[30] = 0 GP counter
 *    ECX[29:0]; ECX = 1<<29 selects MSR_PERF_METRICS where it exists (Linux);
 *  - #GP "if ECX does not indicate a supported counter": any other bit, an
 *    absent counter, and the ECX[31] fast-read form, which architectural
 *    perfmon does not define (KVM faults it too).
 * The value is the counter's width bits, as stored. A NetBurst core has
 * its own index space and fast read (src/netburst/engine.c). */
int spmu_rdpmc(spmu_lp *lp, uint32_t ecx, unsigned cpl, bool cr4_pce,
               uint64_t *value)
{
  const struct spmu_applied *a;
  uint32_t idx = ecx & 0x3fffffffu;

  if (!lp || !value || cpl > 3)
    return SPMU_EINVAL;
  a = &lp->core->a;
  if (cpl > 0 && !cr4_pce)
    return SPMU_GP;
  if (a->caps & CAP(NETBURST))
    return spmu_nb_rdpmc(lp, ecx, value);
  if (a->prof.version == 0 || (ecx & 0x80000000u))
    return SPMU_GP;
  if (ecx & 0x40000000u) {
    if (idx >= SPMU_MAX_FIXED || !(a->prof.fixed_mask & (UINT32_C(1) << idx)))
      return SPMU_GP;
    *value = lp->r.ctr[SPMU_MAX_GP + idx];
    return SPMU_OK;
  }
  if (ecx == 0x20000000u && (a->caps & CAP(PERF_METRICS))) {
    *value = lp->r.perf_metrics;
    return SPMU_OK;
  }
  if (idx >= a->prof.gp)
    return SPMU_GP;
  *value = lp->r.ctr[idx];
  return SPMU_OK;
}

int spmu_cpuid(const spmu_lp *lp, uint32_t leaf, uint32_t subleaf,
               uint32_t regs[4])
{
  if (!lp)
    return SPMU_EINVAL;
  return spmu_profile_cpuid(&lp->core->a.prof, leaf, subleaf, regs);
}

int spmu_core_set_host(spmu_core *core, const spmu_host *host)
{
  if (!core)
    return SPMU_EINVAL;
  if (host)
    core->host = *host;
  else
    memset(&core->host, 0, sizeof core->host);
  core->report = core->host.event;
  /* With an event callback every overflow ends a batch, which the plain
   * path does not do: the programs say which path a clock takes. */
  core->stale = (uint32_t)spmu_width_mask(core->nlp);
  core->nb_stale = true;
  return SPMU_OK;
}

/* ---- events ------------------------------------------------------------- */

void spmu_emit(spmu_lp *lp, spmu_event *ev)
{
  spmu_core *core = lp->core;

  ev->lp = lp;
  ev->clock = core->clock;
  core->report(core->host.opaque, ev);
}

void spmu_emit_ctr(spmu_lp *lp, unsigned kind, unsigned counter,
                   uint64_t old, uint64_t now)
{
  spmu_event ev = {.kind = kind};

  ev.u.ctr.counter = counter;
  ev.u.ctr.old = old;
  ev.u.ctr.now = now;
  spmu_emit(lp, &ev);
}

/* A freeze started: MSR reg went from old to now. */
static void emit_freeze(spmu_lp *lp, uint32_t reg, unsigned counters,
                        uint64_t old, uint64_t now)
{
  spmu_event ev = {.kind = SPMU_EV_FREEZE};

  ev.u.freeze.reg = reg;
  ev.u.freeze.counters = counters;
  ev.u.freeze.old = old;
  ev.u.freeze.now = now;
  spmu_emit(lp, &ev);
}

/* ---- the PMI path -------------------------------------------------------- */

/* Freeze on PMI, at the moment of the request (SDM 18.2.4.1, 17.4.7; for
 * ToPA PMIs SDM 36.2.7.2). Legacy (v2-v3) clears GLOBAL_CTRL /
 * DEBUGCTL.LBR, streamlined (v4+) sets CTR_Frz / LBR_Frz. */
static void freeze_on_pmi(spmu_lp *lp)
{
  const struct spmu_applied *a = &lp->core->a;
  struct spmu_regs *r = &lp->r;
  bool v4 = a->prof.version >= 4, tell = spmu_reporting(lp->core);
  uint64_t old;

  if (r->debugctl & SPMU_DEBUGCTL_FREEZE_PERFMON) {
    if (v4) {
      old = r->global_status;
      r->global_status |= SPMU_STATUS_CTR_FRZ;
      if (tell && old != r->global_status)
        emit_freeze(lp, SPMU_MSR_GLOBAL_STATUS, 1, old, r->global_status);
    } else {
      old = r->global_ctrl;
      r->global_ctrl = 0;
      if (tell && !lp->pmi_frozen)
        emit_freeze(lp, SPMU_MSR_GLOBAL_CTRL, 1, old, 0);
      lp->pmi_frozen = true;
    }
  }
  if (r->debugctl & SPMU_DEBUGCTL_FREEZE_LBRS) {
    if (v4) {
      old = r->global_status;
      r->global_status |= SPMU_STATUS_LBR_FRZ;
      if (tell && old != r->global_status)
        emit_freeze(lp, SPMU_MSR_GLOBAL_STATUS, 0, old, r->global_status);
    } else {
      old = r->debugctl;
      r->debugctl &= ~SPMU_DEBUGCTL_LBR;
      if (tell && old != r->debugctl)
        emit_freeze(lp, SPMU_MSR_DEBUGCTL, 0, old, r->debugctl);
    }
  }
  spmu_lp_touch(lp);
}

void spmu_request_pmi(spmu_lp *lp)
{
  spmu_core *core = lp->core;
  uint32_t bit = UINT32_C(1) << lp->index;
  bool nb = core->a.caps & CAP(NETBURST);

  if (!nb)
    freeze_on_pmi(lp);
  /* One SPMU_EV_PMI per logical processor and call: a second request in
   * the same clock (an overflow, then a buffer threshold) is the same
   * interrupt. */
  if (spmu_reporting(core) && !(core->pmi_lps & bit)) {
    spmu_event ev = {.kind = SPMU_EV_PMI};
    ev.u.pmi.status = nb ? 0 : lp->r.global_status;
    spmu_emit(lp, &ev);
  }
  core->pmi_lps |= bit;
}

void spmu_buffer_threshold(spmu_lp *lp, bool pebs)
{
  /* SDM 18.2.4.2 / 17.4.9.2: OvfBuf is GLOBAL_STATUS bit 62; NetBurst has
   * no GLOBAL_STATUS (its DS interrupt is the PMI alone, SDM 17.4.9.3). */
  if (!(lp->core->a.caps & CAP(NETBURST)))
    lp->r.global_status |= SPMU_STATUS_OVF_BUF;
  if (spmu_reporting(lp->core)) {
    spmu_event ev = {.kind = SPMU_EV_THRESHOLD};
    ev.u.threshold.pebs = pebs;
    spmu_emit(lp, &ev);
  }
  spmu_request_pmi(lp);
}

void spmu_raise_pmis(spmu_core *core, spmu_lp *first)
{
  const spmu_host *h = &core->host;
  uint32_t lps = core->pmi_lps;

  core->pmi_lps = 0;
  if (!h->pmi)
    return;
  if (lps >> first->index & 1) {
    lps &= ~(UINT32_C(1) << first->index);
    h->pmi(h->opaque, first);
  }
  while (lps) {
    unsigned i = spmu_ctz32(lps);
    lps &= lps - 1;
    h->pmi(h->opaque, &core->lp[i]);
  }
}

int spmu_signal(spmu_lp *lp, unsigned sig)
{
  const struct spmu_msr_rt *m;
  uint64_t bit;
  bool pmi;

  if (!lp)
    return SPMU_EINVAL;
  switch (sig) {
  case SPMU_SIGNAL_TOPA_PMI:
    /* SDM 36.2.7.2: a filled ToPA region with INT=1 signals a PMI; the
     * freeze-on-PMI settings apply to it as to other PMIs. */
    bit = SPMU_STATUS_TRACE_TOPA_PMI;
    pmi = true;
    break;
  case SPMU_SIGNAL_UNCORE_OVF:
    /* Vol. 3C Table 35-2 / SDM 18.8.2: DEBUGCTL.ENABLE_UNCORE_PMI lets the
     * logical processor take PMIs on behalf of the uncore. */
    bit = SPMU_STATUS_OVF_UNCORE;
    pmi = lp->r.debugctl & SPMU_DEBUGCTL_ENABLE_UNCORE_PMI;
    break;
  case SPMU_SIGNAL_COND_CHGD:
    bit = SPMU_STATUS_COND_CHGD;
    pmi = false;
    break;
  default:
    return SPMU_EINVAL;
  }
  m = spmu_applied_find(&lp->core->a, SPMU_MSR_GLOBAL_STATUS);
  if (!m || (m->rsvd & bit))
    return SPMU_ERESERVED;
  lp->r.global_status |= bit;
  if (spmu_reporting(lp->core)) {
    spmu_event ev = {.kind = SPMU_EV_SIGNAL};
    ev.u.signal.sig = sig;
    ev.u.signal.bit = bit;
    spmu_emit(lp, &ev);
  }
  if (!pmi)
    return 0;
  spmu_request_pmi(lp);
  spmu_raise_pmis(lp->core, lp);
  return SPMU_TICK_PMI;
}

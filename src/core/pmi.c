/* SPDX-License-Identifier: MIT */
/* The PMI path and the event report: the freeze-on-PMI rules, the one
 * caller of the host's pmi(), the buffer-threshold interrupt both engines
 * use, the signals of spmu_signal, and the emitters of spmu_event. */
#include <stdint.h>

#include "core/msr.h"
#include "core/pmi.h"
#include "softpmu/error.h"

/* ---- events ------------------------------------------------------------- */

/* events.h: the union's members grow only within its reserved size. */
_Static_assert(sizeof(((spmu_event *)0)->u) == 8 * sizeof(uint64_t),
               "spmu_event's union keeps its size");

void spmu_emit(spmu_lp *lp, spmu_event *ev)
{
  spmu_core *core = lp->core;

  ev->lp = lp;
  ev->clock = core->clock;
  core->report(core->host.opaque, ev);
}

void spmu_emit_ctr(spmu_lp *lp, unsigned kind, unsigned counter, uint64_t old,
                   uint64_t now, uint64_t wraps)
{
  spmu_event ev = {.kind = kind};

  ev.u.ctr.counter = counter;
  ev.u.ctr.old = old;
  ev.u.ctr.now = now;
  ev.u.ctr.wraps = wraps;
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
  /* A second request in the same call (an overflow, then a buffer
   * threshold) is the same interrupt: one SPMU_EV_PMI, one pmi(). */
  core->pmi_lps |= bit;
}

/* The PMI of lp, as the call that requested it ends: SPMU_EV_PMI, then the
 * host's pmi(). */
static void deliver_pmi(spmu_core *core, spmu_lp *lp)
{
  const spmu_host *h = &core->host;

  if (spmu_reporting(core)) {
    spmu_event ev = {.kind = SPMU_EV_PMI};
    ev.u.pmi.status = (core->a.caps & CAP(NETBURST)) ? 0 : lp->r.global_status;
    spmu_emit(lp, &ev);
  }
  if (h->pmi)
    h->pmi(h->opaque, lp);
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

void spmu_raise_requested_pmis(spmu_core *core, spmu_lp *first, uint64_t clock)
{
  uint32_t lps = core->pmi_lps;

  core->pmi_lps = 0;
  core->clock = clock; /* for SPMU_EV_PMI */
  if (lps >> first->index & 1) {
    lps &= ~(UINT32_C(1) << first->index);
    deliver_pmi(core, first);
  }
  while (lps) {
    unsigned i = spmu_ctz32(lps);
    lps &= lps - 1;
    deliver_pmi(core, &core->lp[i]);
  }
  core->clock = 0;
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
  spmu_raise_pmis(lp->core, lp, 0);
  return SPMU_TICK_PMI;
}

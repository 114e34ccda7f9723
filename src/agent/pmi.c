/* SPDX-License-Identifier: MIT */
/* Layer 2 of the agent (internal.h): the PMI handler flows (SDM 18.2.2,
 * 18.2.4.1, 18.2.4.2, 18.15.3), on counter programming (program.h). Who
 * holds the PMI is the sharing protocol's business (share.c). */
#include "agent/program.h"

/* How many times the classic flow reads the status again before it gives
 * up on a PMU whose overflow bits do not clear. */
#define PMI_PASSES 100

/* Counter c overflowed and now holds v, the events counted past the wrap:
 * one sample per period elapsed, and the next period shortened by what is
 * left over, so no event is lost. A running GP counter has EN cleared
 * while it is written (SDM 18.2.1.1). */
static int reload(spmu_agent *a, unsigned c, uint64_t v)
{
  struct ag_ctr *k = ag_slot(a, c);
  uint64_t period = k->ev.period, left = period - v % period;
  bool toggle = !ag_is_fixed(c) && (a->running >> c & 1);
  int rc;

  k->samples += 1 + v / period;
  if (toggle && (rc = spmu_ag_wrmsr(a, AG_EVTSEL0 + c, k->ctl)) != SPMU_OK)
    return rc;
  if ((rc = spmu_ag_write_counter(a, c, 0 - left)) != SPMU_OK)
    return rc;
  if (toggle)
    rc = spmu_ag_wrmsr(a, AG_EVTSEL0 + c, k->ctl | SPMU_EVTSEL_EN);
  return rc;
}

static int reload_set(spmu_agent *a, uint64_t set)
{
  for (; set; set &= set - 1) {
    unsigned c = ag_first(set);
    uint64_t v;
    int rc = spmu_ag_read_counter(a, c, &v);
    if (rc == SPMU_OK)
      rc = reload(a, c, v);
    if (rc != SPMU_OK)
      return rc;
  }
  return SPMU_OK;
}

/* SDM 10.5.1: the local APIC masks the LVT entry when it delivers the PMI;
 * software unmasks it. */
static int unmask(spmu_agent *a)
{
  return spmu_ag_pmi_unmask(a);
}

/* The classic flow (SDM 18.2.2): disable all
 * through GLOBAL_CTRL; read GLOBAL_STATUS; acknowledge the agent's bits
 * through OVF_CTRL and reload its sampling counters ("reloading counter
 * values to continue collecting next sample"); read the status again until
 * none of the agent's bits is left; then re-enable and unmask the LVT,
 * last. GLOBAL_CTRL gets back what it held (other agents' counters), which
 * with v2-v3 freeze on PMI the hardware has already cleared (SDM 17.4.7),
 * plus this agent's running counters. */
static int pmi_classic(spmu_agent *a, uint64_t *done)
{
  uint64_t ctrl, st, mine;
  unsigned pass;
  int rc, rc2;

  if ((rc = spmu_ag_rdmsr(a, AG_GLOBAL_CTRL, &ctrl)) != SPMU_OK ||
      (rc = spmu_ag_wrmsr(a, AG_GLOBAL_CTRL, 0)) != SPMU_OK)
    return rc;
  for (pass = 0;; pass++) {
    if ((rc = spmu_ag_rdmsr(a, AG_GLOBAL_STATUS, &st)) != SPMU_OK)
      break;
    mine = st & a->owned;
    if (!mine)
      break;
    if (pass == PMI_PASSES) {
      rc = SPMU_EIO;
      break;
    }
    if ((rc = spmu_ag_ack(a, mine)) != SPMU_OK ||
        (rc = reload_set(a, mine & a->sampling)) != SPMU_OK)
      break;
    *done |= mine;
  }
  /* Re-enable whatever happened: a PMU left disabled stops every agent. */
  rc2 = spmu_ag_wrmsr(a, AG_GLOBAL_CTRL, ctrl | a->running);
  if (rc == SPMU_OK)
    rc = rc2;
  return rc == SPMU_OK ? unmask(a) : rc;
}

/* The v4 freeze flow (SDM 18.2.4.1, 18.2.4.2): the
 * hardware froze the counters by setting CTR_Frz, GLOBAL_CTRL is left
 * alone. Read the status, reload, unmask the LVT; then one write to
 * IA32_PERF_GLOBAL_STATUS_RESET clears the agent's overflow bits and
 * CTR_Frz (and LBR_Frz) as the very last step, which resumes counting. */
static int pmi_freeze(spmu_agent *a, uint64_t *done)
{
  uint64_t st, mine, reset;
  int rc;

  if ((rc = spmu_ag_rdmsr(a, AG_GLOBAL_STATUS, &st)) != SPMU_OK)
    return rc;
  mine = st & a->owned;
  if ((rc = reload_set(a, mine & a->sampling)) != SPMU_OK)
    return rc;
  *done = mine;
  if ((rc = unmask(a)) != SPMU_OK)
    return rc;
  reset = mine | (st & (SPMU_STATUS_CTR_FRZ | SPMU_STATUS_LBR_FRZ));
  return reset ? spmu_ag_wrmsr(a, AG_GLOBAL_OVF_CTRL, reset) : SPMU_OK;
}

/* Perfmon v1 has no GLOBAL_STATUS (SDM 18.2.1): a sampling counter preset
 * to -period keeps its top bit set until it wraps, so a clear top bit
 * means it overflowed. */
static int pmi_v1(spmu_agent *a, uint64_t *done)
{
  uint64_t set;
  int rc;

  for (set = a->sampling; set; set &= set - 1) {
    unsigned c = ag_first(set);
    uint64_t v;
    if ((rc = spmu_ag_read_counter(a, c, &v)) != SPMU_OK)
      return rc;
    if (v >> (a->pmu.gp_width - 1) & 1) /* width >= 1: it was claimed */
      continue;
    if ((rc = reload(a, c, v)) != SPMU_OK)
      return rc;
    *done |= BIT64(c);
  }
  return unmask(a);
}

/* The NetBurst flow (SDM 18.15.3, 18.15.5.8): for each
 * sampling counter, read its CCCR; if OVF is set (SDM 18.15.3: sticky,
 * software clears it), write the CCCR with OVF clear and reload the
 * counter with -(period - overshoot), so that the events counted past the
 * wrap go into the next period (one sample per period elapsed, as in
 * reload()); unmask the LVT once every OVF is clear. The PMI came at the
 * first increment after the wrap (SDM 18.15.5.8), so the counter holds at
 * least that increment. */
static int pmi_netburst(spmu_agent *a, uint64_t *done)
{
  uint64_t set;
  int rc;

  for (set = a->sampling; set; set &= set - 1) {
    unsigned n = ag_first(set);
    struct ag_nb_ctr *k = &a->nb[n];
    uint32_t cccr = AG_NB_CCCR0 + n;
    uint64_t cc, v;
    if ((rc = spmu_ag_rdmsr(a, cccr, &cc)) != SPMU_OK)
      return rc;
    if (!(cc & AG_CCCR_OVF))
      continue;
    if ((rc = spmu_ag_wrmsr(a, cccr, cc & ~AG_CCCR_OVF)) != SPMU_OK ||
        (rc = spmu_ag_read_counter(a, n, &v)) != SPMU_OK)
      return rc;
    k->samples += 1 + v / k->period;
    rc = spmu_ag_write_counter(a, n, 0 - (k->period - v % k->period));
    if (rc != SPMU_OK)
      return rc;
    *done |= BIT64(n);
  }
  return unmask(a);
}

int spmu_agent_handle_pmi(spmu_agent *a, uint64_t *overflowed)
{
  uint64_t done = 0;
  int rc;

  if (overflowed)
    *overflowed = 0;
  if (!a)
    return SPMU_EINVAL;
  if (!a->pmi_owned)
    return SPMU_OK; /* not this agent's PMI (SDM 18.2.4.3) */
  if (a->pmu.netburst)
    rc = pmi_netburst(a, &done);
  else if (a->pmu.version < 2)
    rc = pmi_v1(a, &done);
  else if (a->freeze && a->pmu.version >= 4)
    rc = pmi_freeze(a, &done);
  else
    rc = pmi_classic(a, &done);
  if (overflowed)
    *overflowed = done;
  return rc;
}

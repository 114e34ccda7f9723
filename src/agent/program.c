/* Programming procedures: counter access, start, stop, reprogramming
 * (SDM 18.2.1.1, 18.2.2, 18.2.4.1, 18.2.5; seeds 002 and 003). */
#include "agent/internal.h"

uint64_t spmu_ag_width_mask(const spmu_agent *a, unsigned c)
{
  return spmu_width_mask(ag_is_fixed(c) ? a->pmu.fixed_width : a->pmu.gp_width);
}

/* A sampling counter is preset to -period and keeps its top bit set until
 * it overflows (the v1 overflow test reads that bit): period <= 2^(w-1).
 * A GP counter written through IA32_PMCx takes bits 31:0 sign-extended
 * (SDM 18.2.5), so -period survives only for period <= 2^31; full-width
 * writes (IA32_A_PMCx) and fixed counters take the whole width. */
uint64_t spmu_ag_max_period(const spmu_agent *a, unsigned c)
{
  unsigned w = ag_is_fixed(c) ? a->pmu.fixed_width : a->pmu.gp_width;
  uint64_t half = w ? BIT64(w - 1) : 0; /* w <= 64 (discovery) */

  if (!ag_is_fixed(c) && !a->pmu.full_width_writes && !a->pmu.netburst &&
      half > BIT64(31))
    return BIT64(31);
  return half;
}

/* The MSR of counter c: IA32_PMCi, IA32_FIXED_CTRj, or NetBurst counter
 * n at 300H + n (SDM 18.15.2). */
static uint32_t counter_msr(const spmu_agent *a, unsigned c)
{
  if (a->pmu.netburst)
    return AG_NB_COUNTER0 + c;
  return ag_is_fixed(c) ? AG_FIXED_CTR0 + ag_fixed_index(c) : AG_PMC0 + c;
}

/* RDPMC (ECX[30] selects the fixed counters, SDM Vol. 2B RDPMC; on
 * NetBurst ECX is the counter number) when the backend has it, else
 * RDMSR of the counter. */
int spmu_ag_read_counter(spmu_agent *a, unsigned c, uint64_t *v)
{
  uint32_t msr = counter_msr(a, c);
  int rc;

  if (a->be.rdpmc) {
    uint32_t ecx = ag_is_fixed(c) ? (1u << 30) | ag_fixed_index(c) : c;
    rc = a->be.rdpmc(a->be.opaque, ecx, v);
    if (rc == SPMU_GP)
      a->fault_msr = msr;
  } else {
    rc = spmu_ag_rdmsr(a, msr, v);
  }
  if (rc == SPMU_OK)
    *v &= spmu_ag_width_mask(a, c);
  return rc;
}

/* SDM 18.2.5: with PERF_CAPABILITIES[13] the full width goes through
 * IA32_A_PMCx; otherwise IA32_PMCx takes bits 31:0 and sign-extends bit
 * 31. IA32_FIXED_CTRj and the NetBurst counters (SDM 18.15.2: "all 40
 * bits") take their full width. */
int spmu_ag_write_counter(spmu_agent *a, unsigned c, uint64_t v)
{
  v &= spmu_ag_width_mask(a, c);
  if (a->pmu.netburst)
    return spmu_ag_wrmsr(a, counter_msr(a, c), v);
  if (ag_is_fixed(c))
    return spmu_ag_wrmsr(a, AG_FIXED_CTR0 + ag_fixed_index(c), v);
  if (a->pmu.full_width_writes)
    return spmu_ag_wrmsr(a, AG_A_PMC0 + c, v);
  return spmu_ag_wrmsr(a, AG_PMC0 + c, v & 0xffffffffu);
}

/* SDM 18.2.2 (seed 003): OVF_CTRL clears overflow indications, one bit
 * per counter, in a single WRMSR; on v4+ the same MSR is
 * IA32_PERF_GLOBAL_STATUS_RESET (SDM 18.2.4.2). */
int spmu_ag_ack(spmu_agent *a, uint64_t set)
{
  if (a->pmu.version < 2 || !set)
    return SPMU_OK;
  return spmu_ag_wrmsr(a, AG_GLOBAL_OVF_CTRL, set);
}

/* GLOBAL_CTRL first, for all of them at once; then EN, which before v2 is
 * the only enable (SDM 18.2.1.1, 18.2.2). */
int spmu_ag_stop_set(spmu_agent *a, uint64_t set)
{
  uint64_t run = set & a->running, gp = run & spmu_width_mask(SPMU_MAX_GP);
  int rc;

  if (!run)
    return SPMU_OK;
  if (a->pmu.version >= 2 &&
      (rc = spmu_ag_update(a, AG_GLOBAL_CTRL, run, 0)) != SPMU_OK)
    return rc;
  for (; gp; gp &= gp - 1) {
    unsigned i = ag_first(gp);
    if ((rc = spmu_ag_wrmsr(a, AG_EVTSEL0 + i, ag_slot(a, i)->ctl)) != SPMU_OK)
      return rc;
  }
  a->running &= ~run;
  return SPMU_OK;
}

/* Enable set (held, stopped counters): EN in each event select, then one
 * GLOBAL_CTRL write as the very last step (SDM 18.2.4.1, seed 002: "setting
 * IA32_PERF_GLOBAL_CTRL as the very last step ... after configuring the
 * individual counter registers"). Fixed counters carry their ENABLE field
 * since the claim. */
static int start_set(spmu_agent *a, uint64_t set)
{
  uint64_t gp = set & spmu_width_mask(SPMU_MAX_GP);
  int rc;

  for (; gp; gp &= gp - 1) {
    unsigned i = ag_first(gp);
    uint64_t ctl = ag_slot(a, i)->ctl | AG_EVTSEL_EN;
    if ((rc = spmu_ag_wrmsr(a, AG_EVTSEL0 + i, ctl)) != SPMU_OK)
      return rc;
  }
  if (a->pmu.version >= 2 &&
      (rc = spmu_ag_update(a, AG_GLOBAL_CTRL, set, set)) != SPMU_OK)
    return rc;
  a->running |= set;
  return SPMU_OK;
}

/* NetBurst start and stop (agent.h): the ESCR's OS/USR bits. With all
 * four clear the ESCR qualifies no event (SDM 18.15.1, 18.16.1; facts
 * sheet §D), while the CCCR keeps ENABLE, so the counter stays in use
 * (and the ESCR with it) for other agents. */
static int nb_escr_bits(spmu_agent *a, uint64_t set, bool on)
{
  for (; set; set &= set - 1) {
    const struct ag_nb_ctr *k = &a->nb[ag_first(set)];
    uint64_t v = on ? k->escr_val : k->escr_val & ~AG_ESCR_OS_USR;
    int rc = spmu_ag_wrmsr(a, k->escr, v);
    if (rc != SPMU_OK)
      return rc;
  }
  return SPMU_OK;
}

static int nb_start(spmu_agent *a, uint64_t set)
{
  int rc = nb_escr_bits(a, set, true);

  if (rc == SPMU_OK)
    a->running |= set;
  return rc;
}

static int nb_stop(spmu_agent *a, uint64_t set)
{
  int rc = nb_escr_bits(a, set, false);

  if (rc == SPMU_OK)
    a->running &= ~set;
  return rc;
}

int spmu_agent_start(spmu_agent *a)
{
  if (!a)
    return SPMU_EINVAL;
  if (a->pmu.netburst)
    return nb_start(a, a->owned & ~a->running);
  return start_set(a, a->owned & ~a->running);
}

/* Stop, then clear the overflow indications (SDM 18.2.2, seed 003:
 * "disabling event counting or interrupt-based event sampling"). */
int spmu_agent_stop(spmu_agent *a)
{
  uint64_t run;
  int rc;

  if (!a)
    return SPMU_EINVAL;
  run = a->running;
  if (a->pmu.netburst)
    return nb_stop(a, run);
  if ((rc = spmu_ag_stop_set(a, run)) != SPMU_OK)
    return rc;
  return spmu_ag_ack(a, run);
}

/* Before a held counter takes the PMI, the PMI must be free (SDM
 * 18.2.4.3: PMI_InUse). */
static int pmi_available(spmu_agent *a)
{
  uint64_t inuse;
  int rc;

  if (a->pmi_owned)
    return SPMU_OK;
  if ((rc = spmu_agent_scan(a, &inuse)) != SPMU_OK)
    return rc;
  return (inuse & SPMU_AGENT_PMI_INUSE) ? SPMU_EBUSY : SPMU_OK;
}

/* Stop it, write the new control (EN clear), preset the value, clear the
 * overflow indication (SDM 18.2.2, seed 003: "setting up new values in the
 * event select"), restart it with GLOBAL_CTRL last. */
int spmu_agent_reprogram(spmu_agent *a, unsigned counter,
                         const spmu_agent_event *ev)
{
  struct ag_ctr *k;
  uint64_t bit, was;
  int rc;

  if (!a || !ev || !ag_present(a, counter) || !(a->owned >> counter & 1) ||
      a->pmu.netburst)
    return SPMU_EINVAL;
  if ((rc = spmu_ag_check_event(a, counter, ev)) != SPMU_OK)
    return rc;
  if (ev->period && (rc = pmi_available(a)) != SPMU_OK)
    return rc;
  k = ag_slot(a, counter);
  bit = BIT64(counter);
  was = a->running & bit;
  if ((rc = spmu_ag_stop_set(a, bit)) != SPMU_OK)
    return rc;
  k->ev = *ev;
  k->ctl = spmu_ag_control(a, counter, ev);
  k->samples = 0;
  if (ag_is_fixed(counter))
    rc = spmu_ag_update(a, AG_FIXED_CTR_CTRL,
                        AG_FIXED_FIELD(ag_fixed_index(counter)), k->ctl);
  else
    rc = spmu_ag_wrmsr(a, AG_EVTSEL0 + counter, k->ctl);
  if (rc != SPMU_OK)
    return rc;
  a->sampling = ev->period ? a->sampling | bit : a->sampling & ~bit;
  a->pmi_owned |= ev->period != 0;
  if ((rc = spmu_ag_write_counter(
           a, counter, ev->period ? 0 - ev->period : 0)) != SPMU_OK ||
      (rc = spmu_ag_ack(a, bit)) != SPMU_OK)
    return rc;
  if (was && (rc = start_set(a, bit)) != SPMU_OK)
    return rc;
  return spmu_ag_pmi_settle(a);
}

int spmu_agent_read(spmu_agent *a, unsigned counter, uint64_t *value)
{
  if (!a || !value || !ag_present(a, counter))
    return SPMU_EINVAL;
  return spmu_ag_read_counter(a, counter, value);
}

int spmu_agent_samples(const spmu_agent *a, unsigned counter, uint64_t *samples)
{
  if (!a || !samples || !ag_present(a, counter) || !(a->owned >> counter & 1))
    return SPMU_EINVAL;
  *samples =
      a->pmu.netburst ? a->nb[counter].samples : ag_cslot(a, counter)->samples;
  return SPMU_OK;
}

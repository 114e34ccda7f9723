/* SPDX-License-Identifier: MIT */
/* Layer 1 of the agent (internal.h): counter programming. Counter
 * access, control words, event checks, start and stop (SDM 18.2.1.1,
 * 18.2.2, 18.2.4.1, 18.2.5). */
#include "agent/program.h"

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

  if (spmu_ag_has_rdpmc(a)) {
    uint32_t ecx = ag_is_fixed(c) ? (1u << 30) | ag_fixed_index(c) : c;
    rc = spmu_ag_rdpmc(a, ecx, msr, v);
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

/* SDM 18.2.2: OVF_CTRL clears overflow indications, one bit
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
 * GLOBAL_CTRL write as the very last step (SDM 18.2.4.1: "setting
 * IA32_PERF_GLOBAL_CTRL as the very last step ... after configuring the
 * individual counter registers"). Fixed counters carry their ENABLE field
 * since the claim. */
int spmu_ag_start_set(spmu_agent *a, uint64_t set)
{
  uint64_t gp = set & spmu_width_mask(SPMU_MAX_GP);
  int rc;

  for (; gp; gp &= gp - 1) {
    unsigned i = ag_first(gp);
    uint64_t ctl = ag_slot(a, i)->ctl | SPMU_EVTSEL_EN;
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
 * four clear the ESCR qualifies no event (SDM 18.15.1, 18.16.1), while the CCCR
 * keeps ENABLE, so the counter stays in use (and the ESCR with it) for other
 * agents. */
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
  return spmu_ag_start_set(a, a->owned & ~a->running);
}

/* Stop, then clear the overflow indications (SDM 18.2.2: "disabling event
 * counting or interrupt-based event sampling"). */
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

/* Counter c's control (SDM 18.2.1.1 Figure 18-1, 18.2.2 Figure 18-2): its
 * event select, or its FIXED_CTR_CTRL field by read-modify-write (the
 * other fields are other agents'). */
int spmu_ag_write_control(spmu_agent *a, unsigned c, uint64_t ctl)
{
  if (!ag_is_fixed(c))
    return spmu_ag_wrmsr(a, AG_EVTSEL0 + c, ctl);
  return spmu_ag_update(a, AG_FIXED_CTR_CTRL, AG_FIXED_FIELD(ag_fixed_index(c)),
                        ctl);
}

int spmu_ag_read_control(spmu_agent *a, unsigned c, uint64_t *ctl)
{
  uint64_t v;
  int rc;

  if (!ag_is_fixed(c))
    return spmu_ag_rdmsr(a, AG_EVTSEL0 + c, ctl);
  if ((rc = spmu_ag_rdmsr(a, AG_FIXED_CTR_CTRL, &v)) != SPMU_OK)
    return rc;
  *ctl = v & AG_FIXED_FIELD(ag_fixed_index(c));
  return SPMU_OK;
}

/* Control words for the counter (SDM 18.2.1.1 Figure 18-1; 18.2.2
 * Figure 18-2: ENABLE bit 0 OS, bit 1 USR, bit 2 AnyThread, bit 3 PMI). */
uint64_t spmu_ag_control(unsigned c, const spmu_agent_event *ev)
{
  uint64_t v = 0;

  if (ag_is_fixed(c)) {
    v |= (ev->flags & SPMU_AGENT_OS) ? 1u : 0u;
    v |= (ev->flags & SPMU_AGENT_USR) ? 2u : 0u;
    v |= (ev->flags & SPMU_AGENT_ANY) ? 4u : 0u;
    v |= ev->period ? 8u : 0u;
    return v << (4 * ag_fixed_index(c));
  }
  v = ev->event | (uint64_t)ev->umask << 8 | (uint64_t)ev->cmask << 24;
  v |= (ev->flags & SPMU_AGENT_USR) ? SPMU_EVTSEL_USR : 0;
  v |= (ev->flags & SPMU_AGENT_OS) ? SPMU_EVTSEL_OS : 0;
  v |= (ev->flags & SPMU_AGENT_EDGE) ? SPMU_EVTSEL_E : 0;
  v |= (ev->flags & SPMU_AGENT_INV) ? SPMU_EVTSEL_INV : 0;
  v |= (ev->flags & SPMU_AGENT_ANY) ? SPMU_EVTSEL_ANY : 0;
  v |= ev->period ? SPMU_EVTSEL_INT : 0;
  return v;
}

/* The event fixed counter j counts (SDM 18.2.2.1 Table 18-2; the encodings
 * of j >= 2 are the pseudo-encodings softpmu/events.h uses). */
static bool fixed_counts(unsigned j, const spmu_agent_event *ev)
{
  if (j == 0)
    return ev->event == 0xC0 && ev->umask == 0; /* INST_RETIRED.ANY */
  if (j == 1)
    return ev->event == 0x3C && ev->umask == 0; /* CPU_CLK_UNHALTED.THREAD */
  return ev->event == 0 && ev->umask == j + 1;
}

int spmu_ag_check_event(const spmu_agent *a, unsigned c,
                        const spmu_agent_event *ev)
{
  const unsigned known = SPMU_AGENT_USR | SPMU_AGENT_OS | SPMU_AGENT_EDGE |
                         SPMU_AGENT_INV | SPMU_AGENT_ANY;

  if (!(ev->flags & (SPMU_AGENT_USR | SPMU_AGENT_OS)) || (ev->flags & ~known))
    return SPMU_EINVAL;
  if ((ev->flags & SPMU_AGENT_ANY) && !a->pmu.any_thread)
    return SPMU_ERESERVED; /* SDM 18.2.3: AnyThread needs v3, not EDX[15] */
  if (ag_is_fixed(c)) {
    /* Fixed counters have no CMASK, INV or edge detect (Figure 18-2). */
    if (!fixed_counts(ag_fixed_index(c), ev) || ev->cmask ||
        (ev->flags & (SPMU_AGENT_EDGE | SPMU_AGENT_INV)))
      return SPMU_EINVAL;
  } else if (!ev->event) {
    return SPMU_EINVAL; /* would read as a free counter (SDM 18.2.4.3) */
  }
  return ev->period > spmu_ag_max_period(a, c) ? SPMU_ERANGE : SPMU_OK;
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

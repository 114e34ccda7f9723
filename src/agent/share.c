/* SPDX-License-Identifier: MIT */
/* Layer 2 of the agent (internal.h): the PMU sharing protocol (SDM
 * 18.2.4.3 and the "Performance Monitoring Unit Sharing Guideline" it
 * cites), on counter programming (program.h).
 *
 * It is cooperative: an agent treats a counter whose InUse bit is set as
 * another agent's and the PMI as taken when PMI_InUse is set, programs only
 * free resources, and restores what it found when it is done. InUse is
 * IA32_PERF_GLOBAL_INUSE on v4+; before v4 the agent computes the same
 * predicates from the registers INUSE reflects. There is no atomic
 * test-and-set, so a claim re-reads the shared state just before writing
 * and reads its write back: a counter another agent took in between shows
 * the other agent's control and is left to it.
 */
#include "agent/program.h"
#include "softpmu/netburst.h"

/* ---- Who holds the PMI ------------------------------------------------ */

/* Give the PMI back when no sampling counter is left, restoring
 * DEBUGCTL.FREEZE_PERFMON_ON_PMI as the agent found it (SDM 17.4.7). */
static int pmi_settle(spmu_agent *a)
{
  int rc = SPMU_OK;

  if (a->sampling || !a->pmi_owned)
    return SPMU_OK;
  a->pmi_owned = false;
  a->freeze = false;
  if (a->freeze_saved)
    rc = spmu_ag_update(a, AG_DEBUGCTL, SPMU_DEBUGCTL_FREEZE_PERFMON,
                        a->prev_freeze ? SPMU_DEBUGCTL_FREEZE_PERFMON : 0);
  a->freeze_saved = false;
  return rc;
}

/* SDM 17.4.7: IA32_DEBUGCTL.FREEZE_PERFMON_ON_PMI (bit 12) is "set by the
 * profiling agent", the one holding the PMI. The value found is kept for
 * pmi_settle to restore. */
int spmu_agent_set_freeze(spmu_agent *a, bool on)
{
  uint64_t v;
  int rc;

  if (!a || a->pmu.version < 2 || !a->pmi_owned)
    return SPMU_EINVAL;
  if (!a->freeze_saved) {
    if ((rc = spmu_ag_rdmsr(a, AG_DEBUGCTL, &v)) != SPMU_OK)
      return rc;
    a->prev_freeze = (v & SPMU_DEBUGCTL_FREEZE_PERFMON) != 0;
    a->freeze_saved = true;
  }
  rc = spmu_ag_update(a, AG_DEBUGCTL, SPMU_DEBUGCTL_FREEZE_PERFMON,
                      on ? SPMU_DEBUGCTL_FREEZE_PERFMON : 0);
  if (rc == SPMU_OK)
    a->freeze = on;
  return rc;
}

/* The NetBurst forms (below). */
static int nb_scan(spmu_agent *a, uint64_t *inuse);
static int nb_release(spmu_agent *a, unsigned counter);

/* SDM 18.2.4.3: PERFEVTSELn_InUse = EVTSELn[7:0] != 0,
 * FCi_InUse = FIXED_CTR_CTRL ENi != 0, PMI_InUse = any EVTSELn.INT, any
 * FIXED_CTR_CTRL PMIi, any PEBS_ENABLE bit enabling PEBS on a counter.
 * Before the baseline PEBS layout that is PEBS_EN_PMCn, bits N-1:0 (SDM
 * 18.4.4, 18.6.1.1); an absent PEBS_ENABLE (#GP) enables nothing. */
static int inuse_compute(spmu_agent *a, uint64_t *out)
{
  uint64_t v = 0, sel, fc, pebs;
  bool pmi = false;
  unsigned i;
  int rc;

  for (i = 0; i < a->pmu.gp; i++) {
    if ((rc = spmu_ag_rdmsr(a, AG_EVTSEL0 + i, &sel)) != SPMU_OK)
      return rc;
    if (sel & SPMU_EVTSEL_EVENT)
      v |= BIT64(i);
    pmi |= (sel & SPMU_EVTSEL_INT) != 0;
  }
  if (a->pmu.fixed_mask) {
    if ((rc = spmu_ag_rdmsr(a, AG_FIXED_CTR_CTRL, &fc)) != SPMU_OK)
      return rc;
    for (i = 0; i < SPMU_MAX_FIXED; i++) {
      if (!(a->pmu.fixed_mask >> i & 1))
        continue;
      if (fc & SPMU_FIXED_EN(i))
        v |= BIT64(SPMU_AGENT_FIXED(i));
      pmi |= (fc & SPMU_FIXED_PMI(i)) != 0;
    }
  }
  rc = spmu_ag_rdmsr_opt(a, AG_PEBS_ENABLE, &pebs);
  if (rc == SPMU_OK)
    pmi |= (pebs & spmu_width_mask(a->pmu.gp)) != 0;
  else if (rc != SPMU_GP)
    return rc;
  *out = pmi ? v | SPMU_AGENT_PMI_INUSE : v;
  return SPMU_OK;
}

int spmu_agent_scan(spmu_agent *a, uint64_t *inuse)
{
  uint64_t v;
  int rc;

  if (!a || !inuse)
    return SPMU_EINVAL;
  if (a->pmu.netburst)
    return nb_scan(a, inuse);
  if (a->pmu.version < 4)
    return inuse_compute(a, inuse);
  /* SDM 18.2.4.3: v4 introduces IA32_PERF_GLOBAL_INUSE for exactly this. */
  if ((rc = spmu_ag_rdmsr(a, AG_GLOBAL_INUSE, &v)) != SPMU_OK)
    return rc;
  *inuse = v & (a->present | SPMU_AGENT_PMI_INUSE);
  return SPMU_OK;
}

/* What the claim finds, to restore on release. */
static int save_previous(spmu_agent *a, unsigned c, struct ag_ctr *k)
{
  uint64_t ctrl;
  int rc;

  if ((rc = spmu_ag_read_control(a, c, &k->prev_ctl)) != SPMU_OK)
    return rc;
  if ((rc = spmu_ag_read_counter(a, c, &k->prev_value)) != SPMU_OK)
    return rc;
  if (a->pmu.version < 2)
    return SPMU_OK;
  if ((rc = spmu_ag_rdmsr(a, AG_GLOBAL_CTRL, &ctrl)) != SPMU_OK)
    return rc;
  k->prev_global = ctrl >> c & 1;
  return SPMU_OK;
}

/* The claim's read-back: the control must be the one written (else another
 * agent wrote it in between: SPMU_EBUSY), and on v4+ INUSE must now show
 * the counter, and PMI_InUse for a sampling claim (else the PMU does not
 * behave as SDM 18.2.4.3 says: SPMU_EIO). */
static int verify_claim(spmu_agent *a, unsigned c, uint64_t ctl, bool pmi)
{
  uint64_t v, need = BIT64(c) | (pmi ? SPMU_AGENT_PMI_INUSE : 0);
  int rc;

  if ((rc = spmu_ag_read_control(a, c, &v)) != SPMU_OK)
    return rc;
  if (v != ctl)
    return SPMU_EBUSY;
  if (a->pmu.version < 4)
    return SPMU_OK;
  if ((rc = spmu_ag_rdmsr(a, AG_GLOBAL_INUSE, &v)) != SPMU_OK)
    return rc;
  return (v & need) == need ? SPMU_OK : SPMU_EIO;
}

/* Take free counter c for ev. Its GLOBAL_CTRL bit is cleared before its
 * control is written, so nothing counts until spmu_agent_start writes
 * GLOBAL_CTRL last (SDM 18.2.4.1); the event select is written
 * with EN clear. Then the counter is preset (EN still clear, SDM
 * 18.2.1.1) and its overflow indication cleared, as for any new event
 * select (SDM 18.2.2). */
static int take(spmu_agent *a, unsigned c, const spmu_agent_event *ev)
{
  struct ag_ctr k = {.ev = *ev, .ctl = spmu_ag_control(c, ev)};
  int rc;

  if ((rc = save_previous(a, c, &k)) != SPMU_OK)
    return rc;
  if (a->pmu.version >= 2 &&
      (rc = spmu_ag_update(a, AG_GLOBAL_CTRL, BIT64(c), 0)) != SPMU_OK)
    return rc;
  if ((rc = spmu_ag_write_control(a, c, k.ctl)) != SPMU_OK)
    return rc;
  if ((rc = verify_claim(a, c, k.ctl, ev->period != 0)) != SPMU_OK)
    return rc;
  *ag_slot(a, c) = k;
  a->owned |= BIT64(c);
  if (ev->period) {
    a->sampling |= BIT64(c);
    a->pmi_owned = true;
  }
  rc = spmu_ag_write_counter(a, c, ev->period ? 0 - ev->period : 0);
  return rc != SPMU_OK ? rc : spmu_ag_ack(a, BIT64(c));
}

/* The shared state now: in-use resources, and SPMU_EBUSY when ev needs a
 * PMI another agent holds. */
static int fresh_state(spmu_agent *a, const spmu_agent_event *ev,
                       uint64_t *inuse)
{
  int rc = spmu_agent_scan(a, inuse);

  if (rc != SPMU_OK)
    return rc;
  if (ev->period && !a->pmi_owned && (*inuse & SPMU_AGENT_PMI_INUSE))
    return SPMU_EBUSY;
  return SPMU_OK;
}

/* Counters that can count ev; *why gets the reason when none can. */
static uint64_t candidates(const spmu_agent *a, const spmu_agent_event *ev,
                           int *why)
{
  uint64_t set = 0, rest = a->present;

  *why = SPMU_EINVAL;
  while (rest) {
    unsigned c = ag_first(rest);
    int rc = spmu_ag_check_event(a, c, ev);
    rest &= rest - 1;
    if (rc == SPMU_OK)
      set |= BIT64(c);
    else if (!ag_is_fixed(c))
      *why = rc; /* the GP counters' reason is the telling one */
  }
  return set;
}

/* Fixed counters first: an event a fixed counter counts leaves the GP
 * counters to events only they can count. */
static unsigned pick(uint64_t free)
{
  uint64_t fixed = free & ~spmu_width_mask(SPMU_AGENT_FIXED(0));
  return ag_first(fixed ? fixed : free);
}

int spmu_agent_claim(spmu_agent *a, const spmu_agent_event *ev,
                     unsigned *counter)
{
  uint64_t cand, inuse, lost = 0;
  int rc;

  if (!a || !ev || !counter || a->pmu.netburst)
    return SPMU_EINVAL;
  cand = candidates(a, ev, &rc);
  if (!cand)
    return rc;
  for (;;) {
    uint64_t free;
    unsigned c;
    if ((rc = fresh_state(a, ev, &inuse)) != SPMU_OK)
      return rc;
    free = cand & ~inuse & ~a->owned & ~lost;
    if (!free)
      return SPMU_EBUSY;
    c = pick(free);
    rc = take(a, c, ev);
    if (rc != SPMU_EBUSY) {
      if (rc == SPMU_OK)
        *counter = c;
      return rc;
    }
    lost |= BIT64(c); /* another agent won it; try the next free one */
  }
}

int spmu_agent_claim_counter(spmu_agent *a, unsigned counter,
                             const spmu_agent_event *ev)
{
  uint64_t inuse;
  int rc;

  if (!a || !ev || !ag_present(a, counter) || (a->owned >> counter & 1) ||
      a->pmu.netburst)
    return SPMU_EINVAL;
  if ((rc = spmu_ag_check_event(a, counter, ev)) != SPMU_OK)
    return rc;
  if ((rc = fresh_state(a, ev, &inuse)) != SPMU_OK)
    return rc;
  if (inuse >> counter & 1)
    return SPMU_EBUSY;
  return take(a, counter, ev);
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
 * overflow indication (SDM 18.2.2: "setting up new values in the
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
  k->ctl = spmu_ag_control(counter, ev);
  k->samples = 0;
  if ((rc = spmu_ag_write_control(a, counter, k->ctl)) != SPMU_OK)
    return rc;
  a->sampling = ev->period ? a->sampling | bit : a->sampling & ~bit;
  a->pmi_owned |= ev->period != 0;
  if ((rc = spmu_ag_write_counter(
           a, counter, ev->period ? 0 - ev->period : 0)) != SPMU_OK ||
      (rc = spmu_ag_ack(a, bit)) != SPMU_OK)
    return rc;
  if (was && (rc = spmu_ag_start_set(a, bit)) != SPMU_OK)
    return rc;
  return pmi_settle(a);
}

/* Stop the counter and clear its overflow indication (SDM 18.2.2:
 * "disabling event counting"), then put back what the claim found: value
 * first, while EN is still clear (SDM 18.2.1.1), then the control, then
 * the GLOBAL_CTRL bit, last (SDM 18.2.4.1). */
int spmu_agent_release(spmu_agent *a, unsigned counter)
{
  struct ag_ctr *k;
  uint64_t bit;
  int rc;

  if (!a || !ag_present(a, counter) || !(a->owned >> counter & 1))
    return SPMU_EINVAL;
  if (a->pmu.netburst)
    return nb_release(a, counter);
  k = ag_slot(a, counter);
  bit = BIT64(counter);
  if ((rc = spmu_ag_stop_set(a, bit)) != SPMU_OK ||
      (rc = spmu_ag_ack(a, bit)) != SPMU_OK ||
      (rc = spmu_ag_write_counter(a, counter, k->prev_value)) != SPMU_OK ||
      (rc = spmu_ag_write_control(a, counter, k->prev_ctl)) != SPMU_OK)
    return rc;
  if (a->pmu.version >= 2 &&
      (rc = spmu_ag_update(a, AG_GLOBAL_CTRL, bit, k->prev_global ? bit : 0)) !=
          SPMU_OK)
    return rc;
  a->owned &= ~bit;
  a->sampling &= ~bit;
  *k = (struct ag_ctr){0};
  return pmi_settle(a);
}

int spmu_agent_release_all(spmu_agent *a)
{
  int rc, first = SPMU_OK;

  if (!a)
    return SPMU_EINVAL;
  /* One GLOBAL_CTRL write stops them all before any is taken apart (a
   * NetBurst release stops its counter first by itself). */
  if (!a->pmu.netburst)
    first = spmu_ag_stop_set(a, a->running);
  while (a->owned) {
    unsigned c = ag_first(a->owned);
    rc = spmu_agent_release(a, c);
    if (rc != SPMU_OK) {
      if (first == SPMU_OK)
        first = rc;
      a->owned &= ~BIT64(c); /* do not loop on a counter that fails */
      a->sampling &= ~BIT64(c);
    }
  }
  rc = pmi_settle(a);
  return first != SPMU_OK ? first : rc;
}

/* ---- NetBurst (SDM 18.15-18.16) ---------------------------------------
 *
 * The same protocol on the ESCRs and CCCRs, which both logical processors
 * of a Hyper-Threading core share (SDM 18.16). agent.h states the rules:
 * counter n is in use when its CCCR has ENABLE, CASCADE or extended
 * cascading set; an ESCR when it is not 0 or a counter in use that it
 * feeds selects it; logical processor t's PMI when a CCCR has OVF_PMI_Tt.
 */

/* One more pass of the claim is needed: another agent won a register.
 * Neither SPMU_OK, SPMU_GP nor an error. */
#define NB_AGAIN 2

/* SDM 18.15.3, 18.15.5.6-18.15.5.7: ENABLE counts; CASCADE and extended
 * cascading start the counter, ENABLE clear, when another overflows. */
static bool nb_cccr_in_use(uint64_t cccr)
{
  return (cccr & (AG_CCCR_ENABLE | AG_CCCR_CASCADE | AG_CCCR_EXT_CASCADE)) != 0;
}

static int nb_read_cccrs(spmu_agent *a, uint64_t cccr[AG_NB_NCTR])
{
  unsigned n;
  int rc;

  for (n = 0; n < AG_NB_NCTR; n++)
    if ((rc = spmu_ag_rdmsr(a, AG_NB_CCCR0 + n, &cccr[n])) != SPMU_OK)
      return rc;
  return SPMU_OK;
}

static int nb_scan(spmu_agent *a, uint64_t *inuse)
{
  uint64_t cccr[AG_NB_NCTR], v = 0;
  unsigned n;
  int rc;

  if ((rc = nb_read_cccrs(a, cccr)) != SPMU_OK)
    return rc;
  for (n = 0; n < AG_NB_NCTR; n++) {
    if (nb_cccr_in_use(cccr[n]))
      v |= BIT64(n);
    if (cccr[n] & (AG_CCCR_OVF_PMI_T0 | AG_CCCR_OVF_PMI_T1))
      v |= SPMU_AGENT_PMI_INUSE;
  }
  *inuse = v;
  return SPMU_OK;
}

/* What a claim writes (SDM 18.16.1 Figure 18-47, 18.16.2 Figure 18-48). */
struct nb_want {
  spmu_nb_event_sel sel; /* steps 1-4: the ESCRs, counters, select */
  uint64_t escr;         /* event select, mask, OS/USR of the threads */
  uint64_t cccr;         /* ESCR select, active thread, OVF_PMI, ENABLE */
  uint64_t period;
};

/* enum spmu_agent_nb_active -> CCCR[17:16]. */
static const uint8_t nb_active_field[4] = {3, 1, 2, 0};

static int nb_want_make(const spmu_agent_nb_event *ev, struct nb_want *w)
{
  const unsigned os_usr = SPMU_AGENT_OS | SPMU_AGENT_USR;
  const unsigned threads = SPMU_AGENT_T0 | SPMU_AGENT_T1;
  unsigned t = ev->flags & threads ? ev->flags & threads : SPMU_AGENT_T0;
  bool os = ev->flags & SPMU_AGENT_OS, usr = ev->flags & SPMU_AGENT_USR;
  uint64_t bits = 0, pmi = 0;
  int rc;

  if (!ev->spec || !(ev->flags & os_usr) || (ev->flags & ~(os_usr | threads)) ||
      ev->active > SPMU_AGENT_NB_NONE)
    return SPMU_EINVAL;
  if (ev->period > AG_NB_MAX_PERIOD)
    return SPMU_ERANGE;
  if ((rc = spmu_nb_event_parse(NULL, ev->spec, &w->sel)) != SPMU_OK)
    return rc;
  if (t & SPMU_AGENT_T0) {
    bits |= (os ? AG_ESCR_T0_OS : 0) | (usr ? AG_ESCR_T0_USR : 0);
    pmi |= AG_CCCR_OVF_PMI_T0;
  }
  if (t & SPMU_AGENT_T1) {
    bits |= (os ? AG_ESCR_T1_OS : 0) | (usr ? AG_ESCR_T1_USR : 0);
    pmi |= AG_CCCR_OVF_PMI_T1;
  }
  w->escr = w->sel.escr_value | bits;
  w->cccr = (uint64_t)w->sel.cccr_select << AG_CCCR_SELECT_SHIFT |
            (uint64_t)nb_active_field[ev->active] << AG_CCCR_ACTIVE_SHIFT |
            AG_CCCR_ENABLE | (ev->period ? pmi : 0);
  w->period = ev->period;
  return SPMU_OK;
}

/* Is ESCR e of the event free? *found gets its value. SPMU_GP: the ESCR
 * is absent (MSR_IQ_ESCR0/1 from model 3 on, Table 18-63). */
static int nb_escr_free(spmu_agent *a, const struct nb_want *w, unsigned e,
                        const uint64_t cccr[AG_NB_NCTR], uint64_t *found,
                        bool *is_free)
{
  uint32_t fed = w->sel.counters[e];
  int rc = spmu_ag_rdmsr_opt(a, w->sel.escr_addr[e], found);

  if (rc != SPMU_OK)
    return rc;
  *is_free = *found == 0;
  for (; fed && *is_free; fed &= fed - 1) {
    uint64_t c = cccr[ag_first(fed)];
    if (nb_cccr_in_use(c) &&
        (c & AG_CCCR_SELECT) >> AG_CCCR_SELECT_SHIFT == w->sel.cccr_select)
      *is_free = false;
  }
  return SPMU_OK;
}

/* Steps 5, 6 and 9 on a free ESCR and a free counter n (agent.h). A
 * read-back showing another agent's value: NB_AGAIN, with *escr_lost when
 * it is the ESCR's (left to the other agent), else the counter's (the ESCR
 * gets back what it held). A fault undoes the claim's writes. */
static int nb_take(spmu_agent *a, const struct nb_want *w, uint32_t escr,
                   uint64_t escr_found, unsigned n, uint64_t cccr_found,
                   bool *escr_lost)
{
  struct ag_nb_ctr k = {.escr = escr,
                        .escr_val = w->escr,
                        .cccr = w->cccr,
                        .period = w->period,
                        .prev_escr = escr_found,
                        .prev_cccr = cccr_found};
  uint32_t cccr = AG_NB_CCCR0 + n;
  uint64_t v;
  int rc;

  *escr_lost = false;
  if ((rc = spmu_ag_read_counter(a, n, &k.prev_value)) != SPMU_OK)
    return rc;
  /* Step 5: event select, event mask, OS/USR; then read it back. */
  if ((rc = spmu_ag_wrmsr(a, escr, w->escr)) != SPMU_OK ||
      (rc = spmu_ag_rdmsr(a, escr, &v)) != SPMU_OK)
    return rc;
  if (v != w->escr) {
    *escr_lost = true;
    return NB_AGAIN;
  }
  /* The preset, while ENABLE is clear; then step 6 with step 9 in one
   * write. OVF may already be set again on a live PMU: not compared. */
  if ((rc = spmu_ag_write_counter(a, n, 0 - w->period)) != SPMU_OK ||
      (rc = spmu_ag_wrmsr(a, cccr, w->cccr)) != SPMU_OK ||
      (rc = spmu_ag_rdmsr(a, cccr, &v)) != SPMU_OK) {
    spmu_ag_write_counter(a, n, k.prev_value);
    spmu_ag_wrmsr(a, escr, escr_found);
    return rc;
  }
  if ((v & ~AG_CCCR_OVF) != w->cccr) {
    rc = spmu_ag_wrmsr(a, escr, escr_found);
    return rc != SPMU_OK ? rc : NB_AGAIN;
  }
  a->nb[n] = k;
  a->owned |= BIT64(n);
  a->running |= BIT64(n);
  if (w->period) {
    a->sampling |= BIT64(n);
    a->pmi_owned = true;
  }
  return SPMU_OK;
}

/* One pass over the shared state as it is now: ESCR0, then ESCR1; of the
 * counters each feeds, the lowest free one. *lost gathers the counters
 * and *gone the ESCRs (bit e) other agents won during this claim. */
static int nb_claim_pass(spmu_agent *a, const struct nb_want *w, uint64_t *lost,
                         unsigned *gone, unsigned *counter)
{
  uint64_t cccr[AG_NB_NCTR],
      pmi = w->cccr & (AG_CCCR_OVF_PMI_T0 | AG_CCCR_OVF_PMI_T1);
  unsigned e, n;
  int rc;

  if ((rc = nb_read_cccrs(a, cccr)) != SPMU_OK)
    return rc;
  for (n = 0; pmi && n < AG_NB_NCTR; n++)
    if (!(a->owned >> n & 1) && (cccr[n] & pmi))
      return SPMU_EBUSY; /* another agent's PMI */
  for (e = 0; e < 2; e++) {
    uint64_t fed, found;
    bool is_free, escr_lost;
    if (!w->sel.escr_addr[e] || (*gone >> e & 1))
      continue;
    rc = nb_escr_free(a, w, e, cccr, &found, &is_free);
    if (rc == SPMU_GP)
      continue;
    if (rc != SPMU_OK)
      return rc;
    fed = is_free ? w->sel.counters[e] & ~a->owned & ~*lost : 0;
    for (; fed; fed &= fed - 1) {
      n = ag_first(fed);
      if (nb_cccr_in_use(cccr[n]))
        continue;
      rc = nb_take(a, w, w->sel.escr_addr[e], found, n, cccr[n], &escr_lost);
      if (rc == SPMU_OK)
        *counter = n;
      if (rc == NB_AGAIN && escr_lost)
        *gone |= 1u << e;
      else if (rc == NB_AGAIN)
        *lost |= BIT64(n);
      return rc;
    }
  }
  return SPMU_EBUSY;
}

int spmu_agent_nb_claim(spmu_agent *a, const spmu_agent_nb_event *ev,
                        unsigned *counter)
{
  struct nb_want w;
  uint64_t lost = 0;
  unsigned gone = 0;
  int rc;

  if (!a || !ev || !counter || !a->pmu.netburst)
    return SPMU_EINVAL;
  if ((rc = nb_want_make(ev, &w)) != SPMU_OK)
    return rc;
  do
    rc = nb_claim_pass(a, &w, &lost, &gone, counter);
  while (rc == NB_AGAIN);
  return rc;
}

/* Put back what the claim found: the ESCR first (its found value, 0,
 * counts nothing, and ENABLE still shows the counter in use), then the
 * counter's value, then the CCCR, which frees the counter. */
static int nb_release(spmu_agent *a, unsigned counter)
{
  struct ag_nb_ctr *k = &a->nb[counter];
  uint64_t bit = BIT64(counter);
  int rc;

  if ((rc = spmu_ag_wrmsr(a, k->escr, k->prev_escr)) != SPMU_OK ||
      (rc = spmu_ag_write_counter(a, counter, k->prev_value)) != SPMU_OK ||
      (rc = spmu_ag_wrmsr(a, AG_NB_CCCR0 + counter, k->prev_cccr)) != SPMU_OK)
    return rc;
  a->owned &= ~bit;
  a->running &= ~bit;
  a->sampling &= ~bit;
  *k = (struct ag_nb_ctr){0};
  return pmi_settle(a);
}

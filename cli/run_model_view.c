/* SPDX-License-Identifier: MIT */
/* softpmu run: what the model reported during a call (the view layer of
 * run.h).
 *
 * The model reports what it does through spmu_host.event (events.h): the
 * handler here keeps the events of the current call, and once the call
 * has returned they are traced in the trace's order: the overflows in
 * counter order (with what each counter counted), then the PEBS record or
 * its loss, the branch record or its loss, then each PMI with the freezes
 * it started. Nothing here works out again what the model did:
 *   overflows and counts        SPMU_EV_OVERFLOW (old, now, wraps)
 *   what an assist reloaded     SPMU_EV_RELOAD (the count before it)
 *   PMIs                        SPMU_EV_PMI (GLOBAL_STATUS then)
 *   freezes (lines and spans)   SPMU_EV_FREEZE / SPMU_EV_UNFREEZE
 *   records and why one was lost
 *                               SPMU_EV_PEBS, SPMU_EV_BTS, SPMU_EV_*_DROP
 * A delivery call ends right after a clock at which something is
 * reported (events.h), so every event of a call is at its last clock.
 * It calls down only: run_regs.c, run_trace.c and timeline.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <softpmu/events.h>
#include <softpmu/pmu.h>

#include "run.h"

/* ---- the events of a call ------------------------------------------------ */

static void on_event(void *opaque, const spmu_event *ev)
{
  struct model_view *v = &((struct run *)opaque)->view;

  if (v->nev < v->cap)
    v->ev[v->nev++] = *ev;
  else
    v->overrun = true;
}

void run_view_host(spmu_host *h)
{
  h->event = on_event;
}

bool run_view_init(struct run *r)
{
  struct model_view *v = &r->view;
  size_t ctrs = (size_t)r->threads * (SPMU_MAX_GP + SPMU_MAX_FIXED);

  /* The most one call reports: an overflow and a reload of every counter,
   * two freezes and a PMI per logical processor, a record or a drop of
   * each buffer, two thresholds and a signal. */
  v->cap = 2 * ctrs + 3 * (size_t)r->threads + 8;
  v->ev = calloc(v->cap, sizeof(*v->ev));
  v->reloaded = calloc(ctrs, sizeof(*v->reloaded));
  return v->ev && v->reloaded;
}

void run_view_free(struct run *r)
{
  free(r->view.ev);
  free(r->view.reloaded);
  r->view.ev = NULL;
  r->view.reloaded = NULL;
}

void run_view_begin(struct run *r)
{
  r->view.nev = 0;
}

static unsigned lp_of(const spmu_event *ev)
{
  return (unsigned)spmu_lp_index(ev->lp);
}

/* The event of kind `kind` about counter c in the current call; NULL if
 * none. */
static const spmu_event *ctr_event(const struct run *r, unsigned kind,
                                   const struct ctr *c)
{
  size_t i;

  for (i = 0; i < r->view.nev; i++) {
    const spmu_event *ev = &r->view.ev[i];
    if (ev->kind == kind && lp_of(ev) == c->lp && ev->u.ctr.counter == c->index)
      return ev;
  }
  return NULL;
}

/* ---- counters ------------------------------------------------------------ */

static uint64_t add_sat(uint64_t a, uint64_t b)
{
  return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

/* What counter c counted in the call, from its value before the call
 * (c->val) to cv, its count before any PEBS reload: with an overflow, up
 * to the clock that wrapped, then that clock's now - old + wraps *
 * 2^width (events.h). */
static uint64_t counted(const struct ctr *c, const spmu_event *ov, uint64_t cv)
{
  uint64_t o, now, whole, gain;

  if (!ov)
    return (cv - c->val) & c->mask;
  o = ov->u.ctr.old;
  now = ov->u.ctr.now;
  /* The wraps beyond the one that (now - old) modulo the width holds. */
  whole = ov->u.ctr.wraps - (now < o ? 1 : 0);
  gain = add_sat((o - c->val) & c->mask, (now - o) & c->mask);
  if (whole)
    gain = c->mask == UINT64_MAX || whole > UINT64_MAX / (c->mask + 1)
               ? UINT64_MAX
               : add_sat(gain, whole * (c->mask + 1));
  return add_sat(gain, (cv - now) & c->mask);
}

/* After a delivery call: each counter's count, overflow and PEBS reload,
 * traced and drawn. */
static void report_counters(struct run *r, const struct script_stmt *st)
{
  size_t k;

  for (k = 0; k < r->nctr; k++) {
    struct ctr *c = &r->ctr[k];
    const spmu_event *ov = ctr_event(r, SPMU_EV_OVERFLOW, c);
    const spmu_event *rl = ctr_event(r, SPMU_EV_RELOAD, c);
    uint64_t v = run_rd(r, c->lp, c->addr);
    uint64_t cv = rl ? rl->u.ctr.old : v;

    r->view.reloaded[k] = rl != NULL;
    c->gained = add_sat(c->gained, counted(c, ov, cv));
    if (ov)
      run_trace_overflow(r, st, c);
    c->val = v;
    if (c->lane < 0)
      continue;
    run_tl_check(r, timeline_ramp(r->tl, c->lane, r->clock, cv));
    if (ov)
      run_tl_check(r, timeline_overflow(r->tl, c->lane, r->clock));
    if (v != cv) /* reloaded by a PEBS assist */
      run_tl_check(r, timeline_step(r->tl, c->lane, r->clock, v));
    if (c->gained)
      timeline_show(r->tl, c->lane);
  }
}

/* ---- records ------------------------------------------------------------- */

/* Why a record was not written (SDM 17.4.9), from its drop event. */
static void drop_text(const spmu_event *ev, char *buf, size_t len)
{
  if (ev->u.rec.why == SPMU_DROP_MEM_FAULT)
    snprintf(buf, len,
             "the guest memory %s of %" PRIu32 " bytes at 0x%" PRIx64
             " failed: no memory window holds it",
             ev->u.rec.fault_write ? "write" : "read", ev->u.rec.fault_len,
             ev->u.rec.fault_addr);
  else if (ev->kind == SPMU_EV_PEBS_DROP)
    snprintf(buf, len,
             "no room for it below the absolute maximum (index 0x%" PRIx64
             ", absolute maximum 0x%" PRIx64 ")",
             ev->u.rec.index, ev->u.rec.abs_max);
  else if (ev->u.rec.why == SPMU_DROP_FULL)
    snprintf(buf, len,
             "the buffer is full (index 0x%" PRIx64
             ", absolute maximum 0x%" PRIx64
             ") and BTINT is set, so it does not wrap",
             ev->u.rec.index, ev->u.rec.abs_max);
  else
    snprintf(buf, len,
             "no room for a record even at the buffer base 0x%" PRIx64
             " (absolute maximum 0x%" PRIx64 ")",
             ev->u.rec.base, ev->u.rec.abs_max);
}

/* The PEBS and BTS records of the call, and the ones lost. */
static void report_records(struct run *r, const struct script_stmt *st)
{
  char why[256];
  size_t i;

  for (i = 0; i < r->view.nev; i++) {
    const spmu_event *ev = &r->view.ev[i];
    uint64_t *counts = r->st[lp_of(ev)].counts;

    switch (ev->kind) {
    case SPMU_EV_PEBS:
      run_trace_pebs(r, st, ev->u.rec.addr, ev->u.rec.size, r->view.reloaded);
      counts[SCRIPT_COUNT_PEBS]++;
      break;
    case SPMU_EV_PEBS_DROP:
      drop_text(ev, why, sizeof why);
      run_trace_pebs_lost(r, st, why);
      counts[SCRIPT_COUNT_LOST]++;
      break;
    case SPMU_EV_BTS:
      run_trace_bts(r, st, ev->u.rec.addr, &st->branch);
      counts[SCRIPT_COUNT_BTS]++;
      break;
    case SPMU_EV_BTS_DROP:
      drop_text(ev, why, sizeof why);
      run_trace_bts_lost(r, st, why);
      break;
    default:
      break;
    }
  }
}

/* ---- PMIs and freezes ---------------------------------------------------- */

/* lp's counters are frozen (or no longer): the timeline's spans. */
static void set_frozen(struct run *r, unsigned lp, bool frozen)
{
  if (frozen == r->view.frozen[lp])
    return;
  r->view.frozen[lp] = frozen;
  if (r->tl)
    run_tl_check(r, timeline_freeze(r->tl, lp, r->clock, frozen));
}

/* Field `name` of register reg, which a PMI's freeze changed. */
static void freeze_field(struct run *r, const struct script_stmt *st,
                         unsigned lp, const struct reg *reg, const char *name,
                         const spmu_event *ev)
{
  char what[96];

  if (!reg->present)
    return;
  snprintf(what, sizeof what, "%s.%s", reg->name, name);
  run_trace_freeze(r, st, lp, what,
                   run_field(r, reg->addr, name, ev->u.freeze.old),
                   run_field(r, reg->addr, name, ev->u.freeze.now));
}

/* A freeze a PMI started (SDM 18.2.4.1, 17.4.7): legacy, GLOBAL_CTRL
 * cleared (the whole register) and DEBUGCTL.LBR; v4+, CTR_Frz (counters)
 * or LBR_Frz set. */
static void freeze_line(struct run *r, const struct script_stmt *st,
                        unsigned lp, const spmu_event *ev)
{
  if (ev->u.freeze.reg == r->ctrl.addr && r->ctrl.present) {
    if (ev->u.freeze.old != ev->u.freeze.now)
      run_trace_freeze(r, st, lp, r->ctrl.name, ev->u.freeze.old,
                       ev->u.freeze.now);
  } else if (ev->u.freeze.reg == r->status.addr) {
    freeze_field(r, st, lp, &r->status,
                 ev->u.freeze.counters ? "CTR_Frz" : "LBR_Frz", ev);
  } else if (ev->u.freeze.reg == r->debugctl.addr) {
    freeze_field(r, st, lp, &r->debugctl, "LBR", ev);
  }
}

/* A counter freeze that started or ended: the timeline's spans. */
static void freeze_span(struct run *r, const spmu_event *ev)
{
  if (ev->u.freeze.counters)
    set_frozen(r, lp_of(ev), ev->kind == SPMU_EV_FREEZE);
}

static bool is_freeze(const spmu_event *ev)
{
  return ev->kind == SPMU_EV_FREEZE || ev->kind == SPMU_EV_UNFREEZE;
}

/* Each PMI of the call, in the order of the model's pmi() calls, with the
 * freezes its logical processor started; then the freezes that started or
 * ended without a PMI (a write of software or the host). */
static void report_pmis(struct run *r, const struct script_stmt *st)
{
  const struct model_view *v = &r->view;
  uint32_t pmi_lps = 0;
  size_t i, j;

  for (i = 0; i < v->nev; i++) {
    unsigned lp = lp_of(&v->ev[i]);
    if (v->ev[i].kind != SPMU_EV_PMI)
      continue;
    pmi_lps |= UINT32_C(1) << lp;
    r->st[lp].pmis++;
    r->pmis++;
    run_trace_pmi(r, st, lp, v->ev[i].u.pmi.status);
    if (r->tl)
      run_tl_check(r, timeline_pmi(r->tl, lp, r->clock, st->line));
    for (j = 0; j < v->nev; j++)
      if (is_freeze(&v->ev[j]) && lp_of(&v->ev[j]) == lp) {
        freeze_line(r, st, lp, &v->ev[j]);
        freeze_span(r, &v->ev[j]);
      }
  }
  for (i = 0; i < v->nev; i++)
    if (is_freeze(&v->ev[i]) && !(pmi_lps >> lp_of(&v->ev[i]) & 1))
      freeze_span(r, &v->ev[i]);
}

static int overrun(const struct run *r, const struct script_stmt *st)
{
  cli_error("%s:%u: the model reported more events in one call than the "
            "run keeps (%zu)",
            r->s->file, st->line, r->view.cap);
  return CLI_EXIT_USAGE;
}

int run_view_report(struct run *r, const struct script_stmt *st)
{
  if (r->view.overrun)
    return overrun(r, st);
  report_pmis(r, st);
  return CLI_EXIT_OK;
}

/* ---- deliver ------------------------------------------------------------- */

/* A run's budget of delivery calls. A call ends at every overflow, PMI,
 * PEBS assist or branch record, so a script can ask for 2^64 of them (a
 * counter that wraps every clock); the run stops with an error instead of
 * running for ever. */
#define RUN_MAX_STEPS 1000000u

int run_view_deliver(struct run *r, const struct script_stmt *st,
                     const spmu_clock *clk)
{
  spmu_lp *lp = spmu_core_lp(r->core, r->lp);
  uint64_t left = st->clocks;
  /* The timeline samples every counter at the end of each call. The
   * first two clocks of a deliver, and the first after a PMI, are
   * delivered alone so that a lane shows where its slope can change (edge
   * detection makes the first clock differ, SDM 18.2.1.1; a freeze stops
   * the counters); the model ends every other call where something
   * happens. */
  unsigned singles = 2;

  while (left) {
    uint64_t done = 0;
    int rc;

    if (++r->steps > RUN_MAX_STEPS) {
      cli_error("%s:%u: deliver: more than %u delivery steps (each overflow, "
                "PMI, PEBS assist or branch record is one); the run stops",
                r->s->file, st->line, RUN_MAX_STEPS);
      return CLI_EXIT_USAGE;
    }
    run_view_begin(r);
    rc = r->deliver(lp, clk, singles ? 1 : left, &done);
    if (rc < 0 || done == 0 || done > left)
      return run_trace_call_failed(r, st, "deliver", rc < 0 ? rc : SPMU_EINVAL);
    if (r->view.overrun)
      return overrun(r, st);
    r->clock += done;
    left -= done;
    report_counters(r, st);
    report_records(r, st);
    report_pmis(r, st);
    if (singles)
      singles--;
    if (rc & SPMU_TICK_PMI)
      singles = 1;
  }
  return CLI_EXIT_OK;
}

/* softpmu run: what the model did during a call, worked out from the
 * registers and guest memory around it (the view layer of run.h).
 *
 * The public API reports a delivery's outcome as SPMU_TICK_* bits of its
 * last clock; everything else the trace shows is re-derived here:
 *  - increments: repeated clocks go through spmu_deliver's batching, in
 *    chunks that end where a counter wraps, so each overflow and PMI is
 *    reported at the clock it happened. The first clock of a deliver (and
 *    the one after each PMI) is delivered alone to measure what every
 *    counter gains per clock, which stays constant until the next PMI (SDM
 *    18.2.1: the same clock gives the same increments; only the first can
 *    differ, through edge detection). A clock whose PEBS assist may reload
 *    counters is tried first on a scratch core to see what it counts;
 *  - freezes: the freeze registers compared before and after a PMI, and
 *    the rule of when counters stay frozen (SDM 18.2.4.1, 17.4.7);
 *  - the DS save area: which buffer the model serves, from the management
 *    fields it reads, where a record went, and why a PEBS or BTS record
 *    was lost (SDM 17.4.9).
 * It is the one file to replace by a handler of the model's events
 * (spmu_host.event, events.h), which report each of these directly:
 *   overflows, increments (next_chunk, count_values, observe)
 *                             SPMU_EV_OVERFLOW: ctr.counter, old, now
 *   what an assist reloaded (dry_clock, count_values)
 *                             SPMU_EV_RELOAD: ctr.old (the count before)
 *   PMIs (on_pmi, run_view_pmis)  SPMU_EV_PMI
 *   freezes (freeze_field, update_frozen, run_view_wrote)
 *                             SPMU_EV_FREEZE / SPMU_EV_UNFREEZE
 *   records and losses (ds_view_of, note_phase, bts_due, ds_report)
 *                             SPMU_EV_PEBS, SPMU_EV_BTS, SPMU_EV_*_DROP
 * It calls down only: run_regs.c, run_mem.c, run_trace.c and timeline.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <softpmu/events.h>
#include <softpmu/pmu.h>

#include "run.h"

/* SDM 18.2.2: a counter counts when its own enable is set and, from
 * perfmon v2, its IA32_PERF_GLOBAL_CTRL bit too. */
bool run_view_enabled(const struct run *r, const struct ctr *c)
{
  if (!run_field(r, c->ctl, c->en, run_rd(r, c->lp, c->ctl)))
    return false;
  return !r->ctrl.present ||
         run_field(r, r->ctrl.addr, c->global, run_rd(r, c->lp, r->ctrl.addr));
}

/* ---- the host callbacks -------------------------------------------------- */

/* The model reads a buffer's four management fields before anything else
 * of it (SDM 17.4.9): BTS at the DS base, PEBS 4 fields above it. */
static void note_phase(struct model_view *v, uint64_t la)
{
  unsigned w = v->ds.wide ? 8 : 4;

  if (!v->ds.present)
    return;
  if (la == v->ds.base)
    v->phase = DS_BTS;
  else if (la == v->ds.base + 4 * w)
    v->phase = DS_PEBS;
}

static int mem_fail(struct model_view *v, bool write, uint64_t la, size_t len)
{
  if (v->nfaults < RUN_MAX_FAULTS)
    v->faults[v->nfaults++] = (struct fault){write, la, len, v->phase};
  return -1;
}

static int host_read(void *opaque, spmu_lp *lp, uint64_t la, void *buf,
                     size_t len)
{
  struct run *r = opaque;

  (void)lp;
  note_phase(&r->view, la);
  if (run_mem_read(&r->mem, la, buf, len) != 0)
    return mem_fail(&r->view, false, la, len);
  return 0;
}

static int host_write(void *opaque, spmu_lp *lp, uint64_t la, const void *buf,
                      size_t len)
{
  struct run *r = opaque;

  (void)lp;
  if (run_mem_write(&r->mem, la, buf, len) != 0)
    return mem_fail(&r->view, true, la, len);
  return 0;
}

static void on_pmi(void *opaque, spmu_lp *lp)
{
  struct run *r = opaque;

  if (r->view.npending < SPMU_MAX_THREADS)
    r->view.pending[r->view.npending++] = spmu_lp_index(lp);
}

void run_view_host(spmu_host *h)
{
  h->pmi = on_pmi;
  h->read_mem = host_read;
  h->write_mem = host_write;
}

bool run_view_init(struct run *r)
{
  struct model_view *v = &r->view;
  size_t most = (size_t)r->threads * (SPMU_MAX_GP + SPMU_MAX_FIXED);

  v->counted = calloc(most, sizeof(*v->counted));
  v->reloaded = calloc(most, sizeof(*v->reloaded));
  if (!v->counted || !v->reloaded)
    return false;
  /* The scratch core measures clocks whose PEBS assist may reload
   * counters: only with memory, without it no assist writes. */
  if (!r->s->nwindows)
    return true;
  spmu_core_save(r->core, NULL, 0, &v->snap_cap);
  v->snap = malloc(v->snap_cap ? v->snap_cap : 1);
  return v->snap && spmu_core_new(r->p, &v->scratch) == SPMU_OK;
}

void run_view_free(struct run *r)
{
  free(r->view.counted);
  free(r->view.reloaded);
  free(r->view.snap);
  spmu_core_free(r->view.scratch);
  r->view.counted = NULL;
  r->view.reloaded = NULL;
  r->view.snap = NULL;
  r->view.scratch = NULL;
}

/* ---- freezes and PMIs ---------------------------------------------------- */

/* Are lp's counters frozen? From perfmon v4 while CTR_Frz is set; before,
 * from the PMI that cleared GLOBAL_CTRL until software writes it again
 * (SDM 18.2.4.1, 17.4.7). The timeline draws the spans. */
static void update_frozen(struct run *r, unsigned lp)
{
  struct globals g = run_globals(r, lp);
  bool *legacy = &r->view.freeze[lp].legacy;
  bool frozen;

  if (*legacy && g.ctrl != 0)
    *legacy = false;
  if (r->p->version >= 4 && r->status.present)
    frozen = run_field(r, r->status.addr, "CTR_Frz", g.status) != 0;
  else
    frozen = *legacy;
  if (frozen != r->view.freeze[lp].frozen) {
    r->view.freeze[lp].frozen = frozen;
    if (r->tl)
      run_tl_check(r, timeline_freeze(r->tl, lp, r->clock, frozen));
  }
}

void run_view_frozen(struct run *r)
{
  unsigned i;

  for (i = 0; i < r->threads; i++)
    update_frozen(r, i);
}

void run_view_wrote(struct run *r, uint32_t target)
{
  if (target == r->ctrl.addr && r->ctrl.present)
    r->view.freeze[r->lp].legacy = false;
}

void run_view_begin(struct run *r)
{
  unsigned i;

  for (i = 0; i < r->threads; i++)
    r->view.before[i] = run_globals(r, i);
  r->view.npending = 0;
}

/* A register field that a PMI changed: a freeze. */
static void freeze_field(struct run *r, const struct script_stmt *st,
                         unsigned lp, const struct reg *reg, const char *name,
                         uint64_t before, uint64_t after)
{
  uint64_t old, new;
  char what[96];

  if (!reg->present)
    return;
  old = run_field(r, reg->addr, name, before);
  new = run_field(r, reg->addr, name, after);
  if (old == new)
    return;
  snprintf(what, sizeof what, "%s.%s", reg->name, name);
  run_trace_freeze(r, st, lp, what, old, new);
}

/* The PMIs the host hook saw during the last call: trace each with the
 * status it leaves and the freeze it caused. */
void run_view_pmis(struct run *r, const struct script_stmt *st)
{
  const struct globals *before = r->view.before;
  size_t i;

  for (i = 0; i < r->view.npending; i++) {
    unsigned lp = r->view.pending[i];
    struct globals g = run_globals(r, lp);

    r->st[lp].pmis++;
    r->pmis++;
    run_trace_pmi(r, st, lp, g.status);
    if (r->tl)
      run_tl_check(r, timeline_pmi(r->tl, lp, r->clock, st->line));
    /* Legacy freeze (v2-v3) clears GLOBAL_CTRL and DEBUGCTL.LBR; v4 sets
     * CTR_Frz and LBR_Frz instead (SDM 18.2.4.1, 17.4.7). */
    if (r->ctrl.present && g.ctrl != before[lp].ctrl) {
      run_trace_freeze(r, st, lp, r->ctrl.name, before[lp].ctrl, g.ctrl);
      r->view.freeze[lp].legacy = r->p->version < 4;
    }
    freeze_field(r, st, lp, &r->status, "CTR_Frz", before[lp].status, g.status);
    freeze_field(r, st, lp, &r->status, "LBR_Frz", before[lp].status, g.status);
    freeze_field(r, st, lp, &r->debugctl, "LBR", before[lp].debugctl,
                 g.debugctl);
    update_frozen(r, lp);
  }
  r->view.npending = 0;
}

/* ---- increments ---------------------------------------------------------- */

/* Clocks until the first counter wraps, at the increments last measured,
 * and at most left. */
static uint64_t next_chunk(const struct run *r, uint64_t left)
{
  uint64_t n = left;
  size_t k;

  for (k = 0; k < r->nctr; k++) {
    const struct ctr *c = &r->ctr[k];
    uint64_t q;
    if (!c->inc)
      continue;
    q = (c->mask - c->val) / c->inc; /* clocks without a wrap */
    if (q < n)
      n = q + 1;
  }
  return n;
}

/* What each counter counted by the end of a call of `done` clocks, before
 * any PEBS reload, into counted; which counters the call's assist
 * reloaded into reloaded. An assist is at the last clock of the call (the
 * model stops there), which counts before it reloads (SDM 18.4.4: the
 * event after the overflow generates the record and reloads the counter;
 * docs/decisions.md #30). Without a dry run the
 * values follow from the increments measured (a counter armed for PEBS
 * counts plain events: no edge detection, so the same every clock). The
 * assist also clears the overflow bit of each counter it reloads. */
static void count_values(struct run *r, uint64_t done, int rc, bool dry)
{
  const struct globals *before = r->view.before;
  size_t k;

  for (k = 0; k < r->nctr; k++) {
    struct ctr *c = &r->ctr[k];
    uint64_t v = run_rd(r, c->lp, c->addr);
    uint64_t status =
        r->status.present ? run_rd(r, c->lp, r->status.addr) : 0;
    bool mine = (rc & SPMU_TICK_PEBS) && c->lp == r->lp;

    if (!dry)
      r->view.counted[k] = mine ? (c->val + c->inc * done) & c->mask : v;
    r->view.reloaded[k] =
        mine &&
        (r->view.counted[k] != v ||
         ((before[c->lp].status & c->status_bit) && !(status & c->status_bit)));
  }
}

/* Read every counter after a chunk of `done` clocks (n asked for): trace
 * each wrap, and measure increments after a single clock. counted holds
 * the values before a PEBS reload (count_values). */
static void observe(struct run *r, const struct script_stmt *st, uint64_t n,
                    uint64_t done)
{
  const struct globals *before = r->view.before;
  uint64_t status[SPMU_MAX_THREADS];
  unsigned i;
  size_t k;

  for (i = 0; i < r->threads; i++)
    status[i] = r->status.present ? run_rd(r, i, r->status.addr) : 0;
  for (k = 0; k < r->nctr; k++) {
    struct ctr *c = &r->ctr[k];
    uint64_t v = run_rd(r, c->lp, c->addr), cv = r->view.counted[k];
    uint64_t fresh = status[c->lp] & ~before[c->lp].status;
    bool wrapped = cv < c->val || (fresh & c->status_bit);
    uint64_t gain = (cv - c->val) & c->mask;

    if (n == 1) {
      c->inc = gain;
      /* One clock that adds the whole width lands on the same value. */
      if (wrapped && gain == 0)
        gain = c->mask == UINT64_MAX ? UINT64_MAX : c->mask + 1;
    } else {
      if (c->inc && done > (c->mask - c->val) / c->inc)
        wrapped = true;
      gain = c->inc > UINT64_MAX / done ? UINT64_MAX : c->inc * done;
    }
    c->gained = gain > UINT64_MAX - c->gained ? UINT64_MAX : c->gained + gain;
    if (wrapped)
      run_trace_overflow(r, st, c);
    c->val = v;
    if (c->lane < 0)
      continue;
    run_tl_check(r, timeline_ramp(r->tl, c->lane, r->clock, cv));
    if (wrapped)
      run_tl_check(r, timeline_overflow(r->tl, c->lane, r->clock));
    if (v != cv) /* reloaded by a PEBS assist */
      run_tl_check(r, timeline_step(r->tl, c->lane, r->clock, v));
    if (c->gained)
      timeline_show(r->tl, c->lane);
  }
}

/* One clock of clk on the scratch core, a copy of the run's without guest
 * memory (so a PEBS assist there reloads nothing): what the counters count
 * in it, into counted. False if the copy failed. */
static bool dry_clock(struct run *r, const spmu_clock *clk)
{
  struct model_view *v = &r->view;
  size_t len, k;

  if (spmu_core_save(r->core, v->snap, v->snap_cap, &len) != SPMU_OK ||
      spmu_core_restore(v->scratch, v->snap, len) != SPMU_OK ||
      r->deliver(spmu_core_lp(v->scratch, r->lp), clk, 1, NULL) < 0)
    return false;
  for (k = 0; k < r->nctr; k++)
    if (spmu_host_rdmsr(spmu_core_lp(v->scratch, r->ctr[k].lp), r->ctr[k].addr,
                        &v->counted[k]) != SPMU_OK)
      return false;
  return true;
}

/* ---- the DS save area: what an assist or a branch record did ------------- */

/* Where the DS management area is for clk: IA32_DS_AREA, in the 64-bit
 * layout with DTES64 or in IA-32e mode, else the 32-bit one (SDM
 * 17.4.9). */
static struct ds_view ds_view_of(const struct run *r, const spmu_clock *clk)
{
  struct ds_view d = {false, false, 0};

  if (!r->ds_area.present)
    return d;
  d.present = true;
  d.wide = (r->p->features & SPMU_FEAT_DTES64) || (clk->flags & SPMU_CLK_IA32E);
  d.base = run_rd(r, r->lp, r->ds_area.addr);
  if (!d.wide)
    d.base &= UINT32_MAX;
  return d;
}

/* Management field i (0 buffer base, 1 index, 2 absolute maximum, 3
 * interrupt threshold) of the PEBS or the BTS buffer (SDM 17.4.9,
 * Figures 17-5 and 17-8). */
static bool ds_field(const struct run *r, bool pebs, unsigned i, uint64_t *v)
{
  const struct ds_view *ds = &r->view.ds;
  unsigned w = ds->wide ? 8 : 4;

  *v = 0;
  return ds->present &&
         run_mem_peek(&r->mem, ds->base + (pebs ? 4 * w : 0) + i * w, w, v);
}

/* Does the model store clk's branch? DEBUGCTL.TR and BTS set, and not
 * BTS_OFF_OS at CPL 0 or BTS_OFF_USR above (SDM 17.4.9.3). */
static bool bts_due(const struct run *r, const spmu_clock *clk)
{
  uint32_t a = r->debugctl.addr;
  uint64_t dbg;

  if (!clk->branch || !r->debugctl.present)
    return false;
  dbg = run_rd(r, r->lp, a);
  return run_field(r, a, "TR", dbg) && run_field(r, a, "BTS", dbg) &&
         !run_field(r, a, clk->cpl == 0 ? "BTS_OFF_OS" : "BTS_OFF_USR", dbg);
}

struct ds_before {
  bool bts_due;
  uint64_t pebs_index; /* where the next PEBS record goes */
};

static void ds_prepare(struct run *r, const spmu_clock *clk,
                       struct ds_before *db)
{
  r->view.ds = ds_view_of(r, clk);
  r->view.phase = DS_NONE;
  r->view.nfaults = 0;
  db->bts_due = bts_due(r, clk);
  ds_field(r, true, 1, &db->pebs_index);
}

/* Why an access of the buffer `phase` failed, if one did. */
static bool fault_text(const struct run *r, enum ds_phase phase, char *buf,
                       size_t len)
{
  size_t i;

  for (i = 0; i < r->view.nfaults; i++) {
    const struct fault *f = &r->view.faults[i];
    if (f->phase != phase)
      continue;
    snprintf(buf, len,
             "the guest memory %s of %zu bytes at 0x%" PRIx64
             " failed: no memory window holds it",
             f->write ? "write" : "read", f->len, f->la);
    return true;
  }
  return false;
}

/* Why no record fit (SDM 17.4.9: below the absolute maximum). */
static void no_room_text(const struct run *r, bool pebs, char *buf, size_t len)
{
  uint64_t base, index, max;

  ds_field(r, pebs, 0, &base);
  ds_field(r, pebs, 1, &index);
  ds_field(r, pebs, 2, &max);
  if (pebs)
    snprintf(buf, len,
             "no room for it below the absolute maximum (index 0x%" PRIx64
             ", absolute maximum 0x%" PRIx64 ")",
             index, max);
  else if (run_field(r, r->debugctl.addr, "BTINT",
                     run_rd(r, r->lp, r->debugctl.addr)))
    snprintf(buf, len,
             "the buffer is full (index 0x%" PRIx64
             ", absolute maximum 0x%" PRIx64
             ") and BTINT is set, so it does not wrap",
             index, max);
  else
    snprintf(buf, len,
             "no room for a record even at the buffer base 0x%" PRIx64
             " (absolute maximum 0x%" PRIx64 ")",
             base, max);
}

static void ds_report(struct run *r, const struct script_stmt *st,
                      const spmu_clock *clk, int rc, const struct ds_before *db)
{
  struct lpstate *s = &r->st[r->lp];
  char why[256];
  uint64_t next;

  if (rc & SPMU_TICK_PEBS) {
    ds_field(r, true, 1, &next);
    run_trace_pebs(r, st, db->pebs_index, next - db->pebs_index,
                   r->view.reloaded);
    s->counts[SCRIPT_COUNT_PEBS]++;
  } else if (rc & SPMU_TICK_PEBS_LOST) {
    if (!fault_text(r, DS_PEBS, why, sizeof why))
      no_room_text(r, true, why, sizeof why);
    run_trace_pebs_lost(r, st, why);
    s->counts[SCRIPT_COUNT_LOST]++;
  }
  if (rc & SPMU_TICK_BTS) {
    ds_field(r, false, 1, &next);
    run_trace_bts(r, st, next - (r->view.ds.wide ? 24 : 12), clk->branch);
    s->counts[SCRIPT_COUNT_BTS]++;
  } else if (db->bts_due) {
    if (!fault_text(r, DS_BTS, why, sizeof why))
      no_room_text(r, false, why, sizeof why);
    run_trace_bts_lost(r, st, why);
  }
}

/* ---- deliver ------------------------------------------------------------- */

/* A run's budget of delivery steps. A step ends at every overflow, PMI,
 * PEBS assist or branch record, so a script can ask for 2^64 of them (a
 * counter that wraps every clock); the run stops with an error instead of
 * running for ever. */
#define RUN_MAX_STEPS 1000000u

int run_view_deliver(struct run *r, const struct script_stmt *st,
                     const spmu_clock *clk)
{
  spmu_lp *lp = spmu_core_lp(r->core, r->lp);
  uint64_t left = st->clocks;
  unsigned probes = 2; /* single clocks before the increments are steady */

  while (left) {
    uint64_t n = probes ? 1 : next_chunk(r, left), done = 0, due = 0;
    struct ds_before db;
    bool dry = false;
    int rc;

    if (++r->steps > RUN_MAX_STEPS) {
      cli_error("%s:%u: deliver: more than %u delivery steps (each overflow, "
                "PMI, PEBS assist or branch record is one); the run stops",
                r->s->file, st->line, RUN_MAX_STEPS);
      return CLI_EXIT_USAGE;
    }
    run_view_begin(r);
    /* A clock being measured whose PEBS assist may reload counters: try
     * it on the copy first to see what it counts. */
    if (n == 1 && r->view.scratch &&
        spmu_deadline(lp, clk, &due) == SPMU_OK && due == 1)
      dry = dry_clock(r, clk);
    ds_prepare(r, clk, &db);
    rc = r->deliver(lp, clk, n, &done);
    if (rc < 0 || done == 0 || done > left)
      return run_trace_call_failed(r, st, "deliver",
                                   rc < 0 ? rc : SPMU_EINVAL);
    r->clock += done;
    left -= done;
    count_values(r, done, rc, dry);
    observe(r, st, n, done);
    ds_report(r, st, clk, rc, &db);
    if (probes)
      probes--;
    if (rc & SPMU_TICK_PMI) {
      run_view_pmis(r, st);
      probes = 1; /* a freeze changes the increments */
    }
  }
  return CLI_EXIT_OK;
}

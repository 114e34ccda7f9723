/* softpmu run: execute a scenario script against a modelled core and trace
 * what the PMU did (script.c parses, run_trace.c prints, timeline.c draws;
 * docs/scripts.md is the reference).
 *
 * Every statement goes through the public API, exactly as an embedder
 * would call it. Repeated clocks go through spmu_deliver's batching, in
 * chunks that end where a counter wraps, so each overflow and PMI is
 * reported at the clock it happened: the first clock of a deliver (and the
 * one after each PMI) is delivered alone to measure what every counter
 * gains per clock, which stays constant until the next PMI (SDM 18.2.1:
 * the same clock gives the same increments; only the first can differ,
 * through edge detection).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <softpmu/events.h>
#include <softpmu/pmu.h>

#include "run.h"

/* ---- reading the model ------------------------------------------------- */

static spmu_lp *lp_of(const struct run *r, unsigned i)
{
  return spmu_core_lp(r->core, i);
}

/* An MSR through the host path (no side effects); 0 if absent. */
static uint64_t rd(const struct run *r, unsigned lp, uint32_t addr)
{
  uint64_t v = 0;

  if (spmu_host_rdmsr(lp_of(r, lp), addr, &v) != SPMU_OK)
    return 0;
  return v;
}

/* The description of MSR addr; NULL if the profile lacks it (or out of
 * memory, noted in descs->oom). Looked up on first use. */
const struct desc *run_desc(const struct run *r, uint32_t addr)
{
  struct descs *ds = r->descs;
  struct desc *d;
  unsigned i;

  for (i = 0; i < ds->n; i++)
    if (ds->d[i].info.addr == addr)
      return &ds->d[i];
  /* Room for every MSR of the profile, allocated once: the pointers
   * handed out stay valid. */
  if (ds->n == ds->cap)
    return NULL;
  d = &ds->d[ds->n];
  if (spmu_msr_info_get(r->p, addr, &d->info) != SPMU_OK)
    return NULL;
  d->f = calloc(d->info.nfields ? d->info.nfields : 1, sizeof(*d->f));
  if (!d->f) {
    ds->oom = true;
    return NULL;
  }
  for (i = 0; i < d->info.nfields; i++)
    spmu_msr_field_get(r->p, addr, i, &d->f[i]);
  ds->n++;
  return d;
}

/* Field `name` of value reg of MSR addr; 0 if there is no such field. */
static uint64_t field(const struct run *r, uint32_t addr, const char *name,
                      uint64_t reg)
{
  const struct desc *d = run_desc(r, addr);
  unsigned i;

  for (i = 0; d && i < d->info.nfields; i++)
    if (cli_ieq(d->f[i].name, name))
      return run_field_value(&d->f[i], reg);
  return 0;
}

static struct globals globals_of(const struct run *r, unsigned lp)
{
  struct globals g = {0, 0, 0};

  if (r->ctrl.present)
    g.ctrl = rd(r, lp, r->ctrl.addr);
  if (r->status.present)
    g.status = rd(r, lp, r->status.addr);
  if (r->debugctl.present)
    g.debugctl = rd(r, lp, r->debugctl.addr);
  return g;
}

static void snapshot(const struct run *r, struct globals *g)
{
  unsigned i;

  for (i = 0; i < r->threads; i++)
    g[i] = globals_of(r, i);
}

/* SDM 18.2.2: a counter counts when its own enable is set and, from
 * perfmon v2, its IA32_PERF_GLOBAL_CTRL bit too. */
static bool ctr_enabled(const struct run *r, const struct ctr *c)
{
  if (!field(r, c->ctl, c->en, rd(r, c->lp, c->ctl)))
    return false;
  return !r->ctrl.present ||
         field(r, r->ctrl.addr, c->global, rd(r, c->lp, r->ctrl.addr));
}

/* ---- guest memory: the script's windows, through the host callbacks ------ */

/* The mapped window that holds the len bytes at la; NULL if none. */
static struct window *window_of(const struct run *r, uint64_t la, size_t len)
{
  size_t i;

  for (i = 0; i < r->nwin; i++) {
    struct window *w = &r->win[i];
    if (w->mapped && la >= w->base && len <= w->size &&
        la - w->base <= w->size - len)
      return w;
  }
  return NULL;
}

/* The model reads a buffer's four management fields before anything else
 * of it (SDM 17.4.9): BTS at the DS base, PEBS 4 fields above it. */
static void note_phase(struct run *r, uint64_t la)
{
  unsigned w = r->ds.wide ? 8 : 4;

  if (!r->ds.present)
    return;
  if (la == r->ds.base)
    r->phase = DS_BTS;
  else if (la == r->ds.base + 4 * w)
    r->phase = DS_PEBS;
}

static int mem_fail(struct run *r, bool write, uint64_t la, size_t len)
{
  if (r->nfaults < RUN_MAX_FAULTS)
    r->faults[r->nfaults++] = (struct fault){write, la, len, r->phase};
  return -1;
}

static int host_read(void *opaque, spmu_lp *lp, uint64_t la, void *buf,
                     size_t len)
{
  struct run *r = opaque;
  struct window *w;

  (void)lp;
  note_phase(r, la);
  w = window_of(r, la, len);
  if (!w)
    return mem_fail(r, false, la, len);
  memcpy(buf, w->data + (la - w->base), len);
  return 0;
}

static int host_write(void *opaque, spmu_lp *lp, uint64_t la, const void *buf,
                      size_t len)
{
  struct run *r = opaque;
  struct window *w;

  (void)lp;
  w = window_of(r, la, len);
  if (!w)
    return mem_fail(r, true, la, len);
  memcpy(w->data + (la - w->base), buf, len);
  return 0;
}

/* The machine state of the lp's last `state` statement. */
static void host_state(void *opaque, spmu_lp *lp, spmu_machine_state *m)
{
  const struct run *r = opaque;
  const struct script_state *s = &r->st[spmu_lp_index(lp)].state;

  m->ip = s->ip;
  m->next_ip = s->next_ip;
  m->rflags = s->rflags;
  m->tsc = s->tsc;
  memcpy(m->gpr, s->gpr, sizeof m->gpr);
}

/* The len (1-8) bytes at la as a little-endian number, read without the
 * model; false if the memory does not hold them. */
static bool peek(const struct run *r, uint64_t la, unsigned len, uint64_t *v)
{
  const struct window *w = window_of(r, la, len);
  unsigned i;

  *v = 0;
  if (!w)
    return false;
  for (i = 0; i < len; i++)
    *v |= (uint64_t)w->data[la - w->base + i] << (8 * i);
  return true;
}

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
  d.base = rd(r, r->lp, r->ds_area.addr);
  if (!d.wide)
    d.base &= UINT32_MAX;
  return d;
}

/* Management field i (0 buffer base, 1 index, 2 absolute maximum, 3
 * interrupt threshold) of the PEBS or the BTS buffer (facts sheet C). */
static bool ds_field(const struct run *r, bool pebs, unsigned i, uint64_t *v)
{
  unsigned w = r->ds.wide ? 8 : 4;

  *v = 0;
  return r->ds.present &&
         peek(r, r->ds.base + (pebs ? 4 * w : 0) + i * w, w, v);
}

/* ---- bookkeeping after a statement ------------------------------------- */

static void tl_check(struct run *r, bool ok)
{
  if (!ok)
    r->oom = true;
}

/* Are lp's counters frozen? From perfmon v4 while CTR_Frz is set; before,
 * from the PMI that cleared GLOBAL_CTRL until software writes it again
 * (SDM 18.2.4.1, 17.4.7). The timeline draws the spans. */
static void update_frozen(struct run *r, unsigned lp)
{
  struct lpstate *s = &r->st[lp];
  struct globals g = globals_of(r, lp);
  bool frozen;

  if (s->legacy_frozen && g.ctrl != 0)
    s->legacy_frozen = false;
  if (r->p->version >= 4 && r->status.present)
    frozen = field(r, r->status.addr, "CTR_Frz", g.status) != 0;
  else
    frozen = s->legacy_frozen;
  if (frozen != s->frozen) {
    s->frozen = frozen;
    if (r->tl)
      tl_check(r, timeline_freeze(r->tl, lp, r->clock, frozen));
  }
}

/* Pick up what a statement changed: counters written, freezes ended. */
static int after_statement(struct run *r)
{
  size_t k;
  unsigned i;

  for (k = 0; k < r->nctr; k++) {
    struct ctr *c = &r->ctr[k];
    uint64_t v = rd(r, c->lp, c->addr);
    if (v == c->val)
      continue;
    c->val = v;
    if (c->lane >= 0)
      tl_check(r, timeline_step(r->tl, c->lane, r->clock, v));
  }
  for (i = 0; i < r->threads; i++)
    update_frozen(r, i);
  if (r->oom || r->descs->oom) {
    cli_error("out of memory");
    return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
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
  old = field(r, reg->addr, name, before);
  new = field(r, reg->addr, name, after);
  if (old == new)
    return;
  snprintf(what, sizeof what, "%s.%s", reg->name, name);
  run_trace_freeze(r, st, lp, what, old, new);
}

/* The PMIs the host hook saw during the last call: trace each with the
 * status it leaves and the freeze it caused. */
static void handle_pmis(struct run *r, const struct script_stmt *st,
                        const struct globals *before)
{
  size_t i;

  for (i = 0; i < r->npending; i++) {
    unsigned lp = r->pending[i];
    struct globals g = globals_of(r, lp);

    r->st[lp].pmis++;
    r->pmis++;
    run_trace_pmi(r, st, lp, g.status);
    if (r->tl)
      tl_check(r, timeline_pmi(r->tl, lp, r->clock, st->line));
    /* Legacy freeze (v2-v3) clears GLOBAL_CTRL and DEBUGCTL.LBR; v4 sets
     * CTR_Frz and LBR_Frz instead (SDM 18.2.4.1, 17.4.7). */
    if (r->ctrl.present && g.ctrl != before[lp].ctrl) {
      run_trace_freeze(r, st, lp, r->ctrl.name, before[lp].ctrl, g.ctrl);
      r->st[lp].legacy_frozen = r->p->version < 4;
    }
    freeze_field(r, st, lp, &r->status, "CTR_Frz", before[lp].status, g.status);
    freeze_field(r, st, lp, &r->status, "LBR_Frz", before[lp].status, g.status);
    freeze_field(r, st, lp, &r->debugctl, "LBR", before[lp].debugctl,
                 g.debugctl);
    update_frozen(r, lp);
  }
  r->npending = 0;
}

static void on_pmi(void *opaque, spmu_lp *lp)
{
  struct run *r = opaque;

  if (r->npending < SPMU_MAX_THREADS)
    r->pending[r->npending++] = spmu_lp_index(lp);
}

static int failed_call(const struct run *r, const struct script_stmt *st,
                       const char *what, int rc)
{
  cli_error("%s:%u: %s: %s", r->s->file, st->line, what, spmu_strerror(rc));
  return CLI_EXIT_USAGE;
}

/* ---- accesses ------------------------------------------------------------ */

static void note_access(struct run *r, const struct script_stmt *st,
                        const char *op, int rc)
{
  r->last.line = st->line;
  r->last.op = op;
  r->last.rc = rc;
}

static int exec_wrmsr(struct run *r, const struct script_stmt *st)
{
  spmu_lp *lp = lp_of(r, r->lp);
  const char *op = st->host ? "host-wrmsr" : "wrmsr";
  uint32_t target = st->msr;
  const struct desc *d = run_desc(r, st->msr);
  uint64_t old = 0, new = 0;
  int rc;

  /* A W1C/W1S write or an alias changes another register: show that. */
  if (d)
    target = d->info.target;
  old = rd(r, r->lp, target);
  rc = st->host ? spmu_host_wrmsr(lp, st->msr, st->value)
                : spmu_wrmsr(lp, st->msr, st->value);
  new = rd(r, r->lp, target);
  note_access(r, st, op, rc);
  run_trace_wrmsr(r, st, op, rc, target, old, new);
  if (target == r->ctrl.addr && rc == SPMU_OK && r->ctrl.present)
    r->st[r->lp].legacy_frozen = false;
  return after_statement(r);
}

static int exec_rdmsr(struct run *r, const struct script_stmt *st)
{
  uint64_t v = 0;
  int rc = spmu_rdmsr(lp_of(r, r->lp), st->msr, &v);

  note_access(r, st, "rdmsr", rc);
  run_trace_rdmsr(r, st, rc, v);
  return CLI_EXIT_OK;
}

static int exec_rdpmc(struct run *r, const struct script_stmt *st)
{
  uint64_t v = 0;
  int rc = spmu_rdpmc(lp_of(r, r->lp), st->ecx, st->cpl, st->pce, &v);

  if (rc < 0)
    return failed_call(r, st, "rdpmc", rc);
  note_access(r, st, "rdpmc", rc);
  run_trace_rdpmc(r, st, rc, v);
  return CLI_EXIT_OK;
}

/* ---- deliver ------------------------------------------------------------- */

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
 * any PEBS reload, into r->counted; which counters the call's assist
 * reloaded into r->reloaded. An assist is at the last clock of the call
 * (the model stops there), which counts before it reloads (decisions.md
 * #30). Without a dry run the values follow from the increments measured
 * (a counter armed for PEBS counts plain events: no edge detection, so
 * the same every clock). The assist also clears the overflow bit of each
 * counter it reloads. */
static void count_values(struct run *r, const struct globals *before,
                         uint64_t done, int rc, bool dry)
{
  size_t k;

  for (k = 0; k < r->nctr; k++) {
    struct ctr *c = &r->ctr[k];
    uint64_t v = rd(r, c->lp, c->addr);
    uint64_t status = r->status.present ? rd(r, c->lp, r->status.addr) : 0;
    bool mine = (rc & SPMU_TICK_PEBS) && c->lp == r->lp;

    if (!dry)
      r->counted[k] = mine ? (c->val + c->inc * done) & c->mask : v;
    r->reloaded[k] =
        mine &&
        (r->counted[k] != v ||
         ((before[c->lp].status & c->status_bit) && !(status & c->status_bit)));
  }
}

/* Read every counter after a chunk of `done` clocks (n asked for): trace
 * each wrap, and measure increments after a single clock. r->counted
 * holds the values before a PEBS reload (count_values). */
static void observe(struct run *r, const struct script_stmt *st,
                    const struct globals *before, uint64_t n, uint64_t done)
{
  uint64_t status[SPMU_MAX_THREADS];
  unsigned i;
  size_t k;

  for (i = 0; i < r->threads; i++)
    status[i] = r->status.present ? rd(r, i, r->status.addr) : 0;
  for (k = 0; k < r->nctr; k++) {
    struct ctr *c = &r->ctr[k];
    uint64_t v = rd(r, c->lp, c->addr), cv = r->counted[k];
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
    tl_check(r, timeline_ramp(r->tl, c->lane, r->clock, cv));
    if (wrapped)
      tl_check(r, timeline_overflow(r->tl, c->lane, r->clock));
    if (v != cv) /* reloaded by a PEBS assist */
      tl_check(r, timeline_step(r->tl, c->lane, r->clock, v));
    if (c->gained)
      timeline_show(r->tl, c->lane);
  }
}

/* One clock of clk on the scratch core, a copy of the run's without guest
 * memory (so a PEBS assist there reloads nothing): what the counters count
 * in it, into r->counted. False if the copy failed. */
static bool dry_clock(struct run *r, const spmu_clock *clk)
{
  size_t len, k;

  if (spmu_core_save(r->core, r->snap, r->snap_cap, &len) != SPMU_OK ||
      spmu_core_restore(r->scratch, r->snap, len) != SPMU_OK ||
      spmu_deliver(spmu_core_lp(r->scratch, r->lp), clk, 1, NULL) < 0)
    return false;
  for (k = 0; k < r->nctr; k++)
    if (spmu_host_rdmsr(spmu_core_lp(r->scratch, r->ctr[k].lp), r->ctr[k].addr,
                        &r->counted[k]) != SPMU_OK)
      return false;
  return true;
}

/* ---- the DS save area: what an assist or a branch record did ------------- */

/* Does the model store clk's branch? DEBUGCTL.TR and BTS set, and not
 * BTS_OFF_OS at CPL 0 or BTS_OFF_USR above (SDM 17.4.9.3). */
static bool bts_due(const struct run *r, const spmu_clock *clk)
{
  uint32_t a = r->debugctl.addr;
  uint64_t dbg;

  if (!clk->branch || !r->debugctl.present)
    return false;
  dbg = rd(r, r->lp, a);
  return field(r, a, "TR", dbg) && field(r, a, "BTS", dbg) &&
         !field(r, a, clk->cpl == 0 ? "BTS_OFF_OS" : "BTS_OFF_USR", dbg);
}

struct ds_before {
  bool bts_due;
  uint64_t pebs_index; /* where the next PEBS record goes */
};

static void ds_prepare(struct run *r, const spmu_clock *clk,
                       struct ds_before *db)
{
  r->ds = ds_view_of(r, clk);
  r->phase = DS_NONE;
  r->nfaults = 0;
  db->bts_due = bts_due(r, clk);
  ds_field(r, true, 1, &db->pebs_index);
}

/* Why an access of the buffer `phase` failed, if one did. */
static bool fault_text(const struct run *r, enum ds_phase phase, char *buf,
                       size_t len)
{
  size_t i;

  for (i = 0; i < r->nfaults; i++) {
    const struct fault *f = &r->faults[i];
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
  else if (field(r, r->debugctl.addr, "BTINT", rd(r, r->lp, r->debugctl.addr)))
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
    run_trace_pebs(r, st, db->pebs_index, next - db->pebs_index, r->reloaded);
    s->counts[SCRIPT_COUNT_PEBS]++;
  } else if (rc & SPMU_TICK_PEBS_LOST) {
    if (!fault_text(r, DS_PEBS, why, sizeof why))
      no_room_text(r, true, why, sizeof why);
    run_trace_pebs_lost(r, st, why);
    s->counts[SCRIPT_COUNT_LOST]++;
  }
  if (rc & SPMU_TICK_BTS) {
    ds_field(r, false, 1, &next);
    run_trace_bts(r, st, next - (r->ds.wide ? 24 : 12), clk->branch);
    s->counts[SCRIPT_COUNT_BTS]++;
  } else if (db->bts_due) {
    if (!fault_text(r, DS_BTS, why, sizeof why))
      no_room_text(r, false, why, sizeof why);
    run_trace_bts_lost(r, st, why);
  }
}

/* A run's budget of delivery steps. A step ends at every overflow, PMI,
 * PEBS assist or branch record, so a script can ask for 2^64 of them (a
 * counter that wraps every clock); the run stops with an error instead of
 * running for ever. */
#define RUN_MAX_STEPS 1000000u

static int exec_deliver(struct run *r, const struct script_stmt *st)
{
  const spmu_clock clk = {
      .lines = st->nlines ? &r->s->events[st->first] : NULL,
      .nlines = st->nlines,
      .cpl = (uint8_t)st->cpl,
      .flags = st->flags,
      .mem = st->has_mem ? &st->mem : NULL,
      .branch = st->has_branch ? &st->branch : NULL,
  };
  struct globals before[SPMU_MAX_THREADS];
  uint64_t left = st->clocks, first = r->clock + 1;
  unsigned probes = 2; /* single clocks before the increments are steady */
  size_t k;

  for (k = 0; k < r->nctr; k++) {
    struct ctr *c = &r->ctr[k];
    c->start = c->val;
    c->gained = 0;
    if (c->lane >= 0 && ctr_enabled(r, c))
      timeline_show(r->tl, c->lane);
  }
  while (left) {
    uint64_t n = probes ? 1 : next_chunk(r, left), done = 0;
    struct ds_before db;
    bool dry = false;
    int rc;

    if (++r->steps > RUN_MAX_STEPS) {
      cli_error("%s:%u: deliver: more than %u delivery steps (each overflow, "
                "PMI, PEBS assist or branch record is one); the run stops",
                r->s->file, st->line, RUN_MAX_STEPS);
      return CLI_EXIT_USAGE;
    }
    snapshot(r, before);
    r->npending = 0;
    /* A clock being measured whose PEBS assist may reload counters: try
     * it on the copy first to see what it counts. */
    uint64_t due = 0;
    if (n == 1 && r->scratch &&
        spmu_deadline(lp_of(r, r->lp), &clk, &due) == SPMU_OK && due == 1)
      dry = dry_clock(r, &clk);
    ds_prepare(r, &clk, &db);
    rc = spmu_deliver(lp_of(r, r->lp), &clk, n, &done);
    if (rc < 0 || done == 0 || done > left)
      return failed_call(r, st, "deliver", rc < 0 ? rc : SPMU_EINVAL);
    r->clock += done;
    left -= done;
    count_values(r, before, done, rc, dry);
    observe(r, st, before, n, done);
    ds_report(r, st, &clk, rc, &db);
    if (probes)
      probes--;
    if (rc & SPMU_TICK_PMI) {
      handle_pmis(r, st, before);
      probes = 1; /* a freeze changes the increments */
    }
  }
  run_trace_deliver(r, st, first);
  return after_statement(r);
}

/* ---- memory, poke, state ------------------------------------------------- */

static int exec_memory(struct run *r, const struct script_stmt *st)
{
  size_t i;

  for (i = 0; i < r->nwin; i++)
    if (r->win[i].base == st->addr)
      r->win[i].mapped = true;
  run_trace_memory(r, st);
  return CLI_EXIT_OK;
}

static int exec_poke(struct run *r, const struct script_stmt *st)
{
  struct window *w = window_of(r, st->addr, st->len);
  uint64_t old = 0;
  unsigned i;

  if (!w) /* the parser checked it */
    return failed_call(r, st, "poke", SPMU_EINVAL);
  peek(r, st->addr, (unsigned)st->len, &old);
  for (i = 0; i < st->len; i++)
    w->data[st->addr - w->base + i] = (uint8_t)(st->value >> (8 * i));
  run_trace_poke(r, st, old);
  return CLI_EXIT_OK;
}

static int exec_state(struct run *r, const struct script_stmt *st)
{
  r->st[r->lp].state = r->s->states[st->state];
  run_trace_state(r, st, &r->st[r->lp].state);
  return CLI_EXIT_OK;
}

/* ---- signal, lp, reset-pmis ---------------------------------------------- */

static int exec_signal(struct run *r, const struct script_stmt *st)
{
  struct globals before[SPMU_MAX_THREADS];
  uint64_t status;
  int rc;

  snapshot(r, before);
  r->npending = 0;
  rc = spmu_signal(lp_of(r, r->lp), (unsigned)st->value);
  if (rc < 0)
    return failed_call(r, st, "signal", rc);
  status = rd(r, r->lp, r->status.addr);
  run_trace_signal(r, st, before[r->lp].status, status);
  if (rc & SPMU_TICK_PMI)
    handle_pmis(r, st, before);
  return after_statement(r);
}

/* ---- expect -------------------------------------------------------------- */

static int expect_failed(struct run *r, const struct script_stmt *st,
                         const char *fmt, ...) CLI_PRINTF(3, 4);

static int expect_failed(struct run *r, const struct script_stmt *st,
                         const char *fmt, ...)
{
  char msg[512];
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  run_trace_failure(r, st, msg);
  fflush(stdout);
  fprintf(stderr, "%s:%u: expect failed: %s\n", r->s->file, st->line, msg);
  return CLI_EXIT_FAIL;
}

/* v as the expectation was written: hex, decimal, or signed within the
 * width. */
static void format_like(const struct script_stmt *st, uint64_t v, char *buf,
                        size_t len)
{
  uint64_t top =
      st->width >= 64 ? UINT64_C(1) << 63 : UINT64_C(1) << (st->width - 1);
  uint64_t mask = st->width >= 64 ? UINT64_MAX : (top << 1) - 1;

  if (st->radix == SCRIPT_DEC)
    snprintf(buf, len, "%" PRIu64, v);
  else if (st->radix == SCRIPT_NEG && (v & top))
    snprintf(buf, len, "-%" PRIu64 " (0x%" PRIx64 ")", ((0 - v) & mask), v);
  else if (st->radix == SCRIPT_NEG)
    snprintf(buf, len, "%" PRIu64 " (0x%" PRIx64 ")", v, v);
  else
    snprintf(buf, len, "0x%" PRIx64, v);
}

static int exec_expect_msr(struct run *r, const struct script_stmt *st)
{
  uint64_t v = rd(r, r->lp, st->msr);
  char got[64], want[64];

  if (st->field[0])
    v = field(r, st->msr, st->field, v);
  if (v == st->value)
    return CLI_EXIT_OK;
  format_like(st, v, got, sizeof got);
  format_like(st, st->value, want, sizeof want);
  return expect_failed(r, st, "%s%s%s is %s, expected %s", st->msr_name,
                       st->field[0] ? "." : "", st->field, got, want);
}

static int exec_expect_rdpmc(struct run *r, const struct script_stmt *st)
{
  uint64_t v = 0;
  int rc = spmu_rdpmc(lp_of(r, r->lp), st->ecx, 0, false, &v);
  char got[64], want[64];

  format_like(st, st->value, want, sizeof want);
  if (rc == SPMU_GP)
    return expect_failed(r, st, "rdpmc 0x%" PRIx32 " raised #GP, expected %s",
                         st->ecx, want);
  if (rc < 0)
    return failed_call(r, st, "rdpmc", rc);
  if (v == st->value)
    return CLI_EXIT_OK;
  format_like(st, v, got, sizeof got);
  return expect_failed(r, st, "rdpmc 0x%" PRIx32 " is %s, expected %s", st->ecx,
                       got, want);
}

static int exec_expect_pmis(struct run *r, const struct script_stmt *st)
{
  const struct lpstate *s = &r->st[r->lp];
  char since[64] = "the start";

  if (s->pmis == st->value)
    return CLI_EXIT_OK;
  if (s->reset_line)
    snprintf(since, sizeof since, "reset-pmis on line %u", s->reset_line);
  return expect_failed(r, st,
                       "%" PRIu64 " PMI%s on lp %u since %s, "
                       "expected %" PRIu64,
                       s->pmis, s->pmis == 1 ? "" : "s", r->lp, since,
                       st->value);
}

static int exec_expect_mem(struct run *r, const struct script_stmt *st)
{
  uint64_t v = 0;
  char got[64], want[64];

  peek(r, st->addr, (unsigned)st->len, &v);
  if (v == st->value)
    return CLI_EXIT_OK;
  format_like(st, v, got, sizeof got);
  format_like(st, st->value, want, sizeof want);
  return expect_failed(
      r, st, "mem 0x%" PRIx64 " (%u byte%s) is %s, expected %s", st->addr,
      (unsigned)st->len, st->len == 1 ? "" : "s", got, want);
}

static int exec_expect_count(struct run *r, const struct script_stmt *st)
{
  static const char *const what[] = {"PEBS record", "BTS record",
                                     "lost PEBS record"};
  uint64_t n = r->st[r->lp].counts[st->count];

  if (n == st->value)
    return CLI_EXIT_OK;
  return expect_failed(r, st,
                       "%" PRIu64 " %s%s on lp %u since the start, expected "
                       "%" PRIu64,
                       n, what[st->count], n == 1 ? "" : "s", r->lp, st->value);
}

static int exec_expect_fault(struct run *r, const struct script_stmt *st)
{
  bool fault = r->last.rc != SPMU_OK;

  if (fault == st->want_fault)
    return CLI_EXIT_OK;
  if (st->want_fault)
    return expect_failed(r, st, "the %s on line %u completed, expected %s",
                         r->last.op, r->last.line,
                         strcmp(r->last.op, "host-wrmsr") == 0
                             ? "the host path to refuse it"
                             : "#GP");
  if (r->last.rc == SPMU_GP)
    return expect_failed(r, st,
                         "the %s on line %u raised #GP, expected it "
                         "to complete",
                         r->last.op, r->last.line);
  return expect_failed(r, st,
                       "the %s on line %u was refused (%s), expected "
                       "it to complete",
                       r->last.op, r->last.line, spmu_errname(r->last.rc));
}

/* ---- the run ------------------------------------------------------------- */

static int exec(struct run *r, const struct script_stmt *st)
{
  int rc;

  switch (st->op) {
  case SCRIPT_LP:
    r->lp = (unsigned)st->value;
    return CLI_EXIT_OK;
  case SCRIPT_WRMSR:
    return exec_wrmsr(r, st);
  case SCRIPT_RDMSR:
    return exec_rdmsr(r, st);
  case SCRIPT_RDPMC:
    return exec_rdpmc(r, st);
  case SCRIPT_DELIVER:
    return exec_deliver(r, st);
  case SCRIPT_SIGNAL:
    return exec_signal(r, st);
  case SCRIPT_MEMORY:
    return exec_memory(r, st);
  case SCRIPT_POKE:
    return exec_poke(r, st);
  case SCRIPT_STATE:
    return exec_state(r, st);
  case SCRIPT_RESET_PMIS:
    r->st[r->lp].pmis = 0;
    r->st[r->lp].reset_line = st->line;
    return CLI_EXIT_OK;
  case SCRIPT_EXPECT_MSR:
    rc = exec_expect_msr(r, st);
    break;
  case SCRIPT_EXPECT_RDPMC:
    rc = exec_expect_rdpmc(r, st);
    break;
  case SCRIPT_EXPECT_PMIS:
    rc = exec_expect_pmis(r, st);
    break;
  case SCRIPT_EXPECT_FAULT:
    rc = exec_expect_fault(r, st);
    break;
  case SCRIPT_EXPECT_MEM:
    rc = exec_expect_mem(r, st);
    break;
  case SCRIPT_EXPECT_COUNT:
    rc = exec_expect_count(r, st);
    break;
  default:
    return failed_call(r, st, "statement", SPMU_EINVAL);
  }
  if (rc == CLI_EXIT_OK)
    r->expects++;
  return rc;
}

static bool find_reg(const spmu_profile *p, const char *name, struct reg *out)
{
  spmu_msr_info m;

  memset(out, 0, sizeof(*out));
  if (spmu_msr_lookup(p, name, &out->addr) != SPMU_OK ||
      spmu_msr_info_get(p, out->addr, &m) != SPMU_OK)
    return false;
  out->present = true;
  snprintf(out->name, sizeof out->name, "%s", m.name);
  return true;
}

/* Counter `name` of lp, controlled by field `en` of MSR `ctl` and field
 * `global` of GLOBAL_CTRL, with status field `ovf`. */
static bool add_ctr(struct run *r, unsigned lp, const char *name,
                    const char *ctl, const char *en, const char *global,
                    const char *ovf)
{
  struct ctr *c = &r->ctr[r->nctr];
  spmu_msr_info m;
  char label[48];

  memset(c, 0, sizeof(*c));
  if (spmu_msr_lookup(r->p, name, &c->addr) != SPMU_OK ||
      spmu_msr_info_get(r->p, c->addr, &m) != SPMU_OK ||
      spmu_msr_lookup(r->p, ctl, &c->ctl) != SPMU_OK)
    return true; /* not in this profile */
  c->lp = lp;
  snprintf(c->name, sizeof c->name, "%s", m.name);
  c->mask = m.width >= 64 ? UINT64_MAX : (UINT64_C(1) << m.width) - 1;
  snprintf(c->en, sizeof c->en, "%s", en);
  snprintf(c->global, sizeof c->global, "%s", global);
  if (r->status.present)
    spmu_msr_field_encode(r->p, r->status.addr, ovf, 1, &c->status_bit);
  c->val = rd(r, lp, c->addr);
  c->lane = -1;
  if (r->tl) {
    if (r->show_lp)
      snprintf(label, sizeof label, "lp %u %s", lp, c->name);
    else
      snprintf(label, sizeof label, "%s", c->name);
    c->lane = timeline_counter(r->tl, lp, label, m.width);
    if (c->lane < 0 || !timeline_step(r->tl, c->lane, 0, c->val))
      return false;
  }
  r->nctr++;
  return true;
}

/* Every GP and fixed counter of every logical processor. */
static bool add_counters(struct run *r)
{
  char name[32], ctl[32], en[8], global[24], ovf[24];
  unsigned lp, i;

  size_t most = (size_t)r->threads * (SPMU_MAX_GP + SPMU_MAX_FIXED);

  r->ctr = calloc(most, sizeof(*r->ctr));
  r->counted = calloc(most, sizeof(*r->counted));
  r->reloaded = calloc(most, sizeof(*r->reloaded));
  if (!r->ctr || !r->counted || !r->reloaded)
    return false;
  for (lp = 0; lp < r->threads; lp++) {
    for (i = 0; i < r->p->gp; i++) {
      snprintf(name, sizeof name, "IA32_PMC%u", i);
      snprintf(ctl, sizeof ctl, "IA32_PERFEVTSEL%u", i);
      snprintf(global, sizeof global, "EN_PMC%u", i);
      snprintf(ovf, sizeof ovf, "Ovf_PMC%u", i);
      if (!add_ctr(r, lp, name, ctl, "EN", global, ovf))
        return false;
    }
    for (i = 0; i < SPMU_MAX_FIXED; i++) {
      if (!(r->p->fixed_mask >> i & 1))
        continue;
      snprintf(name, sizeof name, "IA32_FIXED_CTR%u", i);
      snprintf(en, sizeof en, "EN%u", i);
      snprintf(global, sizeof global, "EN_FIXED_CTR%u", i);
      snprintf(ovf, sizeof ovf, "Ovf_FixedCtr%u", i);
      if (!add_ctr(r, lp, name, "IA32_FIXED_CTR_CTRL", en, global, ovf))
        return false;
    }
  }
  return true;
}

/* The script's memory windows, zero-filled and not yet mapped, and the
 * scratch core that measures clocks whose PEBS assist may reload
 * counters (only with memory: without it no assist writes). */
static bool add_memory(struct run *r)
{
  const struct script *s = r->s;
  size_t i;

  if (!s->nwindows)
    return true;
  r->win = calloc(s->nwindows, sizeof(*r->win));
  if (!r->win)
    return false;
  for (i = 0; i < s->nwindows; i++) {
    r->win[i].base = s->windows[i].base;
    r->win[i].size = s->windows[i].size;
    r->win[i].data = calloc(1, (size_t)s->windows[i].size);
    if (!r->win[i].data)
      return false;
    r->nwin++;
  }
  spmu_core_save(r->core, NULL, 0, &r->snap_cap);
  r->snap = malloc(r->snap_cap ? r->snap_cap : 1);
  return r->snap && spmu_core_new(r->p, &r->scratch) == SPMU_OK;
}

static int run_start(struct run *r, const struct script *s, bool json, bool svg)
{
  int rc;

  memset(r, 0, sizeof(*r));
  r->s = s;
  r->json = json;
  rc = spmu_core_new(&s->profile, &r->core);
  if (rc != SPMU_OK) {
    cli_error("%s: %s", s->file, spmu_strerror(rc));
    return CLI_EXIT_USAGE;
  }
  r->p = spmu_core_profile(r->core);
  r->threads = spmu_core_threads(r->core);
  r->show_lp = s->uses_lp;
  spmu_core_set_host(r->core, &(spmu_host){.opaque = r,
                                           .pmi = on_pmi,
                                           .read_mem = host_read,
                                           .write_mem = host_write,
                                           .machine_state = host_state});
  find_reg(r->p, "IA32_PERF_GLOBAL_CTRL", &r->ctrl);
  find_reg(r->p, "IA32_PERF_GLOBAL_STATUS", &r->status);
  find_reg(r->p, "IA32_DEBUGCTL", &r->debugctl);
  find_reg(r->p, "IA32_DS_AREA", &r->ds_area);
  if (!add_memory(r)) {
    cli_error("out of memory");
    return CLI_EXIT_USAGE;
  }
  r->descs = calloc(1, sizeof(*r->descs));
  if (r->descs) {
    r->descs->cap = spmu_msr_list(r->p, NULL, 0);
    r->descs->d =
        calloc(r->descs->cap ? r->descs->cap : 1, sizeof(*r->descs->d));
  }
  if (!r->descs || !r->descs->d || (svg && !(r->tl = timeline_new())) ||
      !add_counters(r)) {
    cli_error("out of memory");
    return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
}

static void run_end(struct run *r)
{
  size_t i;

  if (r->descs) {
    for (i = 0; i < r->descs->n; i++)
      free(r->descs->d[i].f);
    free(r->descs->d);
    free(r->descs);
  }
  timeline_free(r->tl);
  free(r->ctr);
  free(r->counted);
  free(r->reloaded);
  for (i = 0; i < r->nwin; i++)
    free(r->win[i].data);
  free(r->win);
  free(r->snap);
  spmu_core_free(r->scratch);
  spmu_core_free(r->core);
}

static int write_svg(const struct run *r, const char *path)
{
  char title[256];
  FILE *f = fopen(path, "w");

  if (!f) {
    cli_error("cannot write %s: %s", path, strerror(errno));
    return CLI_EXIT_USAGE;
  }
  snprintf(title, sizeof title,
           "softpmu run %s on %s: %" PRIu64 " clocks, %" PRIu64 " PMI%s",
           r->s->file, r->p->name, r->clock, r->pmis, r->pmis == 1 ? "" : "s");
  timeline_write_svg(r->tl, f, title, r->clock);
  if (ferror(f) | fclose(f)) {
    cli_error("cannot write %s: %s", path, strerror(errno));
    return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
}

/* ---- reading the script -------------------------------------------------- */

#define SCRIPT_MAX_BYTES (16u << 20)

/* The contents of path ("-": standard input), NUL-terminated, malloc'ed;
 * NULL after a message. */
static char *read_script(const char *path)
{
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  size_t len = 0, cap = 0, n;
  char *buf = NULL;

  if (!f) {
    cli_error("cannot read %s: %s", path, strerror(errno));
    return NULL;
  }
  do {
    if (len + 4096 + 1 > cap) {
      char *more;
      cap = cap ? 2 * cap : 8192;
      more = len < SCRIPT_MAX_BYTES ? realloc(buf, cap) : NULL;
      if (!more) {
        cli_error(len < SCRIPT_MAX_BYTES ? "out of memory"
                                         : "%s: larger than 16 MiB",
                  path);
        free(buf);
        buf = NULL;
        break;
      }
      buf = more;
    }
    n = fread(buf + len, 1, 4096, f);
    len += n;
  } while (n > 0);
  if (buf && ferror(f)) {
    cli_error("cannot read %s: %s", path, strerror(errno));
    free(buf);
    buf = NULL;
  }
  if (f != stdin)
    fclose(f);
  if (buf && memchr(buf, '\0', len)) {
    cli_error("%s: not a text file (it holds a NUL byte)", path);
    free(buf);
    return NULL;
  }
  if (buf)
    buf[len] = '\0';
  return buf;
}

static int run_run(const struct cli_args *a)
{
  const char *path = a->argv[0];
  const char *file = strcmp(path, "-") == 0 ? "<stdin>" : path;
  struct script s;
  struct run r;
  char *text;
  size_t i;
  int rc, errors;

  text = read_script(path);
  if (!text)
    return CLI_EXIT_USAGE;
  errors = script_parse(&s, file, text, a->cpu, &a->profile);
  free(text);
  if (errors != 0) {
    script_free(&s);
    return CLI_EXIT_USAGE;
  }
  rc = run_start(&r, &s, (a->flags & CLI_FLAG_JSON) != 0, a->svg != NULL);
  if (rc == CLI_EXIT_OK) {
    run_trace_cpu(&r, a->cpu ? "--cpu" : s.cpu_line ? "script" : "default");
    for (i = 0; i < s.nstmt && rc == CLI_EXIT_OK; i++)
      rc = exec(&r, &s.stmt[i]);
    if (rc == CLI_EXIT_OK)
      run_trace_end(&r);
    if (a->svg && rc != CLI_EXIT_USAGE) {
      int wrc = write_svg(&r, a->svg);
      if (wrc != CLI_EXIT_OK)
        rc = wrc;
    }
  }
  run_end(&r);
  script_free(&s);
  return rc;
}

/* The manual keeps its text column. */
/* clang-format off */
const struct cli_command cli_cmd_run = {
  .name = "run",
  .summary = "run a PMU scenario script and trace what the PMU does",
  .synopsis = "[-c PROFILE] [--json] [--svg FILE] SCRIPT",
  .description =
    "    Runs SCRIPT, a scenario in a small line-based language, on a\n"
    "    modelled core and prints a trace of what the PMU did: a line for\n"
    "    each statement that wrote or read something, and one for each\n"
    "    counter overflow, PMI and freeze, PEBS assist and branch record,\n"
    "    at the clock it happened. The whole script is parsed first: if\n"
    "    any line has an error, every error is reported and nothing runs.\n"
    "    docs/scripts.md is the full reference; examples/scripts/ holds a\n"
    "    script for each procedure of the SDM that drivers follow. SCRIPT\n"
    "    - reads standard input.\n"
    "\n"
    "    One statement per line; '#' starts a comment. Keywords, MSR names,\n"
    "    field names and event names are case-insensitive. MSR is an SDM\n"
    "    name or an address (0x-hex or decimal). VALUE is 0x-hex, decimal\n"
    "    or -N: the two's complement within the MSR's width, which for a\n"
    "    counter is what a driver writes to sample every N events.\n"
    "\n"
    "    cpu PROFILE\n"
    "        The processor, as for --cpu (threads=N in a key=value profile\n"
    "        gives the core N logical processors). Only as the first\n"
    "        statement; without it the script runs on the --cpu profile.\n"
    "        --cpu, when given, replaces it.\n"
    "    lp N\n"
    "        Run what follows on logical processor N (from the start: 0).\n"
    "    wrmsr MSR VALUE\n"
    "    wrmsr MSR FIELD=VALUE...\n"
    "        WRMSR, as the guest executes it. The trace shows the register\n"
    "        the write changes, old -> new, or #GP. A FIELD=VALUE list\n"
    "        starts from 0, as `softpmu encode` does; a VALUE wider than\n"
    "        its FIELD is a script error. An MSR the profile lacks is\n"
    "        accepted: the access raises #GP.\n"
    "    host-wrmsr MSR VALUE | FIELD=VALUE...\n"
    "        The same through the host (VMM) path: never #GP; a value the\n"
    "        host path refuses is reported with its error.\n"
    "    rdmsr MSR\n"
    "        RDMSR: the value and its non-zero fields, or #GP.\n"
    "    rdpmc ECX [cpl=N] [pce=0|1]\n"
    "        RDPMC at CPL N (default 0) with CR4.PCE (default 0).\n"
    "    deliver LINE... [cpl=N] [x COUNT] [tx] [enclave] [smm] [ia32e]\n"
    "            [mem=ADDR [lat=N] [src=N] [store]] [branch=FROM->TO [predicted]]\n"
    "        One clock, or COUNT identical clocks, at CPL N (default 3) in\n"
    "        which each event LINE happens: EVENT/UMASK[:COUNT] such as\n"
    "        0xc0/0x00:3, or an architectural event (SDM Table 18-1) by\n"
    "        name[:COUNT]: cycles, instructions, ref-cycles,\n"
    "        llc-references, llc-misses, branches, branch-misses,\n"
    "        topdown-slots, or the SDM name with dashes\n"
    "        (unhalted-core-cycles). ref-cycles and topdown-slots also\n"
    "        reach fixed counters 2 and 3. tx, enclave and smm mark the\n"
    "        clocks as in a transaction, an SGX enclave or SMM; ia32e as\n"
    "        in IA-32e mode (the 64-bit DS layout even without DTES64).\n"
    "        mem=ADDR gives each clock's instruction a memory access at\n"
    "        linear address ADDR: a load of lat=N cycles (for load\n"
    "        latency) from data source src=N, or with store a store (src=\n"
    "        its status), which a PEBS record reports. branch=FROM->TO\n"
    "        gives it a taken branch, a predicted one with predicted, for\n"
    "        the branch trace store.\n"
    "    memory BASE SIZE\n"
    "        A window of guest linear memory: SIZE bytes (up to 16 MiB)\n"
    "        from address BASE, zero-filled, there from this statement on.\n"
    "        The model reads and writes the DS save area and the PEBS and\n"
    "        BTS buffers in it; an access outside every window fails, and\n"
    "        the record is lost.\n"
    "    poke ADDR VALUE [size=1|2|4|8]\n"
    "        Write VALUE in size bytes (default 8), little-endian, at ADDR\n"
    "        of a window declared above: to set up the DS save area.\n"
    "    state REGISTER=VALUE...\n"
    "        The machine state a PEBS record of this logical processor\n"
    "        holds from now on, all zero but what is named: rip (the\n"
    "        eventing instruction), next (the one after it), rflags, tsc,\n"
    "        rax, rbx, rcx, rdx, rsi, rdi, rbp, rsp, r8-r15.\n"
    "    signal topa|uncore|condchgd\n"
    "        The host reports a full ToPA region, an uncore counter\n"
    "        overflow or a changed PMU condition (IA32_PERF_GLOBAL_STATUS\n"
    "        bits 55, 61 and 63).\n"
    "    reset-pmis\n"
    "        Count this logical processor's PMIs from 0 again.\n"
    "    expect MSR == VALUE\n"
    "    expect MSR.FIELD == VALUE\n"
    "    expect rdpmc ECX == VALUE\n"
    "    expect pmis == N\n"
    "    expect pebs-records == N | bts-records == N | lost == N\n"
    "    expect mem ADDR == VALUE [size=1|2|4|8]\n"
    "    expect fault | expect ok\n"
    "        Check an MSR or one field of it, a counter through RDPMC at\n"
    "        CPL 0, the PMIs this logical processor requested since the\n"
    "        start or reset-pmis, the PEBS records it wrote, the branch\n"
    "        records it stored and the PEBS records it lost since the\n"
    "        start, size bytes of memory (default 8), or whether the last\n"
    "        wrmsr, host-wrmsr, rdmsr or rdpmc faulted (for host-wrmsr: was\n"
    "        refused). Checks change nothing. The first that fails ends\n"
    "        the run.\n",
  .options =
    "    --json\n"
    "        Print the trace as one JSON object per line, each with the\n"
    "        script line, the logical processor and an \"op\": cpu, wrmsr,\n"
    "        host-wrmsr, rdmsr, rdpmc, deliver, overflow, pmi, freeze,\n"
    "        signal, memory, poke, state, pebs, pebs-lost, bts, bts-lost,\n"
    "        expect (a failure) and end. 64-bit values are \"0x...\"\n"
    "        strings.\n"
    "\n"
    "    --svg FILE\n"
    "        Also draw the run as an SVG timeline in FILE: the value of\n"
    "        each counter that was enabled over the clocks (signed within\n"
    "        its width, so a sampling counter climbs to 0), its overflows,\n"
    "        the PMIs and the spans in which counters were frozen. Written\n"
    "        also when an expect fails.\n",
  .exit_status =
    "    0   Every expect held.\n"
    "    1   An expect failed: \"FILE:LINE: expect failed: ...\" on\n"
    "        standard error, with the expected and the actual value.\n"
    "    2   A script error, each reported as \"FILE:LINE:COL: message\"\n"
    "        before anything runs; bad usage; SCRIPT cannot be read or\n"
    "        the --svg FILE written.\n",
  .examples =
    "    softpmu run examples/scripts/pmi_freeze_v4.pmu\n"
    "        Skylake's streamlined freeze: the PMI sets CTR_Frz, the\n"
    "        handler unfreezes through IA32_PERF_GLOBAL_STATUS_RESET.\n"
    "\n"
    "    softpmu run --json examples/scripts/sampling.pmu | jq .op\n"
    "        The trace of a sampling run, as JSON.\n"
    "\n"
    "    softpmu run --svg sampling.svg examples/scripts/sampling.pmu\n"
    "        The same run, drawn.\n"
    "\n"
    "    softpmu run examples/scripts/pebs_format3.pmu\n"
    "        A PEBS assist on Skylake: the record, the counter reloaded\n"
    "        from the DS save area, OvfBuf and the PMI.\n"
    "\n"
    "    printf 'cpu core2\\nwrmsr IA32_PERF_GLOBAL_STATUS 0\\nexpect "
    "fault\\n' |\n"
    "    softpmu run -\n"
    "        GLOBAL_STATUS is read-only: WRMSR raises #GP.\n",
  .flags = CLI_FLAG_JSON | CLI_FLAG_SVG,
  .min_args = 1,
  .max_args = 1,
  .run = run_run,
};
/* clang-format on */

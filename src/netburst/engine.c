/* SPDX-License-Identifier: MIT */
/* The NetBurst counting engine (SDM Vol. 3B 18.15-18.16): ESCR
 * event selection and T0/T1 qualification, CCCR filtering, counting,
 * overflow, the delayed PMI, cascading, at-retirement tagging and PEBS on
 * IQ_COUNTER4/5.
 *
 * The registers live in the core's shared file (struct spmu_nb_regs); the
 * ESCRs and the CCCRs' ESCR selection are decoded into struct spmu_nb when
 * a register changes. A delivered clock is one clock of the counters'
 * logic, seen with the delivering logical processor's events and CPL
 * (decisions.md, NetBurst).
 *
 * Per counter and clock (SDM 18.15.3, the qualification order of 18.15.5):
 *  1. the selected ESCR's value: the sum of the lines its event select and
 *     mask select, each qualified by T0/T1 OS/USR for the delivering
 *     thread and CPL (either thread's bits for thread-independent mask
 *     bits, Tables 18-66 / 18-67), saturated at 15 (four input lines);
 *  2. COMPARE: the threshold output (value > THRESHOLD, or <= with
 *     COMPLEMENT), which adds 1; EDGE: only its false-to-true transitions;
 *     without COMPARE the value itself is added;
 *  3. the counter counts if ENABLE is set, or CASCADE is set and the
 *     alternate counter's OVF is set, or extended cascading (IQ CCCR bit
 *     11) and its source's OVF is set (18.15.5.6-7), and the active-thread
 *     field accepts the clock's set of active logical processors (18.16.2);
 *  4. an increment first delivers the PMIs owed from an earlier overflow
 *     (OVF_PMI_T0/T1: "the PMI is generated on the next event count after
 *     the counter has overflowed"), then adds; a wrap, or any increment
 *     with FORCE_OVF, sets OVF and owes the PMIs of the CCCR's OVF_PMI
 *     bits at the next increment.
 */
#include <string.h>

#include "core/engine.h"
#include "core/objects.h"
#include "core/pmi.h"
#include "ds/ds.h"
#include "softpmu/error.h"
#include "softpmu/netburst.h"

#define NCTR SPMU_NB_NCTR
#define CTR_MASK ((UINT64_C(1) << SPMU_NB_WIDTH) - 1)

/* uop_type (RAT ESCR, event select 02H): TAGLOADS / TAGSTORES, mask bits
 * 1 and 2 (Table 19-29), tag loads / stores for front-end tagging. */
#define UOP_TYPE_EVSEL 0x02
#define KIND_LOAD 0x01u /* spmu_nb_retire.kind: MATRIX_VERT numbering */
#define KIND_STORE 0x02u

/* The counter whose OVF starts counter n with CASCADE (SDM 18.15.2,
 * 18.15.5.6): the first counter of one pair and of the other pair of a
 * group start each other, likewise the second ones; 16 only from 14, 17
 * only from 15, and neither starts another. */
static const int8_t cascade_src[NCTR] = {2,  3, 0, 1,  6,  7,  4,  5,  10,
                                         11, 8, 9, 14, 15, 12, 13, 14, 15};
/* With extended cascading (IQ CCCR bit 11, Table 18-65): CASCNT4INTO0
 * 16 -> 12, CASCNT5INTO3 17 -> 15, CASCNT5INTO4 17 -> 16, CASCNT4INTO5
 * 16 -> 17. */
static const int8_t ext_src[NCTR] = {-1, -1, -1, -1, -1, -1, -1, -1, -1,
                                     -1, -1, -1, 16, -1, -1, 17, 17, 16};

/* ---- decoding the registers -------------------------------------------- */

/* Power-on: no edge state, no PMI owed, nothing armed. */
static void nb_reset(spmu_core *core)
{
  memset(&core->nb, 0, sizeof core->nb);
  memset(core->nb.sel, -1, sizeof core->nb.sel);
}

/* SDM 18.15.1 / 18.16.1: one ESCR. The one-thread layout's OS / USR bits
 * are the T0 bits of the Hyper-Threading layout. */
static void compile_escr(const struct spmu_applied *a, uint64_t v,
                         unsigned slot, struct spmu_nb_escr *e)
{
  const spmu_nb_event *ev;
  unsigned t0os = v >> 3 & 1, t0usr = v >> 2 & 1;
  unsigned t1os = v >> 1 & 1, t1usr = v & 1;

  memset(e, 0, sizeof *e);
  if (!a->nb_escr_addr[slot])
    return;
  e->unit = (uint8_t)(slot / 2 + 1);
  e->evsel = (uint8_t)(v >> 25 & 0x3f);
  e->mask = (uint16_t)(v >> 9);
  ev = spmu_nb_event_of(e->unit, e->evsel);
  e->ti = ev ? ev->ti : 0;
  /* Table 18-66: a thread-specific event of thread t counts when t's bit
   * for the CPL is set. Table 18-67: a thread-independent one when either
   * thread's bit for the CPL is set. */
  e->ts_ok = (uint8_t)(t0os | t0usr << 1 | t1os << 2 | t1usr << 3);
  e->ti_ok = (uint8_t)((t0os | t1os) | (t0usr | t1usr) << 1);
  e->tag = (v >> 4 & 1) ? (uint8_t)(v >> 5 & 0xf) : 0;
}

/* Decode the registers of core into its engine state. */
static void nb_compile(spmu_core *core)
{
  const struct spmu_applied *a = &core->a;
  const struct spmu_nb_regs *r = &core->nb_regs;
  struct spmu_nb *nb = &core->nb;
  uint32_t ovf = 0;
  unsigned i;

  for (i = 0; i < SPMU_NB_NESCR; i++)
    compile_escr(a, r->escr[i], i, &nb->escr[i]);
  for (i = 0; i < NCTR; i++) {
    unsigned s = (unsigned)(r->cccr[i] >> SPMU_NB_CCCR_SELECT_SHIFT) & 7;
    nb->sel[i] = a->nb_escr_for[i][s];
    if (r->cccr[i] & SPMU_NB_CCCR_OVF)
      ovf |= UINT32_C(1) << i;
  }
  /* An owed PMI is dropped when software clears OVF before the counter's
   * next increment (decisions.md, NetBurst). */
  nb->pend[0] &= ovf;
  nb->pend[1] &= ovf;
  core->stale = 0;
}

/* ---- one call ------------------------------------------------------------ */

struct call {
  spmu_core *core;
  spmu_lp *lp;
  const spmu_clock *clk;
  /* The registers and engine state the call works on: the core's, or
   * copies for spmu_deadline's dry run. */
  struct spmu_nb_regs *r;
  struct spmu_nb *nb;
  bool dry;          /* a dry run: no memory access, no PMI request */
  bool due;          /* dry run: stopped where an assist or a branch
                        record is due */
  unsigned t;        /* the delivering thread */
  unsigned u;        /* CPL class: 0 CPL 0, 1 CPL > 0 */
  uint8_t val[NCTR]; /* the selected ESCR's value per counter (0-15) */
  uint32_t act;      /* counters with an input (a present ESCR selected,
                        with an event) that the active-thread field lets
                        count */
  uint32_t pmi;      /* threads with a PMI requested in the last clock */
  unsigned ticks;
  bool stop;
};

static bool qualifies(const struct spmu_nb_escr *e, unsigned bit, unsigned t,
                      unsigned u)
{
  if (e->ti >> bit & 1)
    return e->ti_ok >> u & 1;
  return e->ts_ok >> (2 * t + u) & 1;
}

/* SDM 18.15.6.2, Table 19-31: front-end tagging by uop_type's TAGLOADS /
 * TAGSTORES. */
static bool fe_tagged(const struct call *c, const spmu_nb_retire *g)
{
  const struct spmu_nb *nb = c->nb;
  unsigned i;

  for (i = 0; i < SPMU_NB_NESCR; i++) {
    const struct spmu_nb_escr *e = &nb->escr[i];
    bool hit = ((e->mask >> 1 & 1) && (g->kind & KIND_LOAD)) ||
               ((e->mask >> 2 & 1) && (g->kind & KIND_STORE));
    if (e->unit == SPMU_NB_RAT && e->evsel == UOP_TYPE_EVSEL && hit &&
        qualifies(e, (g->kind & KIND_LOAD) ? 1 : 2, c->t, c->u))
      return true;
  }
  return false;
}

/* SDM 18.15.6.3: an upstream ESCR with TAG_ENABLE that counts the uops'
 * execution event ORs its TAG_VALUE into their tag bits. */
static unsigned exec_tags(const struct call *c, const spmu_nb_retire *g)
{
  const struct spmu_nb *nb = c->nb;
  unsigned i, tags = 0;

  if (g->exec_unit == SPMU_NB_UNIT_NONE || g->exec_bit >= 16)
    return 0;
  for (i = 0; i < SPMU_NB_NESCR; i++) {
    const struct spmu_nb_escr *e = &nb->escr[i];
    if (e->tag && e->unit == g->exec_unit && e->evsel == g->exec_evsel &&
        (e->mask >> g->exec_bit & 1) && qualifies(e, g->exec_bit, c->t, c->u))
      tags |= e->tag;
  }
  return tags;
}

/* SDM 18.15.6.4, Table 19-33: replay tagging needs UOP_TAG, a metric bit
 * of MSR_PEBS_ENABLE the uops met, and their type in MATRIX_VERT. */
static bool replay_tagged(const struct call *c, const spmu_nb_retire *g)
{
  const struct spmu_nb_regs *r = c->r;

  return (r->pebs_enable & SPMU_NB_PEBS_UOP_TAG) &&
         (g->replay & r->pebs_enable & SPMU_NB_PEBS_METRIC) &&
         (g->kind & r->pebs_matrix_vert);
}

/* What retiring uops g add to ESCR e's at-retirement event (Table 19-29):
 * instr_retired and uops_retired on CRU_ESCR0/1, front_end_event,
 * replay_event and execution_event on CRU_ESCR2/3. */
static uint64_t retire_count(const struct call *c, const struct spmu_nb_escr *e,
                             const spmu_nb_retire *g)
{
  unsigned b = g->bogus ? 1 : 0;

  if (e->unit == SPMU_NB_CRU0 && e->evsel == 0x02) {
    /* NBOGUSNTAG, NBOGUSTAG, BOGUSNTAG, BOGUSTAG */
    unsigned bit = 2 * b + (fe_tagged(c, g) ? 1 : 0);
    return (e->mask >> bit & 1) && qualifies(e, bit, c->t, c->u) ? g->instrs
                                                                 : 0;
  }
  if (e->unit == SPMU_NB_CRU0 && e->evsel == 0x01)
    return (e->mask >> b & 1) && qualifies(e, b, c->t, c->u) ? g->uops : 0;
  if (e->unit != SPMU_NB_CRU2)
    return 0;
  if (e->evsel == 0x08 && fe_tagged(c, g))
    return (e->mask >> b & 1) && qualifies(e, b, c->t, c->u) ? g->uops : 0;
  if (e->evsel == 0x09 && replay_tagged(c, g))
    return (e->mask >> b & 1) && qualifies(e, b, c->t, c->u) ? g->uops : 0;
  if (e->evsel == 0x0C) {
    /* NBOGUS0-3 / BOGUS0-3: one count per uop carrying any selected tag
     * bit (18.15.6.3). */
    unsigned sel = (unsigned)(e->mask >> (4 * b)) & 0xf;
    unsigned bit = 4 * b + (unsigned)__builtin_ctz(sel | 0x10);
    return (sel & exec_tags(c, g)) && qualifies(e, bit, c->t, c->u) ? g->uops
                                                                    : 0;
  }
  return 0;
}

/* SDM 18.15.5.2: the ESCR's value in this clock, 0-15. */
static uint8_t escr_value(const struct call *c, const struct spmu_nb_escr *e)
{
  const spmu_clock *clk = c->clk;
  uint64_t sum = 0;
  size_t i;

  for (i = 0; i < clk->nb_nlines && sum < 15; i++) {
    const spmu_nb_line *l = &clk->nb_lines[i];
    if (l->unit == e->unit && l->evsel == e->evsel && l->bit < 16 &&
        (e->mask >> l->bit & 1) && qualifies(e, l->bit, c->t, c->u))
      sum += l->count;
  }
  for (i = 0; i < clk->nretire && sum < 15; i++)
    sum += retire_count(c, e, &clk->retire[i]);
  return (uint8_t)(sum > 15 ? 15 : sum);
}

/* SDM 18.16.2: the active-thread field against the clock's active logical
 * processors (00 none, 01 exactly one, 10 both, 11 at least one). */
static bool active_ok(uint64_t cccr, unsigned nactive)
{
  switch ((cccr >> SPMU_NB_CCCR_ACTIVE_SHIFT) & 3) {
  case 0:
    return nactive == 0;
  case 1:
    return nactive == 1;
  case 2:
    return nactive == 2;
  default:
    return nactive >= 1;
  }
}

/* Does counter n get an input: its CCCR selects an ESCR that feeds it
 * (Table 18-63; otherwise it counts nothing) and that ESCR selects an
 * event (18.15.5.9: with no_event, event select 0, the counter "may" be
 * powered down; softpmu always powers it down, decisions.md NetBurst). */
static bool has_input(const struct spmu_nb *nb, unsigned n)
{
  return nb->sel[n] >= 0 && nb->escr[nb->sel[n]].evsel != 0;
}

/* What stays the same in every clock of the call: the ESCR values and the
 * active-thread filter. */
static void prepare(struct call *c)
{
  const struct spmu_nb *nb = c->nb;
  unsigned n, lps = (1u << c->core->nlp) - 1;
  unsigned nactive = spmu_popcount(lps & ~(unsigned)c->clk->inactive);
  uint8_t cache[SPMU_NB_NESCR];
  uint64_t done = 0;

  for (n = 0; n < NCTR; n++) {
    int s = nb->sel[n];
    c->val[n] = 0;
    if (!has_input(nb, n))
      continue;
    if (!(done >> s & 1)) {
      cache[s] = escr_value(c, &nb->escr[s]);
      done |= UINT64_C(1) << s;
    }
    c->val[n] = cache[s];
    if (active_ok(c->r->cccr[n], nactive))
      c->act |= UINT32_C(1) << n;
  }
}

static bool ovf_set(const struct spmu_nb_regs *r, int n)
{
  return n >= 0 && (r->cccr[n] & SPMU_NB_CCCR_OVF);
}

/* SDM 18.15.5.3, 18.15.5.6-7: counting is on by ENABLE, or by CASCADE /
 * extended cascading while the starting counter's OVF is set (clearing
 * either halts it, 18.15.5.5). */
static uint32_t started(const struct spmu_nb_regs *r)
{
  uint32_t on = 0;
  unsigned n;

  for (n = 0; n < NCTR; n++) {
    uint64_t cc = r->cccr[n];
    if ((cc & SPMU_NB_CCCR_ENABLE) ||
        ((cc & SPMU_NB_CCCR_CASCADE) && ovf_set(r, cascade_src[n])) ||
        ((cc & SPMU_NB_CCCR_EXT_CASCADE) && ovf_set(r, ext_src[n])))
      on |= UINT32_C(1) << n;
  }
  return on;
}

/* SDM 18.15.3 / 18.16.2: the threads an overflow of a counter with CCCR
 * cc interrupts (OVF_PMI is OVF_PMI_T0's bit without Hyper-Threading). */
static unsigned pmi_threads(uint64_t cc)
{
  return (unsigned)(cc >> 26 & 3);
}

/* SDM 18.15.7, 18.16.3: thread t's PEBS counter is IQ_COUNTER4 (16) for
 * thread 0 and IQ_COUNTER5 (17) for thread 1. */
static int pebs_thread(unsigned n)
{
  return n == 16 ? 0 : n == 17 ? 1 : -1;
}

/* Does an overflow of counter n arm PEBS: its thread's ENABLE_PEBS bit
 * and a PEBS-capable event (front_end_event, execution_event,
 * replay_event) on its ESCR. */
static bool pebs_armable(const struct call *c, unsigned n)
{
  int t = pebs_thread(n), s = c->nb->sel[n];
  const spmu_nb_event *ev;

  if (t < 0 || (unsigned)t >= c->core->nlp || s < 0 ||
      !(c->r->pebs_enable & (SPMU_NB_PEBS_T0 << t)))
    return false;
  ev = spmu_nb_event_of(c->nb->escr[s].unit, c->nb->escr[s].evsel);
  return ev && (ev->flags & SPMU_NB_EV_PEBS);
}

/* SDM 18.15.3: the count a clock adds, from the value v and the threshold
 * state. Updates counter n's edge bit. */
static unsigned filter(struct spmu_nb *nb, unsigned n, uint64_t cc, unsigned v)
{
  bool prev = nb->edge >> n & 1, pass;
  unsigned thr = (unsigned)(cc >> SPMU_NB_CCCR_THRESHOLD_SHIFT) & 0xf;

  if (!(cc & SPMU_NB_CCCR_COMPARE)) {
    pass = v != 0;
  } else {
    pass = (cc & SPMU_NB_CCCR_COMPLEMENT) ? v <= thr : v > thr;
  }
  nb->edge = (nb->edge & ~(UINT32_C(1) << n)) | (uint32_t)pass << n;
  if (!(cc & SPMU_NB_CCCR_COMPARE))
    return v;
  if (cc & SPMU_NB_CCCR_EDGE)
    return pass && !prev;
  return pass;
}

/* An overflow of counter n (a wrap, or FORCE_OVF) that held old before
 * the clock: OVF, the owed PMIs, PEBS arming (into *arm). With an event
 * callback it is reported and ends the call. */
static void overflow(struct call *c, unsigned n, uint64_t old, uint8_t *arm)
{
  struct spmu_nb_regs *r = c->r;
  struct spmu_nb *nb = c->nb;
  unsigned th = pmi_threads(r->cccr[n]), t;

  if (spmu_reporting(c->core)) {
    /* A clock adds at most 15 (SDM 18.15.5.2) to a 40-bit counter: one
     * wrap at most; none for a FORCE_OVF overflow (18.15.5.8). */
    spmu_emit_ctr(c->lp, SPMU_EV_OVERFLOW, n, old, r->ctr[n], r->ctr[n] < old);
    c->ticks |= SPMU_TICK_OVERFLOW;
    c->stop = true;
  }
  r->cccr[n] |= SPMU_NB_CCCR_OVF;
  for (t = 0; t < 2; t++)
    if (th >> t & 1)
      nb->pend[t] |= UINT32_C(1) << n;
  if (pebs_armable(c, n))
    *arm |= (uint8_t)(1u << pebs_thread(n));
}

/* The PEBS assist of the delivering thread (SDM 18.15.7): the record
 * through the DS code, then the counter reloaded from the DS area's reset
 * value; the threshold raises a PMI. The counter is disarmed whatever the
 * outcome (decisions.md #28). A dry run stops here without it. */
static void assist(struct call *c)
{
  unsigned n = 16 + c->t, ticks;
  uint64_t reset = 0;
  bool threshold = false;

  c->nb->armed &= (uint8_t)(~(1u << c->t));
  c->stop = true;
  if (c->dry) {
    c->due = true;
    return;
  }
  ticks = spmu_nb_pebs_assist(c->lp, c->clk, n, &reset, &threshold);
  if (ticks == SPMU_TICK_PEBS) {
    uint64_t old = c->r->ctr[n];
    c->r->ctr[n] = reset & CTR_MASK;
    if (spmu_reporting(c->core))
      spmu_emit_ctr(c->lp, SPMU_EV_RELOAD, n, old, c->r->ctr[n], 0);
  }
  if (threshold) {
    spmu_buffer_threshold(c->lp, true);
    c->pmi |= 1u << c->t;
  }
  c->ticks |= ticks;
}

/* The branch trace store (SDM 17.4.5, 17.11.1), as for the architectural
 * PMU: a record per taken branch, and delivery stops after it. */
static void branch_store(struct call *c)
{
  bool threshold = false;

  if (!spmu_bts_stores(c->lp, c->clk))
    return;
  c->stop = true;
  if (c->dry) {
    c->due = true;
    return;
  }
  c->ticks |= spmu_bts_store(c->lp, c->clk, &threshold);
  if (threshold) {
    spmu_buffer_threshold(c->lp, false);
    c->pmi |= 1u << c->t;
  }
}

/* One clock. */
static void one_clock(struct call *c)
{
  struct spmu_nb_regs *r = c->r;
  struct spmu_nb *nb = c->nb;
  uint32_t on = started(r) & c->act;
  uint8_t arm = 0;
  bool due = false;
  unsigned n, t;

  c->pmi = 0;
  for (n = 0; n < NCTR; n++) {
    uint64_t cc = r->cccr[n], sum, old;
    unsigned inc;

    if (!has_input(nb, n))
      continue;
    inc = filter(nb, n, cc, c->val[n]);
    if (!(on >> n & 1) || !inc)
      continue;
    for (t = 0; t < 2; t++)
      if (nb->pend[t] >> n & 1) {
        nb->pend[t] &= ~(UINT32_C(1) << n);
        c->pmi |= 1u << t;
        if (t < c->core->nlp && !c->dry)
          spmu_request_pmi(&c->core->lp[t]);
      }
    if (pebs_thread(n) == (int)c->t && (nb->armed >> c->t & 1))
      due = true;
    old = r->ctr[n];
    sum = old + inc;
    r->ctr[n] = sum & CTR_MASK;
    if (sum > CTR_MASK || (cc & SPMU_NB_CCCR_FORCE_OVF))
      overflow(c, n, old, &arm);
  }
  if (due)
    assist(c);
  nb->armed |= arm;
  if (c->clk->branch)
    branch_store(c);
  if (c->pmi || (c->ticks & SPMU_TICK_MEM_FAULT))
    c->stop = true;
}

/* Clocks (>= 1) until a counter at val wraps adding inc > 0 per clock. */
static uint64_t clocks_to_wrap(uint64_t val, uint64_t inc)
{
  return (CTR_MASK - val) / inc + 1;
}

/* After a clock computed alone: what every counter adds in each further
 * identical clock (inc), and how many of them can be added in closed form
 * before one must be computed alone: a pending PMI or PEBS assist, or an
 * overflow that changes state (OVF from 0 to 1, owed PMIs, PEBS arming).
 * Overflows that change nothing (OVF already set, no OVF_PMI, nothing to
 * arm) are free. With EDGE the threshold output of identical clocks does
 * not rise again. */
static uint64_t steady(const struct call *c, uint8_t inc[NCTR])
{
  const struct spmu_nb_regs *r = c->r;
  const struct spmu_nb *nb = c->nb;
  uint32_t on = started(r) & c->act;
  uint64_t limit = UINT64_MAX;
  unsigned n;

  for (n = 0; n < NCTR; n++) {
    uint64_t cc = r->cccr[n];
    bool pass = nb->edge >> n & 1, quiet;
    int t = pebs_thread(n);

    inc[n] = 0;
    if (!(on >> n & 1))
      continue;
    if (!(cc & SPMU_NB_CCCR_COMPARE))
      inc[n] = c->val[n];
    else
      inc[n] = pass && !(cc & SPMU_NB_CCCR_EDGE);
    if (!inc[n])
      continue;
    if ((nb->pend[0] | nb->pend[1]) >> n & 1)
      return 0;
    if (t == (int)c->t && (nb->armed >> t & 1))
      return 0;
    /* With an event callback no overflow is free: each is reported. */
    quiet = !spmu_reporting(c->core) && (cc & SPMU_NB_CCCR_OVF) &&
            !pmi_threads(cc) && !(pebs_armable(c, n) && !(nb->armed >> t & 1));
    if (quiet)
      continue;
    if (cc & SPMU_NB_CCCR_FORCE_OVF)
      return 0;
    if (clocks_to_wrap(r->ctr[n], inc[n]) - 1 < limit)
      limit = clocks_to_wrap(r->ctr[n], inc[n]) - 1;
  }
  return limit;
}

/* Add k clocks of inc in closed form (no state change but the counts). */
static void commit(struct call *c, const uint8_t inc[NCTR], uint64_t k)
{
  struct spmu_nb_regs *r = c->r;
  unsigned n;

  /* 2^40 divides 2^64: k modulo 2^40 times at most 15 fits in 64 bits. */
  for (n = 0; n < NCTR; n++)
    if (inc[n])
      r->ctr[n] = (r->ctr[n] + (k & CTR_MASK) * inc[n]) & CTR_MASK;
}

/* The core has checked clk and its CPL; the engine reads its NetBurst
 * lines and retiring uops. */
static bool clock_ok(const spmu_clock *clk)
{
  return (!clk->nb_nlines || clk->nb_lines) && (!clk->nretire || clk->retire);
}

/* Run up to `clocks` clocks (the call's state set up): each clock that can
 * change state is computed alone, the others in closed form. Returns the
 * clocks consumed. */
static uint64_t run(struct call *c, uint64_t clocks)
{
  uint64_t done = 0;

  prepare(c);
  for (;;) {
    uint8_t inc[NCTR];
    uint64_t k;

    c->core->clock = done + 1;
    one_clock(c);
    done++;
    if (c->stop || done == clocks)
      break;
    k = steady(c, inc);
    if (k > clocks - done)
      k = clocks - done;
    commit(c, inc, k);
    done += k;
    if (done == clocks)
      break;
  }
  c->core->clock = 0;
  return done;
}

static void call_init(struct call *c, spmu_lp *lp, const spmu_clock *clk)
{
  memset(c, 0, sizeof *c);
  c->core = lp->core;
  c->lp = lp;
  c->clk = clk;
  c->r = &lp->core->nb_regs;
  c->nb = &lp->core->nb;
  c->t = lp->index;
  c->u = clk->cpl != 0;
}

static int nb_deliver(spmu_lp *lp, const spmu_clock *clk, uint64_t clocks,
                      uint64_t *consumed)
{
  struct call c;
  uint64_t done;

  if (!clock_ok(clk))
    return SPMU_EINVAL;
  call_init(&c, lp, clk);
  done = run(&c, clocks);
  if (consumed)
    *consumed = done;
  /* The PMIs are reported at the call's last clock, which requested
   * them. */
  spmu_raise_pmis(c.core, lp, done);
  return (c.pmi ? SPMU_TICK_PMI : 0) | (int)c.ticks;
}

/* The clocks until the next PMI request or PEBS assist (or 1 for a branch
 * record), by a dry run on copies of the registers and the engine state:
 * the same steps as nb_deliver, so the answer is exact. */
static int nb_deadline(spmu_lp *lp, const spmu_clock *clk, uint64_t *clocks)
{
  struct spmu_nb_regs r = lp->core->nb_regs;
  struct spmu_nb nb = lp->core->nb;
  struct call c;
  uint64_t done;

  if (!clock_ok(clk))
    return SPMU_EINVAL;
  call_init(&c, lp, clk);
  c.r = &r;
  c.nb = &nb;
  c.dry = true;
  done = run(&c, UINT64_MAX);
  *clocks = c.pmi || c.due ? done : SPMU_DEADLINE_NEVER;
  return SPMU_OK;
}

int spmu_deliver_netburst(spmu_lp *lp, const spmu_nb_clock *clk,
                          uint64_t clocks, uint64_t *consumed)
{
  spmu_clock full;

  if (consumed)
    *consumed = 0;
  if (!lp || !clk || !(lp->core->a.caps & CAP(NETBURST)))
    return SPMU_EINVAL;
  full = (spmu_clock){.cpl = clk->cpl,
                      .flags = clk->flags,
                      .inactive = clk->inactive,
                      .branch = clk->branch,
                      .nb_lines = clk->lines,
                      .nb_nlines = clk->nlines,
                      .retire = clk->retire,
                      .nretire = clk->nretire};
  return spmu_deliver(lp, &full, clocks, consumed);
}

/* ---- RDPMC and the snapshot words --------------------------------------- */

/* SDM Vol. 2B RDPMC, NetBurst: ECX[30:0] is the counter (0-17), ECX[31]
 * the fast read: EAX = bits 31:0, EDX = 0; else EDX:EAX = the 40 bits. */
static int nb_rdpmc(spmu_lp *lp, uint32_t ecx, uint64_t *value)
{
  uint32_t idx = ecx & 0x7fffffffu;

  if (idx >= NCTR)
    return SPMU_GP;
  *value = lp->core->nb_regs.ctr[idx];
  if (ecx & 0x80000000u)
    *value &= 0xffffffffu;
  return SPMU_OK;
}

/* The snapshot words of logical processor t (core/snapshot.c): edge state
 * (thread 0 only) and bit n = PMI pending to t for counter n, bit 31 =
 * t's PEBS counter armed. */
#define ARMED_BIT 31

static void nb_save_words(const spmu_core *core, unsigned t, uint32_t *edge,
                          uint32_t *armed)
{
  const struct spmu_nb *nb = &core->nb;

  *edge = t == 0 ? nb->edge : 0;
  *armed = (t < 2 ? nb->pend[t] : 0) | (uint32_t)(t < 2 && (nb->armed >> t & 1))
                                           << ARMED_BIT;
}

static bool nb_words_valid(const spmu_core *core, unsigned t, uint32_t edge,
                           uint32_t armed)
{
  uint32_t ctrs = (UINT32_C(1) << NCTR) - 1;

  (void)core;
  if (t > 0 && edge)
    return false;
  return !(edge & ~ctrs) && !(armed & ~(ctrs | UINT32_C(1) << ARMED_BIT));
}

static void nb_load_words(spmu_core *core, unsigned t, uint32_t edge,
                          uint32_t armed)
{
  struct spmu_nb *nb = &core->nb;

  if (t == 0)
    nb->edge = edge;
  if (t >= 2)
    return;
  nb->pend[t] = armed & ~(UINT32_C(1) << ARMED_BIT);
  nb->armed =
      (uint8_t)((nb->armed & ~(1u << t)) | (armed >> ARMED_BIT & 1) << t);
}

const struct spmu_engine spmu_engine_netburst = {
    .reset = nb_reset,
    .rdpmc = nb_rdpmc,
    .rebuild = nb_compile,
    .deliver = nb_deliver,
    .deadline = nb_deadline,
    .save_words = nb_save_words,
    .words_valid = nb_words_valid,
    .load_words = nb_load_words,
};

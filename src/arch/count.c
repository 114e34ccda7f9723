/* SPDX-License-Identifier: MIT */
/* The counting engine: event lines in, counter increments, overflow,
 * PMI requests and freeze out (SDM 18.2.1-18.2.4).
 *
 * Each logical processor keeps a compiled view of its counters (struct
 * spmu_prog): the line each one counts, at which CPLs, with which CMASK,
 * INV, E, INT and AnyThread settings, and whether EN and GLOBAL_CTRL enable
 * it. It is rebuilt only after a register write (spmu_lp_touch), so a clock
 * costs one pass over the counters.
 *
 * A delivery of K identical clocks is the first clock, computed alone
 * (edge detection may fire there), then K-1 clocks in which every counter
 * gains the same amount per clock. Those are added in closed form, stopping
 * at the first clock where a counter that requests a PMI wraps. The result
 * is bit-identical to K single clocks (tests/test_count.c checks it).
 *
 * Two paths share these rules. The plain path (plain_clock, plain_run)
 * serves the common case: every counter enabled and counting raw
 * increments, no other thread's AnyThread counters, no PEBS assist, branch
 * record, SMM or enclave clock. The general path (deliver: step, run)
 * serves everything, and the tests hold the two to the same results.
 *
 * AnyThread (SDM 18.2.3): a counter with ANY set counts the events of every
 * logical processor of the core, "including matching the thread's CPL with
 * the OS/USR setting" of the counter. A clock delivered to one logical
 * processor is therefore also a clock of every AnyThread counter of the
 * other logical processors, seen with the delivering thread's CPL; the
 * increments of the threads add up (docs/decisions.md #22).
 */
#include <stddef.h>
#include <string.h>

#include "arch/arch.h"
#include "core/msr.h"
#include "core/objects.h"
#include "core/pmi.h"
#include "ds/ds.h"
#include "lbr/lbr.h"
#include "softpmu/error.h"

/* SDM 18.2.4.1: on v4+ CTR_Frz is a read-only enable of every
 * counter. SDM 17.4.8 / 18.8: FREEZE_WHILE_SMM stops counting in SMM. */
static bool frozen_by_pmi(const struct spmu_applied *a,
                          const struct spmu_regs *r)
{
  return a->prof.version >= 4 && (r->global_status & SPMU_STATUS_CTR_FRZ);
}

static bool frozen(const struct spmu_applied *a, const struct spmu_regs *r,
                   const spmu_clock *clk)
{
  return frozen_by_pmi(a, r) ||
         ((clk->flags & SPMU_CLK_SMM) &&
          (r->debugctl & SPMU_DEBUGCTL_FREEZE_WHILE_SMM));
}

/* The line a fixed counter counts (events.h; decisions.md #17). */
static uint16_t fixed_key(unsigned j)
{
  if (j == 0)
    return 0x00C0; /* INST_RETIRED.ANY */
  if (j == 1)
    return 0x003C; /* CPU_CLK_UNHALTED.THREAD */
  return (uint16_t)((j + 1) << 8);
}

/* Clock variants: bit 0 CPL > 0, bit 1 inside a transaction. */
#define VARIANTS 4

static inline unsigned clock_variant(const spmu_clock *clk)
{
  return (clk->cpl != 0) | ((clk->flags & SPMU_CLK_IN_TX) ? 2u : 0u);
}

/* spmu_event_line's event and umask, read as one uint16_t (line_sums):
 * the key of (event, umask) in this host's byte order. */
_Static_assert(offsetof(spmu_event_line, umask) ==
                   offsetof(spmu_event_line, event) + 1,
               "event and umask are adjacent");
static uint16_t native_key(uint16_t key)
{
  spmu_event_line l = {.event = (uint8_t)key, .umask = (uint8_t)(key >> 8)};
  uint16_t k;
  memcpy(&k, &l.event, sizeof k);
  return k;
}

/* Index of line `key` in p->keys, added if new. */
static uint8_t key_index(struct spmu_prog *p, uint16_t key)
{
  unsigned d = 0;
  key = native_key(key);
  while (d < p->nkeys && p->keys[d] != key)
    d++;
  if (d == p->nkeys)
    p->keys[p->nkeys++] = key;
  return (uint8_t)d;
}

/* Append an entry that counts line `key` in the clock variants of `seen`
 * (bit v = variant v) and is enabled in those of `en` (bit 0: CPL 0,
 * bit 1: CPL > 0). */
static void add_entry(struct spmu_prog *p, struct spmu_pe e, uint16_t key,
                      unsigned seen, unsigned en)
{
  unsigned v, k;

  if (e.flags & SPMU_PE_ANY && e.flags & SPMU_PE_GP)
    p->any_gp |= UINT32_C(1) << e.c;
  /* A counter that sees no line in any clock and has no CMASK/E logic
   * adds nothing and its condition is always false: it needs no entry,
   * since step() clears the edge bits of every GP counter it reaches. */
  if (!seen && !(e.flags & SPMU_PE_COND))
    return;
  k = p->n++;
  for (v = 0; v < VARIANTS; v++)
    e.raw_at[v] = (seen >> v & 1) ? key_index(p, key) : SPMU_KEY_ZERO;
  if (e.flags & SPMU_PE_ANY)
    p->any |= UINT32_C(1) << k;
  if (e.flags & SPMU_PE_EDGE)
    p->has_edge = true;
  if (e.flags & (SPMU_PE_COND | SPMU_PE_LL))
    p->derived |= UINT32_C(1) << k;
  if (e.flags & SPMU_PE_PMI)
    p->pmi_ctrs |= BIT64(e.c);
  if ((e.flags & SPMU_PE_PMI) || (p->pebs_ctrs >> e.c & 1))
    p->stop_entries |= UINT32_C(1) << k;
  for (v = 0; v < 2; v++)
    if (en >> v & 1)
      p->en_at[v] |= UINT32_C(1) << k;
  p->e[k] = e;
}

/* GP counter i (SDM 18.2.1.1, 18.2.2.2, 18.2.3, 18.11.5.1). */
static void add_gp(struct spmu_prog *p, const struct spmu_applied *a,
                   const struct spmu_regs *r, unsigned i)
{
  uint64_t sel = r->evtsel[i];
  struct spmu_pe e = {.c = (uint8_t)i,
                      .cmask = (uint8_t)(sel >> SPMU_EVTSEL_CMASK_SHIFT),
                      .flags = SPMU_PE_GP};
  /* OS counts at CPL 0 (variants 0, 2), USR at CPL > 0 (1, 3); IN_TX only
   * inside a transaction (variants 2, 3). */
  unsigned seen = ((sel & SPMU_EVTSEL_OS) ? 0x5u : 0) |
                  ((sel & SPMU_EVTSEL_USR) ? 0xAu : 0);
  if (sel & SPMU_EVTSEL_IN_TX)
    seen &= 0xCu;
  if (e.cmask || (sel & SPMU_EVTSEL_E))
    e.flags |= SPMU_PE_COND;
  if (sel & SPMU_EVTSEL_INT)
    e.flags |= SPMU_PE_PMI;
  if (sel & SPMU_EVTSEL_INV)
    e.flags |= SPMU_PE_INV;
  if (sel & SPMU_EVTSEL_E)
    e.flags |= SPMU_PE_EDGE;
  if (sel & SPMU_EVTSEL_ANY)
    e.flags |= SPMU_PE_ANY;
  /* SDM 18.6.1.2: with LL_EN (PEBS_ENABLE bit 32 + i, formats 1-3) the
   * counter counts only loads slower than the threshold. */
  if ((a->caps & CAP(PEBS_LL)) && (r->pebs_enable >> (32 + i) & 1))
    e.flags |= SPMU_PE_LL;
  /* PEBS (SDM 18.4.4, 18.6.1.1): PEBS_ENABLE bit i arms on overflow, for
   * an event without ANY, E or CMASK, or with INV and CMASK: the
   * total-cycles encodings (with INV the counter counts the cycles with
   * fewer than CMASK events, SDM Vol. 3B 18.2.1.1: every cycle when CMASK
   * exceeds the most a cycle can have) that Linux uses for precise
   * cycles, e.g. C0H/01H INV CMASK=16 (decisions.md #27). */
  /* SDM 18.9.4.3 (Sandy Bridge): PS_EN (bit 63) makes PMC3 a precise
   * store counter, a PEBS counter whose records carry the store's
   * address and status. */
  bool pebs = (r->pebs_enable >> i & 1) ||
              (i == 3 && (a->caps & CAP(PEBS_PS)) && (r->pebs_enable >> 63));
  if (pebs && !(sel & (SPMU_EVTSEL_ANY | SPMU_EVTSEL_E)) &&
      (sel & SPMU_EVTSEL_INV ? e.cmask != 0 : e.cmask == 0))
    p->pebs_ctrs |= UINT32_C(1) << i;
  /* EN & GLOBAL_CTRL bit (v2+) at every CPL; USR/OS only filter events.
   * CTR_Frz (v4+) and FREEZE_WHILE_SMM are per clock (frozen()). */
  add_entry(p, e, (uint16_t)(sel & 0xffff), seen,
            (sel & SPMU_EVTSEL_EN) &&
                    (a->prof.version < 2 || (r->global_ctrl >> i & 1))
                ? 3u
                : 0u);
}

/* The line-key hash: the top 6 bits of key * mult (multiplicative
 * hashing), a slot of p->slot. */
static inline unsigned key_slot(uint32_t mult, uint16_t key)
{
  return (uint32_t)(key * mult) >> 26;
}

/* Choose a multiplier that gives each of the program's keys its own slot
 * and fill the slot table; line_sums then finds a clock line's key in one
 * probe. With none of the candidates (many keys), hash_mult stays 0 and
 * line_sums compares every key. */
static void hash_keys(struct spmu_prog *p)
{
  uint32_t t, mult;
  unsigned d;

  _Static_assert(SPMU_KEY_SLOTS == 1u << 6, "key_slot gives 6 bits");
  memset(p->slot, SPMU_KEY_DUMP, sizeof p->slot);
  /* With one or two keys, comparing each line with them is quicker than
   * the probe's chain of dependent loads (bench_count). */
  if (p->nkeys <= 2)
    return;
  for (t = 0; t < 64; t++) {
    uint64_t used = 0;
    mult = UINT32_C(0x9E3779B1) * (2 * t + 1); /* odd multipliers */
    for (d = 0; d < p->nkeys; d++) {
      unsigned h = key_slot(mult, p->keys[d]);
      if (used >> h & 1)
        break;
      used |= UINT64_C(1) << h;
    }
    if (d == p->nkeys)
      break;
  }
  if (t == 64)
    return;
  p->hash_mult = mult;
  for (d = 0; d < p->nkeys; d++)
    p->slot[key_slot(mult, p->keys[d])] = (uint8_t)d;
}

static void rebuild(spmu_lp *lp)
{
  const struct spmu_applied *a = &lp->core->a;
  const struct spmu_regs *r = &lp->r;
  struct spmu_prog *p = &lp->prog;
  unsigned i;

  memset(p, 0, sizeof *p);
  /* Every GP counter, enabled or not: its CMASK/INV condition is tracked
   * on every clock (decisions.md #19). */
  for (i = 0; i < a->prof.gp; i++)
    add_gp(p, a, r, i);
  p->ngp = p->n;
  /* SDM 18.2.2.1: ENABLE bit 0 counts at CPL 0, bit 1 at CPL > 0, if the
   * GLOBAL_CTRL bit is set. A fixed counter that can never count has no
   * other state, so it gets no entry. */
  for (i = 0; i < SPMU_MAX_FIXED; i++) {
    unsigned ring = (unsigned)(r->fixed_ctr_ctrl >> (4 * i)) & 3;
    struct spmu_pe e = {.c = (uint8_t)SPMU_CTR_FIXED(i)};
    if (!(a->prof.fixed_mask >> i & 1) || !ring ||
        !(r->global_ctrl >> SPMU_GLOBAL_FIXED(i) & 1))
      continue;
    if (r->fixed_ctr_ctrl & SPMU_FIXED_PMI(i))
      e.flags |= SPMU_PE_PMI;
    if (r->fixed_ctr_ctrl & SPMU_FIXED_ANY(i))
      e.flags |= SPMU_PE_ANY;
    /* Fixed-counter PEBS exists only in the baseline layout (bit 32 + j). */
    else if ((a->caps & CAP(BASELINE)) &&
             (r->pebs_enable >> SPMU_GLOBAL_FIXED(i) & 1))
      p->pebs_ctrs |= UINT32_C(1) << e.c;
    add_entry(p, e, fixed_key(i), ring * 0x5u, ring);
  }
  hash_keys(p);
  /* With an event callback every overflow ends a batch and is reported
   * with its old value: the general path does that. */
  p->fast = !p->derived && !lp->core->host.event &&
            p->en_at[0] == (UINT32_C(1) << p->n) - 1 &&
            p->en_at[1] == p->en_at[0] && !frozen_by_pmi(a, r) &&
            a->gp_width_mask != UINT64_MAX && a->fixed_width_mask != UINT64_MAX;
}

uint32_t spmu_lp_edge(const spmu_lp *lp)
{
  const struct spmu_prog *p = &lp->prog;
  uint32_t keys = lp->edge_keys, edge = 0;
  unsigned v = keys >> SPMU_EDGE_VARIANT_SHIFT & 3, k;

  if (!(keys & SPMU_EDGE_PENDING))
    return lp->edge;
  /* Plain clocks: GP counter c's condition is "its line occurred"; a
   * filtered clock reads ZERO, whose bit is never set. A counter without
   * an entry saw no line. */
  for (k = 0; k < p->ngp; k++)
    edge |= (keys >> p->e[k].raw_at[v] & 1) << p->e[k].c;
  return edge;
}

/* Make lp->edge hold the edge state (before the program changes or
 * step() reads it). */
static void edge_settle(spmu_lp *lp)
{
  lp->edge = spmu_lp_edge(lp);
  lp->edge_keys = 0;
}

void spmu_arch_refresh(spmu_core *core)
{
  uint32_t s = core->stale;

  while (s) {
    unsigned i = spmu_ctz32(s);
    s &= s - 1;
    edge_settle(&core->lp[i]); /* derived through the old program */
    rebuild(&core->lp[i]);
    if (core->lp[i].prog.any || core->lp[i].prog.any_gp)
      core->any_lps |= UINT32_C(1) << i;
    else
      core->any_lps &= ~(UINT32_C(1) << i);
  }
  core->stale = 0;
}

/* One clock's effect on the counters of one logical processor. */
struct lpstep {
  spmu_lp *lp;
  uint32_t mask;           /* program entries this clock reaches */
  uint32_t gp;             /* GP counters among them (edge state bits) */
  uint32_t edge;           /* edge state after the clock */
  bool counted;            /* an enabled counter was reached (ASCI) */
  uint64_t wrapped;        /* counters that wrapped (bit c), after apply */
  uint64_t inc[SPMU_NCTR]; /* per entry */
};

/* The increment of each line the program counts, summed over the clock's
 * lines (a line may appear more than once); sums[SPMU_KEY_ZERO] is 0.
 * With nz, *nz gets bit d set when the sum of key d is nonzero (step()'s
 * condition of a counter without CMASK). */
static inline __attribute__((always_inline)) void
line_sums(const struct spmu_prog *p, const spmu_clock *clk, uint64_t *sums,
          uint32_t *nz)
{
  unsigned d, nkeys = p->nkeys;
  uint32_t seen = 0;
  size_t i;

  /* Only the program's keys are zeroed. The empty asm keeps the compiler
   * from turning the loop into a memset call or a rep stos, and a
   * constant-size memset (vector stores read back as scalars) stalls the
   * loads that follow: each costs more than the rest of the clock
   * (bench_count). */
  for (d = 0; d < nkeys; d++) {
    __asm__("" : "+r"(d));
    sums[d] = 0;
  }
  sums[SPMU_KEY_ZERO] = 0;
  sums[SPMU_KEY_DUMP] = 0;
  if (p->hash_mult) {
    /* Unrolled twice: the loop's own upkeep is a good part of a line's
     * cost here and in plain_clock (GCC and Clang read this pragma). */
#pragma GCC unroll 2
    for (i = 0; i < clk->nlines; i++) {
      /* event and umask as one load (native_key). One probe: the slot's
       * key, or DUMP for a line no counter counts (an empty slot holds
       * DUMP). */
      uint16_t key;
      memcpy(&key, &clk->lines[i].event, sizeof key);
      d = p->slot[key_slot(p->hash_mult, key)];
      d = p->keys[d] == key ? d : SPMU_KEY_DUMP;
      sums[d] += clk->lines[i].count;
    }
  } else {
    for (i = 0; i < clk->nlines; i++) {
      uint16_t key;
      memcpy(&key, &clk->lines[i].event, sizeof key);
      for (d = 0; d < nkeys && p->keys[d] != key; d++)
        ;
      sums[d < nkeys ? d : SPMU_KEY_DUMP] += clk->lines[i].count;
    }
  }
  if (nz) {
    for (d = 0; d < nkeys; d++)
      seen |= (uint32_t)(sums[d] != 0) << d;
    *nz = seen;
  }
}

/* SDM 18.2.1.1: what a counter adds in a clock whose raw count of its line
 * is raw; *cond gets the CMASK/INV condition (edge state), prev is the
 * condition of the previous clock. */
static inline __attribute__((always_inline)) uint64_t
count_of(const struct spmu_pe *e, uint64_t raw, bool prev, bool *cond)
{
  *cond = raw != 0;
  if (!(e->flags & SPMU_PE_COND))
    return raw;
  /* CMASK != 0: the clock passes when raw >= CMASK (< with INV).
   * CMASK = 0: the condition is "the event occurred", INV ignored. */
  if (e->cmask)
    *cond = (e->flags & SPMU_PE_INV) ? raw < e->cmask : raw >= e->cmask;
  /* E: count deasserted-to-asserted transitions of the condition. */
  if (e->flags & SPMU_PE_EDGE)
    return *cond && !prev;
  return *cond;
}

/* Add n * inc to *ctr within its width; true if it wrapped. */
static inline __attribute__((always_inline)) bool
advance(uint64_t *ctr, uint64_t inc, uint64_t n, uint64_t width)
{
  uint64_t old = *ctr, sum;

  if (n == 1) {
    /* 2^64 is a multiple of width + 1, so a uint64_t carry loses nothing
     * that the mask would keep. */
    sum = old + inc;
    *ctr = sum & width;
    return sum < old || sum > width;
  }
  if (!__builtin_mul_overflow(inc, n, &sum) &&
      !__builtin_add_overflow(sum, old, &sum)) {
    *ctr = sum & width;
    return sum > width;
  }
  {
    unsigned __int128 big = (unsigned __int128)inc * n + old;
    *ctr = (uint64_t)big & width;
    return big > width;
  }
}

static bool settle(struct lpstep *s, const spmu_clock *clk, uint64_t wrapped);

/* Compute one clock for the counters s reaches, from edge state edge_in:
 * s->inc, s->edge, s->counted. With apply, also add it to the counters and
 * settle overflow; returns true when a PMI is requested. The counters are
 * untouched otherwise. */
static inline __attribute__((always_inline)) bool
step(struct lpstep *s, const spmu_clock *clk, uint32_t edge_in, bool apply)
{
  spmu_lp *lp = s->lp;
  const struct spmu_applied *a = &lp->core->a;
  const struct spmu_prog *p = &lp->prog;
  unsigned user = clk->cpl != 0, k, variant = clock_variant(clk);
  uint32_t en = frozen(a, &lp->r, clk) ? 0 : p->en_at[user] & s->mask;
  uint32_t conds = 0, m;
  /* sums[SPMU_KEY_ZERO] is 0: filtered clocks read it. */
  uint64_t sums[SPMU_KEY_SUMS], wrapped = 0;
  bool ll = false;

  line_sums(p, clk, sums, NULL);
  /* SDM 18.6.1.2: a load-latency counter counts loads whose latency is
   * greater than the threshold (at least 3, decisions.md #10). */
  if (p->derived && clk->mem && !clk->mem->store) {
    uint64_t thr = lp->r.pebs_ld_lat & 0xffff;
    ll = clk->mem->latency > (thr < 3 ? 3 : thr);
  }
  /* Entries that add their raw count, without branches: no CMASK, E or
   * load latency, so the condition is "the event occurred". */
  for (m = s->mask & ~p->derived; m; m &= m - 1) {
    const struct spmu_pe *e = &p->e[k = spmu_ctz32(m)];
    uint64_t raw = sums[e->raw_at[variant]];
    uint64_t v = raw & (0 - (uint64_t)(en >> k & 1));
    conds |= (uint32_t)(raw != 0) << e->c;
    s->inc[k] = v;
    if (apply) {
      uint64_t *ctr = &lp->r.ctr[e->c], w = a->width_mask[e->c];
      uint64_t old = *ctr, sum = old + v;
      *ctr = sum & w;
      if (sum > w || sum < old)
        wrapped |= BIT64(e->c);
    }
  }
  /* CMASK / INV / E (SDM 18.2.1.1) and load latency (18.6.1.2). */
  for (m = s->mask & p->derived; m; m &= m - 1) {
    const struct spmu_pe *e = &p->e[k = spmu_ctz32(m)];
    bool cond;
    uint64_t raw = sums[e->raw_at[variant]], v;

    if ((e->flags & SPMU_PE_LL) && !ll)
      raw = 0;
    v = count_of(e, raw, edge_in >> e->c & 1, &cond);
    conds |= (uint32_t)cond << e->c;
    v = (en >> k & 1) ? v : 0;
    s->inc[k] = v;
    if (apply && v && advance(&lp->r.ctr[e->c], v, 1, a->width_mask[e->c]))
      wrapped |= BIT64(e->c);
  }
  /* Entries the clock does not reach (another thread's non-AnyThread
   * counters) add nothing. */
  for (m = ((UINT32_C(1) << p->n) - 1) & ~s->mask; m; m &= m - 1)
    s->inc[spmu_ctz32(m)] = 0;
  /* Only GP counters keep edge state (fixed counters' bits are >= 8). */
  s->edge = (edge_in & ~s->gp) | (conds & s->gp);
  s->counted = en != 0;
  return apply && settle(s, clk, wrapped);
}

/* Clocks (>= 1) until a counter at val wraps, adding inc > 0 per clock;
 * UINT64_MAX when that is 2^64 or more clocks away. */
static uint64_t clocks_to_wrap(uint64_t val, uint64_t inc, uint64_t width)
{
  uint64_t q = (width - val) / inc;
  return q == UINT64_MAX ? q : q + 1;
}

/* SDM 18.2.2.2: the counters in `wrapped` (bit c) set their GLOBAL_STATUS
 * bits (v2+), and a PMI is requested when one of them has INT (GP) or PMI
 * (fixed) set. True then. */
static bool overflowed(spmu_lp *lp, uint64_t wrapped)
{
  if (lp->core->a.prof.version >= 2)
    lp->r.global_status |= spmu_status_of(wrapped);
  if (!(wrapped & lp->prog.pmi_ctrs))
    return false;
  spmu_request_pmi(lp);
  return true;
}

/* SPMU_EV_OVERFLOW for each counter of s in `wrapped`, in counter order.
 * The wrap happened in the last clock of the step (a batch ends at the
 * first wrap when events are reported), so the count before that clock is
 * the count now less the clock's increment, modulo the width. */
static void report_overflows(const struct lpstep *s, uint64_t wrapped)
{
  spmu_lp *lp = s->lp;
  const struct spmu_prog *p = &lp->prog;
  unsigned k;

  for (k = 0; k < p->n; k++) {
    unsigned c = p->e[k].c;
    uint64_t w = lp->core->a.width_mask[c], old, wraps;
    if (!(wrapped >> c & 1))
      continue;
    old = (lp->r.ctr[c] - s->inc[k]) & w;
    /* old + inc passed the width this many times (a 64-bit counter at
     * most once: inc < 2^64). */
    wraps = w == UINT64_MAX
                ? 1
                : (s->inc[k] >> spmu_popcount(w)) + ((s->inc[k] & w) > w - old);
    spmu_emit_ctr(lp, SPMU_EV_OVERFLOW, SPMU_STATUS_BIT(c), old, lp->r.ctr[c],
                  wraps);
  }
}

/* After a clock (or n): edge state, ASCI, overflow status (SDM 18.2.2.2)
 * and the PMI request. True when a PMI is requested. */
static bool settle(struct lpstep *s, const spmu_clock *clk, uint64_t wrapped)
{
  spmu_lp *lp = s->lp;
  const struct spmu_applied *a = &lp->core->a;

  if (wrapped && spmu_reporting(lp->core))
    report_overflows(s, wrapped);

  lp->edge = s->edge;
  s->wrapped = wrapped;
  /* SDM 18.2.4.1: ASCI is set when a counter counts while an
   * enclave runs (SGX parts). */
  if ((clk->flags & SPMU_CLK_ENCLAVE) && s->counted && (a->caps & CAP(SGX)) &&
      a->prof.version >= 4)
    lp->r.global_status |= SPMU_STATUS_ASCI;
  return wrapped && overflowed(lp, wrapped);
}

/* Apply n clocks of the increments s holds. True when a PMI is requested. */
static bool commit(struct lpstep *s, const spmu_clock *clk, uint64_t n)
{
  spmu_lp *lp = s->lp;
  const struct spmu_applied *a = &lp->core->a;
  uint64_t wrapped = 0;
  unsigned k;

  for (k = 0; k < lp->prog.n; k++) {
    const struct spmu_pe *e = &lp->prog.e[k];
    if (s->inc[k] &&
        advance(&lp->r.ctr[e->c], s->inc[k], n, a->width_mask[e->c]))
      wrapped |= BIT64(e->c);
  }
  return settle(s, clk, wrapped);
}

/* Clocks until the first counter of s wraps that requests a PMI or arms
 * PEBS; with an event callback, until any counter wraps. */
static uint64_t steady_stop(const struct lpstep *s)
{
  spmu_lp *lp = s->lp;
  uint64_t stop = UINT64_MAX;
  uint32_t m = spmu_reporting(lp->core) ? UINT32_MAX : lp->prog.stop_entries;

  for (m &= s->mask; m; m &= m - 1) {
    unsigned k = spmu_ctz32(m);
    const struct spmu_pe *e = &lp->prog.e[k];
    if (s->inc[k]) {
      uint64_t t = clocks_to_wrap(lp->r.ctr[e->c], s->inc[k],
                                  lp->core->a.width_mask[e->c]);
      if (t < stop)
        stop = t;
    }
  }
  return stop;
}

/* The logical processors a clock of lp reaches: lp itself (every counter),
 * then the AnyThread counters of the others, by index. */
static unsigned reach(spmu_lp *lp, struct lpstep *st)
{
  spmu_core *core = lp->core;
  uint32_t others;
  unsigned n = 1;

  if (core->stale)
    spmu_arch_refresh(core);
  edge_settle(lp);
  st[0].lp = lp;
  st[0].mask = (UINT32_C(1) << lp->prog.n) - 1;
  st[0].gp = (uint32_t)spmu_width_mask(core->a.prof.gp);
  others = core->any_lps & ~(UINT32_C(1) << lp->index);
  while (others) {
    unsigned i = spmu_ctz32(others);
    others &= others - 1;
    edge_settle(&core->lp[i]);
    st[n].lp = &core->lp[i];
    st[n].mask = core->lp[i].prog.any;
    st[n].gp = core->lp[i].prog.any_gp;
    n++;
  }
  return n;
}

/* The armed PEBS counters of s whose event occurs in the clock just
 * computed: their assist is due (SDM 18.4.4: "on the subsequent event
 * following overflow"). */
static uint32_t assist_due(const struct lpstep *s, uint32_t armed)
{
  const struct spmu_prog *p = &s->lp->prog;
  uint32_t due = 0;
  unsigned k;

  for (k = 0; armed && k < p->n; k++)
    if (s->inc[k] && (armed >> p->e[k].c & 1))
      due |= UINT32_C(1) << p->e[k].c;
  return due;
}

/* After a clock or a batch: PEBS counters that wrapped are armed. */
static void arm(struct lpstep *s)
{
  s->lp->armed |= (uint32_t)s->wrapped & s->lp->prog.pebs_ctrs;
}

struct outcome {
  uint64_t consumed;
  uint32_t pmi;    /* st indices whose logical processor requested a PMI */
  unsigned ticks;  /* SPMU_TICK_PEBS* / SPMU_TICK_MEM_FAULT */
  bool assist_due; /* dry run: stopped where an assist is due */
};

/* With an event callback, a clock at which a counter of the n reached
 * logical processors wrapped ends the batch (SPMU_TICK_OVERFLOW). */
static void wrap_stop(const struct lpstep *st, unsigned n, struct outcome *o)
{
  unsigned i;

  if (!spmu_reporting(st[0].lp->core))
    return;
  for (i = 0; i < n; i++)
    if (st[i].wrapped)
      o->ticks |= SPMU_TICK_OVERFLOW;
}

/* The first of a run of identical clocks, computed alone (edge detection
 * and PEBS assists happen only there). True when the run must stop. */
static bool first_clock(struct lpstep *st, unsigned n, const spmu_clock *clk,
                        bool dry, struct outcome *o)
{
  spmu_lp *self = st[0].lp;
  uint32_t armed = self->armed, due;
  unsigned i;

  self->core->clock = o->consumed + 1;
  /* The clock's branch goes to the LBRs first (SDM 17.4.8): a PEBS record
   * of this clock holds it, and a freeze this clock's PMI starts comes
   * after it. Dry runs record nothing. */
  if (!dry && spmu_lbr_takes(self, clk))
    spmu_lbr_record(self, clk, 1);
  for (i = 0; i < n; i++)
    if (step(&st[i], clk, st[i].lp->edge, true))
      o->pmi |= UINT32_C(1) << i;
  o->consumed++;
  wrap_stop(st, n, o);
  due = assist_due(&st[0], armed);
  if (due) {
    bool threshold = false;
    /* The assist is for every armed counter; the counters it reloads are
     * no longer armed, whatever its outcome (decisions.md #28). */
    self->armed = 0;
    if (dry)
      o->assist_due = true;
    else
      o->ticks |= spmu_pebs_assist(self, clk, armed, &threshold);
    if (threshold) {
      spmu_buffer_threshold(self, true);
      o->pmi |= 1;
    }
  }
  arm(&st[0]);
  /* The branch trace store (SDM 17.4.8): a record for the clock's branch,
   * written through the host; delivery stops after it, so a call stays
   * O(counters) however many clocks it is given (decisions.md #35). */
  if (spmu_bts_stores(self, clk)) {
    bool threshold = false;
    if (dry)
      o->assist_due = true;
    else
      o->ticks |= spmu_bts_store(self, clk, &threshold);
    if (threshold) {
      spmu_buffer_threshold(self, false);
      o->pmi |= 1;
    }
    return true;
  }
  return o->pmi || due || o->assist_due ||
         (o->ticks & (SPMU_TICK_MEM_FAULT | SPMU_TICK_OVERFLOW));
}

/* Deliver up to `clocks` clocks to the n reached logical processors,
 * stopping after a clock with a PMI request or a PEBS assist. With dry,
 * stop where an assist is due without performing it (no memory access). */
static void run(struct lpstep *st, unsigned n, const spmu_clock *clk,
                uint64_t clocks, bool dry, struct outcome *o)
{
  memset(o, 0, sizeof *o);
  while (!first_clock(st, n, clk, dry, o) && o->consumed < clocks) {
    uint64_t rest, stop = UINT64_MAX;
    unsigned i;

    /* Armed at that clock, with events in this pattern: the assist is due
     * at the next clock, which is computed alone. */
    if (assist_due(&st[0], st[0].lp->armed))
      continue;
    /* The rest: constant increments (recomputed only where E makes the
     * first clock differ), added in closed form up to the first wrap that
     * requests a PMI or arms PEBS. No freeze starts before then, so the
     * enables hold. */
    for (i = 0; i < n; i++) {
      uint64_t t;
      if (st[i].lp->prog.has_edge)
        step(&st[i], clk, st[i].lp->edge, false);
      t = steady_stop(&st[i]);
      if (t < stop)
        stop = t;
    }
    rest = clocks - o->consumed < stop ? clocks - o->consumed : stop;
    st[0].lp->core->clock = o->consumed + rest;
    /* No freeze starts before the last of these clocks (see above). */
    if (!dry && spmu_lbr_takes(st[0].lp, clk))
      spmu_lbr_record(st[0].lp, clk, rest);
    for (i = 0; i < n; i++)
      if (commit(&st[i], clk, rest))
        o->pmi |= UINT32_C(1) << i;
    arm(&st[0]);
    o->consumed += rest;
    wrap_stop(st, n, o);
    /* A PEBS counter armed at the last clock: its assist is due at the
     * next one, which the loop computes alone. */
    if (o->pmi || o->consumed == clocks || (o->ticks & SPMU_TICK_OVERFLOW))
      return;
  }
}

/* After plain clocks in which the counters in `wrapped` went past their
 * width: PEBS arming (SDM 18.4.4), then the status bits and PMI request.
 * True when a PMI is requested. */
static bool plain_settle(spmu_lp *lp, uint64_t wrapped)
{
  lp->armed |= (uint32_t)wrapped & lp->prog.pebs_ctrs;
  return overflowed(lp, wrapped);
}

/* The plain clock's overflow (rare): the counters that went past their
 * width hold old + raw unmasked. True when a PMI is requested. */
static bool plain_overflow(spmu_lp *lp)
{
  const struct spmu_prog *p = &lp->prog;
  const struct spmu_applied *a = &lp->core->a;
  uint64_t wrapped = 0;
  unsigned k;

  for (k = 0; k < p->n; k++) {
    const struct spmu_pe *e = &p->e[k];
    uint64_t w = a->width_mask[e->c], sum = lp->r.ctr[e->c];
    lp->r.ctr[e->c] = sum & w;
    if (sum > w)
      wrapped |= BIT64(e->c);
  }
  return wrapped && plain_settle(lp, wrapped);
}

/* One clock of one logical processor whose program is fast (every entry
 * enabled, raw counts only), outside SMM and enclaves, with no AnyThread
 * counter of another thread, no PEBS armed, no branch record due and
 * fewer than 2^31 lines: the hot path of a host that calls in every clock.
 * The same rules as step() with everything that cannot apply taken out:
 * - each counter adds the raw count of its line, unmasked; one test on
 *   the OR of the results finds any that went past its width (a counter
 *   holds less than 2^63 and a clock adds less than 2^63, so nothing is
 *   lost to a uint64_t carry), and plain_overflow() does the rest;
 * - the edge state, "the event occurred" for every GP counter, is kept
 *   as the keys with a nonzero count (lp->edge_keys) and turned into
 *   counter bits only when something reads it (spmu_lp_edge).
 * True when a PMI is requested. */
static bool plain_clock(spmu_lp *lp, const spmu_clock *clk)
{
  const struct spmu_prog *p = &lp->prog;
  const struct spmu_applied *a = &lp->core->a;
  unsigned v = clock_variant(clk);
  uint64_t sums[SPMU_KEY_SUMS], *ctr = lp->r.ctr, gp = 0, fixed = 0;
  uint32_t nz;
  unsigned k;

  line_sums(p, clk, sums, &nz);
  lp->edge_keys = SPMU_EDGE_PENDING | v << SPMU_EDGE_VARIANT_SHIFT | nz;
#pragma GCC unroll 2
  for (k = 0; k < p->ngp; k++) {
    const struct spmu_pe *e = &p->e[k];
    gp |= ctr[e->c] += sums[e->raw_at[v]];
  }
#pragma GCC unroll 2
  for (; k < p->n; k++) {
    const struct spmu_pe *e = &p->e[k];
    fixed |= ctr[e->c] += sums[e->raw_at[v]];
  }
  if (!((gp & ~a->gp_width_mask) | (fixed & ~a->fixed_width_mask)))
    return false;
  return plain_overflow(lp);
}

/* A batch of identical clocks under plain_clock's conditions: every
 * clock adds the same to each counter, so the batch runs in closed form
 * up to the first clock where a counter that requests a PMI or arms PEBS
 * wraps (run() without its first clock, which only edge detection and
 * PEBS assists need). *done gets the clocks consumed. True when a PMI is
 * requested. */
static __attribute__((noinline)) bool
plain_run(spmu_lp *lp, const spmu_clock *clk, uint64_t clocks, uint64_t *done)
{
  const struct spmu_prog *p = &lp->prog;
  const struct spmu_applied *a = &lp->core->a;
  unsigned v = clock_variant(clk);
  uint64_t sums[SPMU_KEY_SUMS], *ctr = lp->r.ctr, n = clocks, wrapped = 0;
  uint32_t nz, m;
  unsigned k;

  line_sums(p, clk, sums, &nz);
  lp->edge_keys = SPMU_EDGE_PENDING | v << SPMU_EDGE_VARIANT_SHIFT | nz;
  for (m = p->stop_entries; m; m &= m - 1) {
    const struct spmu_pe *e = &p->e[spmu_ctz32(m)];
    uint64_t raw = sums[e->raw_at[v]];
    if (raw) {
      uint64_t t = clocks_to_wrap(ctr[e->c], raw, a->width_mask[e->c]);
      n = t < n ? t : n;
    }
  }
  for (k = 0; k < p->n; k++) {
    const struct spmu_pe *e = &p->e[k];
    uint64_t raw = sums[e->raw_at[v]];
    if (raw && advance(&ctr[e->c], raw, n, a->width_mask[e->c]))
      wrapped |= BIT64(e->c);
  }
  *done = n;
  return wrapped && plain_settle(lp, wrapped);
}

/* The core has checked clk and its CPL; the engine reads its lines. */
static bool clock_ok(const spmu_clock *clk)
{
  return !clk->nlines || clk->lines;
}

/* spmu_deliver's general case: every logical processor the clock reaches,
 * batches, PEBS assists and branch records. Kept out of line so the plain
 * path's caller has a small frame. */
static __attribute__((noinline)) int
deliver(spmu_lp *lp, const spmu_clock *clk, uint64_t clocks, uint64_t *consumed)
{
  struct lpstep st[SPMU_MAX_THREADS];
  struct outcome o;
  unsigned n;

  n = reach(lp, st);
  if (n == 1 && clocks == 1 && !lp->armed &&
      !(clk->branch && spmu_bts_stores(lp, clk))) {
    /* One clock of one logical processor, no PEBS assist or branch record
     * due: run() without its batch bookkeeping (bench_count: 39 vs 43 ns
     * for 12 counters with one CMASK). */
    memset(&o, 0, sizeof o);
    lp->core->clock = 1;
    if (spmu_lbr_takes(lp, clk))
      spmu_lbr_record(lp, clk, 1);
    o.pmi = step(&st[0], clk, lp->edge, true);
    o.consumed = 1;
    arm(&st[0]);
    wrap_stop(st, 1, &o);
  } else {
    run(st, n, clk, clocks, false, &o);
  }
  lp->core->clock = 0;
  if (consumed)
    *consumed = o.consumed;
  /* The assist comes before the overflow PMI (SDM 18.6.2.4); the host
   * sees the record in memory when pmi() runs. The PMIs are reported at
   * the call's last clock, the one that requested them. */
  spmu_raise_pmis(lp->core, lp, o.consumed);
  return (o.pmi ? SPMU_TICK_PMI : 0) | (int)o.ticks;
}

int spmu_arch_deliver(spmu_lp *lp, const spmu_clock *clk, uint64_t clocks,
                      uint64_t *consumed)
{
  spmu_core *core;
  uint64_t done = 1, more = 0;
  bool pmi, lbr;
  int rc = 0;

  if (!clock_ok(clk))
    return SPMU_EINVAL;
  core = lp->core; /* the core has rebuilt the programs */
  if (!lp->prog.fast || lp->armed ||
      (clk->flags & (SPMU_CLK_SMM | SPMU_CLK_ENCLAVE)) ||
      clk->nlines >= (UINT32_C(1) << 31) ||
      (core->any_lps & ~(UINT32_C(1) << lp->index)) ||
      (clk->branch && spmu_bts_stores(lp, clk)))
    return deliver(lp, clk, clocks, consumed);
  /* The LBRs take the branch of every clock delivered here; whether they
   * do is decided before the clocks, as a PMI's freeze comes after the
   * branch of its clock (SDM 17.4.8). */
  lbr = clk->branch && spmu_lbr_takes(lp, clk);
  pmi = clocks == 1 ? plain_clock(lp, clk) : plain_run(lp, clk, clocks, &done);
  if (lbr)
    spmu_lbr_record(lp, clk, done);
  if (pmi) {
    /* No event callback on this path (prog.fast): no clock to report. */
    spmu_raise_pmis(core, lp, 0);
    rc = SPMU_TICK_PMI;
  } else if (done < clocks) {
    /* A PEBS counter armed at the last clock: its assist is due at the
     * next, which the general path performs. */
    rc = deliver(lp, clk, clocks - done, &more);
  }
  if (consumed)
    *consumed = done + more;
  return rc;
}

int spmu_arch_deadline(spmu_lp *lp, const spmu_clock *clk, uint64_t *clocks)
{
  struct lpstep st[SPMU_MAX_THREADS];
  spmu_lp copy[SPMU_MAX_THREADS];
  struct outcome o;
  unsigned n, i;

  if (!clock_ok(clk))
    return SPMU_EINVAL;
  /* Run on copies of the reached logical processors; the originals keep
   * their state (their programs are refreshed, which changes nothing
   * visible). */
  n = reach(lp, st);
  for (i = 0; i < n; i++) {
    copy[i] = *st[i].lp;
    st[i].lp = &copy[i];
  }
  run(st, n, clk, UINT64_MAX, true, &o);
  *clocks = o.pmi || o.assist_due ? o.consumed : SPMU_DEADLINE_NEVER;
  return SPMU_OK;
}

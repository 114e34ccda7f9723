/* The counting engine: event lines in, counter increments, overflow,
 * PMI requests and freeze out (SDM 18.2.1-18.2.4; seeds 001-003).
 *
 * A delivery of K identical clocks is the first clock, computed alone
 * (edge detection may fire there), then K-1 clocks in which every counter
 * gains the same amount per clock. Those are added in closed form, stopping
 * at the first clock where a counter that requests a PMI wraps. The result
 * is bit-identical to K single clocks (tests/test_count.c checks it). */
#include <string.h>

#include "arch/core.h"
#include "arch/msr.h"
#include "softpmu/error.h"

#define NCTR (SPMU_MAX_GP + SPMU_MAX_FIXED)


/* What one clock does to every counter, before it is applied. Counter
 * index c: GP counter i is c = i, fixed counter j is c = SPMU_MAX_GP + j. */
struct step {
  uint64_t inc[NCTR];  /* increment per clock */
  uint64_t pmi;        /* counters whose overflow requests a PMI */
  uint32_t edge;       /* edge state after the clock */
  bool counted;        /* some enabled counter counted (ASCI) */
};

static uint64_t line_sum(const spmu_clock *clk, uint8_t event, uint8_t umask)
{
  uint64_t sum = 0;
  size_t i;
  for (i = 0; i < clk->nlines; i++)
    if (clk->lines[i].event == event && clk->lines[i].umask == umask)
      sum += clk->lines[i].count;
  return sum;
}

/* SDM 18.2.4.1 (seed 002): on v4+ CTR_Frz is a read-only enable of every
 * counter. SDM 17.4.8 / 18.8: FREEZE_WHILE_SMM stops counting in SMM. */
static bool frozen(const struct spmu_applied *a, const struct spmu_regs *r,
                   const spmu_clock *clk)
{
  if (a->prof.version >= 4 && (r->global_status & SPMU_STATUS_CTR_FRZ))
    return true;
  return (clk->flags & SPMU_CLK_SMM) && (r->debugctl & SPMU_DEBUGCTL_FREEZE_WHILE_SMM);
}

/* SDM 18.2.1.1: the per-clock contribution of GP counter i. */
static uint64_t gp_increment(const spmu_lp *lp, const spmu_clock *clk,
                             unsigned i, uint32_t *edge, bool enabled)
{
  uint64_t sel = lp->r.evtsel[i];
  uint64_t cmask = sel >> SPMU_EVTSEL_CMASK_SHIFT & 0xff;
  uint64_t raw = 0;
  bool cond, prev = lp->edge >> i & 1;

  /* USR counts at CPL > 0, OS at CPL 0. */
  if ((clk->cpl == 0) ? (sel & SPMU_EVTSEL_OS) : (sel & SPMU_EVTSEL_USR))
    raw = line_sum(clk, (uint8_t)sel, (uint8_t)(sel >> SPMU_EVTSEL_UMASK_SHIFT));
  /* SDM 18.11.5.1: IN_TX counts only inside a transactional region. */
  if ((sel & SPMU_EVTSEL_IN_TX) && !(clk->flags & SPMU_CLK_IN_TX))
    raw = 0;
  /* CMASK != 0: the clock passes when raw >= CMASK (< with INV). CMASK = 0:
   * the condition is "the event occurred" and INV is ignored. */
  if (cmask)
    cond = (sel & SPMU_EVTSEL_INV) ? raw < cmask : raw >= cmask;
  else
    cond = raw > 0;
  *edge = cond ? *edge | (UINT32_C(1) << i) : *edge & ~(UINT32_C(1) << i);
  if (!enabled)
    return 0;
  /* E: count deasserted-to-asserted transitions of the condition. */
  if (sel & SPMU_EVTSEL_E)
    return cond && !prev;
  return cmask ? cond : raw;
}

static void plan_step(const spmu_lp *lp, const spmu_clock *clk, struct step *s)
{
  const struct spmu_applied *a = &lp->core->a;
  const struct spmu_regs *r = &lp->r;
  bool frz = frozen(a, r, clk);
  unsigned i;

  memset(s, 0, sizeof(*s));
  s->edge = lp->edge;
  for (i = 0; i < a->prof.gp; i++) {
    /* SDM 18.2.2.2: EN & GLOBAL_CTRL bit (v2+) & !CTR_Frz (v4+). */
    bool en = (r->evtsel[i] & SPMU_EVTSEL_EN) &&
              (a->prof.version < 2 || (r->global_ctrl >> i & 1)) && !frz;
    s->inc[i] = gp_increment(lp, clk, i, &s->edge, en);
    if (r->evtsel[i] & SPMU_EVTSEL_INT)
      s->pmi |= BIT64(i);
    s->counted |= en;
  }
  for (i = 0; i < SPMU_MAX_FIXED; i++) {
    unsigned c = SPMU_MAX_GP + i;
    uint64_t ctl = r->fixed_ctr_ctrl >> (4 * i);
    bool ring, en;
    if (!(a->prof.fixed_mask >> i & 1))
      continue;
    /* SDM 18.2.2.1: ENABLE bit 0 counts at CPL 0, bit 1 at CPL > 0. */
    ring = (clk->cpl == 0) ? (ctl & 1) : (ctl & 2);
    en = ring && (r->global_ctrl >> (32 + i) & 1) && !frz;
    if (en)
      s->inc[c] = i == 0   ? line_sum(clk, 0xC0, 0x00)
                  : i == 1 ? line_sum(clk, 0x3C, 0x00)
                           : line_sum(clk, 0x00, (uint8_t)(i + 1));
    if (ctl & 8)
      s->pmi |= BIT64(c);
    s->counted |= en;
  }
}

/* Add n * inc to *ctr within its width; true if it wrapped. */
static bool advance(uint64_t *ctr, uint64_t inc, uint64_t n, uint64_t width)
{
  unsigned __int128 sum = (unsigned __int128)inc * n + *ctr;
  *ctr = (uint64_t)sum & width;
  return sum > width;
}

/* Clocks (>= 1) until counter c wraps, adding inc > 0 per clock. */
static uint64_t clocks_to_wrap(uint64_t val, uint64_t inc, uint64_t width)
{
  return (width - val) / inc + 1;
}

static uint64_t *ctr_slot(spmu_lp *lp, unsigned c)
{
  return c < SPMU_MAX_GP ? &lp->r.pmc[c] : &lp->r.fixed_ctr[c - SPMU_MAX_GP];
}

static uint64_t ctr_width(const spmu_lp *lp, unsigned c)
{
  return c < SPMU_MAX_GP ? lp->core->a.gp_width_mask
                         : lp->core->a.fixed_width_mask;
}

/* Apply n clocks of step s; returns the counters that wrapped. */
static uint64_t apply(spmu_lp *lp, const struct step *s, uint64_t n)
{
  uint64_t wrapped = 0;
  unsigned c;
  for (c = 0; c < NCTR; c++)
    if (s->inc[c] && advance(ctr_slot(lp, c), s->inc[c], n, ctr_width(lp, c)))
      wrapped |= BIT64(c);
  return wrapped;
}

/* GLOBAL_STATUS bit of counter c (fixed j is bit 32 + j). */
static uint64_t status_bits(uint64_t ctrs)
{
  return (ctrs & spmu_width_mask(SPMU_MAX_GP)) |
         (ctrs >> SPMU_MAX_GP) << 32;
}

/* Overflow bookkeeping and the PMI (SDM 18.2.2.2, 18.2.4.1). Returns true
 * when a PMI is requested. */
static bool overflow(spmu_lp *lp, const struct step *s, uint64_t wrapped)
{
  const struct spmu_applied *a = &lp->core->a;
  struct spmu_regs *r = &lp->r;

  if (a->prof.version >= 2)
    r->global_status |= status_bits(wrapped);
  if (!(wrapped & s->pmi))
    return false;
  /* Freeze at the moment of overflow (SDM 18.2.4.1; facts sheet B):
   * legacy (v2-v3) clears GLOBAL_CTRL / DEBUGCTL.LBR, streamlined (v4+)
   * sets CTR_Frz / LBR_Frz. */
  if (r->debugctl & SPMU_DEBUGCTL_FREEZE_PERFMON) {
    if (a->prof.version >= 4)
      r->global_status |= SPMU_STATUS_CTR_FRZ;
    else
      r->global_ctrl = 0;
  }
  if (r->debugctl & SPMU_DEBUGCTL_FREEZE_LBRS) {
    if (a->prof.version >= 4)
      r->global_status |= SPMU_STATUS_LBR_FRZ;
    else
      r->debugctl &= ~SPMU_DEBUGCTL_LBR;
  }
  return true;
}

/* Seed 002 / SDM 18.2.4.1: ASCI is set when a counter counts while an
 * enclave runs (SGX parts). */
static void note_enclave(spmu_lp *lp, const spmu_clock *clk, const struct step *s)
{
  if ((clk->flags & SPMU_CLK_ENCLAVE) && s->counted &&
      (lp->core->a.caps & CAP(SGX)) && lp->core->a.prof.version >= 4)
    lp->r.global_status |= SPMU_STATUS_ASCI;
}

static int deliver(spmu_lp *lp, const spmu_clock *clk, uint64_t clocks,
                   uint64_t *consumed, bool notify)
{
  struct step s;
  uint64_t n, stop = UINT64_MAX;
  unsigned c;
  bool pmi;

  /* The first clock alone: edge detection may fire only there. */
  plan_step(lp, clk, &s);
  lp->edge = s.edge;
  note_enclave(lp, clk, &s);
  pmi = overflow(lp, &s, apply(lp, &s, 1));
  *consumed = 1;
  if (!pmi && clocks > 1) {
    /* The rest: constant increments; stop at the first wrap that requests
     * a PMI. */
    plan_step(lp, clk, &s);
    for (c = 0; c < NCTR; c++)
      if (s.inc[c] && (s.pmi >> c & 1)) {
        uint64_t t = clocks_to_wrap(*ctr_slot(lp, c), s.inc[c], ctr_width(lp, c));
        if (t < stop)
          stop = t;
      }
    n = clocks - 1 < stop ? clocks - 1 : stop;
    lp->edge = s.edge;
    if (n) {
      note_enclave(lp, clk, &s);
      pmi = overflow(lp, &s, apply(lp, &s, n));
    }
    *consumed += n;
  }
  if (pmi && notify && lp->core->host.pmi)
    lp->core->host.pmi(lp->core->host.opaque, lp);
  return pmi ? SPMU_TICK_PMI : 0;
}

int spmu_deliver(spmu_lp *lp, const spmu_clock *clk, uint64_t clocks,
                 uint64_t *consumed)
{
  uint64_t done = 0;
  int rc;

  if (consumed)
    *consumed = 0;
  if (!lp || !clk || (clk->nlines && !clk->lines) || clk->cpl > 3 || !clocks)
    return SPMU_EINVAL;
  rc = deliver(lp, clk, clocks, &done, true);
  if (consumed)
    *consumed = done;
  return rc;
}

uint64_t spmu_deadline(const spmu_lp *lp, const spmu_clock *clk)
{
  spmu_lp copy;
  uint64_t done = 0;

  if (!lp || !clk || (clk->nlines && !clk->lines) || clk->cpl > 3)
    return UINT64_MAX;
  copy = *lp;
  return deliver(&copy, clk, UINT64_MAX, &done, false) & SPMU_TICK_PMI
             ? done
             : UINT64_MAX;
}

int spmu_core_set_host(spmu_core *core, const spmu_host *host)
{
  if (!core)
    return SPMU_EINVAL;
  if (host)
    core->host = *host;
  else
    memset(&core->host, 0, sizeof core->host);
  return SPMU_OK;
}

/* SPDX-License-Identifier: MIT */
/* Last branch records: filtering, the stack, call-stack mode, the record
 * formats (SDM Vol. 3B 17.4.8.1 "LBR Stack and Intel 64 Processors",
 * 17.7 Nehalem (Tables 17-8 to 17-11), 17.9 Haswell (call stack), 17.12
 * Skylake (LBR_INFO), and "Architectural Last Branch Records"). */
#include <string.h>

#include "core/msr.h"
#include "lbr/lbr.h"
#include "softpmu/error.h"
#include "util/bits.h"

_Static_assert(sizeof(spmu_branch) == 24, "spmu_branch keeps its size");

/* The field bits are public (softpmu/regs.h), checked against the
 * catalogue by tests/test_catalog.c. */
#define SEL_CPL_EQ_0 SPMU_LBR_SELECT_CPL_EQ_0
#define SEL_CPL_NEQ_0 SPMU_LBR_SELECT_CPL_NEQ_0
#define SEL_TYPES SPMU_LBR_SELECT_TYPES
#define SEL_EN_CALLSTACK SPMU_LBR_SELECT_EN_CALLSTACK
#define CTL_LBREN SPMU_LBR_CTL_LBREN
#define CTL_OS SPMU_LBR_CTL_OS
#define CTL_USR SPMU_LBR_CTL_USR
#define CTL_CALL_STACK SPMU_LBR_CTL_CALL_STACK
#define CTL_TYPES SPMU_LBR_CTL_TYPES
#define INFO_BR_TYPE_SHIFT SPMU_LBR_INFO_BR_TYPE_SHIFT
#define INFO_CYC_CNT_VALID SPMU_LBR_INFO_CYC_CNT_VALID
#define INFO_TSX_ABORT SPMU_LBR_INFO_TSX_ABORT
#define INFO_IN_TX SPMU_LBR_INFO_IN_TX
#define INFO_MISPRED SPMU_LBR_INFO_MISPRED
/* CPUID.1CH:ECX: mispredict bit, timed LBRs, branch type field. */
#define L1C_ECX_MISPRED 1u
#define L1C_ECX_TIMED 2u
#define L1C_ECX_BR_TYPE 4u

static bool arch_lbr(const spmu_lp *lp)
{
  return (lp->core->a.caps & CAP(ARCH_LBR)) != 0;
}

static const struct spmu_lbr_regs *lbr_file(const spmu_lp *lp)
{
  return &lp->core->lbr[lp->index];
}

/* The entries in use: the model-specific stack's size, or IA32_LBR_DEPTH
 * (always a supported depth, at most SPMU_LBR_MAX). */
static unsigned depth_of(const spmu_lp *lp)
{
  if (arch_lbr(lp))
    return (unsigned)lbr_file(lp)->depth;
  return lp->core->a.prof.lbr_depth;
}

/* Enabled and not frozen: DEBUGCTL.LBR (17.4.8) or LBR_CTL.LBREn; from
 * v4, GLOBAL_STATUS.LBR_Frz stops recording until software clears it
 * (17.10.2 "Streamlined Freeze_LBRs_On_PMI Operation", 18.2.4.1; a legacy
 * freeze clears DEBUGCTL.LBR instead, 17.4.7, core/pmi.c). */
static bool lbr_on(const spmu_lp *lp)
{
  uint64_t caps = lp->core->a.caps;

  if (lp->r.global_status & SPMU_STATUS_LBR_FRZ)
    return false;
  if (caps & CAP(ARCH_LBR))
    return (lbr_file(lp)->ctl & CTL_LBREN) != 0;
  return (caps & CAP(LBR)) && (lp->r.debugctl & SPMU_DEBUGCTL_LBR);
}

/* The filter bit of a branch type: LBR_SELECT bits 2-8 in the order of
 * Table 17-11, IA32_LBR_CTL bits 16-22 in its own order. -1: none. */
static int select_bit(unsigned type)
{
  static const int8_t bit[] = {
      [SPMU_BR_JCC] = 2,           [SPMU_BR_NEAR_REL_CALL] = 3,
      [SPMU_BR_NEAR_IND_CALL] = 4, [SPMU_BR_NEAR_RET] = 5,
      [SPMU_BR_NEAR_IND_JMP] = 6,  [SPMU_BR_NEAR_REL_JMP] = 7,
      [SPMU_BR_FAR] = 8,
  };
  return type && type < sizeof bit ? bit[type] : -1;
}

static int ctl_bit(unsigned type)
{
  static const int8_t bit[] = {
      [SPMU_BR_JCC] = 16,           [SPMU_BR_NEAR_IND_JMP] = 17,
      [SPMU_BR_NEAR_REL_JMP] = 18,  [SPMU_BR_NEAR_IND_CALL] = 19,
      [SPMU_BR_NEAR_REL_CALL] = 20, [SPMU_BR_NEAR_RET] = 21,
      [SPMU_BR_FAR] = 22,
  };
  return type && type < sizeof bit ? bit[type] : -1;
}

/* MSR_LBR_SELECT (17.7.2): not in a suppressed CPL, not of a suppressed
 * type; a branch of unknown type only when no type is suppressed. Core 2
 * has no LBR_SELECT: everything is recorded. */
static bool select_passes(uint64_t sel, const spmu_clock *clk)
{
  int b = select_bit(clk->branch->type);

  if (sel & (clk->cpl == 0 ? SEL_CPL_EQ_0 : SEL_CPL_NEQ_0))
    return false;
  return b < 0 ? !(sel & SEL_TYPES) : !(sel >> b & 1);
}

/* IA32_LBR_CTL: the CPL (with CPL filtering, CPUID.1CH:EBX[0]) and the
 * type (with branch filtering, EBX[1]) must be enabled; a branch of
 * unknown type only when every type is. */
static bool ctl_passes(const spmu_lp *lp, uint64_t ctl, const spmu_clock *clk)
{
  uint64_t caps = lp->core->a.caps;
  int b = ctl_bit(clk->branch->type);

  if ((caps & CAP(ALBR_CPL)) && !(ctl & (clk->cpl == 0 ? CTL_OS : CTL_USR)))
    return false;
  if (!(caps & CAP(ALBR_FILTER)))
    return true;
  return b < 0 ? (ctl & CTL_TYPES) == CTL_TYPES : (ctl >> b & 1) != 0;
}

/* Recording is on for clk: enabled, not frozen, not in SMM under
 * FREEZE_WHILE_SMM (SDM 17.4.1: on an SMI the processor disables LBR until
 * RSM, so a clock in SMM records nothing). */
static bool records(const spmu_lp *lp, const spmu_clock *clk)
{
  if (!clk->branch || !lbr_on(lp))
    return false;
  return !((clk->flags & SPMU_CLK_SMM) &&
           (lp->r.debugctl & SPMU_DEBUGCTL_FREEZE_WHILE_SMM));
}

/* The branch passes the CPL and type filters. */
static bool passes(const spmu_lp *lp, const spmu_clock *clk)
{
  const struct spmu_lbr_regs *l = lbr_file(lp);

  if (arch_lbr(lp))
    return ctl_passes(lp, l->ctl, clk);
  return select_passes(l->select, clk);
}

static bool is_event(const spmu_clock *clk)
{
  return (clk->branch->flags & SPMU_BRANCH_EVENT) != 0;
}

/* An exception or interrupt updates the last exception record even when
 * the filters drop its own branch (decisions.md, LER). */
bool spmu_lbr_takes(const spmu_lp *lp, const spmu_clock *clk)
{
  if (!records(lp, clk))
    return false;
  return is_event(clk) || passes(lp, clk);
}

/* Call-stack mode (17.9; IA32_LBR_CTL.CALL_STACK): near calls push as
 * any recorded branch does, near returns pop. */
static bool callstack(const spmu_lp *lp)
{
  const struct spmu_lbr_regs *l = lbr_file(lp);
  return arch_lbr(lp) ? (l->ctl & CTL_CALL_STACK) != 0
                      : (l->select & SEL_EN_CALLSTACK) != 0;
}

/* bit 47 of a linear address extended over bits 63:48 */
static uint64_t sext47(uint64_t v)
{
  return (v & BIT64(47)) ? v | GENMASK64(63, 48) : v & GENMASK64(47, 0);
}

/* One entry as the profile's format records the branch (17.4.8.1). */
static spmu_lbr_entry encode(const spmu_lp *lp, const spmu_clock *clk)
{
  const struct spmu_applied *a = &lp->core->a;
  const spmu_branch *br = clk->branch;
  bool mis = !br->predicted, in_tx = (clk->flags & SPMU_CLK_IN_TX) != 0;
  bool abort = (br->flags & SPMU_BRANCH_TSX_ABORT) != 0;
  uint64_t cyc = br->cycles > 0xffff ? 0xffff : br->cycles;
  spmu_lbr_entry e = {sext47(br->from), sext47(br->to), 0};

  if (!(br->flags & SPMU_BRANCH_CYCLES))
    cyc = 0;
  if (a->caps & CAP(ARCH_LBR)) {
    uint32_t ecx = a->prof.lbr_leaf_1c[2];
    int t = ctl_bit(br->type);
    if (ecx & L1C_ECX_TIMED)
      e.info |=
          cyc | ((br->flags & SPMU_BRANCH_CYCLES) ? INFO_CYC_CNT_VALID : 0);
    /* BR_TYPE: 0 JCC ... 5 RET in IA32_LBR_CTL's order, 1000B other. */
    t -= SPMU_LBR_CTL_COND_SHIFT;
    if (ecx & L1C_ECX_BR_TYPE)
      e.info |= (uint64_t)(t >= 0 && t <= 5 ? t : 8) << INFO_BR_TYPE_SHIFT;
    if ((ecx & L1C_ECX_MISPRED) && mis)
      e.info |= INFO_MISPRED;
  } else {
    unsigned bits = spmu_lbr_ip_bits(a);
    e.from &= spmu_width_mask(bits);
    if (a->caps & CAP(LBR_FLAGS))
      e.from |= mis ? BIT64(63) : 0; /* Table 17-8 MISPRED */
    if (a->caps & CAP(LBR_FMT4))
      e.from |= (in_tx ? BIT64(62) : 0) | (abort ? BIT64(61) : 0);
    if (!(a->caps & CAP(LBR_INFO)))
      return e;
    e.info = cyc;
  }
  e.info |= (in_tx ? INFO_IN_TX : 0) | (abort ? INFO_TSX_ABORT : 0);
  if (!(a->caps & CAP(ARCH_LBR)))
    e.info |= mis ? INFO_MISPRED : 0;
  return e;
}

static void put(struct spmu_lbr_regs *l, unsigned i, const spmu_lbr_entry *e)
{
  l->from[i] = e->from;
  l->to[i] = e->to;
  l->info[i] = e->info;
}

/* Architectural LBRs: entry 0 is the most recent. Shift the d entries in
 * use down by k (push) or up by k (pop), filling with fill. */
static void arch_shift(struct spmu_lbr_regs *l, unsigned d, unsigned k,
                       bool push, const spmu_lbr_entry *fill)
{
  spmu_lbr_entry zero = {0, 0, 0};
  size_t move = (size_t)(d - k) * sizeof(uint64_t);
  unsigned i, at = push ? 0 : d - k; /* where the fill goes */

  if (!fill)
    fill = &zero;
  if (push) {
    memmove(&l->from[k], &l->from[0], move);
    memmove(&l->to[k], &l->to[0], move);
    memmove(&l->info[k], &l->info[0], move);
  } else {
    memmove(&l->from[0], &l->from[k], move);
    memmove(&l->to[0], &l->to[k], move);
    memmove(&l->info[0], &l->info[k], move);
  }
  for (i = at; i < at + k; i++)
    put(l, i, fill);
}

/* The model-specific stack (17.4.8): n pushes advance TOS by n (mod the
 * depth) and write the entry at each new TOS; n pops (call-stack mode's
 * returns, 17.9) flush the entry at TOS and step TOS back. The last
 * min(n, depth) writes are the ones that remain. */
static void legacy_move(struct spmu_lbr_regs *l, unsigned d, uint64_t n,
                        bool push, const spmu_lbr_entry *e)
{
  spmu_lbr_entry zero = {0, 0, 0};
  unsigned k = n < d ? (unsigned)n : d, tos = (unsigned)l->tos, j;
  unsigned step = (unsigned)(n % d);

  if (push) {
    for (j = 0; j < k; j++) /* the last k new tops: tos + n - j */
      put(l, (tos + step + d - j) % d, e);
    l->tos = (tos + step) % d;
  } else {
    for (j = 0; j < k; j++)
      put(l, (tos + d - j) % d, &zero);
    l->tos = (tos + d - step) % d;
  }
}

/* The last exception record (SDM 17.4.8.3: "the branch record for the last
 * branch taken prior to an exception or an interrupt"; "Architectural Last
 * Branch Records": the LER "records the last taken branch preceding the
 * last exception, hardware interrupt, or software interrupt" and "is
 * subject to the same dependencies on enabling and filtering" as the
 * LBRs): an event copies the last branch the LBRs recorded, the latch
 * last_*, into the LER MSRs. Model-specific LER MSRs hold linear
 * addresses only. Of n identical event clocks, the last copies the one
 * before it: the event itself when it passed the filters. */
static void ler_update(struct spmu_lbr_regs *l, bool arch, bool self,
                       const spmu_lbr_entry *ev)
{
  l->ler_from = self ? ev->from : l->last_from;
  l->ler_to = self ? ev->to : l->last_to;
  l->ler_info = arch ? (self ? ev->info : l->last_info) : 0;
}

void spmu_lbr_record(spmu_lp *lp, const spmu_clock *clk, uint64_t n)
{
  struct spmu_lbr_regs *l = &lp->core->lbr[lp->index];
  unsigned d = depth_of(lp);
  bool pop = clk->branch->type == SPMU_BR_NEAR_RET && callstack(lp);
  bool pass = passes(lp, clk);
  spmu_lbr_entry e, plain;

  if (!n || !d)
    return;
  e = encode(lp, clk);
  plain = (spmu_lbr_entry){sext47(clk->branch->from), sext47(clk->branch->to),
                           arch_lbr(lp) ? e.info : 0};
  if (is_event(clk))
    ler_update(l, arch_lbr(lp), pass && n > 1, &plain);
  if (!pass)
    return;
  l->last_from = plain.from;
  l->last_to = plain.to;
  l->last_info = plain.info;
  if (arch_lbr(lp))
    arch_shift(l, d, n < d ? (unsigned)n : d, !pop, pop ? NULL : &e);
  else
    legacy_move(l, d, n, !pop, &e);
}

/* The LER and its latch stay: a depth write clears the stack only. */
void spmu_lbr_clear(struct spmu_lbr_regs *l)
{
  memset(l->from, 0, sizeof l->from);
  memset(l->to, 0, sizeof l->to);
  memset(l->info, 0, sizeof l->info);
}

unsigned spmu_lbr_entries(const spmu_lp *lp, spmu_lbr_entry *out, unsigned cap)
{
  const struct spmu_lbr_regs *l = lbr_file(lp);
  unsigned d = depth_of(lp), i, k;

  for (i = 0; i < d && i < cap; i++) {
    k = arch_lbr(lp) ? i : ((unsigned)l->tos + d - i) % d;
    out[i].from = l->from[k];
    out[i].to = l->to[k];
    out[i].info = l->info[k];
  }
  return d;
}

/* ---- the public calls ---------------------------------------------------- */

int spmu_lbr_read(const spmu_lp *lp, spmu_lbr_entry *out, unsigned cap)
{
  if (!lp || (!out && cap))
    return SPMU_EINVAL;
  return (int)spmu_lbr_entries(lp, out, cap);
}

/* The component's MSRs in XSAVES order, before the entries. */
static const uint32_t xsave_head[5] = {0x14CE, 0x14CF, 0x1DD, 0x1DE, 0x1E0};

int spmu_lbr_xsave(const spmu_lp *lp, void *buf, size_t cap, size_t *len)
{
  const struct spmu_lbr_regs *l;
  unsigned max, i;
  uint8_t *p = buf;

  if (!lp || !len)
    return SPMU_EINVAL;
  if (!arch_lbr(lp))
    return SPMU_ENOENT;
  max = lp->core->a.lbr_entries;
  *len = SPMU_LBR_XSAVE_SIZE(max);
  if (!buf || cap < *len)
    return SPMU_ENOSPC;
  l = lbr_file(lp);
  spmu_put_le(p, l->ctl, 8);
  spmu_put_le(p + 8, l->depth, 8);
  spmu_put_le(p + 16, l->ler_from, 8);
  spmu_put_le(p + 24, l->ler_to, 8);
  spmu_put_le(p + 32, l->ler_info, 8);
  for (i = 0, p += 40; i < max; i++, p += 24) {
    spmu_put_le(p, l->from[i], 8);
    spmu_put_le(p + 8, l->to[i], 8);
    spmu_put_le(p + 16, l->info[i], 8);
  }
  return SPMU_OK;
}

/* Write v to MSR addr of the staging file f as a WRMSR would, without a
 * write's side effects (an IA32_LBR_DEPTH write clears nothing here). */
static bool stage(const spmu_lp *lp, const struct spmu_regfiles *f,
                  uint32_t addr, uint64_t v)
{
  const struct spmu_msr_rt *m = spmu_applied_find(&lp->core->a, addr);
  return m && spmu_msr_write(&lp->core->a, f, m, v, false) == SPMU_WR_OK;
}

int spmu_lbr_xrstor(spmu_lp *lp, const void *buf, size_t len)
{
  spmu_core *c;
  const uint8_t *p = buf;
  struct spmu_regfiles f;
  unsigned max, i;

  if (!lp || !buf)
    return SPMU_EINVAL;
  if (!arch_lbr(lp))
    return SPMU_ENOENT;
  c = lp->core;
  max = c->a.lbr_entries;
  if (len != SPMU_LBR_XSAVE_SIZE(max))
    return SPMU_EINVAL;
  /* Check on a copy, then commit: XRSTORS #GP loads nothing. */
  c->lbr_scratch = c->lbr[lp->index];
  f = spmu_lp_file(lp);
  f.lbr = &c->lbr_scratch;
  for (i = 0; i < 5; i++)
    if (!stage(lp, &f, xsave_head[i], spmu_get_le(p + 8 * i, 8)))
      return SPMU_GP;
  for (i = 0, p += 40; i < max; i++, p += 24)
    if (!stage(lp, &f, 0x1500 + i, spmu_get_le(p, 8)) ||
        !stage(lp, &f, 0x1600 + i, spmu_get_le(p + 8, 8)) ||
        !stage(lp, &f, 0x1200 + i, spmu_get_le(p + 16, 8)))
      return SPMU_GP;
  c->lbr[lp->index] = c->lbr_scratch;
  return SPMU_OK;
}

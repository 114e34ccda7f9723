/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Record mode with branch stacks (branch=BITS): the model's last branch
 * records, programmed and read as a driver does (README.md, "Branch
 * stacks").
 *
 * Programming (at each thread's start, after the counters): the type and
 * CPL filters in MSR_LBR_SELECT (SDM Vol. 3B 17.7.2 Table 17-11, 1 = do
 * not record; EN_CALLSTACK 17.9) or, with architectural LBRs,
 * IA32_LBR_DEPTH (the deepest depth CPUID.1CH:EAX enumerates) and
 * IA32_LBR_CTL (1 = record; "Architectural Last Branch Records"); then
 * IA32_DEBUGCTL.LBR (model-specific stacks, 17.4.8) and
 * FREEZE_LBRS_ON_PMI (17.4.7), so that the stack holds still from the
 * PMI until the handler has read it.
 *
 * Feeding: every taken branch ends a block, so the per-block callback
 * knows each one (kind from classify.c, target from the next block). A
 * clock per branch would cost what the model's per-block path costs, so
 * the callback only writes the branch into a per-thread ring; the ring
 * goes to the model, one clock per branch in the order they were taken,
 * just before the block that may overflow a counter is delivered one
 * instruction per clock (that block's own branch rides on its last
 * instruction's clock, so a PMI at the branch sees it, SDM 17.4.8).
 * Between two such deliveries the model sees no other branch and no PMI,
 * so feeding a run of branches late gives the LBRs the state feeding each
 * at its block would, provided the run is whole. The ring keeps only the
 * branches of the types the filter records (a branch the filter
 * suppresses neither writes an entry nor moves TOS, 17.7.2, so leaving it
 * out changes nothing; the model still filters what it is fed), the last
 * SPMU_QEMU_LBR_RING of them. When it is full:
 *   - without call-stack mode, the oldest is overwritten and counted:
 *     every branch in the ring is recorded and the stack holds the last
 *     `depth` records (17.4.8), so of the dropped ones only their number
 *     matters, for MSR_LASTBRANCH_TOS. A replay feeds at most depth + 1
 *     branches (older ones count as dropped) and gives the first as many
 *     clocks as were dropped plus one: TOS advances once per record, and
 *     the copies are overwritten by the depth branches that follow;
 *   - in call-stack mode, whose pushes and pops depend on every call and
 *     return, the ring is fed to the model at once: nothing is dropped.
 *     Before that, a return that follows its call in the ring cancels it
 *     when the stack held fewer than `depth` calls before the call: a push
 *     writes the slot above the top and a pop clears the top (17.9; for
 *     architectural LBRs the push loses the deepest entry and the pop
 *     clears it), and below `depth` calls that slot (the deepest entry)
 *     is already clear, so the pair leaves the LBRs as they were. The
 *     plugin counts the calls on the stack (k, at most depth) to know.
 * With the modelled micro-architecture (model.c), each branch kept carries
 * its predictor's MISPRED and its timing model's cycles (see outcome).
 * Far transfers are not fed: under qemu-user a SYSCALL or INT n goes to
 * a kernel QEMU does not run (a far branch ending in ring 0, which the
 * user-mode filter drops, 17.7.2 CPL_EQ_0), and the return from it is not
 * seen.
 *
 * Reading, at each PMI of a core: MSR_LASTBRANCH_TOS and the FROM/TO
 * (and MSR_LBR_INFO) MSRs from TOS down, or IA32_LBR_x_* from entry 0
 * up, decoded by the record format (PERF_CAPABILITIES[5:0], 17.4.8.1;
 * IA32_LBR_x_INFO); then the freeze is lifted: DEBUGCTL.LBR set again
 * (perfmon v2-v3, 17.4.7) or GLOBAL_STATUS.LBR_Frz cleared through
 * IA32_PERF_GLOBAL_STATUS_RESET (v4, 17.10.2, 18.2.4.2). */
#include "lbr.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <softpmu/error.h>
#include <softpmu/events.h>
#include <softpmu/regs.h>

#include "insn.h"
#include "model.h"
#include "record.h"
#include "vcpu.h"

/* The ring's size: more than the deepest stack (32). The tests build a
 * plugin with a smaller one, to run the full-ring paths often. */
#ifndef SPMU_QEMU_LBR_RING
#define SPMU_QEMU_LBR_RING 64
#endif
_Static_assert(SPMU_QEMU_LBR_RING > SPMU_REC_BRSTACK_MAX,
               "the ring holds more branches than the deepest stack");

/* perf_event_attr.branch_sample_type's bits (<linux/perf_event.h>), the
 * plugin's branch= argument. */
#define B_USER (1u << 0)
#define B_KERNEL (1u << 1)
#define B_HV (1u << 2)
#define B_ANY (1u << 3)
#define B_ANY_CALL (1u << 4)
#define B_ANY_RETURN (1u << 5)
#define B_IND_CALL (1u << 6)
#define B_COND (1u << 10)
#define B_CALL_STACK (1u << 11)
#define B_IND_JUMP (1u << 12)
#define B_CALL (1u << 13)
#define B_NO_FLAGS (1u << 14)
#define B_NO_CYCLES (1u << 15)
#define B_TYPE_SAVE (1u << 16)
#define B_HW_INDEX (1u << 17)
#define B_TYPES                                                                \
  (B_ANY | B_ANY_CALL | B_ANY_RETURN | B_IND_CALL | B_COND | B_CALL_STACK |    \
   B_IND_JUMP | B_CALL)
#define B_KNOWN                                                                \
  (B_USER | B_KERNEL | B_HV | B_TYPES | B_NO_FLAGS | B_NO_CYCLES |             \
   B_TYPE_SAVE | B_HW_INDEX)

/* The branch types by enum spmu_branch_type, as bits. */
#define T(x) (1u << SPMU_BR_##x)
#define T_FED                                                                  \
  (T(JCC) | T(NEAR_REL_CALL) | T(NEAR_IND_CALL) | T(NEAR_RET) |                \
   T(NEAR_IND_JMP) | T(NEAR_REL_JMP))
#define T_ALL (T_FED | T(FAR))

struct ring_br {
  uint64_t from, to;
  uint8_t type;
  uint8_t cancels;   /* a call a return right after it cancels */
  uint8_t predicted; /* spmu_branch's, from the model (see outcome) */
  uint8_t timed;     /* cycles is the model's */
  uint32_t cycles;
};

struct spmu_qemu_lbr {
  struct ring_br ring[SPMU_QEMU_LBR_RING];
  unsigned next;    /* the slot the next branch goes to */
  unsigned n;       /* branches in the ring not yet fed */
  uint64_t dropped; /* branches overwritten before they were fed */
  unsigned k;       /* call-stack mode: calls on the stack, at most depth */
  uint64_t cyc;     /* with the model: its core cycles at the last record */
  /* With TYPE_SAVE: the branch type of each recorded branch site, by its
   * address (open addressing, key 0 empty), as Linux decodes the
   * instruction at FROM for model-specific LBRs. */
  uint64_t *site;
  uint8_t *site_type;
  size_t cap, nsite;
  /* The stack read at the last PMI, most recent first. */
  unsigned nstack;
  uint64_t hw_idx;
  struct spmu_rec_branch stack[SPMU_REC_BRSTACK_MAX];
};

/* The branch types a perf filter asks for (as Linux maps them, which
 * follows the SDM's type bits: 17.7.2 Table 17-11). */
static unsigned types_of(uint64_t b)
{
  unsigned t = 0;

  if (b & B_ANY)
    t |= T_ALL;
  if (b & B_ANY_CALL)
    t |= T(NEAR_REL_CALL) | T(NEAR_IND_CALL) | T(FAR);
  if (b & B_ANY_RETURN)
    t |= T(NEAR_RET) | T(FAR);
  if (b & B_IND_CALL)
    t |= T(NEAR_IND_CALL);
  if (b & B_COND)
    t |= T(JCC);
  if (b & B_IND_JUMP)
    t |= T(NEAR_IND_JMP);
  if (b & B_CALL)
    t |= T(NEAR_REL_CALL);
  if (b & B_CALL_STACK)
    t |= T(NEAR_REL_CALL) | T(NEAR_IND_CALL) | T(NEAR_RET);
  return t;
}

/* MSR_LBR_SELECT: a 1 suppresses; bits 8:2 in Table 17-11's order (JCC,
 * near relative call, near indirect call, near return, near indirect
 * jump, near relative jump, far), bit 0 CPL = 0, bit 1 CPL > 0. */
static uint64_t select_of(uint64_t b, unsigned types)
{
  static const uint8_t order[7] = {
      SPMU_BR_JCC,      SPMU_BR_NEAR_REL_CALL, SPMU_BR_NEAR_IND_CALL,
      SPMU_BR_NEAR_RET, SPMU_BR_NEAR_IND_JMP,  SPMU_BR_NEAR_REL_JMP,
      SPMU_BR_FAR};
  uint64_t s = 0;
  unsigned i;

  if (!(b & B_KERNEL))
    s |= SPMU_LBR_SELECT_CPL_EQ_0;
  if (!(b & B_USER))
    s |= SPMU_LBR_SELECT_CPL_NEQ_0;
  for (i = 0; i < 7; i++)
    if (!(types >> order[i] & 1))
      s |= UINT64_C(1) << (SPMU_LBR_SELECT_JCC_SHIFT + i);
  if (b & B_CALL_STACK)
    s |= SPMU_LBR_SELECT_EN_CALLSTACK;
  return s;
}

/* IA32_LBR_CTL: a 1 records; bits 22:16 JCC, near indirect jump, near
 * relative jump, near indirect call, near relative call, near return,
 * other branches; LBREn, OS, USR, CALL_STACK. */
static uint64_t ctl_of(uint64_t b, unsigned types)
{
  static const uint8_t order[7] = {SPMU_BR_JCC,
                                   SPMU_BR_NEAR_IND_JMP,
                                   SPMU_BR_NEAR_REL_JMP,
                                   SPMU_BR_NEAR_IND_CALL,
                                   SPMU_BR_NEAR_REL_CALL,
                                   SPMU_BR_NEAR_RET,
                                   SPMU_BR_FAR};
  uint64_t c = SPMU_LBR_CTL_LBREN;
  unsigned i;

  if (b & B_KERNEL)
    c |= SPMU_LBR_CTL_OS;
  if (b & B_USER)
    c |= SPMU_LBR_CTL_USR;
  for (i = 0; i < 7; i++)
    if (types >> order[i] & 1)
      c |= UINT64_C(1) << (SPMU_LBR_CTL_COND_SHIFT + i);
  if (b & B_CALL_STACK)
    c |= SPMU_LBR_CTL_CALL_STACK;
  return c;
}

static bool lookup(const spmu_profile *p, const char *name, uint32_t *addr)
{
  return spmu_msr_lookup(p, name, addr) == 0;
}

/* Architectural LBRs: CPUID.1CH (EAX[7:0] depths 8(n+1); EBX[0] CPL
 * filtering, [1] branch filtering, [2] call-stack mode). */
static bool init_arch(const spmu_profile *p, uint64_t b,
                      struct spmu_qemu_lbr_regs *lb, char *why, size_t len)
{
  uint32_t r[4];
  unsigned n;

  spmu_profile_cpuid(p, 0x1C, 0, r);
  for (n = 8; n > 0 && !(r[0] >> (n - 1) & 1); n--)
    ;
  lb->depth = 8 * n;
  if (!lookup(p, "IA32_LBR_CTL", &lb->ctl_msr) ||
      !lookup(p, "IA32_LBR_DEPTH", &lb->depth_msr) ||
      !lookup(p, "IA32_LBR_0_FROM_IP", &lb->from) ||
      !lookup(p, "IA32_LBR_0_TO_IP", &lb->to) ||
      !lookup(p, "IA32_LBR_0_INFO", &lb->info) || lb->depth == 0) {
    snprintf(why, len, "branch=: profile %s: no IA32_LBR_* registers", p->name);
    return false;
  }
  if ((b & B_CALL_STACK) && !(r[1] & 4)) {
    snprintf(why, len,
             "branch=: %s has no LBR call-stack mode (CPUID.1CH:"
             "EBX[2])",
             p->name);
    return false;
  }
  if ((types_of(b) & T_ALL) != T_ALL && !(r[1] & 2)) {
    snprintf(why, len,
             "branch=: %s has no LBR branch filtering "
             "(CPUID.1CH:EBX[1])",
             p->name);
    return false;
  }
  lb->ctl = ctl_of(b, types_of(b));
  return true;
}

/* The model-specific stack: its MSRs by generation (17.5, 17.7, 17.12);
 * MSR_LBR_SELECT from Nehalem (17.7.2), EN_CALLSTACK from format 4
 * (Haswell, 17.9). */
static bool init_legacy(const spmu_profile *p, uint64_t b,
                        struct spmu_qemu_lbr_regs *lb, char *why, size_t len)
{
  lb->fmt = (unsigned)(p->perf_capabilities & SPMU_PERFCAP_LBR_FMT_MASK);
  lb->depth = p->lbr_depth;
  if (!lookup(p, "MSR_LASTBRANCH_TOS", &lb->tos) ||
      !lookup(p, "MSR_LASTBRANCH_0_FROM_IP", &lb->from) ||
      !lookup(p, "MSR_LASTBRANCH_0_TO_IP", &lb->to)) {
    snprintf(why, len, "branch=: profile %s: no LBR stack", p->name);
    return false;
  }
  if (!lookup(p, "MSR_LBR_INFO_0", &lb->info))
    lb->info = 0;
  if (!lookup(p, "MSR_LBR_SELECT", &lb->sel_msr)) {
    lb->sel_msr = 0;
    if ((types_of(b) & T_ALL) != T_ALL || (b & B_CALL_STACK)) {
      snprintf(why, len,
               "branch=: %s has no MSR_LBR_SELECT (SDM Vol. 3B 17.5): it "
               "records every branch, so only the filter 'any'",
               p->name);
      return false;
    }
  }
  if ((b & B_CALL_STACK) && lb->fmt < 4) {
    snprintf(why, len,
             "branch=: %s has no LBR call-stack mode (MSR_LBR_SELECT."
             "EN_CALLSTACK, SDM Vol. 3B 17.9, Haswell and later)",
             p->name);
    return false;
  }
  lb->select = select_of(b, types_of(b));
  return true;
}

bool spmu_qemu_lbr_setup(const spmu_profile *p, uint64_t b,
                         struct spmu_qemu_lbr_regs *lb, char *why, size_t len)
{
  memset(lb, 0, sizeof(*lb));
  if (b & ~(uint64_t)B_KNOWN) {
    snprintf(why, len,
             "branch=%" PRIx64 ": filter bits %" PRIx64 " are not modelled", b,
             b & ~(uint64_t)B_KNOWN);
    return false;
  }
  if (!(b & B_TYPES)) {
    snprintf(why, len, "branch=%" PRIx64 ": no branch type", b);
    return false;
  }
  if (!p->lbr_depth && !(p->features & SPMU_FEAT_ARCH_LBR)) {
    snprintf(why, len,
             "branch=: profile %s has no last branch records (no LBR format "
             "in IA32_PERF_CAPABILITIES, no CPUID leaf 1CH)",
             p->name);
    return false;
  }
  lb->arch = (p->features & SPMU_FEAT_ARCH_LBR) != 0;
  lb->callstack = (b & B_CALL_STACK) != 0;
  /* Every clock here has CPL 3: without USER nothing is recorded. */
  lb->kept = (b & B_USER) ? types_of(b) & T_FED : 0;
  if (!lookup(p, "IA32_PERF_GLOBAL_STATUS_RESET", &lb->reset_msr))
    lb->reset_msr = 0;
  return lb->arch ? init_arch(p, b, lb, why, len)
                  : init_legacy(p, b, lb, why, len);
}

/* ---- programming ------------------------------------------------------ */

static int wr(const spmu_profile *p, spmu_lp *lp, uint32_t msr, uint64_t v,
              char *why, size_t len)
{
  int rc = spmu_wrmsr(lp, msr, v);

  if (rc != 0)
    snprintf(why, len, "WRMSR 0x%x <- 0x%" PRIx64 " on %s: %s", msr, v, p->name,
             spmu_strerror(rc));
  return rc;
}

static int arm_core(const struct spmu_qemu_config *cfg, spmu_lp *lp, char *why,
                    size_t len)
{
  const struct spmu_qemu_lbr_regs *lb = &cfg->lbr;
  const spmu_profile *p = &cfg->profile;
  uint64_t dbg = 0;
  int rc;

  if (lb->arch) {
    if ((rc = wr(p, lp, lb->depth_msr, lb->depth, why, len)) != 0 ||
        (rc = wr(p, lp, lb->ctl_msr, lb->ctl, why, len)) != 0)
      return rc;
  } else if (lb->sel_msr &&
             (rc = wr(p, lp, lb->sel_msr, lb->select, why, len)) != 0) {
    return rc;
  }
  spmu_rdmsr(lp, SPMU_MSR_DEBUGCTL, &dbg);
  dbg |= SPMU_DEBUGCTL_FREEZE_LBRS | (lb->arch ? 0 : SPMU_DEBUGCTL_LBR);
  return wr(p, lp, SPMU_MSR_DEBUGCTL, dbg, why, len);
}

int spmu_qemu_lbr_arm(struct vcpu *v, char *why, size_t len)
{
  unsigned k;
  int rc;

  if (!v->lbr && !(v->lbr = calloc(1, sizeof(*v->lbr)))) {
    snprintf(why, len, "out of memory");
    return SPMU_ENOMEM;
  }
  for (k = 0; k < v->ncores; k++)
    if ((rc = arm_core(v->cfg, spmu_core_lp(v->cores[k], 0), why, len)) != 0)
      return rc;
  return 0;
}

void spmu_qemu_lbr_free(struct vcpu *v)
{
  if (v->lbr) {
    free(v->lbr->site);
    free(v->lbr->site_type);
  }
  free(v->lbr);
  v->lbr = NULL;
}

/* ---- feeding ----------------------------------------------------------- */

/* The LBR type of a block's last instruction (insn.h's kinds), 0 when
 * it is no branch the LBRs are fed: far transfers are not (see above). */
static uint8_t type_of(unsigned kind)
{
  return kind == K_FAR ? 0 : insn_branch_type((uint8_t)kind);
}

/* Call-stack mode: the calls on the stack (at most depth) after a call or
 * a return. */
static void count_call_stack(struct spmu_qemu_lbr *l, uint8_t type,
                             unsigned depth)
{
  if (type == SPMU_BR_NEAR_RET)
    l->k -= l->k > 0;
  else
    l->k += l->k < depth;
}

/* What the LBR entry of a branch the filter keeps says beyond its ends
 * (the block's, just ended: model.c). With the modelled micro-architecture
 * (model=SPEC): MISPRED from its branch predictor, and the cycle count,
 * "the elapsed core clocks since last update to the LBR stack" (SDM Vol.
 * 3B 17.12.1 MSR_LBR_INFO_x.CYC_CNT; IA32_LBR_x_INFO.CYC_CNT with
 * CYC_CNT_VALID), from its timing model's core cycles: since the previous
 * branch kept, or since the thread began. The LBR format decides which of
 * them an entry holds (src/lbr/lbr.c). Without the model nothing is
 * predicted: every branch is given as predicted, with no cycle count. */
static void outcome(struct vcpu *v, uint8_t type, spmu_branch *b)
{
  struct spmu_qemu_lbr *l = v->lbr;
  uint64_t now, d;
  bool misp;

  b->predicted = 1;
  if (!l || !(v->cfg->lbr.kept >> type & 1) ||
      !spmu_qemu_model_branch(v, &misp, &now))
    return;
  d = now - l->cyc;
  l->cyc = now;
  b->predicted = !misp;
  b->flags |= SPMU_BRANCH_CYCLES;
  b->cycles = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
}

const spmu_branch *spmu_qemu_lbr_branch(struct vcpu *v, const struct tb *p,
                                        unsigned var, uint64_t next,
                                        spmu_branch *out)
{
  const struct spmu_qemu_lbr_regs *lb = &v->cfg->lbr;
  uint8_t type = type_of(p->last_kind);

  if (!type || !p->ninsns || (type == SPMU_BR_JCC && !(var & VAR_TAKEN)))
    return NULL;
  /* Fed now, not through the ring: counted on the stack as it goes. */
  if (lb->callstack && v->lbr && (lb->kept >> type & 1))
    count_call_stack(v->lbr, type, lb->depth);
  *out = (spmu_branch){
      .from = p->insn_vaddr[p->ninsns - 1], .to = next, .type = type};
  outcome(v, type, out);
  return out;
}

/* One clock of each core with branch b and no event, n times. */
static void feed(struct vcpu *v, const spmu_branch *b, uint64_t n)
{
  spmu_clock clk = {.cpl = 3, .flags = SPMU_CLK_IA32E, .branch = b};
  unsigned k;

  for (k = 0; k < v->ncores; k++) {
    uint64_t done = 0;

    if (spmu_deliver(spmu_core_lp(v->cores[k], 0), &clk, n, &done) < 0 ||
        done != n)
      v->failed = true;
  }
}

void spmu_qemu_lbr_replay(struct vcpu *v)
{
  const struct spmu_qemu_lbr_regs *lb = &v->cfg->lbr;
  struct spmu_qemu_lbr *l = v->lbr;
  unsigned i, at;

  if (!l)
    return;
  if (!lb->callstack && l->n > lb->depth + 1) {
    l->dropped += l->n - (lb->depth + 1);
    l->n = lb->depth + 1;
  }
  at = (l->next + SPMU_QEMU_LBR_RING - l->n) % SPMU_QEMU_LBR_RING;
  for (i = 0; i < l->n; i++, at = (at + 1) % SPMU_QEMU_LBR_RING) {
    const struct ring_br *r = &l->ring[at];
    spmu_branch b = {.from = r->from,
                     .to = r->to,
                     .predicted = r->predicted,
                     .type = r->type,
                     .flags = r->timed ? SPMU_BRANCH_CYCLES : 0,
                     .cycles = r->cycles};
    feed(v, &b, i == 0 ? l->dropped + 1 : 1);
  }
  l->n = 0;
  l->dropped = 0;
}

/* Call-stack mode: a return right after a call it cancels (see above)
 * takes the call out of the ring; any other return counts a pop. */
static bool callstack_cancels(struct spmu_qemu_lbr *l, uint8_t type,
                              unsigned depth)
{
  unsigned last = (l->next + SPMU_QEMU_LBR_RING - 1) % SPMU_QEMU_LBR_RING;

  if (type != SPMU_BR_NEAR_RET)
    return false;
  if (l->n && l->ring[last].cancels) {
    l->next = last;
    l->n--;
    l->k--;
    return true;
  }
  count_call_stack(l, type, depth);
  return false;
}

/* ---- branch types (TYPE_SAVE) ------------------------------------------ */

/* The slot of address a in a table of cap (a power of 2) slots. */
static size_t site_slot(const uint64_t *site, size_t cap, uint64_t a)
{
  size_t i = (size_t)((a * UINT64_C(0x9E3779B97F4A7C15)) >> 40) & (cap - 1);

  while (site[i] && site[i] != a)
    i = (i + 1) & (cap - 1);
  return i;
}

/* Double the table (to 1024 slots the first time). */
static bool site_grow(struct spmu_qemu_lbr *l)
{
  size_t cap = l->cap ? 2 * l->cap : 1024, i, j;
  uint64_t *site = calloc(cap, sizeof(*site));
  uint8_t *type = calloc(cap, 1);

  if (!site || !type) {
    free(site);
    free(type);
    return false;
  }
  for (i = 0; i < l->cap; i++) {
    if (!l->site[i])
      continue;
    j = site_slot(site, cap, l->site[i]);
    site[j] = l->site[i];
    type[j] = l->site_type[i];
  }
  free(l->site);
  free(l->site_type);
  l->site = site;
  l->site_type = type;
  l->cap = cap;
  return true;
}

/* False when out of memory. */
static bool site_put(struct spmu_qemu_lbr *l, uint64_t a, uint8_t type)
{
  size_t i;

  if (2 * (l->nsite + 1) > l->cap && !site_grow(l))
    return false;
  i = site_slot(l->site, l->cap, a);
  if (!l->site[i]) {
    l->site[i] = a;
    l->nsite++;
  }
  l->site_type[i] = type;
  return true;
}

static uint8_t site_get(const struct spmu_qemu_lbr *l, uint64_t a)
{
  size_t i;

  if (!l->cap || !a)
    return SPMU_BR_UNKNOWN;
  i = site_slot(l->site, l->cap, a);
  return l->site[i] ? l->site_type[i] : SPMU_BR_UNKNOWN;
}

/* perf_branch_entry.type (<linux/perf_event.h> PERF_BR_*) of a branch
 * type, as Linux's x86 driver maps its own: conditional COND (1), direct
 * jump UNCOND (2), indirect jump IND (3), direct call CALL (4), indirect
 * call IND_CALL (5), return RET (6); anything else UNKNOWN (0). */
static uint8_t perf_type(uint8_t type)
{
  static const uint8_t map[] = {
      [SPMU_BR_JCC] = 1,           [SPMU_BR_NEAR_REL_JMP] = 2,
      [SPMU_BR_NEAR_IND_JMP] = 3,  [SPMU_BR_NEAR_REL_CALL] = 4,
      [SPMU_BR_NEAR_IND_CALL] = 5, [SPMU_BR_NEAR_RET] = 6,
  };
  return type < sizeof map ? map[type] : 0;
}

/* IA32_LBR_x_INFO.BR_TYPE ("Architectural Last Branch Records": 0 JCC,
 * 1 near indirect JMP, 2 near relative JMP, 3 near indirect CALL, 4 near
 * relative CALL, 5 near RET) as a branch type; others unknown. */
static uint8_t arch_type(uint64_t info)
{
  static const uint8_t map[6] = {SPMU_BR_JCC,           SPMU_BR_NEAR_IND_JMP,
                                 SPMU_BR_NEAR_REL_JMP,  SPMU_BR_NEAR_IND_CALL,
                                 SPMU_BR_NEAR_REL_CALL, SPMU_BR_NEAR_RET};
  unsigned t = (unsigned)(info >> SPMU_LBR_INFO_BR_TYPE_SHIFT) & 0xf;

  return t < 6 ? map[t] : SPMU_BR_UNKNOWN;
}

void spmu_qemu_lbr_note(struct vcpu *v, const struct tb *p, unsigned var,
                        uint64_t next)
{
  const struct spmu_qemu_lbr_regs *lb = &v->cfg->lbr;
  struct spmu_qemu_lbr *l = v->lbr;
  uint8_t type = type_of(p->last_kind);
  struct ring_br *r;
  spmu_branch b = {.type = type};

  if (!(lb->kept >> type & 1) || (type == SPMU_BR_JCC && !(var & VAR_TAKEN)) ||
      !l)
    return;
  /* A return that cancels its call still updated the LBRs: its cycles
   * count. */
  outcome(v, type, &b);
  if (lb->callstack && callstack_cancels(l, type, lb->depth))
    return;
  if (l->n == SPMU_QEMU_LBR_RING) {
    if (lb->callstack) {
      spmu_qemu_lbr_replay(v);
    } else {
      l->dropped++;
      l->n--;
    }
  }
  r = &l->ring[l->next];
  r->from = p->insn_vaddr[p->ninsns - 1];
  r->to = next;
  r->type = type;
  r->cancels = 0;
  r->predicted = b.predicted;
  r->timed = (b.flags & SPMU_BRANCH_CYCLES) != 0;
  r->cycles = b.cycles;
  if ((v->cfg->branch & B_TYPE_SAVE) && !site_put(l, r->from, type))
    v->failed = true;
  if (lb->callstack && type != SPMU_BR_NEAR_RET) {
    r->cancels = l->k < lb->depth;
    count_call_stack(l, type, lb->depth);
  }
  l->next = (l->next + 1) % SPMU_QEMU_LBR_RING;
  l->n++;
}

/* ---- reading at the PMI ----------------------------------------------- */

static uint64_t rd(spmu_lp *lp, uint32_t msr)
{
  uint64_t v = 0;

  spmu_rdmsr(lp, msr, &v);
  return v;
}

/* Bits [bits-1:0] of v sign-extended. */
static uint64_t sext(uint64_t v, unsigned bits)
{
  uint64_t m = UINT64_C(1) << (bits - 1);

  v &= (m << 1) - 1;
  return (v ^ m) - m;
}

/* One model-specific entry by the record format (17.4.8.1, Table 17-8;
 * 17.12.1 MSR_LBR_INFO_x): format 3 FROM bit 63 MISPRED, address 62:0;
 * format 4 bits 63:61 MISPRED, IN_TX, TSX_ABORT, address 60:0; format 5
 * a 64-bit FROM, the flags and the cycle count in LBR_INFO. Formats 0-2
 * have no flags. */
static struct spmu_rec_branch decode_legacy(unsigned fmt, uint64_t from,
                                            uint64_t to, uint64_t info)
{
  struct spmu_rec_branch e = {.from = from, .to = to};
  uint64_t flags = from;

  if (fmt == 4)
    e.from = sext(from, 61);
  else if (fmt == 3)
    e.from = sext(from, 63);
  if (fmt == 5)
    flags = info;
  if (fmt >= 3)
    e.flags = (flags >> 63 & 1) ? SPMU_REC_BR_MISPRED : SPMU_REC_BR_PREDICTED;
  if (fmt >= 4) {
    e.flags |= (flags >> 62 & 1) ? SPMU_REC_BR_IN_TX : 0;
    e.flags |= (flags >> 61 & 1) ? SPMU_REC_BR_ABORT : 0;
  }
  if (fmt == 5)
    e.cycles = (uint16_t)(info & SPMU_LBR_INFO_CYC_CNT);
  return e;
}

/* An architectural entry: IA32_LBR_x_INFO's MISPRED, IN_TX, TSX_ABORT,
 * and CYC_CNT where CYC_CNT_VALID. */
static struct spmu_rec_branch decode_arch(uint64_t from, uint64_t to,
                                          uint64_t info)
{
  struct spmu_rec_branch e = {.from = from, .to = to};

  e.flags = (info & SPMU_LBR_INFO_MISPRED) ? SPMU_REC_BR_MISPRED
                                           : SPMU_REC_BR_PREDICTED;
  e.flags |= (info & SPMU_LBR_INFO_IN_TX) ? SPMU_REC_BR_IN_TX : 0;
  e.flags |= (info & SPMU_LBR_INFO_TSX_ABORT) ? SPMU_REC_BR_ABORT : 0;
  if (info & SPMU_LBR_INFO_CYC_CNT_VALID)
    e.cycles = (uint16_t)(info & SPMU_LBR_INFO_CYC_CNT);
  return e;
}

/* The stack, most recent first, as Linux's driver reads it: every entry
 * of a model-specific stack from TOS down (in call-stack mode up to the
 * first empty one), architectural entries from 0 up to the first empty
 * one; hw_idx TOS, or all ones for architectural LBRs (no TOS). */
static void read_stack(const struct spmu_qemu_config *cfg,
                       struct spmu_qemu_lbr *l, spmu_lp *lp)
{
  const struct spmu_qemu_lbr_regs *lb = &cfg->lbr;
  unsigned d = lb->arch ? (unsigned)rd(lp, lb->depth_msr) : lb->depth, i;
  unsigned tos = lb->arch ? 0 : (unsigned)rd(lp, lb->tos);

  l->nstack = 0;
  l->hw_idx = lb->arch ? UINT64_MAX : tos;
  for (i = 0; i < d && i < SPMU_REC_BRSTACK_MAX; i++) {
    unsigned at = lb->arch ? i : (tos + d - i) % d;
    uint64_t from = rd(lp, lb->from + at), to = rd(lp, lb->to + at);
    uint64_t info = lb->info ? rd(lp, lb->info + at) : 0;
    struct spmu_rec_branch *e = &l->stack[l->nstack];

    if (!from && (lb->arch || lb->callstack))
      break;
    *e = lb->arch ? decode_arch(from, to, info)
                  : decode_legacy(lb->fmt, from, to, info);
    if (cfg->branch & B_NO_FLAGS)
      e->flags = 0;
    if (cfg->branch & B_NO_CYCLES)
      e->cycles = 0;
    /* TYPE_SAVE: the type architectural LBRs record (with CPUID.1CH:ECX[2]),
     * else the type of the instruction at FROM. */
    if (cfg->branch & B_TYPE_SAVE)
      e->type = perf_type(lb->arch && (cfg->profile.lbr_leaf_1c[2] & 4)
                              ? arch_type(info)
                              : site_get(l, e->from));
    l->nstack++;
  }
}

/* Lift the freeze on PMI: DEBUGCTL.LBR again (v2-v3, 17.4.7), or
 * GLOBAL_STATUS.LBR_Frz through IA32_PERF_GLOBAL_STATUS_RESET (v4,
 * 17.10.2, 18.2.4.2). */
static void unfreeze(const struct spmu_qemu_lbr_regs *lb, spmu_lp *lp)
{
  uint64_t dbg;

  if (lb->reset_msr && (rd(lp, SPMU_MSR_GLOBAL_STATUS) & SPMU_STATUS_LBR_FRZ)) {
    spmu_wrmsr(lp, lb->reset_msr, SPMU_STATUS_LBR_FRZ);
    return;
  }
  dbg = rd(lp, SPMU_MSR_DEBUGCTL);
  if (!lb->arch && !(dbg & SPMU_DEBUGCTL_LBR))
    spmu_wrmsr(lp, SPMU_MSR_DEBUGCTL, dbg | SPMU_DEBUGCTL_LBR);
}

void spmu_qemu_lbr_pmi(struct vcpu *v, unsigned k)
{
  spmu_lp *lp = spmu_core_lp(v->cores[k], 0);

  if (!v->lbr)
    return;
  read_stack(v->cfg, v->lbr, lp);
  unfreeze(&v->cfg->lbr, lp);
}

size_t spmu_qemu_lbr_size(const struct vcpu *v)
{
  return v->lbr ? sizeof(struct spmu_rec_brstack) +
                      v->lbr->nstack * sizeof(struct spmu_rec_branch)
                : 0;
}

void spmu_qemu_lbr_put(const struct vcpu *v, struct spmu_rec_brstack *out)
{
  out->nr = v->lbr->nstack;
  out->hw_idx = v->lbr->hw_idx;
  memcpy(out->entries, v->lbr->stack,
         v->lbr->nstack * sizeof(struct spmu_rec_branch));
}

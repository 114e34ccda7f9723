/* SPDX-License-Identifier: GPL-2.0-or-later */
/* softpmu as the PMU of QEMU's x86 TCG system emulator (QEMU 7.2, 10.0): one
 * softpmu core per machine, one logical processor per vCPU. The patched
 * QEMU calls the hooks of softpmu-qemu.h; this file hands everything to the
 * model and raises what it asks for (#GP, the PMI). How events are counted
 * and what a cycle is: integrations/qemu/README.md.
 *
 * Locking: the core is not thread-safe (softpmu/pmu.h) and QEMU runs each
 * vCPU in its own thread, so every call into the model holds qs.lock. A
 * PMI is only recorded under it and raised after it is released, under the
 * global (iothread) lock that the local APIC needs: qs.lock is never held
 * while taking the global lock. */
/* Not formatted: QEMU's headers, qemu/osdep.h first as QEMU requires. */
/* clang-format off */
#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/main-loop.h"
#include "qemu/thread.h"
#include "qapi/error.h"
#include "cpu.h"
#include "exec/exec-all.h"
#include "exec/helper-proto.h"
#include "hw/boards.h"
#include "hw/i386/apic.h"
#include "migration/vmstate.h"
#include "softpmu-qemu-compat.h"
#include "tcg/helper-tcg.h"
/* clang-format on */

#include <softpmu/softpmu.h>

#include "lines.h"
#include "softpmu-qemu.h"
#include "uarch.h"

/* The lines a block produces: lines.h's, the two clocks, and the lines of
 * the modelled micro-architecture (uarch/, the profile's part).
 *
 * Clocks: without the model, the engine supplies one unhalted core cycle
 * (3CH/00H, IA32_FIXED_CTR1) and one reference cycle (00H/03H,
 * IA32_FIXED_CTR2) per retired instruction (SDM 18.2.2.1, Table 18-2;
 * events.h): TCG has no pipeline. While the model runs (an enabled counter
 * counts one of its events, HF_SPMU_MODEL) both are the timing model's,
 * as `softpmu stat` counts them. A halted vCPU runs no block, so both stop
 * while it is halted as the unhalted clocks do (SDM 18.2.1.2, Table 18-1).
 *
 * From Q_MODELLED on, the lines only the model produces (lines.h, enum
 * mline, the rules of frontends/qemu/model.c): UnHalted Reference Cycles
 * (3CH/01H, the timing model's reference cycles), LLC Reference and LLC
 * Misses (2EH/4FH, 2EH/41H: references to and misses of the last level,
 * fetches and data alike), L1D.REPLACEMENT (51H/01H), Branch Misses
 * Retired (C5H/00H: mispredicted conditional, indirect and return
 * branches) and BR_MISP_RETIRED.CONDITIONAL (C5H/01H). */
enum {
  Q_CYC = NLINES,
  Q_REF,
  Q_REFX,
  Q_LLC_REF,
  Q_LLC_MISS,
  Q_L1D_REPL,
  Q_MISP,
  Q_MISP_COND,
  QN
};
#define Q_MODELLED Q_REFX
static const uint8_t clock_code[QN - NLINES][2] = {
    [Q_CYC - NLINES] = {0x3c, 0x00},
    [Q_REF - NLINES] = {0x00, 0x03},
    [Q_REFX - NLINES] = {0x3c, 0x01},
    [Q_LLC_REF - NLINES] = {0x2e, 0x4f},
    [Q_LLC_MISS - NLINES] = {0x2e, 0x41},
    [Q_L1D_REPL - NLINES] = {0x51, 0x01},
    [Q_MISP - NLINES] = {0xc5, 0x00},
    [Q_MISP_COND - NLINES] = {0xc5, 0x01}};

static const uint8_t *code_of(unsigned i)
{
  return i < NLINES ? line_code[i] : clock_code[i - NLINES];
}

/* A batch never holds more than this per line (spmu_event_line.count is 32
 * bits). */
#define BUDGET_MAX (INT64_C(1) << 31)
#define MSR_MISC_ENABLE                                                        \
  0x1a0 /* QEMU's (env->msr_ia32_misc_enable) but for the perf bits */
#define MSR_DEBUGCTL 0x1d9
#define MSR_PERFEVTSEL0 0x186
#define MSR_FIXED_CTR_CTRL 0x38d
#define MSR_LBR_CTL 0x14ce

struct QSpmuVcpu {
  X86CPU *cpu;
  spmu_lp *lp;
  /* The modelled micro-architecture of this vCPU (NULL: the profile has no
   * part), fed while HF_SPMU_MODEL is set; mdone[Q_CYC..QN) its values
   * handed to the PMU model so far. */
  spmu_uarch *u;
  uint64_t mdone[QN];
  /* Outside exact mode, the last block fed to the model (helper_spmu_model):
   * its CPL, its instructions, its branch (type, from, fall-through). */
  struct qspmu_mprev {
    bool valid;
    uint8_t cpl, type;
    uint16_t n;
    uint64_t from, fall;
  } mprev;
  /* Line increments (per line) this vCPU may still batch without reaching
   * the next PMI or PEBS assist, beyond those granted to the inline batch
   * (env->spmu_budget). < 0: not known, ask the model. */
  int64_t budget;
  uint64_t acc[4][QN]; /* batched, not yet delivered, by CPL */
  unsigned dirty;      /* CPLs (bit) with something in acc */
  /* env->spmu_budget as the helper left it: if it is still that, the
   * running block did not take the inline path. */
  int64_t slow_mark;
  /* The last block the helper put in acc, while it is there
   * (qspmu_restore). */
  bool last_in_acc;
  uint16_t last_cpl, last_n, last_kind, last_loads, last_stores;
  /* Exact mode (HF_SPMU_EXACT): the block that ran last, counted when it
   * ends (the next block starts, or an interrupt or exception is taken),
   * with its taken branch. */
  struct qspmu_pend {
    bool valid;
    bool lines_done; /* its lines went to the model already (flush) */
    bool running;    /* it is the block now running (qspmu_restore) */
    bool model;      /* it feeds the modelled micro-architecture */
    bool closed;     /* and went to it as it ended (model_close) */
    uint8_t cpl, type;
    uint64_t l[QN];
    uint64_t from, fall; /* its last instruction, the one after it */
  } pend;
  /* The instruction a PEBS assist follows, in exact mode (host_state). */
  bool ev_valid;
  uint64_t ev_ip, ev_next_ip;
};

typedef struct QSpmuState {
  spmu_core *core;
  spmu_profile prof;
  QemuMutex lock;
  unsigned ncpus;
  QSpmuVcpu vcpu[SPMU_MAX_THREADS];
  uint32_t *msrs; /* the MSRs the model owns, ascending */
  size_t nmsrs;
  /* The catalogue's MSRs the profile lacks, ascending: #GP, as on the
   * modelled processor, where TCG would read 0 and drop writes. */
  uint32_t *absent;
  size_t nabsent;
  unsigned pmi_pending;    /* logical processors (bit = index), under lock */
  bool any_thread;         /* an enabled counter has AnyThread (SDM 18.2.3) */
  spmu_uarch_config uarch; /* the profile's part (has_model) */
  bool has_model;
  uint8_t *blob; /* migration: the model's snapshot */
  uint32_t blob_len;
} QSpmuState;

static QSpmuState qs;

/* ---- the CPU model and the profile --------------------------------- */

/* DisplayModel values of family 06H by generation (SDM Vol. 4, Table 2-1),
 * for the profile whose PMU they have: Linux picks its event tables from
 * CPUID family/model, so the vCPU's model must be one of its profile's. */
static const struct {
  const char *profile;
  uint8_t models[8];
} parts[] = {
    {"core-duo", {0x0e}},
    {"core2", {0x0f, 0x16, 0x17, 0x1d}},
    {"nehalem", {0x1a, 0x1e, 0x1f, 0x2e, 0x25, 0x2c, 0x2f}},
    {"sandybridge", {0x2a, 0x2d, 0x3a, 0x3e}},
    {"haswell", {0x3c, 0x3f, 0x45, 0x46, 0x3d, 0x47, 0x4f, 0x56}},
    {"skylake", {0x4e, 0x5e, 0x55, 0x8e, 0x9e, 0xa5, 0xa6}},
    {"icelake", {0x7d, 0x7e, 0x6a, 0x6c}},
    {"sapphirerapids", {0x8f}},
};

/* The architectural events, by their bit of CPUID.0AH:EBX (SDM Vol. 3B
 * 18.2.1.2, Table 18-1; bit 7, Topdown Slots, with perfmon v5). */
static const uint8_t arch_event[8][2] = {
    {0x3c, 0x00}, {0xc0, 0x00}, {0x3c, 0x01}, {0x2e, 0x4f},
    {0x2e, 0x41}, {0xc4, 0x00}, {0xc5, 0x00}, {0xa4, 0x01}};

/* The line of a block that is (event, umask) `code`, counting the
 * modelled lines only when model: QN if none. */
static unsigned line_of(const uint8_t code[2], bool model)
{
  unsigned i, n = model ? QN : Q_MODELLED;

  for (i = 0; i < n; i++)
    if (code_of(i)[0] == code[0] && code_of(i)[1] == code[1])
      return i;
  return QN;
}

/* The architectural events of p's CPUID.0AH:EBX vector (EAX[31:24] long)
 * that no line of this engine counts: without a model (a profile with no
 * part: core2, nehalem) LLC references and misses and branch misses;
 * Topdown Slots and the reference cycles of 3CH/01H always. Advertised
 * unavailable (EBX bit set, SDM 18.2.1.2), so that Linux and other guest
 * software leave them alone instead of reading a count of 0
 * (docs/decisions.md). */
static uint32_t unproduced_arch_events(const spmu_profile *p, bool model)
{
  uint32_t m = 0;
  unsigned i;

  for (i = 0; i < 8 && i < p->events_len; i++)
    if (line_of(arch_event[i], model) == QN)
      m |= 1u << i;
  /* UnHalted Reference Cycles (bit 2) count at the TSC's rate (SDM
   * 18.2.1.2, Table 18-1): software compares them with the TSC, which
   * under TCG is the host's time, not the timing model's. Not offered;
   * a counter programmed with 3CH/01H counts the model's reference
   * cycles all the same. */
  return m | (p->events_len > 2 ? 1u << 2 : 0);
}

static bool model_matches(const char *profile, unsigned family, unsigned model)
{
  size_t i, j;

  if (family != 6)
    return false;
  for (i = 0; i < ARRAY_SIZE(parts); i++) {
    if (strcmp(parts[i].profile, profile))
      continue;
    for (j = 0; j < ARRAY_SIZE(parts[i].models) && parts[i].models[j]; j++)
      if (parts[i].models[j] == model)
        return true;
  }
  return false;
}

/* ---- the host callbacks ------------------------------------------------ */

static QSpmuVcpu *vcpu_of(spmu_lp *lp)
{
  return &qs.vcpu[spmu_lp_index(lp)];
}

/* Recorded under qs.lock, raised by raise_pmis() after it. */
static void host_pmi(void *opaque, spmu_lp *lp)
{
  qs.pmi_pending |= 1u << spmu_lp_index(lp);
}

/* The DS save area and the records hold linear addresses (SDM Vol. 3B
 * 17.4.9): translated through the vCPU's page tables. */
static int host_read(void *opaque, spmu_lp *lp, uint64_t la, void *buf,
                     size_t len)
{
  return cpu_memory_rw_debug(CPU(vcpu_of(lp)->cpu), la, buf, len, false);
}

static int host_write(void *opaque, spmu_lp *lp, uint64_t la, const void *buf,
                      size_t len)
{
  return cpu_memory_rw_debug(CPU(vcpu_of(lp)->cpu), la, (void *)buf, len, true);
}

/* The state a PEBS record saves (SDM Vol. 3B 18.6.2.2): the vCPU's, at the
 * start of the instruction the assist follows. */
static void host_state(void *opaque, spmu_lp *lp, spmu_machine_state *st)
{
  CPUX86State *env = &vcpu_of(lp)->cpu->env;
  int i;

  st->rflags = cpu_compute_eflags(env);
  st->ip = env->eip + env->segs[R_CS].base;
  st->next_ip = st->ip;
  if (vcpu_of(lp)->ev_valid) { /* exact mode: counted as it retired */
    st->ip = vcpu_of(lp)->ev_ip;
    st->next_ip = vcpu_of(lp)->ev_next_ip;
  }
  for (i = 0; i < CPU_NB_REGS && i < 16; i++)
    st->gpr[i] = env->regs[i];
}

/* The PMI, through the local APIC's LVT performance-counter entry. */
static void raise_pmis(unsigned pending)
{
  bool locked;
  unsigned i;

  if (!pending)
    return;
  locked = bql_locked();
  if (!locked)
    bql_lock();
  for (i = 0; i < qs.ncpus; i++)
    if ((pending & 1u << i) && qs.vcpu[i].cpu->apic_state)
      apic_deliver_pmi(qs.vcpu[i].cpu->apic_state);
  if (!locked)
    bql_unlock();
}

/* Release qs.lock, then raise the PMIs requested under it. */
static void unlock(void)
{
  unsigned pending = qs.pmi_pending;

  qs.pmi_pending = 0;
  qemu_mutex_unlock(&qs.lock);
  raise_pmis(pending);
}

/* ---- feeding the model ------------------------------------------------ */

static uint8_t clock_flags(const CPUX86State *env)
{
  uint8_t f = 0;

  if (env->hflags & HF_LMA_MASK)
    f |= SPMU_CLK_IA32E;
  if (env->hflags & HF_SMM_MASK)
    f |= SPMU_CLK_SMM;
  return f;
}

static size_t to_lines(const uint64_t l[QN], spmu_event_line *el)
{
  size_t i, k = 0;

  for (i = 0; i < QN; i++)
    if (l[i])
      el[k++] = (spmu_event_line){code_of(i)[0], code_of(i)[1], (uint32_t)l[i]};
  return k;
}

/* One clock of lines l at CPL cpl; under qs.lock. */
static void deliver(QSpmuVcpu *v, unsigned cpl, const uint64_t l[QN])
{
  spmu_event_line el[QN];
  spmu_clock c = {
      .lines = el, .cpl = (uint8_t)cpl, .flags = clock_flags(&v->cpu->env)};

  c.nlines = to_lines(l, el);
  spmu_deliver(v->lp, &c, 1, NULL);
}

static void add_lines(QSpmuVcpu *v, unsigned cpl, const uint64_t l[QN]);
static void kind_lines(uint64_t l[QN], unsigned kind, uint64_t c);

/* Whether the inline batch of CPL cpl is empty (in exact mode it
 * usually is: each block goes to the helper, not to the batch). */
static bool inline_empty(const CPUX86State *env, unsigned cpl)
{
  return !env->spmu_insns[cpl] && !env->spmu_loads[cpl] &&
         !env->spmu_stores[cpl] && !env->spmu_kinds[cpl];
}

/* Take the inline batch of CPL cpl into l (the instructions also as
 * cycles, SDM 18.2.2.1) and empty it. A REP string instruction that
 * repeats has taken its 1 back before its next block adds it again: a
 * negative count stays there. */
static bool take_inline(CPUX86State *env, unsigned cpl, uint64_t l[QN])
{
  int64_t n = (int64_t)env->spmu_insns[cpl];
  int64_t ld = (int64_t)env->spmu_loads[cpl],
          st = (int64_t)env->spmu_stores[cpl];
  uint64_t k = env->spmu_kinds[cpl];
  unsigned kind;
  bool any = false;

  if (n > 0) {
    l[L_INST] += n;
    if (!(env->hflags & HF_SPMU_MODEL_MASK)) /* else the model's clocks */
      l[Q_CYC] += n, l[Q_REF] += n;
    env->spmu_insns[cpl] = 0;
    any = true;
  }
  if (ld > 0) {
    l[L_LOADS] += ld, env->spmu_loads[cpl] = 0;
    any = true;
  }
  if (st > 0) {
    l[L_STORES] += st, env->spmu_stores[cpl] = 0;
    any = true;
  }
  if (!k)
    return any;
  for (kind = QSPMU_COND; kind <= QSPMU_TAKEN; kind++)
    kind_lines(l, kind,
               k >> (QSPMU_KIND_BITS * (kind - 1)) &
                   ((1u << QSPMU_KIND_BITS) - 1));
  env->spmu_kinds[cpl] = 0;
  return true;
}

/* Move the inline batch into acc. */
/* What *batch owes when negative, taken from *line as far as it goes;
 * returns what was taken. */
static uint64_t take_back(uint64_t *batch, uint64_t *line)
{
  uint64_t give;

  if ((int64_t)*batch >= 0)
    return 0;
  give = MIN(-*batch, *line);
  *line -= give;
  *batch += give;
  return give;
}

/* A REP string instruction whose block the helper counted (its 1, its
 * load and store went to v->acc) and that then repeated took them back
 * in the batch, which then holds them negative: the next blocks add to
 * the batch, not to v->acc, so it could stay negative and be dropped.
 * It retires once (SDM Vol. 2B, REP): take them from v->acc (cycles are
 * one per instruction here, as take_inline counts them). */
static void settle_rep(QSpmuVcpu *v, unsigned cpl)
{
  CPUX86State *env = &v->cpu->env;
  uint64_t *a = v->acc[cpl];
  uint64_t given = take_back(&env->spmu_insns[cpl], &a[L_INST]);

  a[Q_CYC] -= MIN(given, a[Q_CYC]);
  a[Q_REF] -= MIN(given, a[Q_REF]);
  take_back(&env->spmu_loads[cpl], &a[L_LOADS]);
  take_back(&env->spmu_stores[cpl], &a[L_STORES]);
}

static void fold(QSpmuVcpu *v)
{
  CPUX86State *env = &v->cpu->env;
  unsigned cpl;

  for (cpl = 0; cpl < 4; cpl++) {
    uint64_t l[QN] = {0};

    if (inline_empty(env, cpl))
      continue; /* no zeroing of l: this runs at every exact block */
    if (take_inline(env, cpl, l))
      add_lines(v, cpl, l);
    settle_rep(v, cpl);
  }
}

/* Hand the batch to the model: one clock per CPL (in exact mode, the
 * lines of the block that runs, whose branch stays pending). The budget
 * guarantees that no PMI or PEBS assist falls inside it. Under qs.lock. */
static void pend_lines_out(QSpmuVcpu *v);

static void flush(QSpmuVcpu *v)
{
  unsigned cpl;

  pend_lines_out(v);
  fold(v);
  for (cpl = 0; cpl < 4; cpl++)
    if (v->dirty & 1u << cpl) {
      deliver(v, cpl, v->acc[cpl]);
      memset(v->acc[cpl], 0, sizeof v->acc[cpl]);
    }
  v->dirty = 0;
  v->last_in_acc = false;
}

static uint64_t deadline(const QSpmuVcpu *v, unsigned cpl, const uint64_t l[QN])
{
  spmu_event_line el[QN];
  spmu_clock c = {
      .lines = el, .cpl = (uint8_t)cpl, .flags = clock_flags(&v->cpu->env)};
  uint64_t d = SPMU_DEADLINE_NEVER;

  c.nlines = to_lines(l, el);
  spmu_deadline(v->lp, &c, &d);
  return d;
}

/* How much can be batched: a clock with every line once, at CPL 0 and at
 * CPL 3 (OS and USR, SDM 18.2.1.1), reaches the next PMI after d clocks,
 * so d - 1 increments of any mix of lines cannot. Under qs.lock. */
static void refresh_budget(QSpmuVcpu *v)
{
  uint64_t unit[QN], d0, d3, d;
  unsigned i;

  for (i = 0; i < QN; i++)
    unit[i] = 1;
  d0 = deadline(v, 0, unit);
  d3 = deadline(v, 3, unit);
  d = d0 < d3 ? d0 : d3;
  v->budget = d - 1 > (uint64_t)BUDGET_MAX ? BUDGET_MAX : (int64_t)(d - 1);
}

/* Whether counter `ctr` of lp is enabled and counts per cycle with
 * CMASK, INV or EDGE (SDM 18.2.1.1, Figure 18-1), or with AnyThread
 * (18.2.3; IA32_FIXED_CTR_CTRL's AnyThread bits, Figure 18-2). */
static void counter_modes(spmu_lp *lp, unsigned ctr, bool *cmask, bool *any)
{
  uint64_t sel = 0;

  if (spmu_counter_enabled(lp, ctr) != 1)
    return;
  if (ctr >= SPMU_COUNTER_FIXED(0)) {
    if (spmu_host_rdmsr(lp, MSR_FIXED_CTR_CTRL, &sel) == SPMU_OK)
      *any |= (sel >> (4 * (ctr - SPMU_COUNTER_FIXED(0)) + 2)) & 1;
    return;
  }
  if (spmu_host_rdmsr(lp, MSR_PERFEVTSEL0 + ctr, &sel) != SPMU_OK)
    return;
  *cmask |= (sel & (SPMU_EVTSEL_E | SPMU_EVTSEL_INV)) ||
            (sel >> SPMU_EVTSEL_CMASK_SHIFT & 0xff);
  *any |= (sel & SPMU_EVTSEL_ANY) != 0;
}

/* Whether a branch of this logical processor is recorded: the LBRs are
 * on (IA32_DEBUGCTL.LBR, SDM Vol. 3B 17.4.1; IA32_LBR_CTL.LBREn of
 * architectural LBRs) or it stores branch records (DEBUGCTL.TR and BTS,
 * 17.4.8). */
static bool records_branches(spmu_lp *lp)
{
  uint64_t debugctl = 0, ctl = 0;

  if (spmu_host_rdmsr(lp, MSR_DEBUGCTL, &debugctl) == SPMU_OK &&
      ((debugctl & SPMU_DEBUGCTL_LBR) ||
       (debugctl & (SPMU_DEBUGCTL_TR | SPMU_DEBUGCTL_BTS)) ==
           (SPMU_DEBUGCTL_TR | SPMU_DEBUGCTL_BTS)))
    return true;
  return spmu_host_rdmsr(lp, MSR_LBR_CTL, &ctl) == SPMU_OK &&
         (ctl & SPMU_LBR_CTL_LBREN);
}

static void pend_resolve(QSpmuVcpu *v, uint64_t to, unsigned to_cpl);
static bool counts_modelled(spmu_lp *lp);
static void model_baseline(QSpmuVcpu *v);

/* How blocks are instrumented (README.md, "Counting"), by the block
 * flags: HF_SPMU while a counter of this logical processor is enabled
 * (SDM 18.2.2) or a branch is recorded; HF_SPMU_EXACT besides when a
 * branch is recorded (each block's taken branch goes to the model), when
 * an enabled counter has AnyThread on any logical processor (each block
 * is counted against the core's current state) or CMASK, INV or EDGE
 * here; with the last, a block is one instruction (one cycle, the
 * engine's rule). Under qs.lock, on v's thread. */
static void sync_flag(QSpmuVcpu *v)
{
  const spmu_profile *p = &qs.prof;
  CPUX86State *env = &v->cpu->env;
  CPUState *cs = CPU(v->cpu);
  bool on = false, cmask = false, any = false, branches, exact, model;
  unsigned i, t;

  for (t = 0; t < qs.ncpus; t++) {
    spmu_lp *lp = spmu_core_lp(qs.core, t);
    bool other = false, *cm = lp == v->lp ? &cmask : &other;

    for (i = 0; i < p->gp; i++)
      counter_modes(lp, SPMU_COUNTER_GP(i), cm, &any);
    for (i = 0; i < 32; i++)
      if (p->fixed_mask & 1u << i)
        counter_modes(lp, SPMU_COUNTER_FIXED(i), cm, &any);
  }
  qs.any_thread = any;
  for (i = 0; i < p->gp && !on; i++)
    on = spmu_counter_enabled(v->lp, SPMU_COUNTER_GP(i)) == 1;
  for (i = 0; i < 32 && !on; i++)
    on = (p->fixed_mask & 1u << i) &&
         spmu_counter_enabled(v->lp, SPMU_COUNTER_FIXED(i)) == 1;
  branches = records_branches(v->lp);
  on = on || branches;
  model = on && v->u && counts_modelled(v->lp);
  exact = on && (branches || any || cmask);
  if (!exact && v->pend.valid) /* leaving exact mode: count what ran */
    pend_resolve(v, UINT64_MAX, env->hflags & HF_CPL_MASK);
  if (model && !(env->hflags & HF_SPMU_MODEL_MASK))
    model_baseline(v); /* counted from now on */
  if (exact || !model)
    v->mprev.valid = false;
  env->hflags &= ~(HF_SPMU_MASK | HF_SPMU_EXACT_MASK | HF_SPMU_MODEL_MASK);
  if (on)
    env->hflags |= HF_SPMU_MASK;
  if (exact)
    env->hflags |= HF_SPMU_EXACT_MASK;
  if (model)
    env->hflags |= HF_SPMU_MODEL_MASK;
  cs->tcg_cflags &= ~CF_COUNT_MASK;
  if (on && cmask)
    cs->tcg_cflags |= 1; /* one instruction per block */
}

/* What c blocks of branch kind `kind` add: the lines of their last
 * instruction's branch (the plugin's rules, lines.h). */
static void kind_lines(uint64_t l[QN], unsigned kind, uint64_t c)
{
  switch (kind) {
  case QSPMU_COND:
    l[L_BR_ALL] += c, l[L_BR_COND] += c;
    break;
  case QSPMU_JMP:
    l[L_BR_ALL] += c, l[L_BR_TAKEN] += c;
    break;
  case QSPMU_CALL:
    l[L_BR_ALL] += c, l[L_BR_CALL] += c, l[L_BR_TAKEN] += c;
    break;
  case QSPMU_RET:
    l[L_BR_ALL] += c, l[L_BR_RET] += c, l[L_BR_TAKEN] += c;
    break;
  case QSPMU_FAR:
    l[L_BR_ALL] += c, l[L_BR_FAR] += c;
    break;
  case QSPMU_TAKEN: /* a taken conditional branch */
    l[L_BR_TAKEN] += c;
    break;
  default:
    break;
  }
}

/* What one block adds: n instructions (and as many cycles), its loads
 * and stores, and its branch. */
static void block_lines(uint64_t l[QN], unsigned n, unsigned kind,
                        unsigned loads, unsigned stores)
{
  l[L_INST] += n;
  l[Q_CYC] += n;
  l[Q_REF] += n;
  l[L_LOADS] += loads;
  l[L_STORES] += stores;
  kind_lines(l, kind, 1);
}

static void add_lines(QSpmuVcpu *v, unsigned cpl, const uint64_t l[QN])
{
  unsigned i;

  for (i = 0; i < QN; i++)
    v->acc[cpl][i] += l[i];
  v->dirty |= 1u << cpl;
}

/* Give the inline batch up to QSPMU_INLINE_MAX of `total` increments (so
 * that no 10-bit count of env->spmu_kinds can fill), keep the rest. */
static void grant(QSpmuVcpu *v, int64_t total)
{
  int64_t g = total < QSPMU_INLINE_MAX ? total : QSPMU_INLINE_MAX;

  v->cpu->env.spmu_budget = g;
  v->budget = total - g;
  v->slow_mark = g;
}

/* The lines of a block of summary `info` (softpmu-qemu.h), translated
 * with block flags `flags`: with HF_SPMU_MODEL the clocks are the
 * model's, not one per instruction. */
static void info_lines(uint64_t l[QN], uint64_t info, uint32_t flags)
{
  block_lines(l, QSPMU_INFO_N(info), qspmu_kind_of(QSPMU_INFO_TYPE(info)),
              QSPMU_INFO_LOADS(info), QSPMU_INFO_STORES(info));
  if (flags & HF_SPMU_MODEL_MASK)
    l[Q_CYC] = l[Q_REF] = 0;
}

/* Run the block that starts here again, one instruction per block, with
 * no interrupt before its first instruction: an overflow may fall inside
 * it. Not under qs.lock. */
static G_NORETURN void step_block(CPUState *cs, uintptr_t ra)
{
  cs->cflags_next_tb = (curr_cflags(cs) & ~CF_COUNT_MASK) | CF_NOIRQ | 1;
  cpu_loop_exit_restore(cs, ra);
}

/* Called at the start of an instrumented block whose inline charge
 * (its instructions + 1: no line of a block grows by more) found the
 * inline budget spent. A block's instructions are counted as it starts
 * (an exception takes back those that did not retire, qspmu_restore). */
void helper_spmu_tb(CPUX86State *env, uint64_t info)
{
  X86CPU *cpu = env_archcpu(env);
  QSpmuVcpu *v = cpu->spmu;
  unsigned n = QSPMU_INFO_N(info);
  unsigned cpl = env->hflags & HF_CPL_MASK;
  int64_t m = (int64_t)n + 1, left;
  uint64_t l[QN] = {0};

  if (!v)
    return;
  env->spmu_budget += m; /* the charge that did not fit */
  fold(v);
  v->last_in_acc = false;
  info_lines(l, info, env->hflags);
  left = v->budget < 0 ? -1 : v->budget + env->spmu_budget;
  if (left >= m) {
    add_lines(v, cpl, l);
    v->last_in_acc = true;
    v->last_cpl = cpl;
    v->last_n = n;
    v->last_kind = qspmu_kind_of(QSPMU_INFO_TYPE(info));
    grant(v, left - m);
    return;
  }
  /* A PMI may fall in this block: exact, one instruction at a time. */
  qemu_mutex_lock(&qs.lock);
  flush(v);
  if (n > 1 && deadline(v, cpl, l) == 1) {
    qemu_mutex_unlock(&qs.lock);
    v->slow_mark = env->spmu_budget;
    step_block(CPU(cpu), GETPC());
  }
  deliver(v, cpl, l);
  refresh_budget(v);
  grant(v, v->budget);
  sync_flag(v);
  unlock();
}

/* ---- the modelled micro-architecture ------------------------------------
 * While an enabled counter of a vCPU counts a modelled event
 * (HF_SPMU_MODEL, which implies exact mode), its blocks feed its own
 * instance of uarch/ (the profile's part; one hierarchy per vCPU, its LLC
 * included, as `softpmu stat` has one per thread), by frontends/qemu/
 * model.c's rules for the part configurations: each block's instruction
 * bytes are fetched as it starts (one fetch through L1I for the block, the
 * rest of its instructions hits in the lines that fetch brought), each
 * guest memory access goes through L1D before it is made (helper_spmu_mem,
 * from the translator's memory hook: linear address, bytes, direction; a
 * locked read-modify-write is a read and a write), and as the block ends
 * its instructions retire in the timing model and its branch goes to the
 * predictors with its outcome (taken when the next block is not its
 * fall-through). What the model counted since it was last asked goes to
 * the PMU model with the block's lines, in the same clock: counters,
 * overflows and PMIs work on it as on any event (SDM Vol. 3B 18.2), a
 * block late at most (the model knows a block's misses when it ends). */

/* The model's values of the lines from Q_CYC on. */
static void model_values(const QSpmuVcpu *v, uint64_t val[QN])
{
  spmu_uarch_counts n;

  spmu_uarch_get_counts(v->u, &n);
  val[Q_CYC] = n.core_cycles;
  val[Q_REF] = val[Q_REFX] = n.ref_cycles;
  val[Q_LLC_REF] = n.llc_refs;
  val[Q_LLC_MISS] = n.llc_misses;
  val[Q_L1D_REPL] = n.l1d_misses;
  val[Q_MISP] = n.bcm + n.bim + n.retm;
  val[Q_MISP_COND] = n.bcm;
}

/* From now on: what the model counted so far is not counted. */
static void model_baseline(QSpmuVcpu *v)
{
  if (v->u)
    model_values(v, v->mdone);
}

/* Add to l what the model counted that the PMU model has not had (at
 * most BUDGET_MAX per line a clock: the rest goes with a later one).
 * Returns the largest amount added to a line. */
static uint64_t model_take(QSpmuVcpu *v, uint64_t l[QN])
{
  uint64_t val[QN], most = 0;
  unsigned i;

  model_values(v, val);
  for (i = Q_CYC; i < QN; i++) {
    uint64_t d = val[i] > v->mdone[i] ? val[i] - v->mdone[i] : 0;

    if (d > (uint64_t)BUDGET_MAX)
      d = (uint64_t)BUDGET_MAX;
    v->mdone[i] += d;
    l[i] += d;
    most = MAX(most, d);
  }
  return most;
}

/* The predictors' kind of each LBR branch type (events.h); 0: none (far
 * branches, interrupts, not known). */
static const uint8_t model_br_kind[8] = {
    [SPMU_BR_JCC] = SPMU_UARCH_BR_COND,
    [SPMU_BR_NEAR_REL_CALL] = SPMU_UARCH_BR_CALL,
    [SPMU_BR_NEAR_IND_CALL] = SPMU_UARCH_BR_IND_CALL,
    [SPMU_BR_NEAR_RET] = SPMU_UARCH_BR_RET,
    [SPMU_BR_NEAR_IND_JMP] = SPMU_UARCH_BR_IND_JUMP,
    [SPMU_BR_NEAR_REL_JMP] = SPMU_UARCH_BR_JUMP};

/* A block starts on v at linear address pc, its bytes through
 * pc + bytes: their fetch. Its instructions after the first hit the
 * lines it brought (spmu_uarch_fetch_hits). On v's thread. */
static void model_begin(QSpmuVcpu *v, uint64_t pc, unsigned bytes, unsigned n)
{
  spmu_uarch_access(v->u, pc, bytes ? bytes : 1, 0, 1);
  if (n > 1)
    spmu_uarch_fetch_hits(v->u, n - 1);
}

static void pend_adjust(QSpmuVcpu *v);

/* The pending block fed to the model has ended, and the next instruction
 * is at `to` (UINT64_MAX: not known): its instructions (those that
 * retired, the repeats of a REP string instruction taken back) retire in
 * the timing model, its branch goes to the predictors, and what the model
 * counted goes with its lines unless they went already (then with the
 * next block's). Under qs.lock. */
static void model_close(QSpmuVcpu *v, uint64_t to)
{
  struct qspmu_pend *p = &v->pend;
  uint8_t kind = p->type < 8 ? model_br_kind[p->type] : 0;
  uint64_t most;

  if (!p->model || p->closed)
    return;
  p->closed = true;
  if (!p->lines_done)
    pend_adjust(v);
  spmu_uarch_retire(v->u, p->l[L_INST]);
  if (kind && to != UINT64_MAX)
    spmu_uarch_branch(v->u, p->from, p->fall, (spmu_uarch_br)kind,
                      to != p->fall, to);
  if (p->lines_done)
    return;
  most = model_take(v, p->l);
  /* the budget counts every line's increments */
  if (v->budget >= 0)
    v->budget = most < (uint64_t)v->budget ? v->budget - (int64_t)most : -1;
}

/* A guest memory access of a block translated with HF_SPMU_MODEL, before
 * it is made: info is its bytes (bits 7:0) and whether it writes (bit 8).
 * The vCPU's own model, on its thread: no lock. */
void helper_spmu_mem(CPUX86State *env, target_ulong addr, uint32_t info)
{
  QSpmuVcpu *v = env_archcpu(env)->spmu;

  if (v && v->u)
    spmu_uarch_access(v->u, addr, info & 0xff, (info >> 8) & 1, 0);
}

/* Whether the next instruction, at `to`, is the last instruction of the
 * block fed before, which did not retire and runs again: a REP string
 * instruction that repeats (QEMU 7.2 runs each iteration as a block of its
 * own; 10.0 leaves the block after 65,535 and comes back), or one an
 * interrupt came before. A REP string instruction retires once, when it
 * stops repeating (SDM Vol. 2B, REP), and is fetched once, as 10.0 runs
 * it within one block. A branch to itself retired: only a block whose
 * last instruction is no branch. */
static bool model_again(const struct qspmu_mprev *m, uint64_t to)
{
  return m->type == SPMU_BR_UNKNOWN && to == m->from;
}

/* Outside exact mode: the last block fed to the model ended, and the next
 * instruction is at `to`: its instructions retire in the timing model
 * (its last not, when it runs again: model_again), its branch goes to the
 * predictors. Returns whether its last instruction runs again. On v's
 * thread, no lock. */
static bool model_prev_end(QSpmuVcpu *v, uint64_t to)
{
  struct qspmu_mprev *m = &v->mprev;
  uint8_t kind = m->type < 8 ? model_br_kind[m->type] : 0;
  bool again;

  if (!m->valid)
    return false;
  m->valid = false;
  again = model_again(m, to);
  spmu_uarch_retire(v->u, m->n - (again && m->n));
  if (kind)
    spmu_uarch_branch(v->u, m->from, m->fall, (spmu_uarch_br)kind,
                      to != m->fall, to);
  return again;
}

/* Called at the start of each block translated with HF_SPMU_MODEL outside
 * exact mode, before its inline charge: the block before ends here
 * (model_prev_end); what the model counted goes to the batch of that
 * block's CPL when the budget beyond the inline batch's allows it, else
 * (the batch with it) to the PMU model at once
 * (an overflow in it requests its PMI now, a block late at most); this
 * block's instructions are fetched, unless it runs the last of the block
 * before again (model_again). */
void helper_spmu_model(CPUX86State *env, uint64_t info)
{
  X86CPU *cpu = env_archcpu(env);
  QSpmuVcpu *v = cpu->spmu;
  uint64_t here = env->eip + env->segs[R_CS].base, md[QN] = {0}, most;
  unsigned cpl = env->hflags & HF_CPL_MASK, mcpl;
  bool again;

  if (!v || !v->u)
    return;
  /* the CPL of the last block fed, even when an exception ended it (the
   * access that faulted was counted at its CPL) */
  mcpl = v->mprev.cpl;
  again = model_prev_end(v, here);
  most = model_take(v, md);
  if (most && v->budget >= (int64_t)most) {
    /* charged to the budget beyond the inline batch's, which goes on */
    add_lines(v, mcpl, md);
    v->budget -= (int64_t)most;
  } else if (most) {
    qemu_mutex_lock(&qs.lock);
    flush(v);
    deliver(v, mcpl, md);
    refresh_budget(v);
    grant(v, v->budget);
    unlock();
  }
  v->mprev = (struct qspmu_mprev){.valid = true,
                                  .cpl = (uint8_t)cpl,
                                  .type = (uint8_t)QSPMU_INFO_TYPE(info),
                                  .n = (uint16_t)QSPMU_INFO_N(info),
                                  .from = here + QSPMU_INFO_OFF(info),
                                  .fall = here + QSPMU_INFO_OFF(info) +
                                          QSPMU_INFO_LEN(info)};
  if (!again) /* a repeat was fetched with its first run */
    model_begin(v, here, QSPMU_INFO_OFF(info) + QSPMU_INFO_LEN(info),
                QSPMU_INFO_N(info));
}

/* Whether an enabled counter of lp counts an event of the model: a
 * general-purpose counter whose event select's event and umask (SDM
 * 18.2.1.1, Figure 18-1) is a modelled line or a clock, or
 * IA32_FIXED_CTR1 or IA32_FIXED_CTR2 (the clocks, SDM 18.2.2.1, Table
 * 18-2). */
static bool counts_modelled(spmu_lp *lp)
{
  const spmu_profile *p = &qs.prof;
  unsigned i;

  for (i = 0; i < p->gp; i++) {
    uint64_t sel = 0;
    uint8_t code[2];

    if (spmu_counter_enabled(lp, SPMU_COUNTER_GP(i)) != 1 ||
        spmu_host_rdmsr(lp, MSR_PERFEVTSEL0 + i, &sel) != SPMU_OK)
      continue;
    code[0] = sel & 0xff;
    code[1] = (sel >> 8) & 0xff;
    if (line_of(code, true) < QN && line_of(code, true) >= Q_CYC)
      return true;
  }
  for (i = 1; i <= 2; i++)
    if ((p->fixed_mask & 1u << i) &&
        spmu_counter_enabled(lp, SPMU_COUNTER_FIXED(i)) == 1)
      return true;
  return false;
}

/* ---- exact mode: each block counted as it ends, with its branch --------- */

/* Take into the pending block's lines what its block adjusted inline:
 * a repeating REP string instruction takes back its instruction, load
 * and store (it retires once, SDM Vol. 2B REP), a conditional branch's
 * taken path adds NEAR_TAKEN. Under qs.lock. */
static void pend_adjust(QSpmuVcpu *v)
{
  struct qspmu_pend *p = &v->pend;
  CPUX86State *env = &v->cpu->env;
  int64_t rep = (int64_t)env->spmu_insns[p->cpl];
  int64_t rl = (int64_t)env->spmu_loads[p->cpl];
  int64_t rs = (int64_t)env->spmu_stores[p->cpl];
  unsigned i;

  if (inline_empty(env, p->cpl))
    return; /* nothing to adjust (INST, CYC and REF stay equal) */
  uint64_t adj[QN] = {0};
  env->spmu_insns[p->cpl] = env->spmu_loads[p->cpl] = 0;
  env->spmu_stores[p->cpl] = 0;
  take_inline(env, p->cpl, adj);
  for (i = 0; i < QN; i++)
    p->l[i] += adj[i];
  p->l[L_INST] = (uint64_t)MAX((int64_t)p->l[L_INST] + rep, 0);
  if (p->model) /* the model's clocks: none from the inline batch */
    p->l[Q_CYC] = p->l[Q_REF] = 0;
  else
    p->l[Q_CYC] = p->l[Q_REF] = p->l[L_INST];
  p->l[L_LOADS] = (uint64_t)MAX((int64_t)p->l[L_LOADS] + rl, 0);
  p->l[L_STORES] = (uint64_t)MAX((int64_t)p->l[L_STORES] + rs, 0);
}

/* Hand the pending block's lines to the model, once. Under qs.lock. */
static void pend_lines_out(QSpmuVcpu *v)
{
  struct qspmu_pend *p = &v->pend;

  if (!p->valid || p->lines_done)
    return;
  pend_adjust(v);
  if (p->model && !p->closed)
    model_take(v, p->l); /* the block goes on: what it counted so far */
  deliver(v, p->cpl, p->l);
  p->lines_done = true;
}

/* Whether the pending block's conditional branch ran its taken path. */
static bool jcc_taken(const QSpmuVcpu *v)
{
  uint64_t k = v->cpu->env.spmu_kinds[v->pend.cpl];

  return (k >> (QSPMU_KIND_BITS * (QSPMU_TAKEN - 1))) &
         ((1u << QSPMU_KIND_BITS) - 1);
}

/* The pending block has ended and the next instruction is at linear
 * address `to` at CPL to_cpl (UINT64_MAX: not known, no branch): its
 * lines and, if it took its branch, the branch (SDM Vol. 3B 17.4.8). A
 * conditional branch took it when its taken path ran; the others always
 * do. Its lines and its branch are one clock, so that an overflow in it
 * freezes the LBRs after its branch (17.4.7), unless the branch changes
 * the CPL: an LBR filter's CPL is the branch target's ("branches ending
 * in ring 0", 17.7.2, Table 17-11), and so is BTS_OFF_OS/USR's here.
 * Under qs.lock. */
static void pend_resolve(QSpmuVcpu *v, uint64_t to, unsigned to_cpl)
{
  struct qspmu_pend *p = &v->pend;
  spmu_branch br = {.from = p->from, .to = to, .predicted = 1};
  spmu_event_line el[QN];
  spmu_clock c = {
      .lines = el, .flags = clock_flags(&v->cpu->env), .branch = &br};
  bool taken;

  if (!p->valid)
    return;
  taken = p->type != SPMU_BR_UNKNOWN && to != UINT64_MAX &&
          (p->type != SPMU_BR_JCC || jcc_taken(v));
  model_close(v, to);
  br.type = p->type;
  v->ev_valid = true; /* a PEBS record's IPs (host_state) */
  v->ev_ip = p->from;
  v->ev_next_ip = to == UINT64_MAX ? p->fall : to;
  if (taken && !p->lines_done && to_cpl == p->cpl) {
    pend_adjust(v);
    c.cpl = p->cpl;
    c.nlines = to_lines(p->l, el);
    spmu_deliver(v->lp, &c, 1, NULL);
  } else {
    pend_lines_out(v);
    if (taken) {
      c.cpl = (uint8_t)to_cpl;
      c.nlines = 0;
      spmu_deliver(v->lp, &c, 1, NULL);
    }
  }
  v->ev_valid = false;
  p->valid = false;
}

/* Whether a PMI for v's logical processor is waiting (raised at
 * unlock). */
static bool pmi_waiting(const QSpmuVcpu *v)
{
  return qs.pmi_pending & 1u << spmu_lp_index(v->lp);
}

/* Called at the start of every block in exact mode: the block before
 * ends here (pend_resolve, with this block's start as its branch's
 * target); this block becomes the pending one. A PMI its end requested
 * is taken before this block's first instruction; a block in which an
 * overflow may fall runs one instruction per block. */
void helper_spmu_exact(CPUX86State *env, uint64_t info)
{
  X86CPU *cpu = env_archcpu(env);
  QSpmuVcpu *v = cpu->spmu;
  struct qspmu_pend *p;
  unsigned n = QSPMU_INFO_N(info), cpl = env->hflags & HF_CPL_MASK;
  uint64_t here = env->eip + env->segs[R_CS].base, l[QN] = {0};

  if (!v)
    return;
  p = &v->pend;
  qemu_mutex_lock(&qs.lock);
  pend_resolve(v, here, cpl);
  flush(v); /* anything batched before exact mode */
  if (pmi_waiting(v)) {
    v->budget = -1;
    unlock();
    cpu_loop_exit_restore(CPU(cpu), GETPC());
  }
  info_lines(l, info, env->hflags);
  if (qs.any_thread || v->budget < (int64_t)n + 1)
    refresh_budget(v);
  if (v->budget >= (int64_t)n + 1)
    v->budget -= n + 1;
  else if (n > 1 && deadline(v, cpl, l) == 1) {
    v->budget = -1;
    qemu_mutex_unlock(&qs.lock);
    step_block(CPU(cpu), GETPC());
  } else
    v->budget = -1;
  p->model = (env->hflags & HF_SPMU_MODEL_MASK) && v->u;
  memcpy(p->l, l, sizeof l);
  p->valid = p->running = true;
  p->lines_done = p->closed = false;
  p->cpl = (uint8_t)cpl;
  p->type = (uint8_t)QSPMU_INFO_TYPE(info);
  p->from = here + QSPMU_INFO_OFF(info);
  p->fall = p->from + QSPMU_INFO_LEN(info);
  unlock();
  if (p->model)
    model_begin(v, here, QSPMU_INFO_OFF(info) + QSPMU_INFO_LEN(info), n);
}

void qspmu_interrupt(X86CPU *cpu, int is_int)
{
  QSpmuVcpu *v = cpu->spmu;
  CPUX86State *env = &cpu->env;
  struct qspmu_pend *p;
  uint64_t at = env->eip + env->segs[R_CS].base;

  if (v && v->u && !(env->hflags & HF_SPMU_EXACT_MASK))
    model_prev_end(v, at); /* the block before ends at `at` */
  if (!v || !(env->hflags & HF_SPMU_EXACT_MASK))
    return;
  p = &v->pend;
  qemu_mutex_lock(&qs.lock);
  p->running = false;
  if (is_int && p->valid && p->type == SPMU_BR_FAR) {
    /* INT n, INT3, INTO: the block's last instruction is this branch;
     * its target is the handler, where the next block starts */
    pend_lines_out(v);
  } else {
    /* an interrupt, or an exception (SDM Vol. 3A 6.5: a fault reports
     * the faulting instruction, a trap the next): the block before
     * ends at `at`, and the event is a far branch from there (SDM Vol.
     * 3B 17.4.8: LBR_SELECT.FAR_BRANCH covers interrupts and
     * exceptions) */
    pend_resolve(v, at, env->hflags & HF_CPL_MASK);
    memset(p, 0, sizeof *p);
    p->valid = p->lines_done = true;
    p->type = SPMU_BR_FAR;
    p->cpl = env->hflags & HF_CPL_MASK;
    p->from = at;
    p->fall = UINT64_MAX;
  }
  unlock();
}

/* An exception stopped the block at instruction idx (data, the
 * instruction's restore word): what did not retire is taken back. */
void qspmu_restore(X86CPU *cpu, uint32_t tb_flags, unsigned tb_n, uint64_t data)
{
  QSpmuVcpu *v = cpu->spmu;
  CPUX86State *env = &cpu->env;
  unsigned idx = data & 0xffff, kind = qspmu_kind_of((data >> 16) & 0xf);
  unsigned lrem = (data >> 20) & 0x3ff, srem = (data >> 30) & 0x3ff;
  unsigned cpl = tb_flags & HF_CPL_MASK, notdone, undo;
  uint64_t *a, b[QN] = {0};
  unsigned i;

  if (!v || idx >= tb_n)
    return;
  /* Instruction idx faulted (or is re-executed): it and those after it,
   * the branch last, did not retire. */
  notdone = tb_n - idx;
  if (tb_flags & HF_SPMU_EXACT_MASK) {
    struct qspmu_pend *p = &v->pend;

    if (!p->valid || !p->running || p->lines_done)
      return; /* not this block's, or delivered already */
    block_lines(b, notdone, kind, lrem, srem);
    for (i = 0; i < QN; i++)
      p->l[i] -= MIN(b[i], p->l[i]);
    p->type = SPMU_BR_UNKNOWN; /* its branch was not taken */
    p->running = false;
    return;
  }
  v->mprev.type = SPMU_BR_UNKNOWN; /* the model: its branch did not run */
  if (env->spmu_budget != v->slow_mark) { /* the block went inline */
    env->spmu_insns[cpl] -= notdone;
    env->spmu_kinds[cpl] -= QSPMU_KIND_ONE(kind);
    env->spmu_loads[cpl] -= lrem;
    env->spmu_stores[cpl] -= srem;
    return;
  }
  if (!v->last_in_acc)
    return; /* delivered already, or not counted */
  v->last_in_acc = false;
  undo = notdone < v->last_n ? notdone : v->last_n;
  a = v->acc[v->last_cpl];
  block_lines(b, undo, v->last_kind, lrem, srem);
  if (tb_flags & HF_SPMU_MODEL_MASK) /* the model's clocks */
    b[Q_CYC] = b[Q_REF] = 0;
  for (i = 0; i < QN; i++)
    a[i] -= b[i];
}

/* ---- the guest's instructions ------------------------------------------ */

static int cmp_u32(const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

  return x < y ? -1 : x > y;
}

static bool owned(uint32_t msr)
{
  return msr != MSR_MISC_ENABLE &&
         bsearch(&msr, qs.msrs, qs.nmsrs, sizeof *qs.msrs, cmp_u32);
}

/* An MSR of the catalogue that the modelled processor does not have
 * (spmu_msr_absent_list: another family's LBR stack, counters past the
 * profile's, ...): RDMSR and WRMSR raise #GP(0) (SDM Vol. 2B RDMSR,
 * WRMSR), as software probing a range by its #GP expects. */
static void fault_absent(CPUX86State *env, uint32_t msr, uintptr_t ra)
{
  if (msr != MSR_MISC_ENABLE &&
      bsearch(&msr, qs.absent, qs.nabsent, sizeof *qs.absent, cmp_u32))
    raise_exception_err_ra(env, EXCP0D_GPF, 0, ra);
}

bool qspmu_active(void)
{
  return qs.core != NULL;
}

/* CPUID leaf index, sub-leaf count: the bits the model owns are the
 * model's. Leaf 04H (the caches) stays QEMU's: its EAX[25:14] and
 * EAX[31:26] describe the machine's topology (SDM Vol. 2A CPUID, Table
 * 3-8), which QEMU builds and the model's single-core view would
 * contradict. */
void qspmu_cpuid(CPUX86State *env, uint32_t index, uint32_t count,
                 uint32_t regs[4])
{
  QSpmuVcpu *v = env_archcpu(env)->spmu;
  uint32_t own[4], m[4];
  int i;

  if (!v || index == 4 ||
      spmu_cpuid_owned_subleaf(index, count, own) != SPMU_OK ||
      spmu_cpuid(v->lp, index, count, m) != SPMU_OK)
    return;
  for (i = 0; i < 4; i++)
    regs[i] = (regs[i] & ~own[i]) | (m[i] & own[i]);
}

/* The other vCPUs leave their blocks and re-read their block flags
 * (qspmu_exec_enter): an AnyThread counter came or went. */
static void kick_others(const QSpmuVcpu *v)
{
  unsigned i;

  for (i = 0; i < qs.ncpus; i++)
    if (&qs.vcpu[i] != v && qs.vcpu[i].cpu)
      cpu_exit(CPU(qs.vcpu[i].cpu));
}

bool qspmu_wrmsr(CPUX86State *env, uint32_t msr, uint64_t val, uintptr_t ra)
{
  QSpmuVcpu *v = env_archcpu(env)->spmu;
  bool any;
  int rc;

  if (!v)
    return false;
  fault_absent(env, msr, ra);
  if (!owned(msr))
    return false;
  qemu_mutex_lock(&qs.lock);
  flush(v);
  any = qs.any_thread;
  rc = spmu_wrmsr(v->lp, msr, val);
  v->budget = -1; /* ask the model again */
  v->slow_mark = env->spmu_budget = 0;
  sync_flag(v);
  if (any != qs.any_thread)
    kick_others(v);
  unlock();
  if (rc == SPMU_GP) /* the model's #GP(0) (SDM Vol. 2B WRMSR) */
    raise_exception_err_ra(env, EXCP0D_GPF, 0, ra);
  return true;
}

/* IA32_MISC_ENABLE's bits 7 (performance monitoring available), 11 (BTS
 * unavailable) and 12 (PEBS unavailable) are the profile's, read-only
 * (SDM Vol. 4, Table 2-2; Core Duo: PEBS unavailable); its other bits
 * stay QEMU's, which keeps and writes the MSR. */
#define MISC_ENABLE_PERF_BITS                                                  \
  (UINT64_C(1) << 7 | UINT64_C(1) << 11 | UINT64_C(1) << 12)

static bool read_misc_enable(QSpmuVcpu *v, const CPUX86State *env,
                             uint64_t *val)
{
  uint32_t msr = MSR_MISC_ENABLE;
  uint64_t m = 0;
  int rc;

  if (!bsearch(&msr, qs.msrs, qs.nmsrs, sizeof *qs.msrs, cmp_u32))
    return false;
  qemu_mutex_lock(&qs.lock);
  rc = spmu_rdmsr(v->lp, msr, &m);
  unlock();
  if (rc != SPMU_OK)
    return false;
  *val = (env->msr_ia32_misc_enable & ~MISC_ENABLE_PERF_BITS) |
         (m & MISC_ENABLE_PERF_BITS);
  return true;
}

bool qspmu_rdmsr(CPUX86State *env, uint32_t msr, uint64_t *val, uintptr_t ra)
{
  QSpmuVcpu *v = env_archcpu(env)->spmu;
  int rc;

  if (!v)
    return false;
  if (msr == MSR_MISC_ENABLE)
    return read_misc_enable(v, env, val);
  fault_absent(env, msr, ra);
  if (!owned(msr))
    return false;
  qemu_mutex_lock(&qs.lock);
  flush(v);
  rc = spmu_rdmsr(v->lp, msr, val);
  v->slow_mark = env->spmu_budget;
  unlock();
  if (rc == SPMU_GP)
    raise_exception_err_ra(env, EXCP0D_GPF, 0, ra);
  return true;
}

bool qspmu_rdpmc(CPUX86State *env, uintptr_t ra)
{
  QSpmuVcpu *v = env_archcpu(env)->spmu;
  uint64_t val = 0;
  int rc;

  if (!v)
    return false;
  qemu_mutex_lock(&qs.lock);
  flush(v);
  rc = spmu_rdpmc(v->lp, (uint32_t)env->regs[R_ECX], env->hflags & HF_CPL_MASK,
                  env->cr[4] & CR4_PCE_MASK, &val);
  v->slow_mark = env->spmu_budget;
  unlock();
  if (rc == SPMU_GP) /* SDM Vol. 2B RDPMC: #GP(0) */
    raise_exception_err_ra(env, EXCP0D_GPF, 0, ra);
  env->regs[R_EAX] = (uint32_t)val;
  env->regs[R_EDX] = (uint32_t)(val >> 32);
  return true;
}

void qspmu_exec_enter(X86CPU *cpu)
{
  QSpmuVcpu *v = cpu->spmu;

  if (!v)
    return;
  qemu_mutex_lock(&qs.lock);
  sync_flag(v);
  qemu_mutex_unlock(&qs.lock);
}

/* ---- the machine: reset, migration --------------------------------------- */

static void forget_batches(void)
{
  unsigned i;

  for (i = 0; i < qs.ncpus; i++) {
    QSpmuVcpu *v = &qs.vcpu[i];

    memset(v->acc, 0, sizeof v->acc);
    v->dirty = 0;
    v->budget = -1;
    v->last_in_acc = false;
    memset(&v->pend, 0, sizeof v->pend);
    model_baseline(v);
    if (v->cpu) {
      CPUX86State *env = &v->cpu->env;

      memset(env->spmu_insns, 0, sizeof env->spmu_insns);
      memset(env->spmu_kinds, 0, sizeof env->spmu_kinds);
      memset(env->spmu_loads, 0, sizeof env->spmu_loads);
      memset(env->spmu_stores, 0, sizeof env->spmu_stores);
      v->slow_mark = env->spmu_budget = 0;
    }
  }
}

/* A system reset is RESET# (SDM Vol. 3A 9.1.1): the PMU's power-on state. */
static void qspmu_reset(void *opaque)
{
  unsigned i;

  qemu_mutex_lock(&qs.lock);
  spmu_core_reset(qs.core);
  for (i = 0; i < qs.ncpus; i++)
    if (qs.vcpu[i].u)
      spmu_uarch_reset(qs.vcpu[i].u);
  forget_batches();
  qemu_mutex_unlock(&qs.lock);
}

/* The vCPUs are stopped: their batches go to the model, whose snapshot is
 * the section's content. */
static int qspmu_pre_save(void *opaque)
{
  size_t len = 0;
  unsigned i;
  int rc;

  qemu_mutex_lock(&qs.lock);
  for (i = 0; i < qs.ncpus; i++)
    if (qs.vcpu[i].lp)
      flush(&qs.vcpu[i]);
  spmu_core_save(qs.core, NULL, 0, &len);
  g_free(qs.blob);
  qs.blob = g_malloc(len);
  rc = spmu_core_save(qs.core, qs.blob, len, &len);
  qs.blob_len = (uint32_t)len;
  qemu_mutex_unlock(&qs.lock);
  return rc == SPMU_OK ? 0 : -EINVAL;
}

static int qspmu_post_load(void *opaque, int version_id)
{
  int rc;

  qemu_mutex_lock(&qs.lock);
  rc = spmu_core_restore(qs.core, qs.blob, qs.blob_len);
  forget_batches();
  qemu_mutex_unlock(&qs.lock);
  g_free(qs.blob);
  qs.blob = NULL;
  if (rc != SPMU_OK) {
    error_report("softpmu: the snapshot does not restore: %s",
                 spmu_strerror(rc));
    return -EINVAL;
  }
  return 0;
}

static const VMStateDescription vmstate_qspmu = {
    .name = "softpmu",
    .version_id = 1,
    .minimum_version_id = 1,
    .pre_save = qspmu_pre_save,
    .post_load = qspmu_post_load,
    .fields = (VMStateField[]){VMSTATE_UINT32(blob_len, QSpmuState),
                               VMSTATE_VBUFFER_ALLOC_UINT32(blob, QSpmuState, 0,
                                                            NULL, blob_len),
                               VMSTATE_END_OF_LIST()},
};

/* The profile's part, the micro-architecture the model runs
 * (spmu_profile_part_name: the profiles from sandybridge on); none for the
 * others, whose modelled events stay unavailable. */
static void machine_init_model(void)
{
  const char *part = spmu_profile_part_name(&qs.prof);
  char spec[64], err[256];

  qs.has_model =
      part && snprintf(spec, sizeof spec, "part:%s", part) < (int)sizeof spec &&
      spmu_uarch_config_parse(spec, &qs.uarch, err, sizeof err) == 0;
}

static bool machine_init_core(X86CPU *cpu, const char *profile, Error **errp)
{
  const CPUX86State *env = &cpu->env;
  unsigned family = (env->cpuid_version >> 8) & 0xf;
  unsigned model =
      ((env->cpuid_version >> 4) & 0xf) | ((env->cpuid_version >> 12) & 0xf0);
  spmu_host host = {.pmi = host_pmi,
                    .read_mem = host_read,
                    .write_mem = host_write,
                    .machine_state = host_state};
  char why[512];

  if (family == 0xf)
    family += (env->cpuid_version >> 20) & 0xff;
  if (spmu_profile_parse(profile, &qs.prof, why, sizeof why) != SPMU_OK) {
    error_setg(errp, "softpmu=%s: %s", profile, why);
    return false;
  }
  if (!model_matches(qs.prof.name, family, model)) {
    error_setg(errp,
               "softpmu=%s does not match the CPU model (family %u, model "
               "0x%x): Linux picks its PMU tables from CPUID, use a CPU model "
               "of that generation (e.g. Skylake-Client with skylake, "
               "Icelake-Server with icelake)",
               profile, family, model);
    return false;
  }
  qs.ncpus = current_machine->smp.max_cpus;
  if (qs.ncpus > SPMU_MAX_THREADS) {
    error_setg(errp,
               "softpmu: at most %d vCPUs (one core's logical "
               "processors)",
               SPMU_MAX_THREADS);
    return false;
  }
  qs.prof.threads = (uint8_t)qs.ncpus;
  machine_init_model();
  qs.prof.events_unavailable |= unproduced_arch_events(&qs.prof, qs.has_model);
  if (spmu_profile_validate(&qs.prof, why, sizeof why) != SPMU_OK ||
      spmu_core_new(&qs.prof, &qs.core) != SPMU_OK) {
    error_setg(errp, "softpmu=%s: %s", profile, why);
    return false;
  }
  spmu_core_set_host(qs.core, &host);
  qs.nmsrs = spmu_msr_list(&qs.prof, NULL, 0);
  qs.msrs = g_new(uint32_t, qs.nmsrs);
  spmu_msr_list(&qs.prof, qs.msrs, qs.nmsrs);
  qs.nabsent = spmu_msr_absent_list(&qs.prof, NULL, 0);
  qs.absent = g_new(uint32_t, qs.nabsent);
  spmu_msr_absent_list(&qs.prof, qs.absent, qs.nabsent);
  qemu_mutex_init(&qs.lock);
  vmstate_register(NULL, 0, &vmstate_qspmu, &qs);
  qemu_register_reset(qspmu_reset, NULL);
  return true;
}

/* CPUID leaf 00H EAX reaches every leaf the profile enumerates (1CH for
 * architectural LBRs): QEMU answers a leaf above its maximum as the
 * maximum (SDM Vol. 2A CPUID), and its automatic level stops at 0DH.
 * Raised only: a higher maximum of the CPU model stays. */
static void raise_max_leaf(X86CPU *cpu, QSpmuVcpu *v)
{
  uint32_t r[4];

  if (spmu_cpuid(v->lp, 0, 0, r) == SPMU_OK && cpu->env.cpuid_level < r[0])
    cpu->env.cpuid_level = r[0];
}

void qspmu_realize(X86CPU *cpu, const char *profile, Error **errp)
{
  unsigned idx = CPU(cpu)->cpu_index;
  QSpmuVcpu *v;

  if (!profile || !*profile)
    return;
  if (!tcg_enabled()) {
    error_setg(errp, "softpmu=%s needs TCG (-accel tcg)", profile);
    return;
  }
  if (!qs.core && !machine_init_core(cpu, profile, errp))
    return;
  if (idx >= qs.ncpus) {
    error_setg(errp, "softpmu: vCPU %u has no logical processor", idx);
    return;
  }
  v = &qs.vcpu[idx];
  if (qs.has_model && !v->u) {
    char why[256];

    v->u = spmu_uarch_new(&qs.uarch, why, sizeof why);
    if (!v->u) {
      error_setg(errp, "softpmu: the model of part %s: %s", qs.uarch.name, why);
      return;
    }
  }
  v->cpu = cpu;
  v->lp = spmu_core_lp(qs.core, idx);
  v->budget = -1;
  cpu->spmu = v;
  raise_max_leaf(cpu, v);
}

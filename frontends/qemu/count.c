/* Executions of translated blocks, counted per block and variant and
 * handed to the model in bulk; per instruction only in the block that
 * brings a sampling counter to overflow (README.md, "What a clock is").
 *
 * A small callback per block execution counts the block that ran before
 * it on the same thread, now that the new block tells whether its branch
 * was taken: taken when the new block does not start at its fall-through.
 * Each variant (taken or not, a REP continuation or not) goes to the model
 * as one batch of identical clocks (spmu_deliver with clocks = executions)
 * when the thread or the process ends, when a count would overflow, and,
 * in record mode, before the block that reaches an overflow. */
#include <stdlib.h>
#include <string.h>

#include <softpmu/error.h>
#include <softpmu/events.h>

#include "plugin.h"

/* An execution count is handed to the model when it reaches this (the
 * tests build a plugin with a small one, to run that path). */
#ifndef SPMU_QEMU_COUNT_MAX
#define SPMU_QEMU_COUNT_MAX UINT32_MAX
#endif

/* One clock's lines for the variant var of block t. */
static void variant_lines(const struct tb *t, unsigned var,
                          spmu_event_line lines[NLINES])
{
  unsigned l;

  for (l = 0; l < NLINES; l++) {
    uint32_t n = t->total[l];

    if (var & VAR_CONT)
      n -= t->first[l];
    if (l == L_BR_TAKEN && (var & VAR_TAKEN))
      n++;
    lines[l] = (spmu_event_line){
        .event = line_code[l][0], .umask = line_code[l][1], .count = n};
  }
}

/* What the variant var of block t adds to line l. */
static uint64_t variant_count(const struct tb *t, unsigned var, int l)
{
  uint64_t n;

  if (l < 0)
    return 0;
  n = t->total[l];
  if (var & VAR_CONT)
    n -= t->first[l];
  if (l == L_BR_TAKEN && (var & VAR_TAKEN))
    n++;
  return n;
}

/* A PMI of core k at the instruction at ip: the agent's PMI flow (SDM Vol.
 * 3B 18.2.2; it reloads the counters), and a sample for each event whose
 * counter overflowed. */
static void take_pmi(struct vcpu *v, unsigned k, uint64_t ip)
{
  uint64_t ovf = 0;
  unsigned i;

  if (spmu_agent_handle_pmi(v->agents[k], &ovf) != 0)
    g.failed = true;
  for (i = 0; i < g.nevents; i++)
    if (v->core_of[i] == k && (ovf >> v->counter_of[i] & 1))
      spmu_qemu_sample(v, i, ip);
}

/* One clock repeated execs times on every core of v; ip: the instruction
 * a PMI is taken at (one clock per instruction near an overflow). One
 * clock = one block execution, or one instruction (README.md); cpl 3:
 * qemu-user runs user-mode code only. */
static void deliver_clock(struct vcpu *v, spmu_event_line lines[NLINES],
                          uint64_t execs, uint64_t ip)
{
  spmu_clock clk = {
      .lines = lines, .nlines = NLINES, .cpl = 3, .flags = SPMU_CLK_IA32E};
  unsigned k;

  for (k = 0; k < v->ncores; k++) {
    uint64_t left = execs;

    while (left) {
      uint64_t done = 0;
      int rc = spmu_deliver(spmu_core_lp(v->cores[k], 0), &clk, left, &done);

      if (rc < 0 || done == 0) {
        g.failed = true; /* reported at exit */
        break;
      }
      if (rc & SPMU_TICK_PMI)
        take_pmi(v, k, ip);
      left -= done;
    }
  }
}

void spmu_qemu_deliver(struct vcpu *v, const struct tb *t, unsigned var,
                       uint64_t execs)
{
  spmu_event_line lines[NLINES];

  variant_lines(t, var, lines);
  if (lines[L_INST].count == 0)
    return; /* nothing retired (a repeat of a REP string instruction) */
  deliver_clock(v, lines, execs,
                t->ninsns ? t->insn_vaddr[t->ninsns - 1] : t->vaddr);
}

/* The variant var of block t, one clock per instruction, so that a PMI is
 * taken at the instruction whose event made the counter overflow. */
static void deliver_insns(struct vcpu *v, const struct tb *t, unsigned var)
{
  spmu_event_line lines[NLINES];
  uint32_t n[NLINES];
  uint32_t j;
  unsigned l;

  for (j = (var & VAR_CONT) ? 1 : 0; j < t->ninsns; j++) {
    spmu_qemu_insn_lines(&t->insn[j], n);
    if (j + 1 == t->ninsns && t->cond_last && (var & VAR_TAKEN))
      n[L_BR_TAKEN] = 1;
    for (l = 0; l < NLINES; l++)
      lines[l] = (spmu_event_line){
          .event = line_code[l][0], .umask = line_code[l][1], .count = n[l]};
    v->insns += n[L_INST];
    deliver_clock(v, lines, 1, t->insn_vaddr[j]);
  }
}

static bool grow_counts(struct vcpu *v, uint32_t id)
{
  size_t cap = v->cap ? v->cap : 1024;
  uint32_t(*n)[NVARIANTS];

  while (cap <= id)
    cap *= 2;
  n = realloc(v->counts, cap * sizeof(*n));
  if (!n)
    return false;
  memset(n + v->cap, 0, (cap - v->cap) * sizeof(*n));
  v->counts = n;
  v->cap = cap;
  return true;
}

static bool list_dirty(struct vcpu *v, uint32_t entry)
{
  if (v->ndirty == v->dirtycap) {
    size_t cap = v->dirtycap ? v->dirtycap * 2 : 1024;
    uint32_t *d = realloc(v->dirty, cap * sizeof(*d));

    if (!d)
      return false;
    v->dirty = d;
    v->dirtycap = cap;
  }
  v->dirty[v->ndirty++] = entry;
  return true;
}

/* One more execution of variant var of block p. */
static void count_exec(struct vcpu *v, const struct tb *p, unsigned var)
{
  uint32_t *c;

  if (p->id >= v->cap && !grow_counts(v, p->id)) {
    spmu_qemu_deliver(v, p, var, 1);
    return;
  }
  c = &v->counts[p->id][var];
  if (*c == 0 && !list_dirty(v, p->id * NVARIANTS + var)) {
    spmu_qemu_deliver(v, p, var, 1);
    return;
  }
  /* Keep 1 so that the entry stays listed. */
  if (++*c == SPMU_QEMU_COUNT_MAX) {
    spmu_qemu_deliver(v, p, var, *c - 1);
    *c = 1;
  }
}

/* Hand every listed execution count of v to its cores. */
static void deliver_counts(struct vcpu *v)
{
  size_t d;

  for (d = 0; d < v->ndirty; d++) {
    uint32_t id = v->dirty[d] / NVARIANTS, var = v->dirty[d] % NVARIANTS;
    uint32_t *c = &v->counts[id][var];

    if (*c) {
      spmu_qemu_deliver(v, g.tbs[id], var, *c);
      *c = 0;
    }
  }
  v->ndirty = 0;
}

/* The events each sampling counter takes to overflow: from its value to
 * 2^width (SDM Vol. 3B 18.2.1: a counter overflows when it wraps). */
void spmu_qemu_start_budget(struct vcpu *v)
{
  spmu_agent_pmu pmu;
  unsigned i;

  for (i = 0; i < g.nevents; i++) {
    unsigned c = v->counter_of[i];
    unsigned width;
    uint64_t value = 0;

    v->budget[i] = UINT64_MAX;
    if (g.line_of[i] < 0 ||
        spmu_agent_pmu_get(v->agents[v->core_of[i]], &pmu) != 0 ||
        spmu_agent_read(v->agents[v->core_of[i]], c, &value) != 0)
      continue;
    width = c >= SPMU_COUNTER_FIXED(0) ? pmu.fixed_width : pmu.gp_width;
    if (width < 64)
      v->budget[i] = (UINT64_C(1) << width) - value;
  }
}

/* Record mode: the block p, variant var, counted in bulk unless it brings
 * a counter to overflow; then everything before it goes to the model and
 * p goes one instruction at a time. */
static void count_sampled(struct vcpu *v, const struct tb *p, unsigned var)
{
  unsigned i;

  for (i = 0; i < g.nevents; i++)
    if (variant_count(p, var, g.line_of[i]) >= v->budget[i])
      break;
  if (i == g.nevents) {
    for (i = 0; i < g.nevents; i++)
      v->budget[i] -= variant_count(p, var, g.line_of[i]);
    v->insns += variant_count(p, var, L_INST);
    count_exec(v, p, var);
    return;
  }
  deliver_counts(v);
  deliver_insns(v, p, var);
  spmu_qemu_start_budget(v);
}

static void count_block(struct vcpu *v, const struct tb *p, unsigned var)
{
  if (g.record[0])
    count_sampled(v, p, var);
  else
    count_exec(v, p, var);
}

static unsigned variant_of(const struct vcpu *v, const struct tb *p,
                           const struct tb *next)
{
  unsigned var = v->prev_cont ? VAR_CONT : 0;

  if (next && p->cond_last && next->vaddr != p->fallthrough)
    var |= VAR_TAKEN;
  return var;
}

/* Count the block that ran before t on this thread, now that t tells
 * whether its branch was taken: taken when t is not its fall-through. */
void spmu_qemu_on_tb_exec(unsigned int vcpu_index, void *udata)
{
  const struct tb *t = udata;
  struct vcpu *v = vcpu_index < MAX_VCPUS ? g.vcpus[vcpu_index] : NULL;
  const struct tb *p;

  if (!v)
    return;
  if (!v->tid)
    spmu_qemu_thread_first(v, vcpu_index);
  p = v->prev;
  if (p) {
    count_block(v, p, variant_of(v, p, t));
    if (g.callgraph)
      spmu_qemu_stack_update(v, p, t->vaddr);
  }
  /* A REP string instruction repeats by ending its block and starting a
   * new one at itself; hardware retires it once (SDM Vol. 2B, REP). */
  v->prev_cont = p && t->rep_first && p->rep_addr == t->vaddr;
  v->prev = t;
}

/* Hand every execution count of v to its cores (the last block counted as
 * not taken: nothing ran after it). */
void spmu_qemu_flush_vcpu(struct vcpu *v)
{
  if (v->prev) {
    count_block(v, v->prev, variant_of(v, v->prev, NULL));
    v->prev = NULL;
  }
  deliver_counts(v);
  spmu_qemu_inline_flush(v);
}

/* Does an event count taken conditional branches (BR_INST_RETIRED.
 * NEAR_TAKEN), which only the callback per block sees? */
bool spmu_qemu_taken_matters(void)
{
  unsigned i;

  for (i = 0; i < g.nevents; i++)
    if (g.line_of[i] == L_BR_TAKEN)
      return true;
  return false;
}

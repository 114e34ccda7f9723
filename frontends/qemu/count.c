/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Executions of translated blocks, counted by a callback per block
 * execution and handed to the model in bulk; per instruction only in the
 * block that may bring a sampling counter to overflow (README.md, "What a
 * clock is").
 *
 * The callback counts the block that ran before it on the same thread,
 * now that the new block tells whether its branch was taken: taken when
 * the new block does not start at its fall-through. It adds the block's
 * lines to the thread's sums and charges a budget: the least number of
 * events any sampling counter takes to overflow. While the budget lasts,
 * no counter overflows, so the sums go to the model as one clock when the
 * thread or the process ends, or when they grow large. With nothing
 * modelled, multiplexed, PEBS or branch stacks the same is done with the
 * lines events count packed into one vector, and without NEAR_TAKEN each
 * block is counted as it starts ("counting by packed lanes", below). */
#define _GNU_SOURCE /* gettid */
#include "count.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <softpmu/error.h>
#include <softpmu/events.h>
#include <softpmu/regs.h>

#include "budget.h"
#include "classify.h"
#include "interval.h"
#include "lbr.h"
#include "model.h"
#include "mux.h"
#include "pebs.h"
#include "regs.h"
#include "sample.h"
#include "vcpu.h"

/* The sums are handed to the model when they reach this many instructions
 * (the tests build a plugin with a small one, to run that path). */
#ifndef SPMU_QEMU_COUNT_MAX
#define SPMU_QEMU_COUNT_MAX (UINT32_C(1) << 31)
#endif

/* One clock's lines from their counts, in lines.h's order (n: NLINES
 * counts, or a block's or a thread's lane vectors, copied out). */
static void make_lines(const uint32_t n[NLINES], spmu_event_line out[NLINES])
{
  unsigned l;

  for (l = 0; l < NLINES; l++)
    out[l] = (spmu_event_line){
        .event = line_code[l][0], .umask = line_code[l][1], .count = n[l]};
}

static void lanes_to_lines(const lanes v[NVECS], spmu_event_line out[NLINES])
{
  uint32_t n[NVECS * LANES];

  memcpy(n, v, sizeof(n));
  make_lines(n, out);
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
  const struct spmu_qemu_config *cfg = v->cfg;
  uint64_t ovf = 0;
  unsigned i;

  if (cfg->precise)
    spmu_qemu_pebs_drain(v, k);
  if (cfg->branch)
    spmu_qemu_lbr_pmi(v, k);
  if (spmu_agent_handle_pmi(v->agents[k], &ovf) != 0)
    v->failed = true;
  for (i = 0; i < cfg->nevents; i++) {
    if (v->core_of[i] != k || !(ovf >> v->counter_of[i] & 1))
      continue;
    if (ip)
      spmu_qemu_sample(v, i, ip);
    else
      spmu_qemu_record_lost(v, 1); /* in a bulk delivery: no IP to give */
  }
}

/* One clock repeated execs times on every core of v; ip: the instruction
 * a PMI is taken at (one clock per instruction near an overflow). One
 * clock = one block execution, or one instruction (README.md); cpl 3:
 * qemu-user runs user-mode code only. */
static void deliver_clock(struct vcpu *v, spmu_event_line *lines, size_t nlines,
                          uint64_t execs, uint64_t ip, const spmu_branch *br)
{
  spmu_clock clk = {.lines = lines,
                    .nlines = nlines,
                    .cpl = 3,
                    .flags = SPMU_CLK_IA32E,
                    .branch = br};
  unsigned k;

  for (k = 0; k < v->ncores; k++) {
    uint64_t left = execs;

    while (left) {
      uint64_t done = 0;
      int rc = spmu_deliver(spmu_core_lp(v->cores[k], 0), &clk, left, &done);

      if (rc < 0 || done == 0) {
        v->failed = true; /* reported at exit */
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

  lanes_to_lines(t->vlines[var], lines);
  if (lines[L_INST].count == 0)
    return; /* nothing retired (a repeat of a REP string instruction) */
  v->insns += lines[L_INST].count * execs;
  deliver_clock(v, lines, NLINES, execs,
                t->ninsns ? t->insn_vaddr[t->ninsns - 1] : t->vaddr, NULL);
}

/* The variant var of block t, one clock per instruction, so that a PMI is
 * taken at the instruction whose event made the counter overflow; with
 * branch stacks, the last instruction's clock carries its taken branch
 * (lbr.c). */
static void deliver_insns(struct vcpu *v, const struct tb *t, unsigned var,
                          uint64_t next)
{
  const struct spmu_qemu_config *cfg = v->cfg;
  spmu_event_line lines[NLINES + NMLINES];
  uint32_t n[NLINES];
  uint32_t j;
  spmu_branch b;

  /* A repeat of a REP string instruction retires nothing, but its data
   * accesses are modelled events of that instruction. */
  for (j = (var & VAR_CONT) && !cfg->model ? 1 : 0; j < t->ninsns; j++) {
    const spmu_branch *br = NULL;

    if (j == 0 && (var & VAR_CONT))
      memset(n, 0, sizeof(n));
    else
      spmu_qemu_insn_lines(&t->insn[j], n);
    if (j + 1 == t->ninsns && t->cond_last && (var & VAR_TAKEN))
      n[L_BR_TAKEN] = 1;
    make_lines(n, lines);
    v->insns += n[L_INST];
    v->cur_ip = t->insn_vaddr[j];
    v->cur_next_ip = j + 1 < t->ninsns ? t->insn_vaddr[j + 1] : next;
    v->cur_tb = t;
    v->cur_j = j;
    if (cfg->branch && j + 1 == t->ninsns)
      br = spmu_qemu_lbr_branch(v, t, var, next, &b);
    deliver_clock(v, lines,
                  NLINES + spmu_qemu_model_insn_lines(v, j, lines + NLINES), 1,
                  t->insn_vaddr[j], br);
    if (cfg->ival)
      spmu_qemu_ival_tick(v);
  }
  v->cur_tb = NULL;
}

_Static_assert(sizeof(((struct spmu_qemu_config *)0)->lane_line) ==
                   LANES * sizeof(int),
               "one line a lane");

/* Counting each block as it starts: the slack of each lane, from left
 * (the sums at 0). A lane's sum may reach neither the events its line's
 * sampling counter takes to overflow nor, for instructions,
 * SPMU_QEMU_COUNT_MAX; every line of a block is at most its instruction
 * count, so no sum outgrows 31 bits. */
static void set_limits(struct vcpu *v)
{
  int32_t slack[LANES];
  unsigned k;

  for (k = 0; k < LANES; k++) {
    int l = v->cfg->lane_line[k];
    uint64_t x = l < 0 ? UINT64_MAX : v->left[l];

    if (l == L_INST && x > SPMU_QEMU_COUNT_MAX)
      x = SPMU_QEMU_COUNT_MAX;
    slack[k] = x < INT32_MAX ? (int32_t)x - 1 : INT32_MAX - 1;
  }
  memcpy(&v->slack, slack, sizeof(slack));
  v->slack0 = v->slack;
}

/* What the blocks counted as they started added since the slack was set
 * or last taken, into the sums. */
static void take_slack(struct vcpu *v)
{
  int32_t now[LANES], then[LANES];
  unsigned k;

  memcpy(now, &v->slack, sizeof(now));
  memcpy(then, &v->slack0, sizeof(then));
  for (k = 0; k < LANES; k++) {
    int l = v->cfg->lane_line[k];

    if (l >= 0)
      v->sum[l / LANES][l % LANES] += (uint32_t)(then[k] - now[k]);
  }
  v->slack0 = v->slack;
}

/* The sums delivered: what each line has left is counted from 0 again. */
static void charge_left(struct vcpu *v, const spmu_event_line lines[NLINES])
{
  unsigned l;

  for (l = 0; l < NLINES; l++)
    if (v->left[l] != UINT64_MAX)
      v->left[l] =
          v->left[l] > lines[l].count ? v->left[l] - lines[l].count : 0;
  if (v->cfg->packed)
    set_limits(v);
}

/* Hand the lines accumulated since the last delivery to the model as one
 * clock: no counter can overflow within them (the budget says so), so one
 * clock with their sums counts exactly what one clock per block would. */
static void deliver_sums(struct vcpu *v)
{
  spmu_event_line lines[NLINES + NMLINES];

  if (v->cfg->packed)
    take_slack(v);
  if (v->sum[0][L_INST] == 0 && !(v->cfg->model && spmu_qemu_model_pending(v)))
    return;
  lanes_to_lines(v->sum, lines);
  memset(v->sum, 0, sizeof(v->sum));
  charge_left(v, lines);
  v->insns += lines[L_INST].count;
  deliver_clock(v, lines, NLINES + spmu_qemu_model_lines(v, lines + NLINES), 1,
                0, NULL);
}

/* One execution of variant var of block p, added to the sums (a repeat
 * of a REP string instruction adds nothing). Every line of a block is at
 * most its instruction count, so the sums stay within 32 bits while the
 * instructions do. */
static inline void add_block(struct vcpu *v, const struct tb *p, unsigned var)
{
  unsigned k;

  for (k = 0; k < NVECS; k++)
    v->sum[k] += p->vlines[var][k];
  if (__builtin_expect(v->sum[0][L_INST] >= SPMU_QEMU_COUNT_MAX, 0))
    deliver_sums(v);
}

/* Has event i's counter overflowed (GLOBAL_STATUS, SDM Vol. 3B 18.2.2)? */
static bool armed(struct vcpu *v, unsigned i)
{
  uint64_t status = 0;

  spmu_rdmsr(spmu_core_lp(v->cores[v->core_of[i]], 0), SPMU_MSR_GLOBAL_STATUS,
             &status);
  return status >> v->counter_of[i] & 1;
}

/* Event i's counter takes left events more to overflow: the budget and
 * the line's limit (from the sums' last delivery) are at most that. */
static void note_left(struct vcpu *v, unsigned i, uint64_t left)
{
  int l = v->cfg->line_of[i];

  if (left < v->budget)
    v->budget = left;
  if (l >= 0) {
    left += v->sum[l / LANES][l % LANES];
    if (left < v->left[l])
      v->left[l] = left;
  }
}

/* Event i's share of the budget (a sampling event on an exact line or,
 * with the model, a modelled one). */
static void budget_event(struct vcpu *v, unsigned i, spmu_agent_pmu *pmu)
{
  const struct spmu_qemu_config *cfg = v->cfg;
  unsigned c = v->counter_of[i];
  unsigned width;
  uint64_t value = 0;

  if ((cfg->line_of[i] < 0 && cfg->mline_of[i] < 0) ||
      spmu_agent_pmu_get(v->agents[v->core_of[i]], pmu) != 0 ||
      spmu_agent_read(v->agents[v->core_of[i]], c, &value) != 0)
    return;
  /* With PEBS, an overflowed counter is armed: the assist comes at its
   * next event (SDM Vol. 3B 18.4.4), which must go alone. */
  if (cfg->precise && armed(v, i)) {
    v->budget = 1;
    return;
  }
  width = c >= SPMU_COUNTER_FIXED(0) ? pmu->fixed_width : pmu->gp_width;
  if (width < 64)
    note_left(v, i, (UINT64_C(1) << width) - value);
}

/* The events each sampling counter takes to overflow: from its value to
 * 2^width (SDM Vol. 3B 18.2.1: a counter overflows when it wraps); the
 * budget is the least of them, a line's limit the least of its events'. */
void spmu_qemu_start_budget(struct vcpu *v)
{
  const struct spmu_qemu_config *cfg = v->cfg;
  spmu_agent_pmu pmu;
  unsigned i;

  v->budget = UINT64_MAX;
  for (i = 0; i < NLINES; i++)
    v->left[i] = UINT64_MAX;
  if (cfg->record[0])
    for (i = 0; i < cfg->nevents; i++)
      budget_event(v, i, &pmu);
  if (cfg->packed)
    set_limits(v);
}

/* The most that variant var of block t adds to any sampled event's line:
 * what the budget is charged (computed once, at translation). */
void spmu_qemu_charge_tb(const struct spmu_qemu_config *cfg, struct tb *t)
{
  unsigned var, i, l;
  int32_t packed[NVARIANTS][LANES];

  for (var = 0; var < NVARIANTS; var++)
    for (l = 0; l < LANES; l++)
      packed[var][l] = (int32_t)variant_count(t, var, cfg->lane_line[l]);
  memcpy(t->packed, packed, sizeof(packed));
  for (l = 0; l < NLINES; l++) { /* variant_count's four cases at once */
    uint32_t taken = l == L_BR_TAKEN, all = t->total[l];

    for (var = 0; var < NVARIANTS; var++)
      t->vlines[var][l / LANES][l % LANES] =
          all - (var & VAR_CONT ? t->first[l] : 0) +
          (var & VAR_TAKEN ? taken : 0);
  }
  for (var = 0; var < NVARIANTS; var++) {
    t->charge[var] = 0;
    for (i = 0; i < cfg->nevents; i++) {
      uint64_t n = variant_count(t, var, cfg->line_of[i]);

      if (n > t->charge[var])
        t->charge[var] = (uint32_t)n;
    }
  }
}

/* Multiplexing: n more instructions of the slice; at its end, the sums go
 * to the model and the next group of events starts (mux.c). */
static void count_slice(struct vcpu *v, uint32_t n)
{
  if (n < v->slice_left) {
    v->slice_left -= n;
    return;
  }
  deliver_sums(v);
  spmu_qemu_mux_rotate(v);
}

/* The block that may bring a counter to overflow: the sums go to the
 * model, p goes one instruction at a time (next: the address the block
 * went on to), and the budget is counted afresh. */
static __attribute__((noinline)) void count_near_overflow(struct vcpu *v,
                                                          const struct tb *p,
                                                          unsigned var,
                                                          uint64_t next)
{
  spmu_qemu_model_near(v, true);
  deliver_sums(v);
  if (v->cfg->branch)
    spmu_qemu_lbr_replay(v);
  deliver_insns(v, p, var, next);
  spmu_qemu_model_near(v, false);
  spmu_qemu_start_budget(v);
}

/* The block that reaches an interval boundary (interval.c): one
 * instruction at a time, as near an overflow, its slice counted after. */
static __attribute__((noinline)) void
count_boundary(struct vcpu *v, const struct tb *p, unsigned var, uint64_t next)
{
  count_near_overflow(v, p, var, next);
  if (v->cfg->mux)
    count_slice(v, p->vlines[var][0][L_INST]);
}

/* The block p, variant var: added to the sums while the budget lasts. */
static inline void count_block(struct vcpu *v, const struct tb *p, unsigned var,
                               uint64_t next)
{
  const struct spmu_qemu_config *cfg = v->cfg;
  uint32_t c = p->charge[var];

  if (cfg->model_sampled)
    c = spmu_qemu_model_charge(v, c);
  if (__builtin_expect(cfg->ival != 0, 0) &&
      spmu_qemu_ival_due(v->insns, v->sum[0][L_INST], p->vlines[var][0][L_INST],
                         v->ival_at)) {
    count_boundary(v, p, var, next);
    return;
  }
  if (__builtin_expect(c < v->budget, 1)) {
    v->budget -= c;
    add_block(v, p, var);
    if (cfg->branch)
      spmu_qemu_lbr_note(v, p, var, next);
    if (cfg->mux)
      count_slice(v, p->vlines[var][0][L_INST]);
  } else {
    count_near_overflow(v, p, var, next);
  }
}

static inline unsigned variant_of(const struct vcpu *v, const struct tb *p,
                                  const struct tb *next)
{
  unsigned taken = next && p->cond_last && next->vaddr != p->fallthrough;

  return v->prev_cont | taken;
}

/* The first block a thread runs (or the first after its counts were
 * flushed): which host thread runs it, and its start in the stream. */
static void thread_first(struct vcpu *v)
{
  v->host_tid = (int)gettid();
  if (!v->tid)
    spmu_qemu_thread_start(v);
}

/* Block t executes again a system call QEMU restarted (plugin.c): the
 * SYSCALL retired once, so this run is counted as a repeat (VAR_CONT),
 * which retires nothing. */
static inline unsigned restart_of(struct vcpu *v, const struct tb *t)
{
  if (__builtin_expect(!t->far_alone || !v->restarts, 1))
    return 0;
  v->restarts--;
  return VAR_CONT;
}

/* regs=1: may block t, starting (cont: repeating its REP instruction), go
 * per instruction (count_block: its charge reaches the budget; with a
 * sampled modelled event, the model keeps its log)? Then regs.c keeps
 * its registers at each instruction boundary. */
static void regs_next(struct vcpu *v, const struct tb *t, unsigned cont)
{
  uint32_t c = t->charge[cont & VAR_CONT],
           taken = t->charge[(cont & VAR_CONT) | VAR_TAKEN];
  bool near = c >= v->budget || taken >= v->budget ||
              (v->cfg->model_sampled && spmu_qemu_model_logs(v));

  v->regs_live = false;
  v->regs_tb = t;
  if (near || v->regs_on)
    spmu_qemu_regs_block(v, t, near);
}

/* Count the block that ran before t on this thread, now that t tells
 * whether its branch was taken: taken when t is not its fall-through. */
void spmu_qemu_on_tb_exec(unsigned int vcpu_index, void *udata)
{
  const struct tb *t = udata;
  struct vcpu *v = spmu_qemu_vcpu_at(t->vcpus, vcpu_index);
  const struct spmu_qemu_config *cfg;
  const struct tb *p;

  if (__builtin_expect(!v, 0))
    return;
  cfg = v->cfg;
  p = v->prev;
  v->prev = t;
  v->regs_live = true; /* R_REGS with regs=1 (regs.c) */
  if (__builtin_expect(!p, 0)) {
    thread_first(v);
    v->prev_cont = 0;
    if (cfg->model)
      spmu_qemu_model_begin(v, t, 0);
    if (v->regs)
      regs_next(v, t, 0);
    return;
  }
  if (cfg->model)
    spmu_qemu_model_end(v, p, t);
  count_block(v, p, variant_of(v, p, t), t->vaddr);
  if (cfg->callgraph)
    spmu_qemu_stack_update(v, p, t->vaddr);
  /* A REP string instruction repeats by ending its block and starting a
   * new one at itself; hardware retires it once (SDM Vol. 2B, REP). */
  v->prev_cont = ((t->rep_first & (p->rep_addr == t->vaddr)) ? VAR_CONT : 0) |
                 restart_of(v, t);
  if (cfg->model)
    spmu_qemu_model_begin(v, t, v->prev_cont);
  if (__builtin_expect(v->regs != NULL, 0))
    regs_next(v, t, v->prev_cont);
}

/* ---- counting by packed lanes (cfg->packed) ------------------------------
 *
 * With nothing modelled, multiplexed, PEBS or branch stacks, only the
 * lines the events count are summed, one a lane of a vector, as what each
 * may still add (the slack): a block takes its lines from the slack, and
 * is looked at, its sums taken, only when a lane would go below 0.
 *
 * When no event counts taken branches either (cfg->eager), a block's lines
 * do not depend on the block after it: each block is counted by its own
 * callback, before it runs, with no look at the block before it but for a
 * REP string instruction's repeats and the call stack. The model sees the
 * same clocks in the same order as when each block is counted by the next
 * one, and a PMI the same instruction and call stack. */

/* Would variant var of block t bring a sampling counter to overflow (its
 * line's sum to what the line has left)? */
static bool reaches_overflow(const struct vcpu *v, const struct tb *t,
                             unsigned var)
{
  unsigned l;

  for (l = 0; l < NLINES; l++)
    if (v->left[l] != UINT64_MAX &&
        (uint64_t)v->sum[l / LANES][l % LANES] +
                t->vlines[var][l / LANES][l % LANES] >=
            v->left[l])
      return true;
  return false;
}

/* The block whose lines a lane's slack cannot take: a sampling counter's
 * overflow, taken per instruction (next: the address the block went on
 * to; 0 when counted as it starts: only PEBS and branch stacks, not
 * counted this way, need it), or the sums' bound, after which they are
 * delivered. */
static __attribute__((noinline)) void
count_at_limit(struct vcpu *v, const struct tb *t, unsigned var, uint64_t next)
{
  unsigned k;

  take_slack(v);
  if (reaches_overflow(v, t, var)) {
    count_near_overflow(v, t, var, next);
    return;
  }
  for (k = 0; k < NVECS; k++)
    v->sum[k] += t->vlines[var][k];
  deliver_sums(v);
}

/* Variant var of block t, taken from the slack; with one lane (the
 * events count instructions alone), a scalar. */
static inline void count_packed(struct vcpu *v, const struct tb *t,
                                unsigned var, uint64_t next, bool one_lane)
{
  slanes left;
  uint64_t sign[2];

  if (one_lane) {
    int32_t n = v->slack[0] - t->packed[var][0];

    if (__builtin_expect(n < 0, 0))
      count_at_limit(v, t, var, next);
    else
      v->slack[0] = n;
    return;
  }
  left = v->slack - t->packed[var];
  memcpy(sign, &left, sizeof(sign));
  if (__builtin_expect((sign[0] | sign[1]) & UINT64_C(0x8000000080000000), 0))
    count_at_limit(v, t, var, next);
  else
    v->slack = left;
}

/* v's first block since a flush: which thread runs it, then (eager) the
 * block. */
static __attribute__((noinline)) void first_block(struct vcpu *v,
                                                  const struct tb *t)
{
  thread_first(v);
  v->prev_cont = 0;
  if (v->cfg->eager)
    count_packed(v, t, 0, 0, false);
}

/* Block t starts on its thread: t becomes the thread's last block and
 * the one before it goes to *p. Returns the thread, or NULL when there is
 * nothing before t to count: t's thread is not one of the plugin's, or t
 * is its first block (first_block takes it). */
static inline struct vcpu *take_turn(unsigned int vcpu_index,
                                     const struct tb *t, const struct tb **p)
{
  struct vcpu *v = spmu_qemu_vcpu_at(t->vcpus, vcpu_index);

  if (__builtin_expect(!v, 0))
    return NULL;
  *p = v->prev;
  v->prev = t;
  if (__builtin_expect(!*p, 0)) {
    first_block(v, t);
    return NULL;
  }
  return v;
}

/* Block t starts on v (eager; callgraph: the call stack follows the block
 * before it). */
static inline void exec_eager(unsigned int vcpu_index, const struct tb *t,
                              bool callgraph, bool one_lane)
{
  const struct tb *p;
  struct vcpu *v = take_turn(vcpu_index, t, &p);

  if (!v)
    return;
  if (callgraph)
    spmu_qemu_stack_update(v, p, t->vaddr);
  count_packed(v, t, restart_of(v, t), 0, one_lane);
}

static void on_exec_eager(unsigned int vcpu_index, void *udata)
{
  exec_eager(vcpu_index, udata, false, false);
}

static void on_exec_eager_one(unsigned int vcpu_index, void *udata)
{
  exec_eager(vcpu_index, udata, false, true);
}

static void on_exec_eager_cg(unsigned int vcpu_index, void *udata)
{
  exec_eager(vcpu_index, udata, true, false);
}

/* A block that starts with a REP string instruction (eager): a repeat
 * when the block before it ended at that instruction; or, in record mode
 * by an inline budget, a block that is one far transfer, a repeat when it
 * re-runs a restarted system call. */
static void on_rep_exec_eager(unsigned int vcpu_index, void *udata)
{
  const struct tb *t = udata;
  const struct tb *p;
  struct vcpu *v = take_turn(vcpu_index, t, &p);

  if (!v || (p == t && t->rep_first && t->ninsns == 1))
    return; /* a repeat of a lone REP: retires nothing, moves no stack */
  if (v->cfg->callgraph)
    spmu_qemu_stack_update(v, p, t->vaddr);
  count_packed(v, t,
               (p->rep_addr == t->vaddr ? VAR_CONT : 0) | restart_of(v, t), 0,
               false);
}

/* Block t starts on v: the block before it counted, now that t tells
 * whether its branch was taken (spmu_qemu_on_tb_exec, by packed lanes). */
static void on_exec_packed(unsigned int vcpu_index, void *udata)
{
  const struct tb *t = udata;
  const struct tb *p;
  struct vcpu *v = take_turn(vcpu_index, t, &p);

  if (!v)
    return;
  count_packed(v, p,
               v->prev_cont | (p->cond_last & (t->vaddr != p->fallthrough)),
               t->vaddr, false);
  if (v->cfg->callgraph)
    spmu_qemu_stack_update(v, p, t->vaddr);
  v->prev_cont = ((t->rep_first & (p->rep_addr == t->vaddr)) ? VAR_CONT : 0) |
                 restart_of(v, t);
}

/* A block that is one REP string instruction (spmu_qemu_on_rep_exec, by
 * packed lanes). */
static void on_rep_exec_packed(unsigned int vcpu_index, void *udata)
{
  const struct tb *t = udata;
  struct vcpu *v = spmu_qemu_vcpu_at(t->vcpus, vcpu_index);

  if (v && v->prev == t && v->prev_cont)
    return;
  on_exec_packed(vcpu_index, udata);
}

qemu_plugin_vcpu_udata_cb_t
spmu_qemu_exec_callback(const struct spmu_qemu_config *cfg, const struct tb *t)
{
  bool lone_rep = t->rep_first && t->ninsns == 1;

  if (!cfg->packed)
    return lone_rep ? spmu_qemu_on_rep_exec : spmu_qemu_on_tb_exec;
  if (!cfg->eager)
    return lone_rep ? on_rep_exec_packed : on_exec_packed;
  if (t->rep_first)
    return on_rep_exec_eager;
  if (cfg->callgraph)
    return on_exec_eager_cg;
  return cfg->lane_line[1] < 0 ? on_exec_eager_one : on_exec_eager;
}

/* Record mode by an inline budget (budget.c): block t took its
 * instructions from the slack inline and the slack ran out, or t starts
 * or ends with a REP string instruction; the same as the callbacks above
 * (on_rep_exec_eager counts a block that ends at a REP string instruction
 * as on_exec_eager does: it is no repeat). */
static void on_budget_out(unsigned int vcpu_index, void *udata)
{
  const struct tb *t = udata;
  struct vcpu *v = spmu_qemu_vcpu_at(t->vcpus, vcpu_index);

  if (__builtin_expect(!v, 0))
    return;
  spmu_qemu_budget_pull(v, (uint32_t)t->packed[0][0]);
  exec_eager(vcpu_index, t, false, true);
  spmu_qemu_budget_push(v);
}

static void on_budget_rep(unsigned int vcpu_index, void *udata)
{
  const struct tb *t = udata;
  struct vcpu *v = spmu_qemu_vcpu_at(t->vcpus, vcpu_index);

  if (__builtin_expect(!v, 0))
    return;
  spmu_qemu_budget_pull(v, 0);
  on_rep_exec_eager(vcpu_index, udata);
  spmu_qemu_budget_push(v);
}

void spmu_qemu_budget_instrument(const struct spmu_qemu_budget *b,
                                 struct qemu_plugin_tb *qtb, const struct tb *t)
{
  spmu_qemu_budget_tb(b, qtb, t, on_budget_out, on_budget_rep);
}

/* In a fork's child: the sums not delivered are the parent's. */
void spmu_qemu_drop_sums(struct vcpu *v)
{
  memset(v->sum, 0, sizeof(v->sum));
  v->slack = v->slack0;
}

/* The callback of a block that is one REP string instruction: while it
 * repeats (it follows itself as a repeat), counting it changes nothing
 * (a repeat retires nothing, charges nothing, moves no call stack), so
 * the repeat returns at once; anything else is counted as usual. With a
 * model a repeat is, for the model, the end of one execution and the
 * start of the next, as spmu_qemu_on_tb_exec would do them; not when a
 * sampled counter counts a modelled event: then each execution takes its
 * budget. */
void spmu_qemu_on_rep_exec(unsigned int vcpu_index, void *udata)
{
  const struct tb *t = udata;
  struct vcpu *v = spmu_qemu_vcpu_at(t->vcpus, vcpu_index);

  if (v && v->prev == t && v->prev_cont && !v->cfg->model_sampled) {
    if (v->cfg->model) {
      spmu_qemu_model_end(v, t, t);
      spmu_qemu_model_begin(v, t, VAR_CONT);
    }
    return;
  }
  spmu_qemu_on_tb_exec(vcpu_index, udata);
}

/* Hand everything counted on v by callback to its cores (the last block
 * counted as not taken: nothing ran after it; counted already when each
 * block is counted as it starts). */
void spmu_qemu_flush_vcpu(struct vcpu *v)
{
  spmu_qemu_budget_pull(v, 0);
  if (v->prev && v->cfg->packed && !v->cfg->eager)
    count_packed(v, v->prev, variant_of(v, v->prev, NULL), v->prev->fallthrough,
                 false);
  else if (v->prev && !v->cfg->packed) {
    if (v->cfg->model)
      spmu_qemu_model_end(v, v->prev, NULL);
    count_block(v, v->prev, variant_of(v, v->prev, NULL), v->prev->fallthrough);
  }
  v->prev = NULL; /* the next block this thread runs is its first */
  deliver_sums(v);
  spmu_qemu_budget_push(v);
}

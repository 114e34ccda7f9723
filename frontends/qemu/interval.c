/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Intervals (interval=N): a thread's counts at every N instructions of
 * its clock.
 *
 * A thread's clock is the instructions it retired (record mode's sample
 * time, sample.c), a forked child's counted on from its parent thread's
 * at the fork (the fork's SYSCALL included), an exec'd program's from
 * those of the thread that called execve (exec=N). Row K holds the events that
 * came while the clock was in [(K-1)N, KN). A boundary falls at an exact
 * instruction: the block that reaches it goes to the model one instruction per
 * clock, as a block near an overflow does (count.c), and after the instruction
 * that brings the clock to KN the counters are read (the modelled lines too,
 * from the model's per-instruction counts: setup.c keeps them). Each row is
 * what the counters gained since the row before, so a thread's rows add up to
 * its counts exactly; the last row is what came after the last boundary,
 * partial. */
#include "interval.h"

#include <stdlib.h>
#include <string.h>

#include "mux.h"
#include "vcpu.h"

struct spmu_qemu_ival {
  uint64_t ahead;                  /* its clock at v->insns 0, beyond exec=N */
  uint64_t first;                  /* the interval of row 0 */
  size_t nrows, cap;               /* rows kept, and room */
  struct spmu_results_event *rows; /* [cap * nevents] */
  struct spmu_results_event last[MAX_EVENTS]; /* at the last boundary */
};

/* The thread's clock at v->insns instructions delivered. */
static uint64_t clock_of(const struct vcpu *v)
{
  return v->cfg->args.exec_time + v->insns + (v->ival ? v->ival->ahead : 0);
}

uint64_t spmu_qemu_ival_clock(const struct vcpu *v)
{
  return clock_of(v);
}

/* Each event's count and times since v's base, as cores.c reads them
 * for the totals (its counter, or its slices with multiplex=N). */
static void read_now(struct vcpu *v, struct spmu_results_event *now)
{
  const struct spmu_qemu_config *cfg = v->cfg;
  unsigned i;

  for (i = 0; i < cfg->nevents; i++) {
    uint64_t value = 0, running = v->insns - v->base_insns;

    if (cfg->mux) {
      value = spmu_qemu_mux_value(v, i);
      running = spmu_qemu_mux_running(v, i) - v->base_running[i];
    } else
      spmu_agent_read(v->agents[v->core_of[i]], v->counter_of[i], &value);
    now[i] = (struct spmu_results_event){.count = value - v->base[i],
                                         .enabled = v->insns - v->base_insns,
                                         .running = running};
  }
}

/* Rows start at the interval the clock is in, from the counts now. */
static void start_rows(struct vcpu *v)
{
  struct spmu_qemu_ival *iv = v->ival;
  uint64_t n = v->cfg->ival;

  iv->first = clock_of(v) / n + 1;
  iv->nrows = 0;
  v->ival_at = iv->first * n - v->cfg->args.exec_time - iv->ahead;
  read_now(v, iv->last);
}

bool spmu_qemu_ival_attach(struct vcpu *v)
{
  if (!v->cfg->ival) {
    v->ival_at = UINT64_MAX;
    return true;
  }
  if (!(v->ival = calloc(1, sizeof(*v->ival))))
    return false;
  start_rows(v);
  return true;
}

void spmu_qemu_ival_free(struct vcpu *v)
{
  if (v->ival) {
    free(v->ival->rows);
    free(v->ival);
    v->ival = NULL;
  }
}

/* What each of n events gained from then to now, into row. */
static void gained(const struct spmu_results_event *then,
                   const struct spmu_results_event *now, size_t n,
                   struct spmu_results_event *row)
{
  size_t i;

  for (i = 0; i < n; i++)
    row[i] = (struct spmu_results_event){
        .count = now[i].count - then[i].count,
        .enabled = now[i].enabled - then[i].enabled,
        .running = now[i].running - then[i].running};
}

/* One more row: what each event gained since the last (now: the counts
 * now); false when out of memory. */
static bool push_row(struct vcpu *v, const struct spmu_results_event *now)
{
  struct spmu_qemu_ival *iv = v->ival;
  unsigned ne = v->cfg->nevents;
  struct spmu_results_event *row;

  if (iv->nrows == iv->cap) {
    size_t cap = iv->cap ? 2 * iv->cap : 16;
    void *grown = realloc(iv->rows, cap * ne * sizeof(*iv->rows));

    if (!grown)
      return false;
    iv->rows = grown;
    iv->cap = cap;
  }
  row = &iv->rows[iv->nrows++ * ne];
  gained(iv->last, now, ne, row);
  memcpy(iv->last, now, ne * sizeof(*now));
  return true;
}

void spmu_qemu_ival_tick(struct vcpu *v)
{
  struct spmu_results_event now[MAX_EVENTS];

  if (!v->ival || v->insns < v->ival_at)
    return;
  read_now(v, now);
  while (v->insns >= v->ival_at) {
    if (!push_row(v, now))
      v->failed = true;
    v->ival_at += v->cfg->ival;
  }
}

void spmu_qemu_ival_restart(struct vcpu *v, uint64_t ahead)
{
  if (v->ival) {
    v->ival->ahead += ahead;
    start_rows(v);
  }
}

/* Has v anything after its last boundary: instructions, or events? */
static bool partial(const struct vcpu *v, const struct spmu_results_event *row)
{
  unsigned i;

  if (clock_of(v) + v->cfg->ival >
      v->ival_at + v->cfg->args.exec_time + v->ival->ahead)
    return true;
  for (i = 0; i < v->cfg->nevents; i++)
    if (row[i].count || row[i].enabled || row[i].running)
      return true;
  return false;
}

void spmu_qemu_ival_rows(struct vcpu *v, struct spmu_results_thread *t)
{
  const struct spmu_qemu_ival *iv = v->ival;
  struct spmu_results_event now[MAX_EVENTS], *rows, *last;
  size_t ne = v->cfg->nevents;

  t->first = 0;
  t->nrows = 0;
  t->rows = NULL;
  if (!iv)
    return;
  if (!(rows = malloc((iv->nrows + 1) * ne * sizeof(*rows)))) {
    v->failed = true;
    return;
  }
  if (iv->nrows)
    memcpy(rows, iv->rows, iv->nrows * ne * sizeof(*rows));
  read_now(v, now);
  last = &rows[iv->nrows * ne];
  gained(iv->last, now, ne, last);
  t->first = iv->first;
  t->rows = rows;
  t->nrows = iv->nrows + (partial(v, last) ? 1 : 0);
}

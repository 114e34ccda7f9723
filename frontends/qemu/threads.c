/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The process's guest threads (threads.h). One model core per guest
 * thread (more when the events outnumber the counters: cores.c); the
 * process's counts are the sum over its threads, added in when each ends
 * (QEMU's vCPU exit) or when the process writes its block. */
#include "threads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "budget.h"
#include "cores.h"
#include "count.h"
#include "inline.h"
#include "interval.h"
#include "model.h"
#include "mux.h"
#include "sample.h"
#include "vcpu.h"

struct spmu_qemu_threads {
  const struct spmu_qemu_config *cfg;
  struct spmu_qemu_inline *inl;
  struct vcpu *vcpus[MAX_VCPUS];
  uint64_t totals[MAX_EVENTS];                       /* threads already gone */
  uint64_t enabled[MAX_EVENTS], running[MAX_EVENTS]; /* their times */
  unsigned threads;                                  /* seen */
  struct vcpu *first; /* the thread that ran alone, while inline counted */
  bool failed;        /* a thread gone had an incomplete count */
  /* Each thread's counts and rows, as each ended or was collected. */
  struct spmu_results_thread *rec;
  size_t nrec, caprec;
};

struct spmu_qemu_threads *
spmu_qemu_threads_new(const struct spmu_qemu_config *cfg,
                      struct spmu_qemu_inline *inl)
{
  struct spmu_qemu_threads *r = calloc(1, sizeof(*r));

  if (r) {
    r->cfg = cfg;
    r->inl = inl;
  }
  return r;
}

static void forget(struct spmu_qemu_threads *r, unsigned idx)
{
  if (r->first == r->vcpus[idx])
    r->first = NULL;
  r->failed |= r->vcpus[idx]->failed;
  spmu_qemu_vcpu_free(r->vcpus[idx]);
  r->vcpus[idx] = NULL;
}

/* The threads' lines written, or the process gone: forgotten. */
static void clear_records(struct spmu_qemu_threads *r)
{
  size_t t;

  for (t = 0; t < r->nrec; t++)
    free(r->rec[t].rows);
  r->nrec = 0;
}

void spmu_qemu_threads_free(struct spmu_qemu_threads *r)
{
  unsigned idx;

  if (!r)
    return;
  for (idx = 0; idx < MAX_VCPUS; idx++)
    if (r->vcpus[idx])
      forget(r, idx);
  clear_records(r);
  free(r->rec);
  free(r);
}

struct vcpu *const *spmu_qemu_threads_table(const struct spmu_qemu_threads *r)
{
  return r->vcpus;
}

unsigned spmu_qemu_threads_add(struct spmu_qemu_threads *r, unsigned index,
                               struct vcpu *v)
{
  if (r->vcpus[index])
    spmu_qemu_vcpu_free(v);
  else
    r->vcpus[index] = v;
  if (r->threads == 0)
    r->first = r->vcpus[index];
  return ++r->threads;
}

/* Everything v counted to its cores: its blocks by callback, then the
 * process's inline counts when they are v's: those of the thread that
 * ran alone (the only one while blocks were counted inline), or of
 * whichever thread is flushed once it is gone, so that none is lost. */
static void flush(struct spmu_qemu_threads *r, struct vcpu *v)
{
  spmu_qemu_flush_vcpu(v);
  if (r->inl && (!r->first || r->first == v))
    spmu_qemu_inline_flush(r->inl, v);
}

/* Room for one more thread's line: NULL when out of memory. */
static struct spmu_results_thread *new_record(struct spmu_qemu_threads *r)
{
  if (r->nrec == r->caprec) {
    size_t cap = r->caprec ? 2 * r->caprec : 8;
    void *grown = realloc(r->rec, cap * sizeof(*r->rec));

    if (!grown)
      return NULL;
    r->rec = grown;
    r->caprec = cap;
  }
  return memset(&r->rec[r->nrec++], 0, sizeof(*r->rec));
}

/* v's thread id: the one its first block read (count.c), or, for the
 * thread that ran alone while blocks were counted inline (no callback
 * read it), the process's: it is its first thread, or the one that
 * forked it; 0 for a thread that never ran. */
static long thread_id(const struct spmu_qemu_threads *r, const struct vcpu *v)
{
  if (v->tid)
    return v->tid;
  return r->inl && r->first == v ? (long)getpid() : 0;
}

/* A thread's counts and times into the process's, and its own line
 * (results.h: its id, clock, counts and rows) when it ran. */
static void add_totals(struct spmu_qemu_threads *r, struct vcpu *v)
{
  long tid = thread_id(r, v);
  struct spmu_results_thread *t = tid ? new_record(r) : NULL;
  unsigned i;

  if (tid && !t)
    r->failed = true;
  for (i = 0; i < r->cfg->nevents; i++) {
    struct spmu_results_event e = {.count = spmu_qemu_event_count(v, i),
                                   .enabled = spmu_qemu_event_enabled(v),
                                   .running = spmu_qemu_event_running(v, i)};

    r->totals[i] += e.count;
    r->enabled[i] += e.enabled;
    r->running[i] += e.running;
    if (t)
      t->ev[i] = e;
  }
  if (!t)
    return;
  t->tid = tid;
  t->clock = spmu_qemu_ival_clock(v);
  snprintf(t->comm, sizeof(t->comm), "%s", r->cfg->comm);
  spmu_qemu_ival_rows(v, t);
}

void spmu_qemu_threads_retire(struct spmu_qemu_threads *r, unsigned index)
{
  struct vcpu *v = index < MAX_VCPUS ? r->vcpus[index] : NULL;

  if (!v)
    return;
  flush(r, v);
  spmu_qemu_thread_exit(v);
  add_totals(r, v);
  forget(r, index);
}

void spmu_qemu_threads_retire_all(struct spmu_qemu_threads *r)
{
  unsigned idx;

  for (idx = 0; idx < MAX_VCPUS; idx++)
    spmu_qemu_threads_retire(r, idx);
}

void spmu_qemu_threads_collect(struct spmu_qemu_threads *r, bool restart)
{
  unsigned idx;

  for (idx = 0; idx < MAX_VCPUS; idx++) {
    struct vcpu *v = r->vcpus[idx];

    if (!v)
      continue;
    flush(r, v);
    add_totals(r, v);
    if (restart) {
      spmu_qemu_rebase(v);
      spmu_qemu_ival_restart(v, 0);
    }
  }
}

void spmu_qemu_threads_clear_totals(struct spmu_qemu_threads *r)
{
  memset(r->totals, 0, sizeof(r->totals));
  memset(r->enabled, 0, sizeof(r->enabled));
  memset(r->running, 0, sizeof(r->running));
  clear_records(r);
}

/* The forking thread in the child: a new thread (its first block says
 * which), counting from 0; its clock goes on from its parent thread's,
 * the instructions not yet handed to the model included (the block of
 * the fork, counted when the next one begins, and the sums). */
static void start_child_counts(struct spmu_qemu_threads *r, struct vcpu *v)
{
  uint64_t ahead;

  spmu_qemu_budget_pull(v, 0);
  ahead = v->sum[0][L_INST];
  if (v->prev)
    ahead += v->prev->vlines[v->prev_cont][0][L_INST];
  v->prev = NULL;
  v->prev_cont = 0;
  v->tid = 0;
  spmu_qemu_drop_sums(v);
  spmu_qemu_model_fork_child(v);
  if (r->inl)
    spmu_qemu_inline_forget(r->inl);
  memset(v->base, 0, sizeof(v->base));
  memset(v->base_running, 0, sizeof(v->base_running));
  spmu_qemu_rebase(v);
  spmu_qemu_ival_restart(v, ahead);
  spmu_qemu_budget_push(v);
}

void spmu_qemu_threads_fork_child(struct spmu_qemu_threads *r, int fork_tid,
                                  bool keep_all)
{
  unsigned idx;

  for (idx = 0; idx < MAX_VCPUS; idx++) {
    struct vcpu *v = r->vcpus[idx];

    if (!v)
      continue;
    if (keep_all || v->host_tid == fork_tid) {
      start_child_counts(r, v);
      if (!r->first || !keep_all)
        r->first = v;
    } else
      forget(r, idx);
  }
  spmu_qemu_threads_clear_totals(r);
  r->threads = 1;
}

void spmu_qemu_threads_results(const struct spmu_qemu_threads *r,
                               struct spmu_results_block *b)
{
  unsigned i;

  b->head.threads = r->threads;
  b->nevents = r->cfg->nevents;
  b->nthreads = r->nrec;
  b->thread = r->rec;
  for (i = 0; i < r->cfg->nevents; i++)
    b->ev[i] = (struct spmu_results_event){.count = r->totals[i],
                                           .enabled = r->enabled[i],
                                           .running = r->running[i]};
}

bool spmu_qemu_threads_failed(const struct spmu_qemu_threads *r)
{
  unsigned idx;

  if (r->failed)
    return true;
  for (idx = 0; idx < MAX_VCPUS; idx++)
    if (r->vcpus[idx] && r->vcpus[idx]->failed)
      return true;
  return false;
}

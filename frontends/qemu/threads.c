/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The process's guest threads (threads.h). One model core per guest
 * thread (more when the events outnumber the counters: cores.c); the
 * process's counts are the sum over its threads, added in when each ends
 * (QEMU's vCPU exit) or when the process writes its block. */
#include "threads.h"

#include <stdlib.h>
#include <string.h>

#include "cores.h"
#include "count.h"
#include "inline.h"
#include "model.h"
#include "sample.h"
#include "vcpu.h"

struct spmu_qemu_threads {
  const struct spmu_qemu_config *cfg;
  struct spmu_qemu_inline *inl;
  struct vcpu *vcpus[MAX_VCPUS];
  uint64_t totals[MAX_EVENTS];                       /* threads already gone */
  uint64_t enabled[MAX_EVENTS], running[MAX_EVENTS]; /* their times */
  unsigned threads;                                  /* seen */
  bool failed; /* a thread gone had an incomplete count */
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
  r->failed |= r->vcpus[idx]->failed;
  spmu_qemu_vcpu_free(r->vcpus[idx]);
  r->vcpus[idx] = NULL;
}

void spmu_qemu_threads_free(struct spmu_qemu_threads *r)
{
  unsigned idx;

  if (!r)
    return;
  for (idx = 0; idx < MAX_VCPUS; idx++)
    if (r->vcpus[idx])
      forget(r, idx);
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
  return ++r->threads;
}

/* Everything v counted to its cores: its blocks by callback, then the
 * process's inline counts. */
static void flush(struct spmu_qemu_threads *r, struct vcpu *v)
{
  spmu_qemu_flush_vcpu(v);
  if (r->inl)
    spmu_qemu_inline_flush(r->inl, v);
}

/* A thread's counts and times into the process's. */
static void add_totals(struct spmu_qemu_threads *r, struct vcpu *v)
{
  unsigned i;

  for (i = 0; i < r->cfg->nevents; i++) {
    r->totals[i] += spmu_qemu_event_count(v, i);
    r->enabled[i] += spmu_qemu_event_enabled(v);
    r->running[i] += spmu_qemu_event_running(v, i);
  }
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
    if (restart)
      spmu_qemu_rebase(v);
  }
}

void spmu_qemu_threads_clear_totals(struct spmu_qemu_threads *r)
{
  memset(r->totals, 0, sizeof(r->totals));
  memset(r->enabled, 0, sizeof(r->enabled));
  memset(r->running, 0, sizeof(r->running));
}

/* The forking thread in the child: a new thread (its first block says
 * which), counting from 0. */
static void start_child_counts(struct spmu_qemu_threads *r, struct vcpu *v)
{
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
}

void spmu_qemu_threads_fork_child(struct spmu_qemu_threads *r, int fork_tid,
                                  bool keep_all)
{
  unsigned idx;

  for (idx = 0; idx < MAX_VCPUS; idx++) {
    struct vcpu *v = r->vcpus[idx];

    if (!v)
      continue;
    if (keep_all || v->host_tid == fork_tid)
      start_child_counts(r, v);
    else
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

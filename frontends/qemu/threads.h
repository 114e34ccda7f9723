/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The process's guest threads (threads.c): the registry of its vCPUs by
 * QEMU's index, and the counts of the threads already gone. The one file
 * that adds, removes and sums threads; the caller holds the process's
 * lock (plugin.c) around each call. */
#ifndef SOFTPMU_QEMU_THREADS_H
#define SOFTPMU_QEMU_THREADS_H

#include <stdbool.h>

#include "config.h"
#include "results.h"

struct vcpu;
struct spmu_qemu_inline;
struct spmu_qemu_threads;

/* An empty registry for cfg's events; inl: inline counting's state, whose
 * counts each thread takes when it is flushed. NULL when out of memory. */
struct spmu_qemu_threads *
spmu_qemu_threads_new(const struct spmu_qemu_config *cfg,
                      struct spmu_qemu_inline *inl);
void spmu_qemu_threads_free(struct spmu_qemu_threads *r);

/* The threads by vCPU index, for the blocks (tb.h): each callback reads
 * its own thread's entry. */
struct vcpu *const *spmu_qemu_threads_table(const struct spmu_qemu_threads *r);

/* Thread v starts as vCPU index (an index QEMU reuses keeps its thread
 * and its counts: v is freed); the number of threads seen so far. */
unsigned spmu_qemu_threads_add(struct spmu_qemu_threads *r, unsigned index,
                               struct vcpu *v);
/* The thread of index ends, or every thread: its counts into the totals. */
void spmu_qemu_threads_retire(struct spmu_qemu_threads *r, unsigned index);
void spmu_qemu_threads_retire_all(struct spmu_qemu_threads *r);
/* Every live thread's counts into the totals; with restart, each counts
 * from 0 again after. */
void spmu_qemu_threads_collect(struct spmu_qemu_threads *r, bool restart);
void spmu_qemu_threads_clear_totals(struct spmu_qemu_threads *r);
/* In a fork's child: the thread that forked (host thread fork_tid; every
 * thread with keep_all) lives on, counting from 0; the others are gone. */
void spmu_qemu_threads_fork_child(struct spmu_qemu_threads *r, int fork_tid,
                                  bool keep_all);

/* The totals and the threads seen into b's events and head.threads. */
void spmu_qemu_threads_results(const struct spmu_qemu_threads *r,
                               struct spmu_results_block *b);
/* Is a count incomplete (a thread's delivery or PMI failed)? */
bool spmu_qemu_threads_failed(const struct spmu_qemu_threads *r);

#endif

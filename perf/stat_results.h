/* SPDX-License-Identifier: MIT */
/* The plugin's results file (protocol/results.h) as softpmu stat reads it
 * beyond the sums: each thread's counts (--per-thread) and the rows of
 * intervals, each summed over every thread of every process (-I).
 *
 * The reader takes stat's events as the plugin's: index[i] is the event=
 * argument stat's event i is (its results index), or -1 for an event the
 * plugin does not count. */
#ifndef SOFTPMU_PERF_STAT_RESULTS_H
#define SOFTPMU_PERF_STAT_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "session.h"

#define STAT_RESULTS_MAX_EVENTS SESSION_MAX_EVENTS

/* One count: the events and the instructions during which the counter was
 * enabled and counting (equal unless multiplexed). */
struct stat_count {
  uint64_t n, enabled, running;
};

/* Rows of intervals: row k (from 0) is interval k + 1, count[k * nev + i]
 * stat's event i's (room for cap rows); clock the largest clock of a
 * thread, where the last row ends. */
struct stat_rows {
  size_t nrows, cap;
  uint64_t clock;
  struct stat_count *count;
};

/* One thread's counts and rows; a block that names no thread (a file of
 * an older plugin's making) is one of pid's, named by tid = pid and comm
 * "". */
struct stat_thread {
  long pid, tid;
  char comm[16];
  struct stat_count count[STAT_RESULTS_MAX_EVENTS];
  struct stat_rows rows;
};

/* Each thread of the file at path in the order each first appears, with
 * its rows; a thread in the blocks before and after an execve the plugin
 * followed is one (its counts summed, named by the later program). *out
 * from malloc, freed by the caller with stat_results_free_threads: the
 * number of threads, or -1 (errno set). */
long stat_results_threads(const char *path, const int *index, unsigned nev,
                          struct stat_thread **out);
void stat_results_free_threads(struct stat_thread *t, long n);

/* The rows of the file at path into rows (count from malloc; the caller
 * frees it): 0, or -1 (errno set). */
int stat_results_rows(const char *path, const int *index, unsigned nev,
                      struct stat_rows *rows);

#endif

/* SPDX-License-Identifier: MIT */
/* softpmu stat: the counts in perf stat's output formats.
 *
 * Three layouts, each as Debian's perf 6.1 prints it (perf-stat(1)):
 *   STAT_FMT_STD   the default: a header naming the command, one line per
 *                  event (the count right-aligned in 18 columns, digits
 *                  grouped by thousands with big_num, or <not supported>),
 *                  and the elapsed, user and sys seconds;
 *   STAT_FMT_CSV   -x SEP: per event value, unit, event, [variance with
 *                  -r,] run time, percentage running, metric value, metric
 *                  unit (perf-stat(1), "CSV FORMAT");
 *   STAT_FMT_JSON  -j/--json: one JSON object per event per line.
 * With -r N (runs > 1) the count is the mean over the runs and its spread
 * is the standard error of the mean relative to it, "( +-  0.00% )".
 *
 * perf's metrics, derived as perf stat 6.1 derives them from its generic
 * hardware events counted with the same modifiers: "insn per cycle"
 * (instructions / cycles), "of all branches" (branch-misses / branches, a
 * percentage), "of all cache refs" (cache-misses / cache-references),
 * "of all L1-dcache accesses" (L1-dcache-load-misses / L1-dcache-loads,
 * a percentage). A metric of -M (stat_metrics.h) prints as perf prints a
 * metric expression without a unit (stat-shadow.c, generic_metric):
 * "%8.2f" and the metric's name.
 * perf's time-based metrics (GHz, M/sec) need task-clock, which this
 * engine does not have: none.
 *
 * Modelled counts (estimates of the modelled micro-architecture) are
 * marked, exact ones never:
 *   STAT_FMT_STD   " (model)" after the event name, in its column; a
 *                  metric derived from a modelled count has " (model)"
 *                  after its unit; then, after the counts, a line naming
 *                  the model ("model: part:skylake (...)") and with
 *                  --verbose one line per parameter;
 *   STAT_FMT_CSV   one more field after perf's last, "model", on modelled
 *                  lines only (perf's fields keep their places); a metric
 *                  from a modelled count has " (model)" in its unit; the
 *                  model in "# model: ..." lines before the counts;
 *   STAT_FMT_JSON  "modelled" : true in a modelled event's object; a
 *                  metric unit as above; the model as one more object,
 *                  {"model" : "...", "model-details" : [...]}, first. */
#ifndef SOFTPMU_STAT_PRINT_H
#define SOFTPMU_STAT_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "stat_events.h" /* enum stat_hw */

/* Running statistics of one quantity over the -r runs (Welford's
 * update). */
struct stat_stats {
  unsigned n;
  double mean, m2;
};

void stat_stats_add(struct stat_stats *s, double x);
/* The standard error of the mean: the sample standard deviation over
 * sqrt(n); 0 with fewer than two values. */
double stat_stats_stderr(const struct stat_stats *s);
/* stat_stats_stderr as a percentage of the mean; 0 if the mean is 0. */
double stat_stats_rel_pct(const struct stat_stats *s);

/* One event's result. */
struct stat_result {
  const char *name;        /* as printed: "instructions:u" */
  bool supported;          /* false: <not supported> (count ignored) */
  struct stat_stats count; /* the count of each run */
  uint64_t run_ns;         /* the time the counter ran, in ns */
  double pcnt_running;     /* percentage of the time it was counting:
                              100 unless time-sliced (--multiplex) */
  bool modelled;           /* an estimate of the model: marked */
  enum stat_hw hw;         /* perf's generic event, for its metrics */
  bool user, kernel;       /* its modifiers: metrics pair events of the
                              same modifiers, as perf's */
  long aggr_id;            /* the CPU (STAT_AGGR_CPU) or process id
                              (STAT_AGGR_THREAD) it counted: metrics pair
                              events of the same one */
  const char *comm;        /* STAT_AGGR_THREAD: the process's command */
  unsigned event;          /* which event it is, for -M's pairing */
  const char *metric;      /* -M: the metric on this line (stat_metrics.h:
                              this count over that of event metric_den,
                              times metric_scale), or NULL */
  unsigned metric_den;
  double metric_scale;
};

/* The measured command. */
struct stat_run {
  int argc; /* the command and its arguments, for the header */
  char *const *argv;
  unsigned runs;                    /* -r N (0 or 1: one run) */
  struct stat_stats elapsed;        /* wall-clock seconds of each run */
  double user_s, sys_s;             /* CPU seconds of the run (one run only) */
  const char *model;                /* the model's one-line description, or NULL
                                       when none counted (stat_model_summary) */
  const char *const *model_details; /* --verbose: its parameters */
  unsigned nmodel_details;
};

enum stat_format { STAT_FMT_STD, STAT_FMT_CSV, STAT_FMT_JSON };

/* How counts are split, as perf's aggregation modes print them
 * (tools/perf/util/stat-display.c, aggr_printout): each line first says
 * whose count it is. */
enum stat_aggr {
  STAT_AGGR_GLOBAL, /* summed: no prefix */
  STAT_AGGR_CPU,    /* -A: "CPU%-7d " (CSV "CPU0,", JSON "cpu" : "0") */
  STAT_AGGR_THREAD  /* --per-thread: "%16s-%-8d " comm and id (CSV
                       "comm-id,", JSON "thread" : "comm-id") */
};

struct stat_print_opts {
  enum stat_format format;
  const char *sep; /* -x SEP (STAT_FMT_CSV) */
  bool big_num;    /* STAT_FMT_STD: group digits by thousands with ',' */
  enum stat_aggr aggr;
  /* -I: one interval's lines, each starting with the time at its end
   * (perf's print_interval: "%6lu.%09lu" and the separator; JSON
   * "interval" : first), without the header and footer of a run; the
   * column header in STAT_FMT_STD before the 1st, 26th... (row 0, 25...),
   * the model's line in the others before the first. */
  bool interval;
  uint64_t time_ns;
  unsigned row;
};

/* Print the results of run in the layout of o to f. */
void stat_print(FILE *f, const struct stat_print_opts *o,
                const struct stat_run *run, const struct stat_result *res,
                size_t n);

#endif

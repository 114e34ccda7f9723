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
 * is the standard error of the mean relative to it, "( +-  0.00% )". */
#ifndef SOFTPMU_STAT_PRINT_H
#define SOFTPMU_STAT_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
};

/* The measured command. */
struct stat_run {
  int argc; /* the command and its arguments, for the header */
  char *const *argv;
  unsigned runs;             /* -r N (0 or 1: one run) */
  struct stat_stats elapsed; /* wall-clock seconds of each run */
  double user_s, sys_s;      /* CPU seconds of the run (one run only) */
};

enum stat_format { STAT_FMT_STD, STAT_FMT_CSV, STAT_FMT_JSON };

struct stat_print_opts {
  enum stat_format format;
  const char *sep; /* -x SEP (STAT_FMT_CSV) */
  bool big_num;    /* STAT_FMT_STD: group digits by thousands with ',' */
};

/* Print the results of run in the layout of o to f. */
void stat_print(FILE *f, const struct stat_print_opts *o,
                const struct stat_run *run, const struct stat_result *res,
                size_t n);

#endif

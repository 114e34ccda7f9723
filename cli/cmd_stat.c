/* SPDX-License-Identifier: MIT */
/* softpmu stat: run a program under qemu-x86_64 with the softpmu QEMU
 * plugin (frontends/qemu) and print the counts of its events in perf
 * stat's layouts.
 *
 * The run is the session's (perf/session.h: the options stat and record
 * share, the profile, the model, the events, finding and running the
 * program, the exit status); what is stat's own is here: its options
 * (-x, -j, -r, --multiplex, -v, the deprecated -c PROFILE), the default
 * events, running -r times and reading the plugin's results file after
 * each run (stat_read_results, protocol/results.h), printing
 * (stat_print.h). --from FILE prints a results file instead of running
 * anything. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>

#include "args.h" /* protocol/: the plugin's arguments */
#include "cleanup.h"
#include "cli.h"
#include "cli_dirs.h"
#include "results.h" /* protocol/: its results file */
#include "session.h"
#include "stat_events.h"
#include "stat_metrics.h"
#include "stat_model.h"
#include "stat_print.h"
#include "stat_results.h"

_Static_assert(SESSION_EXIT_USAGE == CLI_EXIT_USAGE,
               "the session's exit status for bad usage is the command's");

#define STAT_MAX_EVENTS SESSION_MAX_EVENTS /* the plugin's limit */
#define STAT_MAX_RUNS 100000
/* perf stat's default hardware events (tools/perf/builtin-stat.c,
 * default_attrs0 and default_attrs1: cycles, instructions, branches,
 * branch-misses) and the last-level cache references and misses. perf's
 * software events (task-clock, context-switches, cpu-migrations,
 * page-faults) are left out: they would be QEMU's, not the program's. */
#define STAT_DEFAULT_EVENTS                                                    \
  "cycles,instructions,branches,branch-misses,cache-references,cache-misses"

struct stat_opts {
  struct session s;           /* the options both commands take, the run */
  int index[STAT_MAX_EVENTS]; /* among the plugin's event= arguments */
  struct stat_result res[STAT_MAX_EVENTS];
  unsigned runs; /* -r N */
  struct stat_print_opts print;
  bool execve;              /* a process called execve (not counted after it) */
  uint64_t mux;             /* --multiplex: slices of this many instructions */
  bool verbose;             /* -v: the model's parameters */
  bool all_user;            /* --all-user: every event :u */
  unsigned detailed;        /* -d, -dd, -ddd: perf's detailed sets */
  bool per_thread;          /* --per-thread: each thread's counts */
  struct stat_result *view; /* --per-thread: what is printed, nview */
  size_t nview;
  char comm[16];               /* PROG's name: the plugin's comm= */
  struct stat_thread *threads; /* --per-thread: each thread's counts */
  long nthreads;
  uint64_t interval;       /* -I MSEC: MSEC; 0: none */
  uint64_t interval_count; /* --interval-count N: N; 0: every row */
  bool interval_count_given;
  struct stat_rows rows; /* -I: the run's rows of intervals */
  const char *metric_lists[STAT_MAX_EVENTS]; /* each -M */
  unsigned nmetric_lists;
  FILE *outf; /* -o FILE, opened before the program runs */
};

/* --multiplex's default slice: 4,000,000 instructions retired, perf's 4 ms
 * (perf_event_mux_interval_ms) at one instruction per nanosecond. */
#define STAT_MUX_DEFAULT 4000000

/* ---- events ----------------------------------------------------------- */

/* A resolved event (the session's next) among the results. */
static int stat_event(struct session *s, void *ctx, const char *spec)
{
  struct stat_opts *o = ctx;
  struct stat_event *e = &s->ev[s->nev];

  (void)spec;
  if (o->all_user)
    stat_event_user_only(e);
  o->res[s->nev] = (struct stat_result){.name = e->name,
                                        .supported = e->supported,
                                        .pcnt_running = 100.0,
                                        .modelled = e->modelled,
                                        .hw = e->hw,
                                        .user = e->user,
                                        .kernel = e->kernel,
                                        .event = s->nev};
  return CLI_EXIT_OK;
}

/* perf's default set: on a profile without a model its modelled events
 * are <not supported>, said once. */
static int stat_add_default_events(struct stat_opts *o)
{
  enum stat_model_use use = o->s.model.use;

  if (use == STAT_MODEL_NONE) {
    cli_error("stat: note: no modelled micro-architecture (%s): cycles, "
              "branch-misses and the cache events are <not supported>; "
              "choose one with --model",
              o->s.model.why);
    use = STAT_MODEL_OFF;
  }
  return session_add_events(&o->s, use, STAT_DEFAULT_EVENTS);
}

/* The engine runs user code only (qemu-user): an event counting kernel
 * code alone (:k, USR clear: SDM Vol. 3B 18.2.1.1) counts 0. Said once. */
static void stat_note_kernel_only(const struct stat_opts *o)
{
  unsigned i;

  for (i = 0; i < o->s.nev; i++)
    if (o->s.ev[i].supported && o->s.ev[i].kernel && !o->s.ev[i].user) {
      cli_error("stat: note: %s counts kernel code only, which "
                "qemu-x86_64 does not run: it counts 0",
                o->s.ev[i].name);
      return;
    }
}

/* ---- the command line ---------------------------------------------------- */

/* stat's own options; the shared ones are the session's. */
enum stat_key {
  STAT_KEY_CPU_C = SESSION_KEY_COMMAND, /* -c PROFILE: deprecated */
  STAT_KEY_SEPARATOR,                   /* -x SEP */
  STAT_KEY_JSON,                        /* -j */
  STAT_KEY_REPEAT,                      /* -r N */
  STAT_KEY_MULTIPLEX,                   /* --multiplex[=N] */
  STAT_KEY_VERBOSE,                     /* -v */
  STAT_KEY_BIG_NUM,                     /* -B, --big-num */
  STAT_KEY_NO_BIG_NUM,                  /* --no-big-num */
  STAT_KEY_ALL_USER,                    /* --all-user */
  STAT_KEY_DETAILED,                    /* -d (repeatable), -dd, -ddd */
  STAT_KEY_DETAILED2,
  STAT_KEY_DETAILED3,
  STAT_KEY_NO_AGGR,        /* -A, --no-aggr */
  STAT_KEY_PER_THREAD,     /* --per-thread */
  STAT_KEY_METRICS,        /* -M, --metrics */
  STAT_KEY_INTERVAL,       /* -I, --interval-print MSEC */
  STAT_KEY_INTERVAL_COUNT, /* --interval-count N */
  STAT_KEY_INTERVAL_CLEAR  /* --interval-clear: refused */
};

static const struct session_option stat_options[] = {
    {"-c", NULL, SESSION_VALUE, STAT_KEY_CPU_C, NULL},
    {"-x", "--field-separator", SESSION_VALUE, STAT_KEY_SEPARATOR, NULL},
    {"-j", "--json", SESSION_FLAG, STAT_KEY_JSON, NULL},
    {"-r", "--repeat", SESSION_VALUE, STAT_KEY_REPEAT, NULL},
    {NULL, "--multiplex", SESSION_OPTIONAL, STAT_KEY_MULTIPLEX, NULL},
    {"-v", "--verbose", SESSION_FLAG, STAT_KEY_VERBOSE, NULL},
    {"-B", "--big-num", SESSION_FLAG, STAT_KEY_BIG_NUM, NULL},
    {NULL, "--no-big-num", SESSION_FLAG, STAT_KEY_NO_BIG_NUM, NULL},
    {NULL, "--all-user", SESSION_FLAG, STAT_KEY_ALL_USER, NULL},
    {"-d", "--detailed", SESSION_FLAG, STAT_KEY_DETAILED, NULL},
    {"-dd", NULL, SESSION_FLAG, STAT_KEY_DETAILED2, NULL},
    {"-ddd", NULL, SESSION_FLAG, STAT_KEY_DETAILED3, NULL},
    {"-A", "--no-aggr", SESSION_FLAG, STAT_KEY_NO_AGGR, NULL},
    {NULL, "--per-thread", SESSION_FLAG, STAT_KEY_PER_THREAD, NULL},
    {"-M", "--metrics", SESSION_VALUE, STAT_KEY_METRICS, NULL},
    {"-I", "--interval-print", SESSION_VALUE, STAT_KEY_INTERVAL, NULL},
    {NULL, "--interval-count", SESSION_VALUE, STAT_KEY_INTERVAL_COUNT, NULL},
    {NULL, "--interval-clear", SESSION_FLAG, STAT_KEY_INTERVAL_CLEAR, NULL},
    {NULL, NULL, SESSION_FLAG, 0, NULL},
};

static int stat_set_runs(struct stat_opts *o, const char *val)
{
  uint64_t n;

  if (!text_parse_u64(val, &n) || n == 0 || n > STAT_MAX_RUNS)
    return cli_usage_error(&cli_cmd_stat,
                           "stat: -r %s: a number of runs from 1 to %d", val,
                           STAT_MAX_RUNS);
  o->runs = (unsigned)n;
  return CLI_EXIT_OK;
}

/* --multiplex[=N]: one PMU time-sliced in slices of N instructions. */
static int stat_set_mux(struct stat_opts *o, const char *val)
{
  char *end;

  if (!val) {
    o->mux = STAT_MUX_DEFAULT;
    return CLI_EXIT_OK;
  }
  errno = 0;
  o->mux = strtoull(val, &end, 10);
  if (errno || end == val || *end || o->mux == 0 || *val == '-')
    return cli_usage_error(&cli_cmd_stat,
                           "stat: --multiplex=%s: a number of instructions "
                           "from 1 up",
                           val);
  return CLI_EXIT_OK;
}

/* -I MSEC and --interval-count N: perf takes an unsigned int for each;
 * -I 0 is no interval, as in perf. */
static int stat_set_interval(struct stat_opts *o, int key, const char *val)
{
  uint64_t n;

  if (!text_parse_u64(val, &n) || n > UINT32_MAX)
    return cli_usage_error(&cli_cmd_stat,
                           key == STAT_KEY_INTERVAL
                               ? "stat: -I %s: a number of milliseconds "
                                 "(0: no interval)"
                               : "stat: --interval-count %s: a number of "
                                 "intervals",
                           val);
  if (key == STAT_KEY_INTERVAL)
    o->interval = n;
  else {
    o->interval_count = n;
    o->interval_count_given = true;
  }
  return CLI_EXIT_OK;
}

/* perf stat's everyday flags: digit grouping, --all-user, -d, -A,
 * --per-thread. */
static int stat_flag(struct stat_opts *o, int key)
{
  switch (key) {
  case STAT_KEY_BIG_NUM:
  case STAT_KEY_NO_BIG_NUM:
    o->print.big_num = key == STAT_KEY_BIG_NUM;
    break;
  case STAT_KEY_ALL_USER:
    o->all_user = true;
    break;
  case STAT_KEY_DETAILED:
    o->detailed += o->detailed < 3;
    break;
  case STAT_KEY_NO_AGGR:
    o->print.aggr = STAT_AGGR_CPU;
    break;
  case STAT_KEY_PER_THREAD:
    o->per_thread = true;
    break;
  default: /* -dd, -ddd: as perf's getopt takes -d twice or three times */
    o->detailed = key == STAT_KEY_DETAILED2 ? 2 : 3;
    break;
  }
  return CLI_EXIT_OK;
}

static int stat_option(struct session *s, void *ctx, int key, const char *val)
{
  struct stat_opts *o = ctx;

  switch (key) {
  case STAT_KEY_CPU_C: /* -c is record's period */
    cli_warn_deprecated_c("stat");
    s->profile_name = val;
    return CLI_EXIT_OK;
  case STAT_KEY_SEPARATOR: /* -x, and --field-separator=, as perf takes them */
    if (!*val)
      return cli_usage_error(&cli_cmd_stat, "stat: -x: an empty separator");
    o->print.format = STAT_FMT_CSV;
    o->print.sep = val;
    return CLI_EXIT_OK;
  case STAT_KEY_JSON:
    o->print.format = STAT_FMT_JSON;
    return CLI_EXIT_OK;
  case STAT_KEY_REPEAT:
    return stat_set_runs(o, val);
  case STAT_KEY_MULTIPLEX:
    return stat_set_mux(o, val);
  case STAT_KEY_VERBOSE:
    o->verbose = true;
    o->s.describe_qemu = true; /* and which QEMU runs */
    return CLI_EXIT_OK;
  case STAT_KEY_INTERVAL:
  case STAT_KEY_INTERVAL_COUNT:
    return stat_set_interval(o, key, val);
  case STAT_KEY_INTERVAL_CLEAR:
    return cli_usage_error(&cli_cmd_stat,
                           "stat: --interval-clear: the intervals are "
                           "printed when the program has ended (their clock "
                           "is its retired instructions), so there is no "
                           "screen to clear between them");
  case STAT_KEY_METRICS:
    if (o->nmetric_lists == STAT_MAX_EVENTS)
      return cli_usage_error(&cli_cmd_stat, "stat: at most %d -M lists",
                             STAT_MAX_EVENTS);
    o->metric_lists[o->nmetric_lists++] = val;
    return CLI_EXIT_OK;
  default:
    return stat_flag(o, key);
  }
}

/* -d, -dd, -ddd: perf stat 6.1's detailed sets (tools/perf/
 * builtin-stat.c, detailed_attrs, very_detailed_attrs and
 * very_very_detailed_attrs), appended to the events given or the default
 * ones, as perf appends them. Those the engine does not produce (LLC,
 * TLBs, the instruction cache, prefetches) print <not supported>; without
 * a model L1-dcache-load-misses does too. */
static const char *const stat_detailed_sets[] = {
    "L1-dcache-loads,L1-dcache-load-misses,LLC-loads,LLC-load-misses",
    ("L1-icache-loads,L1-icache-load-misses,dTLB-loads,dTLB-load-misses,"
     "iTLB-loads,iTLB-load-misses"),
    "L1-dcache-prefetches,L1-dcache-prefetch-misses",
};

static int stat_add_detailed_events(struct stat_opts *o)
{
  enum stat_model_use use = o->s.model.use;
  unsigned d;
  int rc;

  if (use == STAT_MODEL_NONE)
    use = STAT_MODEL_OFF;
  for (d = 0; d < o->detailed; d++)
    if ((rc = session_add_events(&o->s, use, stat_detailed_sets[d])) !=
        CLI_EXIT_OK)
      return rc;
  return CLI_EXIT_OK;
}

/* -I and what does not go with it: -r (perf prints each run's
 * intervals, which cannot be averaged); --interval-count needs it
 * (perf's rule). */
static int stat_check_interval(const struct stat_opts *o)
{
  if (o->interval_count_given && !o->interval)
    return cli_usage_error(&cli_cmd_stat,
                           "stat: --interval-count goes with -I MSEC "
                           "(interval-print): add -I MSEC, or drop "
                           "--interval-count");
  if (!o->interval)
    return CLI_EXIT_OK;
  if (o->runs > 1)
    return cli_usage_error(&cli_cmd_stat,
                           "stat: -I and -r: each run's intervals are its "
                           "own, and cannot be averaged: drop -r, or run "
                           "stat -I once per run");
  return CLI_EXIT_OK;
}

/* -A and --per-thread: what each means here, and what does not go with
 * them. */
static int stat_check_aggr(struct stat_opts *o)
{
  if (o->per_thread && o->print.aggr == STAT_AGGR_CPU)
    return cli_usage_error(&cli_cmd_stat,
                           "stat: -A and --per-thread: one or the other");
  if (o->per_thread && o->runs > 1)
    return cli_usage_error(&cli_cmd_stat,
                           "stat: --per-thread and -r: each run's processes "
                           "are new ones, whose counts cannot be averaged");
  if (o->per_thread)
    o->print.aggr = STAT_AGGR_THREAD;
  if (o->print.aggr == STAT_AGGR_CPU)
    cli_error("stat: note: -A: one modelled CPU, CPU0: each thread of the "
              "program counts on a PMU of its own, and their counts are "
              "summed as on one CPU");
  return CLI_EXIT_OK;
}

/* The plugin's grouped= bits (protocol/args.h): among the events it
 * counts, each one in the same group as the one before it. */
static uint64_t stat_grouped_bits(const struct stat_opts *o)
{
  uint64_t bits = 0;
  unsigned i, prev = 0;

  for (i = 0; i < o->s.nev; i++) {
    if (o->index[i] < 0)
      continue;
    if (o->s.group[i] && o->s.group[i] == prev && o->index[i] < 64)
      bits |= UINT64_C(1) << o->index[i];
    prev = o->s.group[i];
  }
  return bits;
}

/* One metric of -M: its two events, the first line carrying it. */
static int stat_add_metric(struct stat_opts *o, const char *name)
{
  const struct stat_metric *m = stat_metric_find(name);
  unsigned first = o->s.nev;
  char events[128], names[256];
  int rc;

  if (!m) {
    stat_metric_names(names, sizeof names);
    return cli_usage_error(&cli_cmd_stat,
                           "stat: -M %s: not a metric of the events this "
                           "engine produces; those are %s",
                           name, names);
  }
  snprintf(events, sizeof events, "%s,%s", m->num, m->den);
  if ((rc = session_add_events(&o->s, o->s.model.use, events)) != CLI_EXIT_OK)
    return rc;
  o->res[first].metric = m->name;
  o->res[first].metric_den = first + 1;
  o->res[first].metric_scale = m->scale;
  return CLI_EXIT_OK;
}

/* -M, --metrics: each list's metrics, in order (stat_metrics.h). */
static int stat_add_metrics(struct stat_opts *o)
{
  char name[64];
  const char *list;
  unsigned l;
  int rc;

  for (l = 0; l < o->nmetric_lists; l++)
    for (list = o->metric_lists[l]; *list;) {
      size_t n = strcspn(list, ",");

      snprintf(name, sizeof name, "%.*s", (int)n, list);
      list += n + (list[n] == ',');
      if (n && (rc = stat_add_metric(o, name)) != CLI_EXIT_OK)
        return rc;
    }
  return CLI_EXIT_OK;
}

static int stat_setup(struct stat_opts *o)
{
  int rc;

  if ((rc = stat_check_aggr(o)) != CLI_EXIT_OK ||
      (rc = stat_check_interval(o)) != CLI_EXIT_OK ||
      (rc = session_load_profile(&o->s)) != CLI_EXIT_OK ||
      (rc = session_choose_model(&o->s)) != CLI_EXIT_OK)
    return rc;
  /* perf counts the default events only when neither -e nor -M is
   * given. */
  rc = o->s.nlists == 0 && o->nmetric_lists == 0
           ? stat_add_default_events(o)
           : session_add_given_events(&o->s);
  if (rc == CLI_EXIT_OK)
    rc = stat_add_metrics(o);
  return rc != CLI_EXIT_OK ? rc : stat_add_detailed_events(o);
}

/* ---- the plugin's results ------------------------------------------------ */

/* Number the events the plugin counts (its event= arguments, in order);
 * how many there are. */
static int stat_number_events(struct stat_opts *o)
{
  unsigned i;
  int next = 0;

  for (i = 0; i < o->s.nev; i++)
    o->index[i] = o->s.ev[i].supported ? next++ : -1;
  return next;
}

/* Sum the blocks of every process (protocol/results.h) by event index
 * into count: the number of blocks read, or -1 (errno set) when path
 * cannot be read, -2 with the reason in why for a block of another
 * format version. */
static int stat_read_results(const char *path, struct stat_opts *o,
                             struct stat_count *count, char *why, size_t len)
{
  FILE *f = fopen(path, "r");
  char line[256];
  int blocks = 0;

  if (!f)
    return -1;
  while (fgets(line, sizeof(line), f)) {
    struct spmu_results_line r;
    unsigned i;

    if (spmu_results_parse_line(line, &r, why, len) != 0) {
      blocks = -2;
      break;
    }
    if (r.kind == SPMU_RESULTS_HEAD) {
      blocks++;
      if (r.head.status == SPMU_RESULTS_STATUS_EXECVE)
        o->execve = true;
    } else if (r.kind == SPMU_RESULTS_EVENT)
      for (i = 0; i < o->s.nev; i++)
        if (o->index[i] == (int)r.index) {
          count[i].n += r.ev.count;
          count[i].enabled += r.ev.enabled;
          count[i].running += r.ev.running;
        }
  }
  fclose(f);
  return blocks;
}

static double stat_seconds(const struct timeval *tv)
{
  return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

static double stat_elapsed(const struct qemu_child *c)
{
  return (double)(c->t1.tv_sec - c->t0.tv_sec) +
         (double)(c->t1.tv_nsec - c->t0.tv_nsec) / 1e9;
}

/* Add one run's counts and time to the results: a run that gave no
 * counts adds none (the event prints <not counted> if none did). */
static void stat_add_run(struct stat_opts *o, struct stat_run *run,
                         const struct qemu_child *c,
                         const struct stat_count *count, bool counted)
{
  unsigned i;
  double el = stat_elapsed(c);

  stat_stats_add(&run->elapsed, el);
  run->user_s = stat_seconds(&c->ru.ru_utime);
  run->sys_s = stat_seconds(&c->ru.ru_stime);
  for (i = 0; i < o->s.nev; i++) {
    const struct stat_count *k = &count[i];
    double share = k->enabled ? (double)k->running / (double)k->enabled : 1;

    /* Multiplexed: scaled by enabled / running as perf does; never
     * running, no count (<not counted>). */
    if (o->index[i] < 0 || !counted || (k->enabled && !k->running))
      continue;
    stat_stats_add(&o->res[i].count, (double)k->n / share);
    o->res[i].run_ns = (uint64_t)(run->elapsed.mean * share * 1e9);
    o->res[i].pcnt_running = 100.0 * share;
  }
}

/* QEMU 7.2 ends a process killed by a signal without calling the
 * plugin's exit callback: nothing is written then. */
static void stat_explain_no_counts(const struct qemu_child *r)
{
  if (WIFSIGNALED(r->status))
    cli_error("stat: no counts: the signal ended qemu-x86_64 before the "
              "plugin could write them (SIGKILL cannot be caught)");
  else
    cli_error("stat: the plugin wrote no counts (see the messages above)");
}

/* ---- --per-thread: each thread's counts --------------------------------- */

/* The process's command as the kernel names it (TASK_COMM_LEN: 15
 * characters): PROG's last path component; "?" when none is named. */
static void stat_comm(const struct stat_opts *o, char *comm, size_t len)
{
  const char *prog = o->s.prog_argv[0], *slash;

  if (!prog) {
    snprintf(comm, len, "?");
    return;
  }
  slash = strrchr(prog, '/');
  snprintf(comm, len, "%.15s", slash ? slash + 1 : prog);
}

/* Event i's result from its count k, scaled by enabled / running when
 * multiplexed, as stat_add_run does for the sum; run_s: the seconds its
 * counter ran when it ran all the time. */
static struct stat_result stat_result_of(const struct stat_opts *o, unsigned i,
                                         const struct stat_count *k,
                                         double run_s)
{
  double share = k->enabled ? (double)k->running / (double)k->enabled : 1;
  struct stat_result r = o->res[i];

  memset(&r.count, 0, sizeof(r.count));
  if (o->index[i] < 0 || (k->enabled && !k->running))
    return r;
  stat_stats_add(&r.count, (double)k->n / share);
  r.run_ns = (uint64_t)(run_s * share * 1e9);
  r.pcnt_running = 100.0 * share;
  return r;
}

/* Each event's lines, one per thread, the largest count first, as perf
 * sorts threads (tools/perf/util/stat-display.c, sort_aggr_thread); equal
 * counts in the file's order. */
static void stat_sort_threads(struct stat_result *r, size_t n)
{
  size_t i, j;

  for (i = 1; i < n; i++) {
    struct stat_result t = r[i];

    for (j = i; j > 0 && t.count.mean > r[j - 1].count.mean; j--)
      r[j] = r[j - 1];
    r[j] = t;
  }
}

/* --per-thread: o->view, each event's count in each thread of the results
 * file at path (one run), named COMM-TID as perf names a thread; a block
 * that names no thread is its process's, named by PROG and its pid. */
static int stat_per_thread(struct stat_opts *o, const char *path,
                           double elapsed)
{
  long n = stat_results_threads(path, o->index, o->s.nev, &o->threads), t;
  unsigned i;

  o->nthreads = n > 0 ? n : 0;
  if (o->interval)
    return n < 0 ? -1 : 0; /* each row's view is made as it is printed */
  if (n <= 0 || !(o->view = calloc((size_t)n * o->s.nev, sizeof(*o->view))))
    return n < 0 ? -1 : 0;
  for (i = 0; i < o->s.nev; i++) {
    for (t = 0; t < n; t++) {
      struct stat_result *r = &o->view[o->nview + (size_t)t];

      *r = stat_result_of(o, i, &o->threads[t].count[i], elapsed);
      r->aggr_id = o->threads[t].tid;
      r->comm = o->threads[t].comm[0] ? o->threads[t].comm : o->comm;
    }
    stat_sort_threads(&o->view[o->nview], (size_t)n);
    o->nview += (size_t)n;
  }
  return 0;
}

/* ---- -I: intervals ------------------------------------------------------- */

/* The time at the end of row k (from 0) of rows of ns nanoseconds: the
 * last ends at the largest clock, where the program (its longest thread)
 * ended; the clock counts 10^9 instructions a second (docs/decisions.md). */
static uint64_t stat_row_end(const struct stat_rows *rows, size_t k,
                             uint64_t ns)
{
  uint64_t end = (uint64_t)(k + 1) * ns;

  return k + 1 == rows->nrows && rows->clock < end ? rows->clock : end;
}

/* Event i's result in row k of rows: a row's counts are scaled by its
 * own enabled / running when multiplexed, as perf scales an interval's;
 * its run time is its instructions, as nanoseconds. */
static struct stat_result stat_row_result(const struct stat_opts *o,
                                          const struct stat_rows *rows,
                                          size_t k, unsigned i)
{
  static const struct stat_count none;
  const struct stat_count *c =
      k < rows->nrows ? &rows->count[k * o->s.nev + i] : &none;

  return stat_result_of(o, i, c, (double)c->enabled / 1e9);
}

/* Did thread t run in row k (an event enabled there)? */
static bool stat_thread_in_row(const struct stat_opts *o,
                               const struct stat_thread *t, size_t k)
{
  unsigned i;

  for (i = 0; k < t->rows.nrows && i < o->s.nev; i++)
    if (t->rows.count[k * o->s.nev + i].enabled)
      return true;
  return false;
}

/* Row k's results into res: each event's, or with --per-thread each
 * event's in each thread that ran in the row (largest first, as
 * perf); how many. */
static size_t stat_row_view(const struct stat_opts *o, size_t k,
                            struct stat_result *res)
{
  size_t n = 0, first;
  unsigned i;
  long t;

  for (i = 0; i < o->s.nev; i++) {
    if (!o->per_thread) {
      res[n++] = stat_row_result(o, &o->rows, k, i);
      continue;
    }
    for (first = n, t = 0; t < o->nthreads; t++) {
      const struct stat_thread *th = &o->threads[t];

      if (!stat_thread_in_row(o, th, k))
        continue;
      res[n] = stat_row_result(o, &th->rows, k, i);
      res[n].aggr_id = th->tid;
      res[n++].comm = th->comm[0] ? th->comm : o->comm;
    }
    stat_sort_threads(&res[first], n - first);
  }
  return n;
}

/* -I: each row of o->rows in turn, as perf prints an interval's counts
 * (the first --interval-count rows with it). */
static int stat_print_rows(struct stat_opts *o, FILE *f,
                           const struct stat_run *run)
{
  size_t per = o->per_thread ? (size_t)o->nthreads : 1;
  struct stat_result *res = calloc(o->s.nev * per + 1, sizeof(*res));
  struct stat_print_opts po = o->print;
  uint64_t ns = o->interval * 1000000u;
  size_t k, n = o->rows.nrows;

  if (!res)
    return -1;
  if (o->interval_count && o->interval_count < n)
    n = (size_t)o->interval_count;
  po.interval = true;
  for (k = 0; k < n; k++) {
    po.time_ns = stat_row_end(&o->rows, k, ns);
    po.row = (unsigned)k;
    stat_print(f, &po, run, res, stat_row_view(o, k, res));
  }
  free(res);
  return 0;
}

/* ---- printing ------------------------------------------------------------ */

/* Which model produced the modelled counts (when one did), and with
 * --verbose its parameters, into the run. */
static void stat_describe_model(const struct stat_opts *o, struct stat_run *run,
                                char *summary, size_t len,
                                char details[][STAT_MODEL_SPEC_MAX],
                                const char **lines)
{
  unsigned i, n;

  if (!session_needs_model(&o->s))
    return;
  stat_model_summary(&o->s.model, summary, len);
  run->model = summary;
  if (!o->verbose)
    return;
  n = stat_model_details(&o->s.model, details);
  for (i = 0; i < n; i++)
    lines[i] = details[i];
  run->model_details = lines;
  run->nmodel_details = n;
}

/* -o FILE, opened (created, emptied) before the program runs, as perf
 * stat opens it, so that a file that cannot be written costs no run; its
 * first line says when, as perf's does ("# started on" and ctime(3)'s
 * date, then a blank line), in every layout. */
static int stat_open_output(struct stat_opts *o)
{
  const char *out = o->s.out;
  char date[64];
  time_t now = time(NULL);
  const struct tm *tm;

  if (!out)
    return CLI_EXIT_OK;
  if (!(o->outf = fopen(out, "w"))) {
    cli_error("stat: -o %s: %s", out, strerror(errno));
    return CLI_EXIT_USAGE;
  }
  /* ctime(3)'s layout: "Sat Nov 28 08:00:00 2026". */
  if ((tm = localtime(&now)) &&
      strftime(date, sizeof(date), "%a %b %e %H:%M:%S %Y", tm))
    fprintf(o->outf, "# started on %s\n\n", date);
  /* A file that opens but takes no bytes (/proc/version for root) fails
   * here, before the run, not when the counts are written. */
  if (fflush(o->outf) != 0 || ferror(o->outf)) {
    cli_error("stat: -o %s: %s", out, strerror(errno));
    fclose(o->outf);
    o->outf = NULL;
    return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
}

static int stat_print_counts(struct stat_opts *o,
                             const struct stat_run *counted)
{
  FILE *f = o->outf ? o->outf : stderr;
  const char *out = o->s.out;
  struct stat_run run = *counted;
  char summary[512], details[STAT_MODEL_DETAILS][STAT_MODEL_SPEC_MAX];
  const char *lines[STAT_MODEL_DETAILS];
  int rc;

  if (o->execve)
    cli_error("stat: a process called execve: the program it started ran "
              "without the plugin and is not counted");
  stat_describe_model(o, &run, summary, sizeof(summary), details, lines);
  if (o->interval) {
    if (!o->rows.nrows)
      cli_error("stat: -I: the results hold no intervals (no instruction "
                "ran, or the plugin ran without interval=N)");
    if (stat_print_rows(o, f, &run) != 0)
      cli_error("stat: -I: out of memory");
  } else
    stat_print(f, &o->print, &run, o->view ? o->view : o->res,
               o->view ? o->nview : o->s.nev);
  if (!o->outf)
    return CLI_EXIT_OK;
  rc = fclose(o->outf);
  o->outf = NULL;
  if (rc != 0) {
    cli_error("stat: %s: %s", out, strerror(errno));
    return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
}

/* ---- the command --------------------------------------------------------- */

/* Run the program -r times, each run's counts into the results. */
static int stat_runs(struct stat_opts *o, struct stat_run *run, int counted)
{
  struct stat_count count[STAT_MAX_EVENTS];
  char why[8192];
  unsigned r;
  int rc, blocks;

  for (r = 0; r < (o->runs ? o->runs : 1); r++) {
    memset(count, 0, sizeof(count));
    if ((rc = session_run(&o->s)) != CLI_EXIT_OK)
      return rc;
    blocks = stat_read_results(o->s.tmp, o, count, why, sizeof why);
    if (blocks == -2) {
      cli_error("stat: %s", why);
      return CLI_EXIT_USAGE;
    }
    if (blocks <= 0 && counted)
      stat_explain_no_counts(&o->s.child);
    stat_add_run(o, run, &o->s.child, count, blocks > 0);
    if (o->per_thread && blocks > 0)
      stat_per_thread(o, o->s.tmp, stat_elapsed(&o->s.child));
    if (o->interval && blocks > 0 &&
        stat_results_rows(o->s.tmp, o->index, o->s.nev, &o->rows) != 0)
      cli_error("stat: -I: %s", strerror(errno));
  }
  return CLI_EXIT_OK;
}

/* The plugin's comm=: PROG's name, its commas '_' (as record's; QEMU
 * splits the plugin's arguments at commas). */
static void stat_plugin_comm(const char *name, char *comm, size_t len)
{
  char *c;

  snprintf(comm, len, "%s", name);
  for (c = comm; *c; c++)
    if (*c == ',')
      *c = '_';
}

static int stat_execute(struct stat_opts *o)
{
  struct spmu_plugin_args a;
  struct stat_run run = {.runs = o->runs, .argv = o->s.prog_argv};
  int rc, counted = stat_number_events(o);

  session_plugin_args(&o->s, &a);
  a.multiplex = o->mux;
  a.interval = o->interval * 1000000u; /* 10^6 instructions a millisecond */
  stat_plugin_comm(o->comm, a.comm, sizeof(a.comm));
  if (o->mux)
    a.grouped = stat_grouped_bits(o);
  /* With no event to count, the program runs without the plugin. */
  if ((rc = session_start(&o->s, counted ? &a : NULL)) == CLI_EXIT_OK) {
    while (run.argv[run.argc])
      run.argc++;
    stat_note_kernel_only(o);
    if ((rc = stat_runs(o, &run, counted)) == CLI_EXIT_OK &&
        (rc = stat_print_counts(o, &run)) == CLI_EXIT_OK)
      rc = session_exit_status(&o->s);
  }
  session_end(&o->s);
  if (o->outf)
    fclose(o->outf);
  return rc;
}

/* --from FILE: print a results file the plugin wrote (its format:
 * frontends/qemu/README.md), for the events given, as if a run of PROG
 * (if named) had written it; no time is measured. */
static int stat_print_file(struct stat_opts *o)
{
  struct stat_count count[STAT_MAX_EVENTS];
  struct qemu_child c;
  struct stat_run run = {.runs = 1, .argv = o->s.prog_argv};
  const char *from = o->s.from;
  char why[256];
  int blocks;

  memset(count, 0, sizeof(count));
  memset(&c, 0, sizeof(c));
  stat_number_events(o);
  while (run.argv[run.argc])
    run.argc++;
  if (stat_open_output(o) != CLI_EXIT_OK)
    return CLI_EXIT_USAGE;
  blocks = stat_read_results(from, o, count, why, sizeof(why));
  if (blocks < 0) {
    cli_error("stat: --from %s: %s", from,
              blocks == -2 ? why : strerror(errno));
    if (o->outf)
      fclose(o->outf);
    return CLI_EXIT_USAGE;
  }
  stat_add_run(o, &run, &c, count, blocks > 0);
  if (o->per_thread && blocks > 0)
    stat_per_thread(o, from, 0.0);
  if (o->interval && blocks > 0 &&
      stat_results_rows(from, o->index, o->s.nev, &o->rows) != 0)
    cli_error("stat: -I: %s", strerror(errno));
  return stat_print_counts(o, &run);
}

static const struct session_command stat_session = {
    .name = "stat",
    .sampling = false,
    .groups = true,
    .options = stat_options,
    .option = stat_option,
    .event = stat_event,
    .guard = cli_cleanup_guard,
    .say = cli_say,
    .say_opaque = &cli_cmd_stat,
};

/* Options end at the program's name: stat parses its own command line. */
static int stat_main(int argc, char **argv)
{
  struct stat_opts o = {.print = {.format = STAT_FMT_STD, .big_num = true}};
  int rc;

  session_init(&o.s, &stat_session, &o);
  o.s.profile_name = CLI_DEFAULT_PROFILE;
  if ((rc = session_parse(&o.s, argc, argv)) == SESSION_HELP) {
    cli_command_manual(&cli_cmd_stat);
    return CLI_EXIT_OK;
  }
  if (rc != CLI_EXIT_OK || (rc = stat_setup(&o)) != CLI_EXIT_OK)
    return rc;
  stat_comm(&o, o.comm, sizeof o.comm);
  if (o.s.from)
    rc = stat_print_file(&o);
  else if ((rc = session_find(&o.s)) == CLI_EXIT_OK &&
           (rc = stat_open_output(&o)) == CLI_EXIT_OK)
    rc = stat_execute(&o);
  free(o.view);
  stat_results_free_threads(o.threads, o.nthreads);
  free(o.rows.count);
  return rc;
}

/* clang-format off: the manual's text is laid out as it prints */
const struct cli_command cli_cmd_stat = {
    .name = "stat",
    .summary = "run a program and count its events through the model",
    .synopsis =
        "[--cpu PROFILE] [-e EVENT,...] [-x SEP | -j] [-r N] [-o FILE]\n"
        "             [--multiplex[=N]] [--model SPEC | --no-model] [-v]\n"
        "             [-d[d[d]]] [--all-user] [--no-big-num | -B]\n"
        "             [-A | --per-thread] [-M METRIC,...]\n"
        "             [-I MSEC [--interval-count N]] [--qemu PATH] [--vdso]\n"
        "             [--seed N] [--] PROG [ARGS...]\n"
        "    softpmu stat [--cpu PROFILE] [-e EVENT,...] [-x SEP | -j]"
        " --from FILE [PROG...]",
    .description =
        "    Runs PROG under qemu-x86_64 (Debian's qemu-user) with softpmu's\n"
        "    QEMU plugin, which hands every retired user-mode instruction of\n"
        "    every thread to a model PMU of the profile "
        "(default " CLI_DEFAULT_PROFILE "),\n"
        "    programmed as a driver programs hardware; then prints the counts\n"
        "    in perf stat's layout on standard error. Forked children are\n"
        "    counted and added in, and so is a program started by execve,\n"
        "    which runs under QEMU and the plugin too (not a set-user-ID\n"
        "    one: stat says when a program ran uncounted). The program's\n"
        "    input, output and exit status pass through.\n"
        "\n"
        "    Two kinds of count. Exact, the same on every run: instructions\n"
        "    retired, branch instructions retired (all, conditional, near\n"
        "    call, near return, near taken, far) and loads and stores\n"
        "    retired, as the profile encodes them. Modelled, estimates of the\n"
        "    modelled micro-architecture (caches with the part's geometry, a\n"
        "    stated branch predictor, a simple timing model, not a\n"
        "    cycle-accurate pipeline; " CLI_DOCDIR "/uarch.md):\n"
        "    cycles (3CH/00H, ref-cycles, bus-cycles),\n"
        "    LONGEST_LAT_CACHE.REFERENCE/MISS (cache-references,\n"
        "    cache-misses), L1D.REPLACEMENT (L1-dcache-load-misses where perf\n"
        "    maps it so), BR_MISP_RETIRED (branch-misses; CONDITIONAL) and\n"
        "    MEM_LOAD_RETIRED.L1/L2/L3 hits and misses (retired load\n"
        "    instructions, each by the deepest level its reads reached), each\n"
        "    where the profile's event table gives it that meaning. A\n"
        "    modelled count is marked (model), and a line names the model;\n"
        "    exact counts are never marked. Modelled counts depend on the\n"
        "    program's addresses, which QEMU is run to keep the same (no\n"
        "    address randomisation, a fixed guest base): the same command\n"
        "    gives them the same on every run too. Under QEMU 8.2 and later\n"
        "    the program gets QEMU 7.2's addresses (its stack one page\n"
        "    lower, at 7.2's page offsets; --vdso: QEMU's own start), so that\n"
        "    a program whose path depends on them counts as under 7.2.\n"
        "    Every other event (stalls, TLBs, cmask, inv, edge...) prints\n"
        "    <not supported>. The engine runs user code only: an event with\n"
        "    :k alone counts 0.\n"
        "\n"
        "    EVENT, case-insensitive, each optionally with :u, :k or :uk:\n"
        "      perf's generic names: instructions, branches,\n"
        "        branch-instructions, cycles, cpu-cycles, ref-cycles,\n"
        "        bus-cycles, cache-references, cache-misses, branch-misses,\n"
        "        L1-dcache-loads, L1-dcache-stores, L1-dcache-load-misses;\n"
        "      the profile's Intel names through libpfm4, in perf's spelling\n"
        "        (br_inst_retired.near_call) or libpfm4's\n"
        "        (BR_INST_RETIRED:NEAR_CALL);\n"
        "      perf's raw rUUEE (umask UU, event EE: r00c0 is C0H/00H);\n"
        "      perf's cpu/event=0xc4,umask=0x02/.\n"
        "    An unknown name gets the nearest names. Default: perf stat's\n"
        "    hardware events, cycles, instructions, branches, branch-misses,\n"
        "    with cache-references and cache-misses, and perf's metrics of\n"
        "    them (insn per cycle, of all branches, of all cache refs).\n"
        "    perf's software events (task-clock, context-switches,\n"
        "    cpu-migrations, page-faults) are not shown: under QEMU they\n"
        "    would be the emulator's, not the program's.\n",
    .options =
        "    --cpu PROFILE\n"
        "        The processor to model: a preset name or alias (skylake,\n"
        "        icelake, haswell, skl...; not a key=value profile: QEMU\n"
        "        splits a plugin's arguments on commas). "
        "Default: " CLI_DEFAULT_PROFILE ",\n"
        "        as in every softpmu command. QEMU's -cpu model follows it\n"
        "        (Skylake-Client for skylake), since glibc picks its code by\n"
        "        CPUID. -c PROFILE, its former spelling, still works with a\n"
        "        warning (deprecated: -c is record's period, as in perf).\n\n"
        "    -e, --event EVENT[,EVENT...]\n"
        "        The events to count (repeatable). perf's groups,\n"
        "        {EVENT,...} and {EVENT,...}:MODIFIERS, print each member on\n"
        "        its line, as perf; a member without modifiers takes the\n"
        "        group's (cycles in {cycles,instructions}:u is cycles:u), one\n"
        "        with its own counts where both allow. With --multiplex a\n"
        "        group is scheduled whole, in the same slices.\n\n"
        "    --model SPEC\n"
        "        The modelled micro-architecture: part:NAME (sandybridge,\n"
        "        haswell, skylake, icelake, sapphirerapids) or\n"
        "        cachegrind:I1=S,A,L:D1=S,A,L:LL=S,A,L, the geometry of\n"
        "        valgrind cachegrind's --I1/--D1/--LL (size, ways, line size)\n"
        "        with its rules. Default: part:PROFILE for the profiles from\n"
        "        sandybridge on, none for the older ones (a modelled event\n"
        "        then needs --model; the default events print <not\n"
        "        supported>).\n\n"
        "    --no-model\n"
        "        No model: modelled events print <not supported>, and the\n"
        "        plugin loads no model, at no cost. (The model is loaded only\n"
        "        when a modelled event is counted in any case.)\n\n"
        "    -v, --verbose\n"
        "        Print every parameter of the model under its line: each\n"
        "        cache's size, ways, line size and sets, the predictor, the\n"
        "        timing model, and a note that --no-model (the exact events\n"
        "        alone) costs several times less. Before the counts, on\n"
        "        standard error: the qemu-x86_64 that runs (its path and the\n"
        "        first line of its --version) and the QEMU plugin API version\n"
        "        softpmu's plugin runs at with it.\n\n"
        "    -x, --field-separator SEP\n"
        "        One line per event, fields separated by SEP, in perf's "
        "order:\n"
        "        value, unit, event, [spread with -r,] run time in ns,\n"
        "        percentage running, metric value, metric unit; a modelled\n"
        "        count has one more field, model. The model is in a\n"
        "        '# model: ...' line first.\n\n"
        "    -j, --json\n"
        "        One JSON object per event, as perf stat -j prints it; a\n"
        "        modelled count has \"modelled\" : true; the model is an\n"
        "        object of its own first, {\"model\" : ...}.\n\n"
        "    -r, --repeat N\n"
        "        Run PROG N times; print the mean counts and their spread\n"
        "        (the standard error of the mean, as a percentage), as perf.\n"
        "        The exit status is the last run's.\n\n"
        "    -o, --output FILE\n"
        "        Write the counts to FILE instead of standard error, after a\n"
        "        first line saying when stat started ('# started on' and the\n"
        "        date, then a blank line), as perf stat does. FILE is created\n"
        "        before PROG runs: if it cannot be, PROG is not run (exit\n"
        "        status 2).\n\n"
        "    -d, --detailed (-dd, -ddd: more)\n"
        "        Append perf's detailed events to those counted, as perf\n"
        "        does: -d L1-dcache-loads (exact), L1-dcache-load-misses\n"
        "        (modelled; perf's metric, of all L1-dcache accesses),\n"
        "        LLC-loads, LLC-load-misses; -dd the instruction cache's and\n"
        "        TLBs' loads and misses; -ddd the L1 data cache's prefetches.\n"
        "        Those the engine does not produce print <not supported>.\n\n"
        "    --all-user\n"
        "        Count every event in user code only, as if each had :u\n"
        "        (:k too); the names print as given, as perf prints them.\n"
        "        Under qemu-user only user code runs, so this changes only\n"
        "        events given :k (0 without it).\n\n"
        "    -A, --no-aggr\n"
        "        Print each line as perf prints one CPU's counts (CPU0 "
        "first).\n"
        "        There is one modelled CPU: each thread of the program counts\n"
        "        on a PMU of its own and their counts are summed, so the\n"
        "        counts are those without -A; a note says so.\n\n"
        "    --per-thread\n"
        "        Each thread's counts, as perf prints them (COMM-TID first;\n"
        "        each event's largest count first; metrics within one\n"
        "        thread): every thread of the program, of each forked child\n"
        "        and of each program an execve started (a thread before and\n"
        "        after its execve is one line). COMM is the process's name,\n"
        "        PROG's or the exec'd program's (15 characters). Not with -r\n"
        "        (each run's threads are new ones) nor with -A.\n\n"
        "    -I, --interval-print MSEC\n"
        "        Print the counts of each interval of MSEC milliseconds, as\n"
        "        perf stat -I does (the time at the interval's end first), on\n"
        "        the instructions' clock: 10^9 instructions a thread retires\n"
        "        are one second, so an interval is 10^6 x MSEC instructions\n"
        "        of each thread's clock (a forked child's goes on from its\n"
        "        parent's, an exec'd program's from the caller's), every\n"
        "        thread summed. Each boundary falls at the exact instruction,\n"
        "        modelled events included, and the last interval is partial,\n"
        "        at the largest clock: the intervals add up to the counts\n"
        "        without -I. With --multiplex each interval is scaled by its\n"
        "        own enabled / running, as perf does. The intervals are\n"
        "        printed when PROG has ended. 0: no interval. With\n"
        "        --per-thread each interval's lines are each thread's that\n"
        "        ran in it. Not with -r; --interval-clear is refused (there\n"
        "        is no screen to clear while PROG runs).\n\n"
        "    --interval-count N\n"
        "        With -I: print the first N intervals only (PROG runs to its\n"
        "        end).\n\n"
        "    -M, --metrics METRIC[,METRIC...]\n"
        "        perf's Intel metrics that are one event this engine produces\n"
        "        over another: IPC, CPI, IpBranch, IpCall, IpMispredict,\n"
        "        BpTkBranch, L1MPKI, L2MPKI, L3MPKI (the last three where the\n"
        "        profile has MEM_LOAD_RETIRED: Skylake on). Each counts its\n"
        "        two events, spelt as perf's metric spells them, and prints\n"
        "        the metric on the first one's line, as perf. Without -e,\n"
        "        only these events are counted (repeatable).\n\n"
        "    --no-big-num, -B, --big-num\n"
        "        Print counts without (or with, the default) their digits\n"
        "        grouped by thousands; the last one given counts.\n\n"
        "    --multiplex[=N]\n"
        "        One PMU per thread, time-sliced among the events when they\n"
        "        outnumber its counters, as perf does: groups of events take\n"
        "        turns for slices of N instructions retired (default\n"
        "        4000000); each count is scaled by enabled / running and the\n"
        "        percentage of the time it ran is printed. Without it every\n"
        "        event is counted all the time, on as many model PMUs as\n"
        "        needed.\n\n" CLI_QEMU_OPTION_TEXT "    --from FILE\n"
        "        Run nothing: print the counts of a results file the plugin\n"
        "        wrote (its format: " CLI_DOCDIR "/qemu-plugin.md)\n"
        "        for the events given, in order; PROG, if given, names the\n"
        "        command in the header. No time is measured.\n\n"
        "    -a, -p PID, -t TID, -C CPUS, -G CGROUP\n"
        "        perf's targets, refused with the reason (status 2): the\n"
        "        program runs under qemu-x86_64, in user mode, so there is no\n"
        "        system, other process or thread, CPU or cgroup to count.\n",
    .exit_status =
        "    The program's exit status (128 + N when killed by signal N);\n"
        "    127 when PROG is not found, 126 when it cannot be run (a\n"
        "    directory included); 2 for bad usage (an unknown event, an\n"
        "    empty event list, a model specification refused, a modelled\n"
        "    event without a model, an -o FILE that cannot be written) or\n"
        "    when qemu-x86_64 or the plugin is missing (or --qemu's or\n"
        "    $SOFTPMU_QEMU's qemu-x86_64 cannot load it). Killed by SIGHUP,\n"
        "    SIGINT, SIGPIPE or SIGTERM, stat removes its temporary file,\n"
        "    passes the signal to PROG and waits for it, then dies of the\n"
        "    signal.\n",
    .examples = "    softpmu stat -- ./prog arg\n"
                "    softpmu stat -e instructions:u,br_inst_retired.near_call "
                "-- /bin/true\n"
                "    softpmu stat -r 5 -x , -e r02c4 -o counts.csv -- ./prog\n"
                "    softpmu stat -I 100 -e instructions,cycles -- ./prog\n"
                "    softpmu stat -v -e cache-misses,L1-dcache-load-misses "
                "-- ./prog\n"
                "    softpmu stat --model "
                "cachegrind:I1=32768,8,64:D1=32768,8,64:LL=8388608,16,64 \\\n"
                "        -e l1d.replacement,longest_lat_cache.miss -- ./prog\n",
    .flags = CLI_FLAG_OWN_CPU_OPTION,
    .main = stat_main,
    .min_args = 0,
    .max_args = -1,
};
/* clang-format on */

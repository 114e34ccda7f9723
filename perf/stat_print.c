/* SPDX-License-Identifier: MIT */
/* softpmu stat's output in perf stat's layouts (stat_print.h).
 *
 * The column widths and spacing are those Debian's perf 6.1 prints
 * (tools/perf/util/stat-display.c, print_metric_std):
 *
 *   "%18s" count, " ", a 4-column unit (empty), " ", "%-32s" event, then
 *   the metric column of 35: " # ", the value in the metric's format,
 *   " ", the unit left-aligned in what is left of the 35; 35 blanks for a
 *   counter without a metric; a <not supported> line has 28.
 *   -r N appends "  ( +- %5.2f%% )", in one column: after the widest
 *   line's metric column (a modelled mark can widen one); a time-sliced
 *   counter "  (%.2f%%)".
 */
#include "stat_print.h"

#include <math.h>
#include <string.h>

#define COUNT_WIDTH 18
#define UNIT_WIDTH 4
#define EVENT_WIDTH 32
#define METRIC_BLANKS 35
#define UNSUPPORTED_BLANKS 28
#define NOT_SUPPORTED "<not supported>"
#define NOT_COUNTED "<not counted>"
#define METRIC_LEN 35
#define MODEL_MARK " (model)"
#define STD_LINE_MAX 512 /* a counted line up to its metric column */

void stat_stats_add(struct stat_stats *s, double x)
{
  double delta = x - s->mean;

  s->n++;
  s->mean += delta / s->n;
  s->m2 += delta * (x - s->mean);
}

double stat_stats_stderr(const struct stat_stats *s)
{
  if (s->n < 2)
    return 0.0;
  return sqrt(s->m2 / (s->n - 1) / s->n);
}

double stat_stats_rel_pct(const struct stat_stats *s)
{
  return s->mean != 0.0 ? 100.0 * stat_stats_stderr(s) / s->mean : 0.0;
}

/* What is printed instead of a count: <not supported> (the engine does
 * not produce the event), <not counted> (no run gave a count, as perf
 * says of a counter that never ran), or NULL. */
static const char *no_value(const struct stat_result *r)
{
  if (!r->supported)
    return NOT_SUPPORTED;
  return r->count.n == 0 ? NOT_COUNTED : NULL;
}

static bool repeated(const struct stat_run *run)
{
  return run->runs > 1;
}

/* v rounded to an integer, digits grouped by three with ',' when
 * group. */
static void count_text(double v, bool group, char *buf, size_t len)
{
  char digits[48];
  size_t nd, i, o = 0;

  snprintf(digits, sizeof digits, "%.0f", v);
  nd = strlen(digits);
  for (i = 0; i < nd && o + 2 < len; i++) {
    if (group && i > 0 && digits[i - 1] != '-' && (nd - i) % 3 == 0)
      buf[o++] = ',';
    buf[o++] = digits[i];
  }
  buf[o] = '\0';
}

/* ---- perf's metrics ------------------------------------------------------*/

/* perf's formats of its metrics' values. */
enum metric_fmt {
  FMT_RATIO,    /* "%7.2f " */
  FMT_PCT,      /* "%7.2f%%" */
  FMT_PCT_WIDE, /* "%8.3f %%" */
  FMT_EXPR      /* "%8.2f": a metric of -M */
};

/* A metric of an event: its value in perf's format and its unit. */
struct metric {
  double v;
  enum metric_fmt fmt;
  const char *unit;
  bool modelled; /* derived from a modelled count */
};

/* The metric's value as perf formats it. */
static void metric_text(const struct metric *m, char *buf, size_t len)
{
  switch (m->fmt) {
  case FMT_RATIO:
    snprintf(buf, len, "%7.2f ", m->v);
    return;
  case FMT_PCT:
    snprintf(buf, len, "%7.2f%%", m->v);
    return;
  case FMT_PCT_WIDE:
    snprintf(buf, len, "%8.3f %%", m->v);
    return;
  case FMT_EXPR:
    snprintf(buf, len, "%8.2f", m->v);
    return;
  }
  buf[0] = '\0';
}

/* perf stat 6.1's metrics of the generic events (tools/perf/util/
 * stat-shadow.c, perf_stat__print_shadow_stats): the event, the one it is
 * divided by, the scale, perf's format and unit. */
static const struct {
  enum stat_hw hw, base;
  double scale;
  enum metric_fmt fmt;
  const char *unit;
} metrics[] = {
    {STAT_HW_INSTRUCTIONS, STAT_HW_CYCLES, 1.0, FMT_RATIO, "insn per cycle"},
    {STAT_HW_BRANCH_MISSES, STAT_HW_BRANCHES, 100.0, FMT_PCT,
     "of all branches"},
    {STAT_HW_CACHE_MISSES, STAT_HW_CACHE_REFS, 100.0, FMT_PCT_WIDE,
     "of all cache refs"},
    {STAT_HW_L1D_LOAD_MISSES, STAT_HW_L1D_LOADS, 100.0, FMT_PCT,
     "of all L1-dcache accesses"},
};

/* -M's metric on res[i]: its count over its denominator's, in the same
 * CPU or process. */
static bool metric_expr_of(const struct stat_result *res, size_t n, size_t i,
                           struct metric *m)
{
  size_t j;

  for (j = 0; j < n; j++) {
    const struct stat_result *b = &res[j];

    if (b->event != res[i].metric_den || b->aggr_id != res[i].aggr_id ||
        no_value(b))
      continue;
    m->v = b->count.mean != 0.0
               ? res[i].metric_scale * res[i].count.mean / b->count.mean
               : 0.0;
    m->fmt = FMT_EXPR;
    m->unit = res[i].metric;
    m->modelled = res[i].modelled || b->modelled;
    return true;
  }
  return false;
}

/* The metric of res[i], when it has one: -M's, else its base event
 * counted with the same modifiers (perf pairs the counts of one
 * context). */
static bool metric_of(const struct stat_result *res, size_t n, size_t i,
                      struct metric *m)
{
  size_t k, j;

  if (no_value(&res[i]))
    return false;
  if (res[i].metric)
    return metric_expr_of(res, n, i, m);
  for (k = 0; k < sizeof(metrics) / sizeof(metrics[0]); k++) {
    if (res[i].hw != metrics[k].hw || res[i].hw == STAT_HW_NONE)
      continue;
    for (j = 0; j < n; j++) {
      const struct stat_result *b = &res[j];

      if (b->hw != metrics[k].base || no_value(b) || b->user != res[i].user ||
          b->kernel != res[i].kernel || b->aggr_id != res[i].aggr_id)
        continue;
      m->v = b->count.mean != 0.0
                 ? metrics[k].scale * res[i].count.mean / b->count.mean
                 : 0.0;
      m->fmt = metrics[k].fmt;
      m->unit = metrics[k].unit;
      m->modelled = res[i].modelled || b->modelled;
      return true;
    }
  }
  return false;
}

/* The metric's unit, marked when it comes from a modelled count. */
static void metric_unit(const struct metric *m, char *buf, size_t len)
{
  snprintf(buf, len, "%s%s", m->unit, m->modelled ? MODEL_MARK : "");
}

/* The event's name, marked when its count is modelled. */
static void event_text(const struct stat_result *r, char *buf, size_t len)
{
  snprintf(buf, len, "%s%s", r->name,
           r->modelled && !no_value(r) ? MODEL_MARK : "");
}

/* ---- whose count: -A, --per-thread ---------------------------------------*/

/* -I: the interval's time, first (perf's print_interval). */
static void time_prefix(FILE *f, const struct stat_print_opts *o)
{
  unsigned long s = (unsigned long)(o->time_ns / 1000000000u),
                ns = (unsigned long)(o->time_ns % 1000000000u);

  if (!o->interval)
    return;
  if (o->format == STAT_FMT_JSON)
    fprintf(f, "\"interval\" : %lu.%09lu, ", s, ns);
  else
    fprintf(f, "%6lu.%09lu%s", s, ns, o->format == STAT_FMT_CSV ? o->sep : " ");
}

/* perf's aggr_printout: the CPU or the thread a line counts, first (after
 * the time with -I). */
static void aggr_prefix(FILE *f, const struct stat_print_opts *o,
                        const struct stat_result *r)
{
  const char *sep = o->format == STAT_FMT_CSV ? o->sep : " ";

  time_prefix(f, o);
  if (o->aggr == STAT_AGGR_CPU) {
    if (o->format == STAT_FMT_JSON)
      fprintf(f, "\"cpu\" : \"%ld\", ", r->aggr_id);
    else
      fprintf(f, "CPU%*ld%s", o->format == STAT_FMT_CSV ? 0 : -7, r->aggr_id,
              sep);
  } else if (o->aggr == STAT_AGGR_THREAD) {
    if (o->format == STAT_FMT_JSON)
      fprintf(f, "\"thread\" : \"%s-%ld\", ", r->comm, r->aggr_id);
    else if (o->format == STAT_FMT_CSV)
      fprintf(f, "%s-%ld%s", r->comm, r->aggr_id, sep);
    else
      fprintf(f, "%16s-%-8ld%s", r->comm, r->aggr_id, sep);
  }
}

/* ---- the default layout --------------------------------------------------*/

static void std_header(FILE *f, const struct stat_run *run)
{
  int i;

  fputs("\n Performance counter stats for '", f);
  for (i = 0; i < run->argc; i++)
    fprintf(f, "%s%s", i ? " " : "", run->argv[i]);
  fputc('\'', f);
  if (repeated(run))
    fprintf(f, " (%u runs)", run->runs);
  fputs(":\n\n", f);
}

/* The metric column: perf's print_metric_std, appended to buf. */
static void std_metric(char *buf, size_t len, const struct metric *m)
{
  char unit[64], value[64];
  size_t at = strlen(buf);
  int n;

  metric_text(m, value, sizeof value);
  metric_unit(m, unit, sizeof unit);
  n = (int)strlen(" # ") + (int)strlen(value);
  snprintf(buf + at, len - at, " # %s %-*s", value, METRIC_LEN - n - 1, unit);
}

/* A counted line up to the end of its metric column, into buf; its
 * width. */
static int std_counts(char *buf, size_t len, const struct stat_print_opts *o,
                      const struct stat_result *res, size_t n, size_t i)
{
  const struct stat_result *r = &res[i];
  char value[64], event[128];
  size_t at;
  struct metric m;

  count_text(r->count.mean, o->big_num, value, sizeof value);
  event_text(r, event, sizeof event);
  snprintf(buf, len, "%*s %-*s %-*s", COUNT_WIDTH, value, UNIT_WIDTH, "",
           EVENT_WIDTH, event);
  if (metric_of(res, n, i, &m))
    std_metric(buf, len, &m);
  else {
    at = strlen(buf);
    snprintf(buf + at, len - at, "%*s", METRIC_BLANKS, "");
  }
  return (int)strlen(buf);
}

/* With -r, the column where the spread starts: the widest counted line's
 * end, so that a modelled line whose mark widens its event or metric
 * column does not push its spread out of line (perf prints the variance
 * after the metric column, whose width every line shares). */
static int std_spread_column(const struct stat_print_opts *o,
                             const struct stat_result *res, size_t n)
{
  char line[STD_LINE_MAX];
  int w, col = 0;
  size_t i;

  for (i = 0; i < n; i++)
    if (!no_value(&res[i]) &&
        (w = std_counts(line, sizeof line, o, res, n, i)) > col)
      col = w;
  return col;
}

/* One event's line; with -r its spread at column spread_col. */
static void std_line(FILE *f, const struct stat_print_opts *o,
                     const struct stat_run *run, const struct stat_result *res,
                     size_t n, size_t i, int spread_col)
{
  const struct stat_result *r = &res[i];
  char line[STD_LINE_MAX];
  int w;

  if (no_value(r)) {
    fprintf(f, "%*s %-*s %-*s%*s\n", COUNT_WIDTH, no_value(r), UNIT_WIDTH, "",
            EVENT_WIDTH, r->name, UNSUPPORTED_BLANKS, "");
    return;
  }
  w = std_counts(line, sizeof line, o, res, n, i);
  fputs(line, f);
  if (repeated(run))
    fprintf(f, "%*s  ( +- %5.2f%% )", spread_col - w, "",
            stat_stats_rel_pct(&r->count));
  if (r->pcnt_running < 100.0)
    fprintf(f, "  (%.2f%%)", r->pcnt_running);
  fputc('\n', f);
}

/* The decimals of the elapsed time with -r: two more than the first
 * significant digit of its spread needs (perf stat's rule). */
static int elapsed_precision(double spread)
{
  double l;

  if (spread <= 0.0)
    return 2;
  l = log10(spread);
  return (l < 0 ? (int)-l + 1 : 0) + 2;
}

/* Which model produced the modelled counts, and with --verbose how. */
static void std_model(FILE *f, const struct stat_run *run)
{
  unsigned i;

  if (!run->model)
    return;
  fprintf(f, "\n model: %s\n", run->model);
  for (i = 0; i < run->nmodel_details; i++)
    fprintf(f, "        %s\n", run->model_details[i]);
}

static void std_footer(FILE *f, const struct stat_run *run)
{
  if (repeated(run)) {
    double sd = stat_stats_stderr(&run->elapsed);
    int prec = elapsed_precision(sd);

    fprintf(f, "\n%*.*f +- %.*f seconds time elapsed  ( +- %5.2f%% )\n\n",
            COUNT_WIDTH, prec, run->elapsed.mean, prec, sd,
            stat_stats_rel_pct(&run->elapsed));
    return;
  }
  fprintf(f, "\n%*.9f seconds time elapsed\n\n", COUNT_WIDTH,
          run->elapsed.mean);
  fprintf(f, "%*.9f seconds user\n", COUNT_WIDTH, run->user_s);
  fprintf(f, "%*.9f seconds sys\n\n\n", COUNT_WIDTH, run->sys_s);
}

/* ---- -x SEP --------------------------------------------------------------*/

/* The metric's value as perf's print_metric_csv writes it: the number
 * of its format, without blanks or '%'. */
static void csv_metric_value(const struct metric *m, char *buf, size_t len)
{
  char tmp[64], *v = tmp, *end;

  metric_text(m, tmp, sizeof tmp);
  while (*v == ' ')
    v++;
  for (end = v; (*end >= '0' && *end <= '9') || *end == '.'; end++)
    ;
  *end = '\0';
  snprintf(buf, len, "%s", v);
}

static void csv_line(FILE *f, const char *sep, const struct stat_run *run,
                     const struct stat_result *res, size_t n, size_t i)
{
  const struct stat_result *r = &res[i];
  char value[64], unit[64];
  struct metric m;

  if (!no_value(r))
    fprintf(f, "%.0f", r->count.mean);
  else
    fputs(no_value(r), f);
  fprintf(f, "%s%s%s", sep, sep, r->name); /* unit: empty */
  if (repeated(run))
    fprintf(f, "%s%.2f%%", sep, stat_stats_rel_pct(&r->count));
  fprintf(f, "%s%llu%s%.2f", sep,
          (unsigned long long)(no_value(r) ? 0 : r->run_ns), sep,
          r->pcnt_running);
  if (metric_of(res, n, i, &m)) {
    csv_metric_value(&m, value, sizeof value);
    metric_unit(&m, unit, sizeof unit);
    fprintf(f, "%s%s%s%s", sep, value, sep, unit);
  } else
    fprintf(f, "%s%s", sep, sep); /* metric value and unit: empty */
  if (r->modelled && !no_value(r))
    fprintf(f, "%smodel", sep);
  fputc('\n', f);
}

static void csv_model(FILE *f, const struct stat_run *run)
{
  unsigned i;

  if (!run->model)
    return;
  fprintf(f, "# model: %s\n", run->model);
  for (i = 0; i < run->nmodel_details; i++)
    fprintf(f, "# %s\n", run->model_details[i]);
}

/* ---- -j ------------------------------------------------------------------*/

static void json_string(FILE *f, const char *s)
{
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      fprintf(f, "\\%c", *s);
    else if ((unsigned char)*s < 0x20)
      fprintf(f, "\\u%04x", (unsigned)(unsigned char)*s);
    else
      fputc(*s, f);
  }
  fputc('"', f);
}

/* perf 6.1 prints "metric-unit" : "(null)" for a counter without a
 * metric; this prints the empty string, as it does for <not supported>. */
static void json_line(FILE *f, const struct stat_print_opts *o,
                      const struct stat_run *run, const struct stat_result *res,
                      size_t n, size_t i)
{
  const struct stat_result *r = &res[i];
  struct metric m = {0.0, FMT_RATIO, NULL, false};
  char unit[64] = "";

  fputc('{', f);
  aggr_prefix(f, o, r);
  if (!no_value(r))
    fprintf(f, "\"counter-value\" : \"%f\", ", r->count.mean);
  else
    fprintf(f, "\"counter-value\" : \"%s\", ", no_value(r));
  fputs("\"unit\" : \"\", \"event\" : ", f);
  json_string(f, r->name);
  if (repeated(run))
    fprintf(f, ", \"variance\" : %.2f", stat_stats_rel_pct(&r->count));
  if (metric_of(res, n, i, &m))
    metric_unit(&m, unit, sizeof unit);
  fprintf(f,
          ", \"event-runtime\" : %llu, \"pcnt-running\" : %.2f, "
          "\"metric-value\" : %f, \"metric-unit\" : ",
          (unsigned long long)(no_value(r) ? 0 : r->run_ns), r->pcnt_running,
          m.v);
  json_string(f, unit);
  if (r->modelled && !no_value(r))
    fputs(", \"modelled\" : true", f);
  fputs("}\n", f);
}

static void json_model(FILE *f, const struct stat_run *run)
{
  unsigned i;

  if (!run->model)
    return;
  fputs("{\"model\" : ", f);
  json_string(f, run->model);
  if (run->nmodel_details) {
    fputs(", \"model-details\" : [", f);
    for (i = 0; i < run->nmodel_details; i++) {
      fputs(i ? ", " : "", f);
      json_string(f, run->model_details[i]);
    }
    fputc(']', f);
  }
  fputs("}\n", f);
}

/* -I in the default layout: perf's column header, every 25 intervals. */
static void std_interval_header(FILE *f, const struct stat_print_opts *o)
{
  if (o->row % 25 != 0)
    return;
  fputs("#           time", f);
  if (o->aggr == STAT_AGGR_THREAD)
    fputs("             comm-pid                  counts", f);
  else if (o->aggr == STAT_AGGR_CPU)
    fputs(" CPU                    counts", f);
  else
    fputs("             counts", f);
  fprintf(f, " %*s events\n", UNIT_WIDTH, "unit");
}

/* -I: one interval's lines. */
static void print_interval(FILE *f, const struct stat_print_opts *o,
                           const struct stat_run *run,
                           const struct stat_result *res, size_t n)
{
  size_t i;

  if (o->format == STAT_FMT_STD)
    std_interval_header(f, o);
  else if (o->row == 0 && o->format == STAT_FMT_CSV)
    csv_model(f, run);
  else if (o->row == 0)
    json_model(f, run);
  for (i = 0; i < n; i++) {
    if (o->format == STAT_FMT_JSON) {
      json_line(f, o, run, res, n, i);
      continue;
    }
    aggr_prefix(f, o, &res[i]);
    if (o->format == STAT_FMT_CSV)
      csv_line(f, o->sep, run, res, n, i);
    else
      std_line(f, o, run, res, n, i, 0);
  }
}

void stat_print(FILE *f, const struct stat_print_opts *o,
                const struct stat_run *run, const struct stat_result *res,
                size_t n)
{
  size_t i;
  int col;

  if (o->interval) {
    print_interval(f, o, run, res, n);
    return;
  }
  switch (o->format) {
  case STAT_FMT_CSV:
    csv_model(f, run);
    for (i = 0; i < n; i++) {
      aggr_prefix(f, o, &res[i]);
      csv_line(f, o->sep, run, res, n, i);
    }
    return;
  case STAT_FMT_JSON:
    json_model(f, run);
    for (i = 0; i < n; i++)
      json_line(f, o, run, res, n, i);
    return;
  case STAT_FMT_STD:
    break;
  }
  std_header(f, run);
  col = std_spread_column(o, res, n);
  for (i = 0; i < n; i++) {
    aggr_prefix(f, o, &res[i]);
    std_line(f, o, run, res, n, i, col);
  }
  std_model(f, run);
  std_footer(f, run);
}

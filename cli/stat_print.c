/* softpmu stat's output in perf stat's layouts (stat_print.h).
 *
 * The column widths and spacing are those Debian's perf 6.1 prints for a
 * counter without a derived metric (no "insn per cycle": this engine has
 * no cycles):
 *
 *   "%18s" count, " ", a 4-column unit (empty), " ", "%-32s" event, then
 *   35 blanks for the metric column; a <not supported> line has 28.
 *   -r N appends "  ( +- %5.2f%% )"; a time-sliced counter "  (%.2f%%)".
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

static void std_line(FILE *f, const struct stat_print_opts *o,
                     const struct stat_run *run, const struct stat_result *r)
{
  char value[64];

  if (no_value(r)) {
    fprintf(f, "%*s %-*s %-*s%*s\n", COUNT_WIDTH, no_value(r), UNIT_WIDTH, "",
            EVENT_WIDTH, r->name, UNSUPPORTED_BLANKS, "");
    return;
  }
  count_text(r->count.mean, o->big_num, value, sizeof value);
  fprintf(f, "%*s %-*s %-*s%*s", COUNT_WIDTH, value, UNIT_WIDTH, "",
          EVENT_WIDTH, r->name, METRIC_BLANKS, "");
  if (repeated(run))
    fprintf(f, "  ( +- %5.2f%% )", stat_stats_rel_pct(&r->count));
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

static void csv_line(FILE *f, const char *sep, const struct stat_run *run,
                     const struct stat_result *r)
{
  if (!no_value(r))
    fprintf(f, "%.0f", r->count.mean);
  else
    fputs(no_value(r), f);
  fprintf(f, "%s%s%s", sep, sep, r->name); /* unit: empty */
  if (repeated(run))
    fprintf(f, "%s%.2f%%", sep, stat_stats_rel_pct(&r->count));
  fprintf(f, "%s%llu%s%.2f%s%s\n", sep,
          (unsigned long long)(no_value(r) ? 0 : r->run_ns), sep,
          r->pcnt_running, sep, sep); /* metric value and unit: empty */
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
static void json_line(FILE *f, const struct stat_run *run,
                      const struct stat_result *r)
{
  if (!no_value(r))
    fprintf(f, "{\"counter-value\" : \"%f\", ", r->count.mean);
  else
    fprintf(f, "{\"counter-value\" : \"%s\", ", no_value(r));
  fputs("\"unit\" : \"\", \"event\" : ", f);
  json_string(f, r->name);
  if (repeated(run))
    fprintf(f, ", \"variance\" : %.2f", stat_stats_rel_pct(&r->count));
  fprintf(f,
          ", \"event-runtime\" : %llu, \"pcnt-running\" : %.2f, "
          "\"metric-value\" : %f, \"metric-unit\" : \"\"}\n",
          (unsigned long long)(no_value(r) ? 0 : r->run_ns), r->pcnt_running,
          0.0);
}

void stat_print(FILE *f, const struct stat_print_opts *o,
                const struct stat_run *run, const struct stat_result *res,
                size_t n)
{
  size_t i;

  switch (o->format) {
  case STAT_FMT_CSV:
    for (i = 0; i < n; i++)
      csv_line(f, o->sep, run, &res[i]);
    return;
  case STAT_FMT_JSON:
    for (i = 0; i < n; i++)
      json_line(f, run, &res[i]);
    return;
  case STAT_FMT_STD:
    break;
  }
  std_header(f, run);
  for (i = 0; i < n; i++)
    std_line(f, o, run, &res[i]);
  std_footer(f, run);
}

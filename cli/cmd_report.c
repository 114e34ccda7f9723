/* SPDX-License-Identifier: MIT */
/* softpmu report: read a perf.data file (softpmu record's, or perf
 * record's when its samples are laid out as this reader knows) and print
 * the hottest symbols or source lines, as perf report --stdio does, or
 * the call stacks folded one a line for flame-graph tools.
 *
 * The parts: read the file (perf_data.h), in perf's time order
 * (perf_data_sort); follow COMM, MMAP and FORK
 * records as perf does, so each sample's process has its name and
 * mappings (report_task_*); resolve each sample's addresses through the
 * mapped files (symbols.h); add it to a table keyed by what is sorted on
 * (report_add); print the table sorted by period (report_print_*). */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "perf_data.h"
#include "symbols.h"

enum report_sort { REPORT_SORT_SYM, REPORT_SORT_SRCLINE };

struct report_opts {
  const char *input;
  enum report_sort sort;
  bool folded;
  const char *event; /* --event: the one --folded prints */
};

/* A thread's name; a process's mappings. */
struct report_comm {
  uint32_t tid;
  char comm[32];
};
struct report_map {
  uint32_t pid;
  uint64_t start, len, pgoff;
  char *path;
};

/* One row of the table: its key, what it adds up. */
struct report_row {
  char *key;
  unsigned ev;
  uint64_t samples, period;
};

struct report {
  struct report_opts o;
  struct perf_data_file f;
  struct symbols *sym;
  struct report_comm *comms;
  size_t ncomms, capcomms;
  struct report_map *maps;
  size_t nmaps, capmaps;
  struct report_row *rows;
  size_t nrows, caprows;
  uint64_t samples[PERF_DATA_MAX_EVENTS], period[PERF_DATA_MAX_EVENTS];
  uint64_t lost;
  unsigned folded_ev;
  uint64_t read_prev[PERF_DATA_MAX_EVENTS]; /* each event's last READ value */
};

static bool report_grow(void **p, size_t *cap, size_t n, size_t elem)
{
  void *q;

  if (n < *cap)
    return true;
  q = realloc(*p, (*cap ? 2 * *cap : 64) * elem);
  if (!q)
    return false;
  *p = q;
  *cap = *cap ? 2 * *cap : 64;
  return true;
}

/* ---- tasks: names and mappings ----------------------------------------- */

static const char *report_comm_of(const struct report *r, uint32_t tid)
{
  size_t i;

  for (i = r->ncomms; i-- > 0;)
    if (r->comms[i].tid == tid)
      return r->comms[i].comm;
  return NULL;
}

static int report_set_comm(struct report *r, uint32_t tid, const char *comm)
{
  struct report_comm *c;

  if (!report_grow((void **)&r->comms, &r->capcomms, r->ncomms,
                   sizeof(*r->comms)))
    return -1;
  c = &r->comms[r->ncomms++];
  c->tid = tid;
  snprintf(c->comm, sizeof(c->comm), "%s", comm);
  return 0;
}

static int report_add_map(struct report *r, uint32_t pid, uint64_t start,
                          uint64_t len, uint64_t pgoff, const char *path)
{
  struct report_map *m;

  if (!report_grow((void **)&r->maps, &r->capmaps, r->nmaps, sizeof(*r->maps)))
    return -1;
  m = &r->maps[r->nmaps];
  *m = (struct report_map){pid, start, len, pgoff, strdup(path)};
  if (!m->path)
    return -1;
  r->nmaps++;
  return 0;
}

/* The mapping of pid holding ip: the latest one, as a new mapping
 * replaces what was there. */
static const struct report_map *report_map_of(const struct report *r,
                                              uint32_t pid, uint64_t ip)
{
  size_t i;

  for (i = r->nmaps; i-- > 0;)
    if (r->maps[i].pid == pid && ip >= r->maps[i].start &&
        ip - r->maps[i].start < r->maps[i].len)
      return &r->maps[i];
  return NULL;
}

/* FORK: a new process starts with its parent's mappings and name, a new
 * thread with its process's name (perf's thread__fork). */
static int report_fork(struct report *r, const struct perf_data_rec *rec)
{
  const char *comm = report_comm_of(r, rec->ptid);
  size_t i, n = r->nmaps;

  if (comm && !report_comm_of(r, rec->tid) &&
      report_set_comm(r, rec->tid, comm) != 0)
    return -1;
  if (rec->pid == rec->ppid)
    return 0;
  for (i = 0; i < n; i++)
    if (r->maps[i].pid == rec->ppid &&
        report_add_map(r, rec->pid, r->maps[i].start, r->maps[i].len,
                       r->maps[i].pgoff, r->maps[i].path) != 0)
      return -1;
  return 0;
}

/* ---- a frame's names ----------------------------------------------------- */

static const char *report_base(const char *path)
{
  return strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
}

/* What --sort names for an address: the symbol ("[.] foo", or the address
 * when none is known), or the source line ("file.c:12", or "dso+0xOFF"
 * when no line is known), into buf; the shared object into dso. */
static void report_frame(struct report *r, uint32_t pid, uint64_t ip,
                         enum report_sort sort, char *buf, size_t len,
                         const char **dso)
{
  const struct report_map *m = report_map_of(r, pid, ip);
  struct sym_info si;
  bool ok = m && symbols_resolve(r->sym, m->path, m->start, m->pgoff, ip, &si);

  *dso = m ? report_base(m->path) : "[unknown]";
  if (sort == REPORT_SORT_SRCLINE) {
    if (ok && si.file)
      snprintf(buf, len, "%s:%d", report_base(si.file), si.line);
    else if (m)
      snprintf(buf, len, "%s+0x%" PRIx64, *dso, ip - m->start + m->pgoff);
    else
      snprintf(buf, len, "[unknown]+0x%" PRIx64, ip);
  } else if (ok && si.name)
    snprintf(buf, len, "[.] %s", si.name);
  else
    snprintf(buf, len, "[.] 0x%016" PRIx64, ip);
}

/* A frame of a folded stack: its symbol, or [unknown]. */
static void report_folded_frame(struct report *r, uint32_t pid, uint64_t ip,
                                char *buf, size_t len)
{
  const struct report_map *m = report_map_of(r, pid, ip);
  struct sym_info si;

  if (m && symbols_resolve(r->sym, m->path, m->start, m->pgoff, ip, &si) &&
      si.name)
    snprintf(buf, len, "%s", si.name);
  else
    snprintf(buf, len, "[unknown]");
}

/* ---- the table ----------------------------------------------------------- */

static int report_add(struct report *r, unsigned ev, const char *key,
                      uint64_t period)
{
  struct report_row *row;
  size_t i;

  for (i = 0; i < r->nrows; i++)
    if (r->rows[i].ev == ev && strcmp(r->rows[i].key, key) == 0) {
      r->rows[i].samples++;
      r->rows[i].period += period;
      return 0;
    }
  if (!report_grow((void **)&r->rows, &r->caprows, r->nrows, sizeof(*r->rows)))
    return -1;
  row = &r->rows[r->nrows];
  *row = (struct report_row){strdup(key), ev, 1, period};
  if (!row->key)
    return -1;
  r->nrows++;
  return 0;
}

/* Append s to the stack in buf (at *n), ';' between frames. */
static void report_push(char *buf, size_t len, size_t *n, const char *s)
{
  int k = snprintf(buf + *n, len - *n, "%s%s", *n ? ";" : "", s);

  if (k > 0 && (size_t)k < len - *n)
    *n += (size_t)k;
}

/* A file whose samples carry an LBR call stack (perf record --call-graph
 * lbr: branch_sample_type has PERF_SAMPLE_BRANCH_CALL_STACK). */
static bool report_lbr_stack(const struct report *r)
{
  uint64_t bst;

  if (!(r->f.ev[0].attr.sample_type & PERF_SAMPLE_BRANCH_STACK))
    return false;
  memcpy(&bst, r->f.ev[0].attr.rest + PERF_DATA_ATTR_BRANCH_OFF, 8);
  return (bst & PERF_SAMPLE_BRANCH_CALL_STACK) != 0;
}

/* The frames of an LBR call stack, innermost first, as perf report
 * stitches them: the most recent call's target, then each call's source
 * (+ 1, resolved at the byte before, as a return address is). */
static uint64_t report_lbr_frames(const struct perf_data_rec *s,
                                  uint64_t *frames, uint64_t cap)
{
  uint64_t i, nf = 0;

  if (s->nbr == 0)
    return 0;
  frames[nf++] = perf_data_branch_at(s, 0).to;
  for (i = 0; i < s->nbr && nf < cap; i++)
    frames[nf++] = perf_data_branch_at(s, i).from + 1;
  return nf;
}

/* The sample's stack, outermost call first: the call chain without its
 * context markers is the ip then the return addresses, innermost first;
 * a return address is resolved at the byte before it, in the call. With
 * an LBR call stack, the stack the LBRs give. */
static void report_stack(struct report *r, const struct perf_data_rec *s,
                         char *buf, size_t len)
{
  uint64_t i, frames[512], nf = 0;
  char name[256];
  size_t n = 0;

  if (report_lbr_stack(r))
    nf = report_lbr_frames(s, frames, 512);
  for (i = 0; i < s->nr && nf < 512 && !report_lbr_stack(r); i++) {
    uint64_t a = perf_data_chain(s, i);

    if (a < (uint64_t)PERF_CONTEXT_MAX)
      frames[nf++] = a;
  }
  if (nf == 0)
    frames[nf++] = s->ip;
  buf[0] = '\0';
  for (i = nf; i-- > 0;) {
    report_folded_frame(r, s->pid, i ? frames[i] - 1 : frames[i], name,
                        sizeof(name));
    report_push(buf, len, &n, name);
  }
}

static int report_one_sample(struct report *r, const struct perf_data_rec *s);

/* A leader sample with its group's counts (PERF_SAMPLE_READ, {a,b}:S):
 * one sample of each event of the group whose count grew since the
 * previous read, of that growth, as perf report takes them. */
static int report_group_sample(struct report *r, const struct perf_data_rec *s)
{
  struct perf_data_rec one = *s;
  uint64_t i, value;
  unsigned ev;
  int rc;

  for (i = 0; i < s->nread; i++) {
    perf_data_read_at(&r->f, s, i, &ev, &value);
    one.ev = ev;
    one.period = value - r->read_prev[ev];
    r->read_prev[ev] = value;
    if (one.period && (rc = report_one_sample(r, &one)) != 0)
      return rc;
  }
  return 0;
}

static int report_sample(struct report *r, const struct perf_data_rec *s)
{
  return s->nread ? report_group_sample(r, s) : report_one_sample(r, s);
}

static int report_one_sample(struct report *r, const struct perf_data_rec *s)
{
  char key[4096], frame[512];
  const char *dso, *comm = report_comm_of(r, s->tid);
  char tidname[16];

  r->samples[s->ev]++;
  r->period[s->ev] += s->period;
  if (r->o.folded) {
    if (s->ev != r->folded_ev)
      return 0;
    report_stack(r, s, key, sizeof(key));
    return report_add(r, s->ev, key, s->period);
  }
  if (!comm) {
    snprintf(tidname, sizeof(tidname), ":%" PRIu32, s->tid);
    comm = tidname;
  }
  report_frame(r, s->pid, s->ip, r->o.sort, frame, sizeof(frame), &dso);
  if (r->o.sort == REPORT_SORT_SRCLINE)
    snprintf(key, sizeof(key), "%s", frame);
  else
    snprintf(key, sizeof(key), "%s\t%s\t%s", comm, dso, frame);
  return report_add(r, s->ev, key, s->period);
}

static int report_record(struct report *r, const struct perf_data_rec *rec)
{
  switch (rec->type) {
  case PERF_RECORD_COMM:
    return report_set_comm(r, rec->tid, rec->str);
  case PERF_RECORD_MMAP:
  case PERF_RECORD_MMAP2:
    return report_add_map(r, rec->pid, rec->start, rec->len, rec->pgoff,
                          rec->str);
  case PERF_RECORD_FORK:
    return report_fork(r, rec);
  case PERF_RECORD_LOST:
  case PERF_RECORD_LOST_SAMPLES:
    r->lost += rec->lost;
    return 0;
  case PERF_RECORD_SAMPLE:
    return report_sample(r, rec);
  default:
    return 0;
  }
}

/* ---- printing ------------------------------------------------------------ */

static int report_row_cmp(const void *a, const void *b)
{
  const struct report_row *x = a, *y = b;

  if (x->ev != y->ev)
    return x->ev < y->ev ? -1 : 1;
  if (x->period != y->period)
    return x->period > y->period ? -1 : 1;
  if (x->samples != y->samples)
    return x->samples > y->samples ? -1 : 1;
  return strcmp(x->key, y->key);
}

static int report_folded_cmp(const void *a, const void *b)
{
  return strcmp(((const struct report_row *)a)->key,
                ((const struct report_row *)b)->key);
}

/* The widths of the key's tab-separated columns over event ev's rows, at
 * least those of the headings. */
static void report_widths(const struct report *r, unsigned ev, int *w, int n)
{
  size_t i;

  for (i = 0; i < r->nrows; i++) {
    const char *k = r->rows[i].key;
    int c;

    if (r->rows[i].ev != ev)
      continue;
    for (c = 0; c < n; c++) {
      const char *t = strchr(k, '\t');
      int len = t ? (int)(t - k) : (int)strlen(k);

      if (len > w[c])
        w[c] = len;
      if (!t)
        break;
      k = t + 1;
    }
  }
}

static void report_dots(int w)
{
  printf("  ");
  while (w-- > 0)
    putchar('.');
}

static void report_print_event(const struct report *r, unsigned ev)
{
  static const char *const sym_heads[] = {"Command", "Shared Object", "Symbol"};
  static const char *const src_heads[] = {"Source:Line"};
  bool src = r->o.sort == REPORT_SORT_SRCLINE;
  const char *const *heads = src ? src_heads : sym_heads;
  int n = src ? 1 : 3, w[3], c;
  size_t i;

  for (c = 0; c < n; c++)
    w[c] = (int)strlen(heads[c]);
  report_widths(r, ev, w, n);
  printf("# Samples: %" PRIu64 " of event '%s'\n", r->samples[ev],
         r->f.ev[ev].name);
  printf("# Event count: %" PRIu64 "\n#\n", r->period[ev]);
  printf("# Overhead  Samples");
  for (c = 0; c < n; c++)
    printf("  %-*s", c == n - 1 ? 0 : w[c], heads[c]);
  printf("\n# ........  .......");
  for (c = 0; c < n; c++)
    report_dots(c == n - 1 ? (int)strlen(heads[c]) : w[c]);
  printf("\n#\n");
  for (i = 0; i < r->nrows; i++) {
    const struct report_row *row = &r->rows[i];
    const char *k = row->key;

    if (row->ev != ev)
      continue;
    printf("%9.2f%%  %7" PRIu64,
           r->period[ev] ? 100.0 * (double)row->period / (double)r->period[ev]
                         : 0.0,
           row->samples);
    for (c = 0; c < n; c++) {
      const char *t = strchr(k, '\t');
      int len = t ? (int)(t - k) : (int)strlen(k);

      printf("  %-*.*s", c == n - 1 ? 0 : w[c], len, k);
      k = t ? t + 1 : k + len;
    }
    printf("\n");
  }
  printf("\n");
}

static void report_print(struct report *r)
{
  unsigned ev;
  size_t i;

  if (r->nrows > 0) /* qsort takes no null array */
    qsort(r->rows, r->nrows, sizeof(*r->rows),
          r->o.folded ? report_folded_cmp : report_row_cmp);
  if (r->o.folded) {
    for (i = 0; i < r->nrows; i++)
      printf("%s %" PRIu64 "\n", r->rows[i].key, r->rows[i].samples);
    return;
  }
  printf("# Total Lost Samples: %" PRIu64 "\n#\n", r->lost);
  for (ev = 0; ev < r->f.nev; ev++)
    report_print_event(r, ev);
}

/* ---- the command --------------------------------------------------------- */

static bool report_takes_value(const char *a)
{
  return strcmp(a, "-i") == 0 || strcmp(a, "--input") == 0 ||
         strcmp(a, "--sort") == 0 || strcmp(a, "--event") == 0;
}

static int report_value_option(struct report_opts *o, const char *a,
                               const char *val)
{
  if (strcmp(a, "--sort") == 0) {
    if (strcmp(val, "sym") == 0)
      o->sort = REPORT_SORT_SYM;
    else if (strcmp(val, "srcline") == 0)
      o->sort = REPORT_SORT_SRCLINE;
    else
      return cli_usage_error(&cli_cmd_report,
                             "report: --sort %s: sym or srcline", val);
  } else if (strcmp(a, "--event") == 0)
    o->event = val;
  else
    o->input = val;
  return CLI_EXIT_OK;
}

static int report_parse_args(int argc, char **argv, struct report_opts *o)
{
  const char *val;
  char opt[32];
  int i;

  for (i = 1; i < argc; i++) {
    const char *a = argv[i];

    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      cli_command_manual(&cli_cmd_report);
      return -1;
    }
    if (strcmp(a, "--folded") == 0) {
      o->folded = true;
      continue;
    }
    if (strcmp(a, "--stdio") == 0)
      continue; /* perf report's text layout: the only one printed here */
    if (cli_attached_option(a, report_takes_value, opt, sizeof(opt), &val)) {
      if (report_value_option(o, opt, val) != CLI_EXIT_OK)
        return CLI_EXIT_USAGE;
      continue;
    }
    if (!report_takes_value(a))
      return cli_usage_error(&cli_cmd_report,
                             "report: unknown option or argument '%s'", a);
    if (i + 1 >= argc)
      return cli_usage_error(&cli_cmd_report, "report: %s needs a value", a);
    if (report_value_option(o, a, argv[++i]) != CLI_EXIT_OK)
      return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
}

/* The event --folded prints: --event's, else the first. */
static int report_pick_event(struct report *r)
{
  unsigned i;

  if (!r->o.event)
    return CLI_EXIT_OK;
  for (i = 0; i < r->f.nev; i++)
    if (strcmp(r->f.ev[i].name, r->o.event) == 0) {
      r->folded_ev = i;
      return CLI_EXIT_OK;
    }
  cli_error("report: %s has no event '%s'", r->o.input, r->o.event);
  return CLI_EXIT_USAGE;
}

static int report_read(struct report *r)
{
  struct perf_data_rec rec;
  char why[256];
  int k;

  while ((k = perf_data_next(&r->f, &rec, why, sizeof(why))) > 0)
    if (report_record(r, &rec) != 0) {
      cli_error("report: out of memory");
      return CLI_EXIT_USAGE;
    }
  if (k < 0) {
    cli_error("report: %s: %s", r->o.input, why);
    return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
}

static void report_free(struct report *r)
{
  size_t i;

  for (i = 0; i < r->nmaps; i++)
    free(r->maps[i].path);
  for (i = 0; i < r->nrows; i++)
    free(r->rows[i].key);
  free(r->maps);
  free(r->rows);
  free(r->comms);
  symbols_free(r->sym);
  perf_data_free(&r->f);
}

/* report parses its own command line (cli_command.main). */
static int report_main(int argc, char **argv)
{
  struct report r;
  char why[512];
  int rc;

  memset(&r, 0, sizeof(r));
  r.o.input = "perf.data";
  if ((rc = report_parse_args(argc, argv, &r.o)) != CLI_EXIT_OK)
    return rc < 0 ? CLI_EXIT_OK : rc;
  if (perf_data_load(r.o.input, &r.f, why, sizeof(why)) != 0) {
    cli_error("report: %s", why);
    perf_data_free(&r.f);
    return CLI_EXIT_USAGE;
  }
  if (perf_data_sort(&r.f, why, sizeof(why)) != 0) {
    cli_error("report: %s: %s", r.o.input, why);
    perf_data_free(&r.f);
    return CLI_EXIT_USAGE;
  }
  if (!(r.sym = symbols_new())) {
    cli_error("report: out of memory");
    rc = CLI_EXIT_USAGE;
  } else if ((rc = report_pick_event(&r)) == CLI_EXIT_OK &&
             (rc = report_read(&r)) == CLI_EXIT_OK)
    report_print(&r);
  report_free(&r);
  return rc;
}

/* clang-format off: the manual's text is laid out as it prints */
const struct cli_command cli_cmd_report = {
    .name = "report",
    .summary = "print the hottest symbols or lines of a perf.data file",
    .synopsis = "[-i FILE] [--stdio] [--sort sym|srcline] [--folded [--event "
                "NAME]]",
    .description =
        "    Reads a perf.data file written by softpmu record (or by perf\n"
        "    record, when its samples carry no PERF_SAMPLE_READ) and prints,\n"
        "    for each event, its samples grouped by symbol or by source line\n"
        "    with the share of the event count each has, hottest first, as\n"
        "    perf report --stdio does. Addresses are resolved through the\n"
        "    files the MMAP records name, their symbol tables and DWARF line\n"
        "    tables (separate debug files included), with elfutils.\n"
        "    The records are read in time order, as perf report reads them:\n"
        "    those without a time (COMM, MMAP, ...) as they come, the\n"
        "    samples sorted by their time (PERF_SAMPLE_TIME), in each\n"
        "    round (PERF_RECORD_FINISHED_ROUND) and at the end.\n",
    .options =
        "    -i, --input FILE\n"
        "        The file to read. Default: perf.data.\n\n"
        "    --stdio\n"
        "        Taken as perf report takes it: the text layout, the only one\n"
        "        softpmu report prints.\n\n"
        "    --sort sym|srcline\n"
        "        Group by command, shared object and symbol (sym, the\n"
        "        default), or by source file and line (srcline).\n\n"
        "    --folded\n"
        "        Print each distinct call stack, outermost function first,\n"
        "        names separated by ';', then its number of samples\n"
        "        (\"main;foo;bar 12\"): the input of flame-graph tools. Call\n"
        "        stacks come from softpmu record -g; without them, each\n"
        "        stack is the sampled function alone.\n\n"
        "    --event NAME\n"
        "        With --folded: the event whose samples are printed.\n"
        "        Default: the first event.\n",
    .exit_status =
        "    0 on success; 2 for bad usage, or a file that cannot be read or\n"
        "    is not a perf.data file this reader knows.\n",
    .examples = "    softpmu report\n"
                "    softpmu report -i prog.data --sort srcline\n"
                "    softpmu report --folded | flamegraph.pl > prog.svg\n",
    .flags = CLI_FLAG_NO_PROFILE,
    .main = report_main,
};
/* clang-format on */

/* SPDX-License-Identifier: MIT */
/* The plugin's results file read per thread and per interval
 * (stat_results.h). */
#include "stat_results.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results.h" /* protocol/: the results file */

static void add_count(struct stat_count *c, const struct spmu_results_event *e)
{
  c->n += e->count;
  c->enabled += e->enabled;
  c->running += e->running;
}

/* stat's events counted by the plugin's event index: each into c. */
static void add_event(struct stat_count *c, const int *index, unsigned nev,
                      const struct spmu_results_line *r)
{
  unsigned i;

  for (i = 0; i < nev; i++)
    if (index[i] == (int)r->index)
      add_count(&c[i], &r->ev);
}

/* Room for rows up to row k (from 1) of nev events: -1 when out of
 * memory. */
static int grow_rows(struct stat_rows *rows, uint64_t k, unsigned nev)
{
  struct stat_count *grown;
  size_t want = rows->cap ? rows->cap : 16;

  if (k <= rows->nrows)
    return 0;
  if (k > SIZE_MAX / 2 / sizeof(*grown) / (nev ? nev : 1))
    return -1;
  while (want < k)
    want *= 2;
  if (want > rows->cap) {
    if (!(grown = realloc(rows->count, want * nev * sizeof(*grown))))
      return -1;
    memset(grown + rows->cap * nev, 0,
           (want - rows->cap) * nev * sizeof(*grown));
    rows->count = grown;
    rows->cap = want;
  }
  rows->nrows = (size_t)k;
  return 0;
}

/* ---- threads ------------------------------------------------------------- */

struct threads {
  struct stat_thread *t;
  long n, cap;
};

/* The thread pid/tid, found or added: NULL when out of memory. */
static struct stat_thread *thread_of(struct threads *ts, long pid, long tid)
{
  long k;
  struct stat_thread *grown;

  for (k = 0; k < ts->n; k++)
    if (ts->t[k].pid == pid && ts->t[k].tid == tid)
      return &ts->t[k];
  if (ts->n == ts->cap) {
    long cap = ts->cap ? 2 * ts->cap : 8;

    if (!(grown = realloc(ts->t, (size_t)cap * sizeof(*grown))))
      return NULL;
    ts->t = grown;
    ts->cap = cap;
  }
  memset(&ts->t[ts->n], 0, sizeof(ts->t[0]));
  ts->t[ts->n].pid = pid;
  ts->t[ts->n].tid = tid;
  return &ts->t[ts->n++];
}

/* One line of a block whose head r says pid: into the threads. A block's
 * event lines count for its process until a thread line comes; a block
 * that has thread lines counts by them. */
struct block_state {
  long pid;
  struct stat_count proc[STAT_RESULTS_MAX_EVENTS];
  struct stat_thread *cur; /* the thread whose lines these are */
  int named;               /* a thread line came */
};

static int end_block(struct threads *ts, struct block_state *b)
{
  struct stat_thread *t;
  unsigned i;

  if (b->named)
    return 0;
  if (!(t = thread_of(ts, b->pid, b->pid)))
    return -1;
  for (i = 0; i < STAT_RESULTS_MAX_EVENTS; i++) {
    t->count[i].n += b->proc[i].n;
    t->count[i].enabled += b->proc[i].enabled;
    t->count[i].running += b->proc[i].running;
  }
  return 0;
}

long stat_results_threads(const char *path, const int *index, unsigned nev,
                          struct stat_thread **out)
{
  FILE *f = fopen(path, "r");
  char line[256], why[256];
  struct threads ts = {NULL, 0, 0};
  struct block_state b;
  int rc = 0;

  *out = NULL;
  if (!f)
    return -1;
  memset(&b, 0, sizeof(b));
  b.named = 1; /* no block yet */
  while (rc == 0 && fgets(line, sizeof(line), f)) {
    struct spmu_results_line r;

    if (spmu_results_parse_line(line, &r, why, sizeof(why)) != 0)
      break;
    switch (r.kind) {
    case SPMU_RESULTS_HEAD:
      rc = end_block(&ts, &b);
      memset(&b, 0, sizeof(b));
      b.pid = r.head.pid;
      break;
    case SPMU_RESULTS_EVENT:
      add_event(b.proc, index, nev, &r);
      break;
    case SPMU_RESULTS_THREAD:
      b.named = 1;
      if (!(b.cur = thread_of(&ts, b.pid, r.tid)))
        rc = -1;
      else
        snprintf(b.cur->comm, sizeof(b.cur->comm), "%s", r.comm);
      break;
    case SPMU_RESULTS_TEVENT:
      if (b.cur)
        add_event(b.cur->count, index, nev, &r);
      break;
    case SPMU_RESULTS_ROW:
      if (b.cur && r.row && (rc = grow_rows(&b.cur->rows, r.row, nev)) == 0)
        add_event(&b.cur->rows.count[(r.row - 1) * nev], index, nev, &r);
      break;
    default:
      break;
    }
  }
  if (rc == 0)
    rc = end_block(&ts, &b);
  fclose(f);
  if (rc != 0) {
    stat_results_free_threads(ts.t, ts.n);
    errno = ENOMEM;
    return -1;
  }
  *out = ts.t;
  return ts.n;
}

void stat_results_free_threads(struct stat_thread *t, long n)
{
  long k;

  for (k = 0; k < n; k++)
    free(t[k].rows.count);
  free(t);
}

int stat_results_rows(const char *path, const int *index, unsigned nev,
                      struct stat_rows *rows)
{
  FILE *f = fopen(path, "r");
  char line[256], why[256];
  int rc = 0;

  memset(rows, 0, sizeof(*rows));
  if (!f)
    return -1;
  while (rc == 0 && fgets(line, sizeof(line), f)) {
    struct spmu_results_line r;

    if (spmu_results_parse_line(line, &r, why, sizeof(why)) != 0)
      break;
    if (r.kind == SPMU_RESULTS_THREAD && r.clock > rows->clock)
      rows->clock = r.clock;
    if (r.kind != SPMU_RESULTS_ROW || r.row == 0)
      continue;
    if ((rc = grow_rows(rows, r.row, nev)) == 0)
      add_event(&rows->count[(r.row - 1) * nev], index, nev, &r);
  }
  fclose(f);
  if (rc != 0) {
    free(rows->count);
    memset(rows, 0, sizeof(*rows));
    errno = ENOMEM;
  }
  return rc;
}

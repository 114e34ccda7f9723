/* SPDX-License-Identifier: MIT */
/* The plugin's results file (results.h): a block written and its lines
 * read by the same words. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "results.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEAD "softpmu-qemu "

static const char *const counting_word[] = {
    [SPMU_RESULTS_CALLBACK] = "callback",
    [SPMU_RESULTS_INLINE] = "inline",
    [SPMU_RESULTS_INLINE_CALLBACK] = "inline,callback",
};
#define NCOUNTING (sizeof(counting_word) / sizeof(counting_word[0]))

static void status_text(int status, char *buf, size_t len)
{
  if (status >= 0)
    snprintf(buf, len, "%d", status);
  else if (status == SPMU_RESULTS_STATUS_EXECVE)
    snprintf(buf, len, "execve");
  else if (status == SPMU_RESULTS_STATUS_EXEC)
    snprintf(buf, len, "exec");
  else if (status <= SPMU_RESULTS_STATUS_SIGNAL(1))
    snprintf(buf, len, "signal:%d", SPMU_RESULTS_STATUS_SIGNAL(0) - status);
  else
    snprintf(buf, len, "unknown");
}

static void put_event(FILE *f, const char *word,
                      const struct spmu_results_event *e)
{
  fprintf(f, "%s %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", word, e->count,
          e->enabled, e->running);
}

/* Thread t of a block of nevents events: its line, counts and rows. */
static void put_thread(FILE *f, const struct spmu_results_thread *t,
                       unsigned nevents)
{
  char word[64];
  size_t r;
  unsigned i;

  fprintf(f, "thread %ld %" PRIu64 " %s\n", t->tid, t->clock, t->comm);
  for (i = 0; i < nevents; i++) {
    snprintf(word, sizeof(word), "tevent %u", i);
    put_event(f, word, &t->ev[i]);
  }
  for (r = 0; r < t->nrows; r++)
    for (i = 0; i < nevents; i++) {
      snprintf(word, sizeof(word), "interval %" PRIu64 " %u",
               t->first + (uint64_t)r, i);
      put_event(f, word, &t->rows[r * nevents + i]);
    }
}

static void put_block(FILE *f, const struct spmu_results_block *b)
{
  const struct spmu_results_head *h = &b->head;
  unsigned nevents = b->nevents < SPMU_RESULTS_MAX_EVENTS
                         ? b->nevents
                         : SPMU_RESULTS_MAX_EVENTS;
  char status[32], word[32];
  size_t t;
  unsigned i;

  status_text(h->status, status, sizeof(status));
  fprintf(f, HEAD "%d pid=%ld threads=%u status=%s counting=%s\n",
          SPMU_RESULTS_VERSION, h->pid, h->threads, status,
          counting_word[h->counting % NCOUNTING]);
  for (i = 0; i < nevents; i++) {
    snprintf(word, sizeof(word), "event %u", i);
    put_event(f, word, &b->ev[i]);
  }
  for (t = 0; t < b->nthreads; t++)
    put_thread(f, &b->thread[t], nevents);
  fputs("end\n", f);
}

char *spmu_results_text(const struct spmu_results_block *b, size_t *len)
{
  char *buf = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);

  if (!f)
    return NULL;
  put_block(f, b);
  if (fclose(f) != 0) {
    free(buf);
    return NULL;
  }
  *len = n;
  return buf;
}

size_t spmu_results_format(const struct spmu_results_block *b, char *buf,
                           size_t cap)
{
  size_t n = 0;
  char *text;

  if (cap == 0)
    return 0;
  text = spmu_results_text(b, &n);
  if (!text) {
    buf[0] = '\0';
    return 0;
  }
  if (n >= cap)
    n = cap - 1;
  memcpy(buf, text, n);
  buf[n] = '\0';
  free(text);
  return n;
}

/* ---- reading ------------------------------------------------------------- */

static int parse_status(const char *s, size_t n)
{
  char buf[32];
  char *end;
  long v;

  snprintf(buf, sizeof(buf), "%.*s", (int)n, s);
  if (strcmp(buf, "execve") == 0)
    return SPMU_RESULTS_STATUS_EXECVE;
  if (strcmp(buf, "exec") == 0)
    return SPMU_RESULTS_STATUS_EXEC;
  if (strncmp(buf, "signal:", 7) == 0 && (v = strtol(buf + 7, &end, 10)) > 0 &&
      !*end && v < 256)
    return SPMU_RESULTS_STATUS_SIGNAL((int)v);
  v = strtol(buf, &end, 10);
  if (end != buf && !*end && v >= 0 && v < 256)
    return (int)v;
  return SPMU_RESULTS_STATUS_UNKNOWN;
}

/* One "key=value" word of a head (n characters at w) into h. */
static void parse_field(const char *w, size_t n, struct spmu_results_head *h)
{
  const char *eq = memchr(w, '=', n);
  size_t klen = eq ? (size_t)(eq - w) : n, vlen = eq ? n - klen - 1 : 0;
  size_t c;

  if (!eq)
    return;
#define IS(k) (klen == sizeof(k) - 1 && strncmp(w, k, klen) == 0)
  if (IS("pid"))
    h->pid = strtol(eq + 1, NULL, 10);
  else if (IS("threads"))
    h->threads = (unsigned)strtoul(eq + 1, NULL, 10);
  else if (IS("status"))
    h->status = parse_status(eq + 1, vlen);
  else if (IS("counting"))
    for (c = 0; c < NCOUNTING; c++)
      if (strlen(counting_word[c]) == vlen &&
          strncmp(eq + 1, counting_word[c], vlen) == 0)
        h->counting = (enum spmu_results_counting)c;
#undef IS
}

static int parse_head(const char *s, struct spmu_results_line *out, char *why,
                      size_t len)
{
  char *end;
  unsigned long version = strtoul(s, &end, 10);

  if (end == s || version != SPMU_RESULTS_VERSION ||
      (*end && *end != ' ' && *end != '\n')) {
    snprintf(why, len,
             "a results block of format version %.*s: this softpmu reads "
             "version %d",
             (int)strcspn(s, " \n"), s, SPMU_RESULTS_VERSION);
    return -1;
  }
  out->kind = SPMU_RESULTS_HEAD;
  out->head = (struct spmu_results_head){.status = SPMU_RESULTS_STATUS_UNKNOWN};
  for (s = end; *s;) {
    size_t n;

    s += strspn(s, " \n");
    n = strcspn(s, " \n");
    parse_field(s, n, &out->head);
    s += n;
  }
  return 0;
}

/* "thread TID CLOCK COMM": COMM to the line's end. */
static bool parse_thread(const char *line, struct spmu_results_line *out)
{
  int at = 0;
  size_t n;

  if (sscanf(line, "thread %ld %" SCNu64 " %n", &out->tid, &out->clock, &at) !=
          2 ||
      at == 0)
    return false;
  n = strcspn(line + at, "\n");
  snprintf(out->comm, sizeof(out->comm), "%.*s", (int)n, line + at);
  out->kind = SPMU_RESULTS_THREAD;
  return true;
}

int spmu_results_parse_line(const char *line, struct spmu_results_line *out,
                            char *why, size_t len)
{
  struct spmu_results_event *e = &out->ev;

  memset(out, 0, sizeof(*out));
  if (strncmp(line, HEAD, sizeof(HEAD) - 1) == 0)
    return parse_head(line + sizeof(HEAD) - 1, out, why, len);
  if (sscanf(line, "event %u %" SCNu64 " %" SCNu64 " %" SCNu64, &out->index,
             &e->count, &e->enabled, &e->running) == 4)
    out->kind = SPMU_RESULTS_EVENT;
  else if (sscanf(line, "tevent %u %" SCNu64 " %" SCNu64 " %" SCNu64,
                  &out->index, &e->count, &e->enabled, &e->running) == 4)
    out->kind = SPMU_RESULTS_TEVENT;
  else if (sscanf(line,
                  "interval %" SCNu64 " %u %" SCNu64 " %" SCNu64 " %" SCNu64,
                  &out->row, &out->index, &e->count, &e->enabled,
                  &e->running) == 5)
    out->kind = SPMU_RESULTS_ROW;
  else if (strncmp(line, "thread ", 7) == 0 && parse_thread(line, out))
    ;
  else if (strcmp(line, "end\n") == 0 || strcmp(line, "end") == 0)
    out->kind = SPMU_RESULTS_END;
  return 0;
}

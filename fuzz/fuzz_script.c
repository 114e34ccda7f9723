/* SPDX-License-Identifier: MIT */
/* libFuzzer harness: the `softpmu run` scenario language: cli/script.c's
 * parser on arbitrary text, and cli/cmd_run.c's runner
 * on every script that parses.
 *
 * The input, cut at its first NUL and at MAX_TEXT bytes, is a script. It is
 * parsed as `softpmu run FILE` parses it (no --cpu: the default profile
 * unless the script has a cpu statement), and, on a sample of inputs
 * (harness.h; every input when the tests replay the corpus), again as
 * with --cpu PRESET (a preset chosen by the input's length). Properties:
 *   parse-result    script_parse returns the number of errors (or -1 with
 *                   "out of memory" alone); it stops at the line of its
 *                   MAX_ERRORS-th error (that line may report more: see
 *                   fz_check_messages)
 *   error-format    each error is one line "FILE:LINE:COL: message" with
 *                   LINE within the input's lines (in order) and COL
 *                   within that line (1 to its length + 1), one per error
 *                   counted; from the MAX_ERRORS-th error on, "FILE: too
 *                   many errors; stopped at line LINE" after it; nothing
 *                   else, and nothing at all for a script without errors
 *   parse-sound     a parsed script's statements are what cmd_run.c relies
 *                   on: lines in order and in range, event lines and states
 *                   within their arrays, at least one clock per deliver,
 *                   CPL 0-3, lp within the profile's threads, memory
 *                   windows disjoint and at most 16 MiB (64 MiB in all),
 *                   poke / expect mem inside a window declared above,
 *                   expect fault / ok after an access
 *   run-clean       running it (text or JSON trace, with or without the
 *                   SVG timeline, into /dev/null) never crashes and ends
 *                   with every expect met or an expect failed, never with
 *                   an input error ("A script that parses runs without
 *                   further input errors", script.h); the core then holds
 *                   every invariant of invariants.h
 *
 * The runner has no bound of its own on the work a script asks for: each
 * `deliver ... x COUNT` is cut into chunks at every counter wrap and PMI,
 * so a three-line script can ask for 2^64 model calls (a 32-bit counter
 * that wraps every clock). The harness bounds each run at MAX_CALLS calls
 * of spmu_deliver (the runner's, renamed below): past it the call fails,
 * the runner stops with its "deliver failed" error, and the run counts as
 * complete.
 *
 * The runner is cmd_run.c itself, included here so that its static
 * functions (run_start, run_end) are reachable without a file, with
 * run_exec (cli/run_exec.c) for each statement: the parsed script runs as
 * is; run_start hands the renamed spmu_deliver to the runner (struct
 * run's deliver). Its trace goes to /dev/null and its messages to
 * a buffer, by pointing stdout / stderr elsewhere during the calls (glibc;
 * elsewhere the text goes to the real streams and the messages are not
 * checked). A violation prints "fuzz_script: <property>: <detail>" and the
 * script, then aborts. */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <softpmu/softpmu.h>

#include "harness.h"

/* The runner's spmu_deliver, counted (see the top of the file). */
static int fz_deliver(spmu_lp *lp, const spmu_clock *clk, uint64_t clocks,
                      uint64_t *consumed);
#define spmu_deliver fz_deliver
#include "cmd_run.c" /* cli/, on the include path of softpmu_cli */
#undef spmu_deliver

#define MAX_TEXT 16384 /* bytes of script */
#define MAX_CALLS 2000 /* spmu_deliver calls per run */
#define MAX_ERRORS 20  /* as cli/script.c */
#define FILE_NAME "fuzz.pmu"
/* The script is parsed again as with --cpu PRESET (and run if only that
 * parse succeeds) on one input in SECOND_PARSE_SAMPLE (every input when
 * replayed). */
#define SECOND_PARSE_SAMPLE 4

#if defined(__GLIBC__)
#define FZ_CAPTURE 1 /* stdout / stderr are assignable */
#else
#define FZ_CAPTURE 0
#endif

static unsigned long fz_calls;
static bool fz_over;

static int fz_deliver(spmu_lp *lp, const spmu_clock *clk, uint64_t clocks,
                      uint64_t *consumed)
{
  if (++fz_calls > MAX_CALLS) {
    fz_over = true;
    if (consumed)
      *consumed = 0;
    return SPMU_EINVAL;
  }
  return spmu_deliver(lp, clk, clocks, consumed);
}

/* ---- the script's lines, as script_parse counts them ----------------------
 */

typedef struct fz_text {
  const char *s;
  size_t nlines;
  size_t *len; /* the length of each line, without its '\n' */
} fz_text;

static bool fz_lines(fz_text *t, const char *s)
{
  const char *p = s;
  size_t cap = 0;

  t->s = s;
  t->nlines = 0;
  t->len = NULL;
  while (*p) {
    const char *nl = strchr(p, '\n');
    const char *end = nl ? nl : p + strlen(p);
    if (t->nlines == cap) {
      size_t *more;
      cap = cap ? 2 * cap : 64;
      more = realloc(t->len, cap * sizeof *more);
      if (!more)
        return false;
      t->len = more;
    }
    t->len[t->nlines++] = (size_t)(end - p);
    p = nl ? nl + 1 : end;
  }
  return true;
}

/* After a violation's message: the script. */
static void print_script(const void *arg)
{
  const fz_text *t = arg;

  fprintf(stderr, "--- the script (%zu lines) ---\n%s\n--- end ---\n",
          t->nlines, t->s);
}

/* ---- capturing the tool's output ----------------------------------------- */

typedef struct fz_capture {
  FILE *out, *err; /* the real streams */
  FILE *mem;
  char *buf;
  size_t len;
} fz_capture;

#if FZ_CAPTURE
static FILE *fz_devnull;
#endif

/* From here on stdout goes to /dev/null and stderr into c->buf. */
static void fz_capture_begin(fz_capture *c)
{
  memset(c, 0, sizeof *c);
#if FZ_CAPTURE
  if (!fz_devnull)
    fz_devnull = fopen("/dev/null", "w");
  c->mem = open_memstream(&c->buf, &c->len);
  if (!fz_devnull || !c->mem) {
    fprintf(stderr, "fuzz_script: cannot capture the output\n");
    abort();
  }
  c->out = stdout;
  c->err = stderr;
  fflush(stdout);
  stdout = fz_devnull;
  stderr = c->mem;
#endif
}

/* Back to the real streams; c->buf holds what went to stderr ("" if
 * nothing could be captured). Free it with fz_capture_free. */
static void fz_capture_end(fz_capture *c)
{
#if FZ_CAPTURE
  fflush(stdout);
  stdout = c->out;
  stderr = c->err;
  fclose(c->mem);
#endif
  if (!c->buf)
    c->buf = calloc(1, 1);
  if (!c->buf)
    abort();
}

static void fz_capture_free(fz_capture *c)
{
  free(c->buf);
  c->buf = NULL;
}

/* ---- parse-result, error-format -------------------------------------------
 */

/* "N" at *p, advancing past it; false if there is no number. */
static bool fz_number(const char **p, unsigned long *v)
{
  char *end;

  if (**p < '0' || **p > '9')
    return false;
  *v = strtoul(*p, &end, 10);
  *p = end;
  return true;
}

static void fz_check_messages(const fz_text *t, const char *why, int errors,
                              const char *msgs)
{
  const char *p = msgs;
  size_t file_len = strlen(FILE_NAME);
  unsigned long line, col, last_line = 0, stopped = 0, limit_line = 0;
  bool after_error = false;
  int n = 0, stops = 0;

  if (errors < 0) {
    if (strcmp(msgs, "softpmu: out of memory\n") != 0)
      fz_die("parse-result: %s: -1 with \"%s\"", why, msgs);
    return;
  }
  while (*p) {
    const char *eol = strchr(p, '\n'), *q = p + file_len;
    if (!eol)
      fz_die("error-format: %s: a message without its newline: \"%s\"", why, p);
    if (strncmp(p, FILE_NAME, file_len) != 0)
      fz_die("error-format: %s: \"%.*s\" is not an error line", why,
             (int)(eol - p), p);
    if (strncmp(q, ": too many errors; stopped at line ", 35) == 0) {
      q += 35;
      if (n < MAX_ERRORS || !after_error || !fz_number(&q, &stopped) ||
          q != eol || stopped != last_line)
        fz_die("error-format: %s: \"%.*s\" after %d errors (the last on "
               "line %lu)",
               why, (int)(eol - p), p, n, last_line);
      stops++;
      after_error = false;
    } else {
      if (*q++ != ':' || !fz_number(&q, &line) || *q++ != ':' ||
          !fz_number(&q, &col) || strncmp(q, ": ", 2) != 0 || q + 2 >= eol)
        fz_die("error-format: %s: \"%.*s\" is not FILE:LINE:COL: message", why,
               (int)(eol - p), p);
      if (line < 1 || line > t->nlines || line < last_line)
        fz_die("error-format: %s: line %lu of %zu lines (after an error "
               "on line %lu): \"%.*s\"",
               why, line, t->nlines, last_line, (int)(eol - p), p);
      if (col < 1 || col > t->len[line - 1] + 1)
        fz_die("error-format: %s: column %lu of a line of %zu characters: "
               "\"%.*s\"",
               why, col, t->len[line - 1], (int)(eol - p), p);
      /* The parser stops at the line of its MAX_ERRORS-th error; the rest
       * of that line may still report (each with another "too many
       * errors" line: a known quirk of cli/script.c, tolerated here). */
      if (++n == MAX_ERRORS)
        limit_line = line;
      if (n > MAX_ERRORS && line != limit_line)
        fz_die("parse-result: %s: error %d on line %lu, after the parser "
               "stopped at line %lu",
               why, n, line, limit_line);
      last_line = line;
      after_error = true;
    }
    p = eol + 1;
  }
  if (n != errors)
    fz_die("error-format: %s: %d errors counted, %d reported", why, errors, n);
  if ((errors >= MAX_ERRORS) != (stops > 0))
    fz_die("error-format: %s: %d errors, %d \"too many errors\" lines", why,
           errors, stops);
}

/* ---- parse-sound ----------------------------------------------------------
 */

/* Does a window declared on a line before `line` hold [addr, addr + len)? */
static bool fz_in_window(const struct script *s, uint64_t addr, uint64_t len,
                         unsigned line)
{
  size_t i;

  for (i = 0; i < s->nwindows; i++) {
    const struct script_window *w = &s->windows[i];
    if (w->line < line && addr >= w->base && len <= w->size &&
        addr - w->base <= w->size - len)
      return true;
  }
  return false;
}

static void fz_check_script(const fz_text *t, const char *why,
                            const struct script *s)
{
  uint64_t total = 0;
  unsigned last = 0;
  size_t i, j, nwin = 0;

  if (s->cpu_line > t->nlines ||
      (s->cpu_line && s->nstmt && s->stmt[0].line < s->cpu_line))
    fz_die("parse-sound: %s: cpu statement on line %u", why, s->cpu_line);
  for (i = 0; i < s->nwindows; i++) {
    const struct script_window *w = &s->windows[i];
    if (w->size == 0 || w->size > (UINT64_C(16) << 20) ||
        w->size - 1 > UINT64_MAX - w->base)
      fz_die("parse-sound: %s: window %#llx + %#llx", why,
             (unsigned long long)w->base, (unsigned long long)w->size);
    total += w->size;
    for (j = 0; j < i; j++) {
      const struct script_window *o = &s->windows[j];
      if (w->base <= o->base + (o->size - 1) &&
          o->base <= w->base + (w->size - 1))
        fz_die("parse-sound: %s: windows of lines %u and %u overlap", why,
               o->line, w->line);
    }
  }
  if (total > (UINT64_C(64) << 20))
    fz_die("parse-sound: %s: %llu bytes of windows", why,
           (unsigned long long)total);
  for (i = 0; i < s->nstmt; i++) {
    const struct script_stmt *st = &s->stmt[i];
    bool ok = true;
    if (st->line < 1 || st->line > t->nlines || st->line < last)
      fz_die("parse-sound: %s: statement %zu on line %u (previous %u)", why, i,
             st->line, last);
    last = st->line;
    switch (st->op) {
    case SCRIPT_LP:
      ok = st->value < s->profile.threads;
      break;
    case SCRIPT_DELIVER:
      ok = st->first <= s->nevents && st->nlines <= s->nevents - st->first &&
           st->clocks >= 1 && st->cpl <= 3;
      break;
    case SCRIPT_RDPMC:
      ok = st->cpl <= 3;
      break;
    case SCRIPT_STATE:
      ok = st->state < s->nstates;
      break;
    case SCRIPT_MEMORY:
      ok = nwin < s->nwindows && s->windows[nwin].base == st->addr &&
           s->windows[nwin].size == st->len &&
           s->windows[nwin].line == st->line;
      nwin++;
      break;
    case SCRIPT_POKE:
    case SCRIPT_EXPECT_MEM:
      ok = (st->len == 1 || st->len == 2 || st->len == 4 || st->len == 8) &&
           fz_in_window(s, st->addr, st->len, st->line);
      break;
    case SCRIPT_EXPECT_FAULT:
      ok = st->access_line >= 1 && st->access_line < st->line &&
           st->access_op != NULL;
      break;
    default:
      break;
    }
    if (!ok)
      fz_die("parse-sound: %s: statement %zu (op %d) on line %u is not "
             "what the runner expects",
             why, i, (int)st->op, st->line);
  }
  if (nwin != s->nwindows)
    fz_die("parse-sound: %s: %zu windows, %zu memory statements", why,
           s->nwindows, nwin);
}

/* ---- run-clean ------------------------------------------------------------
 */

static void run_script(const char *why, const char *source,
                       const struct script *s, bool json, bool svg)
{
  struct run rr;
  fz_capture c;
  char inv[512];
  size_t i;
  int rc;

  fz_calls = 0;
  fz_over = false;
  fz_capture_begin(&c);
  rc = run_start(&rr, s, json, svg);
  if (rc == CLI_EXIT_OK) {
    run_trace_cpu(&rr, source);
    for (i = 0; i < s->nstmt && rc == CLI_EXIT_OK; i++)
      rc = run_exec(&rr, &s->stmt[i]);
    if (rc == CLI_EXIT_OK)
      run_trace_end(&rr);
    if (svg && rc != CLI_EXIT_USAGE && write_svg(&rr, "/dev/null") != 0)
      rc = CLI_EXIT_USAGE;
  }
  fz_capture_end(&c);
  TRACE("run (%s%s%s): status %d after %lu model calls%s\n%s", why,
        json ? ", --json" : "", svg ? ", --svg" : "", rc, fz_calls,
        fz_over ? " (the bound)" : "", c.buf);
  if (rc != CLI_EXIT_OK && rc != CLI_EXIT_FAIL &&
      !(rc == CLI_EXIT_USAGE && fz_over))
    fz_die("run-clean: %s: a script that parses ended with status %d "
           "(%lu model calls): %s",
           why, rc, fz_calls, c.buf);
  if (rr.core && spmu_inv_check(fz_ctx_for(spmu_core_profile(rr.core)), rr.core,
                                inv, sizeof inv) != 0)
    fz_die("run-clean: %s: after the run: %s", why, inv);
  fz_capture_free(&c);
  run_end(&rr);
}

/* ---- the entry point ------------------------------------------------------
 */

/* Parse text as `softpmu run` does (cpu: the --cpu argument or NULL) and
 * check it; true (with *s to free) if it parsed. */
static bool fz_parse(const fz_text *t, const char *why, const char *cpu,
                     struct script *s)
{
  spmu_profile given;
  fz_capture c;
  int errors;

  if (spmu_profile_parse(cpu ? cpu : CLI_DEFAULT_PROFILE, &given, NULL, 0) !=
      SPMU_OK)
    abort();
  fz_capture_begin(&c);
  errors = script_parse(s, FILE_NAME, t->s, cpu, &given);
  fz_capture_end(&c);
  TRACE("parse (%s): %d errors\n%s", why, errors, c.buf);
  if (FZ_CAPTURE)
    fz_check_messages(t, why, errors, c.buf);
  fz_capture_free(&c);
  if (errors == 0) {
    fz_check_script(t, why, s);
    return true;
  }
  script_free(s);
  return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  size_t n = size < MAX_TEXT ? size : MAX_TEXT, npre = 0;
  char *text = malloc(n + 1);
  const char *cpu;
  struct script s1, s2;
  bool ok1, ok2;
  fz_text t;

  if (!text)
    abort();
  fz_at = (fz_where){
      .harness = "fuzz_script", .tail = print_script, .tail_arg = &t};
  memcpy(text, data, n);
  text[n] = '\0'; /* the tool refuses a NUL; the text ends at the first */
  if (!fz_lines(&t, text))
    abort();
  while (spmu_profile_preset_name(npre))
    npre++;
  cpu = spmu_profile_preset_name((unsigned)(size % npre));

  ok1 = fz_parse(&t, "no --cpu", NULL, &s1);
  /* The same checks with --cpu, on a sample of inputs (harness.h): the
   * parse is most of an execution. */
  ok2 = fz_sampled(data, size, 0, SECOND_PARSE_SAMPLE) &&
        fz_parse(&t, cpu, cpu, &s2);
  /* Run one of them, with the trace options the input's size picks. */
  if (ok1)
    run_script("no --cpu", s1.cpu_line ? "script" : "default", &s1, size & 1,
               size & 2);
  else if (ok2)
    run_script(cpu, "--cpu", &s2, size & 1, size & 2);
  if (ok1)
    script_free(&s1);
  if (ok2)
    script_free(&s2);
  free(t.len);
  free(text);
  return 0;
}

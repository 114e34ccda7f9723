/* SPDX-License-Identifier: MIT */
/* softpmu run: the script interpreter (the top layer of run.h below the
 * command). One function per statement; every statement goes through the
 * public API, exactly as an embedder would call it. What the model did in
 * a call is what it reports (run_model_view.c); the trace (run_trace.c)
 * prints it. docs/scripts.md is the reference.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <softpmu/events.h>
#include <softpmu/pmu.h>

#include "run.h"

static spmu_lp *cur_lp(const struct run *r)
{
  return spmu_core_lp(r->core, r->lp);
}

/* Pick up what a statement changed: counters written. */
static int after_statement(struct run *r)
{
  size_t k;

  for (k = 0; k < r->nctr; k++) {
    struct ctr *c = &r->ctr[k];
    uint64_t v = run_rd(r, c->lp, c->addr);
    if (v == c->val)
      continue;
    c->val = v;
    if (c->lane >= 0)
      run_tl_check(r, timeline_step(r->tl, c->lane, r->clock, v));
  }
  if (r->oom || r->descs->oom) {
    cli_error("out of memory");
    return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
}

/* ---- accesses ------------------------------------------------------------ */

static void note_access(struct run *r, const struct script_stmt *st,
                        const char *op, int rc)
{
  r->last.line = st->line;
  r->last.op = op;
  r->last.rc = rc;
}

static int exec_wrmsr(struct run *r, const struct script_stmt *st)
{
  spmu_lp *lp = cur_lp(r);
  const char *op = st->host ? "host-wrmsr" : "wrmsr";
  uint32_t target = st->msr;
  const struct desc *d = run_desc(r, st->msr);
  uint64_t old = 0, new = 0;
  int rc;

  /* A W1C/W1S write or an alias changes another register: show that. */
  if (d)
    target = d->info.target;
  old = run_rd(r, r->lp, target);
  run_view_begin(r);
  rc = st->host ? spmu_host_wrmsr(lp, st->msr, st->value)
                : spmu_wrmsr(lp, st->msr, st->value);
  new = run_rd(r, r->lp, target);
  note_access(r, st, op, rc);
  run_trace_wrmsr(r, st, op, rc, target, old, new);
  /* A freeze the write started or ended. */
  rc = run_view_report(r, st);
  if (rc != CLI_EXIT_OK)
    return rc;
  return after_statement(r);
}

static int exec_rdmsr(struct run *r, const struct script_stmt *st)
{
  uint64_t v = 0;
  int rc = spmu_rdmsr(cur_lp(r), st->msr, &v);

  note_access(r, st, "rdmsr", rc);
  run_trace_rdmsr(r, st, rc, v);
  return CLI_EXIT_OK;
}

static int exec_rdpmc(struct run *r, const struct script_stmt *st)
{
  uint64_t v = 0;
  int rc = spmu_rdpmc(cur_lp(r), st->ecx, st->cpl, st->pce, &v);

  if (rc < 0)
    return run_trace_call_failed(r, st, "rdpmc", rc);
  note_access(r, st, "rdpmc", rc);
  run_trace_rdpmc(r, st, rc, v);
  return CLI_EXIT_OK;
}

/* ---- deliver, signal ----------------------------------------------------- */

static int exec_deliver(struct run *r, const struct script_stmt *st)
{
  const spmu_clock clk = {
      .lines = st->nlines ? &r->s->events[st->first] : NULL,
      .nlines = st->nlines,
      .cpl = (uint8_t)st->cpl,
      .flags = st->flags,
      .mem = st->has_mem ? &st->mem : NULL,
      .branch = st->has_branch ? &st->branch : NULL,
  };
  uint64_t first = r->clock + 1;
  size_t k;
  int rc;

  for (k = 0; k < r->nctr; k++) {
    struct ctr *c = &r->ctr[k];
    c->start = c->val;
    c->gained = 0;
    if (c->lane >= 0 &&
        spmu_counter_enabled(spmu_core_lp(r->core, c->lp), c->index) == 1)
      timeline_show(r->tl, c->lane);
  }
  rc = run_view_deliver(r, st, &clk);
  if (rc != CLI_EXIT_OK)
    return rc;
  run_trace_deliver(r, st, first);
  return after_statement(r);
}

static int exec_signal(struct run *r, const struct script_stmt *st)
{
  uint64_t old = run_globals(r, r->lp).status, status;
  int rc;

  run_view_begin(r);
  rc = spmu_signal(cur_lp(r), (unsigned)st->value);
  if (rc < 0)
    return run_trace_call_failed(r, st, "signal", rc);
  status = run_rd(r, r->lp, r->status.addr);
  run_trace_signal(r, st, old, status);
  rc = run_view_report(r, st);
  if (rc != CLI_EXIT_OK)
    return rc;
  return after_statement(r);
}

/* ---- memory, poke, state ------------------------------------------------- */

static int exec_memory(struct run *r, const struct script_stmt *st)
{
  run_mem_map(&r->mem, st->addr);
  run_trace_memory(r, st);
  return CLI_EXIT_OK;
}

static int exec_poke(struct run *r, const struct script_stmt *st)
{
  uint8_t bytes[8];
  uint64_t old = 0;
  unsigned i;

  for (i = 0; i < st->len && i < sizeof bytes; i++)
    bytes[i] = (uint8_t)(st->value >> (8 * i));
  /* The parser checked that a window holds them. */
  if (st->len > sizeof bytes ||
      !run_mem_peek(&r->mem, st->addr, (unsigned)st->len, &old) ||
      run_mem_write(&r->mem, st->addr, bytes, (size_t)st->len) != 0)
    return run_trace_call_failed(r, st, "poke", SPMU_EINVAL);
  run_trace_poke(r, st, old);
  return CLI_EXIT_OK;
}

static int exec_state(struct run *r, const struct script_stmt *st)
{
  r->mem.state[r->lp] = r->s->states[st->state];
  run_trace_state(r, st, &r->mem.state[r->lp]);
  return CLI_EXIT_OK;
}

/* ---- expect -------------------------------------------------------------- */

static int expect_failed(struct run *r, const struct script_stmt *st,
                         const char *fmt, ...) CLI_PRINTF(3, 4);

static int expect_failed(struct run *r, const struct script_stmt *st,
                         const char *fmt, ...)
{
  char msg[512];
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  run_trace_failure(r, st, msg);
  fflush(stdout);
  fprintf(stderr, "%s:%u: expect failed: %s\n", r->s->file, st->line, msg);
  return CLI_EXIT_FAIL;
}

/* v as the expectation was written: hex, decimal, or signed within the
 * width. */
static void format_like(const struct script_stmt *st, uint64_t v, char *buf,
                        size_t len)
{
  uint64_t top =
      st->width >= 64 ? UINT64_C(1) << 63 : UINT64_C(1) << (st->width - 1);
  uint64_t mask = st->width >= 64 ? UINT64_MAX : (top << 1) - 1;

  if (st->radix == SCRIPT_DEC)
    snprintf(buf, len, "%" PRIu64, v);
  else if (st->radix == SCRIPT_NEG && (v & top))
    snprintf(buf, len, "-%" PRIu64 " (0x%" PRIx64 ")", ((0 - v) & mask), v);
  else if (st->radix == SCRIPT_NEG)
    snprintf(buf, len, "%" PRIu64 " (0x%" PRIx64 ")", v, v);
  else
    snprintf(buf, len, "0x%" PRIx64, v);
}

static int exec_expect_msr(struct run *r, const struct script_stmt *st)
{
  uint64_t v = run_rd(r, r->lp, st->msr);
  char got[64], want[64];

  if (st->field[0])
    v = run_field(r, st->msr, st->field, v);
  if (v == st->value)
    return CLI_EXIT_OK;
  format_like(st, v, got, sizeof got);
  format_like(st, st->value, want, sizeof want);
  return expect_failed(r, st, "%s%s%s is %s, expected %s", st->msr_name,
                       st->field[0] ? "." : "", st->field, got, want);
}

static int exec_expect_rdpmc(struct run *r, const struct script_stmt *st)
{
  uint64_t v = 0;
  int rc = spmu_rdpmc(cur_lp(r), st->ecx, 0, false, &v);
  char got[64], want[64];

  format_like(st, st->value, want, sizeof want);
  if (rc == SPMU_GP)
    return expect_failed(r, st, "rdpmc 0x%" PRIx32 " raised #GP, expected %s",
                         st->ecx, want);
  if (rc < 0)
    return run_trace_call_failed(r, st, "rdpmc", rc);
  if (v == st->value)
    return CLI_EXIT_OK;
  format_like(st, v, got, sizeof got);
  return expect_failed(r, st, "rdpmc 0x%" PRIx32 " is %s, expected %s", st->ecx,
                       got, want);
}

static int exec_expect_pmis(struct run *r, const struct script_stmt *st)
{
  const struct lpstate *s = &r->st[r->lp];
  char since[64] = "the start";

  if (s->pmis == st->value)
    return CLI_EXIT_OK;
  if (s->reset_line)
    snprintf(since, sizeof since, "reset-pmis on line %u", s->reset_line);
  return expect_failed(r, st,
                       "%" PRIu64 " PMI%s on lp %u since %s, "
                       "expected %" PRIu64,
                       s->pmis, s->pmis == 1 ? "" : "s", r->lp, since,
                       st->value);
}

static int exec_expect_mem(struct run *r, const struct script_stmt *st)
{
  uint64_t v = 0;
  char got[64], want[64];

  run_mem_peek(&r->mem, st->addr, (unsigned)st->len, &v);
  if (v == st->value)
    return CLI_EXIT_OK;
  format_like(st, v, got, sizeof got);
  format_like(st, st->value, want, sizeof want);
  return expect_failed(
      r, st, "mem 0x%" PRIx64 " (%u byte%s) is %s, expected %s", st->addr,
      (unsigned)st->len, st->len == 1 ? "" : "s", got, want);
}

static int exec_expect_count(struct run *r, const struct script_stmt *st)
{
  static const char *const what[] = {"PEBS record", "BTS record",
                                     "lost PEBS record"};
  uint64_t n = r->st[r->lp].counts[st->count];

  if (n == st->value)
    return CLI_EXIT_OK;
  return expect_failed(r, st,
                       "%" PRIu64 " %s%s on lp %u since the start, expected "
                       "%" PRIu64,
                       n, what[st->count], n == 1 ? "" : "s", r->lp, st->value);
}

static int exec_expect_fault(struct run *r, const struct script_stmt *st)
{
  bool fault = r->last.rc != SPMU_OK;

  if (fault == st->want_fault)
    return CLI_EXIT_OK;
  if (st->want_fault)
    return expect_failed(r, st, "the %s on line %u completed, expected %s",
                         r->last.op, r->last.line,
                         strcmp(r->last.op, "host-wrmsr") == 0
                             ? "the host path to refuse it"
                             : "#GP");
  if (r->last.rc == SPMU_GP)
    return expect_failed(r, st,
                         "the %s on line %u raised #GP, expected it "
                         "to complete",
                         r->last.op, r->last.line);
  return expect_failed(r, st,
                       "the %s on line %u was refused (%s), expected "
                       "it to complete",
                       r->last.op, r->last.line, spmu_errname(r->last.rc));
}

/* An expectation: counted when it holds. */
static int exec_expect(struct run *r, const struct script_stmt *st)
{
  int rc;

  switch (st->op) {
  case SCRIPT_EXPECT_MSR:
    rc = exec_expect_msr(r, st);
    break;
  case SCRIPT_EXPECT_RDPMC:
    rc = exec_expect_rdpmc(r, st);
    break;
  case SCRIPT_EXPECT_PMIS:
    rc = exec_expect_pmis(r, st);
    break;
  case SCRIPT_EXPECT_FAULT:
    rc = exec_expect_fault(r, st);
    break;
  case SCRIPT_EXPECT_MEM:
    rc = exec_expect_mem(r, st);
    break;
  case SCRIPT_EXPECT_COUNT:
    rc = exec_expect_count(r, st);
    break;
  default:
    return run_trace_call_failed(r, st, "statement", SPMU_EINVAL);
  }
  if (rc == CLI_EXIT_OK)
    r->expects++;
  return rc;
}

/* ---- the statement ------------------------------------------------------- */

int run_exec(struct run *r, const struct script_stmt *st)
{
  switch (st->op) {
  case SCRIPT_LP:
    r->lp = (unsigned)st->value;
    return CLI_EXIT_OK;
  case SCRIPT_WRMSR:
    return exec_wrmsr(r, st);
  case SCRIPT_RDMSR:
    return exec_rdmsr(r, st);
  case SCRIPT_RDPMC:
    return exec_rdpmc(r, st);
  case SCRIPT_DELIVER:
    return exec_deliver(r, st);
  case SCRIPT_SIGNAL:
    return exec_signal(r, st);
  case SCRIPT_MEMORY:
    return exec_memory(r, st);
  case SCRIPT_POKE:
    return exec_poke(r, st);
  case SCRIPT_STATE:
    return exec_state(r, st);
  case SCRIPT_RESET_PMIS:
    r->st[r->lp].pmis = 0;
    r->st[r->lp].reset_line = st->line;
    return CLI_EXIT_OK;
  default:
    return exec_expect(r, st);
  }
}

/* SPDX-License-Identifier: MIT */
/* The trace of `softpmu run`: what the PMU did, one text line or one JSON
 * object per event (docs/scripts.md, "The trace"). Only prints, and reads
 * the catalogue's descriptions (run_regs.c) to name fields; the layers
 * above (run.h) decide what happened.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "run.h"

/* ---- JSON ---------------------------------------------------------------- */

static void json_begin(unsigned line, unsigned lp, const char *op)
{
  printf("{\"line\":%u,\"lp\":%u,\"op\":\"%s\"", line, lp, op);
}

static void json_str(const char *key, const char *v)
{
  printf(",\"%s\":", key);
  cli_json_string(v);
}

static void json_hex(const char *key, uint64_t v)
{
  printf(",\"%s\":\"0x%" PRIx64 "\"", key, v);
}

static void json_num(const char *key, uint64_t v)
{
  printf(",\"%s\":%" PRIu64, key, v);
}

/* ---- text -------------------------------------------------------------- */

static void text_begin(const struct run *r, unsigned line, unsigned lp)
{
  printf("%u: ", line);
  if (r->show_lp)
    printf("lp %u: ", lp);
}

/* The non-zero fields of value, "EVENT=0xc0, USR, EN" (MSRs with more than
 * one field only); "" if none. */
static void fields_text(const struct run *r, uint32_t addr, uint64_t value,
                        char *buf, size_t len)
{
  const struct desc *d = run_desc(r, addr);
  size_t used = 0;
  unsigned i;

  buf[0] = '\0';
  if (!d || d->info.nfields < 2)
    return;
  for (i = 0; i < d->info.nfields; i++) {
    const spmu_field_info *f = &d->f[i];
    uint64_t v = run_field_value(f, value);
    int n;
    if (!v)
      continue;
    if (f->width == 1)
      n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", f->name);
    else
      n = snprintf(buf + used, len - used, "%s%s=0x%" PRIx64, used ? ", " : "",
                   f->name, v);
    if (n < 0 || (size_t)n >= len - used)
      return;
    used += (size_t)n;
  }
}

/* " (fields)" after a value in the text trace, or nothing. */
static void put_fields(const struct run *r, uint32_t addr, uint64_t value)
{
  char buf[512];

  fields_text(r, addr, value, buf, sizeof buf);
  if (buf[0])
    printf(" (%s)", buf);
}

/* The fields as a JSON array. */
static void json_fields(const struct run *r, uint32_t addr, uint64_t value)
{
  char buf[512];

  fields_text(r, addr, value, buf, sizeof buf);
  fputs(",\"fields\":", stdout);
  cli_json_list(buf);
}

static const char *result_name(int rc)
{
  return rc == SPMU_OK ? "ok" : rc == SPMU_GP ? "#GP" : spmu_errname(rc);
}

/* ---- the events ---------------------------------------------------------- */

int run_trace_call_failed(const struct run *r, const struct script_stmt *st,
                          const char *what, int rc)
{
  cli_error("%s:%u: %s: %s", r->s->file, st->line, what, spmu_strerror(rc));
  return CLI_EXIT_USAGE;
}

void run_trace_cpu(const struct run *r, const char *source)
{
  const spmu_profile *p = r->p;
  char fixed[64];

  cli_bits_text(p->version >= 2 ? p->fixed_mask : 0, fixed, sizeof fixed);
  if (r->json) {
    printf("{\"line\":%u,\"op\":\"cpu\"", r->s->cpu_line);
    json_str("profile", p->name);
    json_str("from", source);
    json_num("version", p->version);
    json_num("gp", p->gp);
    json_num("gp_width", p->gp_width);
    json_hex("fixed", p->version >= 2 ? p->fixed_mask : 0);
    json_num("fixed_width", p->fixed_width);
    json_num("threads", p->threads);
    puts("}");
    return;
  }
  printf("cpu %s (%s): ", p->name, source);
  if (p->version == 0) {
    puts("no architectural PMU");
    return;
  }
  printf("perfmon v%u, %u GP counter%s of %u bits, ", p->version, p->gp,
         p->gp == 1 ? "" : "s", p->gp_width);
  if (fixed[0])
    printf("fixed counter%s %s of %u bits, ", strpbrk(fixed, ",-") ? "s" : "",
           fixed, p->fixed_width);
  else
    fputs("no fixed counters, ", stdout);
  printf("%u logical processor%s\n", p->threads, p->threads == 1 ? "" : "s");
}

void run_trace_overflow(const struct run *r, const struct script_stmt *st,
                        const struct ctr *c)
{
  if (r->json) {
    json_begin(st->line, c->lp, "overflow");
    json_num("clock", r->clock);
    json_str("counter", c->name);
    puts("}");
    return;
  }
  text_begin(r, st->line, c->lp);
  printf("clock %" PRIu64 ": %s overflowed\n", r->clock, c->name);
}

void run_trace_pmi(const struct run *r, const struct script_stmt *st,
                   unsigned lp, uint64_t status)
{
  if (r->json) {
    json_begin(st->line, lp, "pmi");
    json_num("clock", r->clock);
    if (r->status.present) {
      json_hex("status", status);
      json_fields(r, r->status.addr, status);
    }
    puts("}");
    return;
  }
  text_begin(r, st->line, lp);
  printf("clock %" PRIu64 ": PMI", r->clock);
  if (r->status.present) {
    printf(", %s 0x%" PRIx64, r->status.name, status);
    put_fields(r, r->status.addr, status);
  }
  putchar('\n');
}

void run_trace_freeze(const struct run *r, const struct script_stmt *st,
                      unsigned lp, const char *what, uint64_t old, uint64_t new)
{
  if (r->json) {
    json_begin(st->line, lp, "freeze");
    json_num("clock", r->clock);
    json_str("register", what);
    json_hex("old", old);
    json_hex("new", new);
    puts("}");
    return;
  }
  text_begin(r, st->line, lp);
  printf("clock %" PRIu64 ": freeze: %s 0x%" PRIx64 " -> 0x%" PRIx64 "\n",
         r->clock, what, old, new);
}

/* "#GP", and why when the profile lacks the MSR. */
static void put_gp(const struct run *r, const struct script_stmt *st)
{
  if (st->present)
    puts("#GP");
  else
    printf("#GP (not present in %s)\n", r->p->name);
}

void run_trace_wrmsr(const struct run *r, const struct script_stmt *st,
                     const char *op, int rc, uint32_t target, uint64_t old,
                     uint64_t new)
{
  const struct desc *t = run_desc(r, target);
  const char *tname = t ? t->info.name : st->msr_name;

  if (r->json) {
    json_begin(st->line, r->lp, op);
    json_str("msr", st->msr_name);
    json_hex("addr", st->msr);
    json_hex("value", st->value);
    json_str("result", result_name(rc));
    if (rc == SPMU_OK) {
      json_str("target", tname);
      json_hex("old", old);
      json_hex("new", new);
      json_fields(r, target, new);
    }
    puts("}");
    return;
  }
  text_begin(r, st->line, r->lp);
  printf("%s %s 0x%" PRIx64 ": ", op, st->msr_name, st->value);
  if (rc == SPMU_GP)
    put_gp(r, st);
  else if (rc < 0)
    printf("refused: %s (%s)\n", spmu_strerror(rc), spmu_errname(rc));
  else {
    if (target != st->msr)
      printf("%s ", tname);
    printf("0x%" PRIx64 " -> 0x%" PRIx64, old, new);
    put_fields(r, target, new);
    putchar('\n');
  }
}

void run_trace_rdmsr(const struct run *r, const struct script_stmt *st, int rc,
                     uint64_t value)
{
  if (r->json) {
    json_begin(st->line, r->lp, "rdmsr");
    json_str("msr", st->msr_name);
    json_hex("addr", st->msr);
    json_str("result", result_name(rc));
    if (rc == SPMU_OK) {
      json_hex("value", value);
      json_fields(r, st->msr, value);
    }
    puts("}");
    return;
  }
  text_begin(r, st->line, r->lp);
  printf("rdmsr %s: ", st->msr_name);
  if (rc != SPMU_OK) {
    put_gp(r, st);
    return;
  }
  printf("0x%" PRIx64, value);
  put_fields(r, st->msr, value);
  putchar('\n');
}

void run_trace_rdpmc(const struct run *r, const struct script_stmt *st, int rc,
                     uint64_t value)
{
  if (r->json) {
    json_begin(st->line, r->lp, "rdpmc");
    json_hex("ecx", st->ecx);
    json_num("cpl", st->cpl);
    json_num("pce", st->pce);
    json_str("result", result_name(rc));
    if (rc == SPMU_OK)
      json_hex("value", value);
    puts("}");
    return;
  }
  text_begin(r, st->line, r->lp);
  printf("rdpmc 0x%" PRIx32 " at CPL %u, CR4.PCE=%u: ", st->ecx, st->cpl,
         (unsigned)st->pce);
  if (rc == SPMU_OK)
    printf("0x%" PRIx64 "\n", value);
  else
    puts("#GP");
}

/* The clock's memory access and branch, in JSON. */
static void json_access(const struct script_stmt *st)
{
  if (st->has_mem)
    printf(",\"mem\":{\"addr\":\"0x%" PRIx64
           "\",\"store\":%s,\"latency\":%" PRIu64 ",\"source\":\"0x%" PRIx64
           "\"}",
           st->mem.addr, st->mem.store ? "true" : "false", st->mem.latency,
           st->mem.source);
  if (st->has_branch)
    printf(",\"branch\":{\"from\":\"0x%" PRIx64 "\",\"to\":\"0x%" PRIx64
           "\",\"predicted\":%s}",
           st->branch.from, st->branch.to,
           st->branch.predicted ? "true" : "false");
}

/* ", load at A (latency L, source S), branch F -> T" in the text. */
static void put_access(const struct script_stmt *st)
{
  if (st->has_mem && st->mem.store)
    printf(", store at 0x%" PRIx64 " (status 0x%" PRIx64 ")", st->mem.addr,
           st->mem.source);
  else if (st->has_mem)
    printf(", load at 0x%" PRIx64 " (latency %" PRIu64 ", source 0x%" PRIx64
           ")",
           st->mem.addr, st->mem.latency, st->mem.source);
  if (st->has_branch)
    printf(", branch 0x%" PRIx64 " -> 0x%" PRIx64 "%s", st->branch.from,
           st->branch.to, st->branch.predicted ? " (predicted)" : "");
}

void run_trace_deliver(const struct run *r, const struct script_stmt *st,
                       uint64_t first)
{
  /* Bit i of enum spmu_clock_flag. */
  static const char *const flag_names[] = {"tx", "enclave", "smm", "ia32e"};
  bool any = false;
  unsigned f;
  size_t k;

  if (r->json) {
    json_begin(st->line, r->lp, "deliver");
    json_num("first", first);
    json_num("last", r->clock);
    json_num("cpl", st->cpl);
    fputs(",\"flags\":[", stdout);
    for (f = 0; f < 4; f++)
      if (st->flags >> f & 1) {
        printf("%s\"%s\"", any ? "," : "", flag_names[f]);
        any = true;
      }
    putchar(']');
    json_access(st);
    fputs(",\"changed\":[", stdout);
    any = false;
    for (k = 0; k < r->nctr; k++) {
      const struct ctr *c = &r->ctr[k];
      if (!c->gained)
        continue;
      printf("%s{\"lp\":%u", any ? "," : "", c->lp);
      json_str("counter", c->name);
      json_hex("old", c->start);
      json_hex("new", c->val);
      json_num("counted", c->gained);
      putchar('}');
      any = true;
    }
    puts("]}");
    return;
  }
  text_begin(r, st->line, r->lp);
  if (first == r->clock)
    printf("clock %" PRIu64, first);
  else
    printf("clocks %" PRIu64 "-%" PRIu64, first, r->clock);
  printf(" at CPL %u", st->cpl);
  for (f = 0; f < 4; f++)
    if (st->flags >> f & 1)
      printf(", %s", flag_names[f]);
  put_access(st);
  fputs(": ", stdout);
  for (k = 0; k < r->nctr; k++) {
    const struct ctr *c = &r->ctr[k];
    if (!c->gained)
      continue;
    printf("%s", any ? ", " : "");
    if (r->show_lp)
      printf("lp %u ", c->lp);
    printf("%s 0x%" PRIx64 " -> 0x%" PRIx64 " (+%" PRIu64 ")", c->name,
           c->start, c->val, c->gained);
    any = true;
  }
  puts(any ? "" : "no counter changed");
}

void run_trace_end(const struct run *r)
{
  if (r->json) {
    printf("{\"op\":\"end\",\"expects\":%" PRIu64 ",\"clocks\":%" PRIu64
           ",\"pmis\":%" PRIu64 "}\n",
           r->expects, r->clock, r->pmis);
    return;
  }
  printf("end: %" PRIu64 " expect%s passed, %" PRIu64 " clock%s, %" PRIu64
         " PMI%s\n",
         r->expects, r->expects == 1 ? "" : "s", r->clock,
         r->clock == 1 ? "" : "s", r->pmis, r->pmis == 1 ? "" : "s");
}

void run_trace_signal(const struct run *r, const struct script_stmt *st,
                      uint64_t old, uint64_t new)
{
  const char *name = script_signal_name((unsigned)st->value);

  if (r->json) {
    json_begin(st->line, r->lp, "signal");
    json_str("signal", name);
    json_str("target", r->status.name);
    json_hex("old", old);
    json_hex("new", new);
    puts("}");
    return;
  }
  text_begin(r, st->line, r->lp);
  printf("signal %s: %s 0x%" PRIx64 " -> 0x%" PRIx64, name, r->status.name, old,
         new);
  put_fields(r, r->status.addr, new);
  putchar('\n');
}

void run_trace_failure(const struct run *r, const struct script_stmt *st,
                       const char *msg)
{
  if (!r->json)
    return;
  json_begin(st->line, r->lp, "expect");
  json_str("result", "fail");
  json_str("message", msg);
  puts("}");
}

/* ---- guest memory and the DS save area ----------------------------------- */

void run_trace_memory(const struct run *r, const struct script_stmt *st)
{
  if (r->json) {
    json_begin(st->line, r->lp, "memory");
    json_hex("base", st->addr);
    json_num("size", st->len);
    puts("}");
    return;
  }
  text_begin(r, st->line, r->lp);
  printf("memory 0x%" PRIx64 "-0x%" PRIx64 ": %" PRIu64 " bytes, zero-filled\n",
         st->addr, st->addr + (st->len - 1), st->len);
}

void run_trace_poke(const struct run *r, const struct script_stmt *st,
                    uint64_t old)
{
  if (r->json) {
    json_begin(st->line, r->lp, "poke");
    json_hex("addr", st->addr);
    json_num("size", st->len);
    json_hex("value", st->value);
    json_hex("old", old);
    puts("}");
    return;
  }
  text_begin(r, st->line, r->lp);
  printf("poke 0x%" PRIx64 " 0x%" PRIx64 " (%u byte%s): 0x%" PRIx64
         " -> 0x%" PRIx64 "\n",
         st->addr, st->value, (unsigned)st->len, st->len == 1 ? "" : "s", old,
         st->value);
}

void run_trace_state(const struct run *r, const struct script_stmt *st,
                     const struct script_state *state)
{
  struct script_state s = *state;
  const char *name;
  bool any = false;
  unsigned i;

  if (r->json) {
    json_begin(st->line, r->lp, "state");
    for (i = 0; (name = script_state_name(i)) != NULL; i++)
      json_hex(name, *script_state_reg(&s, i));
    puts("}");
    return;
  }
  text_begin(r, st->line, r->lp);
  fputs("state", stdout);
  for (i = 0; (name = script_state_name(i)) != NULL; i++) {
    uint64_t v = *script_state_reg(&s, i);
    if (!v)
      continue;
    printf("%s %s=0x%" PRIx64, any ? "," : "", name, v);
    any = true;
  }
  puts(any ? "" : " all zero");
}

void run_trace_pebs(const struct run *r, const struct script_stmt *st,
                    uint64_t addr, uint64_t size, const bool *reloaded)
{
  bool any = false;
  size_t k;

  if (r->json) {
    json_begin(st->line, r->lp, "pebs");
    json_num("clock", r->clock);
    json_hex("addr", addr);
    json_num("size", size);
    fputs(",\"reloaded\":[", stdout);
    for (k = 0; k < r->nctr; k++) {
      if (!reloaded[k])
        continue;
      printf("%s{\"counter\":\"%s\"", any ? "," : "", r->ctr[k].name);
      json_hex("value", r->ctr[k].val);
      putchar('}');
      any = true;
    }
    puts("]}");
    return;
  }
  text_begin(r, st->line, r->lp);
  printf("clock %" PRIu64 ": PEBS assist: record at 0x%" PRIx64 " (%" PRIu64
         " bytes)",
         r->clock, addr, size);
  for (k = 0; k < r->nctr; k++)
    if (reloaded[k])
      printf(", %s reloaded to 0x%" PRIx64, r->ctr[k].name, r->ctr[k].val);
  putchar('\n');
}

static void trace_why(const struct run *r, const struct script_stmt *st,
                      const char *op, const char *what, const char *why)
{
  if (r->json) {
    json_begin(st->line, r->lp, op);
    json_num("clock", r->clock);
    json_str("why", why);
    puts("}");
    return;
  }
  text_begin(r, st->line, r->lp);
  printf("clock %" PRIu64 ": %s: %s\n", r->clock, what, why);
}

void run_trace_pebs_lost(const struct run *r, const struct script_stmt *st,
                         const char *why)
{
  trace_why(r, st, "pebs-lost", "PEBS record lost", why);
}

void run_trace_bts(const struct run *r, const struct script_stmt *st,
                   uint64_t addr, const spmu_branch *br)
{
  if (r->json) {
    json_begin(st->line, r->lp, "bts");
    json_num("clock", r->clock);
    json_hex("addr", addr);
    json_hex("from", br->from);
    json_hex("to", br->to);
    printf(",\"predicted\":%s}\n", br->predicted ? "true" : "false");
    return;
  }
  text_begin(r, st->line, r->lp);
  printf("clock %" PRIu64 ": BTS record at 0x%" PRIx64 ": 0x%" PRIx64
         " -> 0x%" PRIx64 "%s\n",
         r->clock, addr, br->from, br->to, br->predicted ? ", predicted" : "");
}

void run_trace_bts_lost(const struct run *r, const struct script_stmt *st,
                        const char *why)
{
  trace_why(r, st, "bts-lost", "BTS record not stored", why);
}

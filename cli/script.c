/* SPDX-License-Identifier: MIT */
/* The scenario language of `softpmu run`: from text to statements.
 *
 * A script is a list of lines; each holds one statement, a comment after
 * '#', or nothing. A statement is words separated by blanks: a keyword
 * (case-insensitive) and its arguments. Every line is parsed before
 * anything runs, and every error is reported, as "FILE:LINE:COL: message"
 * with COL the column (from 1) of the word at fault. docs/scripts.md is
 * the reference of the language.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script.h"

#define MAX_WORDS 128 /* per line */
#define MAX_WORD 255  /* characters per word */
#define MAX_ERRORS 20 /* reported before giving up */

struct word {
  const char *s;
  size_t len;
  unsigned col;
};

struct parser {
  struct script *s;
  unsigned line;
  struct word w[MAX_WORDS];
  size_t nw;
  unsigned end_col; /* the column just past the last word */
  unsigned errors;
  bool stop; /* give up: the profile is unknown, or too many */
  bool oom;
  size_t cap_stmt, cap_events;
  bool have_stmt;       /* a statement came before this line */
  bool cpu_given;       /* --cpu replaces the script's cpu statement */
  unsigned access_line; /* the last wrmsr, host-wrmsr, rdmsr, rdpmc */
  const char *access_op;
};

/* ---- messages ---------------------------------------------------------- */

static void perr(struct parser *ps, unsigned col, const char *fmt, ...)
    CLI_PRINTF(3, 4);

static void perr(struct parser *ps, unsigned col, const char *fmt, ...)
{
  va_list ap;

  /* Past the limit the rest of the line may still report errors: one
   * "too many errors" line is enough. */
  if (ps->stop)
    return;
  fprintf(stderr, "%s:%u:%u: ", ps->s->file, ps->line, col);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  if (++ps->errors >= MAX_ERRORS) {
    fprintf(stderr, "%s: too many errors; stopped at line %u\n", ps->s->file,
            ps->line);
    ps->stop = true;
  }
}

/* The column of argument i, or the end of the line if it is missing. */
static unsigned col_of(const struct parser *ps, size_t i)
{
  return i < ps->nw ? ps->w[i].col : ps->end_col;
}

/* ---- words ------------------------------------------------------------- */

/* Copy word i into buf (MAX_WORD + 1 bytes). */
static const char *word(const struct parser *ps, size_t i, char *buf)
{
  memcpy(buf, ps->w[i].s, ps->w[i].len);
  buf[ps->w[i].len] = '\0';
  return buf;
}

static bool word_is(const struct parser *ps, size_t i, const char *lit)
{
  char buf[MAX_WORD + 1];
  return i < ps->nw && text_ieq(word(ps, i, buf), lit);
}

/* Split one line into words, up to a '#'. False (reported) if a word is
 * too long or there are too many. */
static bool split(struct parser *ps, const char *p, const char *end)
{
  const char *start = p;

  ps->nw = 0;
  ps->end_col = 1;
  while (p < end && *p != '#') {
    const char *q;
    if (*p == ' ' || *p == '\t' || *p == '\r') {
      p++;
      continue;
    }
    for (q = p; q < end && *q != ' ' && *q != '\t' && *q != '\r' && *q != '#';
         q++)
      ;
    if (ps->nw == MAX_WORDS) {
      perr(ps, (unsigned)(p - start) + 1, "more than %d words on a line",
           MAX_WORDS);
      return false;
    }
    if ((size_t)(q - p) > MAX_WORD) {
      perr(ps, (unsigned)(p - start) + 1, "a word of more than %d characters",
           MAX_WORD);
      return false;
    }
    ps->w[ps->nw].s = p;
    ps->w[ps->nw].len = (size_t)(q - p);
    ps->w[ps->nw].col = (unsigned)(p - start) + 1;
    ps->nw++;
    ps->end_col = (unsigned)(q - start) + 1;
    p = q;
  }
  return true;
}

/* ---- numbers ----------------------------------------------------------- */

static uint64_t ones(unsigned width)
{
  return width >= 64 ? UINT64_MAX : (UINT64_C(1) << width) - 1;
}

/* A value: 0x-hex, decimal, or -N (two's complement within `width`
 * bits). With fit, it must fit the width; without, any 64-bit number is
 * taken as written (a WRMSR of bits the MSR reserves raises #GP). `what`
 * names the destination in messages ("IA32_PMC0", "CMASK"); col is where
 * the number starts. */
static bool parse_value(struct parser *ps, const char *text, unsigned col,
                        unsigned width, bool fit, const char *what,
                        uint64_t *out, enum script_radix *radix)
{
  bool neg = text[0] == '-';
  uint64_t v;

  if (!text_parse_u64(text + neg, &v)) {
    perr(ps, col, "'%s' is not a number (0x-hex, decimal or -N)", text);
    return false;
  }
  if (neg) {
    if (v == 0 || v - 1 > ones(width) >> 1) {
      perr(ps, col, "%s is %u bit%s wide; %s does not fit", what, width,
           width == 1 ? "" : "s", text);
      return false;
    }
    v = (0 - v) & ones(width);
  } else if (fit && v > ones(width)) {
    perr(ps, col, "%s is %u bit%s wide; %s does not fit", what, width,
         width == 1 ? "" : "s", text);
    return false;
  }
  *out = v;
  if (radix)
    *radix = neg ? SCRIPT_NEG
             : (text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
                 ? SCRIPT_HEX
                 : SCRIPT_DEC;
  return true;
}

/* An unsigned number no larger than max at word i. */
static bool parse_count(struct parser *ps, size_t i, const char *text,
                        uint64_t max, const char *what, uint64_t *out)
{
  uint64_t v;

  if (!text_parse_u64(text, &v)) {
    perr(ps, col_of(ps, i), "%s: '%s' is not a number (0x-hex or decimal)",
         what, text);
    return false;
  }
  if (v > max) {
    perr(ps, col_of(ps, i), "%s: %s is more than %llu", what, text,
         (unsigned long long)max);
    return false;
  }
  *out = v;
  return true;
}

/* ---- statements -------------------------------------------------------- */

static struct script_stmt *push(struct parser *ps, enum script_op op)
{
  struct script *s = ps->s;
  struct script_stmt *st;

  if (s->nstmt == ps->cap_stmt) {
    size_t cap = ps->cap_stmt ? 2 * ps->cap_stmt : 64;
    struct script_stmt *n = realloc(s->stmt, cap * sizeof(*n));
    if (!n) {
      ps->oom = true;
      return NULL;
    }
    s->stmt = n;
    ps->cap_stmt = cap;
  }
  st = &s->stmt[s->nstmt++];
  memset(st, 0, sizeof(*st));
  st->op = op;
  st->line = ps->line;
  return st;
}

static bool push_event(struct parser *ps, uint8_t event, uint8_t umask,
                       uint32_t count)
{
  struct script *s = ps->s;

  if (s->nevents == ps->cap_events) {
    size_t cap = ps->cap_events ? 2 * ps->cap_events : 64;
    spmu_event_line *n = realloc(s->events, cap * sizeof(*n));
    if (!n) {
      ps->oom = true;
      return false;
    }
    s->events = n;
    ps->cap_events = cap;
  }
  s->events[s->nevents++] = (spmu_event_line){event, umask, count};
  return true;
}

/* Arguments 1..nw-1: at least min and at most max, else the usage. */
static bool nargs(struct parser *ps, size_t min, size_t max, const char *usage)
{
  size_t n = ps->nw - 1;

  if (n < min) {
    perr(ps, ps->end_col, "missing argument; usage: %s", usage);
    return false;
  }
  /* A line has fewer than MAX_WORDS words: a larger max is no limit. */
  if (max < MAX_WORDS - 1 && n > max) {
    char buf[MAX_WORD + 1];
    perr(ps, col_of(ps, max + 1), "unexpected '%s'; usage: %s",
         word(ps, max + 1, buf), usage);
    return false;
  }
  return true;
}

/* ---- MSRs and fields --------------------------------------------------- */

struct msr_ref {
  uint32_t addr;
  bool present;
  spmu_msr_info info; /* when present */
  char name[48];
};

static void suggest_msr(const spmu_profile *p, const char *name, char *buf,
                        size_t len)
{
  struct nearest nb;
  size_t n, i;
  uint32_t *addrs = cli_msr_addrs(p, &n);

  buf[0] = '\0';
  if (!addrs)
    return;
  nearest_init(&nb, name);
  for (i = 0; i < n; i++) {
    spmu_msr_info info;
    if (spmu_msr_info_get(p, addrs[i], &info) == SPMU_OK)
      nearest_offer(&nb, info.name);
  }
  free(addrs);
  nearest_text(&nb, buf, len);
}

/* Resolve word i as an MSR of the profile. A name or number the profile
 * lacks is accepted unless need (then the reason is reported): an access
 * to it raises #GP, as on hardware. */
static bool resolve_msr(struct parser *ps, size_t i, const char *text,
                        bool need, const char *why_need, struct msr_ref *out)
{
  const spmu_profile *p = &ps->s->profile;
  int rc;

  memset(out, 0, sizeof(*out));
  if (isdigit((unsigned char)text[0])) {
    uint64_t v;
    if (!text_parse_u64(text, &v) || v > UINT32_MAX) {
      perr(ps, col_of(ps, i),
           "'%s' is not an MSR number (0x-hex or decimal, 32 bits)", text);
      return false;
    }
    out->addr = (uint32_t)v;
    rc = SPMU_OK;
  } else {
    rc = spmu_msr_lookup(p, text, &out->addr);
    /* A name of another generation for an address the profile has
     * (IA32_PERF_GLOBAL_STATUS_RESET is IA32_PERF_GLOBAL_OVF_CTRL before
     * perfmon v4) is the same MSR. */
    if (rc == SPMU_ENOMSR)
      rc = spmu_msr_lookup(NULL, text, &out->addr);
  }
  if (rc == SPMU_ENOENT) {
    char near[256];
    suggest_msr(p, text, near, sizeof near);
    if (near[0])
      perr(ps, col_of(ps, i), "unknown MSR '%s'; did you mean %s?", text, near);
    else
      perr(ps, col_of(ps, i), "unknown MSR '%s' (softpmu msrs lists them)",
           text);
    return false;
  }
  out->present = spmu_msr_info_get(p, out->addr, &out->info) == SPMU_OK;
  if (out->present) {
    snprintf(out->name, sizeof out->name, "%s", out->info.name);
    return true;
  }
  if (isdigit((unsigned char)text[0]))
    snprintf(out->name, sizeof out->name, "MSR 0x%x", out->addr);
  else
    snprintf(out->name, sizeof out->name, "%s", text);
  if (need) {
    char have[256];
    cli_presets_with(text, have, sizeof have);
    perr(ps, col_of(ps, i), "%s is not present in profile %s%s%s%s", text,
         p->name, have[0] ? "; presets that have it: " : "", have, why_need);
    return false;
  }
  return true;
}

static void no_such_field(struct parser *ps, unsigned col,
                          const spmu_msr_info *m, const char *name)
{
  const spmu_profile *p = &ps->s->profile;
  struct nearest nb;
  char list[1024] = "", near[256];
  size_t used = 0;
  unsigned i;

  nearest_init(&nb, name);
  for (i = 0; i < m->nfields; i++) {
    spmu_field_info f;
    int n;
    if (spmu_msr_field_get(p, m->addr, i, &f) != SPMU_OK)
      continue;
    nearest_offer(&nb, f.name);
    n = snprintf(list + used, sizeof list - used, "%s%s", used ? " " : "",
                 f.name);
    if (n > 0 && (size_t)n < sizeof list - used)
      used += (size_t)n;
  }
  if (nearest_text(&nb, near, sizeof near))
    perr(ps, col, "%s has no field '%s' in profile %s; did you mean %s?",
         m->name, name, p->name, near);
  else
    perr(ps, col, "%s has no field '%s' in profile %s; its fields: %s", m->name,
         name, p->name, m->nfields ? list : "none");
}

/* Apply FIELD=VALUE (word i) to *reg. */
static bool encode_field(struct parser *ps, size_t i, const spmu_msr_info *m,
                         uint64_t *reg)
{
  char buf[MAX_WORD + 1];
  const char *arg = word(ps, i, buf);
  const char *eq = strchr(arg, '=');
  unsigned col = col_of(ps, i);
  spmu_field_info f;
  uint64_t v;

  if (arg[0] == '+') {
    perr(ps, col,
         "'%s': FIELD=VALUE lists start from 0; there is no '+=' "
         "(write the whole value, or every field)",
         arg);
    return false;
  }
  if (!eq || eq == arg) {
    perr(ps, col, "'%s' is not FIELD=VALUE", arg);
    return false;
  }
  buf[eq - arg] = '\0';
  if (!cli_field_by_name(&ps->s->profile, m, arg, &f)) {
    no_such_field(ps, col, m, arg);
    return false;
  }
  if (!parse_value(ps, eq + 1, col + (unsigned)(eq - arg) + 1, f.width, true,
                   f.name, &v, NULL))
    return false;
  if (spmu_msr_field_encode(&ps->s->profile, m->addr, f.name, v, reg) !=
      SPMU_OK) {
    perr(ps, col, "%s: cannot set field %s", m->name, f.name);
    return false;
  }
  return true;
}

/* ---- the statements, one function each ----------------------------------- */

static bool parse_cpu(struct parser *ps)
{
  struct script *s = ps->s;
  char spec[512], why[512] = "";
  size_t len;

  if (ps->have_stmt) {
    perr(ps, col_of(ps, 0), "cpu must be the first statement of the script");
    return false;
  }
  if (!nargs(ps, 1, MAX_WORDS, "cpu PROFILE")) {
    ps->stop = true;
    return false;
  }
  s->cpu_line = ps->line;
  if (ps->cpu_given)
    return true; /* --cpu replaces it */
  len = (size_t)(ps->w[ps->nw - 1].s + ps->w[ps->nw - 1].len - ps->w[1].s);
  if (len >= sizeof spec) {
    perr(ps, col_of(ps, 1), "the profile is longer than %zu characters",
         sizeof spec - 1);
    return false;
  }
  memcpy(spec, ps->w[1].s, len);
  spec[len] = '\0';
  if (spmu_profile_parse(spec, &s->profile, why, sizeof why) != SPMU_OK) {
    perr(ps, col_of(ps, 1), "%s", why[0] ? why : "not a profile");
    ps->stop = true; /* nothing after it can be resolved */
    return false;
  }
  return true;
}

static bool parse_lp(struct parser *ps)
{
  const spmu_profile *p = &ps->s->profile;
  char buf[MAX_WORD + 1];
  struct script_stmt *st;
  uint64_t v;

  if (!nargs(ps, 1, 1, "lp N") ||
      !parse_count(ps, 1, word(ps, 1, buf), UINT32_MAX, "lp", &v))
    return false;
  if (v >= p->threads) {
    perr(ps, col_of(ps, 1),
         "lp %s: profile %s has %u logical processor%s (from 0); "
         "threads=N in the cpu profile sets more",
         buf, p->name, p->threads, p->threads == 1 ? "" : "s");
    return false;
  }
  ps->s->uses_lp = true;
  st = push(ps, SCRIPT_LP);
  if (st)
    st->value = v;
  return st != NULL;
}

static void note_access(struct parser *ps, const char *op)
{
  ps->access_line = ps->line;
  ps->access_op = op;
}

static bool parse_wrmsr_as(struct parser *ps, bool host)
{
  const char *op = host ? "host-wrmsr" : "wrmsr";
  char usage[96], buf[MAX_WORD + 1];
  struct script_stmt *st;
  struct msr_ref m;
  uint64_t v = 0;
  size_t i;
  bool fields;

  snprintf(usage, sizeof usage, "%s MSR VALUE | %s MSR FIELD=VALUE...", op, op);
  if (!nargs(ps, 2, MAX_WORDS, usage))
    return false;
  word(ps, 2, buf);
  fields = ps->nw > 3 || strchr(buf, '=') || buf[0] == '+';
  if (!resolve_msr(ps, 1, word(ps, 1, buf), fields,
                   "; FIELD=VALUE needs the MSR's fields", &m))
    return false;
  if (!fields) {
    if (!parse_value(ps, word(ps, 2, buf), col_of(ps, 2),
                     m.present ? m.info.width : 64, false, m.name, &v, NULL))
      return false;
  } else {
    bool ok = true;
    for (i = 2; i < ps->nw; i++)
      ok = encode_field(ps, i, &m.info, &v) && ok;
    if (!ok)
      return false;
  }
  note_access(ps, op);
  st = push(ps, SCRIPT_WRMSR);
  if (!st)
    return false;
  st->host = host;
  st->msr = m.addr;
  st->present = m.present;
  snprintf(st->msr_name, sizeof st->msr_name, "%s", m.name);
  st->value = v;
  return true;
}

static bool parse_wrmsr(struct parser *ps)
{
  return parse_wrmsr_as(ps, false);
}

static bool parse_host_wrmsr(struct parser *ps)
{
  return parse_wrmsr_as(ps, true);
}

static bool parse_rdmsr(struct parser *ps)
{
  char buf[MAX_WORD + 1];
  struct script_stmt *st;
  struct msr_ref m;

  if (!nargs(ps, 1, 1, "rdmsr MSR") ||
      !resolve_msr(ps, 1, word(ps, 1, buf), false, "", &m))
    return false;
  note_access(ps, "rdmsr");
  st = push(ps, SCRIPT_RDMSR);
  if (!st)
    return false;
  st->msr = m.addr;
  st->present = m.present;
  snprintf(st->msr_name, sizeof st->msr_name, "%s", m.name);
  return true;
}

/* Is word i "key=..." (key in lower case)? */
static bool option_is(const struct parser *ps, size_t i, const char *key)
{
  size_t n = strlen(key), k;

  if (ps->w[i].len <= n || ps->w[i].s[n] != '=')
    return false;
  for (k = 0; k < n; k++)
    if (tolower((unsigned char)ps->w[i].s[k]) != key[k])
      return false;
  return true;
}

static bool parse_option(struct parser *ps, size_t i, const char *key,
                         uint64_t max, bool *seen, uint64_t *out)
{
  char buf[MAX_WORD + 1];

  const char *text = word(ps, i, buf) + strlen(key) + 1;

  if (*seen) {
    perr(ps, col_of(ps, i), "%s= given twice", key);
    return false;
  }
  *seen = true;
  if (!text_parse_u64(text, out) || *out > max) {
    perr(ps, col_of(ps, i) + (unsigned)strlen(key) + 1,
         "%s=%s: %s is 0 to %llu", key, text, key, (unsigned long long)max);
    return false;
  }
  return true;
}

static bool parse_rdpmc(struct parser *ps)
{
  static const char usage[] = "rdpmc ECX [cpl=0-3] [pce=0|1]";
  char buf[MAX_WORD + 1];
  struct script_stmt *st;
  bool seen_cpl = false, seen_pce = false, ok = true;
  uint64_t ecx, cpl = 0, pce = 0;
  size_t i;

  if (!nargs(ps, 1, 3, usage) ||
      !parse_count(ps, 1, word(ps, 1, buf), UINT32_MAX, "rdpmc ECX", &ecx))
    return false;
  for (i = 2; i < ps->nw; i++) {
    if (option_is(ps, i, "cpl"))
      ok = parse_option(ps, i, "cpl", 3, &seen_cpl, &cpl) && ok;
    else if (option_is(ps, i, "pce"))
      ok = parse_option(ps, i, "pce", 1, &seen_pce, &pce) && ok;
    else {
      perr(ps, col_of(ps, i), "unexpected '%s'; usage: %s", word(ps, i, buf),
           usage);
      ok = false;
    }
  }
  if (!ok)
    return false;
  note_access(ps, "rdpmc");
  st = push(ps, SCRIPT_RDPMC);
  if (!st)
    return false;
  st->ecx = (uint32_t)ecx;
  st->cpl = (unsigned)cpl;
  st->pce = pce != 0;
  return true;
}

/* ---- deliver ------------------------------------------------------------- */

/* Does text name the architectural event e, by its short name or by its
 * SDM name with '-' for each blank ("unhalted-core-cycles")? */
static bool event_named(const struct cli_arch_event *e, const char *text)
{
  const char *a = e->sdm, *b = text;

  if (text_ieq(e->name, text))
    return true;
  for (; *a && *b; a++, b++) {
    char ca = *a == ' ' ? '-' : (char)tolower((unsigned char)*a);
    if (ca != tolower((unsigned char)*b))
      return false;
  }
  return *a == *b;
}

/* The event line named at word i of a deliver statement: EVENT/UMASK or
 * NAME, with an optional :COUNT. */
static bool parse_event_word(struct parser *ps, size_t i)
{
  char buf[MAX_WORD + 1];
  char *text = (char *)word(ps, i, buf), *colon = strchr(text, ':');
  char *slash = strchr(text, '/');
  unsigned col = col_of(ps, i);
  uint64_t count = 1, ev, um;
  size_t k;

  if (colon) {
    *colon = '\0';
    if (!text_parse_u64(colon + 1, &count) || count > UINT32_MAX) {
      perr(ps, col + (unsigned)(colon - text) + 1,
           "'%s' is not a count of events in one clock (0 to %u)", colon + 1,
           UINT32_MAX);
      return false;
    }
  }
  if (slash) {
    *slash = '\0';
    if (!text_parse_u64(text, &ev) || ev > 0xff) {
      perr(ps, col, "'%s' is not an event select (0-0xff)", text);
      return false;
    }
    if (!text_parse_u64(slash + 1, &um) || um > 0xff) {
      perr(ps, col + (unsigned)(slash - text) + 1,
           "'%s' is not a unit mask (0-0xff)", slash + 1);
      return false;
    }
    return push_event(ps, (uint8_t)ev, (uint8_t)um, (uint32_t)count);
  }
  for (k = 0; k < cli_narch_events; k++) {
    const struct cli_arch_event *e = &cli_arch_events[k];
    if (!event_named(e, text))
      continue;
    if (!push_event(ps, e->event, e->umask, (uint32_t)count))
      return false;
    /* Fixed counters 2 and up count a pseudo-encoding, event 00H with
     * umask = index + 1 (events.h): the same event reaches them so. */
    if (e->fixed >= 2)
      return push_event(ps, 0x00, (uint8_t)(e->fixed + 1), (uint32_t)count);
    return true;
  }
  {
    struct nearest nb;
    char near[256];
    nearest_init(&nb, text);
    for (k = 0; k < cli_narch_events; k++)
      nearest_offer(&nb, cli_arch_events[k].name);
    if (nearest_text(&nb, near, sizeof near))
      perr(ps, col,
           "unknown event '%s'; did you mean %s? (or EVENT/UMASK, "
           "e.g. 0xc0/0x00:3)",
           text, near);
    else
      perr(ps, col,
           "unknown event '%s': an event line is EVENT/UMASK[:COUNT]"
           " (0xc0/0x00:3) or an architectural event by name (instructions,"
           " cycles, ref-cycles, branches, ...)",
           text);
  }
  return false;
}

/* branch=FROM->TO at word i into *br. */
static bool parse_branch(struct parser *ps, size_t i, bool *seen,
                         spmu_branch *br)
{
  char buf[MAX_WORD + 1];
  char *text = (char *)word(ps, i, buf) + strlen("branch=");
  char *arrow = strstr(text, "->");
  unsigned col = col_of(ps, i) + (unsigned)strlen("branch=");

  if (*seen) {
    perr(ps, col_of(ps, i), "branch= given twice");
    return false;
  }
  *seen = true;
  if (!arrow) {
    perr(ps, col,
         "branch=%s: a branch is FROM->TO, two linear addresses "
         "(branch=0x401000->0x402000)",
         text);
    return false;
  }
  *arrow = '\0';
  if (!text_parse_u64(text, &br->from)) {
    perr(ps, col, "branch=: '%s' is not an address (0x-hex or decimal)", text);
    return false;
  }
  if (!text_parse_u64(arrow + 2, &br->to)) {
    perr(ps, col + (unsigned)(arrow + 2 - text),
         "branch=: '%s' is not an address (0x-hex or decimal)", arrow + 2);
    return false;
  }
  return true;
}

/* type=NAME at word i into br->type (enum spmu_branch_type, named as
 * MSR_LBR_SELECT names the kinds, SDM 17.7.2 Table 17-11). */
static bool parse_branch_type(struct parser *ps, size_t i, bool *seen,
                              spmu_branch *br)
{
  static const char *const names[] = {
      [SPMU_BR_JCC] = "jcc",
      [SPMU_BR_NEAR_REL_CALL] = "near_rel_call",
      [SPMU_BR_NEAR_IND_CALL] = "near_ind_call",
      [SPMU_BR_NEAR_RET] = "near_ret",
      [SPMU_BR_NEAR_IND_JMP] = "near_ind_jmp",
      [SPMU_BR_NEAR_REL_JMP] = "near_rel_jmp",
      [SPMU_BR_FAR] = "far",
  };
  char buf[MAX_WORD + 1];
  const char *text = word(ps, i, buf) + strlen("type=");
  unsigned k;

  if (*seen) {
    perr(ps, col_of(ps, i), "type= given twice");
    return false;
  }
  *seen = true;
  for (k = 1; k < sizeof names / sizeof names[0]; k++)
    if (text_ieq(text, names[k])) {
      br->type = (uint8_t)k;
      return true;
    }
  perr(ps, col_of(ps, i) + (unsigned)strlen("type="),
       "type=%s: a branch type is jcc, near_rel_call, near_ind_call, "
       "near_ret, near_ind_jmp, near_rel_jmp or far",
       text);
  return false;
}

/* The columns of the memory and branch options of a deliver, to check
 * that each qualifier comes with what it qualifies. */
struct access_cols {
  unsigned lat, src, store, predicted, type, cycles, abort;
};

struct misplaced {
  unsigned col;
  const char *msg;
};

static void add_misplaced(struct misplaced *m, size_t *n, unsigned col,
                          const char *msg)
{
  size_t i = (*n)++;

  /* Keep them in the order of the line. */
  for (; i > 0 && m[i - 1].col > col; i--)
    m[i] = m[i - 1];
  m[i].col = col;
  m[i].msg = msg;
}

static bool check_access(struct parser *ps, const struct script_stmt *st,
                         const struct access_cols *c)
{
  static const char need_mem[] = "needs mem=ADDR, the clock's memory access";
  struct misplaced bad[7];
  size_t n = 0, i;

  if (!st->has_mem && c->lat)
    add_misplaced(bad, &n, c->lat, "lat=");
  if (!st->has_mem && c->src)
    add_misplaced(bad, &n, c->src, "src=");
  if (!st->has_mem && c->store)
    add_misplaced(bad, &n, c->store, "store");
  if (!st->has_branch && c->predicted)
    add_misplaced(bad, &n, c->predicted, "predicted");
  if (!st->has_branch && c->type)
    add_misplaced(bad, &n, c->type, "type=");
  if (!st->has_branch && c->cycles)
    add_misplaced(bad, &n, c->cycles, "cycles=");
  if (!st->has_branch && c->abort)
    add_misplaced(bad, &n, c->abort, "abort");
  for (i = 0; i < n; i++)
    perr(ps, bad[i].col, "%s %s", bad[i].msg,
         strchr("pcta", bad[i].msg[0]) ? "needs branch=FROM->TO" : need_mem);
  return n == 0;
}

/* A word of a deliver that is not an event line: an option. Returns
 * false if it is not one (*ok untouched), else true with *ok false after
 * an error. */
static bool deliver_option(struct parser *ps, size_t i, struct script_stmt *st,
                           struct access_cols *c, bool *seen, bool *ok)
{
  char buf[MAX_WORD + 1];
  uint64_t v = 0;

  word(ps, i, buf);
  if (option_is(ps, i, "mem")) {
    *ok = parse_option(ps, i, "mem", UINT64_MAX, &st->has_mem, &v) && *ok;
    st->mem.addr = v;
  } else if (option_is(ps, i, "lat")) {
    c->lat = col_of(ps, i);
    *ok = parse_option(ps, i, "lat", UINT64_MAX, &seen[0], &v) && *ok;
    st->mem.latency = v;
  } else if (option_is(ps, i, "src")) {
    c->src = col_of(ps, i);
    *ok = parse_option(ps, i, "src", UINT64_MAX, &seen[1], &v) && *ok;
    st->mem.source = v;
  } else if (text_ieq(buf, "store")) {
    c->store = col_of(ps, i);
    st->mem.store = 1;
  } else if (option_is(ps, i, "branch")) {
    *ok = parse_branch(ps, i, &st->has_branch, &st->branch) && *ok;
  } else if (text_ieq(buf, "predicted")) {
    c->predicted = col_of(ps, i);
    st->branch.predicted = 1;
  } else if (option_is(ps, i, "type")) {
    c->type = col_of(ps, i);
    *ok = parse_branch_type(ps, i, &seen[2], &st->branch) && *ok;
  } else if (option_is(ps, i, "cycles")) {
    c->cycles = col_of(ps, i);
    *ok = parse_option(ps, i, "cycles", UINT32_MAX, &seen[3], &v) && *ok;
    st->branch.cycles = (uint32_t)v;
    st->branch.flags |= SPMU_BRANCH_CYCLES;
  } else if (text_ieq(buf, "abort")) {
    c->abort = col_of(ps, i);
    st->branch.flags |= SPMU_BRANCH_TSX_ABORT;
  } else if (text_ieq(buf, "ia32e")) {
    st->flags |= SPMU_CLK_IA32E;
  } else {
    return false;
  }
  return true;
}

static bool parse_deliver(struct parser *ps)
{
  char buf[MAX_WORD + 1];
  struct script_stmt st = {.op = SCRIPT_DELIVER, .line = ps->line};
  struct access_cols cols = {0, 0, 0, 0, 0, 0, 0};
  bool seen_cpl = false, seen_x = false, seen_opt[4] = {false};
  bool ok = true;
  uint64_t cpl = 3;
  size_t i;

  st.first = ps->s->nevents;
  st.clocks = 1;
  for (i = 1; i < ps->nw && !ps->oom; i++) {
    word(ps, i, buf);
    if (text_ieq(buf, "x")) {
      if (seen_x) {
        perr(ps, col_of(ps, i), "x COUNT given twice");
        ok = false;
      } else if (i + 1 == ps->nw) {
        perr(ps, ps->end_col, "x needs a COUNT of clocks");
        ok = false;
      } else {
        i++;
        ok =
            parse_count(ps, i, word(ps, i, buf), UINT64_MAX, "x", &st.clocks) &&
            ok;
        if (st.clocks == 0) {
          perr(ps, col_of(ps, i), "x 0: a deliver is at least one clock");
          ok = false;
        }
      }
      seen_x = true;
    } else if (option_is(ps, i, "cpl")) {
      ok = parse_option(ps, i, "cpl", 3, &seen_cpl, &cpl) && ok;
    } else if (text_ieq(buf, "tx")) {
      st.flags |= SPMU_CLK_IN_TX;
    } else if (text_ieq(buf, "enclave")) {
      st.flags |= SPMU_CLK_ENCLAVE;
    } else if (text_ieq(buf, "smm")) {
      st.flags |= SPMU_CLK_SMM;
    } else if (!deliver_option(ps, i, &st, &cols, seen_opt, &ok)) {
      ok = parse_event_word(ps, i) && ok;
    }
  }
  st.nlines = ps->s->nevents - st.first;
  st.cpl = (unsigned)cpl;
  ok = check_access(ps, &st, &cols) && ok;
  if (!ok || ps->oom) {
    ps->s->nevents = st.first;
    return false;
  }
  {
    struct script_stmt *p = push(ps, SCRIPT_DELIVER);
    if (p)
      *p = st;
    return p != NULL;
  }
}

/* ---- signal, reset-pmis -------------------------------------------------- */

static const struct {
  const char *name;
  unsigned sig;
  const char *field; /* its IA32_PERF_GLOBAL_STATUS bit */
} signals[] = {
    {"topa", SPMU_SIGNAL_TOPA_PMI, "Trace_ToPA_PMI"},
    {"uncore", SPMU_SIGNAL_UNCORE_OVF, "Ovf_Uncore"},
    {"condchgd", SPMU_SIGNAL_COND_CHGD, "CondChgd"},
};
#define NSIGNALS (sizeof(signals) / sizeof(signals[0]))

const char *script_signal_name(unsigned sig)
{
  size_t i;

  for (i = 0; i < NSIGNALS; i++)
    if (signals[i].sig == sig)
      return signals[i].name;
  return "?";
}

static bool parse_signal(struct parser *ps)
{
  const spmu_profile *p = &ps->s->profile;
  char buf[MAX_WORD + 1];
  struct script_stmt *st;
  uint32_t status;
  uint64_t bit;
  size_t i;

  if (!nargs(ps, 1, 1, "signal topa|uncore|condchgd"))
    return false;
  word(ps, 1, buf);
  for (i = 0; i < NSIGNALS && !text_ieq(buf, signals[i].name); i++)
    ;
  if (i == NSIGNALS) {
    perr(ps, col_of(ps, 1),
         "unknown signal '%s'; signals: topa, uncore, "
         "condchgd",
         buf);
    return false;
  }
  /* The host can raise only what the profile's GLOBAL_STATUS has a bit for
   * (docs/decisions.md #25). */
  if (spmu_msr_lookup(p, "IA32_PERF_GLOBAL_STATUS", &status) != SPMU_OK ||
      spmu_msr_field_decode(p, status, signals[i].field, 0, &bit) != SPMU_OK) {
    perr(ps, col_of(ps, 1),
         "signal %s: profile %s has no "
         "IA32_PERF_GLOBAL_STATUS.%s bit",
         signals[i].name, p->name, signals[i].field);
    return false;
  }
  st = push(ps, SCRIPT_SIGNAL);
  if (st)
    st->value = signals[i].sig;
  return st != NULL;
}

static bool parse_reset_pmis(struct parser *ps)
{
  return nargs(ps, 0, 0, "reset-pmis") && push(ps, SCRIPT_RESET_PMIS);
}

/* ---- guest memory and machine state -------------------------------------- */

#define MAX_WINDOWS 16
#define MAX_WINDOW_BYTES (UINT64_C(16) << 20)
#define MAX_MEMORY_BYTES (UINT64_C(64) << 20)

/* The last byte of a window or access: base + len - 1 (len >= 1). */
static uint64_t last_byte(uint64_t base, uint64_t len)
{
  return base + (len - 1);
}

static bool parse_memory(struct parser *ps)
{
  struct script *s = ps->s;
  char buf[MAX_WORD + 1];
  uint64_t base, size, total = 0;
  struct script_window *w;
  struct script_stmt *st;
  size_t i;

  if (!nargs(ps, 2, 2, "memory BASE SIZE") ||
      !parse_count(ps, 1, word(ps, 1, buf), UINT64_MAX, "memory BASE", &base) ||
      !parse_count(ps, 2, word(ps, 2, buf), UINT64_MAX, "memory SIZE", &size))
    return false;
  if (size == 0 || size > MAX_WINDOW_BYTES) {
    perr(ps, col_of(ps, 2),
         "memory SIZE %s: a window is 1 byte to 16 MiB "
         "(0x1000000)",
         buf);
    return false;
  }
  if (size - 1 > UINT64_MAX - base) {
    perr(ps, col_of(ps, 2),
         "memory 0x%llx + %s runs past the top of the address space",
         (unsigned long long)base, buf);
    return false;
  }
  for (i = 0; i < s->nwindows; i++) {
    w = &s->windows[i];
    total += w->size;
    if (base <= last_byte(w->base, w->size) &&
        w->base <= last_byte(base, size)) {
      perr(ps, col_of(ps, 1),
           "memory 0x%llx-0x%llx overlaps the window of line %u "
           "(0x%llx-0x%llx)",
           (unsigned long long)base, (unsigned long long)last_byte(base, size),
           w->line, (unsigned long long)w->base,
           (unsigned long long)last_byte(w->base, w->size));
      return false;
    }
  }
  if (s->nwindows == MAX_WINDOWS || total + size > MAX_MEMORY_BYTES) {
    perr(ps, col_of(ps, 0), "memory: at most %d windows of 64 MiB in all",
         MAX_WINDOWS);
    return false;
  }
  w = realloc(s->windows, (s->nwindows + 1) * sizeof(*w));
  if (!w) {
    ps->oom = true;
    return false;
  }
  s->windows = w;
  s->windows[s->nwindows++] = (struct script_window){base, size, ps->line};
  st = push(ps, SCRIPT_MEMORY);
  if (!st)
    return false;
  st->addr = base;
  st->len = size;
  return true;
}

/* Do the windows declared so far hold the len bytes at addr? Else an
 * error at column col. */
static bool in_memory(struct parser *ps, unsigned col, const char *what,
                      uint64_t addr, uint64_t len)
{
  const struct script *s = ps->s;
  size_t i;

  if (len - 1 <= UINT64_MAX - addr)
    for (i = 0; i < s->nwindows; i++) {
      const struct script_window *w = &s->windows[i];
      if (addr >= w->base &&
          last_byte(addr, len) <= last_byte(w->base, w->size))
        return true;
    }
  perr(ps, col,
       "%s 0x%llx: no memory window declared above holds its %llu byte%s "
       "(memory BASE SIZE declares one)",
       what, (unsigned long long)addr, (unsigned long long)len,
       len == 1 ? "" : "s");
  return false;
}

/* size=1|2|4|8 at word i, if given (default 8 bytes). */
static bool parse_size(struct parser *ps, size_t i, const char *usage,
                       uint64_t *size)
{
  char buf[MAX_WORD + 1];
  bool seen = false;

  *size = 8;
  if (i >= ps->nw)
    return true;
  if (!option_is(ps, i, "size")) {
    perr(ps, col_of(ps, i), "unexpected '%s'; usage: %s", word(ps, i, buf),
         usage);
    return false;
  }
  if (!parse_option(ps, i, "size", 8, &seen, size))
    return false;
  if (*size != 1 && *size != 2 && *size != 4 && *size != 8) {
    perr(ps, col_of(ps, i) + 5, "size=%llu: the size is 1, 2, 4 or 8 bytes",
         (unsigned long long)*size);
    return false;
  }
  return true;
}

/* ADDR at word ia and VALUE at word iv of a poke or expect mem whose
 * size= is at word isz. */
static bool parse_mem_ref(struct parser *ps, const char *what,
                          const char *usage, size_t ia, size_t iv, size_t isz,
                          struct script_stmt *st)
{
  char buf[MAX_WORD + 1], wbuf[16];

  if (!parse_size(ps, isz, usage, &st->len) ||
      !parse_count(ps, ia, word(ps, ia, buf), UINT64_MAX, what, &st->addr))
    return false;
  st->width = 8 * (unsigned)st->len;
  snprintf(wbuf, sizeof wbuf, "size=%u", (unsigned)st->len);
  return parse_value(ps, word(ps, iv, buf), col_of(ps, iv), st->width, true,
                     wbuf, &st->value, &st->radix) &&
         in_memory(ps, col_of(ps, ia), what, st->addr, st->len);
}

static bool parse_poke(struct parser *ps)
{
  static const char usage[] = "poke ADDR VALUE [size=1|2|4|8]";
  struct script_stmt st = {.op = SCRIPT_POKE, .line = ps->line};
  struct script_stmt *p;

  if (!nargs(ps, 2, 3, usage) ||
      !parse_mem_ref(ps, "poke", usage, 1, 2, 3, &st))
    return false;
  p = push(ps, SCRIPT_POKE);
  if (p)
    *p = st;
  return p != NULL;
}

/* The registers of `state`, in the order the trace prints them (that of
 * the legacy PEBS record, SDM 17.4.9.1 Figure 17-10). */
static const struct {
  const char *name;
  int gpr; /* register number, or -1 for the fields before */
} state_regs[] = {
    {"rip", -1}, {"next", -1}, {"rflags", -1}, {"tsc", -1}, {"rax", 0},
    {"rbx", 3},  {"rcx", 1},   {"rdx", 2},     {"rsi", 6},  {"rdi", 7},
    {"rbp", 5},  {"rsp", 4},   {"r8", 8},      {"r9", 9},   {"r10", 10},
    {"r11", 11}, {"r12", 12},  {"r13", 13},    {"r14", 14}, {"r15", 15},
};
#define NSTATE_REGS (sizeof(state_regs) / sizeof(state_regs[0]))

const char *script_state_name(unsigned i)
{
  return i < NSTATE_REGS ? state_regs[i].name : NULL;
}

uint64_t *script_state_reg(struct script_state *s, unsigned i)
{
  switch (i) {
  case 0:
    return &s->ip;
  case 1:
    return &s->next_ip;
  case 2:
    return &s->rflags;
  case 3:
    return &s->tsc;
  default:
    return &s->gpr[state_regs[i].gpr];
  }
}

static void unknown_reg(struct parser *ps, size_t i, const char *key)
{
  struct nearest nb;
  char near[256];
  unsigned k;

  nearest_init(&nb, key);
  for (k = 0; k < NSTATE_REGS; k++)
    nearest_offer(&nb, state_regs[k].name);
  if (nearest_text(&nb, near, sizeof near))
    perr(ps, col_of(ps, i), "state has no register '%s'; did you mean %s?", key,
         near);
  else
    perr(ps, col_of(ps, i),
         "state has no register '%s'; the registers: rip (the eventing "
         "instruction), next (the one after it), rflags, tsc, rax, rbx, rcx, "
         "rdx, rsi, rdi, rbp, rsp, r8-r15",
         key);
}

/* One KEY=VALUE of `state` at word i into *st; given: registers seen. */
static bool state_word(struct parser *ps, size_t i, struct script_state *st,
                       uint32_t *given)
{
  char buf[MAX_WORD + 1];
  char *text = (char *)word(ps, i, buf), *eq = strchr(text, '=');
  unsigned k;

  if (!eq || eq == text) {
    perr(ps, col_of(ps, i), "'%s' is not REGISTER=VALUE", text);
    return false;
  }
  *eq = '\0';
  for (k = 0; k < NSTATE_REGS && !text_ieq(state_regs[k].name, text); k++)
    ;
  if (k == NSTATE_REGS) {
    unknown_reg(ps, i, text);
    return false;
  }
  if (*given >> k & 1) {
    perr(ps, col_of(ps, i), "%s= given twice", state_regs[k].name);
    return false;
  }
  *given |= UINT32_C(1) << k;
  return parse_value(ps, eq + 1, col_of(ps, i) + (unsigned)(eq - text) + 1, 64,
                     true, state_regs[k].name, script_state_reg(st, k), NULL);
}

static bool parse_state(struct parser *ps)
{
  struct script *s = ps->s;
  struct script_state state, *n;
  struct script_stmt *st;
  uint32_t given = 0;
  bool ok = true;
  size_t i;

  memset(&state, 0, sizeof state);
  for (i = 1; i < ps->nw; i++)
    ok = state_word(ps, i, &state, &given) && ok;
  if (!ok)
    return false;
  n = realloc(s->states, (s->nstates + 1) * sizeof(*n));
  if (!n) {
    ps->oom = true;
    return false;
  }
  s->states = n;
  s->states[s->nstates] = state;
  st = push(ps, SCRIPT_STATE);
  if (!st)
    return false;
  st->state = s->nstates++;
  return true;
}

/* ---- expect -------------------------------------------------------------- */

static const char expect_forms[] =
    "expect MSR == VALUE, expect MSR.FIELD == VALUE, expect rdpmc ECX == "
    "VALUE, expect pmis == N, expect pebs-records == N, expect bts-records "
    "== N, expect lost == N, expect mem ADDR == VALUE [size=N], expect "
    "fault, expect ok";

static bool expect_form_error(struct parser *ps)
{
  char buf[MAX_WORD + 1];

  if (ps->nw < 2)
    perr(ps, ps->end_col, "expect what? The forms: %s", expect_forms);
  else
    perr(ps, col_of(ps, 1), "no expect form starts '%s'; the forms: %s",
         word(ps, 1, buf), expect_forms);
  return false;
}

static bool parse_expect_fault(struct parser *ps, bool fault)
{
  struct script_stmt *st;

  if (!ps->access_line) {
    perr(ps, col_of(ps, 1),
         "expect %s: no wrmsr, host-wrmsr, rdmsr or "
         "rdpmc before it to check",
         fault ? "fault" : "ok");
    return false;
  }
  st = push(ps, SCRIPT_EXPECT_FAULT);
  if (!st)
    return false;
  st->want_fault = fault;
  st->access_line = ps->access_line;
  st->access_op = ps->access_op;
  return true;
}

/* The width of what RDPMC with this ECX returns (SDM Vol. 2B RDPMC):
 * ECX[30] selects a fixed counter; 1<<29 is MSR_PERF_METRICS. */
static unsigned rdpmc_width(const spmu_profile *p, uint64_t ecx)
{
  if (ecx & 0x40000000u)
    return p->fixed_width ? p->fixed_width : 64;
  if (ecx == 0x20000000u)
    return 64;
  return p->gp_width ? p->gp_width : 64;
}

static bool parse_expect_rdpmc(struct parser *ps)
{
  char buf[MAX_WORD + 1];
  struct script_stmt st = {.op = SCRIPT_EXPECT_RDPMC, .line = ps->line};
  uint64_t ecx;

  if (ps->nw != 5 || !word_is(ps, 3, "=="))
    return expect_form_error(ps);
  if (!parse_count(ps, 2, word(ps, 2, buf), UINT32_MAX, "rdpmc ECX", &ecx))
    return false;
  st.ecx = (uint32_t)ecx;
  st.width = rdpmc_width(&ps->s->profile, ecx);
  snprintf(st.msr_name, sizeof st.msr_name, "rdpmc 0x%x", st.ecx);
  if (!parse_value(ps, word(ps, 4, buf), col_of(ps, 4), st.width, true,
                   st.msr_name, &st.value, &st.radix))
    return false;
  {
    struct script_stmt *p = push(ps, SCRIPT_EXPECT_RDPMC);
    if (p)
      *p = st;
    return p != NULL;
  }
}

static bool parse_expect_pmis(struct parser *ps)
{
  char buf[MAX_WORD + 1];
  struct script_stmt *st;
  uint64_t n;

  if (!parse_count(ps, 3, word(ps, 3, buf), UINT64_MAX, "pmis", &n))
    return false;
  st = push(ps, SCRIPT_EXPECT_PMIS);
  if (st)
    st->value = n;
  return st != NULL;
}

static const char *const count_names[] = {"pebs-records", "bts-records",
                                          "lost"};

const char *script_count_name(enum script_count c)
{
  return (unsigned)c < 3 ? count_names[c] : "?";
}

static bool parse_expect_count(struct parser *ps, enum script_count c)
{
  char buf[MAX_WORD + 1];
  struct script_stmt *st;
  uint64_t n;

  if (!parse_count(ps, 3, word(ps, 3, buf), UINT64_MAX, count_names[c], &n))
    return false;
  st = push(ps, SCRIPT_EXPECT_COUNT);
  if (!st)
    return false;
  st->count = c;
  st->value = n;
  return true;
}

static bool parse_expect_mem(struct parser *ps)
{
  static const char usage[] = "expect mem ADDR == VALUE [size=1|2|4|8]";
  struct script_stmt st = {.op = SCRIPT_EXPECT_MEM, .line = ps->line};
  struct script_stmt *p;

  if (ps->nw < 5 || ps->nw > 6 || !word_is(ps, 3, "==")) {
    perr(ps, col_of(ps, 1), "usage: %s", usage);
    return false;
  }
  if (!parse_mem_ref(ps, "expect mem", usage, 2, 4, 5, &st))
    return false;
  p = push(ps, SCRIPT_EXPECT_MEM);
  if (p)
    *p = st;
  return p != NULL;
}

static bool parse_expect_msr(struct parser *ps)
{
  char buf[MAX_WORD + 1], vbuf[MAX_WORD + 1];
  char *text = (char *)word(ps, 1, buf), *dot = strchr(text, '.');
  struct script_stmt st = {.op = SCRIPT_EXPECT_MSR, .line = ps->line};
  struct msr_ref m;
  spmu_field_info f;
  const char *what;
  unsigned width;

  if (dot)
    *dot = '\0';
  if (!resolve_msr(ps, 1, text, true,
                   "; to check that an access faults, write the access, then "
                   "`expect fault`",
                   &m))
    return false;
  width = m.info.width;
  what = m.info.name;
  if (dot) {
    if (!cli_field_by_name(&ps->s->profile, &m.info, dot + 1, &f)) {
      no_such_field(ps, col_of(ps, 1) + (unsigned)(dot - text) + 1, &m.info,
                    dot + 1);
      return false;
    }
    snprintf(st.field, sizeof st.field, "%s", f.name);
    width = f.width;
    what = f.name;
  }
  if (!parse_value(ps, word(ps, 3, vbuf), col_of(ps, 3), width, true, what,
                   &st.value, &st.radix))
    return false;
  st.msr = m.addr;
  st.present = true;
  st.width = width;
  snprintf(st.msr_name, sizeof st.msr_name, "%s", m.name);
  {
    struct script_stmt *p = push(ps, SCRIPT_EXPECT_MSR);
    if (p)
      *p = st;
    return p != NULL;
  }
}

static bool parse_expect(struct parser *ps)
{
  unsigned c;

  if (ps->nw == 2 && word_is(ps, 1, "fault"))
    return parse_expect_fault(ps, true);
  if (ps->nw == 2 && word_is(ps, 1, "ok"))
    return parse_expect_fault(ps, false);
  if (word_is(ps, 1, "rdpmc"))
    return parse_expect_rdpmc(ps);
  if (word_is(ps, 1, "mem"))
    return parse_expect_mem(ps);
  if (ps->nw != 4 || !word_is(ps, 2, "=="))
    return expect_form_error(ps);
  if (word_is(ps, 1, "pmis"))
    return parse_expect_pmis(ps);
  for (c = 0; c < 3; c++)
    if (word_is(ps, 1, count_names[c]))
      return parse_expect_count(ps, (enum script_count)c);
  return parse_expect_msr(ps);
}

/* ---- lines --------------------------------------------------------------- */

static const struct {
  const char *name;
  bool (*parse)(struct parser *ps);
} keywords[] = {
    {"cpu", parse_cpu},
    {"lp", parse_lp},
    {"wrmsr", parse_wrmsr},
    {"host-wrmsr", parse_host_wrmsr},
    {"rdmsr", parse_rdmsr},
    {"rdpmc", parse_rdpmc},
    {"deliver", parse_deliver},
    {"signal", parse_signal},
    {"reset-pmis", parse_reset_pmis},
    {"memory", parse_memory},
    {"poke", parse_poke},
    {"state", parse_state},
    {"expect", parse_expect},
};
#define NKEYWORDS (sizeof(keywords) / sizeof(keywords[0]))

static void unknown_keyword(struct parser *ps)
{
  char buf[MAX_WORD + 1], near[256];
  struct nearest nb;
  size_t i;

  word(ps, 0, buf);
  nearest_init(&nb, buf);
  for (i = 0; i < NKEYWORDS; i++)
    nearest_offer(&nb, keywords[i].name);
  if (nearest_text(&nb, near, sizeof near))
    perr(ps, col_of(ps, 0), "unknown statement '%s'; did you mean %s?", buf,
         near);
  else
    perr(ps, col_of(ps, 0),
         "unknown statement '%s'; statements: cpu, lp, "
         "wrmsr, host-wrmsr, rdmsr, rdpmc, deliver, signal, reset-pmis, "
         "memory, poke, state, expect",
         buf);
}

/* One line of script text, p..end: a statement, its keyword first. */
static void parse_statement(struct parser *ps, const char *p, const char *end)
{
  size_t i;

  if (!split(ps, p, end) || ps->nw == 0)
    return;
  for (i = 0; i < NKEYWORDS && !word_is(ps, 0, keywords[i].name); i++)
    ;
  if (i == NKEYWORDS)
    unknown_keyword(ps);
  else
    keywords[i].parse(ps);
  ps->have_stmt = true;
}

int script_parse(struct script *s, const char *file, const char *text,
                 const char *cpu, const spmu_profile *given)
{
  struct parser ps;
  const char *p = text;

  memset(s, 0, sizeof(*s));
  memset(&ps, 0, sizeof ps);
  s->file = file;
  s->profile = *given;
  ps.s = s;
  ps.cpu_given = cpu != NULL;
  while (*p && !ps.stop && !ps.oom) {
    const char *nl = strchr(p, '\n');
    const char *end = nl ? nl : p + strlen(p);
    ps.line++;
    parse_statement(&ps, p, end);
    p = nl ? nl + 1 : end;
  }
  if (ps.oom) {
    cli_error("out of memory");
    return -1;
  }
  return (int)ps.errors;
}

void script_free(struct script *s)
{
  free(s->stmt);
  free(s->events);
  free(s->windows);
  free(s->states);
  s->stmt = NULL;
  s->events = NULL;
  s->windows = NULL;
  s->states = NULL;
  s->nstmt = s->nevents = s->nwindows = s->nstates = 0;
}

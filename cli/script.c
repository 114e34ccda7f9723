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
  return i < ps->nw && cli_ieq(word(ps, i, buf), lit);
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

  if (!cli_parse_u64(text + neg, &v)) {
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

  if (!cli_parse_u64(text, &v)) {
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
  if (n > max) {
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
  struct cli_nearest nb;
  size_t n, i;
  uint32_t *addrs = cli_msr_addrs(p, &n);

  buf[0] = '\0';
  if (!addrs)
    return;
  cli_nearest_init(&nb, name);
  for (i = 0; i < n; i++) {
    spmu_msr_info info;
    if (spmu_msr_info_get(p, addrs[i], &info) == SPMU_OK)
      cli_nearest_offer(&nb, info.name);
  }
  free(addrs);
  cli_nearest_text(&nb, buf, len);
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
    if (!cli_parse_u64(text, &v) || v > UINT32_MAX) {
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

/* Field `name` of MSR m, case-insensitive. */
static bool find_field(const spmu_profile *p, const spmu_msr_info *m,
                       const char *name, spmu_field_info *out)
{
  unsigned i;

  for (i = 0; i < m->nfields; i++)
    if (spmu_msr_field_get(p, m->addr, i, out) == SPMU_OK &&
        cli_ieq(out->name, name))
      return true;
  return false;
}

static void no_such_field(struct parser *ps, unsigned col,
                          const spmu_msr_info *m, const char *name)
{
  const spmu_profile *p = &ps->s->profile;
  struct cli_nearest nb;
  char list[1024] = "", near[256];
  size_t used = 0;
  unsigned i;

  cli_nearest_init(&nb, name);
  for (i = 0; i < m->nfields; i++) {
    spmu_field_info f;
    int n;
    if (spmu_msr_field_get(p, m->addr, i, &f) != SPMU_OK)
      continue;
    cli_nearest_offer(&nb, f.name);
    n = snprintf(list + used, sizeof list - used, "%s%s", used ? " " : "",
                 f.name);
    if (n > 0 && (size_t)n < sizeof list - used)
      used += (size_t)n;
  }
  if (cli_nearest_text(&nb, near, sizeof near))
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
  if (!find_field(&ps->s->profile, m, arg, &f)) {
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
  if (!cli_parse_u64(text, out) || *out > max) {
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

  if (cli_ieq(e->name, text))
    return true;
  for (; *a && *b; a++, b++) {
    char ca = *a == ' ' ? '-' : (char)tolower((unsigned char)*a);
    if (ca != tolower((unsigned char)*b))
      return false;
  }
  return *a == *b;
}

/* EVENT/UMASK or NAME, with an optional :COUNT, at word i. */
static bool parse_line(struct parser *ps, size_t i)
{
  char buf[MAX_WORD + 1];
  char *text = (char *)word(ps, i, buf), *colon = strchr(text, ':');
  char *slash = strchr(text, '/');
  unsigned col = col_of(ps, i);
  uint64_t count = 1, ev, um;
  size_t k;

  if (colon) {
    *colon = '\0';
    if (!cli_parse_u64(colon + 1, &count) || count > UINT32_MAX) {
      perr(ps, col + (unsigned)(colon - text) + 1,
           "'%s' is not a count of events in one clock (0 to %u)", colon + 1,
           UINT32_MAX);
      return false;
    }
  }
  if (slash) {
    *slash = '\0';
    if (!cli_parse_u64(text, &ev) || ev > 0xff) {
      perr(ps, col, "'%s' is not an event select (0-0xff)", text);
      return false;
    }
    if (!cli_parse_u64(slash + 1, &um) || um > 0xff) {
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
    struct cli_nearest nb;
    char near[256];
    cli_nearest_init(&nb, text);
    for (k = 0; k < cli_narch_events; k++)
      cli_nearest_offer(&nb, cli_arch_events[k].name);
    if (cli_nearest_text(&nb, near, sizeof near))
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

static bool parse_deliver(struct parser *ps)
{
  char buf[MAX_WORD + 1];
  struct script_stmt st = {.op = SCRIPT_DELIVER, .line = ps->line};
  bool seen_cpl = false, seen_x = false, ok = true;
  uint64_t cpl = 3;
  size_t i;

  st.first = ps->s->nevents;
  st.clocks = 1;
  for (i = 1; i < ps->nw && !ps->oom; i++) {
    word(ps, i, buf);
    if (cli_ieq(buf, "x")) {
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
    } else if (cli_ieq(buf, "tx")) {
      st.flags |= SPMU_CLK_IN_TX;
    } else if (cli_ieq(buf, "enclave")) {
      st.flags |= SPMU_CLK_ENCLAVE;
    } else if (cli_ieq(buf, "smm")) {
      st.flags |= SPMU_CLK_SMM;
    } else {
      ok = parse_line(ps, i) && ok;
    }
  }
  st.nlines = ps->s->nevents - st.first;
  st.cpl = (unsigned)cpl;
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
  for (i = 0; i < NSIGNALS && !cli_ieq(buf, signals[i].name); i++)
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

/* ---- expect -------------------------------------------------------------- */

static const char expect_forms[] =
    "expect MSR == VALUE, expect MSR.FIELD == VALUE, expect rdpmc ECX == "
    "VALUE, expect pmis == N, expect fault, expect ok";

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
    if (!find_field(&ps->s->profile, &m.info, dot + 1, &f)) {
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
  if (ps->nw == 2 && word_is(ps, 1, "fault"))
    return parse_expect_fault(ps, true);
  if (ps->nw == 2 && word_is(ps, 1, "ok"))
    return parse_expect_fault(ps, false);
  if (word_is(ps, 1, "rdpmc"))
    return parse_expect_rdpmc(ps);
  if (ps->nw != 4 || !word_is(ps, 2, "=="))
    return expect_form_error(ps);
  if (word_is(ps, 1, "pmis"))
    return parse_expect_pmis(ps);
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
    {"expect", parse_expect},
};
#define NKEYWORDS (sizeof(keywords) / sizeof(keywords[0]))

static void unknown_keyword(struct parser *ps)
{
  char buf[MAX_WORD + 1], near[256];
  struct cli_nearest nb;
  size_t i;

  word(ps, 0, buf);
  cli_nearest_init(&nb, buf);
  for (i = 0; i < NKEYWORDS; i++)
    cli_nearest_offer(&nb, keywords[i].name);
  if (cli_nearest_text(&nb, near, sizeof near))
    perr(ps, col_of(ps, 0), "unknown statement '%s'; did you mean %s?", buf,
         near);
  else
    perr(ps, col_of(ps, 0),
         "unknown statement '%s'; statements: cpu, lp, "
         "wrmsr, host-wrmsr, rdmsr, rdpmc, deliver, signal, reset-pmis, "
         "expect",
         buf);
}

static void parse_line_text(struct parser *ps, const char *p, const char *end)
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
    parse_line_text(&ps, p, end);
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
  s->stmt = NULL;
  s->events = NULL;
  s->nstmt = s->nevents = 0;
}

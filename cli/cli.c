/* SPDX-License-Identifier: MIT */
/* What the subcommands share: options, manuals, messages, numbers, and
 * finding an MSR by what the user typed. */
#include <ctype.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_dirs.h"

/* ---- messages ---------------------------------------------------------- */

static void verror(const char *fmt, va_list ap) CLI_PRINTF(1, 0);

static void verror(const char *fmt, va_list ap)
{
  fputs("softpmu: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
}

void cli_error(const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  verror(fmt, ap);
  va_end(ap);
}

int cli_usage_error(const struct cli_command *cmd, const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  verror(fmt, ap);
  va_end(ap);
  fprintf(stderr, "usage: softpmu %s %s\n", cmd->name, cmd->synopsis);
  return CLI_EXIT_USAGE;
}

void cli_say(const void *cmd, bool usage, const char *msg)
{
  const struct cli_command *c = cmd;

  if (usage)
    cli_usage_error(c, "%s: %s", c->name, msg);
  else
    cli_error("%s: %s", c->name, msg);
}

void cli_nearest_report(const struct nearest *nb)
{
  char text[4 * NEAREST_MAX * sizeof(nb->best[0].name)];

  if (nearest_text(nb, text, sizeof text))
    fprintf(stderr, "softpmu: did you mean %s?\n", text);
}

void cli_warn_deprecated_c(const char *cmd)
{
  cli_error("%s: warning: -c PROFILE is deprecated, write --cpu PROFILE "
            "(-c is record's period, as in perf)",
            cmd);
}

/* ---- the manual -------------------------------------------------------- */

/* The preset names as a list wrapped to fit the manual's text column. */
static void print_presets(FILE *out)
{
  const char *name, *next;
  unsigned i;
  size_t col = strlen("        Presets:");

  fputs("        Presets:", out);
  for (i = 0; (name = spmu_profile_preset_name(i)) != NULL; i++) {
    size_t len = 1 + strlen(name) + 1; /* " name," or " name." */
    next = spmu_profile_preset_name(i + 1);
    if (col + len > 76) {
      fputs("\n       ", out);
      col = 7;
    }
    fprintf(out, " %s%c", name, next ? ',' : '.');
    col += len;
  }
  fputc('\n', out);
}

static const char cpu_option[] =
    "    --cpu PROFILE\n"
    "        The processor to model: a preset name (or an alias such as skl\n"
    "        or spr) or a key=value profile such as\n"
    "        \"base=skylake,gp=8,threads=1\" (the keys are listed in\n"
    "        " CLI_DOCDIR "/profile.h). Default: " CLI_DEFAULT_PROFILE ", the\n"
    "        default of every softpmu command. -c PROFILE, its former\n"
    "        spelling, still works with a warning (deprecated: -c is\n"
    "        record's period, as in perf).\n";

static void print_common_options(FILE *out)
{
  fputs(cpu_option, out);
  print_presets(out);
  fputs("\n    -h, --help\n"
        "        Print this manual and exit.\n",
        out);
}

void cli_command_write_manual(FILE *out, const struct cli_command *cmd)
{
  fprintf(out, "NAME\n    softpmu %s - %s\n\n", cmd->name, cmd->summary);
  fprintf(out, "SYNOPSIS\n    softpmu %s %s\n\n", cmd->name, cmd->synopsis);
  fprintf(out, "DESCRIPTION\n%s\n", cmd->description);
  fputs("OPTIONS\n", out);
  if (cmd->options)
    fprintf(out, "%s\n", cmd->options);
  if (cmd->flags &
      (CLI_FLAG_CPU_NUMBER | CLI_FLAG_OWN_CPU_OPTION | CLI_FLAG_NO_PROFILE))
    fputs("    -h, --help\n"
          "        Print this manual and exit.\n",
          out);
  else
    print_common_options(out);
  fprintf(out, "\nEXIT STATUS\n%s\n", cmd->exit_status);
  fprintf(out, "EXAMPLES\n%s", cmd->examples);
}

void cli_command_manual(const struct cli_command *cmd)
{
  cli_command_write_manual(stdout, cmd);
}

/* ---- options ----------------------------------------------------------- */

enum {
  OPT_CPU = 0x100, /* --cpu; -c is 'c' */
  OPT_STRICT,
  OPT_FIELDS,
  OPT_ABSENT,
  OPT_JSON,
  OPT_SVG,
  OPT_MSR_FILE,
  OPT_CPUID_FILE
};

static const struct option long_options[] = {
    {"cpu", required_argument, NULL, OPT_CPU},
    {"cpu-num", required_argument, NULL, 'C'},
    {"help", no_argument, NULL, 'h'},
    {"strict", no_argument, NULL, OPT_STRICT},
    {"fields", no_argument, NULL, OPT_FIELDS},
    {"absent", no_argument, NULL, OPT_ABSENT},
    {"json", no_argument, NULL, OPT_JSON},
    {"svg", required_argument, NULL, OPT_SVG},
    {"msr-file", required_argument, NULL, OPT_MSR_FILE},
    {"cpuid-file", required_argument, NULL, OPT_CPUID_FILE},
    {NULL, 0, NULL, 0},
};

/* The enum cli_flag an option stands for, 0 if none. */
static unsigned option_flag(int opt)
{
  switch (opt) {
  case OPT_STRICT:
    return CLI_FLAG_STRICT;
  case OPT_FIELDS:
    return CLI_FLAG_FIELDS;
  case OPT_ABSENT:
    return CLI_FLAG_ABSENT;
  case OPT_JSON:
    return CLI_FLAG_JSON;
  case OPT_SVG:
    return CLI_FLAG_SVG;
  case OPT_MSR_FILE:
    return CLI_FLAG_FILES;
  case OPT_CPUID_FILE:
    return CLI_FLAG_FILES;
  default:
    return 0;
  }
}

/* The long name of option opt. */
static const char *option_name(int opt)
{
  const struct option *o;

  for (o = long_options; o->name; o++)
    if (o->val == opt)
      return o->name;
  return "?";
}

struct parsed {
  const char *cpu;     /* NULL: not given */
  bool cpu_short;      /* given as -c, the deprecated spelling */
  const char *cpu_num; /* -C/--cpu-num; NULL: not given */
  const char *svg;
  const char *msr_file, *cpuid_file;
  unsigned flags;
  bool help;
};

static int bad_option(const struct cli_command *cmd, int opt, const char *arg)
{
  if (opt == ':')
    return cli_usage_error(cmd, "%s: option '%s' needs a value", cmd->name,
                           arg);
  return cli_usage_error(cmd, "%s: unknown option '%s'", cmd->name, arg);
}

/* Options of argv into *o; on return optind is the first positional. */
static int parse_options(const struct cli_command *cmd, int argc, char **argv,
                         struct parsed *o)
{
  int opt;

  opterr = 0;
  optind = 1;
  while ((opt = getopt_long(argc, argv, ":c:C:h", long_options, NULL)) != -1) {
    unsigned flag = option_flag(opt);

    if (opt == 'c' || opt == OPT_CPU) {
      o->cpu = optarg;
      o->cpu_short = opt == 'c';
    } else if (opt == 'C' && (cmd->flags & CLI_FLAG_CPU_NUMBER))
      o->cpu_num = optarg;
    else if (opt == 'C')
      return bad_option(cmd, opt, "-C");
    else if (opt == 'h')
      o->help = true;
    else if (flag && (cmd->flags & flag)) {
      o->flags |= flag;
      if (opt == OPT_SVG)
        o->svg = optarg;
      else if (opt == OPT_MSR_FILE)
        o->msr_file = optarg;
      else if (opt == OPT_CPUID_FILE)
        o->cpuid_file = optarg;
    } else if (flag) {
      /* A known option of another command; with its value consumed,
       * argv[optind - 1] would be the value. */
      char name[32];
      snprintf(name, sizeof name, "--%s", option_name(opt));
      return bad_option(cmd, opt, name);
    } else
      return bad_option(cmd, opt, argv[optind - 1]);
  }
  return CLI_EXIT_OK;
}

/* The preset name a profile string asks for: the string itself, or the
 * value of a leading base= (profile.h); "" if it names none. */
static void preset_word(const char *spec, char *buf, size_t len)
{
  size_t n;

  spec += strspn(spec, ", \t\n");
  if (strncmp(spec, "base=", 5) == 0)
    spec += 5;
  else if (strchr(spec, '='))
    spec = "";
  n = strcspn(spec, ", \t\n");
  snprintf(buf, len, "%.*s", (int)n, spec);
}

/* A misspelt preset: the presets nearest to it, as for MSR and event
 * names. */
static void suggest_preset(const char *spec)
{
  struct nearest nb;
  char word[64];
  const char *name;
  unsigned i;

  preset_word(spec, word, sizeof word);
  nearest_init(&nb, word);
  for (i = 0; (name = spmu_profile_preset_name(i)) != NULL; i++)
    nearest_offer(&nb, name);
  cli_nearest_report(&nb);
}

static int load_profile(const char *spec, spmu_profile *p)
{
  char why[512] = "";
  int rc = spmu_profile_parse(spec, p, why, sizeof why);

  if (rc == SPMU_OK)
    return CLI_EXIT_OK;
  cli_error("%s", why[0] ? why : spmu_strerror(rc));
  if (rc == SPMU_ENOENT)
    suggest_preset(spec);
  return CLI_EXIT_USAGE;
}

int cli_command_main(const struct cli_command *cmd, int argc, char **argv)
{
  struct parsed o = {.cpu = NULL};
  struct cli_args a;
  int rc;

  rc = parse_options(cmd, argc, argv, &o);
  if (rc != CLI_EXIT_OK)
    return rc;
  if (o.help) {
    cli_command_manual(cmd);
    return CLI_EXIT_OK;
  }
  if (o.cpu && (cmd->flags & CLI_FLAG_CPU_NUMBER))
    return cli_usage_error(cmd,
                           "%s: %s names a profile, and %s reads this "
                           "machine; its CPU number is -C N (--cpu-num N); "
                           "`softpmu cpuid --cpu PROFILE` describes a "
                           "modelled one",
                           cmd->name, o.cpu_short ? "-c" : "--cpu", cmd->name);
  if (o.cpu_short)
    cli_warn_deprecated_c(cmd->name);
  memset(&a, 0, sizeof a);
  a.cpu = o.cpu;
  a.cpu_num = o.cpu_num;
  a.flags = o.flags;
  a.svg = o.svg;
  a.msr_file = o.msr_file;
  a.cpuid_file = o.cpuid_file;
  a.argc = argc - optind;
  a.argv = argv + optind;
  if (a.argc < cmd->min_args)
    return cli_usage_error(cmd, "%s: missing argument", cmd->name);
  if (cmd->max_args >= 0 && a.argc > cmd->max_args)
    return cli_usage_error(cmd, "%s: unexpected argument '%s'", cmd->name,
                           a.argv[cmd->max_args]);
  if (!(cmd->flags & CLI_FLAG_CPU_NUMBER)) {
    rc = load_profile(o.cpu ? o.cpu : CLI_DEFAULT_PROFILE, &a.profile);
    if (rc != CLI_EXIT_OK)
      return rc;
  }
  return cmd->run(&a);
}

/* ---- numbers and names ------------------------------------------------- */

bool cli_attached_option(const char *a, bool (*takes_value)(const char *opt),
                         char *opt, size_t len, const char **val)
{
  const char *eq = strchr(a, '=');

  if (a[0] != '-')
    return false;
  if (a[1] != '-' && a[1] && a[2]) {
    snprintf(opt, len, "-%c", a[1]);
    *val = a + 2;
  } else if (a[1] == '-' && eq && (size_t)(eq - a) < len) {
    snprintf(opt, len, "%.*s", (int)(eq - a), a);
    *val = eq + 1;
  } else {
    return false;
  }
  return takes_value(opt);
}

int cli_regs_open(struct cli_regs *r, const spmu_profile *p)
{
  int rc = spmu_regview_new(p, &r->view);

  r->p = p;
  if (rc != SPMU_OK) {
    cli_error("profile %s: %s", p->name, spmu_strerror(rc));
    return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
}

void cli_regs_close(struct cli_regs *r)
{
  spmu_regview_free(r->view);
  r->view = NULL;
}

uint32_t *cli_msr_addrs(const spmu_profile *p, size_t *n)
{
  uint32_t *addrs;

  *n = spmu_msr_list(p, NULL, 0);
  addrs = malloc((*n ? *n : 1) * sizeof(*addrs));
  if (!addrs) {
    cli_error("out of memory");
    return NULL;
  }
  *n = spmu_msr_list(p, addrs, *n);
  return addrs;
}

void cli_bits_text(uint64_t mask, char *buf, size_t len)
{
  unsigned lo = 0, hi;
  size_t used = 0;
  int n;

  buf[0] = '\0';
  while (lo < 64) {
    if (!(mask >> lo & 1)) {
      lo++;
      continue;
    }
    for (hi = lo; hi < 63 && (mask >> (hi + 1) & 1); hi++)
      ;
    n = snprintf(buf + used, len - used, hi == lo ? "%s%u" : "%s%u-%u",
                 used ? ", " : "", lo, hi);
    if (n < 0 || (size_t)n >= len - used)
      return;
    used += (size_t)n;
    lo = hi + 1;
  }
}

void cli_json_string(const char *s)
{
  putchar('"');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      printf("\\%c", c);
    else if (c < 0x20)
      printf("\\u%04x", c);
    else
      putchar(c);
  }
  putchar('"');
}

/* ---- the fields of a value --------------------------------------------- */

/* One set field, formatted for printing. */
struct row {
  char bits[8]; /* "63" or "31:24" */
  char name[40];
  char value[24]; /* "1" for a single bit, else hex */
  char brief[96];
};

static uint64_t field_mask(unsigned lsb, unsigned width)
{
  uint64_t ones = width >= 64 ? UINT64_MAX : (UINT64_C(1) << width) - 1;
  return ones << lsb;
}

static void row_fill(struct row *r, const spmu_field_info *f, uint64_t v)
{
  if (f->width == 1)
    snprintf(r->bits, sizeof r->bits, "%u", f->lsb);
  else
    snprintf(r->bits, sizeof r->bits, "%u:%u", f->lsb + f->width - 1, f->lsb);
  snprintf(r->name, sizeof r->name, "%s", f->name);
  if (f->width == 1)
    snprintf(r->value, sizeof r->value, "1");
  else
    snprintf(r->value, sizeof r->value, "0x%" PRIx64, v);
  snprintf(r->brief, sizeof r->brief, "%s", f->brief);
}

/* The fields of m that are not zero in value, in bit order; *covered gets
 * the bits of every field of m. Returns how many rows were filled. */
static size_t collect_rows(const struct cli_regs *r, const spmu_msr_info *m,
                           uint64_t value, struct row rows[64],
                           uint64_t *covered)
{
  size_t n = 0;
  unsigned i;

  *covered = 0;
  for (i = 0; i < m->nfields && n < 64; i++) {
    spmu_field_info f;
    uint64_t v;

    if (spmu_regview_field_get(r->view, m->addr, i, &f) != SPMU_OK ||
        spmu_regview_field_decode(r->view, m->addr, f.name, value, &v) !=
            SPMU_OK)
      continue;
    *covered |= field_mask(f.lsb, f.width);
    if (v != 0)
      row_fill(&rows[n++], &f, v);
  }
  return n;
}

static void print_rows(const struct row *rows, size_t n, int indent)
{
  int wname = 0, wvalue = 0;
  size_t i;

  for (i = 0; i < n; i++) {
    if ((int)strlen(rows[i].name) > wname)
      wname = (int)strlen(rows[i].name);
    if ((int)strlen(rows[i].value) > wvalue)
      wvalue = (int)strlen(rows[i].value);
  }
  for (i = 0; i < n; i++)
    printf("%*s%5s  %-*s  %-*s  %s\n", indent, "", rows[i].bits, wname,
           rows[i].name, wvalue, rows[i].value, rows[i].brief);
}

/* Report set bits that are reserved or that no field describes. Returns
 * true if reserved bits are set. */
static bool print_leftovers(const struct cli_regs *r, const spmu_msr_info *m,
                            uint64_t value, uint64_t covered, int indent)
{
  uint64_t rsvd = value & m->reserved;
  uint64_t other = value & ~m->reserved & ~covered;
  char bits[256];

  if (rsvd) {
    cli_bits_text(rsvd, bits, sizeof bits);
    printf("%*sreserved bits set: %s %s (0x%" PRIx64 "), reserved in profile "
           "%s\n",
           indent, "", rsvd & (rsvd - 1) ? "bits" : "bit", bits, rsvd,
           r->p->name);
  }
  if (other) {
    cli_bits_text(other, bits, sizeof bits);
    printf("%*sother bits set: %s %s (0x%" PRIx64 "), in no field and not "
           "reserved\n",
           indent, "", other & (other - 1) ? "bits" : "bit", bits, other);
  }
  return rsvd != 0;
}

bool cli_print_fields(const struct cli_regs *r, const spmu_msr_info *m,
                      uint64_t value, int row_indent, int note_indent,
                      bool none_line)
{
  struct row rows[64];
  uint64_t covered;
  size_t n = collect_rows(r, m, value, rows, &covered);

  if (n == 0 && none_line)
    printf("%*sno field is set\n", row_indent, "");
  print_rows(rows, n, row_indent);
  return print_leftovers(r, m, value, covered, note_indent);
}

void cli_fields_text(const struct cli_regs *r, const spmu_msr_info *m,
                     uint64_t value, char *buf, size_t len)
{
  size_t used = 0;
  unsigned i;

  buf[0] = '\0';
  for (i = 0; i < m->nfields; i++) {
    spmu_field_info f;
    uint64_t v;
    int n;

    if (spmu_regview_field_get(r->view, m->addr, i, &f) != SPMU_OK ||
        spmu_regview_field_decode(r->view, m->addr, f.name, value, &v) !=
            SPMU_OK ||
        v == 0)
      continue;
    if (f.width == 1)
      n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", f.name);
    else
      n = snprintf(buf + used, len - used, "%s%s=0x%" PRIx64, used ? ", " : "",
                   f.name, v);
    if (n < 0 || (size_t)n >= len - used)
      return;
    used += (size_t)n;
  }
}

/* ---- finding an MSR ---------------------------------------------------- */

static bool is_number(const char *arg)
{
  return isdigit((unsigned char)arg[0]);
}

/* The address of arg (a name or a number) in view's profile: SPMU_OK,
 * SPMU_ENOMSR (known, absent from it), SPMU_ENOENT (unknown name) or
 * SPMU_EINVAL (not a number). */
static int find_addr(const spmu_regview *view, const char *arg, uint32_t *addr)
{
  spmu_msr_info info;
  uint64_t v;

  if (!is_number(arg))
    return spmu_regview_lookup(view, arg, addr);
  if (!text_parse_u64(arg, &v) || v > UINT32_MAX)
    return SPMU_EINVAL;
  *addr = (uint32_t)v;
  return spmu_regview_info(view, *addr, &info);
}

void cli_presets_where(bool (*has)(const spmu_profile *p, const void *ctx),
                       const void *ctx, char *buf, size_t len)
{
  const char *name;
  unsigned i;
  size_t used = 0;

  buf[0] = '\0';
  for (i = 0; (name = spmu_profile_preset_name(i)) != NULL; i++) {
    spmu_profile p;
    int n;

    if (spmu_profile_parse(name, &p, NULL, 0) != SPMU_OK || !has(&p, ctx))
      continue;
    n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", name);
    if (n < 0 || (size_t)n >= len - used)
      break;
    used += (size_t)n;
  }
}

static bool has_msr(const spmu_profile *p, const void *arg)
{
  spmu_regview *view;
  uint32_t addr;
  bool has;

  if (spmu_regview_new(p, &view) != SPMU_OK)
    return false;
  has = find_addr(view, arg, &addr) == SPMU_OK;
  spmu_regview_free(view);
  return has;
}

void cli_presets_with(const char *arg, char *buf, size_t len)
{
  cli_presets_where(has_msr, arg, buf, len);
}

static int absent_msr(const struct cli_regs *r, const char *arg)
{
  char have[256];

  cli_presets_with(arg, have, sizeof have);
  if (have[0])
    cli_error("%s%s is not present in profile %s; presets that have it: %s",
              is_number(arg) ? "MSR " : "", arg, r->p->name, have);
  else
    cli_error("%s%s is not present in profile %s", is_number(arg) ? "MSR " : "",
              arg, r->p->name);
  return CLI_EXIT_USAGE;
}

static int unknown_msr(const struct cli_regs *r, const char *arg)
{
  struct nearest nb;
  spmu_msr_info info;
  uint32_t *addrs;
  size_t n, i;

  cli_error("unknown MSR '%s'", arg);
  addrs = cli_msr_addrs(r->p, &n);
  if (!addrs)
    return CLI_EXIT_USAGE;
  nearest_init(&nb, arg);
  for (i = 0; i < n; i++)
    if (spmu_regview_info(r->view, addrs[i], &info) == SPMU_OK)
      nearest_offer(&nb, info.name);
  free(addrs);
  cli_nearest_report(&nb);
  return CLI_EXIT_USAGE;
}

int cli_msr_resolve(const struct cli_regs *r, const char *arg,
                    spmu_msr_info *out)
{
  uint32_t addr;
  int rc = find_addr(r->view, arg, &addr);

  if (rc == SPMU_ENOMSR)
    return absent_msr(r, arg);
  if (rc == SPMU_ENOENT)
    return unknown_msr(r, arg);
  if (rc == SPMU_EINVAL) {
    cli_error("'%s' is not an MSR number (0x-prefixed hex or decimal)", arg);
    return CLI_EXIT_USAGE;
  }
  rc = spmu_regview_info(r->view, addr, out);
  if (rc != SPMU_OK) {
    cli_error("%s: %s", arg, spmu_strerror(rc));
    return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
}

void cli_json_list(const char *text)
{
  char buf[512], *p = buf, *comma;

  snprintf(buf, sizeof buf, "%s", text);
  putchar('[');
  while (*p) {
    comma = strstr(p, ", ");
    if (comma)
      *comma = '\0';
    if (p != buf)
      putchar(',');
    cli_json_string(p);
    p = comma ? comma + 2 : p + strlen(p);
  }
  putchar(']');
}

bool cli_field_by_name(const spmu_profile *p, const spmu_msr_info *m,
                       const char *name, spmu_field_info *out)
{
  unsigned i;

  for (i = 0; i < m->nfields; i++)
    if (spmu_msr_field_get(p, m->addr, i, out) == SPMU_OK &&
        text_ieq(out->name, name))
      return true;
  return false;
}

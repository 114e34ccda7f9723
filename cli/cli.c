/* What the subcommands share: options, manuals, messages, numbers, and
 * finding an MSR by what the user typed. */
#include <ctype.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

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

/* ---- the manual -------------------------------------------------------- */

/* The preset names as a list wrapped to fit the manual's text column. */
static void print_presets(void)
{
  const char *name, *next;
  unsigned i;
  size_t col = strlen("        Presets:");

  fputs("        Presets:", stdout);
  for (i = 0; (name = spmu_profile_preset_name(i)) != NULL; i++) {
    size_t len = 1 + strlen(name) + 1; /* " name," or " name." */
    next = spmu_profile_preset_name(i + 1);
    if (col + len > 76) {
      fputs("\n       ", stdout);
      col = 7;
    }
    printf(" %s%c", name, next ? ',' : '.');
    col += len;
  }
  putchar('\n');
}

static const char cpu_option[] =
  "    -c, --cpu PROFILE\n"
  "        The processor to model: a preset name (or an alias such as skl\n"
  "        or spr) or a key=value profile such as\n"
  "        \"base=skylake,gp=8,threads=1\" (the keys are listed in\n"
  "        include/softpmu/profile.h). Default: " CLI_DEFAULT_PROFILE ",\n"
  "        the newest preset, which has every register layout softpmu\n"
  "        models.\n";

static void print_common_options(void)
{
  fputs(cpu_option, stdout);
  print_presets();
  fputs("\n    -h, --help\n"
        "        Print this manual and exit.\n",
        stdout);
}

void cli_command_manual(const struct cli_command *cmd)
{
  printf("NAME\n    softpmu %s - %s\n\n", cmd->name, cmd->summary);
  printf("SYNOPSIS\n    softpmu %s %s\n\n", cmd->name, cmd->synopsis);
  printf("DESCRIPTION\n%s\n", cmd->description);
  fputs("OPTIONS\n", stdout);
  if (cmd->options)
    printf("%s\n", cmd->options);
  print_common_options();
  printf("\nEXIT STATUS\n%s\n", cmd->exit_status);
  printf("EXAMPLES\n%s", cmd->examples);
}

/* ---- options ----------------------------------------------------------- */

enum { OPT_STRICT = 0x100, OPT_FIELDS, OPT_JSON, OPT_SVG };

static const struct option long_options[] = {
  {"cpu", required_argument, NULL, 'c'},
  {"help", no_argument, NULL, 'h'},
  {"strict", no_argument, NULL, OPT_STRICT},
  {"fields", no_argument, NULL, OPT_FIELDS},
  {"json", no_argument, NULL, OPT_JSON},
  {"svg", required_argument, NULL, OPT_SVG},
  {NULL, 0, NULL, 0},
};

/* The enum cli_flag an option stands for, 0 if none. */
static unsigned option_flag(int opt)
{
  switch (opt) {
  case OPT_STRICT: return CLI_FLAG_STRICT;
  case OPT_FIELDS: return CLI_FLAG_FIELDS;
  case OPT_JSON: return CLI_FLAG_JSON;
  case OPT_SVG: return CLI_FLAG_SVG;
  default: return 0;
  }
}

struct parsed {
  const char *cpu; /* NULL: not given */
  const char *svg;
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
  while ((opt = getopt_long(argc, argv, ":c:h", long_options, NULL)) != -1) {
    unsigned flag = option_flag(opt);

    if (opt == 'c')
      o->cpu = optarg;
    else if (opt == 'h')
      o->help = true;
    else if (flag && (cmd->flags & flag)) {
      o->flags |= flag;
      if (opt == OPT_SVG)
        o->svg = optarg;
    } else
      return bad_option(cmd, opt, argv[optind - 1]);
  }
  return CLI_EXIT_OK;
}

static int load_profile(const char *spec, spmu_profile *p)
{
  char why[512] = "";
  int rc = spmu_profile_parse(spec, p, why, sizeof why);

  if (rc == SPMU_OK)
    return CLI_EXIT_OK;
  cli_error("%s", why[0] ? why : spmu_strerror(rc));
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
  memset(&a, 0, sizeof a);
  a.cpu = o.cpu;
  a.flags = o.flags;
  a.svg = o.svg;
  a.argc = argc - optind;
  a.argv = argv + optind;
  if (a.argc < cmd->min_args)
    return cli_usage_error(cmd, "%s: missing argument", cmd->name);
  if (cmd->max_args >= 0 && a.argc > cmd->max_args)
    return cli_usage_error(cmd, "%s: unexpected argument '%s'", cmd->name,
                           a.argv[cmd->max_args]);
  rc = load_profile(o.cpu ? o.cpu : CLI_DEFAULT_PROFILE, &a.profile);
  if (rc != CLI_EXIT_OK)
    return rc;
  return cmd->run(&a);
}

/* ---- numbers and names ------------------------------------------------- */

/* The value of a digit in bases up to 16; 16 for anything else. */
static unsigned digit_value(char c)
{
  if (c >= '0' && c <= '9')
    return (unsigned)(c - '0');
  if (c >= 'a' && c <= 'f')
    return (unsigned)(c - 'a' + 10);
  if (c >= 'A' && c <= 'F')
    return (unsigned)(c - 'A' + 10);
  return 16;
}

bool cli_parse_u64(const char *s, uint64_t *out)
{
  unsigned base = 10;
  uint64_t v = 0;

  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s += 2;
  }
  if (*s == '\0')
    return false;
  for (; *s; s++) {
    unsigned d = digit_value(*s);
    if (d >= base || v > (UINT64_MAX - d) / base)
      return false;
    v = v * base + d;
  }
  *out = v;
  return true;
}

bool cli_ieq(const char *a, const char *b)
{
  for (; *a && *b; a++, b++)
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
      return false;
  return *a == *b;
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

/* ---- finding an MSR ---------------------------------------------------- */

static bool is_number(const char *arg)
{
  return isdigit((unsigned char)arg[0]);
}

/* The address of arg (a name or a number) in p: SPMU_OK, SPMU_ENOMSR
 * (known, absent from p), SPMU_ENOENT (unknown name) or SPMU_EINVAL (not a
 * number). */
static int find_addr(const spmu_profile *p, const char *arg, uint32_t *addr)
{
  spmu_msr_info info;
  uint64_t v;

  if (!is_number(arg))
    return spmu_msr_lookup(p, arg, addr);
  if (!cli_parse_u64(arg, &v) || v > UINT32_MAX)
    return SPMU_EINVAL;
  *addr = (uint32_t)v;
  return spmu_msr_info_get(p, *addr, &info);
}

void cli_presets_with(const char *arg, char *buf, size_t len)
{
  const char *name;
  unsigned i;
  size_t used = 0;

  buf[0] = '\0';
  for (i = 0; (name = spmu_profile_preset_name(i)) != NULL; i++) {
    spmu_profile p;
    uint32_t addr;
    int n;

    if (spmu_profile_parse(name, &p, NULL, 0) != SPMU_OK ||
        find_addr(&p, arg, &addr) != SPMU_OK)
      continue;
    n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", name);
    if (n < 0 || (size_t)n >= len - used)
      break;
    used += (size_t)n;
  }
}

static int absent_msr(const spmu_profile *p, const char *arg)
{
  char have[256];

  cli_presets_with(arg, have, sizeof have);
  if (have[0])
    cli_error("%s%s is not present in profile %s; presets that have it: %s",
              is_number(arg) ? "MSR " : "", arg, p->name, have);
  else
    cli_error("%s%s is not present in profile %s", is_number(arg) ? "MSR " : "",
              arg, p->name);
  return CLI_EXIT_USAGE;
}

static int unknown_msr(const spmu_profile *p, const char *arg)
{
  struct cli_nearest nb;
  spmu_msr_info info;
  uint32_t *addrs;
  size_t n, i;

  cli_error("unknown MSR '%s'", arg);
  addrs = cli_msr_addrs(p, &n);
  if (!addrs)
    return CLI_EXIT_USAGE;
  cli_nearest_init(&nb, arg);
  for (i = 0; i < n; i++)
    if (spmu_msr_info_get(p, addrs[i], &info) == SPMU_OK)
      cli_nearest_offer(&nb, info.name);
  free(addrs);
  cli_nearest_report(&nb);
  return CLI_EXIT_USAGE;
}

int cli_msr_resolve(const spmu_profile *p, const char *arg, spmu_msr_info *out)
{
  uint32_t addr;
  int rc = find_addr(p, arg, &addr);

  if (rc == SPMU_ENOMSR)
    return absent_msr(p, arg);
  if (rc == SPMU_ENOENT)
    return unknown_msr(p, arg);
  if (rc == SPMU_EINVAL) {
    cli_error("'%s' is not an MSR number (0x-prefixed hex or decimal)", arg);
    return CLI_EXIT_USAGE;
  }
  rc = spmu_msr_info_get(p, addr, out);
  if (rc != SPMU_OK) {
    cli_error("%s: %s", arg, spmu_strerror(rc));
    return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
}

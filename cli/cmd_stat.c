/* softpmu stat: run a program under qemu-x86_64 with the softpmu QEMU
 * plugin (frontends/qemu) and print the counts of its events in perf
 * stat's layout.
 *
 * The parts: parse the command line (stat_parse_*), resolve each event
 * name to a raw IA32_PERFEVTSELx value (stat_resolve_event), find qemu,
 * the plugin and the program, run them (stat_run), read the plugin's
 * results file (stat_read_results) and print (stat_print_*). */
#define _GNU_SOURCE /* mkstemp, strdup */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define STAT_MAX_EVENTS 32
#define STAT_DEFAULT_PROFILE "skylake"
#define STAT_EXIT_NOT_FOUND 127 /* as a shell does */
#define STAT_EXIT_NOT_EXEC 126

/* PERFEVTSEL bits (SDM Vol. 3B 18.2.1.1, Figure 18-6). */
#define EVTSEL_USR (UINT64_C(1) << 16)
#define EVTSEL_OS (UINT64_C(1) << 17)

struct stat_event {
  const char *name; /* as the user wrote it */
  uint64_t evtsel;  /* raw PERFEVTSEL value passed to the plugin */
  bool supported;   /* the engine produces it */
  int index;        /* position among the plugin's event= arguments */
  bool counted;     /* a result came back */
  uint64_t count;
};

struct stat_opts {
  const char *profile_name;
  spmu_profile profile;
  const char *out;
  char *event_lists[STAT_MAX_EVENTS];
  unsigned nlists;
  struct stat_event ev[STAT_MAX_EVENTS];
  unsigned nev;
  char **prog_argv; /* the program and its arguments */
  bool execve;      /* a process called execve (not counted after it) */
};

/* ---- event names ---------------------------------------------------------
 * The (event, umask) lines the engine produces (frontends/qemu/README.md):
 * Skylake's encodings (SDM Vol. 3B chapter 19, Table 19-3). */
static const uint16_t produced[] = {
    0x00c0, 0x00c4, 0x01c4, 0x02c4, 0x08c4, 0x20c4, 0x40c4, 0x81d0, 0x82d0,
};

static bool stat_engine_produces(uint64_t evtsel)
{
  size_t i;

  for (i = 0; i < sizeof(produced) / sizeof(produced[0]); i++)
    if ((evtsel & 0xffff) == produced[i])
      return true;
  return false;
}

/* perf's generic names this engine cannot produce: printed
 * <not supported>, never made up. */
static const char *const unsupported_names[] = {
    "cycles",
    "cpu-cycles",
    "ref-cycles",
    "bus-cycles",
    "cache-references",
    "cache-misses",
    "branch-misses",
    "stalled-cycles-frontend",
    "stalled-cycles-backend",
};

/* "rUUEE" as perf reads it: umask UU, event EE (r00c0 = C0H/00H); the
 * bits above 15 of perf's raw config are PERFEVTSEL's (CMASK, INV, edge),
 * not taken yet. */
static bool stat_parse_raw(const char *s, uint64_t *evtsel)
{
  char *end;
  unsigned long long v;

  if (s[0] != 'r' || !s[1] || strlen(s) > 17)
    return false;
  errno = 0;
  v = strtoull(s + 1, &end, 16);
  if (errno || *end || v > 0xffff)
    return false;
  *evtsel = v;
  return true;
}

/* Split off ":u" / ":k" / ":uk"; false for another modifier. */
static bool stat_parse_modifier(char *name, uint64_t *priv)
{
  char *colon = strrchr(name, ':');
  const char *m;

  *priv = EVTSEL_USR | EVTSEL_OS;
  if (!colon)
    return true;
  *priv = 0;
  for (m = colon + 1; *m; m++) {
    if (*m == 'u')
      *priv |= EVTSEL_USR;
    else if (*m == 'k')
      *priv |= EVTSEL_OS;
    else
      return false;
  }
  *colon = '\0';
  return *priv != 0;
}

static int stat_resolve_event(struct stat_event *e)
{
  char base[64];
  uint64_t priv, sel = 0;
  size_t i;

  if (strlen(e->name) >= sizeof(base) || !e->name[0])
    return cli_usage_error(&cli_cmd_stat, "stat: bad event '%s'", e->name);
  strcpy(base, e->name);
  if (!stat_parse_modifier(base, &priv))
    return cli_usage_error(
        &cli_cmd_stat, "stat: event '%s': modifiers are :u and :k", e->name);
  if (cli_ieq(base, "instructions"))
    sel = 0x00c0;
  else if (cli_ieq(base, "branches") || cli_ieq(base, "branch-instructions"))
    sel = 0x00c4;
  else if (!stat_parse_raw(base, &sel)) {
    for (i = 0; i < sizeof(unsupported_names) / sizeof(unsupported_names[0]);
         i++)
      if (cli_ieq(base, unsupported_names[i])) {
        e->supported = false;
        return CLI_EXIT_OK;
      }
    return cli_usage_error(&cli_cmd_stat,
                           "stat: unknown event '%s' (instructions, branches, "
                           "branch-instructions or rUUEE)",
                           e->name);
  }
  e->evtsel = sel | priv;
  e->supported = stat_engine_produces(sel);
  return CLI_EXIT_OK;
}

static int stat_add_events(struct stat_opts *o, char *list)
{
  char *save = NULL, *tok;
  int rc;

  for (tok = strtok_r(list, ",", &save); tok;
       tok = strtok_r(NULL, ",", &save)) {
    struct stat_event *e;

    if (o->nev == STAT_MAX_EVENTS)
      return cli_usage_error(&cli_cmd_stat, "stat: at most %d events",
                             STAT_MAX_EVENTS);
    e = &o->ev[o->nev++];
    *e = (struct stat_event){.name = tok, .index = -1};
    if ((rc = stat_resolve_event(e)) != CLI_EXIT_OK)
      return rc;
  }
  return CLI_EXIT_OK;
}

/* ---- the command line ---------------------------------------------------- */

static int stat_option_value(int argc, char **argv, int *i, const char **val)
{
  if (*i + 1 >= argc)
    return cli_usage_error(&cli_cmd_stat, "stat: %s needs a value", argv[*i]);
  *val = argv[++*i];
  return CLI_EXIT_OK;
}

static int stat_parse_args(int argc, char **argv, struct stat_opts *o)
{
  int i, rc;
  const char *val = NULL;

  for (i = 1; i < argc && argv[i][0] == '-'; i++) {
    const char *a = argv[i];

    if (strcmp(a, "--") == 0) {
      i++;
      break;
    }
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      cli_command_manual(&cli_cmd_stat);
      return -1;
    }
    if (strcmp(a, "-c") && strcmp(a, "--cpu") && strcmp(a, "-e") &&
        strcmp(a, "--event") && strcmp(a, "-o") && strcmp(a, "--output"))
      return cli_usage_error(&cli_cmd_stat, "stat: unknown option '%s'", a);
    if ((rc = stat_option_value(argc, argv, &i, &val)) != CLI_EXIT_OK)
      return rc;
    if (a[1] == 'c' || a[2] == 'c')
      o->profile_name = val;
    else if (a[1] == 'o' || a[2] == 'o')
      o->out = val;
    else if (o->nlists < STAT_MAX_EVENTS)
      o->event_lists[o->nlists++] = (char *)val;
  }
  if (i >= argc)
    return cli_usage_error(&cli_cmd_stat, "stat: no program to run");
  o->prog_argv = argv + i;
  return CLI_EXIT_OK;
}

static int stat_setup(struct stat_opts *o)
{
  char why[256];
  unsigned l;
  int rc;
  static char default_events[] = "instructions,branches";

  if (strpbrk(o->profile_name, "=, "))
    return cli_usage_error(&cli_cmd_stat,
                           "stat: --cpu %s: stat takes a preset name, not a "
                           "key=value profile",
                           o->profile_name);
  if (spmu_profile_parse(o->profile_name, &o->profile, why, sizeof(why)) != 0)
    return cli_usage_error(&cli_cmd_stat, "stat: --cpu %s: %s", o->profile_name,
                           why);
  if (o->profile.features & SPMU_FEAT_NETBURST)
    return cli_usage_error(&cli_cmd_stat,
                           "stat: --cpu %s: a NetBurst PMU; stat counts on "
                           "architectural PMUs",
                           o->profile_name);
  if (o->nlists == 0)
    o->event_lists[o->nlists++] = default_events;
  for (l = 0; l < o->nlists; l++)
    if ((rc = stat_add_events(o, o->event_lists[l])) != CLI_EXIT_OK)
      return rc;
  return CLI_EXIT_OK;
}

/* ---- finding qemu, the plugin and the program --------------------------- */

static bool stat_is_exec(const char *path)
{
  struct stat st;

  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* The first PATH directory holding an executable `name`, into buf. */
static bool stat_search_path(const char *name, char *buf, size_t len)
{
  const char *path = getenv("PATH"), *p;

  if (!path)
    path = "/usr/local/bin:/usr/bin:/bin";
  for (p = path;; p++) {
    const char *colon = strchr(p, ':');
    size_t dlen = colon ? (size_t)(colon - p) : strlen(p);

    if (snprintf(buf, len, "%.*s%s%s", (int)dlen, p, dlen ? "/" : "", name) <
            (int)len &&
        stat_is_exec(buf))
      return true;
    if (!colon)
      return false;
    p = colon;
  }
}

static int stat_find_program(const char *prog, char *buf, size_t len)
{
  if (strchr(prog, '/')) {
    if (access(prog, F_OK) != 0) {
      cli_error("stat: %s: %s", prog, strerror(errno));
      return STAT_EXIT_NOT_FOUND;
    }
    if (!stat_is_exec(prog)) {
      cli_error("stat: %s: not an executable file", prog);
      return STAT_EXIT_NOT_EXEC;
    }
    snprintf(buf, len, "%s", prog);
    return CLI_EXIT_OK;
  }
  if (!stat_search_path(prog, buf, len)) {
    cli_error("stat: %s: command not found", prog);
    return STAT_EXIT_NOT_FOUND;
  }
  return CLI_EXIT_OK;
}

/* The plugin: $SOFTPMU_QEMU_PLUGIN; next to this softpmu in its build
 * tree (build/cli/softpmu, build/frontends/qemu/) or its installed tree
 * (bin/softpmu, lib/softpmu/); the build tree it was built in; the
 * installation prefix it was built for. */
static bool stat_find_plugin(char *buf, size_t len)
{
  const char *env = getenv("SOFTPMU_QEMU_PLUGIN");
  const char *rel[] = {"../frontends/qemu/libsoftpmu-qemu.so",
                       SPMU_QEMU_PLUGIN_RELATIVE};
  const char *abs[] = {SPMU_QEMU_PLUGIN_BUILT, SPMU_QEMU_PLUGIN_INSTALLED};
  char exe[4096];
  ssize_t n;
  size_t i;

  if (env && *env) {
    snprintf(buf, len, "%s", env);
    return access(buf, R_OK) == 0;
  }
  n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0) {
    exe[n] = '\0';
    if (strrchr(exe, '/'))
      *strrchr(exe, '/') = '\0';
    for (i = 0; i < 2; i++)
      if (snprintf(buf, len, "%s/%s", exe, rel[i]) < (int)len &&
          access(buf, R_OK) == 0)
        return true;
  }
  for (i = 0; i < 2; i++)
    if (abs[i][0] && snprintf(buf, len, "%s", abs[i]) < (int)len &&
        access(buf, R_OK) == 0)
      return true;
  return false;
}

/* The -cpu model for a profile: glibc picks its code by CPUID. The
 * features TCG cannot emulate are turned off by name, which is what QEMU
 * does anyway after warning about each one on the program's stderr. */
#define STAT_SKYLAKE_MODEL                                                     \
  "Skylake-Client,pcid=off,x2apic=off,tsc-deadline=off,hle=off,invpcid=off,"   \
  "rtm=off,rdseed=off,3dnowprefetch=off,xsavec=off"
#define STAT_ICELAKE_MODEL                                                     \
  "Icelake-Server,pcid=off,x2apic=off,tsc-deadline=off,hle=off,invpcid=off,"   \
  "rtm=off,avx512f=off,avx512dq=off,rdseed=off,avx512cd=off,avx512bw=off,"     \
  "avx512vl=off,avx512vbmi=off,avx512vbmi2=off,gfni=off,vpclmulqdq=off,"       \
  "avx512vnni=off,avx512bitalg=off,avx512-vpopcntdq=off,spec-ctrl=off,"        \
  "ssbd=off,3dnowprefetch=off,wbnoinvd=off,xsavec=off"
static const struct {
  const char *profile, *model;
} qemu_models[] = {
    {"core-duo", "core2duo"},
    {"core2", "Penryn"},
    {"nehalem", "Nehalem"},
    {"sandybridge", "SandyBridge,x2apic=off,tsc-deadline=off"},
    {"haswell",
     "Haswell-noTSX,pcid=off,x2apic=off,tsc-deadline=off,invpcid=off"},
    {"skylake", STAT_SKYLAKE_MODEL},
    /* QEMU 7.2 has no Sapphire Rapids model: the newest it has. */
    {"icelake", STAT_ICELAKE_MODEL},
    {"sapphirerapids", STAT_ICELAKE_MODEL},
};

static const char *stat_qemu_model(const spmu_profile *p)
{
  size_t i;

  for (i = 0; i < sizeof(qemu_models) / sizeof(qemu_models[0]); i++)
    if (strcmp(p->name, qemu_models[i].profile) == 0)
      return qemu_models[i].model;
  return STAT_SKYLAKE_MODEL; /* a profile of no preset's name */
}

/* ---- running ------------------------------------------------------------- */

static char *stat_plugin_arg(const struct stat_opts *o, const char *plugin,
                             const char *out)
{
  size_t cap = strlen(plugin) + strlen(out) + 64 + 32 * o->nev, n;
  char *s = malloc(cap);
  unsigned i;

  if (!s)
    return NULL;
  n = (size_t)snprintf(s, cap, "%s,profile=%s,out=%s", plugin, o->profile.name,
                       out);
  for (i = 0; i < o->nev; i++)
    if (o->ev[i].index >= 0)
      n += (size_t)snprintf(s + n, cap - n, ",event=%" PRIx64, o->ev[i].evtsel);
  return s;
}

/* Number the events the plugin counts (its event= arguments, in order);
 * how many there are. */
static int stat_number_events(struct stat_opts *o)
{
  unsigned i;
  int next = 0;

  for (i = 0; i < o->nev; i++)
    o->ev[i].index = o->ev[i].supported ? next++ : -1;
  return next;
}

struct stat_run {
  int status; /* waitpid's */
  struct timespec t0, t1;
  struct rusage ru;
};

static int stat_spawn(char **qargv, struct stat_run *r)
{
  pid_t pid;
  struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;

  clock_gettime(CLOCK_MONOTONIC, &r->t0);
  pid = fork();
  if (pid < 0) {
    cli_error("stat: fork: %s", strerror(errno));
    return CLI_EXIT_USAGE;
  }
  if (pid == 0) {
    execv(qargv[0], qargv);
    cli_error("stat: %s: %s", qargv[0], strerror(errno));
    _exit(STAT_EXIT_NOT_EXEC);
  }
  /* As perf stat: Ctrl-C goes to the program; the counts are printed. */
  sigaction(SIGINT, &ign, &old_int);
  sigaction(SIGQUIT, &ign, &old_quit);
  while (wait4(pid, &r->status, 0, &r->ru) < 0 && errno == EINTR)
    ;
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGQUIT, &old_quit, NULL);
  clock_gettime(CLOCK_MONOTONIC, &r->t1);
  return CLI_EXIT_OK;
}

/* ---- the plugin's results ------------------------------------------------ */

/* Sum the blocks of every process ("softpmu-qemu 1 ...", "event I N",
 * "end") by event index; the number of blocks read, or -1. */
static int stat_read_results(const char *path, struct stat_opts *o)
{
  FILE *f = fopen(path, "r");
  char line[256];
  int blocks = 0;

  if (!f)
    return -1;
  while (fgets(line, sizeof(line), f)) {
    unsigned idx, i;
    uint64_t n;

    if (strncmp(line, "softpmu-qemu 1 ", 15) == 0) {
      blocks++;
      if (strstr(line, " status=execve"))
        o->execve = true;
    } else if (sscanf(line, "event %u %" SCNu64, &idx, &n) == 2)
      for (i = 0; i < o->nev; i++)
        if (o->ev[i].index == (int)idx) {
          o->ev[i].count += n;
          o->ev[i].counted = true;
        }
  }
  fclose(f);
  return blocks;
}

/* ---- printing, in perf stat's layout --------------------------------------
 */

static void stat_print_grouped(FILE *f, uint64_t v)
{
  char digits[32], out[48];
  int n = snprintf(digits, sizeof(digits), "%" PRIu64, v), i, j = 0;

  for (i = 0; i < n; i++) {
    if (i && (n - i) % 3 == 0)
      out[j++] = ',';
    out[j++] = digits[i];
  }
  out[j] = '\0';
  fprintf(f, "%18s", out);
}

static void stat_print_header(FILE *f, char **argv)
{
  int i;

  fprintf(f, "\n Performance counter stats for '");
  for (i = 0; argv[i]; i++)
    fprintf(f, "%s%s", i ? " " : "", argv[i]);
  fprintf(f, "':\n\n");
}

static void stat_print_event(FILE *f, const struct stat_event *e)
{
  if (e->supported && e->counted)
    stat_print_grouped(f, e->count);
  else
    fprintf(f, "%18s", e->supported ? "<not counted>" : "<not supported>");
  fprintf(f, "      %s\n", e->name);
}

static double stat_seconds(const struct timeval *tv)
{
  return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

static void stat_print_times(FILE *f, const struct stat_run *r)
{
  double el = (double)(r->t1.tv_sec - r->t0.tv_sec) +
              (double)(r->t1.tv_nsec - r->t0.tv_nsec) / 1e9;

  fprintf(f, "\n %17.9f seconds time elapsed\n\n", el);
  fprintf(f, " %17.9f seconds user\n", stat_seconds(&r->ru.ru_utime));
  fprintf(f, " %17.9f seconds sys\n\n", stat_seconds(&r->ru.ru_stime));
}

static int stat_print(const struct stat_opts *o, const struct stat_run *r)
{
  FILE *f = stderr;
  unsigned i;

  if (o->out && !(f = fopen(o->out, "w"))) {
    cli_error("stat: %s: %s", o->out, strerror(errno));
    return CLI_EXIT_USAGE;
  }
  if (o->execve)
    cli_error("stat: a process called execve: the program it started ran "
              "without the plugin and is not counted");
  stat_print_header(f, o->prog_argv);
  for (i = 0; i < o->nev; i++)
    stat_print_event(f, &o->ev[i]);
  stat_print_times(f, r);
  if (o->out && fclose(f) != 0) {
    cli_error("stat: %s: %s", o->out, strerror(errno));
    return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
}

/* The program's exit status, as a shell reports it. */
static int stat_exit_status(const struct stat_run *r)
{
  if (WIFEXITED(r->status))
    return WEXITSTATUS(r->status);
  if (WIFSIGNALED(r->status)) {
    cli_error("stat: the program was killed by signal %d (%s)",
              WTERMSIG(r->status), strsignal(WTERMSIG(r->status)));
    return 128 + WTERMSIG(r->status);
  }
  return CLI_EXIT_USAGE;
}

/* QEMU 7.2 ends a process killed by a signal without calling the
 * plugin's exit callback: nothing is written then. */
static void stat_explain_no_counts(const struct stat_run *r)
{
  if (WIFSIGNALED(r->status))
    cli_error("stat: no counts: qemu-x86_64 (7.2) does not let the plugin "
              "write them when a signal kills the program");
  else
    cli_error("stat: the plugin wrote no counts (see the messages above)");
}

/* ---- the command --------------------------------------------------------- */

static int stat_execute(struct stat_opts *o, const char *qemu,
                        const char *plugin, const char *prog)
{
  char tmp[] = "/tmp/softpmu-stat-XXXXXX";
  int fd = mkstemp(tmp), rc, nargs = 0, q = 0, counted;
  char **qargv, *parg;
  struct stat_run r;

  if (fd < 0) {
    cli_error("stat: cannot make a temporary file: %s", strerror(errno));
    return CLI_EXIT_USAGE;
  }
  close(fd);
  counted = stat_number_events(o);
  while (o->prog_argv[nargs])
    nargs++;
  qargv = calloc((size_t)nargs + 8, sizeof(*qargv));
  parg = stat_plugin_arg(o, plugin, tmp);
  if (!qargv || !parg) {
    cli_error("stat: out of memory");
    rc = CLI_EXIT_USAGE;
    goto out;
  }
  qargv[q++] = (char *)qemu;
  qargv[q++] = "-cpu";
  qargv[q++] = (char *)stat_qemu_model(&o->profile);
  if (counted) {
    qargv[q++] = "-plugin";
    qargv[q++] = parg;
  }
  qargv[q++] = (char *)prog;
  memcpy(qargv + q, o->prog_argv + 1, (size_t)nargs * sizeof(*qargv));
  if ((rc = stat_spawn(qargv, &r)) != CLI_EXIT_OK)
    goto out;
  if (stat_read_results(tmp, o) <= 0 && counted)
    stat_explain_no_counts(&r);
  if ((rc = stat_print(o, &r)) == CLI_EXIT_OK)
    rc = stat_exit_status(&r);
out:
  unlink(tmp);
  free(parg);
  free(qargv);
  return rc;
}

int cli_stat_main(int argc, char **argv)
{
  struct stat_opts o = {.profile_name = STAT_DEFAULT_PROFILE};
  char qemu[4096], plugin[4096], prog[4096];
  int rc = stat_parse_args(argc, argv, &o);

  if (rc < 0)
    return CLI_EXIT_OK; /* --help */
  if (rc != CLI_EXIT_OK || (rc = stat_setup(&o)) != CLI_EXIT_OK)
    return rc;
  if (!stat_search_path("qemu-x86_64", qemu, sizeof(qemu))) {
    cli_error("stat: qemu-x86_64 not found: install it with `sudo apt-get "
              "install qemu-user` (or scripts/deps)");
    return CLI_EXIT_USAGE;
  }
  if (!stat_find_plugin(plugin, sizeof(plugin))) {
    cli_error("stat: the QEMU plugin libsoftpmu-qemu.so is not there: "
              "build softpmu with Zydis (apt-get install libzydis-dev)");
    return CLI_EXIT_USAGE;
  }
  if ((rc = stat_find_program(o.prog_argv[0], prog, sizeof(prog))) != 0)
    return rc;
  return stat_execute(&o, qemu, plugin, prog);
}

static int stat_run_unused(const struct cli_args *a)
{
  (void)a;
  return CLI_EXIT_USAGE;
}

/* clang-format off: the manual's text is laid out as it prints */
const struct cli_command cli_cmd_stat = {
    .name = "stat",
    .summary = "run a program and count its events through the model",
    .synopsis = "[-c PROFILE] [-e EVENT,...] [-o FILE] [--] PROG [ARGS...]",
    .description =
        "    Runs PROG under qemu-x86_64 (Debian's qemu-user) with softpmu's\n"
        "    QEMU plugin, which hands every retired user-mode instruction of\n"
        "    every thread to a model PMU of the profile (default skylake),\n"
        "    programmed as a driver programs hardware; then prints the counts\n"
        "    in perf stat's layout on standard error. The counts are exact "
        "and\n"
        "    the same on every run. Forked children are counted and added in;\n"
        "    a program started by execve runs outside the plugin and is not.\n"
        "    The program's input, output and exit status pass through.\n"
        "\n"
        "    EVENT: instructions, branches (or branch-instructions), or "
        "perf's\n"
        "    raw rUUEE (umask UU, event EE: r00c0 is C0H/00H), with :u or :k.\n"
        "    Events the engine cannot produce (cycles, cache-misses,\n"
        "    branch-misses...) print <not supported>. Default: instructions,\n"
        "    branches.\n",
    .options =
        "    -c, --cpu PROFILE\n"
        "        The processor to model: a preset name or alias (skylake,\n"
        "        icelake, haswell, skl...; not a key=value profile: QEMU "
        "splits\n"
        "        a plugin's arguments on commas). Default: skylake. QEMU's "
        "-cpu\n"
        "        model follows it (Skylake-Client for skylake), since glibc\n"
        "        picks its code by CPUID.\n\n"
        "    -e, --event EVENT[,EVENT...]\n"
        "        The events to count (repeatable).\n\n"
        "    -o, --output FILE\n"
        "        Write the counts to FILE instead of standard error.\n",
    .exit_status =
        "    The program's exit status (128 + N when killed by signal N);\n"
        "    127 when PROG is not found, 126 when it cannot be run; 2 for bad\n"
        "    usage or when qemu-x86_64 or the plugin is missing.\n",
    .examples = "    softpmu stat -- ./prog arg\n"
                "    softpmu stat -e instructions:u,r01c4 -- /bin/true\n",
    .flags = CLI_FLAG_OWN_CPU_OPTION,
    .min_args = 0,
    .max_args = -1,
    .run = stat_run_unused,
};
/* clang-format on */

/* Running a program under qemu-x86_64 with softpmu's QEMU plugin: what
 * softpmu stat and softpmu record share (qemu_run.h). */
#define _GNU_SOURCE /* strsignal */
#include "qemu_run.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

/* ---- finding qemu, the plugin and the program --------------------------- */

static bool qemu_run_is_exec(const char *path)
{
  struct stat st;

  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

bool qemu_run_search_path(const char *name, char *buf, size_t len)
{
  const char *path = getenv("PATH"), *p;

  if (!path)
    path = "/usr/local/bin:/usr/bin:/bin";
  for (p = path;; p++) {
    const char *colon = strchr(p, ':');
    size_t dlen = colon ? (size_t)(colon - p) : strlen(p);

    if (snprintf(buf, len, "%.*s%s%s", (int)dlen, p, dlen ? "/" : "", name) <
            (int)len &&
        qemu_run_is_exec(buf))
      return true;
    if (!colon)
      return false;
    p = colon;
  }
}

int qemu_run_find_program(const char *cmd, const char *prog, char *buf,
                          size_t len)
{
  if (strchr(prog, '/')) {
    if (access(prog, F_OK) != 0) {
      cli_error("%s: %s: %s", cmd, prog, strerror(errno));
      return QEMU_RUN_EXIT_NOT_FOUND;
    }
    if (!qemu_run_is_exec(prog)) {
      cli_error("%s: %s: not an executable file", cmd, prog);
      return QEMU_RUN_EXIT_NOT_EXEC;
    }
    snprintf(buf, len, "%s", prog);
    return CLI_EXIT_OK;
  }
  if (!qemu_run_search_path(prog, buf, len)) {
    cli_error("%s: %s: command not found", cmd, prog);
    return QEMU_RUN_EXIT_NOT_FOUND;
  }
  return CLI_EXIT_OK;
}

/* The plugin: $SOFTPMU_QEMU_PLUGIN; next to this softpmu in its build
 * tree (build/cli/softpmu, build/frontends/qemu/) or its installed tree
 * (bin/softpmu, lib/softpmu/); the build tree it was built in; the
 * installation prefix it was built for. */
static bool qemu_run_find_plugin(char *buf, size_t len)
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

int qemu_run_find_tools(const char *cmd, char *qemu, size_t qlen, char *plugin,
                        size_t plen)
{
  if (!qemu_run_search_path("qemu-x86_64", qemu, qlen)) {
    cli_error("%s: qemu-x86_64 not found: install it with `sudo apt-get "
              "install qemu-user` (or scripts/deps)",
              cmd);
    return CLI_EXIT_USAGE;
  }
  if (!qemu_run_find_plugin(plugin, plen)) {
    cli_error("%s: the QEMU plugin libsoftpmu-qemu.so is not there: "
              "build softpmu with Zydis (apt-get install libzydis-dev)",
              cmd);
    return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
}

/* The -cpu model for a profile: glibc picks its code by CPUID. The
 * features TCG cannot emulate are turned off by name, which is what QEMU
 * does anyway after warning about each one on the program's stderr. */
#define QEMU_RUN_SKYLAKE_MODEL                                                 \
  "Skylake-Client,pcid=off,x2apic=off,tsc-deadline=off,hle=off,invpcid=off,"   \
  "rtm=off,rdseed=off,3dnowprefetch=off,xsavec=off"
#define QEMU_RUN_ICELAKE_MODEL                                                 \
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
    {"skylake", QEMU_RUN_SKYLAKE_MODEL},
    /* QEMU 7.2 has no Sapphire Rapids model: the newest it has. */
    {"icelake", QEMU_RUN_ICELAKE_MODEL},
    {"sapphirerapids", QEMU_RUN_ICELAKE_MODEL},
};

const char *qemu_run_model(const spmu_profile *p)
{
  size_t i;

  for (i = 0; i < sizeof(qemu_models) / sizeof(qemu_models[0]); i++)
    if (strcmp(p->name, qemu_models[i].profile) == 0)
      return qemu_models[i].model;
  return QEMU_RUN_SKYLAKE_MODEL; /* a profile of no preset's name */
}

/* ---- running ------------------------------------------------------------- */

static char guest_preload[4096];

/* A script's "#!" line, as the kernel reads it (execve(2): the
 * interpreter's path, then at most one argument, the rest of the line):
 * qemu-x86_64 runs ELF files only, so the interpreter is run with the
 * script, as the kernel would. false when prog is not a script. */
static bool shebang(const char *prog, char *interp, size_t ilen, char *arg,
                    size_t alen)
{
  char line[256], *p, *end;
  FILE *f = fopen(prog, "r");
  bool ok;

  if (!f)
    return false;
  ok = fgets(line, sizeof(line), f) && line[0] == '#' && line[1] == '!';
  fclose(f);
  if (!ok)
    return false;
  line[strcspn(line, "\n")] = '\0';
  p = line + 2 + strspn(line + 2, " \t");
  end = p + strcspn(p, " \t");
  if (end == p || (size_t)(end - p) >= ilen)
    return false;
  snprintf(interp, ilen, "%.*s", (int)(end - p), p);
  p = end + strspn(end, " \t");
  end = p + strlen(p);
  while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
    end--;
  snprintf(arg, alen, "%.*s", (int)(end - p), p);
  return true;
}

static char script_interp[256], script_arg[256];

char **qemu_run_argv(const spmu_profile *p, const char *qemu, char *parg,
                     const char *prog, char **prog_argv)
{
  int nargs = 0, q = 0;
  char **qargv;

  while (prog_argv[nargs])
    nargs++;
  qargv = calloc((size_t)nargs + 12, sizeof(*qargv));
  if (!qargv)
    return NULL;
  qargv[q++] = (char *)qemu;
  qargv[q++] = "-cpu";
  qargv[q++] = (char *)qemu_run_model(p);
  if (parg) {
    const char *pre = getenv("LD_PRELOAD");

    qargv[q++] = "-plugin";
    qargv[q++] = parg;
    /* The guest's environment without the plugin preloaded into qemu. */
    if (pre && strlen(pre) < sizeof(guest_preload) - 12) {
      snprintf(guest_preload, sizeof(guest_preload), "LD_PRELOAD=%s", pre);
      qargv[q++] = "-E";
      qargv[q++] = guest_preload;
    } else {
      qargv[q++] = "-U";
      qargv[q++] = "LD_PRELOAD";
    }
  }
  if (shebang(prog, script_interp, sizeof(script_interp), script_arg,
              sizeof(script_arg))) {
    qargv[q++] = script_interp;
    if (script_arg[0])
      qargv[q++] = script_arg;
  }
  qargv[q++] = (char *)prog;
  memcpy(qargv + q, prog_argv + 1, (size_t)nargs * sizeof(*qargv));
  return qargv;
}

/* In the child, before exec: the plugin is preloaded into qemu-x86_64
 * too, so that its kill() writes the counts when a signal kills the
 * program (QEMU 7.2 calls no plugin callback then; frontends/qemu/
 * README.md). qemu_run_argv keeps the guest's LD_PRELOAD as it was. */
static void preload_plugin(char *const *qargv)
{
  size_t i;

  for (i = 0; qargv[i] && qargv[i + 1]; i++)
    if (strcmp(qargv[i], "-plugin") == 0) {
      char path[4096];
      size_t n = strcspn(qargv[i + 1], ",");

      if (n < sizeof(path)) {
        memcpy(path, qargv[i + 1], n);
        path[n] = '\0';
        setenv("LD_PRELOAD", path, 1);
      }
      return;
    }
}

int qemu_run_spawn(const char *cmd, char **qargv, struct qemu_child *r)
{
  pid_t pid;
  struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;

  clock_gettime(CLOCK_MONOTONIC, &r->t0);
  pid = fork();
  if (pid < 0) {
    cli_error("%s: fork: %s", cmd, strerror(errno));
    return CLI_EXIT_USAGE;
  }
  if (pid == 0) {
    preload_plugin(qargv);
    execv(qargv[0], qargv);
    cli_error("%s: %s: %s", cmd, qargv[0], strerror(errno));
    _exit(QEMU_RUN_EXIT_NOT_EXEC);
  }
  /* As perf: Ctrl-C goes to the program; the results are still written. */
  sigaction(SIGINT, &ign, &old_int);
  sigaction(SIGQUIT, &ign, &old_quit);
  while (wait4(pid, &r->status, 0, &r->ru) < 0 && errno == EINTR)
    ;
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGQUIT, &old_quit, NULL);
  clock_gettime(CLOCK_MONOTONIC, &r->t1);
  return CLI_EXIT_OK;
}

int qemu_run_exit_status(const char *cmd, const struct qemu_child *r)
{
  if (WIFEXITED(r->status))
    return WEXITSTATUS(r->status);
  if (WIFSIGNALED(r->status)) {
    cli_error("%s: the program was killed by signal %d (%s)", cmd,
              WTERMSIG(r->status), strsignal(WTERMSIG(r->status)));
    return 128 + WTERMSIG(r->status);
  }
  return CLI_EXIT_USAGE;
}

/* SPDX-License-Identifier: MIT */
/* Running a program under qemu-x86_64 with softpmu's QEMU plugin
 * (qemu_run.h). */
#define _GNU_SOURCE /* strsignal, pipe2, dprintf, sigtimedwait */
#include "qemu_run.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "args.h"

/* ---- finding qemu, the plugin and the program --------------------------- */

static void qemu_run_block_signals(sigset_t *old);
static void qemu_run_reset_handlers(void);

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

int qemu_run_find_program(const char *prog, char *buf, size_t len, char *why,
                          size_t whylen)
{
  struct stat st;

  why[0] = '\0';
  if (strchr(prog, '/')) {
    if (access(prog, F_OK) != 0) {
      snprintf(why, whylen, "%s: %s", prog, strerror(errno));
      return QEMU_RUN_EXIT_NOT_FOUND;
    }
    /* As a shell says it (bash: "PROG: Is a directory", status 126). */
    if (stat(prog, &st) == 0 && S_ISDIR(st.st_mode)) {
      snprintf(why, whylen, "%s: %s", prog, strerror(EISDIR));
      return QEMU_RUN_EXIT_NOT_EXEC;
    }
    if (!qemu_run_is_exec(prog)) {
      snprintf(why, whylen, "%s: not an executable file", prog);
      return QEMU_RUN_EXIT_NOT_EXEC;
    }
    snprintf(buf, len, "%s", prog);
    return 0;
  }
  if (!qemu_run_search_path(prog, buf, len)) {
    snprintf(why, whylen, "%s: command not found", prog);
    return QEMU_RUN_EXIT_NOT_FOUND;
  }
  return 0;
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

/* A path the user gave for qemu-x86_64: it must exist and be an
 * executable file. */
static int qemu_run_check_given(const char *given, const char *what, char *why,
                                size_t whylen)
{
  struct stat st;

  if (stat(given, &st) != 0) {
    snprintf(why, whylen,
             "%s: %s: give the path of a qemu-x86_64 binary (Debian's "
             "qemu-user installs /usr/bin/qemu-x86_64)",
             what, strerror(errno));
    return -1;
  }
  if (!S_ISREG(st.st_mode) || access(given, X_OK) != 0) {
    snprintf(why, whylen,
             "%s: not an executable file: give the path of a qemu-x86_64 "
             "binary (or make this one executable)",
             what);
    return -1;
  }
  return 0;
}

/* Whether the ELF file at path is statically linked: no PT_INTERP
 * program header (static-pie included). A static QEMU cannot load plugins
 * (QEMU's configure turns them off with --static). A file that is not a
 * 64-bit ELF (a script standing in for QEMU) is not called static. */
static bool qemu_run_is_static(const char *path)
{
  Elf64_Ehdr eh;
  Elf64_Phdr ph;
  bool is_static = false;
  unsigned i;
  FILE *f = fopen(path, "rb");

  if (!f)
    return false;
  if (fread(&eh, sizeof eh, 1, f) == 1 &&
      memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
      eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof ph) {
    is_static = true;
    for (i = 0; i < eh.e_phnum && is_static; i++) {
      long at = (long)(eh.e_phoff + (Elf64_Off)i * sizeof ph);

      if (fseek(f, at, SEEK_SET) != 0 || fread(&ph, sizeof ph, 1, f) != 1 ||
          ph.p_type == PT_INTERP)
        is_static = false; /* dynamic, or unreadable: cannot tell */
    }
  }
  fclose(f);
  return is_static;
}

/* A qemu-x86_64 that scripts/qemu-user built into the user's cache,
 * ${XDG_CACHE_HOME:-$HOME/.cache}/softpmu/qemu-user-X.Y/build/, the
 * newest QEMU first. */
static bool qemu_run_find_cached(char *buf, size_t len)
{
  static const char *const series[] = {"10.0", "7.2"};
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  char dir[4096];
  size_t i;

  if (xdg && *xdg)
    snprintf(dir, sizeof dir, "%s/softpmu", xdg);
  else if (home && *home)
    snprintf(dir, sizeof dir, "%s/.cache/softpmu", home);
  else
    return false;
  for (i = 0; i < sizeof series / sizeof series[0]; i++)
    if (snprintf(buf, len, "%s/qemu-user-%s/build/qemu-x86_64", dir,
                 series[i]) < (int)len &&
        qemu_run_is_exec(buf))
      return true;
  return false;
}

/* qemu-x86_64 when the user chose none: PATH's, unless it is missing or
 * static, then one scripts/qemu-user built. */
static int qemu_run_find_default(char *qemu, size_t qlen, char *why,
                                 size_t whylen)
{
  char path[4096];
  bool found = qemu_run_search_path("qemu-x86_64", path, sizeof path);

  if (found && !qemu_run_is_static(path)) {
    snprintf(qemu, qlen, "%s", path);
    return 0;
  }
  if (qemu_run_find_cached(qemu, qlen))
    return 0;
  if (found)
    snprintf(why, whylen,
             "%s is a static build, which cannot load plugins: build a "
             "qemu-x86_64 that can with softpmu's scripts/qemu-user (used "
             "from then on), or give one with --qemu PATH",
             path);
  else
    snprintf(why, whylen,
             "qemu-x86_64 not found: install it with `sudo apt-get install "
             "qemu-user` (or scripts/deps; where the distribution's is a "
             "static build, scripts/qemu-user builds one)");
  return -1;
}

int qemu_run_find_tools(const char *given, const char *what, char *qemu,
                        size_t qlen, char *plugin, size_t plen, char *why,
                        size_t whylen)
{
  why[0] = '\0';
  if (given) {
    if (qemu_run_check_given(given, what, why, whylen) != 0)
      return -1;
    snprintf(qemu, qlen, "%s", given);
  } else if (qemu_run_find_default(qemu, qlen, why, whylen) != 0) {
    return -1;
  }
  if (!qemu_run_find_plugin(plugin, plen)) {
    snprintf(why, whylen,
             "the QEMU plugin libsoftpmu-qemu.so is not there: build softpmu "
             "with Zydis (apt-get install libzydis-dev)");
    return -1;
  }
  return 0;
}

/* The probe's child: QEMU -plugin PLUGIN --version, its output and errors
 * into fd, no input. */
static void qemu_run_probe_child(const char *qemu, const char *plugin, int fd)
{
  char *argv[] = {(char *)qemu, "-plugin", (char *)plugin, "--version", NULL};
  int null = open("/dev/null", O_RDONLY);

  if (null >= 0)
    dup2(null, STDIN_FILENO);
  dup2(fd, STDOUT_FILENO);
  dup2(fd, STDERR_FILENO);
  execv(qemu, argv);
  dprintf(fd, "%s: %s\n", qemu, strerror(errno));
  _exit(QEMU_RUN_EXIT_NOT_EXEC);
}

/* All of fd (up to len - 1 bytes, the rest read and dropped) into buf. */
static void qemu_run_read_all(int fd, char *buf, size_t len)
{
  size_t got = 0;
  char drop[256];
  ssize_t n;

  for (;;) {
    if (got + 1 < len)
      n = read(fd, buf + got, len - 1 - got);
    else
      n = read(fd, drop, sizeof drop);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    if (got + 1 < len)
      got += (size_t)n;
  }
  buf[got] = '\0';
}

int qemu_run_probe(const char *qemu, const char *what, const char *plugin,
                   char *version, size_t vlen, char *why, size_t whylen)
{
  char out[1024];
  int fds[2], status = 0;
  pid_t pid;

  sigset_t old;

  why[0] = version[0] = '\0';
  if (pipe2(fds, O_CLOEXEC) != 0) {
    snprintf(why, whylen, "%s: cannot run it: %s", what, strerror(errno));
    return -1;
  }
  /* As qemu_run_spawn: no cleanup handler runs in the child. */
  qemu_run_block_signals(&old);
  if ((pid = fork()) == 0) {
    qemu_run_reset_handlers();
    sigprocmask(SIG_SETMASK, &old, NULL);
    qemu_run_probe_child(qemu, plugin, fds[1]);
  }
  sigprocmask(SIG_SETMASK, &old, NULL);
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    snprintf(why, whylen, "%s: cannot run it: %s", what, strerror(errno));
    return -1;
  }
  qemu_run_read_all(fds[0], out, sizeof out);
  close(fds[0]);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  out[strcspn(out, "\n")] = '\0';
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    snprintf(why, whylen,
             "%s cannot load plugins (%s): give a qemu-x86_64 built with "
             "them, such as Debian 12's qemu-user or one softpmu's "
             "scripts/qemu-user builds",
             what, out[0] ? out : "it failed");
    return -1;
  }
  snprintf(version, vlen, "%s", out);
  return 0;
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

/* The strings qemu_run_argv makes, kept in the block of the array that
 * points at them, so that freeing the array frees them too. */
struct qemu_argv_strings {
  char cpu[1024];     /* -cpu MODEL,... (QEMU 10.1 on) */
  char preload[4096]; /* -E LD_PRELOAD=... */
  char pad[SPMU_PLUGIN_PADS][SPMU_PLUGIN_PAD_BYTES / SPMU_PLUGIN_PADS];
  char interp[256];     /* a script's interpreter */
  char interp_arg[256]; /* and its argument */
};

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

/* A regular, executable file that is neither ELF nor "#!": execve(2)
 * fails with ENOEXEC, and perf's execvp(3) then runs it with /bin/sh, as
 * the shells do; true for such a file. */
static bool sh_script(const char *prog)
{
  unsigned char head[4] = {0};
  struct stat st;
  size_t n;
  FILE *f;

  if (stat(prog, &st) != 0 || !S_ISREG(st.st_mode) || access(prog, X_OK) != 0)
    return false;
  if (!(f = fopen(prog, "rb")))
    return false;
  n = fread(head, 1, sizeof(head), f);
  fclose(f);
  return !(n == 4 && memcmp(head,
                            "\x7f"
                            "ELF",
                            4) == 0);
}

/* QEMU's guest base (-B): the guest's address + this is its host address.
 * Not 0, so that the guest's program, which QEMU asks for at a fixed
 * address (ELF_ET_DYN_BASE, 0x555555556000 for x86-64, from QEMU 8.1 on),
 * finds it free: without randomisation (fix_guest_layout) QEMU itself, a
 * position-independent program, sits there, and the guest's program
 * would go where nothing leaves room above it for its heap (brk). -R
 * (reserved_va) cannot fix the layout instead: x86-64's vsyscall page
 * lies above any reserved_va QEMU 10 accepts. QEMU 7.2 places the guest
 * at guest addresses of its own choosing, which this base does not
 * change. The plugin reads the base of the process it runs in
 * (qemu_plugin_insn_haddr). */
#define QEMU_RUN_GUEST_BASE "0x100000000000"
/* QEMU 8 on: the base under which the plugin gives the guest QEMU 7.2's
 * addresses (frontends/qemu/layout.c). 7.2's first guest address,
 * 0x4000000000, then lies at host 0x2aac00000000, some 5 GiB above where
 * the host kernel starts placing mappings in the bottom-up layout (the
 * TASK_UNMAPPED_BASE of a 47-bit address space, 0x2aaaaaaab000), above
 * QEMU's own libraries; the plugin reserves what lies between. */
#define QEMU_RUN_GUEST_BASE_8 "0x2a6c00000000"

/* QEMU's translation buffer, in MiB (-tb-size), for QEMU 10 on: not a
 * multiple of 2 MiB. QEMU 10 reserves 128 MiB for it with mmap, and the
 * host kernel (Linux 6.18, measured) puts an anonymous mapping whose
 * length is a multiple of 2 MiB at a 2 MiB boundary, for transparent huge
 * pages: that leaves a hole below the buffer, which the host fills first
 * with the guest's next mappings (the dynamic linker, its first pages),
 * so that ld.so's second page of its own allocator came right after its
 * first (adjacent: 1 instruction more per process than under 7.2, which
 * puts it after libc). 127 MiB is placed where it falls, no hole is left,
 * and the guest's mappings follow each other as under 7.2. QEMU 7.2 to
 * 9.2 have no -tb-size in user mode (10.0 added it; 9.2 refuses the
 * option and runs nothing): 8.x's and 9.x's 128 MiB buffer, layout.c. */
#define QEMU_RUN_TB_SIZE "127"

/* The differences between QEMU versions in how softpmu starts QEMU, in
 * one place, by QEMU's major version (0: not known, taken as 7.2's).
 * QEMU 8.1 on hands a guest's mmap without an address to the host kernel
 * (7.2 places it by its own hints), and the plugin puts the guest at
 * 7.2's addresses (layout.c) under QEMU 8.1's base; QEMU 8 on names a
 * vDSO, so the stack's padding (protocol/args.h) gives its stack 7.2's
 * page offset (frontends/qemu/auxv.c). QEMU 8.0 (no vDSO for x86-64, 7.2's
 * placement) is not told apart from 8.1 and 8.2 by its major version. */
static bool qemu_places_by_host(int qemu_major)
{
  return qemu_major >= 8;
}

static bool qemu_has_tb_size(int qemu_major)
{
  return qemu_major >= 10;
}

/* The stack's padding (protocol/args.h) into str, on qargv from q on; the
 * next free place. */
static int pad_stack(struct qemu_argv_strings *str, char **qargv, int q)
{
  size_t i, len = sizeof(str->pad[0]);

  for (i = 0; i < SPMU_PLUGIN_PADS; i++) {
    int n = snprintf(str->pad[i], len, "%s%zu=", SPMU_PLUGIN_PAD_PREFIX, i + 1);

    memset(str->pad[i] + n, 'x', len - 1 - (size_t)n);
    str->pad[i][len - 1] = '\0';
    qargv[q++] = "-E";
    qargv[q++] = str->pad[i];
  }
  return q;
}

/* The -cpu argument for profile p under QEMU major.minor, in buf when it
 * needs one. QEMU 10.1 on changed two things an Intel model reports (SDM
 * Vol. 2A, CPUID): leaf 02H gives the descriptor FFH alone (no cache
 * descriptors: leaf 04H describes the caches) where 7.2 to 10.0 give the
 * model's L1, L2 and L3 descriptors; and leaves 80000000H to 80000008H
 * are filled as the SDM documents them for Intel processors (80000000H's
 * EBX, ECX and EDX, 80000006H's EAX and EBX, 80000007H's EBX and
 * 80000008H's ECX and EDX reserved, 0), where 7.2 to 10.0 fill them as on
 * AMD's (the vendor string, the L2 TLB). glibc's start reads both: 1,315
 * instructions fewer per process under 10.1 (/bin/true). QEMU's own
 * properties for a 10.0 machine, x-consistent-cache=off and
 * x-vendor-cpuid-only-v2=off, give back 10.0's leaves (every leaf the
 * same as under 7.2 on each profile's model), so that the program runs the
 * code it runs under 7.2; QEMU before 10.1 refuses the properties. */
#define QEMU_RUN_CPUID_10_0 ",x-consistent-cache=off,x-vendor-cpuid-only-v2=off"

static const char *qemu_run_cpu(const spmu_profile *p, int qemu_major,
                                int qemu_minor, char *buf, size_t len)
{
  const char *model = qemu_run_model(p);

  if (qemu_major < 10 || (qemu_major == 10 && qemu_minor < 1))
    return model;
  snprintf(buf, len, "%s" QEMU_RUN_CPUID_10_0, model);
  return buf;
}

bool qemu_run_reset_hangs(int qemu_major)
{
  return qemu_major == 9;
}

char **qemu_run_argv(const spmu_profile *p, const char *qemu, int qemu_major,
                     int qemu_minor, const char *seed, char *parg, bool pad,
                     const char *prog, char **prog_argv)
{
  int nargs = 0, q = 0;
  size_t nptr;
  char **qargv;
  struct qemu_argv_strings *str;

  while (prog_argv[nargs])
    nargs++;
  /* the options above and below, 18 at most, and the padding */
  nptr = (size_t)nargs + 18 + 2 * SPMU_PLUGIN_PADS;
  qargv = calloc(1, nptr * sizeof(*qargv) + sizeof(*str));
  if (!qargv)
    return NULL;
  str = (struct qemu_argv_strings *)(qargv + nptr);
  qargv[q++] = (char *)qemu;
  qargv[q++] = "-cpu";
  qargv[q++] = (char *)qemu_run_cpu(p, qemu_major, qemu_minor, str->cpu,
                                    sizeof(str->cpu));
  qargv[q++] = "-B";
  qargv[q++] = qemu_places_by_host(qemu_major) ? QEMU_RUN_GUEST_BASE_8
                                               : QEMU_RUN_GUEST_BASE;
  if (qemu_has_tb_size(qemu_major)) {
    qargv[q++] = "-tb-size";
    qargv[q++] = QEMU_RUN_TB_SIZE;
  }
  if (seed) {
    qargv[q++] = "-seed";
    qargv[q++] = (char *)seed;
  }
  if (parg) {
    const char *pre = getenv("LD_PRELOAD");

    qargv[q++] = "-plugin";
    qargv[q++] = parg;
    /* The guest's environment without the plugin preloaded into qemu. */
    if (pre && strlen(pre) < sizeof(str->preload) - 12) {
      snprintf(str->preload, sizeof(str->preload), "LD_PRELOAD=%s", pre);
      qargv[q++] = "-E";
      qargv[q++] = str->preload;
    } else {
      qargv[q++] = "-U";
      qargv[q++] = "LD_PRELOAD";
    }
    if (pad && qemu_places_by_host(qemu_major))
      q = pad_stack(str, qargv, q);
  }
  if (shebang(prog, str->interp, sizeof(str->interp), str->interp_arg,
              sizeof(str->interp_arg))) {
    qargv[q++] = str->interp;
    if (str->interp_arg[0])
      qargv[q++] = str->interp_arg;
  } else if (sh_script(prog))
    qargv[q++] = "/bin/sh";
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

/* In the child, before exec: the guest's layout fixed. QEMU 8.1 on
 * (host and guest pages of one size, no -R) hands a guest's mmap without
 * an address to the host kernel, which places it by its own layout,
 * randomised on every exec (QEMU 7.2 asked for the next address above its
 * base and got it). Without randomisation (ADDR_NO_RANDOMIZE), in the
 * legacy bottom-up layout (ADDR_COMPAT_LAYOUT: each mapping above the
 * last, as 7.2 placed them: libc above the dynamic linker), the same
 * command gets the same guest addresses, and with them the same modelled
 * counts (the plugin keeps QEMU's own threads off them: one malloc
 * arena). A kernel or seccomp filter that refuses the personality leaves
 * the layout as it was (exact counts the same, modelled ones may vary). */
static void fix_guest_layout(void)
{
  int cur = personality(0xffffffff);

  if (cur != -1)
    (void)personality((unsigned long)cur | ADDR_NO_RANDOMIZE |
                      ADDR_COMPAT_LAYOUT);
}

/* The child: exec qargv; if that fails, its errno goes up the pipe (the
 * parent says it) and the child exits as a shell's would. */
static void run_child(char **qargv, int report_fd)
{
  int err;
  ssize_t n;

  preload_plugin(qargv);
  fix_guest_layout();
  execv(qargv[0], qargv);
  err = errno;
  n = write(report_fd, &err, sizeof err);
  (void)n; /* the exit status says it anyway */
  _exit(QEMU_RUN_EXIT_NOT_EXEC);
}

/* Reap pid, SIGINT (blocked, with SIGCHLD, by the caller) taken as perf
 * record takes it: the program is sent SIGTERM, then waited for, so that
 * its samples are still written. Not for Ctrl-C (the terminal's SIGINT,
 * si_code SI_KERNEL), which the program got too and ends by as before. A
 * SIGINT left over once it is reaped is dropped, the command going on to
 * write its file. */
static void wait_child_stopping(pid_t pid, const sigset_t *set,
                                struct qemu_child *r)
{
  const struct timespec zero = {0, 0};
  sigset_t intset;
  siginfo_t info;
  pid_t got;

  for (;;) {
    got = wait4(pid, &r->status, WNOHANG, &r->ru);
    if (got == pid || (got < 0 && errno != EINTR))
      break;
    if (got == 0 && sigwaitinfo(set, &info) == SIGINT &&
        info.si_code != SI_KERNEL)
      kill(pid, SIGTERM);
  }
  sigemptyset(&intset);
  sigaddset(&intset, SIGINT);
  while (sigtimedwait(&intset, NULL, &zero) == SIGINT)
    ;
}

/* The parent: wait for the child, Ctrl-C and Ctrl-\ left to it (as perf
 * does: the results are still written); with int_stops, a SIGINT to the
 * command stops the child (wait_child_stopping). The pipe's read end
 * gives the child's exec errno, or end of file once the exec closed it. */
static void wait_child(pid_t pid, int report_fd, bool int_stops, char **qargv,
                       struct qemu_child *r, char *why, size_t whylen)
{
  struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
  sigset_t set, old_mask;
  int err = 0;
  ssize_t n;

  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGCHLD);
  if (int_stops)
    sigprocmask(SIG_BLOCK, &set, &old_mask);
  else
    sigaction(SIGINT, &ign, &old_int);
  sigaction(SIGQUIT, &ign, &old_quit);
  while ((n = read(report_fd, &err, sizeof err)) < 0 && errno == EINTR)
    ;
  if (n == (ssize_t)sizeof err)
    snprintf(why, whylen, "%s: %s", qargv[0], strerror(err));
  if (int_stops) {
    wait_child_stopping(pid, &set, r);
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
  } else {
    while (wait4(pid, &r->status, 0, &r->ru) < 0 && errno == EINTR)
      ;
    sigaction(SIGINT, &old_int, NULL);
  }
  sigaction(SIGQUIT, &old_quit, NULL);
}

/* The signals a command cleans up after (qemu_run_blocked). */
static const int qemu_run_signals[] = {SIGHUP, SIGINT, SIGPIPE, SIGTERM};
#define QEMU_RUN_NSIGNALS                                                      \
  (sizeof(qemu_run_signals) / sizeof(qemu_run_signals[0]))

static void qemu_run_block_signals(sigset_t *old)
{
  sigset_t set;
  size_t i;

  sigemptyset(&set);
  for (i = 0; i < QEMU_RUN_NSIGNALS; i++)
    sigaddset(&set, qemu_run_signals[i]);
  sigprocmask(SIG_BLOCK, &set, old);
}

void qemu_run_blocked(void (*fn)(void *opaque), void *opaque)
{
  sigset_t old;

  qemu_run_block_signals(&old);
  fn(opaque);
  sigprocmask(SIG_SETMASK, &old, NULL);
}

/* In the child, before its mask is restored: a handler the command
 * caught a signal with is reset, as exec would reset it, so that a signal
 * before the exec does not run the command's cleanup in the child; one
 * ignored stays ignored (nohup). */
static void qemu_run_reset_handlers(void)
{
  struct sigaction cur, dfl = {.sa_handler = SIG_DFL};
  size_t i;

  sigemptyset(&dfl.sa_mask);
  for (i = 0; i < QEMU_RUN_NSIGNALS; i++)
    if (sigaction(qemu_run_signals[i], NULL, &cur) == 0 &&
        cur.sa_handler != SIG_IGN && cur.sa_handler != SIG_DFL)
      sigaction(qemu_run_signals[i], &dfl, NULL);
}

static void qemu_run_tell(qemu_run_watch *watch, void *opaque, pid_t pid)
{
  if (watch)
    watch(opaque, pid);
}

int qemu_run_spawn(char **qargv, bool int_stops, qemu_run_watch *watch,
                   void *opaque, struct qemu_child *r, char *why, size_t whylen)
{
  int report[2];
  pid_t pid;
  sigset_t old;

  why[0] = '\0';
  clock_gettime(CLOCK_MONOTONIC, &r->t0);
  if (pipe2(report, O_CLOEXEC) != 0) {
    snprintf(why, whylen, "pipe: %s", strerror(errno));
    return -1;
  }
  /* Blocked from the fork until the watcher knows the child, so that a
   * signal's handler never misses it; the child gets the mask back. */
  qemu_run_block_signals(&old);
  pid = fork();
  if (pid < 0) {
    snprintf(why, whylen, "fork: %s", strerror(errno));
    sigprocmask(SIG_SETMASK, &old, NULL);
    close(report[0]);
    close(report[1]);
    return -1;
  }
  if (pid == 0) {
    qemu_run_reset_handlers();
    sigprocmask(SIG_SETMASK, &old, NULL);
    close(report[0]);
    run_child(qargv, report[1]);
  }
  qemu_run_tell(watch, opaque, pid);
  sigprocmask(SIG_SETMASK, &old, NULL);
  close(report[1]);
  wait_child(pid, report[0], int_stops, qargv, r, why, whylen);
  close(report[0]);
  qemu_run_block_signals(&old);
  qemu_run_tell(watch, opaque, 0);
  sigprocmask(SIG_SETMASK, &old, NULL);
  clock_gettime(CLOCK_MONOTONIC, &r->t1);
  return 0;
}

int qemu_run_exit_status(const struct qemu_child *r, char *why, size_t whylen)
{
  why[0] = '\0';
  if (WIFEXITED(r->status))
    return WEXITSTATUS(r->status);
  if (WIFSIGNALED(r->status)) {
    snprintf(why, whylen, "the program was killed by signal %d (%s)",
             WTERMSIG(r->status), strsignal(WTERMSIG(r->status)));
    return 128 + WTERMSIG(r->status);
  }
  return 2; /* not reached: wait4 without WUNTRACED reports an exit or a
               signal (2 is the commands' status for a failure) */
}

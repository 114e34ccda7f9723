/* SPDX-License-Identifier: GPL-2.0-or-later */
/* execve followed (exec.h).
 *
 * QEMU 7.2's user mode executes a guest's execve natively: the program it
 * starts is a plain host process. Here the plugin looks at the system
 * call before it runs: its arguments are in guest memory, which under
 * qemu-x86_64 on an x86-64 host is the process's own memory at the guest
 * address plus QEMU's guest base (qemu_plugin_insn_haddr of an
 * instruction QEMU translated; checked against its bytes, and refused
 * when they differ). If the
 * execve would fail natively, it is left to fail, and the program gets
 * its error; if it would start a program the plugin can run, the process
 * execs qemu-x86_64 itself, with the QEMU options of its own command line
 * (/proc/self/cmdline: all but -E, -U and -0; -seed N among them, so that
 * QEMU's random bytes start again from N, as the plugin's do with seed=N)
 * and this plugin's arguments, on the program and
 * its argument and environment vectors, as the kernel would have run it:
 * same pid, argv[0] as given (-0), a "#!" script under its interpreter
 * (execve(2)). Everything else runs natively, uncounted, with the reason
 * said: a setuid or setgid program (its privileges would be lost), a
 * program for another architecture, a file the plugin cannot read, a
 * script whose interpreter is a script, execveat on a descriptor. */
#define _GNU_SOURCE /* AT_EACCESS, dladdr */
#include "exec.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "args.h"
#include "cmdline.h"

#define NR_EXECVEAT 322
#define MAX_VECTOR (1u << 20) /* more arguments than ARG_MAX holds */
#define EM_X86_64_ 62         /* e_machine of x86-64 (ELF's gABI) */

/* The strings of a vector, grown as needed; NULL-terminated. */
struct vec {
  char **v;
  size_t n, cap;
};

struct spmu_qemu_exec {
  const struct spmu_qemu_config *cfg;
  struct vec argv, envp;          /* qemu-x86_64's; envp its environment */
  struct vec own;                 /* every string made here, to free */
  struct vec pads;                /* the stack's padding (-E), if given */
  size_t plugin_at;               /* argv's -plugin value of this plugin */
  struct spmu_qemu_guest_mem mem; /* the guest's memory (the probe's) */
  char plugin[PATH_MAX];          /* its path, as the command line has it */
  char comm[SPMU_PLUGIN_ARGS_COMM_MAX];
};

/* ---- vectors --------------------------------------------------------------
 */

static bool vec_push(struct vec *v, char *s)
{
  if (v->n + 1 >= v->cap) {
    size_t cap = v->cap ? 2 * v->cap : 32;
    char **p = realloc(v->v, cap * sizeof(*p));

    if (!p)
      return false;
    v->v = p;
    v->cap = cap;
  }
  v->v[v->n++] = s;
  v->v[v->n] = NULL;
  return true;
}

/* A copy of s, owned by x, pushed onto v. */
static bool push_copy(struct spmu_qemu_exec *x, struct vec *v, const char *s)
{
  char *c = strdup(s);

  if (!c || !vec_push(&x->own, c)) {
    free(c);
    return false;
  }
  return vec_push(v, c);
}

static void vec_free(struct vec *v, bool strings)
{
  size_t i;

  if (strings)
    for (i = 0; i < v->n; i++)
      free(v->v[i]);
  free(v->v);
}

void spmu_qemu_exec_free(struct spmu_qemu_exec *x)
{
  if (!x)
    return;
  vec_free(&x->argv, false);
  vec_free(&x->envp, false);
  vec_free(&x->pads, false);
  vec_free(&x->own, true);
  free(x);
}

/* The NUL-terminated string at addr, owned by x: NULL on a fault. Read a
 * page at most at a time, so that a string that ends before an unmapped
 * page is read whole. */
static char *read_string(struct spmu_qemu_exec *x, uint64_t addr)
{
  char *s = NULL, *t;
  size_t len = 0, chunk;

  for (;;) {
    chunk = 4096 - (size_t)((addr + len) & 4095);
    if (len + chunk > (size_t)4 << 20 || !(t = realloc(s, len + chunk + 1)))
      break;
    s = t;
    if (!spmu_qemu_guest_read(&x->mem, addr + len, s + len, chunk))
      break;
    s[len + chunk] = '\0';
    if (memchr(s + len, 0, chunk)) {
      if (vec_push(&x->own, s))
        return s;
      break;
    }
    len += chunk;
  }
  free(s);
  return NULL;
}

/* The vector of strings at addr (NULL: none) into v: false on a fault. */
static bool read_vector(struct spmu_qemu_exec *x, uint64_t addr, struct vec *v)
{
  uint64_t p;
  char *s;
  size_t i;

  for (i = 0; addr; i++) {
    if (i >= MAX_VECTOR ||
        !spmu_qemu_guest_read(&x->mem, addr + 8 * i, &p, sizeof(p)))
      return false;
    if (!p)
      break;
    if (!(s = read_string(x, p)) || !vec_push(v, s))
      return false;
  }
  return true;
}

/* ---- the program --------------------------------------------------------- */

/* What the kernel would make of the file at path (execve(2)). */
struct target {
  char interp[256], interp_arg[256]; /* a script's "#!" line */
  bool script;
};

/* A "#!" line's interpreter and its one argument (the rest of the line,
 * its blanks at either end removed), as the kernel reads it. */
static bool parse_shebang(char *line, struct target *t)
{
  char *p, *end;

  line[strcspn(line, "\n")] = '\0';
  p = line + 2 + strspn(line + 2, " \t");
  end = p + strcspn(p, " \t");
  if (end == p || (size_t)(end - p) >= sizeof(t->interp))
    return false;
  snprintf(t->interp, sizeof(t->interp), "%.*s", (int)(end - p), p);
  p = end + strspn(end, " \t");
  end = p + strlen(p);
  while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
    end--;
  snprintf(t->interp_arg, sizeof(t->interp_arg), "%.*s", (int)(end - p), p);
  t->script = true;
  return true;
}

static enum spmu_qemu_exec_way check_file(const char *path, unsigned depth,
                                          struct target *t, char *why,
                                          size_t len);

/* The first bytes of an executable path, n of them: an ELF x86-64
 * program, a script (its interpreter checked as the kernel checks it), or
 * something the kernel would refuse. */
static enum spmu_qemu_exec_way check_header(const char *path, char *h, size_t n,
                                            unsigned depth, struct target *t,
                                            char *why, size_t len)
{
  struct target inner;
  unsigned machine;

  if (n >= 2 && h[0] == '#' && h[1] == '!') {
    if (depth > 0) {
      snprintf(why, len,
               "%s: a script run as the interpreter of another "
               "is not followed",
               path);
      return SPMU_QEMU_EXEC_NATIVE;
    }
    if (!parse_shebang(h, t))
      return SPMU_QEMU_EXEC_FAILS; /* ENOEXEC */
    return check_file(t->interp, depth + 1, &inner, why, len);
  }
  if (n < 20 || memcmp(h, "\177ELF", 4) != 0)
    return SPMU_QEMU_EXEC_FAILS; /* ENOEXEC (binfmt_misc aside) */
  machine = (unsigned char)h[18] | (unsigned)(unsigned char)h[19] << 8;
  if (h[4] != 2 || h[5] != 1 || machine != EM_X86_64_) {
    snprintf(why, len, "%s: not an x86-64 program", path);
    return SPMU_QEMU_EXEC_NATIVE;
  }
  return SPMU_QEMU_EXEC_FOLLOW;
}

/* Would the kernel run path (depth: as a script's interpreter), and can
 * qemu-x86_64 run it? The checks of execve(2)'s ENOENT, EACCES (not a
 * regular file, no execute permission, a noexec mount) and ENOEXEC. */
static enum spmu_qemu_exec_way check_file(const char *path, unsigned depth,
                                          struct target *t, char *why,
                                          size_t len)
{
  struct stat st;
  struct statvfs vfs;
  char h[256];
  ssize_t n;
  int fd;

  memset(t, 0, sizeof(*t));
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
      faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) != 0 ||
      statvfs(path, &vfs) != 0 || (vfs.f_flag & ST_NOEXEC))
    return SPMU_QEMU_EXEC_FAILS;
  if (depth == 0 && !(vfs.f_flag & ST_NOSUID) &&
      ((st.st_mode & S_ISUID) ||
       (st.st_mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP))) {
    snprintf(why, len,
             "%s is set-user-ID or set-group-ID: under QEMU it "
             "would lose its privileges, so it is not followed",
             path);
    return SPMU_QEMU_EXEC_NATIVE;
  }
  if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
    snprintf(why, len, "%s: %s (QEMU must read the program)", path,
             strerror(errno));
    return SPMU_QEMU_EXEC_NATIVE;
  }
  n = read(fd, h, sizeof(h) - 1);
  close(fd);
  h[n > 0 ? n : 0] = '\0';
  return check_header(path, h, n > 0 ? (size_t)n : 0, depth, t, why, len);
}

/* ---- qemu-x86_64's command line ------------------------------------------ */

/* This plugin's file, resolved. */
static bool own_path(char *buf)
{
  Dl_info info;

  return dladdr((void *)spmu_qemu_exec_prepare, &info) && info.dli_fname &&
         realpath(info.dli_fname, buf);
}

/* Is a -plugin value ("[file=]PATH,args") this plugin's? Its path into
 * x->plugin. */
static bool is_own_plugin(struct spmu_qemu_exec *x, const char *val,
                          const char *own)
{
  char resolved[PATH_MAX];
  size_t n;

  if (strncmp(val, "file=", 5) == 0)
    val += 5;
  n = strcspn(val, ",");
  if (n >= sizeof(x->plugin))
    return false;
  snprintf(x->plugin, sizeof(x->plugin), "%.*s", (int)n, val);
  return realpath(x->plugin, resolved) && strcmp(resolved, own) == 0;
}

/* qemu-x86_64's options from its command line, but for those that set the
 * guest's environment and argv[0] (-E, -U, -0: the new program's are the
 * execve's), onto x->argv; the place of this plugin's -plugin value. */
static bool take_options(struct spmu_qemu_exec *x, char *why, size_t len)
{
  char own[PATH_MAX], *cmd = NULL, *p, *end;
  size_t n = spmu_qemu_cmdline_read(&cmd);
  bool found = false, ok = n > 0;

  if (!own_path(own)) {
    snprintf(why, len, "cannot find the plugin's own file");
    free(cmd);
    return false;
  }
  end = cmd + n;
  for (p = ok ? cmd + strlen(cmd) + 1 : end; ok && p < end && *p == '-';) {
    const char *opt = p + 1 + (p[1] == '-');
    char *val = p + strlen(p) + 1;
    bool drop = !strcmp(opt, "E") || !strcmp(opt, "U") || !strcmp(opt, "0");

    if (!strcmp(p, "--"))
      break;
    if (!spmu_qemu_cmdline_takes_value(opt)) {
      ok = push_copy(x, &x->argv, p);
      p = val;
      continue;
    }
    if (val >= end)
      break;
    if (!strcmp(opt, "E") && strncmp(val, SPMU_PLUGIN_PAD_PREFIX,
                                     sizeof(SPMU_PLUGIN_PAD_PREFIX) - 1) == 0)
      ok = push_copy(x, &x->pads, val);
    if (!strcmp(opt, "plugin") && !found && is_own_plugin(x, val, own)) {
      found = true;
      x->plugin_at = x->argv.n + 1;
    }
    if (!drop)
      ok = push_copy(x, &x->argv, p) && push_copy(x, &x->argv, val);
    p = val + strlen(val) + 1;
  }
  free(cmd);
  if (ok && !found)
    snprintf(why, len, "the plugin is not on QEMU's command line");
  else if (!ok)
    snprintf(why, len, "cannot read QEMU's command line");
  return ok && found;
}

/* ---- the environment ----------------------------------------------------- */

/* The stack's padding as this qemu-x86_64 had it (protocol/args.h), set
 * last, so that the new program's stack starts as this one's did. */
static bool take_pads(struct spmu_qemu_exec *x)
{
  size_t i;
  bool ok = true;

  for (i = 0; ok && i < x->pads.n; i++)
    ok = push_copy(x, &x->argv, "-E") && push_copy(x, &x->argv, x->pads.v[i]);
  return ok;
}

/* The new qemu-x86_64's environment is the execve's, in reverse order
 * (QEMU 7.2 hands its environment to the program last variable first), but
 * for LD_PRELOAD: when this one has the plugin preloaded (softpmu stat's
 * kill hook), so does the new one, and the program gets the execve's
 * LD_PRELOAD, or none, through -E or -U. */
static bool take_environment(struct spmu_qemu_exec *x, const struct vec *env)
{
  const char *host = getenv("LD_PRELOAD"), *guest = NULL;
  char *s;
  size_t i;
  bool ok = true;

  for (i = env->n; i-- > 0 && ok;) {
    if (host && strncmp(env->v[i], "LD_PRELOAD=", 11) == 0) {
      guest = env->v[i]; /* the first one, as getenv finds it */
      continue;
    }
    ok = vec_push(&x->envp, env->v[i]);
  }
  if (!host || !ok)
    return ok;
  if (!(s = malloc(strlen(host) + 12)) || !vec_push(&x->own, s)) {
    free(s);
    return false;
  }
  sprintf(s, "LD_PRELOAD=%s", host);
  if (!vec_push(&x->envp, s))
    return false;
  if (guest)
    return push_copy(x, &x->argv, "-E") && push_copy(x, &x->argv, guest);
  return push_copy(x, &x->argv, "-U") && push_copy(x, &x->argv, "LD_PRELOAD");
}

/* ---- the call --------------------------------------------------------------
 */

/* The program, argv[0] and the rest: an ELF program under -0 ARGV0, a
 * script as the kernel runs it (interpreter, its argument, the script's
 * path, argv[1...]; execve(2)). */
static bool take_program(struct spmu_qemu_exec *x, const char *path,
                         const struct target *t, const struct vec *argv)
{
  bool ok = true;
  size_t i;

  if (!t->script)
    ok = push_copy(x, &x->argv, "-0") &&
         push_copy(x, &x->argv, argv->n ? argv->v[0] : "");
  ok = ok && push_copy(x, &x->argv, "--");
  if (t->script) {
    ok = ok && push_copy(x, &x->argv, t->interp);
    if (t->interp_arg[0])
      ok = ok && push_copy(x, &x->argv, t->interp_arg);
  }
  ok = ok && push_copy(x, &x->argv, path);
  for (i = 1; i < argv->n && ok; i++)
    ok = vec_push(&x->argv, argv->v[i]);
  return ok;
}

/* The path execve(2) or execveat(2) names, or NULL (why says) when the
 * call is not one the plugin follows. */
static const char *call_path(struct spmu_qemu_exec *x,
                             const struct spmu_qemu_exec_call *c,
                             uint64_t *argv, uint64_t *envp, bool *fault,
                             char *why, size_t len)
{
  bool at = c->num == NR_EXECVEAT;
  const char *path = read_string(x, at ? c->a[1] : c->a[0]);

  *argv = at ? c->a[2] : c->a[1];
  *envp = at ? c->a[3] : c->a[2];
  *fault = !path;
  if (path && at &&
      (c->a[4] != 0 || (path[0] != '/' && (int)c->a[0] != AT_FDCWD))) {
    snprintf(why, len,
             "execveat on a file descriptor or with flags is not "
             "followed");
    return NULL;
  }
  return path && path[0] ? path : NULL; /* else EFAULT, ENOENT */
}

static struct spmu_qemu_exec *exec_new(const struct spmu_qemu_config *cfg)
{
  struct spmu_qemu_exec *x = calloc(1, sizeof(*x));
  char *self = x ? realpath("/proc/self/exe", NULL) : NULL;

  if (!self || !vec_push(&x->own, self) || !vec_push(&x->argv, self)) {
    free(self);
    spmu_qemu_exec_free(x);
    return NULL;
  }
  x->cfg = cfg;
  return x;
}

/* The kernel's comm: the file's name, cut to 15 characters. */
static void take_comm(struct spmu_qemu_exec *x, const char *path)
{
  const char *slash = strrchr(path, '/');

  snprintf(x->comm, sizeof(x->comm), "%s", slash ? slash + 1 : path);
}

enum spmu_qemu_exec_way
spmu_qemu_exec_prepare(const struct spmu_qemu_config *cfg,
                       const struct spmu_qemu_exec_probe *probe,
                       const struct spmu_qemu_exec_call *call,
                       struct spmu_qemu_exec **out, char *why, size_t len)
{
  struct spmu_qemu_exec *x = exec_new(cfg);
  struct vec argv = {0}, env = {0};
  enum spmu_qemu_exec_way way = SPMU_QEMU_EXEC_NATIVE;
  uint64_t pargv, penv;
  const char *path;
  struct target t;
  bool fault;

  why[0] = '\0';
  *out = NULL;
  if (x)
    x->mem = probe->mem;
  if (!x)
    snprintf(why, len, "cannot find qemu-x86_64 (/proc/self/exe)");
  else if (!probe->n || !probe->mem.known)
    snprintf(why, len,
             "guest addresses are not host addresses plus QEMU's guest "
             "base here");
  else if (!(path = call_path(x, call, &pargv, &penv, &fault, why, len)))
    way = fault || !why[0] ? SPMU_QEMU_EXEC_FAILS : SPMU_QEMU_EXEC_NATIVE;
  else if (!read_vector(x, pargv, &argv) || !read_vector(x, penv, &env))
    way = SPMU_QEMU_EXEC_FAILS; /* EFAULT, E2BIG */
  else if ((way = check_file(path, 0, &t, why, len)) == SPMU_QEMU_EXEC_FOLLOW &&
           (!take_options(x, why, len) || !take_environment(x, &env) ||
            !take_pads(x) || !take_program(x, path, &t, &argv))) {
    if (!why[0])
      snprintf(why, len, "out of memory");
    way = SPMU_QEMU_EXEC_NATIVE;
  }
  if (way == SPMU_QEMU_EXEC_FOLLOW) {
    take_comm(x, path);
    *out = x;
  } else
    spmu_qemu_exec_free(x);
  vec_free(&argv, false);
  vec_free(&env, false);
  return way;
}

void spmu_qemu_exec_run(struct spmu_qemu_exec *x, uint64_t time, char *why,
                        size_t len)
{
  struct spmu_plugin_args a = x->cfg->args;
  char *opt;

  snprintf(a.comm, sizeof(a.comm), "%s", x->comm);
  a.exec_time = time ? time : 1;
  opt = spmu_plugin_args_option(x->plugin, &a);
  if (!opt || !vec_push(&x->own, opt)) {
    free(opt);
    snprintf(why, len, "out of memory");
    return;
  }
  x->argv.v[x->plugin_at] = opt;
  execve(x->argv.v[0], x->argv.v, x->envp.v);
  snprintf(why, len, "%s: %s", x->argv.v[0], strerror(errno));
}

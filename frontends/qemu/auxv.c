/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The program's start as QEMU 7.2 lays it out (auxv.h). At a program's
 * first instruction the stack pointer points at argc, then the argv
 * pointers and a null, the envp pointers and a null, then the auxiliary
 * vector: (type, value) pairs up to AT_NULL (the System V x86-64 ABI's
 * process start, 3.4.1, as Linux and qemu-user lay it out); the strings
 * they point to lie above, each environment string after the one before
 * it. Two things differ between QEMU 7.2 and 10, and are made 7.2's:
 *  - the vDSO: the entry whose type is AT_SYSINFO_EHDR is taken out, the
 *    entries after it moved down, so the dynamic linker sets up no vDSO.
 *    (Turned into AT_IGNORE instead, it would still cost the dynamic
 *    linker's walk of the vector one more entry: 6 instructions.) The
 *    vDSO stays mapped, unnamed;
 *  - the environment's order: QEMU 7.2 gives the program its environment
 *    last variable first, QEMU 10 in order, so getenv's scans differ. The
 *    strings and their pointers are put in the reverse order, the strings
 *    in the same bytes of the stack, as 7.2 places them. */
#define _GNU_SOURCE /* O_CLOEXEC */
#include "auxv.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fail.h"
#include "stack.h"

#define AT_NULL 0
#define AT_SYSINFO_EHDR 33
/* More words than any stack start holds (argv, envp and the vector
 * together): a walk that finds no end by then is not of a stack. */
#define WALK_MAX (UINT64_C(1) << 22)

/* The longest string the kernel takes in an environment (MAX_ARG_STRLEN,
 * 32 pages). */
#define STRING_MAX (32u * 4096u)

static void say(const char *why)
{
  spmu_qemu_fail("cannot start the program as QEMU 7.2 does, without the "
                 "vDSO and with its environment reversed (%s): its counts "
                 "may differ from QEMU 7.2's",
                 why);
}

/* *p: the address just past the null that ends the pointers from *p;
 * false, *p as it was, when there is none. */
static bool skip_pointers(const struct spmu_qemu_guest_mem *m, uint64_t *p)
{
  uint64_t w, k, at = *p;

  for (k = 0; k < WALK_MAX; k++, at += 8) {
    if (!spmu_qemu_guest_read(m, at, &w, sizeof(w)))
      return false;
    if (!w) {
      *p = at + 8;
      return true;
    }
  }
  return false;
}

/* The length of the string at addr, or 0 when there is none (no NUL
 * within STRING_MAX, or nothing mapped). */
static uint64_t string_length(const struct spmu_qemu_guest_mem *m,
                              uint64_t addr)
{
  char c;
  uint64_t n;

  for (n = 0; n < STRING_MAX; n++) {
    if (!spmu_qemu_guest_read(m, addr + n, &c, 1))
      return 0;
    if (!c)
      return n + 1;
  }
  return 0;
}

/* The n strings of env[], laid one after the other from env[0], put in
 * the reverse order in the same bytes: the last one first, at env[0]'s
 * address. Their new addresses, in the new order, into rev[]. */
static const char *reverse_strings(const struct spmu_qemu_guest_mem *m,
                                   const uint64_t *env, uint64_t n,
                                   uint64_t *rev)
{
  uint64_t i, len = 0, at, size;
  char *old, *buf;
  const char *why = NULL;

  for (i = 0, at = env[0]; i < n; i++, at += len)
    if (env[i] != at || !(len = string_length(m, at)))
      return "its environment's strings are not one after the other";
  size = at - env[0];
  old = malloc(size);
  buf = malloc(size);
  if (!old || !buf || !spmu_qemu_guest_read(m, env[0], old, size))
    why = "its environment cannot be read";
  for (i = n, at = 0; !why && i-- > 0; at += len) {
    len = (i + 1 < n ? env[i + 1] : env[0] + size) - env[i];
    memcpy(buf + at, old + (env[i] - env[0]), len);
    rev[n - 1 - i] = env[0] + at;
  }
  if (!why && !spmu_qemu_guest_write(m, env[0], buf, size))
    why = "its stack is not writable";
  free(old);
  free(buf);
  return why;
}

/* How many variables QEMU's -E options set (on its command line,
 * /proc/self/cmdline): QEMU 7.2 and 10 alike put each at the front of
 * the environment, after ordering the rest. */
static uint64_t set_by_qemu(void)
{
  char buf[1 << 16];
  uint64_t k = 0;
  ssize_t n, i;
  int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);

  if (fd < 0)
    return 0;
  n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  if (n > 0)
    buf[n] = '\0';
  for (i = 0; n > 0 && i < n; i += (ssize_t)strlen(buf + i) + 1) {
    if (strcmp(buf + i, "--") == 0)
      break;
    if (strcmp(buf + i, "-E") == 0)
      k++;
  }
  return k;
}

/* The environment whose pointers start at *p, last variable first but
 * for the first `front` (QEMU's -E), which stay; *p past their null. */
static const char *reverse_environment(const struct spmu_qemu_guest_mem *m,
                                       uint64_t *p, uint64_t front)
{
  uint64_t envp = *p, n, *env, *rev;
  const char *why = NULL;

  if (!skip_pointers(m, p))
    return "no end of the environment";
  n = (*p - envp) / 8 - 1;
  if (n < front + 2)
    return NULL;
  envp += 8 * front;
  n -= front;
  env = malloc(n * sizeof(*env));
  rev = malloc(n * sizeof(*rev));
  if (!env || !rev || !spmu_qemu_guest_read(m, envp, env, n * sizeof(*env)))
    why = "its environment cannot be read";
  if (!why)
    why = reverse_strings(m, env, n, rev);
  if (!why && !spmu_qemu_guest_write(m, envp, rev, n * sizeof(*rev)))
    why = "its stack is not writable";
  free(env);
  free(rev);
  return why;
}

/* The entries from p on, up to AT_NULL included, each moved one entry
 * down (over the one at p - 16). */
static const char *close_up(const struct spmu_qemu_guest_mem *m, uint64_t p)
{
  uint64_t e[2], k;

  for (k = 0; k < WALK_MAX; k++, p += 16) {
    if (!spmu_qemu_guest_read(m, p, e, sizeof(e)))
      return "no end of the auxiliary vector";
    if (!spmu_qemu_guest_write(m, p - 16, e, sizeof(e)))
      return "its stack is not writable";
    if (e[0] == AT_NULL)
      return NULL;
  }
  return "no end of the auxiliary vector";
}

/* The vector's AT_SYSINFO_EHDR entry, from its first entry at p: its
 * address into *vdso, 0 when it has none. */
static const char *find_vdso(const struct spmu_qemu_guest_mem *m, uint64_t p,
                             uint64_t *vdso)
{
  uint64_t type, k;

  *vdso = 0;
  for (k = 0; k < WALK_MAX; k++, p += 16) {
    if (!spmu_qemu_guest_read(m, p, &type, sizeof(type)))
      return "no end of the auxiliary vector";
    if (type == AT_NULL)
      return NULL;
    if (type == AT_SYSINFO_EHDR && !*vdso)
      *vdso = p;
  }
  return "no end of the auxiliary vector";
}

/* The start from sp made QEMU 7.2's: the environment last variable first
 * where QEMU gave it in order, and the vector without its
 * AT_SYSINFO_EHDR entry (the entries after it moved down, so the vector
 * is the one QEMU 7.2 gives, one AT_NULL entry longer at its end). */
static const char *hide(struct spmu_qemu_auxv *a, uint64_t sp)
{
  const struct spmu_qemu_guest_mem *m = &a->mem;
  uint64_t argc, p, envp, vdso;
  const char *why;

  if (!spmu_qemu_guest_read(m, sp, &argc, sizeof(argc)) || argc >= WALK_MAX)
    return "no argument count at the stack pointer";
  p = envp = sp + 8 * (argc + 2); /* argc, argv[0..argc), its null */
  if (!skip_pointers(m, &p))
    return "no end of the environment";
  if ((why = find_vdso(m, p, &vdso)) != NULL)
    return why;
  a->vdso = vdso != 0;
  if (a->keep)
    return NULL;
  if (spmu_qemu_api_env_in_order(a->api, vdso != 0) &&
      (why = reverse_environment(m, &envp, set_by_qemu())) != NULL)
    say(why); /* the vDSO is withheld all the same */
  return vdso ? close_up(m, vdso + 16) : NULL;
}

/* The stack pointer at the program's first instruction: read where the
 * plugin API reads registers (API 2 on), else found by the stack's
 * content (stack.c). */
static const char *stack_pointer(const struct spmu_qemu_auxv *a, uint64_t *sp)
{
  struct spmu_qemu_gprs g;
  uint64_t r[SPMU_QEMU_GPRS];

  if (!spmu_qemu_api_registers(a->api))
    return spmu_qemu_stack_find(&a->mem, sp) ? NULL : "its stack is not found";
  if (!spmu_qemu_gprs_find(a->api, &g) ||
      !spmu_qemu_gprs_read(a->api, &g, SPMU_QEMU_GPRS, r))
    return "its stack pointer cannot be read";
  *sp = r[SPMU_QEMU_RSP];
  if (!spmu_qemu_guest_agrees(&a->mem, a->api, *sp, 8))
    return "its stack is not where the plugin looks";
  return NULL;
}

static void on_first_block(unsigned int vcpu_index, void *userdata)
{
  struct spmu_qemu_auxv *a = userdata;
  uint64_t sp = 0;
  const char *why;

  (void)vcpu_index;
  if (atomic_exchange(&a->done, true))
    return;
  if ((why = stack_pointer(a, &sp)) == NULL)
    why = hide(a, sp);
  if (why && !a->keep)
    say(why);
}

void spmu_qemu_auxv_arm(struct spmu_qemu_auxv *a,
                        const struct spmu_qemu_api *api,
                        struct qemu_plugin_tb *qtb,
                        const struct spmu_qemu_guest_mem *mem, bool keep)
{
  a->api = api;
  a->mem = *mem;
  a->keep = keep;
  if (!mem->known) {
    if (!keep)
      say("its memory is not where the plugin looks");
    return;
  }
  if (!spmu_qemu_api_registers(api))
    on_first_block(0, a); /* nothing has run: the start is as QEMU laid it */
  else if (!keep)
    qemu_plugin_register_vcpu_tb_exec_cb(qtb, on_first_block,
                                         QEMU_PLUGIN_CB_R_REGS, a);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The program's start as QEMU 7.2 lays it out (auxv.h). At a program's
 * first instruction the stack pointer points at argc, then the argv
 * pointers and a null, the envp pointers and a null, then the auxiliary
 * vector: (type, value) pairs up to AT_NULL (the System V x86-64 ABI's
 * process start, 3.4.1, as Linux and qemu-user lay it out); the strings
 * they point to lie above, each environment string after the one before
 * it. These differ between QEMU 7.2 and 10 (and 8.2: the vDSO and the
 * environment), and are made 7.2's:
 *  - the vDSO: the entry whose type is AT_SYSINFO_EHDR is taken out, the
 *    entries after it moved down, so the dynamic linker sets up no vDSO.
 *    (Turned into AT_IGNORE instead, it would still cost the dynamic
 *    linker's walk of the vector one more entry: 6 instructions.) The
 *    vDSO stays mapped, unnamed;
 *  - the environment's order: QEMU 7.2 gives the program its environment
 *    last variable first, QEMU 10 in order, so getenv's scans differ. The
 *    strings and their pointers are put in the reverse order, the strings
 *    in the same bytes of the stack, as 7.2 places them;
 *  - the stack pointer, which a plugin cannot write: QEMU 10's vector is
 *    one entry longer, which starts it 16 bytes lower. softpmu stat gives
 *    QEMU two padding variables first in the environment
 *    (protocol/args.h), which start it one page below 7.2's instead, at
 *    7.2's page offset; they are taken out (unpad): the arguments'
 *    strings, the platform string and the random bytes moved up to 7.2's
 *    addresses, 7.2's pointers and vector written at the stack pointer. */
#include "auxv.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cmdline.h"
#include "fail.h"
#include "stack.h"

#define AT_NULL 0
#define AT_PLATFORM 15
#define AT_RANDOM 25
#define AT_SYSINFO_EHDR 33
#define PAGE UINT64_C(4096)
#define ALIGN16(x) ((x) & ~UINT64_C(15))
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
 * within STRING_MAX, or nothing mapped): read a page at most at a time,
 * so that a string that ends before an unmapped page is found. */
static uint64_t string_length(const struct spmu_qemu_guest_mem *m,
                              uint64_t addr)
{
  char buf[PAGE];
  const char *nul;
  uint64_t n, k;

  for (n = 0; n < STRING_MAX; n += k) {
    k = PAGE - (addr + n) % PAGE;
    if (k > STRING_MAX - n)
      k = STRING_MAX - n;
    if (!spmu_qemu_guest_read(m, addr + n, buf, k))
      return 0;
    if ((nul = memchr(buf, 0, k)) != NULL)
      return n + (uint64_t)(nul - buf) + 1;
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
 * /proc/self/cmdline, before the program): QEMU 7.2 and 10 alike put
 * each at the front of the environment, after ordering the rest. */
static uint64_t set_by_qemu(void)
{
  char *cmd = NULL;
  size_t n = spmu_qemu_cmdline_read(&cmd);
  uint64_t k = n ? spmu_qemu_cmdline_count(cmd, n, "E") : 0;

  free(cmd);
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

/* ---- the stack's padding -------------------------------------------- */

/* The start as QEMU lays it out, read: the pointers from sp up to the
 * vector's end, and where the strings of the arguments end. */
struct start {
  uint64_t argc, envc, auxc; /* auxc: (type, value) pairs, AT_NULL's too */
  uint64_t *argv, *envp, *auxv;
  uint64_t args_end;
};

static void start_free(struct start *s)
{
  free(s->argv);
  free(s->envp);
  free(s->auxv);
}

/* n pointers from addr into a new array, up to the null (not counted) or,
 * for the vector (pairs true), AT_NULL's pair (counted); false when there
 * is no end. */
static bool read_words(const struct spmu_qemu_guest_mem *m, uint64_t addr,
                       bool pairs, uint64_t **out, uint64_t *n)
{
  uint64_t step = pairs ? 2 : 1, k, *w = NULL, *t, cap = 0;

  for (k = 0; k < WALK_MAX; k += step) {
    if (k + step > cap) {
      cap = cap ? 2 * cap : 64;
      if (!(t = realloc(w, cap * sizeof(*w))))
        break;
      w = t;
    }
    if (!spmu_qemu_guest_read(m, addr + 8 * k, w + k, 8 * step))
      break;
    if (!w[k]) {
      *out = w;
      *n = pairs ? k / 2 + 1 : k;
      return true;
    }
  }
  free(w);
  return false;
}

static bool read_start(const struct spmu_qemu_guest_mem *m, uint64_t sp,
                       struct start *s)
{
  uint64_t len;

  memset(s, 0, sizeof(*s));
  if (!spmu_qemu_guest_read(m, sp, &s->argc, 8) || !s->argc ||
      !read_words(m, sp + 8, false, &s->argv, &len) || len != s->argc ||
      !read_words(m, sp + 8 * (s->argc + 2), false, &s->envp, &s->envc) ||
      !read_words(m, sp + 8 * (s->argc + s->envc + 3), true, &s->auxv,
                  &s->auxc))
    return false;
  s->args_end = s->argv[0];
  for (len = 0; len < s->argc; len++) {
    if (s->argv[len] != s->args_end)
      return false; /* not one after the other */
    s->args_end += string_length(m, s->argv[len]);
  }
  return true;
}

/* How many of the first variables are the padding, one after the other
 * from the arguments' strings up; their length into *pad. */
static uint64_t count_pads(const struct spmu_qemu_guest_mem *m,
                           const struct start *s, uint64_t *pad)
{
  const size_t plen = sizeof(SPMU_PLUGIN_PAD_PREFIX) - 1;
  char name[sizeof(SPMU_PLUGIN_PAD_PREFIX)];
  uint64_t k, at = s->args_end;

  for (k = 0; k < s->envc && s->envp[k] == at; k++) {
    if (!spmu_qemu_guest_read(m, at, name, plen) ||
        memcmp(name, SPMU_PLUGIN_PAD_PREFIX, plen) != 0)
      break;
    at += string_length(m, at);
  }
  *pad = at - s->args_end;
  return k;
}

/* The words QEMU 7.2 puts from the stack pointer up, for s without its
 * first pads variables and the vDSO's entry, the arguments' strings
 * moved up by shift, the platform's string and the random bytes at
 * platform and random; their number into *n. */
static uint64_t *block_of_7_2(const struct start *s, uint64_t pads,
                              uint64_t shift, uint64_t platform,
                              uint64_t random, uint64_t *n)
{
  uint64_t *w = calloc(s->argc + s->envc + 2 * s->auxc + 3, sizeof(*w));
  uint64_t i, k = 0;

  if (!w)
    return NULL;
  w[k++] = s->argc;
  for (i = 0; i < s->argc; i++)
    w[k++] = s->argv[i] + shift;
  w[k++] = 0;
  for (i = pads; i < s->envc; i++)
    w[k++] = s->envp[i];
  w[k++] = 0;
  for (i = 0; i < s->auxc; i++) {
    uint64_t type = s->auxv[2 * i], val = s->auxv[2 * i + 1];

    if (type == AT_SYSINFO_EHDR)
      continue;
    w[k++] = type;
    w[k++] = type == AT_PLATFORM ? platform : type == AT_RANDOM ? random : val;
  }
  *n = k;
  return w;
}

/* The start without the padding (the arguments' strings moved up over
 * it, the platform's string and the random bytes below them as QEMU lays
 * them out, linux-user/elfload.c create_elf_tables) and without the
 * vDSO's entry: QEMU 7.2's, but for its pointers, which stay at sp: one
 * page below 7.2's. *pads: the variables taken out (0 when there were
 * none: nothing done). */
static const char *unpad(const struct spmu_qemu_guest_mem *m, uint64_t sp,
                         uint64_t *pads)
{
  struct start s;
  uint64_t pad, strings, platform, random, n, *w = NULL;
  uint64_t old_platform = 0, old_random = 0, i;
  char *img = NULL, *args = NULL, head[24];
  const char *why = NULL;

  *pads = 0;
  if (!read_start(m, sp, &s) || (*pads = count_pads(m, &s, &pad)) == 0) {
    start_free(&s);
    return NULL; /* said, if need be, by the walk that follows */
  }
  for (i = 0; i < s.auxc; i++) {
    if (s.auxv[2 * i] == AT_PLATFORM)
      old_platform = s.auxv[2 * i + 1];
    if (s.auxv[2 * i] == AT_RANDOM)
      old_random = s.auxv[2 * i + 1];
  }
  strings = s.argv[0] + pad; /* the lowest string, as under 7.2 */
  platform = strings - 8;    /* "x86_64", 8 bytes with its NUL */
  random = ALIGN16(platform) - 16;
  w = block_of_7_2(&s, *pads, pad, platform, random, &n);
  img = w ? calloc(1, strings - sp) : NULL;
  args = img ? malloc(s.args_end - s.argv[0]) : NULL;
  if (!args)
    why = "out of memory";
  else if (old_platform != s.argv[0] - 8 ||
           old_random != ALIGN16(old_platform) - 16 ||
           !spmu_qemu_guest_read(m, old_platform, head, 8) ||
           !spmu_qemu_guest_read(m, old_random, head + 8, 16) ||
           !spmu_qemu_guest_read(m, s.argv[0], args, s.args_end - s.argv[0]))
    why = "its start is not laid out as the plugin knows it";
  if (why)
    *pads = 0; /* nothing changed: the padding stays first */
  else {
    memcpy(img + (platform - sp), head, 8);
    memcpy(img + (random - sp), head + 8, 16);
    memcpy(img, w, 8 * n);
    if (!spmu_qemu_guest_write(m, strings, args, s.args_end - s.argv[0]) ||
        !spmu_qemu_guest_write(m, sp, img, strings - sp))
      why = "its stack is not writable";
  }
  if (!why && ALIGN16(random - 8 * n) != sp + PAGE) /* 7.2's pointer */
    why = "the stack pointer is not one page below QEMU 7.2's";
  free(args);
  free(img);
  free(w);
  start_free(&s);
  return why;
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

/* The start from sp made QEMU 7.2's: the padding taken out (unpad), the
 * environment last variable first where QEMU gave it in order, and the
 * vector without its AT_SYSINFO_EHDR entry (the entries after it moved
 * down, so the vector is the one QEMU 7.2 gives, one AT_NULL entry longer
 * at its end). a->vdso: whether QEMU's start names a vDSO. */
static const char *hide(struct spmu_qemu_auxv *a, uint64_t sp)
{
  const struct spmu_qemu_guest_mem *m = &a->mem;
  uint64_t argc, p, envp, vdso, pads, front;
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
  if ((why = unpad(m, sp, &pads)) != NULL)
    say(why); /* what was done stays */
  front = set_by_qemu();
  front = front > pads ? front - pads : 0;
  p = envp;
  if (!spmu_qemu_api_env_in_order(a->api, a->vdso)) {
    if (!skip_pointers(m, &p))
      return "no end of the environment";
  } else if ((why = reverse_environment(m, &p, front)) != NULL) {
    if (p == envp) /* its end not found: nor is the vector */
      return why;
    say(why); /* the vDSO is withheld all the same */
  }
  if ((why = find_vdso(m, p, &vdso)) != NULL)
    return why;
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

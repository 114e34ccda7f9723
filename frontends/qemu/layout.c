/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The guest's mappings placed as QEMU 7.2 places them (layout.h).
 *
 * QEMU 7.2 (linux-user/mmap.c, elfload.c) puts a mapping without an
 * address at the next free guest address from TASK_UNMAPPED_BASE
 * (0x4000000000 for a 64-bit guest) up, after the last one, and never
 * goes back to a hole. A dynamic program comes first, its reservation 32
 * MiB longer (its heap's room, given back once the dynamic linker is
 * loaded), then the stack (8 MiB and a guard page), the dynamic linker,
 * then the program's own mappings (libc, ...); QEMU 7.2 has no vDSO.
 * QEMU 10 loads the program at a hint (ELF_ET_DYN_BASE) and hands every
 * other mapping to the host kernel, which softpmu runs in the bottom-up
 * layout (perf/qemu_run.c): it takes the lowest hole that fits. So the
 * plugin fills every hole below 7.2's first address (at guest base +
 * 0x4000000000) but one page, which the vDSO takes, makes the hints
 * unusable (one page reserved at each), holds the heap's room after the
 * program until the break grows into it, and fills again each range the
 * program unmaps or moves away from: the host's first fit is then 7.2's
 * next one, and the guest's addresses are 7.2's. The host kernel puts a
 * mapping of 2 MiB or more of a file, or an anonymous one whose length is
 * a multiple of 2 MiB, at a 2 MiB boundary, for transparent huge pages,
 * where 7.2's placement (its own) takes the first address free: the
 * plugin, preloaded, hands each such mmap of QEMU's here, which places it
 * at the kernel's first fit of a length it does not align. */
#define _GNU_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE, MAP_FIXED_NOREPLACE,      \
                       getline */
#include "layout.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cmdline.h"
#include "fail.h"

#define PAGE UINT64_C(4096)
#define PAGE_UP(x) (((x) + PAGE - 1) & ~(PAGE - 1))
/* The x86-64 host's huge page (a page directory entry's, SDM Vol. 3A
 * 4.5), the boundary the kernel aligns large mappings to. */
#define HUGE_PAGE (UINT64_C(2) << 20)
/* The exact ranges first_fit sets aside, at most. */
#define FIT_TRIES 64
/* QEMU 7.2's TASK_UNMAPPED_BASE for a 64-bit guest, and the room it keeps
 * after a dynamic program for its heap (linux-user/mmap.c, elfload.c). */
#define QEMU7_UNMAPPED_BASE (UINT64_C(1) << 38)
#define QEMU7_RESERVE_BRK (UINT64_C(32) << 20)
/* QEMU 10's x86-64 TASK_UNMAPPED_BASE, PAGE_ALIGN(2^47 / 3), where its
 * mremap looks first, and ELF_ET_DYN_BASE, twice that, where it asks for
 * a dynamic program (linux-user/x86_64/target_mman.h). */
#define QEMU10_UNMAPPED_BASE UINT64_C(0x2aaaaaaab000)
#define QEMU10_ET_DYN_BASE (2 * QEMU10_UNMAPPED_BASE)
/* QEMU's translation buffer in user mode when -tb-size gives none (QEMU
 * 8.x has no such option there): 128 MiB (tcg/region.c), which
 * spmu_qemu_layout_mmap places at the host's first fit, unaligned. */
#define QEMU_TB_DEFAULT (UINT64_C(128) << 20)
/* x86-64 Linux's vsyscall page, which QEMU gives the guest at the same
 * guest address without mapping it. */
#define VSYSCALL_PAGE UINT64_C(0xffffffffff600000)

/* Linux x86-64 system call numbers, and mremap's flag that keeps the old
 * range mapped. */
#define NR_MUNMAP 11
#define NR_BRK 12
#define NR_MREMAP 25
#define MREMAP_DONTUNMAP_ 4

/* A system call in flight, by vCPU index modulo CALLS. */
#define CALLS 64
struct call {
  unsigned vcpu;
  int64_t num; /* 0: none */
  uint64_t a[4];
};

struct spmu_qemu_layout {
  pthread_mutex_t lock;
  uint64_t base;           /* QEMU's guest base */
  uint64_t heap;           /* the program's first break, or 0: no room kept */
  uint64_t brk_lo, brk_hi; /* the heap's room still reserved (guest) */
  struct call calls[CALLS];
};

/* What of the program QEMU loads decides its place. */
struct program {
  bool pie_dynamic; /* ET_DYN with an interpreter */
  uint64_t size;    /* its PT_LOAD span, in pages */
  uint64_t align;   /* its segments' alignments, or'ed */
};

/* The system call itself: once preloaded, mmap is the plugin's own
 * (plugin.c), which comes back here. */
static void *sys_mmap(void *addr, size_t len, int prot, int flags, int fd,
                      off_t off)
{
  return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

/* [from, to) of the host reserved: no access, no memory, and never over a
 * mapping (a racing thread's). */
static int reserve(uint64_t from, uint64_t to)
{
  void *at;

  if (to <= from)
    return 0;
  at = sys_mmap(
      (void *)(uintptr_t)from, to - from, PROT_NONE,
      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (at == MAP_FAILED)
    return 0;
  if ((uintptr_t)at != from) { /* a kernel without MAP_FIXED_NOREPLACE */
    munmap(at, to - from);
    return 0;
  }
  return 1;
}

static bool bottom_up(void)
{
  int cur = personality(0xffffffff);

  return cur != -1 && (cur & ADDR_COMPAT_LAYOUT);
}

/* Each hole between two of the process's mappings from the host dynamic
 * linker (the bottom of the area the kernel fills) up to QEMU's program
 * reserved; *top: the end of the last mapping below limit. */
static void close_holes(uint64_t limit, uint64_t *top)
{
  uint64_t lo = getauxval(AT_BASE), prog = getauxval(AT_PHDR), prev = 0;
  unsigned long start, end;
  char *line = NULL;
  size_t cap = 0;
  FILE *f;

  *top = 0;
  if (!lo || !prog || !(f = fopen("/proc/self/maps", "re")))
    return;
  /* getline: a line is as long as its path (PATH_MAX), whole. */
  while (getline(&line, &cap, f) > 0 &&
         sscanf(line, "%lx-%lx", &start, &end) == 2) {
    if (prev >= lo && start > prev && end <= prog)
      reserve(prev, start);
    if (end <= limit)
      *top = end;
    prev = end;
  }
  free(line);
  fclose(f);
}

/* The program's ELF header and PT_LOAD segments (ELF gABI): false when it
 * is not a 64-bit ELF file that can be read. */
static bool read_program(const char *path, struct program *p)
{
  Elf64_Ehdr eh;
  Elf64_Phdr ph;
  uint64_t lo = UINT64_MAX, hi = 0;
  bool interp = false;
  int fd = open(path, O_RDONLY | O_CLOEXEC), i;
  bool ok = fd >= 0 && pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh &&
            memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
            eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof ph;

  memset(p, 0, sizeof(*p));
  for (i = 0; ok && i < eh.e_phnum; i++) {
    ok = pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + i * sizeof ph)) ==
         (ssize_t)sizeof ph;
    if (ok && ph.p_type == PT_INTERP)
      interp = true;
    if (!ok || ph.p_type != PT_LOAD)
      continue;
    if ((ph.p_vaddr & ~(PAGE - 1)) < lo)
      lo = ph.p_vaddr & ~(PAGE - 1);
    if (ph.p_vaddr + ph.p_memsz > hi)
      hi = ph.p_vaddr + ph.p_memsz;
    p->align |= ph.p_align;
  }
  if (fd >= 0)
    close(fd);
  if (!ok || hi <= lo)
    return false;
  p->pie_dynamic = eh.e_type == ET_DYN && interp;
  p->size = PAGE_UP(hi - lo);
  return true;
}

static void say(const char *why)
{
  spmu_qemu_fail("cannot place the guest's memory as QEMU 7.2 does (%s): "
                 "its counts may differ from QEMU 7.2's",
                 why);
}

/* 7.2's placement from guest base l->base on, for the program at path
 * (NULL: none known), QEMU's translation buffer tb bytes long (0: no
 * -tb-size, QEMU's default), the holes among QEMU's mappings closed in
 * any case; false when the base puts 7.2's first address below the
 * host's mappings (QEMU 7.2, whose base softpmu chooses so, or a base
 * given by hand) or (said) among them. */
static bool place(struct spmu_qemu_layout *l, const char *path, uint64_t tb)
{
  uint64_t first = l->base + QEMU7_UNMAPPED_BASE, top;
  uint64_t hole = PAGE_UP(tb ? tb : QEMU_TB_DEFAULT) + PAGE;
  struct program p;

  close_holes(first, &top);
  if (first <= getauxval(AT_BASE))
    return false; /* a base below the host's mappings: not one for this */
  if (top + hole + PAGE > first) {
    say("QEMU's own memory reaches where the guest's starts");
    return false;
  }
  /* Below the first address, a hole left for QEMU's translation buffer,
   * which QEMU maps after the install (at the first fit, unaligned:
   * spmu_qemu_layout_mmap), and one page above it, for QEMU 8.2's and
   * 10's vDSO (one page, mapped after the dynamic linker; 7.2 maps
   * none): the host puts each in the lowest hole it fits. */
  reserve(top, first - PAGE - hole);
  reserve(first - PAGE, first);
  reserve(l->base + QEMU10_UNMAPPED_BASE,
          l->base + QEMU10_UNMAPPED_BASE + PAGE);
  if (!path || !read_program(path, &p) || !p.pie_dynamic)
    return true;
  if (p.align > PAGE) { /* QEMU 10 maps it longer, then trims: holes */
    say("the program's segments are aligned to more than a page");
    return true;
  }
  reserve(l->base + QEMU10_ET_DYN_BASE, l->base + QEMU10_ET_DYN_BASE + PAGE);
  l->heap = QEMU7_UNMAPPED_BASE + p.size;
  l->brk_lo = l->heap;
  l->brk_hi = l->heap + QEMU7_RESERVE_BRK;
  reserve(l->base + l->brk_lo, l->base + l->brk_hi);
  return true;
}

/* Is b (-B) a guest base under which 7.2's first address lies above the
 * host's mappings (QEMU's own)? */
static bool high_base(const char *b)
{
  return b && strtoull(b, NULL, 0) + QEMU7_UNMAPPED_BASE > getauxval(AT_BASE);
}

struct spmu_qemu_layout *spmu_qemu_layout_new(bool by_base)
{
  struct spmu_qemu_layout *l;
  char *cmd = NULL;
  const char *b, *tb;
  size_t n;

  if (!bottom_up())
    return NULL;
  n = spmu_qemu_cmdline_read(&cmd);
  b = n ? spmu_qemu_cmdline_option(cmd, n, "B") : NULL;
  if (by_base && !high_base(b)) {
    free(cmd);
    return NULL;
  }
  l = b ? calloc(1, sizeof(*l)) : NULL;
  if (!l || pthread_mutex_init(&l->lock, NULL) != 0) {
    uint64_t top;

    close_holes(UINT64_MAX, &top);
    free(l);
    free(cmd);
    return NULL;
  }
  l->base = strtoull(b, NULL, 0);
  /* QEMU 8.2's /proc/self/maps (open_self_maps_2 in linux-user/syscall.c)
   * looks each guest range up among the host's mappings, the vsyscall
   * page's at base + VSYSCALL_PAGE (modulo 2^64: 10 MiB below the base,
   * below QEMU's own mappings), and crashes when none is there. */
  if (by_base)
    reserve(l->base + VSYSCALL_PAGE, l->base + VSYSCALL_PAGE + PAGE);
  tb = spmu_qemu_cmdline_option(cmd, n, "tb-size");
  if (!place(l, spmu_qemu_cmdline_program(cmd, n),
             tb ? strtoull(tb, NULL, 0) << 20 : 0)) {
    spmu_qemu_layout_free(l);
    l = NULL;
  } else /* QEMU's large blocks from its heap, never among the guest's */
    (void)mallopt(M_MMAP_MAX, 0);
  free(cmd);
  return l;
}

void spmu_qemu_layout_free(struct spmu_qemu_layout *l)
{
  if (!l)
    return;
  pthread_mutex_destroy(&l->lock);
  free(l);
}

/* The heap's room below the break wanted (brk's argument) given back, so
 * that QEMU can map it. */
static void before_brk(struct spmu_qemu_layout *l, uint64_t want)
{
  uint64_t to = PAGE_UP(want) < l->brk_hi ? PAGE_UP(want) : l->brk_hi;

  if (l->heap && to > l->brk_lo) {
    munmap((void *)(uintptr_t)(l->base + l->brk_lo), to - l->brk_lo);
    l->brk_lo = to;
  }
}

/* The room above the break as brk left it (a shrink, a failure)
 * reserved again. */
static void after_brk(struct spmu_qemu_layout *l, uint64_t brk)
{
  uint64_t at = PAGE_UP(brk);

  if (l->heap && at >= l->heap && at < l->brk_lo) {
    reserve(l->base + at, l->base + l->brk_lo);
    l->brk_lo = at;
  }
}

/* What munmap or mremap (call c, returning ret) left unmapped, reserved:
 * 7.2 never maps there again unless asked to. */
static void after_unmap(struct spmu_qemu_layout *l, const struct call *c,
                        int64_t ret)
{
  uint64_t at = c->a[0], old = PAGE_UP(c->a[1]), new = PAGE_UP(c->a[2]);

  if (ret < 0 && ret > -4096)
    return;
  if (c->num == NR_MUNMAP)
    reserve(l->base + at, l->base + at + old);
  else if ((uint64_t)ret == at && new < old)
    reserve(l->base + at + new, l->base + at + old);
  else if ((uint64_t)ret != at && !(c->a[3] & MREMAP_DONTUNMAP_))
    reserve(l->base + at, l->base + at + old);
}

void spmu_qemu_layout_syscall(struct spmu_qemu_layout *l, unsigned vcpu,
                              int64_t num, const uint64_t *args)
{
  struct call *c;

  if (!l || (num != NR_BRK && num != NR_MUNMAP && num != NR_MREMAP))
    return;
  pthread_mutex_lock(&l->lock);
  c = &l->calls[vcpu % CALLS];
  c->vcpu = vcpu;
  c->num = num;
  memcpy(c->a, args, sizeof(c->a));
  if (num == NR_BRK)
    before_brk(l, args[0]);
  pthread_mutex_unlock(&l->lock);
}

void spmu_qemu_layout_syscall_ret(struct spmu_qemu_layout *l, unsigned vcpu,
                                  int64_t num, int64_t ret)
{
  struct call *c;

  if (!l || (num != NR_BRK && num != NR_MUNMAP && num != NR_MREMAP))
    return;
  pthread_mutex_lock(&l->lock);
  c = &l->calls[vcpu % CALLS];
  if (c->num == num && c->vcpu == vcpu) {
    if (num == NR_BRK)
      after_brk(l, (uint64_t)ret);
    else
      after_unmap(l, c, ret);
    c->num = 0;
  }
  pthread_mutex_unlock(&l->lock);
}

/* ---- mappings without the huge-page alignment ------------------------ */

/* Whether the host kernel may put a mapping of n bytes (whole pages) at
 * a 2 MiB boundary rather than at the first address free (Linux 6.18,
 * measured: a file's, private or shared, of 2 MiB or more, also at a
 * hint that is taken; a shared anonymous one; a private anonymous one
 * whose length is a multiple of 2 MiB, with or without a hint). A
 * mapping at an address (MAP_FIXED, MAP_FIXED_NOREPLACE), in the low 2
 * GiB (MAP_32BIT) or of huge pages stays as it is. */
static bool may_align(uint64_t n, int flags)
{
  if ((flags & (MAP_FIXED | MAP_FIXED_NOREPLACE | MAP_32BIT | MAP_HUGETLB)) ||
      n < HUGE_PAGE)
    return false;
  if ((flags & MAP_ANONYMOUS) && !(flags & MAP_SHARED))
    return n % HUGE_PAGE == 0;
  return true;
}

/* n bytes reserved where the kernel puts the first fit (hint: at it when
 * free), or MAP_FAILED. */
static void *hold(void *hint, uint64_t n)
{
  return sys_mmap(hint, n, PROT_NONE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
}

/* The page at at reserved too (nothing there). */
static bool hold_page(void *at)
{
  void *p = sys_mmap(
      at, PAGE, PROT_NONE,
      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);

  if (p != MAP_FAILED && p != at) /* a kernel without MAP_FIXED_NOREPLACE */
    munmap(p, PAGE);
  return p == at;
}

/* len bytes (whole pages, 2 MiB or more) reserved where the kernel would
 * put them without aligning them: at hint if that range is free, else at
 * the lowest free range that fits (the bottom-up layout, layout_new).
 * The kernel aligns no private anonymous mapping whose length is not a
 * multiple of 2 MiB: that is one of len bytes, or, when len is such a
 * multiple, one a page shorter, completed by the page after it; a free
 * range exactly a page too short (the lowest first) is set aside while
 * looking further, then freed. MAP_FAILED: none found. */
static void *first_fit(void *hint, uint64_t len)
{
  uint64_t n = len % HUGE_PAGE ? len : len - PAGE;
  void *held[FIT_TRIES], *at = MAP_FAILED;
  int k = 0, i;

  for (i = 0; i < FIT_TRIES; i++) {
    at = hold(i ? NULL : hint, n);
    if (at == MAP_FAILED || n == len || hold_page((char *)at + n))
      break;
    if (i == 0 && hint) /* not at hint: first fit from the bottom then */
      munmap(at, n);
    else
      held[k++] = at;
    at = MAP_FAILED;
  }
  while (k > 0)
    munmap(held[--k], n);
  return at;
}

void *spmu_qemu_layout_mmap(const struct spmu_qemu_layout *l, void *addr,
                            size_t len, int prot, int flags, int fd, off_t off)
{
  uint64_t n = PAGE_UP((uint64_t)len);
  void *at, *p;
  int err;

  if (!l || n < len || !may_align(n, flags) ||
      (at = first_fit(addr, n)) == MAP_FAILED)
    return sys_mmap(addr, len, prot, flags, fd, off);
  p = sys_mmap(at, len, prot, flags | MAP_FIXED, fd, off);
  if (p == MAP_FAILED) {
    err = errno;
    munmap(at, n);
    errno = err;
  }
  return p;
}

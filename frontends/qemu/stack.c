/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The initial stack, found by its content (stack.h). QEMU's user mode
 * maps the guest's stack as one anonymous read-write mapping with a
 * PROT_NONE guard page right below it, and lays the program's start at
 * its top as the kernel does (System V x86-64 ABI 3.4.1): the file name,
 * the environment's and the arguments' strings, then, below, argc, the
 * argv pointers and a null, the envp pointers and a null, and the
 * auxiliary vector up to AT_NULL. So each mapping of this process that
 * has that shape is searched from its top down for a word that starts
 * such a table: argc, then pointers to strings one after the other
 * inside the mapping, a null, the same for the environment, then (type,
 * value) pairs up to AT_NULL among which AT_ENTRY. Nothing in the strings
 * or the vector above argc has that shape (a pointer's top bytes are
 * zero, a string's are not; a vector's type is followed by its value,
 * not by a pointer to a string), so the first word from the top that
 * does is argc. */
#define _GNU_SOURCE /* getline */
#include "stack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AT_NULL 0
#define AT_ENTRY 9

/* Bounds of a plausible start: argc, and the vector's entries. */
#define ARGC_MAX 65536u
#define AUXV_MAX 64u

/* What of a mapping is read at once, first: the top 64 KiB (a start's
 * strings and tables are a few KiB), then 16 times more, up to all. */
#define FIRST_READ (64u * 1024u)

/* The top of a candidate mapping, read into memory: bytes [lo, hi) of
 * the guest, as words. */
struct top {
  const uint64_t *w;
  uint64_t lo, hi;
};

static uint64_t word_at(const struct top *t, uint64_t addr)
{
  return t->w[(addr - t->lo) / 8];
}

/* The address just past the NUL of the string at addr, or 0 when it has
 * none before the top. */
static uint64_t string_end(const struct top *t, uint64_t addr)
{
  const char *b = (const char *)t->w;
  const char *nul;

  if (addr < t->lo || addr >= t->hi)
    return 0;
  nul = memchr(b + (addr - t->lo), 0, (size_t)(t->hi - addr));
  return nul ? t->lo + (uint64_t)(nul - b) + 1 : 0;
}

/* The n pointers from *at: each to a string inside the top, each string
 * right after the one before; *at past them. false when one is not. */
static bool string_list(const struct top *t, uint64_t *at, uint64_t n)
{
  uint64_t i, p, next = 0;

  for (i = 0; i < n; i++, *at += 8) {
    if (*at + 8 > t->hi)
      return false;
    p = word_at(t, *at);
    if (p <= *at || (i > 0 && p != next) || !(next = string_end(t, p)))
      return false;
  }
  return true;
}

/* The number of pointers from at up to a null (at most max); max + 1
 * when there is no null. */
static uint64_t count_to_null(const struct top *t, uint64_t at, uint64_t max)
{
  uint64_t n;

  for (n = 0; n <= max && at + 8 * n + 8 <= t->hi; n++)
    if (!word_at(t, at + 8 * n))
      return n;
  return max + 1;
}

/* Does a program's start begin at sp? */
static bool start_at(const struct top *t, uint64_t sp)
{
  uint64_t argc = word_at(t, sp), at = sp + 8, envc, k;
  bool entry = false;

  if (argc == 0 || argc > ARGC_MAX || !string_list(t, &at, argc) ||
      at + 8 > t->hi || word_at(t, at))
    return false;
  at += 8;
  envc = count_to_null(t, at, (t->hi - at) / 8);
  if (!string_list(t, &at, envc))
    return false;
  at += 8; /* the null */
  for (k = 0; k < AUXV_MAX && at + 16 <= t->hi; k++, at += 16) {
    uint64_t type = word_at(t, at);

    if (type == AT_NULL)
      return entry;
    if (type > 255) /* Linux's types are small numbers */
      return false;
    entry |= type == AT_ENTRY;
  }
  return false;
}

/* The start in the top of a mapping, the first from the top down. */
static bool search(const struct top *t, uint64_t *sp)
{
  uint64_t at;

  for (at = t->hi - 16; at >= t->lo; at -= 8) {
    uint64_t argc = word_at(t, at), argv0 = word_at(t, at + 8);

    if (argc && argc <= ARGC_MAX && argv0 > at && argv0 < t->hi &&
        start_at(t, at)) {
      *sp = at;
      return true;
    }
    if (at - t->lo < 8)
      break;
  }
  return false;
}

/* The mapping [lo, hi) of the guest, read from its top down, ever more of
 * it, until a start is found or all of it has been searched. */
static bool search_mapping(const struct spmu_qemu_guest_mem *m, uint64_t lo,
                           uint64_t hi, uint64_t *sp)
{
  uint64_t size = FIRST_READ;
  bool found = false;

  for (;;) {
    struct top t;
    uint64_t *buf;

    if (size > hi - lo)
      size = hi - lo;
    if (!(buf = malloc(size)))
      return false;
    t = (struct top){.w = buf, .lo = hi - size, .hi = hi};
    if (spmu_qemu_guest_read(m, t.lo, buf, size))
      found = search(&t, sp);
    free(buf);
    if (found || size == hi - lo)
      return found;
    size *= 16;
  }
}

/* Is the line of /proc/self/maps a stack's shape: anonymous, read-write,
 * private, right above a PROT_NONE guard? Its bounds into *lo, *hi. */
static bool stack_shaped(const char *line, uint64_t prev_end, bool prev_guard,
                         uint64_t *lo, uint64_t *hi)
{
  unsigned long start, end, off, inode;
  char perms[8], path[8];
  int dmaj, dmin;

  if (sscanf(line, "%lx-%lx %7s %lx %x:%x %lu %7s", &start, &end, perms, &off,
             &dmaj, &dmin, &inode, path) != 7) /* no path: anonymous */
    return false;
  *lo = start;
  *hi = end;
  return prev_guard && prev_end == start && perms[0] == 'r' &&
         perms[1] == 'w' && perms[3] == 'p';
}

/* Does the mapping's top end as QEMU ends a stack: the program's file
 * name, then a word of zeros (its last byte not NUL, its NUL, 8 zeros)?
 * Such mappings are searched first: the other stack-shaped ones are
 * QEMU's own threads' stacks, each searched whole before it is passed. */
static bool name_at_top(const struct spmu_qemu_guest_mem *m, uint64_t hi)
{
  unsigned char b[10];
  size_t i;

  if (!spmu_qemu_guest_read(m, hi - sizeof(b), b, sizeof(b)) || !b[0])
    return false;
  for (i = 1; i < sizeof(b); i++)
    if (b[i])
      return false;
  return true;
}

/* The stack-shaped mappings of /proc/self/maps whose top is (or, with
 * named false, is not) name_at_top's, searched in turn. */
static bool search_maps(const struct spmu_qemu_guest_mem *m, bool named,
                        uint64_t *sp)
{
  char *line = NULL;
  size_t cap = 0;
  uint64_t lo, hi, prev_end = 0;
  bool prev_guard = false, found = false;
  FILE *f = fopen("/proc/self/maps", "re");

  if (!f)
    return false;
  /* getline: a line is as long as its path (PATH_MAX), whole. */
  while (!found && getline(&line, &cap, f) > 0) {
    unsigned long start, end;
    char perms[8];

    if (stack_shaped(line, prev_end, prev_guard, &lo, &hi) && lo >= m->base &&
        name_at_top(m, hi - m->base) == named)
      found = search_mapping(m, lo - m->base, hi - m->base, sp);
    if (sscanf(line, "%lx-%lx %7s", &start, &end, perms) != 3)
      break;
    prev_end = end;
    prev_guard = strncmp(perms, "---p", 4) == 0;
  }
  free(line);
  fclose(f);
  return found;
}

bool spmu_qemu_stack_find(const struct spmu_qemu_guest_mem *m, uint64_t *sp)
{
  return m->known && (search_maps(m, true, sp) || search_maps(m, false, sp));
}

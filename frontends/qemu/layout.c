/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The holes among QEMU's own mappings closed, so that the guest's mappings
 * follow one another as QEMU 7.2 places them (layout.h). */
#define _GNU_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE, MAP_FIXED_NOREPLACE */
#include "layout.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/personality.h>

/* A hole [from, to) reserved: no access, no memory, and never over a
 * mapping (a racing thread's). */
static int close_hole(uintptr_t from, uintptr_t to)
{
  void *at = mmap(
      (void *)from, to - from, PROT_NONE,
      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);

  if (at == MAP_FAILED)
    return 0;
  if ((uintptr_t)at != from) { /* a kernel without MAP_FIXED_NOREPLACE */
    munmap(at, to - from);
    return 0;
  }
  return 1;
}

int spmu_qemu_layout_close_holes(void)
{
  int cur = personality(0xffffffff), closed = 0;
  uintptr_t lo = (uintptr_t)getauxval(AT_BASE);
  uintptr_t prog = (uintptr_t)getauxval(AT_PHDR), prev_end = 0;
  unsigned long start, end;
  char line[512];
  FILE *f;

  if (cur == -1 || !(cur & ADDR_COMPAT_LAYOUT) || !lo || !prog)
    return 0;
  if (!(f = fopen("/proc/self/maps", "re")))
    return -1;
  /* The maps are in address order. A hole counts when the mapping below it
   * is at or above the host dynamic linker (the bottom of the area the
   * kernel fills) and the one above it ends below QEMU's program headers:
   * the space up to QEMU's program itself is where everything goes. */
  while (fgets(line, sizeof line, f) &&
         sscanf(line, "%lx-%lx", &start, &end) == 2) {
    if (prev_end >= lo && start > prev_end && end <= prog)
      closed += close_hole(prev_end, start);
    prev_end = end;
  }
  fclose(f);
  return closed;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An ordinary libc program for test_qemu10.sh, built dynamic (PIE) and
 * static: it asks the time (through the vDSO when the program has one),
 * looks up variables of its environment (getenv scans it in order) and
 * sorts, then prints whether it has a vDSO (AT_SYSINFO_EHDR) and its
 * environment in order: what the plugin makes the same under QEMU 10 as
 * under QEMU 7.2 (frontends/qemu/auxv.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>

extern char **environ;

/* Not on the stack: QEMU 10 starts the stack 16 bytes below QEMU 7.2
 * (README.md, "QEMU versions"), which moves the alignment of a local
 * array and so the path glibc's string functions take on it. */
static unsigned v[1000];

static int compare(const void *a, const void *b)
{
  unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

  return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
  unsigned s = 1;
  struct timespec ts;
  char **e;
  size_t i, n = sizeof(v) / sizeof(v[0]), found = 0;

  for (i = 0; i < n; i++)
    v[i] = s = s * 1103515245u + 12345u;
  qsort(v, n, sizeof(v[0]), compare);
  clock_gettime(CLOCK_MONOTONIC, &ts);
  for (i = 1; i < (size_t)argc; i++)
    found += getenv(argv[i]) != NULL;
  printf("vdso=%d found=%zu first=%u last=%u\n",
         getauxval(AT_SYSINFO_EHDR) != 0, found, v[0], v[n - 1]);
  for (e = environ; *e; e++)
    puts(*e);
  return 0;
}

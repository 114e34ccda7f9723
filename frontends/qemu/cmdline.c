/* SPDX-License-Identifier: GPL-2.0-or-later */
/* qemu-x86_64's own command line (cmdline.h). */
#define _GNU_SOURCE /* O_CLOEXEC */
#include "cmdline.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

size_t spmu_qemu_cmdline_read(char **buf)
{
  size_t len = 0, cap = 0;
  ssize_t n = 0;
  int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  char *b = NULL, *t;

  if (fd < 0)
    return 0;
  for (;;) {
    if (len == cap) {
      cap = cap ? 2 * cap : 4096;
      if (!(t = realloc(b, cap + 1)))
        break;
      b = t;
    }
    if ((n = read(fd, b + len, cap - len)) <= 0)
      break;
    len += (size_t)n;
  }
  close(fd);
  if (!b || n < 0 || !len) {
    free(b);
    return 0;
  }
  b[len] = '\0';
  *buf = b;
  return len;
}

/* QEMU 7.2's user-mode options that take a value (qemu-x86_64 -h), and
 * QEMU 10's -tb-size and -rtsig-map. */
bool spmu_qemu_cmdline_takes_value(const char *opt)
{
  static const char *const with[] = {
      "g",    "L",     "s",      "cpu",     "E",        "U", "0",
      "r",    "B",     "R",      "d",       "dfilter",  "D", "p",
      "seed", "trace", "plugin", "tb-size", "rtsig-map"};
  size_t i;

  for (i = 0; i < sizeof(with) / sizeof(with[0]); i++)
    if (strcmp(opt, with[i]) == 0)
      return true;
  return false;
}

/* The walk over the options after argv[0], up to the program: the value
 * of the last OPT (opt non-NULL; *count: how many OPT, when count is
 * non-NULL), or the program (opt NULL). */
static const char *walk(const char *cmd, size_t n, const char *opt,
                        size_t *count)
{
  const char *end = cmd + n, *p, *found = NULL;

  for (p = cmd + strlen(cmd) + 1; p < end; p += strlen(p) + 1) {
    const char *name = p + 1 + (p[1] == '-');

    if (strcmp(p, "--") == 0) {
      if (opt)
        return found;
      return p + 3 < end ? p + 3 : NULL;
    }
    if (*p != '-')
      return opt ? found : p;
    if (!spmu_qemu_cmdline_takes_value(name))
      continue;
    p += strlen(p) + 1;
    if (p >= end)
      break;
    if (opt && strcmp(name, opt) == 0) {
      found = p;
      if (count)
        (*count)++;
    }
  }
  return opt ? found : NULL;
}

const char *spmu_qemu_cmdline_option(const char *cmd, size_t n, const char *opt)
{
  return walk(cmd, n, opt, NULL);
}

size_t spmu_qemu_cmdline_count(const char *cmd, size_t n, const char *opt)
{
  size_t k = 0;

  walk(cmd, n, opt, &k);
  return k;
}

const char *spmu_qemu_cmdline_program(const char *cmd, size_t n)
{
  return walk(cmd, n, NULL, NULL);
}

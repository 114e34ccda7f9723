/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The plugin's messages (fail.h). */
#include "fail.h"

#include <stdarg.h>
#include <stdio.h>

void spmu_qemu_fail(const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  fputs("softpmu-qemu: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

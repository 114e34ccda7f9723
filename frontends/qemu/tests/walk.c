/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A libc program: two passes over the first n lines (64 bytes apart) of a
 * zero-filled static buffer, one load per line; n from the command line.
 * The buffer is touched by nothing else, so each extra line is one more
 * load per pass, whatever glibc's start-up does. */
#include <stdlib.h>

#define LINES 8192

static volatile unsigned char buf[LINES * 64] __attribute__((aligned(64)));

int main(int argc, char **argv)
{
  long n = argc > 1 ? atol(argv[1]) : 0;
  unsigned sum = 0;

  if (n < 0 || n > LINES)
    return 2;
  for (int pass = 0; pass < 2; pass++)
    for (long i = 0; i < n; i++)
      sum += buf[i * 64];
  return (int)(sum & 1);
}

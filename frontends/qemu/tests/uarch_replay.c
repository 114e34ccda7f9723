/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The modelled micro-architecture fed a stream written out by
 * construction (the tests of model.c compute what the plugin must count
 * from it):
 *   uarch_replay SPEC < STREAM
 * one event a line, addresses in decimal:
 *   c PC TAKEN         a conditional branch at PC, taken (1) or not (0)
 *   r ADDR LEN         a data read
 *   f ADDR LEN         an instruction fetch
 * Prints "bcm N" (conditional mispredicts) and "llc_misses N". */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "uarch.h"

int main(int argc, char **argv)
{
  spmu_uarch_config cfg;
  spmu_uarch_counts n;
  spmu_uarch *u;
  char err[256], kind;
  uint64_t a, b;

  if (argc != 2 || spmu_uarch_config_parse(argv[1], &cfg, err, sizeof err)) {
    fprintf(stderr, "usage: uarch_replay SPEC < STREAM (%s)\n",
            argc == 2 ? err : "one argument");
    return 2;
  }
  u = spmu_uarch_new(&cfg, err, sizeof err);
  if (!u) {
    fprintf(stderr, "uarch_replay: %s\n", err);
    return 2;
  }
  while (scanf(" %c %" SCNu64 " %" SCNu64, &kind, &a, &b) == 3) {
    if (kind == 'c')
      spmu_uarch_branch(u, a, a + 2, SPMU_UARCH_BR_COND, b != 0, 0);
    else if (kind == 'r' || kind == 'f')
      spmu_uarch_access(u, a, (uint32_t)b, 0, kind == 'f');
    else
      return 2;
  }
  spmu_uarch_get_counts(u, &n);
  printf("bcm %" PRIu64 "\nllc_misses %" PRIu64 "\n", n.bcm, n.llc_misses);
  spmu_uarch_free(u);
  return 0;
}

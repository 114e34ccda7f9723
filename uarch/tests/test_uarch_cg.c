/* SPDX-License-Identifier: MIT */
/* The cachegrind compatibility configuration against cachegrind itself:
 * cg_walk.S (freestanding, no libc, no stack) runs under
 *   valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes
 *            --vex-guest-chase=no (as callgrind: no branch dropped by
 *            chasing past it) --I1=32768,8,64 --D1=4096,2,64 --LL=65536,4,64
 * and the same data accesses and branches, written out below by
 * construction from the program's text, go through the model with the
 * same triples; Dr, Dw, D1mr, D1mw, DLmr, DLmw, Bc, Bcm, Bi and Bim must
 * be equal.
 *
 * Instruction fetches are not replayed: I1 holds only code, and LL shares
 * them with data, so the data lines are placed where no code line can
 * reach. The program's text (0x401000 - 0x4013ff) maps to LL sets 0x40 -
 * 0x4f (set = address / 64 mod 256); every data line maps to LL sets 0x20,
 * 0x21, 0x60, 0xa0 or 0xe0, so instruction fetches never change a data
 * line's LL state, and I1 and D1 are separate.
 *
 * Needs valgrind and a C compiler that links x86-64 static programs (the
 * build's, SPMU_CC); skipped without valgrind unless
 * SOFTPMU_REQUIRE_VALGRIND is set. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, strtok_r */

#include "uarch_test.h"

#include <stdlib.h>
#include <unistd.h>

#define GEOMETRY "--I1=32768,8,64 --D1=4096,2,64 --LL=65536,4,64"
#define SPEC "cachegrind:I1=32768,8,64:D1=4096,2,64:LL=65536,4,64"

/* cg_walk.S's data accesses, in program order. */
static void replay_data(spmu_uarch *u)
{
  /* Walk A: 3 passes, 20 reads of 8 bytes 4096 apart from 0x10000800. */
  for (unsigned p = 0; p < 3; p++)
    for (uint64_t i = 0; i < 20; i++)
      spmu_uarch_access(u, 0x10000800 + 4096 * i, 8, 0, 0);
  /* Walk B: 2 passes, 8 writes of 8 bytes 4096 apart from 0x10100800. */
  for (unsigned p = 0; p < 2; p++)
    for (uint64_t i = 0; i < 8; i++)
      spmu_uarch_access(u, 0x10100800 + 4096 * i, 8, 1, 0);
  /* Straddling reads. */
  spmu_uarch_access(u, 0x1020083c, 8, 0, 0);
  spmu_uarch_access(u, 0x1020083c + 4, 8, 0, 0);
  spmu_uarch_access(u, 0x1020083c + 0x40, 8, 0, 0);
}

static void cond(spmu_uarch *u, uint64_t pc, int taken)
{
  spmu_uarch_branch(u, pc, pc + 2, SPMU_UARCH_BR_COND, taken, 0);
}

/* cg_walk.S's branches, in program order, at their .org addresses. */
static void replay_branches(spmu_uarch *u)
{
  for (unsigned p = 0; p < 3; p++) {
    for (unsigned i = 0; i < 20; i++)
      cond(u, 0x401040, i < 19);
    cond(u, 0x401060, p < 2);
  }
  for (unsigned p = 0; p < 2; p++) {
    for (unsigned i = 0; i < 8; i++)
      cond(u, 0x4010a0, i < 7);
    cond(u, 0x4010c0, p < 1);
  }
  for (unsigned i = 1; i <= 100; i++) {
    cond(u, 0x401140, i % 2 == 0); /* jz: taken when edx (= i & 1) is 0 */
    cond(u, 0x401160, i < 100);
  }
  for (unsigned i = 1; i <= 10; i++) {
    spmu_uarch_branch(u, 0x401200, 0x401202, SPMU_UARCH_BR_IND_JUMP, 1,
                      i % 2 ? 0x401240 : 0x401280);
    spmu_uarch_branch(u, 0x401300, 0x401302, SPMU_UARCH_BR_IND_JUMP, 1,
                      0x401340);
    cond(u, 0x401380, i < 10);
  }
}

static int have_valgrind(void)
{
  return system("valgrind --version >/dev/null 2>&1") == 0;
}

/* Read cachegrind's "events:" and "summary:" lines from path; value of
 * each name into v (names in order), 0 on success. */
static int read_summary(const char *path, const char *const *names,
                        size_t count, uint64_t *v)
{
  char events[512] = "", summary[512] = "", line[512];
  FILE *f = fopen(path, "r");

  if (!f)
    return -1;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "events:", 7) == 0)
      snprintf(events, sizeof events, "%s", line + 7);
    else if (strncmp(line, "summary:", 8) == 0)
      snprintf(summary, sizeof summary, "%s", line + 8);
  }
  fclose(f);
  for (size_t k = 0; k < count; k++) {
    char ev[512], su[512], *save_e, *save_s, *name, *num;
    int found = 0;

    snprintf(ev, sizeof ev, "%s", events);
    snprintf(su, sizeof su, "%s", summary);
    for (name = strtok_r(ev, " \n", &save_e),
        num = strtok_r(su, " \n", &save_s);
         name && num; name = strtok_r(NULL, " \n", &save_e),
        num = strtok_r(NULL, " \n", &save_s)) {
      if (strcmp(name, names[k]) == 0) {
        v[k] = strtoull(num, NULL, 10);
        found = 1;
        break;
      }
    }
    if (!found)
      return -1;
  }
  return 0;
}

/* D1/LL misses and mispredicts equal cachegrind's on cg_walk.S. */
static void test_cachegrind_equal_on_freestanding_walk(void **state)
{
  static const char *const names[] = {"Dr",   "D1mr", "DLmr", "Dw", "D1mw",
                                      "DLmw", "Bc",   "Bcm",  "Bi", "Bim"};
  enum { NNAMES = sizeof names / sizeof names[0] };
  char dir[] = "/tmp/softpmu-uarch-cg-XXXXXX", cmd[1024], out[300];
  uint64_t cg[NNAMES], model[NNAMES];
  spmu_uarch_counts n;
  spmu_uarch *u;

  (void)state;
  if (!have_valgrind()) {
    if (getenv("SOFTPMU_REQUIRE_VALGRIND"))
      fail_msg("valgrind not found and SOFTPMU_REQUIRE_VALGRIND is set");
    skip();
  }
  assert_non_null(mkdtemp(dir));
  snprintf(cmd, sizeof cmd,
           "'%s' -nostdlib -static -no-pie -Wl,--build-id=none "
           "-Wl,--section-start=.text=0x401000 "
           "-Wl,--section-start=.walk=0x10000000 -o '%s/cg_walk' '%s'",
           SPMU_CC, dir, SPMU_CG_WALK_S);
  assert_int_equal(system(cmd), 0);
  snprintf(out, sizeof out, "%s/cachegrind.out", dir);
  snprintf(cmd, sizeof cmd,
           "valgrind -q --tool=cachegrind --cache-sim=yes --branch-sim=yes "
           "--vex-guest-chase=no " GEOMETRY
           " --cachegrind-out-file='%s' '%s/cg_walk' "
           ">'%s/log' 2>&1",
           out, dir, dir);
  assert_int_equal(system(cmd), 0);
  assert_int_equal(read_summary(out, names, NNAMES, cg), 0);

  u = new_model(SPEC);
  replay_data(u);
  replay_branches(u);
  n = counts_of(u);
  model[0] = n.dr, model[1] = n.d1mr, model[2] = n.dlmr;
  model[3] = n.dw, model[4] = n.d1mw, model[5] = n.dlmw;
  model[6] = n.bc, model[7] = n.bcm, model[8] = n.bi, model[9] = n.bim;
  for (size_t k = 0; k < NNAMES; k++) {
    if (model[k] != cg[k])
      fail_msg("%s: model %llu, cachegrind %llu", names[k],
               (unsigned long long)model[k], (unsigned long long)cg[k]);
  }
  /* The counts by construction: walk A misses D1 and LL on every line of
   * every pass (20 lines in one D1 set of 2 ways; 5 lines in each of 4 LL
   * sets of 4 ways); walk B misses D1 always, LL on its first pass; the
   * straddles miss twice (two new lines, then one). */
  assert_int_equal(n.d1mr, 60 + 2);
  assert_int_equal(n.dlmr, 60 + 2);
  assert_int_equal(n.d1mw, 16);
  assert_int_equal(n.dlmw, 8);
  assert_int_equal(n.bi, 20);
  assert_int_equal(n.bim, 10 + 1);
  spmu_uarch_free(u);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cachegrind_equal_on_freestanding_walk),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

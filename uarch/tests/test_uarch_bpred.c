/* SPDX-License-Identifier: MIT */
/* The branch predictors: cachegrind's (2-bit counters indexed by 7 history
 * bits above 7 address bits; 512 last targets for indirect branches) and
 * the part's default (gshare, a tagged BTB, a return-stack buffer). Each
 * expected count follows from the counters' states, derived in the
 * comment above the test. */
#include "uarch_test.h"

#define CG "cachegrind"
#define PC 0x401140u

/* Cachegrind, one branch alternating T N T N ... from the empty state.
 * Until step 6 the history (last 7 outcomes) is new at every step, so each
 * step reads a fresh counter at 0 and predicts not taken: the T steps 0,
 * 2, 4 and 6 mispredict (their counters go to 1), the N steps do not. From
 * step 7 the history is 0x55 before each N (counter 0: predicted) and 0x2a
 * before each T, whose counter went to 1 at step 6: step 8 mispredicts
 * (1 -> 2), and from step 10 it predicts taken. 5 mispredicts, at steps 0,
 * 2, 4, 6, 8. */
static void test_cachegrind_alternating_branch_five_mispredicts(void **state)
{
  spmu_uarch *u = new_model(CG);
  unsigned misp_at[8], nmisp = 0;

  (void)state;
  for (unsigned i = 0; i < 100; i++)
    if (spmu_uarch_branch(u, PC, PC + 2, SPMU_UARCH_BR_COND, i % 2 == 0,
                          0x401150) &&
        nmisp < 8)
      misp_at[nmisp++] = i;
  assert_int_equal(counts_of(u).bc, 100);
  assert_int_equal(counts_of(u).bcm, 5);
  assert_int_equal(nmisp, 5);
  for (unsigned k = 0; k < 5; k++)
    assert_int_equal(misp_at[k], 2 * k);
  spmu_uarch_free(u);
}

/* Cachegrind, a branch always taken: the history is new at each of the
 * first 7 steps (0, 1, 3, ..., 0x3f), each counter at 0: 7 mispredicts;
 * then the history stays 0x7f and its counter needs two more (0 -> 1 ->
 * 2) before it predicts taken: 9 in all. */
static void test_cachegrind_always_taken_nine_mispredicts(void **state)
{
  spmu_uarch *u = new_model(CG);

  (void)state;
  for (unsigned i = 0; i < 50; i++)
    spmu_uarch_branch(u, PC, PC + 2, SPMU_UARCH_BR_COND, 1, 0x401150);
  assert_int_equal(counts_of(u).bcm, 9);
  spmu_uarch_free(u);
}

/* Cachegrind's index keeps 7 address bits: branches 128 bytes apart share
 * counters. Twice, a taken branch at PC + 128 with history 0 raises the
 * counter (history 0, PC & 0x7f) 0 -> 1 -> 2, and 7 not-taken branches at
 * another address bring the history back to 0. A taken branch at PC then
 * reads that counter and is predicted: it never ran before. Branches 64
 * bytes apart do not share. */
static void test_cachegrind_counters_alias_every_128_bytes(void **state)
{
  spmu_uarch *u = new_model(CG);

  (void)state;
  for (unsigned i = 0; i < 2; i++) {
    spmu_uarch_branch(u, PC + 128, PC + 130, SPMU_UARCH_BR_COND, 1, 0);
    for (unsigned k = 0; k < 7; k++)
      spmu_uarch_branch(u, PC + 0x10, PC + 0x12, SPMU_UARCH_BR_COND, 0, 0);
  }
  assert_int_equal(spmu_uarch_branch(u, PC, PC + 2, SPMU_UARCH_BR_COND, 1, 0),
                   0);
  assert_int_equal(counts_of(u).bcm, 2);
  spmu_uarch_free(u);
  /* 64 bytes apart is another counter: the same training at PC + 64
   * leaves PC's counter at 0, and the branch at PC mispredicts. */
  u = new_model(CG);
  for (unsigned i = 0; i < 2; i++) {
    spmu_uarch_branch(u, PC + 64, PC + 66, SPMU_UARCH_BR_COND, 1, 0);
    for (unsigned k = 0; k < 7; k++)
      spmu_uarch_branch(u, PC + 0x10, PC + 0x12, SPMU_UARCH_BR_COND, 0, 0);
  }
  assert_int_equal(spmu_uarch_branch(u, PC, PC + 2, SPMU_UARCH_BR_COND, 1, 0),
                   1);
  spmu_uarch_free(u);
}

/* Cachegrind's indirect predictor: the last target per entry, entries
 * starting at 0. A site always going to one target mispredicts once; a
 * site alternating between two mispredicts every time; sites 512 bytes
 * apart share an entry. Returns are never mispredicted nor counted in Bi. */
static void test_cachegrind_indirect_last_target(void **state)
{
  spmu_uarch *u = new_model(CG);
  spmu_uarch_counts n;

  (void)state;
  for (unsigned i = 0; i < 10; i++) {
    spmu_uarch_branch(u, 0x401200, 0x401202, SPMU_UARCH_BR_IND_JUMP, 1,
                      i % 2 ? 0x401240 : 0x401280);
    spmu_uarch_branch(u, 0x401300, 0x401302, SPMU_UARCH_BR_IND_CALL, 1,
                      0x401340);
    spmu_uarch_branch(u, 0x401340, 0x401341, SPMU_UARCH_BR_RET, 1, 0x401302);
  }
  n = counts_of(u);
  assert_int_equal(n.bi, 20);
  assert_int_equal(n.bim, 10 + 1);
  assert_int_equal(n.ret, 10);
  assert_int_equal(n.retm, 0);
  /* 0x401500 shares 0x401300's entry (0x100): target 0x401340 is there. */
  assert_int_equal(spmu_uarch_branch(u, 0x401500, 0x401502,
                                     SPMU_UARCH_BR_IND_JUMP, 1, 0x401340),
                   0);
  /* An entry never written predicts target 0. */
  assert_int_equal(
      spmu_uarch_branch(u, 0x401010, 0x401012, SPMU_UARCH_BR_IND_JUMP, 1, 0),
      0);
  spmu_uarch_free(u);
}

/* The part's gshare (16 history bits, counters starting at 1, weakly not
 * taken), one branch alternating T N ...: each N reads a counter at 1 (or
 * 0) and is predicted; each T at steps 0, 2, ..., 14 has a history never
 * seen (its length grows), counter 1: 8 mispredicts; from step 16 the
 * history before a T is 0xaaaa, whose counter mispredicts once more (1 ->
 * 2) and then predicts taken: 9 in all. */
static void test_gshare_alternating_branch_nine_mispredicts(void **state)
{
  spmu_uarch *u = new_model("part:skylake");

  (void)state;
  for (unsigned i = 0; i < 200; i++)
    spmu_uarch_branch(u, PC, PC + 2, SPMU_UARCH_BR_COND, i % 2 == 0, 0);
  assert_int_equal(counts_of(u).bcm, 9);
  spmu_uarch_free(u);
}

/* The part's BTB holds the branch's address: two sites 4096 entries apart
 * (one index) with fixed targets evict each other and always mispredict;
 * alone, a site mispredicts once. */
static void test_btb_is_tagged(void **state)
{
  spmu_uarch *u = new_model("part:skylake");

  (void)state;
  for (unsigned i = 0; i < 5; i++) {
    spmu_uarch_branch(u, 0x401000, 0, SPMU_UARCH_BR_IND_JUMP, 1, 0x402000);
    spmu_uarch_branch(u, 0x402000, 0, SPMU_UARCH_BR_IND_JUMP, 1, 0x402000);
  }
  assert_int_equal(counts_of(u).bim, 10);
  for (unsigned i = 0; i < 5; i++)
    spmu_uarch_branch(u, 0x401004, 0, SPMU_UARCH_BR_IND_JUMP, 1, 0x403000);
  assert_int_equal(counts_of(u).bim, 11);
  spmu_uarch_free(u);
}

/* The return-stack buffer has 16 entries: 20 nested calls overwrite the 4
 * oldest return addresses, so of the 20 returns the first 16 are
 * predicted and the last 4 find it empty. */
static void test_rsb_overflow_mispredicts_deepest_returns(void **state)
{
  spmu_uarch *u = new_model("part:skylake");
  spmu_uarch_counts n;

  (void)state;
  for (uint64_t d = 0; d < 20; d++)
    spmu_uarch_branch(u, 0x401000 + 16 * d, 0x401005 + 16 * d,
                      SPMU_UARCH_BR_CALL, 1, 0x401010 + 16 * d);
  for (uint64_t d = 20; d-- > 0;)
    spmu_uarch_branch(u, 0x402000, 0x402001, SPMU_UARCH_BR_RET, 1,
                      0x401005 + 16 * d);
  n = counts_of(u);
  assert_int_equal(n.ret, 20);
  assert_int_equal(n.retm, 4);
  assert_int_equal(n.branches, 40);
  spmu_uarch_free(u);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cachegrind_alternating_branch_five_mispredicts),
      cmocka_unit_test(test_cachegrind_always_taken_nine_mispredicts),
      cmocka_unit_test(test_cachegrind_counters_alias_every_128_bytes),
      cmocka_unit_test(test_cachegrind_indirect_last_target),
      cmocka_unit_test(test_gshare_alternating_branch_nine_mispredicts),
      cmocka_unit_test(test_btb_is_tagged),
      cmocka_unit_test(test_rsb_overflow_mispredicts_deepest_returns),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* inline.c's handover to callbacks with a made-up QEMU: a second thread
 * makes the plugin reset itself, and the reset takes effect only when
 * QEMU next stops every vCPU. A thread that starts in between runs the
 * blocks translated for inline counting (under QEMU 10 the first block
 * after its clone, when the host is loaded), and from plugin API 2 their
 * adds land in that vCPU's words of the scoreboard. Every execution is
 * one retirement of the block's instructions (Instruction Retired, SDM
 * Vol. 3B 18.2.1.2, Table 18-1, counts each), so the counts handed to the
 * cores once the reset took effect are all of them, whichever vCPU ran
 * them, as under API 1's one word for every thread. The executions are
 * made here by hand, each on the vCPU the test names: the outcome does not
 * depend on timing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api.h" /* frontends/qemu/ */
#include "classify.h"
#include "count.h"
#include "inline.h"

#define NVCPUS 4 /* the vCPUs the made-up QEMU has */
#define NBLOCKS 2

/* A scoreboard: an element of `size` bytes per vCPU. */
struct qemu_plugin_scoreboard {
  size_t size;
  unsigned char data[];
};

/* The made-up process: its blocks, the inline add each block's code
 * does (API 2's entry or API 1's word), and what inline.c delivered. */
struct fake {
  struct tb tb[NBLOCKS];
  char qtb[NBLOCKS]; /* the blocks as QEMU names them: their addresses */
  qemu_plugin_u64 entry[NBLOCKS];
  uint64_t *word[NBLOCKS];
  uint64_t delivered[NBLOCKS];
};

static struct fake fake;

static struct qemu_plugin_scoreboard *fake_scoreboard_new(size_t size)
{
  struct qemu_plugin_scoreboard *s = calloc(1, sizeof(*s) + NVCPUS * size);

  if (s)
    s->size = size;
  return s;
}

static void fake_scoreboard_free(struct qemu_plugin_scoreboard *s)
{
  free(s);
}

static uint64_t *slot(qemu_plugin_u64 e, unsigned vcpu)
{
  assert_true(vcpu < NVCPUS);
  return (uint64_t *)(void *)(e.score->data + vcpu * e.score->size + e.offset);
}

static uint64_t fake_u64_get(qemu_plugin_u64 e, unsigned vcpu)
{
  return *slot(e, vcpu);
}

static void fake_u64_set(qemu_plugin_u64 e, unsigned vcpu, uint64_t v)
{
  *slot(e, vcpu) = v;
}

static unsigned block_of(const struct qemu_plugin_tb *qtb)
{
  unsigned i = (unsigned)((const char *)qtb - fake.qtb);

  assert_true(i < NBLOCKS);
  return i;
}

static void fake_tb_exec_inline(struct qemu_plugin_tb *qtb,
                                enum qemu_plugin_op op, qemu_plugin_u64 e,
                                uint64_t imm)
{
  assert_int_equal(op, QEMU_PLUGIN_INLINE_ADD_U64);
  assert_int_equal(imm, 1);
  fake.entry[block_of(qtb)] = e;
}

static void fake_tb_exec_inline_v1(struct qemu_plugin_tb *qtb,
                                   enum qemu_plugin_op op, void *ptr,
                                   uint64_t imm)
{
  assert_int_equal(op, QEMU_PLUGIN_INLINE_ADD_U64);
  assert_int_equal(imm, 1);
  fake.word[block_of(qtb)] = ptr;
}

static const struct spmu_qemu_api api2 = {
    .version = 4,
    .scoreboard_new = fake_scoreboard_new,
    .scoreboard_free = fake_scoreboard_free,
    .u64_get = fake_u64_get,
    .u64_set = fake_u64_set,
    .tb_exec_inline = fake_tb_exec_inline,
};

static const struct spmu_qemu_api api1 = {
    .version = 1,
    .tb_exec_inline_v1 = fake_tb_exec_inline_v1,
};

/* Block i's generated code runs once on vcpu: its inline add. */
static void run(unsigned i, unsigned vcpu)
{
  if (fake.word[i])
    (*fake.word[i])++; /* API 1: one word for every thread */
  else
    (*slot(fake.entry[i], vcpu))++;
}

/* ---- what inline.c calls outside itself ------------------------------ */

struct tb *spmu_qemu_tbs_at(const struct spmu_qemu_blocks *b, uint64_t vaddr)
{
  (void)b, (void)vaddr;
  return NULL; /* no REP string instruction here */
}

size_t spmu_qemu_blocks_count(const struct spmu_qemu_blocks *b)
{
  (void)b;
  return NBLOCKS;
}

struct tb *spmu_qemu_block(const struct spmu_qemu_blocks *b, size_t i)
{
  (void)b;
  return &fake.tb[i];
}

void spmu_qemu_deliver(struct vcpu *v, const struct tb *t, unsigned var,
                       uint64_t execs)
{
  (void)v;
  assert_int_equal(var, 0);
  fake.delivered[t - fake.tb] += execs;
}

void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
                                          qemu_plugin_vcpu_udata_cb_t cb,
                                          enum qemu_plugin_cb_flags flags,
                                          void *userdata)
{
  (void)tb, (void)cb, (void)flags, (void)userdata;
  fail_msg("no block here needs a callback");
}

/* ---- the tests -------------------------------------------------------- */

/* Two blocks translated for inline counting, as on_tb_trans does. */
static struct spmu_qemu_inline *translate(const struct spmu_qemu_api *api)
{
  struct spmu_qemu_inline *in;
  unsigned i;

  memset(&fake, 0, sizeof(fake));
  in = spmu_qemu_inline_new((const struct spmu_qemu_blocks *)&fake, api);
  assert_non_null(in);
  for (i = 0; i < NBLOCKS; i++) {
    fake.tb[i] = (struct tb){
        .vaddr = 0x401000 + 16 * i, .rep_addr = UINT64_MAX, .id = i};
    assert_true(spmu_qemu_inline_tb(
        in, (struct qemu_plugin_tb *)(void *)&fake.qtb[i], &fake.tb[i]));
  }
  return in;
}

/* The first thread runs block 0 five times and block 1 once; then two
 * threads start before the reset takes effect and each runs block 1 (the
 * code after the clone) once, on vCPUs 2 and 3 (vCPU 1 has ended). */
static void run_handover(void)
{
  unsigned k;

  for (k = 0; k < 5; k++)
    run(0, 0);
  run(1, 0);
  run(1, 2);
  run(1, 3);
}

/* Gather nvcpus vCPUs' words, flush: blocks 0 and 1 delivered so far. */
static void gather_flush(struct spmu_qemu_inline *in, unsigned nvcpus,
                         uint64_t want0, uint64_t want1)
{
  spmu_qemu_inline_gather(in, nvcpus);
  spmu_qemu_inline_flush(in, NULL);
  assert_int_equal(fake.delivered[0], want0);
  assert_int_equal(fake.delivered[1], want1);
}

/* Plugin API 2 on: each vCPU's adds in its own words; gathered when the
 * reset took effect, every execution reaches the cores. */
static void test_api2_threads_started_before_the_reset_count(void **state)
{
  struct spmu_qemu_inline *in = translate(&api2);

  (void)state;
  run_handover();
  gather_flush(in, NVCPUS, 5, 3);
  /* every word read and cleared: a second flush hands nothing over */
  gather_flush(in, NVCPUS, 5, 3);
  spmu_qemu_inline_free(in);
}

/* Without the gather (before the fix), vCPU 0's words alone were read:
 * block 1's executions on vCPUs 2 and 3 were lost. The gather reads the
 * vCPUs it is given, no more (QEMU aborts on a vCPU it has not made). */
static void test_api2_gather_reads_the_vcpus_seen(void **state)
{
  struct spmu_qemu_inline *in = translate(&api2);

  (void)state;
  run_handover();
  gather_flush(in, 3, 5, 2); /* vCPUs 0 to 2 */
  spmu_qemu_inline_free(in);
}

/* Plugin API 1 (QEMU 7.2): one word for every thread; the gather has
 * nothing to do and the counts are the same. */
static void test_api1_one_word_for_every_thread(void **state)
{
  struct spmu_qemu_inline *in = translate(&api1);

  (void)state;
  run_handover();
  gather_flush(in, NVCPUS, 5, 3);
  spmu_qemu_inline_free(in);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_api2_threads_started_before_the_reset_count),
      cmocka_unit_test(test_api2_gather_reads_the_vcpus_seen),
      cmocka_unit_test(test_api1_one_word_for_every_thread),
  };

  return cmocka_run_group_tests(tests, NULL, NULL);
}

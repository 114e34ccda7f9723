/* SPDX-License-Identifier: GPL-2.0-or-later */
/* classify.c's decoding without Zydis (spmu_qemu_classify_fast) against
 * Zydis: for every encoding the fast path claims, with or without a REX
 * prefix (SDM Vol. 2A 2.2.1), every ModRM and, where the ModRM has one,
 * every SIB byte (Tables 2-2, 2-3), at every length, the class must be the
 * one Zydis gives (kind, load, store, memory bytes, atomic RMW). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "classify.h" /* frontends/qemu/ */
#include "model.h"

/* classify.c's block description calls QEMU and the model; not here. */
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb)
{
  (void)tb;
  abort();
}
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb)
{
  (void)tb;
  abort();
}
struct qemu_plugin_insn *
qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx)
{
  (void)tb, (void)idx;
  abort();
}
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn)
{
  (void)insn;
  abort();
}
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn)
{
  (void)insn;
  abort();
}
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn)
{
  (void)insn;
  abort();
}
void spmu_qemu_model_free_tb(struct tb *t)
{
  (void)t;
  abort();
}

/* Every length of bytes the fast path takes gives Zydis's class; returns
 * how many it took. */
static unsigned check_all_lengths(const struct spmu_qemu_blocks *b,
                                  const uint8_t *bytes)
{
  unsigned taken = 0;
  size_t len;

  for (len = 1; len <= 15; len++) {
    insn_class fast, zydis;

    if (!spmu_qemu_classify_fast(bytes, len, &fast))
      continue;
    taken++;
    if (!spmu_qemu_classify_zydis(b, bytes, len, &zydis) ||
        memcmp(&fast, &zydis, sizeof(fast)) != 0)
      fail_msg(
          "%02x %02x %02x %02x len %zu: fast %u/%u/%u/%u, zydis %u/%u/%u/%u",
          bytes[0], bytes[1], bytes[2], bytes[3], len, fast.kind, fast.load,
          fast.store, fast.mem_bytes, zydis.kind, zydis.load, zydis.store,
          zydis.mem_bytes);
  }
  return taken;
}

/* Prefix (none or a REX), opcode, ModRM (or 0F's second byte), SIB. */
static void fast_matches_zydis(void **state)
{
  struct spmu_qemu_blocks *b = spmu_qemu_blocks_new(false);
  unsigned prefix, op, modrm, sib, taken = 0;

  (void)state;
  assert_non_null(b);
  for (prefix = 0x3f; prefix <= 0x4f; prefix++)
    for (op = 0; op < 256; op++)
      for (modrm = 0; modrm < 256; modrm++) {
        uint8_t bytes[16] = {0};
        unsigned at = prefix == 0x3f ? 0 : 1;
        bool has_sib = (modrm & 7u) == 4 && modrm >> 6 != 3;

        if (at)
          bytes[0] = (uint8_t)prefix;
        bytes[at] = (uint8_t)op;
        bytes[at + 1] = (uint8_t)modrm;
        for (sib = 0; sib < (has_sib ? 256u : 1u); sib++) {
          bytes[at + 2] = (uint8_t)sib;
          taken += check_all_lengths(b, bytes);
        }
      }
  /* The fast path is used at all: MOV, the ALU forms, PUSH/POP, the
   * direct branches, RET, with and without REX. */
  assert_true(taken > 100000);
  spmu_qemu_blocks_free(b);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(fast_matches_zydis),
  };

  return cmocka_run_group_tests(tests, NULL, NULL);
}

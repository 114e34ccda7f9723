/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The translated blocks (classify.c): each described once, when QEMU
 * translates it, from its instructions decoded with Zydis, and kept in
 * the process's table of blocks (by index and by start address). */
#ifndef SOFTPMU_QEMU_CLASSIFY_H
#define SOFTPMU_QEMU_CLASSIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lines.h"
#include "qemu_plugin_api.h"
#include "tb.h"

struct spmu_qemu_blocks;
struct spmu_qemu_api;

/* An empty table, with its decoder; NULL when either cannot be made.
 * by_vaddr: the blocks are also found by address (spmu_qemu_tbs_at),
 * which counting inline needs (inline.c) and nothing else: without it
 * spmu_qemu_tbs_at finds none. */
struct spmu_qemu_blocks *spmu_qemu_blocks_new(bool by_vaddr);
void spmu_qemu_blocks_free(struct spmu_qemu_blocks *b);

/* Block qtb described (not yet in the table; its memory is b's, freed
 * with b), or NULL (out of memory). It remembers classifications in b:
 * the caller serialises it as it serialises spmu_qemu_register_tb. */
struct tb *spmu_qemu_describe_tb(struct spmu_qemu_blocks *b,
                                 const struct spmu_qemu_api *api,
                                 const struct qemu_plugin_tb *qtb);
/* What model.c keeps of t freed (t itself goes with the table). */
void spmu_qemu_free_tb(struct tb *t);

/* Add t to the table (its id, its place by address if kept); false when
 * memory runs out. The caller serialises the table's writers and readers. */
bool spmu_qemu_register_tb(struct spmu_qemu_blocks *b, struct tb *t);

/* The blocks that start at vaddr (through same_vaddr), or NULL. */
struct tb *spmu_qemu_tbs_at(const struct spmu_qemu_blocks *b, uint64_t vaddr);

/* The table by index: how many, and block i. */
size_t spmu_qemu_blocks_count(const struct spmu_qemu_blocks *b);
struct tb *spmu_qemu_block(const struct spmu_qemu_blocks *b, size_t i);

/* The instruction's class without Zydis, for the commonest encodings
 * (classify.c); false for any other, c then unspecified. */
bool spmu_qemu_classify_fast(const uint8_t *bytes, size_t len, insn_class *c);

/* The instruction's class decoded with Zydis (b's decoder); false when
 * the bytes do not decode to exactly len bytes. */
bool spmu_qemu_classify_zydis(const struct spmu_qemu_blocks *b,
                              const uint8_t *bytes, size_t len, insn_class *c);

/* What one instruction adds to its block's lines (not taken). */
void spmu_qemu_insn_lines(const insn_class *c, uint32_t lines[NLINES]);

#endif

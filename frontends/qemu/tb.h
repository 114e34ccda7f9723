/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A translated block as the plugin keeps it: described once, when QEMU
 * translates it (classify.c), and handed back to the callbacks of its
 * executions as their userdata. Types only. */
#ifndef SOFTPMU_QEMU_TB_H
#define SOFTPMU_QEMU_TB_H

#include <stdint.h>

#include "lines.h"

#define NVARIANTS 4
#define VAR_TAKEN 1u /* the block's conditional branch was taken */
#define VAR_CONT 2u  /* the block began by repeating a REP string insn */

/* A block's lines as vectors (GCC and Clang vector extensions), so that
 * adding a block to a thread's sums is a few vector adds. */
#define LANES 4
#define NVECS ((NLINES + LANES - 1) / LANES)
typedef uint32_t lanes __attribute__((vector_size(16)));
/* Counting by packed lanes (count.c, cfg->packed): the lines events
 * count, one a lane (config.h's lane_line), as signed lanes. */
typedef int32_t slanes __attribute__((vector_size(16)));

typedef struct insn_class {
  uint8_t kind; /* enum insn_kind */
  uint8_t load, store;
  uint8_t vex_cas;    /* an atomic read-modify-write (classify.c) */
  uint16_t mem_bytes; /* its widest memory operand's bytes, or 0 */
} insn_class;

struct vcpu;

/* A counter inline.c keeps: word `word` of one of its chunks (chunk NULL:
 * none). */
struct inline_chunk;
struct icounter {
  struct inline_chunk *chunk;
  uint32_t word;
};

/* A translated block: its totals, computed once at translation, and each
 * instruction (for placing an overflow on the exact one). */
struct tb {
  /* The process's threads by QEMU's vCPU index (threads.c's registry):
   * a callback finds the thread that runs the block through it. */
  struct vcpu *const *vcpus;
  uint64_t vaddr;
  slanes packed[NVARIANTS]; /* each variant in cfg->lane_line's lanes */
  uint64_t fallthrough;     /* the address after its last instruction */
  uint64_t rep_addr;        /* its last instruction if a REP string one */
  uint32_t id;              /* its index among the blocks (classify.c) */
  uint8_t cond_last;        /* the last instruction is a conditional branch */
  uint8_t rep_first;        /* the first instruction is a REP string one */
  uint8_t last_kind;        /* enum insn_kind of the last instruction */
  uint8_t far_alone; /* one far transfer (SYSCALL): what a restart re-runs */
  uint32_t total[NLINES];         /* not taken, not a continuation */
  uint32_t first[NLINES];         /* what the first instruction contributes */
  uint32_t charge[NVARIANTS];     /* the budget each variant takes (count.c) */
  lanes vlines[NVARIANTS][NVECS]; /* each variant's lines (count.c) */
  struct icounter inline_count;   /* executions counted inline (inline.c) */
  struct icounter inline_cont;    /* of them, repeats of its REP instruction */
  struct tb *same_vaddr;          /* another block at vaddr (classify.c) */
  uint32_t ninsns;
  /* One iteration's data accesses of its last instruction if a REP string
   * one (classify.c), else 0. */
  uint8_t rep_accesses;
  uint64_t *insn_vaddr;        /* [ninsns] */
  insn_class *insn;            /* [ninsns] */
  struct spmu_qemu_mtb *model; /* what model.c keeps of it (one malloc'd
                                 block, freed with the tb), or NULL */
};

#endif

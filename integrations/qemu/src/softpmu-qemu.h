/* SPDX-License-Identifier: GPL-2.0-or-later */
/* softpmu as the PMU of QEMU's x86 TCG system emulator: the hooks the
 * patched QEMU calls (integrations/qemu/README.md). One softpmu core per
 * machine, one logical processor per vCPU; the model does the work. */
#ifndef SOFTPMU_QEMU_H
#define SOFTPMU_QEMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ArchCPU X86CPU;
typedef struct CPUArchState CPUX86State;
typedef struct Error Error;
typedef struct QSpmuVcpu QSpmuVcpu;

/* The branch kind of an instruction, as the event lines count it
 * (BR_INST_RETIRED's umasks, lines.h): the LBR's finer branch type
 * (enum spmu_branch_type) maps to one of these. */
enum qspmu_kind {
  QSPMU_NONE,
  QSPMU_COND, /* Jcc, LOOPcc, JrCXZ: taken or not */
  QSPMU_JMP,  /* near jump, direct or indirect */
  QSPMU_CALL, /* near call */
  QSPMU_RET,  /* near return */
  QSPMU_FAR   /* far jump/call/return, IRET, INT n, SYSCALL/SYSRET... */
};

/* What one instruction is (qspmu_classify): its branch type (enum
 * spmu_branch_type, bits 3:0), whether it loads (bit 4) and stores (bit
 * 5). */
#define QSPMU_CLS_TYPE(c) (0xfu & (unsigned)(c))
#define QSPMU_CLS_LOAD(c) (((unsigned)(c) >> 4) & 1)
#define QSPMU_CLS_STORE(c) (((unsigned)(c) >> 5) & 1)

/* A translation block's summary, built by the translator and handed to
 * the helpers as one constant: instructions (bits 15:0), the branch type
 * of its last instruction (19:16, enum spmu_branch_type), its loads
 * (29:20) and stores (39:30), the offset of its last instruction from
 * its first (52:40) and that instruction's length (56:53). */
#define QSPMU_INFO(n, type, ld, st, off, len)                                  \
  ((uint64_t)(n) | (uint64_t)(type) << 16 | (uint64_t)(ld) << 20 |             \
   (uint64_t)(st) << 30 | (uint64_t)(off) << 40 | (uint64_t)(len) << 53)
#define QSPMU_INFO_N(info) (0xffffu & (unsigned)(info))
#define QSPMU_INFO_TYPE(info) ((unsigned)((info) >> 16) & 0xf)
#define QSPMU_INFO_LOADS(info) ((unsigned)((info) >> 20) & 0x3ff)
#define QSPMU_INFO_STORES(info) ((unsigned)((info) >> 30) & 0x3ff)
#define QSPMU_INFO_OFF(info) ((unsigned)((info) >> 40) & 0x1fff)
#define QSPMU_INFO_LEN(info) ((unsigned)((info) >> 53) & 0xf)

/* Each instruction's restore word (the third insn_start word): its index
 * in the block (bits 15:0), the block's branch type (19:16), and the
 * loads (29:20) and stores (39:30) of this instruction and those after
 * it in the block. While the block is translated, bits 21:20 hold the
 * instruction's own load and store bits. */
#define QSPMU_RESTORE(idx, type, ld, st)                                       \
  ((uint64_t)(idx) | (uint64_t)(type) << 16 | (uint64_t)(ld) << 20 |           \
   (uint64_t)(st) << 30)

/* The inline batch (env->spmu_insns, spmu_kinds, spmu_loads, spmu_stores,
 * by CPL): each block adds its instructions to spmu_insns, its loads and
 * stores, and to spmu_kinds QSPMU_KIND_ONE of its branch kind; a taken
 * conditional branch adds QSPMU_KIND_ONE(QSPMU_TAKEN); a REP string
 * instruction that repeats subtracts its 1 instruction, its load and its
 * store (it retires once). spmu_kinds holds one 10-bit count per kind:
 * the helper empties it before a count can reach 1024
 * (QSPMU_INLINE_MAX). */
#define QSPMU_TAKEN 6
#define QSPMU_KIND_BITS 10
#define QSPMU_KIND_ONE(kind)                                                   \
  ((kind) ? UINT64_C(1) << (QSPMU_KIND_BITS * (-1 + (kind))) : 0)
#define QSPMU_INLINE_MAX 1000

/* What the instruction bytes[0..len) is, decoded in mode 16, 32 or 64
 * (bits) by the same rules as the user-mode plugin (SDM Vol. 2):
 * QSPMU_CLS_* bits. */
unsigned qspmu_classify(const uint8_t *bytes, size_t len, unsigned mode);
/* The event lines' kind of a branch type. */
unsigned qspmu_kind_of(unsigned type);

/* -cpu ...,softpmu=PROFILE: create the machine's core on the first vCPU,
 * attach this vCPU to its logical processor. Errors are QEMU's. */
void qspmu_realize(X86CPU *cpu, const char *profile, Error **errp);
/* Whether the machine has a softpmu core. */
bool qspmu_active(void);
/* CPUID: leaf 0AH and the PMU bits of leaf 01H from the model. */
void qspmu_cpuid(CPUX86State *env, uint32_t index, uint32_t count,
                 uint32_t regs[4]);
/* WRMSR/RDMSR of an MSR the model owns: true when handled (a #GP is
 * raised through ra); false for the MSRs QEMU keeps. An MSR of softpmu's
 * catalogue that the profile lacks raises #GP(0) through ra. */
bool qspmu_wrmsr(CPUX86State *env, uint32_t msr, uint64_t val, uintptr_t ra);
bool qspmu_rdmsr(CPUX86State *env, uint32_t msr, uint64_t *val, uintptr_t ra);
/* RDPMC: false when the machine has no softpmu. */
bool qspmu_rdpmc(CPUX86State *env, uintptr_t ra);
/* Entering the execution loop: bring the block-instrumentation flag up to
 * date (after a reset or a loadvm). */
void qspmu_exec_enter(X86CPU *cpu);
/* An exception ended a block of tb_n instructions with block flags
 * tb_flags at the instruction whose restore word is data
 * (QSPMU_RESTORE): take back what the block counted for the
 * instructions that did not retire. */
void qspmu_restore(X86CPU *cpu, uint32_t tb_flags, unsigned tb_n,
                   uint64_t data);
/* An interrupt or exception (is_int: INT n, INT3, INTO) is delivered:
 * the branch it is, for the LBRs and BTS. */
void qspmu_interrupt(X86CPU *cpu, int is_int);

#endif

/* softpmu as the PMU of QEMU's x86 TCG system emulator: the hooks the
 * patched QEMU calls (integrations/qemu/README.md). One softpmu core per
 * machine, one logical processor per vCPU; the model does the work. */
#ifndef SOFTPMU_QEMU_H
#define SOFTPMU_QEMU_H

#include <stdbool.h>
#include <stdint.h>

typedef struct ArchCPU X86CPU;
typedef struct CPUArchState CPUX86State;
typedef struct Error Error;
typedef struct QSpmuVcpu QSpmuVcpu;

/* A translation block's summary, built by the translator and handed to
 * the per-block helper as one constant: instructions (bits 15:0) and the
 * branch kind of its last instruction (bits 19:16, enum qspmu_kind). */
enum qspmu_kind {
  QSPMU_NONE,
  QSPMU_COND, /* Jcc, LOOPcc, JrCXZ: taken or not */
  QSPMU_JMP,  /* near jump, direct or indirect */
  QSPMU_CALL, /* near call */
  QSPMU_RET,  /* near return */
  QSPMU_FAR   /* far jump/call/return, IRET, INT n, SYSCALL/SYSRET... */
};
#define QSPMU_INFO(n, kind) ((uint64_t)(n) | (uint64_t)(kind) << 16)
#define QSPMU_INFO_N(info) ((unsigned)(info)&0xffff)
#define QSPMU_INFO_KIND(info) ((unsigned)((info) >> 16) & 0xf)

/* The inline batch (env->spmu_insns, env->spmu_kinds, by CPL): each
 * block adds its instructions to spmu_insns, and to spmu_kinds
 * QSPMU_KIND_ONE of its branch kind; a taken conditional branch adds
 * QSPMU_KIND_ONE(QSPMU_TAKEN); a REP string instruction that repeats
 * subtracts 1 from spmu_insns (it retires once). spmu_kinds holds one
 * 10-bit count per kind: the helper empties it before a count can reach
 * 1024 (QSPMU_INLINE_MAX). */
#define QSPMU_TAKEN 6
#define QSPMU_KIND_BITS 10
#define QSPMU_KIND_ONE(kind)                                                   \
  ((kind) ? UINT64_C(1) << (QSPMU_KIND_BITS * ((kind)-1)) : 0)
#define QSPMU_INLINE_MAX 1000

/* The branch kind of opcode op (one byte; 0x100 | second byte for 0F xx;
 * 0x200 | ModRM.reg for FF /r), SDM Vol. 2 opcode map (Table,
 * */
unsigned qspmu_classify(unsigned op);

/* -cpu ...,softpmu=PROFILE: create the machine's core on the first vCPU,
 * attach this vCPU to its logical processor. Errors are QEMU's. */
void qspmu_realize(X86CPU *cpu, const char *profile, Error **errp);
/* Whether the machine has a softpmu core. */
bool qspmu_active(void);
/* CPUID: leaf 0AH and the PMU bits of leaf 01H from the model. */
void qspmu_cpuid(CPUX86State *env, uint32_t index, uint32_t regs[4]);
/* WRMSR/RDMSR of an MSR the model owns: true when handled (a #GP is
 * raised through ra); false for the MSRs QEMU keeps. */
bool qspmu_wrmsr(CPUX86State *env, uint32_t msr, uint64_t val, uintptr_t ra);
bool qspmu_rdmsr(CPUX86State *env, uint32_t msr, uint64_t *val, uintptr_t ra);
/* RDPMC: false when the machine has no softpmu. */
bool qspmu_rdpmc(CPUX86State *env, uintptr_t ra);
/* Entering the execution loop: bring the block-instrumentation flag up to
 * date (after a reset or a loadvm). */
void qspmu_exec_enter(X86CPU *cpu);
/* An exception ended a block of tb_n instructions at CPL cpl at
 * instruction data & 0xffff (data >> 16: the block's branch kind): take
 * back what the block counted for the instructions that did not retire. */
void qspmu_restore(X86CPU *cpu, unsigned cpl, unsigned tb_n, uint64_t data);

#endif

/* SPDX-License-Identifier: MIT */
/* What an x86 instruction is, for the events and the branch records: the
 * rules shared by the user-mode plugin (classify.c) and QEMU's system-mode
 * glue (integrations/qemu/src/softpmu-classify.c), on an instruction
 * Zydis has decoded (SDM Vol. 2 for the instructions). Header only, and
 * the one file of protocol/ that needs more than libc: Zydis, which its
 * two users link (QEMU's build reaches protocol/ through the -I of the
 * softpmu.pc that integrations/qemu/build writes). */
#ifndef SOFTPMU_PROTOCOL_INSN_H
#define SOFTPMU_PROTOCOL_INSN_H

#include <stdbool.h>
#include <stdint.h>

#include <Zydis/Zydis.h>
#include <softpmu/events.h>

/* What one instruction contributes, from its decoding. */
enum insn_kind {
  K_OTHER,
  K_COND,      /* Jcc, JrCXZ, LOOPcc: taken or not */
  K_JMP,       /* near jump, direct */
  K_JMP_IND,   /* near jump, indirect */
  K_CALL,      /* near call, direct */
  K_CALL_IND,  /* near call, indirect */
  K_RET,       /* near return */
  K_FAR,       /* far jump, call, return; IRET; SYSCALL; INT n */
  K_REP_STRING /* a string instruction with a REP prefix */
};

static inline bool insn_is_cond_branch(ZydisMnemonic m,
                                       ZydisInstructionCategory c)
{
  return c == ZYDIS_CATEGORY_COND_BR || m == ZYDIS_MNEMONIC_LOOP ||
         m == ZYDIS_MNEMONIC_LOOPE || m == ZYDIS_MNEMONIC_LOOPNE ||
         m == ZYDIS_MNEMONIC_JCXZ || m == ZYDIS_MNEMONIC_JECXZ ||
         m == ZYDIS_MNEMONIC_JRCXZ;
}

/* Far transfers (BR_INST_RETIRED.FAR_BRANCH; LBR_SELECT.FAR_BRANCH):
 * IRET, SYSCALL, SYSENTER, the INT forms, and the far forms of JMP, CALL
 * and RET; SYSRET and SYSEXIT are far branches by their operand kind. */
static inline bool insn_is_far_transfer(const ZydisDecodedInstruction *in)
{
  switch (in->mnemonic) {
  case ZYDIS_MNEMONIC_IRET:
  case ZYDIS_MNEMONIC_IRETD:
  case ZYDIS_MNEMONIC_IRETQ:
  case ZYDIS_MNEMONIC_SYSCALL:
  case ZYDIS_MNEMONIC_SYSENTER:
  case ZYDIS_MNEMONIC_INT:
  case ZYDIS_MNEMONIC_INT1:
  case ZYDIS_MNEMONIC_INT3:
  case ZYDIS_MNEMONIC_INTO:
    return true;
  default:
    return in->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR;
  }
}

/* A near jump or call through a register or memory operand. */
static inline bool insn_is_indirect(const ZydisDecodedOperand *ops)
{
  return ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER ||
         ops[0].type == ZYDIS_OPERAND_TYPE_MEMORY;
}

/* The instruction's enum insn_kind. */
static inline uint8_t insn_kind_of(const ZydisDecodedInstruction *in,
                                   const ZydisDecodedOperand *ops)
{
  if (insn_is_far_transfer(in))
    return K_FAR;
  if (insn_is_cond_branch(in->mnemonic, in->meta.category))
    return K_COND;
  if (in->mnemonic == ZYDIS_MNEMONIC_JMP)
    return insn_is_indirect(ops) ? K_JMP_IND : K_JMP;
  if (in->mnemonic == ZYDIS_MNEMONIC_CALL)
    return insn_is_indirect(ops) ? K_CALL_IND : K_CALL;
  if (in->mnemonic == ZYDIS_MNEMONIC_RET)
    return K_RET;
  if (in->meta.category == ZYDIS_CATEGORY_STRINGOP &&
      (in->attributes &
       (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE | ZYDIS_ATTRIB_HAS_REPNE)))
    return K_REP_STRING;
  return K_OTHER;
}

/* The LBR filters' branch type (enum spmu_branch_type, SDM Vol. 3B 17.7.2
 * Table 17-11) of an instruction of kind k; SPMU_BR_UNKNOWN for no branch. */
static inline uint8_t insn_branch_type(uint8_t k)
{
  switch (k) {
  case K_COND:
    return SPMU_BR_JCC;
  case K_JMP:
    return SPMU_BR_NEAR_REL_JMP;
  case K_JMP_IND:
    return SPMU_BR_NEAR_IND_JMP;
  case K_CALL:
    return SPMU_BR_NEAR_REL_CALL;
  case K_CALL_IND:
    return SPMU_BR_NEAR_IND_CALL;
  case K_RET:
    return SPMU_BR_NEAR_RET;
  case K_FAR:
    return SPMU_BR_FAR;
  default:
    return SPMU_BR_UNKNOWN;
  }
}

/* Loads and stores: memory operands, hidden ones included (PUSH, POP,
 * CALL and RET reach the stack), that the instruction reads or writes;
 * not LEA's address generation, nor NOP's operand. */
static inline void insn_memory(const ZydisDecodedInstruction *in,
                               const ZydisDecodedOperand *ops, bool *load,
                               bool *store)
{
  unsigned i;

  *load = *store = false;
  if (in->mnemonic == ZYDIS_MNEMONIC_NOP)
    return;
  for (i = 0; i < in->operand_count; i++) {
    if (ops[i].type != ZYDIS_OPERAND_TYPE_MEMORY)
      continue;
    if (ops[i].mem.type != ZYDIS_MEMOP_TYPE_MEM &&
        ops[i].mem.type != ZYDIS_MEMOP_TYPE_VSIB)
      continue;
    if (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_READ)
      *load = true;
    if (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE)
      *store = true;
  }
}

#endif

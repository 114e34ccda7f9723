/* What a guest instruction is, for the events and the branch records:
 * decoded once, when QEMU translates it, with Zydis and by the rules of
 * the user-mode plugin (frontends/qemu/classify.c): its branch type (the
 * LBR filters' kinds, SDM Vol. 3B 17.7.2 Table 17-11) and whether it
 * loads or stores (MEM_INST_RETIRED.ALL_LOADS / ALL_STORES). Kept apart
 * from the glue: it needs no QEMU header. */
#include <string.h>

#include <Zydis/Zydis.h>
#include <softpmu/softpmu.h>

#include "softpmu-qemu.h"

/* Far transfers (BR_INST_RETIRED.FAR_BRANCH; LBR_SELECT.FAR_BRANCH):
 * IRET, SYSCALL, SYSENTER, the INT forms, and the far forms of JMP, CALL
 * and RET (SDM Vol. 2). SYSRET and SYSEXIT are far branches by their
 * operand kind. */
static bool is_far(const ZydisDecodedInstruction *in)
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

static bool is_cond(const ZydisDecodedInstruction *in)
{
  switch (in->mnemonic) {
  case ZYDIS_MNEMONIC_LOOP:
  case ZYDIS_MNEMONIC_LOOPE:
  case ZYDIS_MNEMONIC_LOOPNE:
  case ZYDIS_MNEMONIC_JCXZ:
  case ZYDIS_MNEMONIC_JECXZ:
  case ZYDIS_MNEMONIC_JRCXZ:
    return true;
  default:
    return in->meta.category == ZYDIS_CATEGORY_COND_BR;
  }
}

/* A near JMP or CALL through a register or memory operand. */
static bool is_indirect(const ZydisDecodedOperand *ops)
{
  return ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER ||
         ops[0].type == ZYDIS_OPERAND_TYPE_MEMORY;
}

static unsigned branch_type(const ZydisDecodedInstruction *in,
                            const ZydisDecodedOperand *ops)
{
  if (is_far(in))
    return SPMU_BR_FAR;
  if (is_cond(in))
    return SPMU_BR_JCC;
  switch (in->mnemonic) {
  case ZYDIS_MNEMONIC_JMP:
    return is_indirect(ops) ? SPMU_BR_NEAR_IND_JMP : SPMU_BR_NEAR_REL_JMP;
  case ZYDIS_MNEMONIC_CALL:
    return is_indirect(ops) ? SPMU_BR_NEAR_IND_CALL : SPMU_BR_NEAR_REL_CALL;
  case ZYDIS_MNEMONIC_RET:
    return SPMU_BR_NEAR_RET;
  default:
    return SPMU_BR_UNKNOWN;
  }
}

/* Loads and stores: memory operands, hidden ones included (PUSH, POP,
 * CALL and RET reach the stack), that the instruction reads or writes;
 * not LEA's address generation, nor NOP's operand. */
static unsigned memory_bits(const ZydisDecodedInstruction *in,
                            const ZydisDecodedOperand *ops)
{
  unsigned i, bits = 0;

  if (in->mnemonic == ZYDIS_MNEMONIC_NOP)
    return 0;
  for (i = 0; i < in->operand_count; i++) {
    if (ops[i].type != ZYDIS_OPERAND_TYPE_MEMORY)
      continue;
    if (ops[i].mem.type != ZYDIS_MEMOP_TYPE_MEM &&
        ops[i].mem.type != ZYDIS_MEMOP_TYPE_VSIB)
      continue;
    if (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_READ)
      bits |= 1u << 4;
    if (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE)
      bits |= 1u << 5;
  }
  return bits;
}

unsigned qspmu_classify(const uint8_t *bytes, size_t len, unsigned mode)
{
  ZydisDecoder dec;
  ZydisDecodedInstruction in;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
  ZydisMachineMode mm = mode == 64   ? ZYDIS_MACHINE_MODE_LONG_64
                        : mode == 32 ? ZYDIS_MACHINE_MODE_LEGACY_32
                                     : ZYDIS_MACHINE_MODE_LEGACY_16;
  ZydisStackWidth sw = mode == 64   ? ZYDIS_STACK_WIDTH_64
                       : mode == 32 ? ZYDIS_STACK_WIDTH_32
                                    : ZYDIS_STACK_WIDTH_16;

  if (!ZYAN_SUCCESS(ZydisDecoderInit(&dec, mm, sw)) ||
      !ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, bytes, len, &in, ops)))
    return 0;
  return branch_type(&in, ops) | memory_bits(&in, ops);
}

unsigned qspmu_kind_of(unsigned type)
{
  switch (type) {
  case SPMU_BR_JCC:
    return QSPMU_COND;
  case SPMU_BR_NEAR_REL_CALL:
  case SPMU_BR_NEAR_IND_CALL:
    return QSPMU_CALL;
  case SPMU_BR_NEAR_RET:
    return QSPMU_RET;
  case SPMU_BR_NEAR_IND_JMP:
  case SPMU_BR_NEAR_REL_JMP:
    return QSPMU_JMP;
  case SPMU_BR_FAR:
    return QSPMU_FAR;
  default:
    return QSPMU_NONE;
  }
}

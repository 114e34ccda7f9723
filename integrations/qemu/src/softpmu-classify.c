/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a guest instruction is, for the events and the branch records:
 * decoded once, when QEMU translates it, with Zydis and by the rules of
 * the user-mode plugin (protocol/insn.h, shared): its branch type (the
 * LBR filters' kinds, SDM Vol. 3B 17.7.2 Table 17-11) and whether it
 * loads or stores (MEM_INST_RETIRED.ALL_LOADS / ALL_STORES). Kept apart
 * from the glue: it needs no QEMU header. */
#include <string.h>

#include <Zydis/Zydis.h>
#include <softpmu/softpmu.h>

#include "insn.h"
#include "softpmu-qemu.h"

/* Bit 4: it loads; bit 5: it stores. */
static unsigned memory_bits(const ZydisDecodedInstruction *in,
                            const ZydisDecodedOperand *ops)
{
  bool load, store;

  insn_memory(in, ops, &load, &store);
  return (load ? 1u << 4 : 0) | (store ? 1u << 5 : 0);
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
  return insn_branch_type(insn_kind_of(&in, ops)) | memory_bits(&in, ops);
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

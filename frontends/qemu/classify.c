/* What each instruction of a translated block is, decoded once at
 * translation with Zydis (SDM Vol. 2 for the instructions; the events they
 * feed are lines.h's), and the block's totals. */
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

#define PAGE_SIZE_X86 4096u
#define MAX_INSN_LEN 15u /* SDM Vol. 2A 2.3.11: at most 15 bytes */

/* ---- classification (Zydis) ------------------------------------------ */

static bool is_cond_branch(ZydisMnemonic m, ZydisInstructionCategory c)
{
  return c == ZYDIS_CATEGORY_COND_BR || m == ZYDIS_MNEMONIC_LOOP ||
         m == ZYDIS_MNEMONIC_LOOPE || m == ZYDIS_MNEMONIC_LOOPNE ||
         m == ZYDIS_MNEMONIC_JCXZ || m == ZYDIS_MNEMONIC_JECXZ ||
         m == ZYDIS_MNEMONIC_JRCXZ;
}

static bool is_far_transfer(const ZydisDecodedInstruction *in)
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
static bool is_indirect(const ZydisDecodedOperand *ops)
{
  return ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER ||
         ops[0].type == ZYDIS_OPERAND_TYPE_MEMORY;
}

static uint8_t branch_kind(const ZydisDecodedInstruction *in,
                           const ZydisDecodedOperand *ops)
{
  if (is_far_transfer(in))
    return K_FAR;
  if (is_cond_branch(in->mnemonic, in->meta.category))
    return K_COND;
  if (in->mnemonic == ZYDIS_MNEMONIC_JMP)
    return is_indirect(ops) ? K_JMP_IND : K_JMP;
  if (in->mnemonic == ZYDIS_MNEMONIC_CALL)
    return is_indirect(ops) ? K_CALL_IND : K_CALL;
  if (in->mnemonic == ZYDIS_MNEMONIC_RET)
    return K_RET;
  if (in->meta.category == ZYDIS_CATEGORY_STRINGOP &&
      (in->attributes &
       (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE | ZYDIS_ATTRIB_HAS_REPNE)))
    return K_REP_STRING;
  return K_OTHER;
}

/* Loads and stores: memory operands, hidden ones included (PUSH, POP,
 * CALL and RET reach the stack), that the instruction reads or writes;
 * not LEA's address generation, nor NOP's operand. */
static void memory_access(const ZydisDecodedInstruction *in,
                          const ZydisDecodedOperand *ops, insn_class *c)
{
  unsigned i;

  if (in->mnemonic == ZYDIS_MNEMONIC_NOP)
    return;
  for (i = 0; i < in->operand_count; i++) {
    if (ops[i].type != ZYDIS_OPERAND_TYPE_MEMORY)
      continue;
    if (ops[i].mem.type != ZYDIS_MEMOP_TYPE_MEM &&
        ops[i].mem.type != ZYDIS_MEMOP_TYPE_VSIB)
      continue;
    if (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_READ)
      c->load = 1;
    if (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE)
      c->store = 1;
  }
}

/* Decode one instruction; false when its bytes do not decode to exactly
 * their length (an instruction QEMU cut at a page end). */
static bool classify(const void *bytes, size_t len, insn_class *c)
{
  ZydisDecodedInstruction in;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];

  memset(c, 0, sizeof(*c));
  if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&g.dec, bytes, len, &in, ops)))
    return false;
  if (in.length != len)
    return false;
  c->kind = branch_kind(&in, ops);
  memory_access(&in, ops, c);
  return true;
}

/* What one instruction adds to the block's lines (not-taken variant: a
 * conditional branch's NEAR_TAKEN is added by the taken variant). */
void spmu_qemu_insn_lines(const insn_class *c, uint32_t lines[NLINES])
{
  memset(lines, 0, NLINES * sizeof(lines[0]));
  lines[L_INST] = 1;
  lines[L_LOADS] = c->load;
  lines[L_STORES] = c->store;
  switch (c->kind) {
  case K_COND:
    lines[L_BR_ALL] = lines[L_BR_COND] = 1;
    break;
  case K_JMP:
  case K_JMP_IND:
    lines[L_BR_ALL] = lines[L_BR_TAKEN] = 1;
    break;
  case K_CALL:
  case K_CALL_IND:
    lines[L_BR_ALL] = lines[L_BR_CALL] = lines[L_BR_TAKEN] = 1;
    break;
  case K_RET:
    lines[L_BR_ALL] = lines[L_BR_RET] = lines[L_BR_TAKEN] = 1;
    break;
  case K_FAR:
    lines[L_BR_ALL] = lines[L_BR_FAR] = 1;
    break;
  default:
    break;
  }
}

/* QEMU 7.2 lists, as a block's last instruction, one that crosses into
 * the next page and that the block does not execute (it ends the block
 * before it; the next block starts at it). Its bytes are truncated. */
static bool cut_at_page_end(uint64_t vaddr, bool decoded)
{
  uint64_t left = PAGE_SIZE_X86 - (vaddr & (PAGE_SIZE_X86 - 1));

  return left < MAX_INSN_LEN && !decoded;
}

static void add_insn(struct tb *t, const insn_class *c, uint64_t vaddr,
                     size_t len)
{
  uint32_t lines[NLINES];
  unsigned l;

  spmu_qemu_insn_lines(c, lines);
  for (l = 0; l < NLINES; l++)
    t->total[l] += lines[l];
  if (t->ninsns == 0) {
    memcpy(t->first, lines, sizeof(lines));
    t->rep_first = c->kind == K_REP_STRING;
  }
  t->insn[t->ninsns] = *c;
  t->insn_vaddr[t->ninsns++] = vaddr;
  t->last_kind = c->kind;
  t->cond_last = c->kind == K_COND;
  t->rep_addr = c->kind == K_REP_STRING ? vaddr : UINT64_MAX;
  t->fallthrough = vaddr + len;
}

void spmu_qemu_free_tb(struct tb *t)
{
  if (t) {
    spmu_qemu_model_free_tb(t);
    free(t->insn_vaddr);
    free(t->insn);
    free(t);
  }
}

struct tb *spmu_qemu_describe_tb(const struct qemu_plugin_tb *qtb)
{
  size_t n = qemu_plugin_tb_n_insns(qtb), i;
  struct tb *t = calloc(1, sizeof(*t));

  if (!t)
    return NULL;
  t->insn_vaddr = calloc(n ? n : 1, sizeof(*t->insn_vaddr));
  t->insn = calloc(n ? n : 1, sizeof(*t->insn));
  if (!t->insn_vaddr || !t->insn) {
    spmu_qemu_free_tb(t);
    return NULL;
  }
  t->vaddr = qemu_plugin_tb_vaddr(qtb);
  t->fallthrough = t->vaddr;
  t->rep_addr = UINT64_MAX;
  for (i = 0; i < n; i++) {
    const struct qemu_plugin_insn *qi = qemu_plugin_tb_get_insn(qtb, i);
    uint64_t va = qemu_plugin_insn_vaddr(qi);
    size_t len = qemu_plugin_insn_size(qi);
    insn_class c;
    bool ok = classify(qemu_plugin_insn_data(qi), len, &c);

    if (i == n - 1 && i > 0 && cut_at_page_end(va, ok))
      break;
    add_insn(t, &c, va, len);
  }
  return t;
}

bool spmu_qemu_decoder_init(void)
{
  return ZYAN_SUCCESS(ZydisDecoderInit(&g.dec, ZYDIS_MACHINE_MODE_LONG_64,
                                       ZYDIS_STACK_WIDTH_64));
}

/* The blocks by start address: an open-addressing table of the first
 * block at each address (others follow through same_vaddr). */
static struct {
  struct tb **slot;
  size_t cap, used;
} at;

static size_t slot_of(struct tb **slot, size_t cap, uint64_t vaddr)
{
  size_t i = (size_t)((vaddr * UINT64_C(0x9e3779b97f4a7c15)) >> 20) & (cap - 1);

  while (slot[i] && slot[i]->vaddr != vaddr)
    i = (i + 1) & (cap - 1);
  return i;
}

static bool grow_at(void)
{
  size_t cap = at.cap ? at.cap * 2 : 8192, i;
  struct tb **slot = calloc(cap, sizeof(*slot));

  if (!slot)
    return false;
  for (i = 0; i < at.cap; i++)
    if (at.slot[i])
      slot[slot_of(slot, cap, at.slot[i]->vaddr)] = at.slot[i];
  free(at.slot);
  at.slot = slot;
  at.cap = cap;
  return true;
}

static bool index_tb(struct tb *t)
{
  size_t i;

  if ((at.used + 1) * 2 > at.cap && !grow_at())
    return false;
  i = slot_of(at.slot, at.cap, t->vaddr);
  if (!at.slot[i])
    at.used++;
  t->same_vaddr = at.slot[i];
  at.slot[i] = t;
  return true;
}

struct tb *spmu_qemu_tbs_at(uint64_t vaddr)
{
  return at.cap ? at.slot[slot_of(at.slot, at.cap, vaddr)] : NULL;
}

bool spmu_qemu_register_tb(struct tb *t)
{
  bool ok = true;

  pthread_mutex_lock(&g.lock);
  if (g.ntbs == g.tbcap) {
    size_t cap = g.tbcap ? g.tbcap * 2 : 4096;
    struct tb **p = realloc(g.tbs, cap * sizeof(*p));

    if (p) {
      g.tbs = p;
      g.tbcap = cap;
    } else {
      ok = false;
    }
  }
  ok = ok && index_tb(t);
  if (ok) {
    t->id = (uint32_t)g.ntbs;
    g.tbs[g.ntbs++] = t;
  }
  pthread_mutex_unlock(&g.lock);
  return ok;
}

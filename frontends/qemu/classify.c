/* What each instruction of a translated block is, decoded once at
 * translation with Zydis (SDM Vol. 2 for the instructions; the events they
 * feed are lines.h's), and the block's totals. */
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

#define PAGE_SIZE_X86 4096u
#define MAX_INSN_LEN 15u /* SDM Vol. 2A 2.3.11: at most 15 bytes */

/* ---- classification (Zydis) ------------------------------------------ */

/* Decode one instruction; false when its bytes do not decode to exactly
 * their length (an instruction QEMU cut at a page end). */
static bool classify(const void *bytes, size_t len, insn_class *c)
{
  ZydisDecodedInstruction in;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
  bool load, store;

  memset(c, 0, sizeof(*c));
  if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&g.dec, bytes, len, &in, ops)))
    return false;
  if (in.length != len)
    return false;
  c->kind = insn_kind_of(&in, ops);
  insn_memory(&in, ops, &load, &store);
  c->load = load;
  c->store = store;
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

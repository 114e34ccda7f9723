/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What each instruction of a translated block is, decoded once at
 * translation with Zydis (SDM Vol. 2 for the instructions; the events they
 * feed are lines.h's), the block's totals, and the table of the process's
 * blocks (classify.h). */
#include "classify.h"

#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "api.h"
#include "insn.h"

#define PAGE_SIZE_X86 4096u
#define MAX_INSN_LEN 15u /* SDM Vol. 2A 2.3.11: at most 15 bytes */

/* A place in the table by address: the newest block at one address, by
 * its id plus one (0: free), and the address's low 32 bits, so that a
 * probe reads a block only when they match. 8 bytes, so that the table
 * stays small (each translation probes it at a place of its own). */
struct slot {
  uint32_t tag;
  uint32_t id1;
};

/* A classification remembered by the instruction's bytes: the same bytes
 * in 64-bit mode always decode to the same instruction, so a block
 * translated again (after the plugin's reset, or code shared by many
 * blocks: prologues, common moves) is not decoded again. len 0: free. */
struct memo {
  uint8_t bytes[MAX_INSN_LEN];
  uint8_t len;
  insn_class c;
  bool ok;
};

#define MEMO_BITS 14u

/* The blocks' memory: chunks the blocks are cut from one after another,
 * freed all at once with the table (a block lives as long as the table).
 * One allocation per chunk, not per block, and a block's neighbours are
 * the blocks translated before and after it. */
#define CHUNK_BYTES ((size_t)1 << 20)

struct chunk {
  struct chunk *prev;
  size_t used, size;
  _Alignas(struct tb) unsigned char data[];
};

struct spmu_qemu_blocks {
  ZydisDecoder dec;
  struct chunk *chunk; /* the newest; each holds the one before */
  struct memo *memo;   /* [1 << MEMO_BITS], direct-mapped */
  struct tb **tbs;     /* by id */
  size_t ntbs, tbcap;
  /* By start address: an open-addressing table of the newest block at
   * each address (others follow through same_vaddr). */
  struct slot *slot;
  size_t cap, used;
  bool by_vaddr; /* slot is kept */
};

/* ---- classification (Zydis) ------------------------------------------ */

/* The bytes of the widest memory operand the instruction reads or writes
 * (Zydis's operand size: 32 for a ymm operand, SDM Vol. 1 14.1.1; 64 for
 * a zmm one, 15.1.1), or 0; not LEA's address generation, nor a VSIB
 * gather's or scatter's elements, which are accesses of their own. */
static uint16_t mem_bytes(const ZydisDecodedInstruction *in,
                          const ZydisDecodedOperand *ops)
{
  uint16_t bytes = 0;
  unsigned i;

  for (i = 0; i < in->operand_count; i++)
    if (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY &&
        ops[i].mem.type == ZYDIS_MEMOP_TYPE_MEM && ops[i].size / 8 > bytes)
      bytes = ops[i].size / 8;
  return bytes;
}

/* Is it an atomic read-modify-write of memory, which valgrind's VEX
 * makes a compare-and-swap followed by a conditional exit that restarts
 * the instruction if the swap failed: XCHG with a memory operand (locked
 * whatever its prefix, SDM Vol. 2D, XCHG) and a LOCK-prefixed ADD, ADC,
 * SUB, SBB, AND, OR, XOR, INC, DEC, NOT, NEG, BTS, BTR, BTC or XADD; not
 * CMPXCHG, CMPXCHG8B, CMPXCHG16B, whose failure is their result, not a
 * restart. Cachegrind counts that exit as a conditional branch, never
 * taken in one thread (README.md, "The modelled micro-architecture"). */
static bool vex_cas(const ZydisDecodedInstruction *in,
                    const ZydisDecodedOperand *ops)
{
  bool mem = false;
  unsigned i;

  for (i = 0; i < in->operand_count; i++)
    if (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY &&
        ops[i].mem.type == ZYDIS_MEMOP_TYPE_MEM &&
        (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
      mem = true;
  if (!mem)
    return false;
  if (in->mnemonic == ZYDIS_MNEMONIC_XCHG)
    return true;
  if (!(in->attributes & ZYDIS_ATTRIB_HAS_LOCK))
    return false;
  return in->mnemonic != ZYDIS_MNEMONIC_CMPXCHG &&
         in->mnemonic != ZYDIS_MNEMONIC_CMPXCHG8B &&
         in->mnemonic != ZYDIS_MNEMONIC_CMPXCHG16B;
}

/* Decode one instruction; false when its bytes do not decode to exactly
 * their length (an instruction QEMU cut at a page end). */
static bool classify(const ZydisDecoder *dec, const void *bytes, size_t len,
                     insn_class *c)
{
  ZydisDecodedInstruction in;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
  bool load, store;

  memset(c, 0, sizeof(*c));
  if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(dec, bytes, len, &in, ops)))
    return false;
  if (in.length != len)
    return false;
  c->kind = insn_kind_of(&in, ops);
  insn_memory(&in, ops, &load, &store);
  c->load = load;
  c->store = store;
  c->mem_bytes = mem_bytes(&in, ops);
  c->vex_cas = vex_cas(&in, ops);
  return true;
}

/* ---- classification without Zydis: the commonest encodings ----------- */

/* The length of a ModRM operand (ModRM, SIB, displacement) at m, SDM Vol.
 * 2A 2.1.5 Tables 2-2 and 2-3 (64-bit addressing, 2.2.1.3), or 0 when
 * fewer than need bytes are there. */
static size_t modrm_len(const uint8_t *m, size_t left)
{
  unsigned mod = m[0] >> 6, rm = m[0] & 7u;
  size_t n = 1;

  if (mod == 3)
    return n;
  if (rm == 4) {
    if (left < 2)
      return 0;
    n++;
    if (mod == 0 && (m[1] & 7u) == 5)
      return n + 4; /* no base: disp32 */
  } else if (mod == 0 && rm == 5) {
    return n + 4; /* RIP-relative disp32 */
  }
  return n + (mod == 1 ? 1 : mod == 2 ? 4 : 0);
}

/* What an opcode with a ModRM operand does with that operand when it is
 * memory (load, store), its bytes, and the immediate that follows the
 * ModRM operand. */
struct modrm_op {
  bool load, store;
  uint8_t bytes, imm;
};

/* The two-operand ALU and MOV forms "op r/m, r" and "op r, r/m" (SDM Vol.
 * 2A 3.1.1.3; ADD 00-03, OR 08-0B, ADC 10-13, SBB 18-1B, AND 20-23, SUB
 * 28-2B, XOR 30-33, CMP 38-3B, TEST 84/85, MOV 88-8B, LEA 8D), the even
 * opcode of each pair of eight bits, the odd one 32 or 64 (REX.W): whether
 * the memory operand, if any, is read and written (CMP and TEST read it);
 * MOVSXD 63 (reads 32 bits). */
static bool reg_form(uint8_t op, bool wide, struct modrm_op *f)
{
  uint8_t size = wide ? 8 : 4;

  if (op < 0x40 && (op & 7u) < 4) {
    f->load = true;
    f->store = (op & 2u) == 0 && op < 0x38; /* r/m is the destination */
    f->bytes = op & 1u ? size : 1;
    return true;
  }
  switch (op) {
  case 0x63:
    *f = (struct modrm_op){.load = true, .bytes = 4};
    return true;
  case 0x84:
  case 0x85:
    *f = (struct modrm_op){.load = true, .bytes = op & 1u ? size : 1};
    return true;
  case 0x88:
  case 0x89:
    *f = (struct modrm_op){.store = true, .bytes = op & 1u ? size : 1};
    return true;
  case 0x8a:
  case 0x8b:
    *f = (struct modrm_op){.load = true, .bytes = op & 1u ? size : 1};
    return true;
  case 0x8d: /* LEA: an address, no access */
    *f = (struct modrm_op){0};
    return true;
  default:
    return false;
  }
}

/* The forms "op r/m, imm" (SDM Vol. 2A Table A-6): group 1 (80, 81, 83:
 * ADD OR ADC SBB AND SUB XOR CMP; CMP, /7, reads its operand, the others
 * read and write it), group 2's C1 (ROL ROR RCL RCR SHL SHR SAR by imm8,
 * /6 left out; read and write), group 11's C6 /0 and C7 /0 (MOV: write;
 * C6 F8 and C7 F8 are XABORT and XBEGIN). */
static bool imm_form(uint8_t op, unsigned reg, bool wide, struct modrm_op *f)
{
  uint8_t size = wide ? 8 : 4;

  switch (op) {
  case 0x80:
  case 0x81:
  case 0x83:
    *f = (struct modrm_op){.load = true,
                           .store = reg != 7,
                           .bytes = op == 0x80 ? 1 : size,
                           .imm = op == 0x81 ? 4 : 1};
    return true;
  case 0xc1:
    *f =
        (struct modrm_op){.load = true, .store = true, .bytes = size, .imm = 1};
    return reg != 6;
  case 0xc6:
  case 0xc7:
    *f = (struct modrm_op){.store = true,
                           .bytes = op == 0xc6 ? 1 : size,
                           .imm = op == 0xc6 ? 1 : 4};
    return reg == 0;
  default:
    return false;
  }
}

/* Opcodes without ModRM: PUSH/POP r (50+r, 58+r: a 64-bit stack access,
 * SDM Vol. 2B), RET (C3), CALL rel32 (E8: pushes its return address),
 * JMP rel32/rel8 (E9, EB), Jcc rel8 (70+cc); Jcc rel32 is 0F 80+cc; and,
 * touching no memory, MOV r, imm (B0+r imm8, B8+r imm32, or imm64 with
 * REX.W), the ALU forms on AL or eAX with an immediate (04 ... 3C imm8,
 * 05 ... 3D imm32) and TEST AL/eAX (A8 imm8, A9 imm32). The length, or 0
 * for another opcode. */
static size_t plain_form(const uint8_t *b, size_t left, bool wide,
                         insn_class *c)
{
  uint8_t op = b[0];

  if (op >= 0x50 && op <= 0x5f) {
    c->store = op < 0x58;
    c->load = !c->store;
    c->mem_bytes = 8;
    return 1;
  }
  if (op >= 0x70 && op <= 0x7f) {
    c->kind = K_COND;
    return 2;
  }
  if (op == 0x0f && left >= 2 && b[1] >= 0x80 && b[1] <= 0x8f) {
    c->kind = K_COND;
    return 6;
  }
  if (op >= 0xb0 && op <= 0xbf)
    return op < 0xb8 ? 2 : wide ? 9 : 5;
  if (op < 0x40 && (op & 7u) >= 4 && (op & 7u) <= 5)
    return op & 1u ? 5 : 2;
  switch (op) {
  case 0xa8:
    return 2;
  case 0xa9:
    return 5;
  case 0xc3:
    c->kind = K_RET;
    c->load = true;
    c->mem_bytes = 8;
    return 1;
  case 0xe8:
    c->kind = K_CALL;
    c->store = true;
    c->mem_bytes = 8;
    return 5;
  case 0xe9:
    c->kind = K_JMP;
    return 5;
  case 0xeb:
    c->kind = K_JMP;
    return 2;
  default:
    return 0;
  }
}

/* classify() for the encodings above, with at most a REX prefix (SDM Vol.
 * 2A 2.2.1); false when the instruction is another (then Zydis decodes
 * it). Same result as classify() for each (the tests compare them). */
bool spmu_qemu_classify_fast(const uint8_t *bytes, size_t len, insn_class *c)
{
  size_t rex = len > 1 && (bytes[0] & 0xf0u) == 0x40, n;
  const uint8_t *b = bytes + rex;
  bool wide = rex && (bytes[0] & 8u);
  struct modrm_op f = {0};

  memset(c, 0, sizeof(*c));
  n = plain_form(b, len - rex, wide, c);
  if (n)
    return rex + n == len;
  if (len - rex < 2 ||
      (!reg_form(b[0], wide, &f) && !imm_form(b[0], b[1] >> 3 & 7u, wide, &f)))
    return false;
  if (b[0] == 0x8d && b[1] >> 6 == 3)
    return false; /* LEA of a register: #UD */
  n = modrm_len(b + 1, len - rex - 1);
  if (!n || rex + 1 + n + f.imm != len)
    return false;
  if (b[1] >> 6 != 3) {
    c->load = f.load;
    c->store = f.store;
    c->mem_bytes = f.bytes;
  }
  return true;
}

/* FNV-1a over the bytes, folded to the memo's index. */
static size_t memo_index(const uint8_t *bytes, size_t len)
{
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  size_t i;

  for (i = 0; i < len; i++)
    h = (h ^ bytes[i]) * UINT64_C(0x100000001b3);
  return (size_t)(h >> (64 - MEMO_BITS));
}

/* classify(), remembered by the bytes (struct memo). */
static bool classify_memo(struct spmu_qemu_blocks *b, const uint8_t *bytes,
                          size_t len, insn_class *c)
{
  struct memo *m;

  if (len == 0 || len > MAX_INSN_LEN)
    return classify(&b->dec, bytes, len, c);
  if (spmu_qemu_classify_fast(bytes, len, c))
    return true;
  m = &b->memo[memo_index(bytes, len)];
  if (m->len != len || memcmp(m->bytes, bytes, len) != 0) {
    m->ok = classify(&b->dec, bytes, len, &m->c);
    memcpy(m->bytes, bytes, len);
    m->len = (uint8_t)len;
  }
  *c = m->c;
  return m->ok;
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
  t->far_alone = t->ninsns == 1 && c->kind == K_FAR;
  t->cond_last = c->kind == K_COND;
  t->rep_addr = c->kind == K_REP_STRING ? vaddr : UINT64_MAX;
  t->fallthrough = vaddr + len;
}

void spmu_qemu_free_tb(struct tb *t)
{
  if (t && t->model) { /* the block's own memory is the table's */
    free(t->model);
    t->model = NULL;
  }
}

/* size bytes at 0 for a block and its arrays, from the newest chunk or a
 * new one; NULL when out of memory. */
static void *alloc_zeroed(struct spmu_qemu_blocks *b, size_t size)
{
  struct chunk *c = b->chunk;
  void *at;

  size = (size + _Alignof(struct tb) - 1) & ~(size_t)(_Alignof(struct tb) - 1);
  if (!c || c->size - c->used < size) {
    size_t room = size > CHUNK_BYTES ? size : CHUNK_BYTES;

    c = calloc(1, sizeof(*c) + room);
    if (!c)
      return NULL;
    c->size = room;
    c->prev = b->chunk;
    b->chunk = c;
  }
  at = c->data + c->used;
  c->used += size;
  return at;
}

/* The data accesses one iteration of a string instruction makes: MOVS
 * (a read, a write) and CMPS (two reads) two; LODS, STOS, SCAS, INS and
 * OUTS one (SDM Vol. 2B, MOVS/CMPS/LODS/STOS/SCAS). Its opcode follows its
 * legacy prefixes and REX (SDM Vol. 2A 2.1, 2.2.1). */
static uint8_t string_accesses(const uint8_t *b, size_t len)
{
  size_t i = 0;

  while (i < len && (b[i] == 0x26 || b[i] == 0x2e || b[i] == 0x36 ||
                     b[i] == 0x3e || b[i] == 0x64 || b[i] == 0x65 ||
                     b[i] == 0x66 || b[i] == 0x67 || b[i] == 0xf0 ||
                     b[i] == 0xf2 || b[i] == 0xf3 || (b[i] & 0xf0) == 0x40))
    i++;
  return i < len && b[i] >= 0xa4 && b[i] <= 0xa7 ? 2 : 1;
}

struct tb *spmu_qemu_describe_tb(struct spmu_qemu_blocks *b,
                                 const struct spmu_qemu_api *api,
                                 const struct qemu_plugin_tb *qtb)
{
  size_t n = qemu_plugin_tb_n_insns(qtb), i;
  /* One piece: the block, then its instructions' addresses and classes
   * (aligned as the struct is, uint64_t before insn_class). */
  struct tb *t = alloc_zeroed(
      b, sizeof(*t) + n * (sizeof(*t->insn_vaddr) + sizeof(*t->insn)));

  if (!t)
    return NULL;
  t->insn_vaddr = (uint64_t *)(t + 1);
  t->insn = (insn_class *)(t->insn_vaddr + n);
  t->vaddr = qemu_plugin_tb_vaddr(qtb);
  t->fallthrough = t->vaddr;
  t->rep_addr = UINT64_MAX;
  for (i = 0; i < n; i++) {
    const struct qemu_plugin_insn *qi = qemu_plugin_tb_get_insn(qtb, i);
    uint64_t va = qemu_plugin_insn_vaddr(qi);
    uint8_t bytes[16]; /* an instruction has at most 15 (SDM Vol. 2A 2.1) */
    size_t len = spmu_qemu_insn_bytes(api, qi, bytes, sizeof(bytes));
    insn_class c;
    bool ok = classify_memo(b, bytes, len, &c);

    if (i == n - 1 && i > 0 && cut_at_page_end(va, ok))
      break;
    add_insn(t, &c, va, len);
    t->rep_accesses = c.kind == K_REP_STRING ? string_accesses(bytes, len) : 0;
  }
  return t;
}

struct spmu_qemu_blocks *spmu_qemu_blocks_new(bool by_vaddr)
{
  struct spmu_qemu_blocks *b = calloc(1, sizeof(*b));

  if (!b)
    return NULL;
  b->by_vaddr = by_vaddr;
  b->memo = calloc((size_t)1 << MEMO_BITS, sizeof(*b->memo));
  if (!b->memo ||
      !ZYAN_SUCCESS(ZydisDecoderInit(&b->dec, ZYDIS_MACHINE_MODE_LONG_64,
                                     ZYDIS_STACK_WIDTH_64))) {
    free(b->memo);
    free(b);
    return NULL;
  }
  return b;
}

void spmu_qemu_blocks_free(struct spmu_qemu_blocks *b)
{
  size_t i;

  if (!b)
    return;
  for (i = 0; i < b->ntbs; i++)
    spmu_qemu_free_tb(b->tbs[i]);
  while (b->chunk) {
    struct chunk *c = b->chunk;

    b->chunk = c->prev;
    free(c);
  }
  free(b->tbs);
  free(b->slot);
  free(b->memo);
  free(b);
}

/* Fibonacci hashing: the top bits of the product, which every bit of
 * vaddr reaches (its low bits alone cluster: blocks are close together). */
static size_t first_slot(size_t cap, uint64_t vaddr)
{
  return (size_t)((vaddr * UINT64_C(0x9e3779b97f4a7c15)) >>
                  (64 - __builtin_ctzll(cap)));
}

/* vaddr's place: the slot that holds it, or the free one where it
 * goes. */
static size_t slot_of(const struct spmu_qemu_blocks *b, uint64_t vaddr)
{
  size_t i = first_slot(b->cap, vaddr);
  uint32_t tag = (uint32_t)vaddr;

  while (b->slot[i].id1 &&
         (b->slot[i].tag != tag || b->tbs[b->slot[i].id1 - 1]->vaddr != vaddr))
    i = (i + 1) & (b->cap - 1);
  return i;
}

/* Twice the room; the addresses in it are distinct, so each goes to the
 * first free slot from its own. */
static bool grow_at(struct spmu_qemu_blocks *b)
{
  size_t cap = b->cap ? b->cap * 2 : 8192, i;
  struct slot *slot = calloc(cap, sizeof(*slot));

  if (!slot)
    return false;
  for (i = 0; i < b->cap; i++)
    if (b->slot[i].id1) {
      size_t j = first_slot(cap, b->tbs[b->slot[i].id1 - 1]->vaddr);

      while (slot[j].id1)
        j = (j + 1) & (cap - 1);
      slot[j] = b->slot[i];
    }
  free(b->slot);
  b->slot = slot;
  b->cap = cap;
  return true;
}

/* t, already b->tbs[t->id], by its address. */
static bool index_tb(struct spmu_qemu_blocks *b, struct tb *t)
{
  size_t i;

  if ((b->used + 1) * 2 > b->cap && !grow_at(b))
    return false;
  i = slot_of(b, t->vaddr);
  if (b->slot[i].id1)
    t->same_vaddr = b->tbs[b->slot[i].id1 - 1];
  else
    b->used++;
  b->slot[i] = (struct slot){.tag = (uint32_t)t->vaddr, .id1 = t->id + 1};
  return true;
}

struct tb *spmu_qemu_tbs_at(const struct spmu_qemu_blocks *b, uint64_t vaddr)
{
  size_t i;

  if (!b->cap)
    return NULL;
  i = slot_of(b, vaddr);
  return b->slot[i].id1 ? b->tbs[b->slot[i].id1 - 1] : NULL;
}

bool spmu_qemu_register_tb(struct spmu_qemu_blocks *b, struct tb *t)
{
  if (b->ntbs == b->tbcap) {
    size_t cap = b->tbcap ? b->tbcap * 2 : 4096;
    struct tb **p = realloc(b->tbs, cap * sizeof(*p));

    if (!p)
      return false;
    b->tbs = p;
    b->tbcap = cap;
  }
  t->id = (uint32_t)b->ntbs;
  b->tbs[b->ntbs++] = t;
  if (b->by_vaddr && !index_tb(b, t)) {
    b->ntbs--; /* not in the table: the caller frees it */
    return false;
  }
  return true;
}

size_t spmu_qemu_blocks_count(const struct spmu_qemu_blocks *b)
{
  return b->ntbs;
}

struct tb *spmu_qemu_block(const struct spmu_qemu_blocks *b, size_t i)
{
  return b->tbs[i];
}

bool spmu_qemu_classify_zydis(const struct spmu_qemu_blocks *b,
                              const uint8_t *bytes, size_t len, insn_class *c)
{
  return classify(&b->dec, bytes, len, c);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The guest's registers at PEBS assists (regs.h).
 *
 * A PEBS record holds the registers as they are after the eventing
 * instruction retires (SDM Vol. 3B 18.4.4.2, 18.6.2.4.2; the adaptive GPR
 * group, 18.9.2.2.2). count.c delivers a block's instructions one at a
 * time once the block has run, at the next block's callback, so those
 * registers are gone by then but for the last instruction's. Each vCPU
 * has one word of a scoreboard: count.c sets it (nonzero) at the start of
 * a block it may take per instruction, one that may bring a sampling
 * counter to overflow or hold an armed counter's assist (its charge
 * reaches the budget; with a sampled modelled event, the model keeps the
 * block's log), and clears it otherwise. Each instruction after one that
 * may be an eventing instruction (it adds to a sampled line) has a
 * callback QEMU calls only while the word is set, before the instruction
 * runs: the registers after the one before it, kept by its index. After the
 * block's last instruction they are read at the next block's callback, while
 * that block is counted. Executions are told apart by a count of block starts
 * (gen), so a block's kept registers never stand for another execution's. */
#include "regs.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"
#include "guest.h"
#include "tb.h"
#include "vcpu.h"

/* An instruction's callback data: its block and index. */
struct insn_at {
  const struct tb *t;
  uint32_t k;
};

/* The callbacks' data, in chunks kept until the plugin ends. */
#define AT_CHUNK 4096
struct at_chunk {
  struct at_chunk *prev;
  size_t used;
  struct insn_at at[AT_CHUNK];
};

struct spmu_qemu_regs {
  const struct spmu_qemu_api *api;
  const struct spmu_qemu_config *cfg;
  struct qemu_plugin_scoreboard *score;
  qemu_plugin_u64 word; /* per vCPU: nonzero, keep the registers */
  pthread_mutex_t lock; /* chunks */
  struct at_chunk *chunks;
};

/* The registers at one instruction boundary of the block running. */
struct snap {
  uint64_t gen; /* the block start they belong to */
  uint64_t rflags;
  uint64_t gpr[SPMU_QEMU_GPRS]; /* by register number */
};

struct spmu_qemu_vregs {
  const struct spmu_qemu_regs *r;
  struct spmu_qemu_gprs g;
  int found; /* 0: not looked for yet; 1: found; -1: QEMU has none */
  uint64_t gen;
  const struct tb *block; /* the block whose boundaries snap keeps */
  struct snap *snap;      /* [cap]: snap[k], before instruction k */
  uint32_t cap;
};

/* QEMU keeps the arithmetic flags (CF, PF, AF, ZF, SF, OF) and DF apart
 * from the eflags word while generated code runs (its lazy condition
 * codes), and the eflags register a plugin reads is that word: those
 * bits read 0 whatever they are. They are left 0; the bits QEMU keeps
 * there (IF, bit 1, TF, AC, ID, ...) are the guest's. */
#define FLAGS_NOT_KEPT UINT64_C(0xCD5)
#define FLAGS_DEFAULT UINT64_C(0x202) /* IF and the reserved bit 1 */

/* regs.h: guest.c's order (the legacy PEBS record's: RAX, RBX, RCX, RDX, RSI,
 * RDI, RBP, RSP, R8-R15) to register numbers (SDM Vol. 2A Table 2-2). */
const uint8_t spmu_qemu_legacy_regnum[16] = {0, 3, 1,  2,  6,  7,  5,  4,
                                             8, 9, 10, 11, 12, 13, 14, 15};
_Static_assert(SPMU_QEMU_GPRS == 16, "guest.c reads the 16 GPRs");

struct spmu_qemu_regs *spmu_qemu_regs_new(const struct spmu_qemu_config *cfg,
                                          const struct spmu_qemu_api *api,
                                          char *why, size_t len)
{
  struct spmu_qemu_regs *r;

  why[0] = '\0';
  if (!cfg->args.regs)
    return NULL;
  if (!spmu_qemu_api_per_vcpu(api) || !spmu_qemu_api_registers(api) ||
      !api->insn_exec_cond_cb) {
    snprintf(why, len,
             "regs=1 (softpmu record -I): the guest's registers need QEMU "
             "9.1 or later (plugin API 2 on, with register reads and "
             "conditional instruction callbacks); this QEMU implements "
             "plugin API %d",
             api->qemu);
    return NULL;
  }
  r = calloc(1, sizeof(*r));
  if (!r || !(r->score = api->scoreboard_new(sizeof(uint64_t)))) {
    free(r);
    snprintf(why, len, "regs=1: out of memory");
    return NULL;
  }
  r->api = api;
  r->cfg = cfg;
  r->word.score = r->score;
  r->word.offset = 0;
  pthread_mutex_init(&r->lock, NULL);
  return r;
}

void spmu_qemu_regs_free(struct spmu_qemu_regs *r)
{
  if (!r)
    return;
  while (r->chunks) {
    struct at_chunk *c = r->chunks;

    r->chunks = c->prev;
    free(c);
  }
  r->api->scoreboard_free(r->score);
  pthread_mutex_destroy(&r->lock);
  free(r);
}

enum qemu_plugin_cb_flags
spmu_qemu_regs_cb_flags(const struct spmu_qemu_regs *r)
{
  return r ? QEMU_PLUGIN_CB_R_REGS : QEMU_PLUGIN_CB_NO_REGS;
}

/* QEMU's handles, looked for once, from inside a callback. */
static bool found(struct spmu_qemu_vregs *x)
{
  if (x->found == 0)
    x->found = spmu_qemu_gprs_find(x->r->api, &x->g) ? 1 : -1;
  return x->found > 0;
}

/* The registers now into s (a callback with QEMU_PLUGIN_CB_R_REGS). */
static bool take(struct spmu_qemu_vregs *x, struct snap *s)
{
  uint64_t val[SPMU_QEMU_GPRS], flags;
  unsigned i;

  if (!found(x) || !spmu_qemu_gprs_read(x->r->api, &x->g, SPMU_QEMU_GPRS, val))
    return false;
  for (i = 0; i < SPMU_QEMU_GPRS; i++)
    s->gpr[spmu_qemu_legacy_regnum[i]] = val[i];
  s->rflags = spmu_qemu_eflags_read(x->r->api, &x->g, &flags)
                  ? flags & ~FLAGS_NOT_KEPT
                  : FLAGS_DEFAULT;
  return true;
}

/* Before instruction k of block t: the registers, when its block is the
 * one count.c marked. */
static void on_insn(unsigned int vcpu_index, void *udata)
{
  const struct insn_at *at = udata;
  struct vcpu *v = spmu_qemu_vcpu_at(at->t->vcpus, vcpu_index);
  struct spmu_qemu_vregs *x = v ? v->vregs : NULL;

  if (!x || x->block != at->t || at->k >= x->cap)
    return;
  if (take(x, &x->snap[at->k]))
    x->snap[at->k].gen = x->gen;
}

static struct insn_at *at_new(struct spmu_qemu_regs *r)
{
  struct at_chunk *c = r->chunks;

  if (!c || c->used == AT_CHUNK) {
    c = calloc(1, sizeof(*c));
    if (!c)
      return NULL;
    c->prev = r->chunks;
    r->chunks = c;
  }
  return &c->at[c->used++];
}

/* Can instruction c be a PEBS record's eventing instruction: does it add
 * to a sampled event's line (any, with a modelled event)? Then the
 * registers after it may be needed. The taken-branch count of a block's
 * last instruction is not looked at: the registers after a block's last
 * instruction need no callback of its own. */
static bool may_event(const struct spmu_qemu_config *cfg, const insn_class *c)
{
  uint32_t lines[NLINES];
  unsigned i;

  spmu_qemu_insn_lines(c, lines);
  for (i = 0; i < cfg->nevents; i++)
    if (cfg->mline_of[i] >= 0 ||
        (cfg->line_of[i] >= 0 && lines[cfg->line_of[i]] > 0))
      return true;
  return false;
}

bool spmu_qemu_regs_tb(struct spmu_qemu_regs *r, struct qemu_plugin_tb *qtb,
                       const struct tb *t)
{
  size_t n = qemu_plugin_tb_n_insns(qtb), k;
  bool ok = true;

  /* Instruction k's callback: the registers after k - 1, up to after the
   * block's last (QEMU may have one more, which the plugin cut); only
   * where k - 1 may be an eventing instruction, since each such callback
   * makes QEMU store the guest's registers before the instruction. */
  pthread_mutex_lock(&r->lock);
  for (k = 1; k < n && k <= t->ninsns && ok; k++) {
    struct insn_at *at;

    if (!may_event(r->cfg, &t->insn[k - 1]))
      continue;
    at = at_new(r);

    if (!(ok = at != NULL))
      break;
    at->t = t;
    at->k = (uint32_t)k;
    r->api->insn_exec_cond_cb(qemu_plugin_tb_get_insn(qtb, k), on_insn,
                              QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_COND_NE,
                              r->word, 0, at);
  }
  pthread_mutex_unlock(&r->lock);
  return ok;
}

static struct spmu_qemu_vregs *vregs_of(struct vcpu *v)
{
  if (!v->vregs && v->regs) {
    v->vregs = calloc(1, sizeof(*v->vregs));
    if (v->vregs)
      v->vregs->r = v->regs;
  }
  return v->vregs;
}

/* Room for the boundaries of a block of n instructions. */
static bool room(struct spmu_qemu_vregs *x, uint32_t n)
{
  struct snap *s;

  if (n + 1 <= x->cap)
    return true;
  s = realloc(x->snap, (n + 1) * sizeof(*s));
  if (!s)
    return false;
  memset(s + x->cap, 0, (n + 1 - x->cap) * sizeof(*s));
  x->snap = s;
  x->cap = n + 1;
  return true;
}

/* Keep the registers at t's boundaries from now on (on), or no more. */
static void keep(struct vcpu *v, struct spmu_qemu_vregs *x, const struct tb *t,
                 bool on)
{
  on = on && t && room(x, t->ninsns);
  if (on) {
    x->gen++;
    x->block = t;
  } else {
    x->block = NULL;
  }
  if (on != v->regs_on) {
    x->r->api->u64_set(x->r->word, v->vcpu_index, on);
    v->regs_on = on;
  }
}

void spmu_qemu_regs_block(struct vcpu *v, const struct tb *t, bool near)
{
  struct spmu_qemu_vregs *x = vregs_of(v);

  if (x)
    keep(v, x, t, near);
}

void spmu_qemu_regs_follow(struct vcpu *v)
{
  struct spmu_qemu_vregs *x = vregs_of(v);

  if (x && !v->regs_on)
    keep(v, x, v->regs_tb, true);
}

bool spmu_qemu_regs_at(struct vcpu *v, const struct tb *t, uint32_t j,
                       spmu_machine_state *st)
{
  struct spmu_qemu_vregs *x = vregs_of(v);
  struct snap now;
  const struct snap *s = NULL;

  if (!x || !t)
    return false;
  if (x->block == t && j + 1 < x->cap && x->snap[j + 1].gen == x->gen)
    s = &x->snap[j + 1];
  else if (j + 1 >= t->ninsns && v->regs_live && take(x, &now))
    s = &now; /* after the block that just ran: the registers now */
  if (!s)
    return false;
  memcpy(st->gpr, s->gpr, sizeof(st->gpr));
  st->rflags = s->rflags;
  return true;
}

void spmu_qemu_regs_vcpu_free(struct vcpu *v)
{
  if (v->vregs)
    free(v->vregs->snap);
  free(v->vregs);
  v->vregs = NULL;
}

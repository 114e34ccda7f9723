/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Record mode by an inline budget (budget.h). Each vCPU's scoreboard
 * element holds three words: its slack (count.c's v->slack lane 0, as a
 * signed 64-bit number), which the generated code takes from, and two the
 * plugin alone writes, at the end of each call: the block of that call
 * (a struct tb pointer; 0 when v->slack and v->prev are the plugin's, not
 * the scoreboard's: at the thread's first block, after a flush) and the
 * slack it left (its mark).
 *
 * A block that neither starts nor ends with a REP string instruction adds
 * minus its instructions to the slack (inline), then calls back when the
 * slack is negative (a conditional callback: the word against 2^63); QEMU
 * runs the two in that order (their order of registration). With a last
 * block of 0, the slack word starts from 0 and so the first block always
 * calls back. A block that starts or ends with a REP string instruction
 * calls back each time, as the callback path does: whether it repeats
 * depends on the block before, which is the block of the last call when
 * the slack (before the calling block's own take) is still at its mark,
 * and otherwise a block counted inline, which ends at no REP string
 * instruction: every such block takes at least one instruction, and only
 * a call sets the slack. So no block stores itself, and the generated
 * code of most blocks is one add and one compare. */
#include "budget.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "vcpu.h"

struct spmu_qemu_budget {
  const struct spmu_qemu_api *api;
  struct qemu_plugin_scoreboard *score;
  /* The block before a call when that was one counted inline: for
   * count.c, a block that ends at no REP string instruction (rep_addr
   * UINT64_MAX) and is none of the calling ones. */
  struct tb counted_inline;
};

struct words {
  uint64_t slack;
  uint64_t last;
  uint64_t mark;
};

#define SIGN_BIT (UINT64_C(1) << 63)

struct spmu_qemu_budget *
spmu_qemu_budget_new(const struct spmu_qemu_config *cfg,
                     const struct spmu_qemu_api *api)
{
  struct spmu_qemu_budget *b;

  if (!spmu_qemu_api_per_vcpu(api) || !api->tb_exec_cond_cb ||
      !cfg->record[0] || !cfg->eager || cfg->callgraph || cfg->read ||
      cfg->lane_line[1] >= 0)
    return NULL;
  b = calloc(1, sizeof(*b));
  if (!b)
    return NULL;
  b->api = api;
  b->counted_inline.rep_addr = UINT64_MAX;
  b->score = api->scoreboard_new(sizeof(struct words));
  if (!b->score) {
    free(b);
    return NULL;
  }
  return b;
}

void spmu_qemu_budget_free(struct spmu_qemu_budget *b)
{
  if (!b)
    return;
  b->api->scoreboard_free(b->score);
  free(b);
}

static qemu_plugin_u64 slack_word(const struct spmu_qemu_budget *b)
{
  return (qemu_plugin_u64){b->score, offsetof(struct words, slack)};
}

static qemu_plugin_u64 last_word(const struct spmu_qemu_budget *b)
{
  return (qemu_plugin_u64){b->score, offsetof(struct words, last)};
}

static qemu_plugin_u64 mark_word(const struct spmu_qemu_budget *b)
{
  return (qemu_plugin_u64){b->score, offsetof(struct words, mark)};
}

void spmu_qemu_budget_tb(const struct spmu_qemu_budget *b,
                         struct qemu_plugin_tb *qtb, const struct tb *t,
                         qemu_plugin_vcpu_udata_cb_t cond_cb,
                         qemu_plugin_vcpu_udata_cb_t rep_cb)
{
  const struct spmu_qemu_api *api = b->api;

  /* REP string instructions and what a restarted system call re-runs:
   * a callback tells a repeat (count.c). */
  if (t->rep_first || t->rep_addr != UINT64_MAX || t->far_alone) {
    qemu_plugin_register_vcpu_tb_exec_cb(qtb, rep_cb, QEMU_PLUGIN_CB_NO_REGS,
                                         (void *)t);
    return;
  }
  api->tb_exec_inline(qtb, QEMU_PLUGIN_INLINE_ADD_U64, slack_word(b),
                      -(uint64_t)(uint32_t)t->packed[0][0]);
  api->tb_exec_cond_cb(qtb, cond_cb, QEMU_PLUGIN_CB_NO_REGS,
                       QEMU_PLUGIN_COND_GE, slack_word(b), SIGN_BIT, (void *)t);
}

void spmu_qemu_budget_pull(struct vcpu *v, uint32_t charge)
{
  const struct spmu_qemu_budget *b = v->ib;
  uint64_t last, slack;
  int32_t lane[LANES];

  if (!b)
    return;
  last = b->api->u64_get(last_word(b), v->vcpu_index);
  if (!last)
    return; /* v->slack and v->prev are the plugin's */
  slack = b->api->u64_get(slack_word(b), v->vcpu_index) + charge;
  memcpy(lane, &v->slack, sizeof(lane));
  lane[0] = (int32_t)(int64_t)slack;
  memcpy(&v->slack, lane, sizeof(lane));
  v->prev = slack == b->api->u64_get(mark_word(b), v->vcpu_index)
                ? (const struct tb *)(uintptr_t)last
                : &b->counted_inline;
}

void spmu_qemu_budget_push(struct vcpu *v)
{
  const struct spmu_qemu_budget *b = v->ib;
  int32_t lane[LANES];
  uint64_t slack;

  if (!b)
    return;
  memcpy(lane, &v->slack, sizeof(lane));
  slack = v->prev ? (uint64_t)(int64_t)lane[0] : 0;
  b->api->u64_set(slack_word(b), v->vcpu_index, slack);
  b->api->u64_set(mark_word(b), v->vcpu_index, slack);
  b->api->u64_set(last_word(b), v->vcpu_index, (uint64_t)(uintptr_t)v->prev);
}

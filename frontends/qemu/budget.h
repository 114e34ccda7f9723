/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Record mode by an inline budget (budget.c; plugin API 2 on, QEMU 9.1
 * on): the generated code of each block takes the block's instructions
 * from its thread's slack, in a per-vCPU scoreboard, and calls the plugin
 * only when the slack runs out; count.c then does what its callback per
 * block does there. */
#ifndef SOFTPMU_QEMU_BUDGET_H
#define SOFTPMU_QEMU_BUDGET_H

#include <stdbool.h>

#include "api.h"
#include "config.h"
#include "tb.h"

struct vcpu;
struct spmu_qemu_budget;

/* The scoreboard, when cfg counts this way under api (record mode, each
 * block counted as it starts, instructions alone, no call chains), else
 * NULL (callbacks as under API 1). */
struct spmu_qemu_budget *
spmu_qemu_budget_new(const struct spmu_qemu_config *cfg,
                     const struct spmu_qemu_api *api);
void spmu_qemu_budget_free(struct spmu_qemu_budget *b);

/* Block t instrumented: its inline take from the slack and the call when
 * that runs out (cond_cb), or, for a block that starts or ends with a REP
 * string instruction, a call each time (rep_cb). */
void spmu_qemu_budget_tb(const struct spmu_qemu_budget *b,
                         struct qemu_plugin_tb *qtb, const struct tb *t,
                         qemu_plugin_vcpu_udata_cb_t cond_cb,
                         qemu_plugin_vcpu_udata_cb_t rep_cb);

/* v's slack and last block from the scoreboard (charge: what the block
 * that called took already, to give back), and back to it; outside a
 * block's call, charge 0. */
void spmu_qemu_budget_pull(struct vcpu *v, uint32_t charge);
void spmu_qemu_budget_push(struct vcpu *v);

#endif

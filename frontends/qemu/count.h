/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Counting by a callback per block execution (count.c): each block's lines
 * added to its thread's sums and handed to the model in bulk; per
 * instruction in the block that may bring a sampling counter to overflow.
 * The callbacks find their thread through the block (tb.h). */
#ifndef SOFTPMU_QEMU_COUNT_H
#define SOFTPMU_QEMU_COUNT_H

#include <stdint.h>

#include "config.h"
#include "qemu_plugin_api.h"
#include "tb.h"

struct vcpu;

/* QEMU's callbacks of a block's execution (udata: the struct tb); the
 * second for a block that is one REP string instruction. */
void spmu_qemu_on_tb_exec(unsigned int vcpu_index, void *udata);
void spmu_qemu_on_rep_exec(unsigned int vcpu_index, void *udata);
/* The callback of block t's executions: one of those two, or with
 * cfg->eager one that counts each block as it starts. */
qemu_plugin_vcpu_udata_cb_t
spmu_qemu_exec_callback(const struct spmu_qemu_config *cfg, const struct tb *t);

/* Block t counted by b's inline budget (budget.h). */
struct spmu_qemu_budget;
void spmu_qemu_budget_instrument(const struct spmu_qemu_budget *b,
                                 struct qemu_plugin_tb *qtb,
                                 const struct tb *t);

/* Hand everything v counted by callback to its cores. */
void spmu_qemu_flush_vcpu(struct vcpu *v);
/* execs executions of variant var of block t to v's cores, as one clock
 * each (inline.c's counts). */
void spmu_qemu_deliver(struct vcpu *v, const struct tb *t, unsigned var,
                       uint64_t execs);
/* In a fork's child: v's sums not yet delivered dropped. */
void spmu_qemu_drop_sums(struct vcpu *v);
/* The events until a sampling counter of v may overflow, afresh. */
void spmu_qemu_start_budget(struct vcpu *v);
/* Block t's lines by variant and the budget each takes (at translation). */
void spmu_qemu_charge_tb(const struct spmu_qemu_config *cfg, struct tb *t);

#endif

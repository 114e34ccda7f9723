/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The modelled micro-architecture (model.c, plugin argument model=SPEC):
 * one instance of uarch/ per guest thread, fed the thread's fetches, data
 * accesses and branches, read back as lines.h's modelled lines. */
#ifndef SOFTPMU_QEMU_MODEL_H
#define SOFTPMU_QEMU_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <softpmu/events.h>

#include "config.h"
#include "qemu_plugin_api.h"
#include "tb.h"
#include "uarch.h"

struct vcpu;
struct spmu_qemu_mtb;
struct spmu_qemu_model;

/* Parse spec into cfg and make one model of it: false, with the reason in
 * why, when either fails. */
bool spmu_qemu_model_setup(const char *spec, spmu_uarch_config *cfg, char *why,
                           size_t len);

/* v's model, when the configuration has one (v->model); false with the
 * reason in why when it cannot be made. */
bool spmu_qemu_model_attach(struct vcpu *v, char *why, size_t len);
void spmu_qemu_model_free(struct vcpu *v);

/* What the model keeps of block t (t->model), with a memory callback on
 * each of its instructions; false when out of memory. */
bool spmu_qemu_model_tb(const struct spmu_qemu_config *cfg,
                        struct qemu_plugin_tb *qtb, struct tb *t);

/* A block begins on v (cont: repeating its REP instruction), ends (p,
 * with next the block that ran after it, or NULL). */
void spmu_qemu_model_begin(struct vcpu *v, const struct tb *t, unsigned cont);
void spmu_qemu_model_end(struct vcpu *v, const struct tb *p,
                         const struct tb *next);

/* The branch of the block just ended (lbr.c): mispredicted, and the
 * timing model's core cycles after it; false without a model. */
bool spmu_qemu_model_branch(const struct vcpu *v, bool *misp, uint64_t *cycles);

/* count.c's budget, deliveries and forks (model.c says each). */
uint32_t spmu_qemu_model_charge(struct vcpu *v, uint32_t charge);
void spmu_qemu_model_near(struct vcpu *v, bool near);
bool spmu_qemu_model_pending(struct vcpu *v);
/* Does the block running on v keep its counts at each instruction
 * boundary (its log: count.c may deliver it per instruction)? */
bool spmu_qemu_model_logs(const struct vcpu *v);
size_t spmu_qemu_model_lines(struct vcpu *v, spmu_event_line *out);
size_t spmu_qemu_model_insn_lines(struct vcpu *v, uint32_t j,
                                  spmu_event_line *out);
void spmu_qemu_model_fork_child(struct vcpu *v);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Record mode with branch stacks (lbr.c, plugin argument branch=BITS):
 * the model's last branch records, programmed and read as a driver does,
 * fed each thread's taken branches through a ring. */
#ifndef SOFTPMU_QEMU_LBR_H
#define SOFTPMU_QEMU_LBR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <softpmu/events.h>
#include <softpmu/profile.h>

#include "config.h"
#include "tb.h"

struct vcpu;
struct spmu_qemu_lbr;
struct spmu_rec_brstack;

/* What programming profile p's LBRs for perf's branch_sample_type bits b
 * takes, into lb: false, with the reason in why, when p cannot. */
bool spmu_qemu_lbr_setup(const spmu_profile *p, uint64_t b,
                         struct spmu_qemu_lbr_regs *lb, char *why, size_t len);

/* Program v's cores (after their counters): 0, or an SPMU_E* code with
 * the reason in why. */
int spmu_qemu_lbr_arm(struct vcpu *v, char *why, size_t len);
void spmu_qemu_lbr_free(struct vcpu *v);

/* Block p (variant var) went to next: its branch into the ring. */
void spmu_qemu_lbr_note(struct vcpu *v, const struct tb *p, unsigned var,
                        uint64_t next);
/* The ring to the model, before a block goes one instruction per clock. */
void spmu_qemu_lbr_replay(struct vcpu *v);
/* That block's own branch, for its last instruction's clock (or NULL). */
const spmu_branch *spmu_qemu_lbr_branch(struct vcpu *v, const struct tb *p,
                                        unsigned var, uint64_t next,
                                        spmu_branch *out);
/* Core k's PMI: the stack read, the freeze lifted. */
void spmu_qemu_lbr_pmi(struct vcpu *v, unsigned k);
/* The stack read at the last PMI, as a sample carries it: its size, and
 * the stack itself into out. */
size_t spmu_qemu_lbr_size(const struct vcpu *v);
void spmu_qemu_lbr_put(const struct vcpu *v, struct spmu_rec_brstack *out);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* regs=1 (regs.c): the guest's general-purpose registers at each PEBS
 * assist, for the records' GPR fields (plugin API 2 on, QEMU 9.1 on:
 * register reads and conditional instruction callbacks). The assist
 * comes while count.c hands a block that has already run to the model,
 * so the registers after its eventing instruction are taken as the block
 * runs: before each instruction that follows one adding to a sampled
 * line, by a conditional callback that QEMU's generated code calls only
 * in a block count.c may take per instruction (one compare of a per-vCPU
 * word there; the registers are read in those blocks only); after the
 * block's last instruction they are read at the next block's callback,
 * which QEMU then runs with QEMU_PLUGIN_CB_R_REGS. */
#ifndef SOFTPMU_QEMU_REGS_H
#define SOFTPMU_QEMU_REGS_H

#include <stdbool.h>
#include <stdint.h>

#include <softpmu/events.h>

#include "api.h"
#include "config.h"

struct tb;
struct vcpu;
struct spmu_qemu_regs;

/* The process's register capture, or NULL: not asked for (regs=0), or
 * QEMU cannot give the registers where they are needed (API 1, QEMU 7.2;
 * no conditional instruction callbacks before QEMU 9.1), which *why says
 * (NULL and why "" when not asked for). */
struct spmu_qemu_regs *spmu_qemu_regs_new(const struct spmu_qemu_config *cfg,
                                          const struct spmu_qemu_api *api,
                                          char *why, size_t len);
void spmu_qemu_regs_free(struct spmu_qemu_regs *r);

/* The flags of the callback per block execution. */
enum qemu_plugin_cb_flags
spmu_qemu_regs_cb_flags(const struct spmu_qemu_regs *r);

/* Block t (qtb) is translated: the conditional callbacks of its
 * instructions (false: out of memory). */
bool spmu_qemu_regs_tb(struct spmu_qemu_regs *r, struct qemu_plugin_tb *qtb,
                       const struct tb *t);

/* The callback of block t's execution on v, the block before it counted
 * (count.c marks v->regs_live while it runs, and v->regs_tb = t): near,
 * count.c may take t per instruction; called when near, or when v keeps
 * the registers (v->regs_on) and should no more. */
void spmu_qemu_regs_block(struct vcpu *v, const struct tb *t, bool near);

/* The block running on v may go per instruction after all (the model
 * keeps its log from here): its registers are kept from its next
 * instruction on. */
void spmu_qemu_regs_follow(struct vcpu *v);

/* The registers after instruction j of block t, the one being delivered
 * (count.c), into st (gpr by register number, rflags): false, st left as
 * it is, when they were not taken. */
bool spmu_qemu_regs_at(struct vcpu *v, const struct tb *t, uint32_t j,
                       spmu_machine_state *st);

void spmu_qemu_regs_vcpu_free(struct vcpu *v);

/* The register number (SDM Vol. 2A Table 2-2) of each GPR field of the
 * legacy PEBS record, in its order, which is QEMU's register list's too
 * (RAX, RBX, RCX, RDX, RSI, RDI, RBP, RSP, R8-R15; SDM Vol. 3B
 * 18.6.2.4.2). */
extern const uint8_t spmu_qemu_legacy_regnum[16];

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Record mode with precise=1 (pebs.c): the sampling counters use PEBS,
 * each model core with a DS save area and a PEBS buffer of its own. */
#ifndef SOFTPMU_QEMU_PEBS_H
#define SOFTPMU_QEMU_PEBS_H

#include <stdbool.h>
#include <stddef.h>

#include <softpmu/profile.h>

#include "config.h"

struct vcpu;
struct spmu_qemu_pebs;

/* Profile p's PEBS registers and format into pb: false, with the reason
 * in why, for a profile without PEBS. */
bool spmu_qemu_pebs_setup(const spmu_profile *p, struct spmu_qemu_pebs_regs *pb,
                          char *why, size_t len);
/* Only GP counters have PEBS (no PEBS_BASELINE). */
bool spmu_qemu_pebs_needs_gp(const struct spmu_qemu_config *cfg);

/* Arm PEBS on v's cores after their counters start: 0, or an SPMU_E*
 * code with the reason in why. */
int spmu_qemu_pebs_arm(struct vcpu *v, char *why, size_t len);
/* Core k's PMI: its records become samples (sample.c). */
void spmu_qemu_pebs_drain(struct vcpu *v, unsigned k);
void spmu_qemu_pebs_free(struct vcpu *v);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A guest thread's model cores (cores.c): made and programmed through the
 * agent library, as a driver programs hardware, when the thread starts;
 * counted from 0 again after a fork or an execve (mux.c reads them). */
#ifndef SOFTPMU_QEMU_CORES_H
#define SOFTPMU_QEMU_CORES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

struct vcpu;
struct spmu_qemu_stream;

/* A thread with its cores programmed for cfg's events (and its model,
 * PEBS areas, LBRs), writing to stream (NULL when counting); NULL with the
 * reason in why. */
struct vcpu *spmu_qemu_vcpu_new(const struct spmu_qemu_config *cfg,
                                struct spmu_qemu_stream *stream, char *why,
                                size_t len);
void spmu_qemu_vcpu_free(struct vcpu *v);

/* Program one thread's worth of cores and free them: false, with the
 * reason in why, when the model refuses cfg's events. */
bool spmu_qemu_cores_try(const struct spmu_qemu_config *cfg, char *why,
                         size_t len);

/* Count from here as from 0 (a fork's child, after an execve). */
void spmu_qemu_rebase(struct vcpu *v);

#endif

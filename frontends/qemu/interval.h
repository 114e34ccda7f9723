/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Intervals (interval.c, plugin argument interval=N): each thread's
 * counts at every N instructions of its clock, the rows of the results
 * file (protocol/results.h) that softpmu stat -I prints. */
#ifndef SOFTPMU_QEMU_INTERVAL_H
#define SOFTPMU_QEMU_INTERVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "results.h"

struct vcpu;

/* v's rows, when the configuration asks for intervals; false when out of
 * memory. */
bool spmu_qemu_ival_attach(struct vcpu *v);
void spmu_qemu_ival_free(struct vcpu *v);

/* Do n more instructions on v reach its next boundary (v->ival_at)? Then
 * count.c hands their block to the model one instruction per clock and
 * calls spmu_qemu_ival_tick after each. */
static inline bool spmu_qemu_ival_due(uint64_t insns, uint64_t pending,
                                      uint64_t n, uint64_t at)
{
  return insns + pending + n >= at;
}
void spmu_qemu_ival_tick(struct vcpu *v);

/* v's clock (interval.c says what it counts). */
uint64_t spmu_qemu_ival_clock(const struct vcpu *v);
/* v counts from 0 again (a fork's child, after an execve): its rows
 * start afresh at the interval its clock is in; ahead: the instructions
 * it retired that v->insns does not count (a fork's child: those its
 * parent thread had not handed to the model at the fork). */
void spmu_qemu_ival_restart(struct vcpu *v, uint64_t ahead);

/* v's rows so far, the last one partial, into t (first, nrows, rows from
 * malloc, which the caller frees; none without intervals). */
void spmu_qemu_ival_rows(struct vcpu *v, struct spmu_results_thread *t);

#endif

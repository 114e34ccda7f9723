/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Multiplexing (mux.c, plugin argument multiplex=N): one PMU per thread,
 * time-sliced among the events as perf does; and every event's count as
 * read, multiplexed or not. */
#ifndef SOFTPMU_QEMU_MUX_H
#define SOFTPMU_QEMU_MUX_H

#include <stddef.h>
#include <stdint.h>

struct vcpu;

/* Split the events into groups one PMU holds and start the first (v has
 * one core): 0, or an SPMU_E* code with the reason in why. */
int spmu_qemu_mux_plan(struct vcpu *v, char *why, size_t len);
/* Event i's count and the instructions it ran, its slices so far. */
uint64_t spmu_qemu_mux_value(struct vcpu *v, unsigned i);
uint64_t spmu_qemu_mux_running(const struct vcpu *v, unsigned i);
/* The end of a slice: the next group starts. */
void spmu_qemu_mux_rotate(struct vcpu *v);

/* Event i's count on v since its base, and the instructions during which
 * it was enabled and counted (all of them unless multiplexing). */
uint64_t spmu_qemu_event_count(struct vcpu *v, unsigned i);
uint64_t spmu_qemu_event_enabled(const struct vcpu *v);
uint64_t spmu_qemu_event_running(const struct vcpu *v, unsigned i);

#endif

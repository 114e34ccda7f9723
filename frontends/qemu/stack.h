/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The program's initial stack pointer found from the guest's memory
 * alone (stack.c), for a QEMU whose plugin API cannot read registers
 * (API 1: QEMU 7.2 and 8.x). */
#ifndef SOFTPMU_QEMU_STACK_H
#define SOFTPMU_QEMU_STACK_H

#include <stdbool.h>
#include <stdint.h>

#include "guest.h"

/* The guest address of argc, where RSP points at the program's first
 * instruction, into *sp: false when no mapping of the process holds a
 * stack start. Before the program has run. */
bool spmu_qemu_stack_find(const struct spmu_qemu_guest_mem *m, uint64_t *sp);

#endif

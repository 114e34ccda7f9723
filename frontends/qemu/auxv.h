/* SPDX-License-Identifier: GPL-2.0-or-later */
/* QEMU's vDSO withheld from the program (auxv.c): QEMU 10 maps a vDSO
 * into an x86-64 guest and names it in the auxiliary vector
 * (AT_SYSINFO_EHDR), and glibc then calls clock_gettime, gettimeofday,
 * time and getcpu through it; QEMU 7.2 gives none, and glibc makes the
 * system calls. So that a program retires the same instructions under
 * both, the plugin takes that entry out of the vector before the program's
 * first instruction runs, unless vdso=1, and, given the stack's padding
 * (protocol/args.h), lays out the start as 7.2 does, one page lower
 * (docs/decisions.md #95, #104). */
#ifndef SOFTPMU_QEMU_AUXV_H
#define SOFTPMU_QEMU_AUXV_H

#include <stdatomic.h>
#include <stdbool.h>

#include "api.h"
#include "guest.h"

struct spmu_qemu_auxv {
  const struct spmu_qemu_api *api;
  struct spmu_qemu_guest_mem mem;
  atomic_bool done; /* the callback has run (it runs once) */
};

/* Arm a on the program's first block (qtb), while it is translated, with
 * the guest's memory found from its first instruction (mem): the block
 * gets a callback that, when it first runs, reads the stack pointer and
 * hides the vDSO. Does nothing under a QEMU that cannot read registers
 * (7.2, which gives no vDSO); says so, once, when the guest's memory
 * cannot be found. */
void spmu_qemu_auxv_arm(struct spmu_qemu_auxv *a,
                        const struct spmu_qemu_api *api,
                        struct qemu_plugin_tb *qtb,
                        const struct spmu_qemu_guest_mem *mem);

#endif

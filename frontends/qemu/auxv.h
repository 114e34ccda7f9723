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
  bool keep;        /* vdso=1: the start left as QEMU made it */
  bool vdso;        /* API 1: the start names a vDSO (QEMU 8.2; set at arm) */
  atomic_bool done; /* the start has been looked at (once) */
};

/* Arm a on the program's first block (qtb), while it is translated, with
 * the guest's memory found from its first instruction (mem), keep as
 * vdso=1 says. Under plugin API 2 on, unless keep, the block gets a
 * callback that, when it first runs, reads the stack pointer and makes
 * the start 7.2's. Under API 1 (7.2, 8.2), which reads no register, the
 * start is found by its content (stack.c) now, before anything has run:
 * a->vdso says whether it names a vDSO, and, unless keep, it is made
 * 7.2's. Says so, once, when the guest's memory cannot be found. */
void spmu_qemu_auxv_arm(struct spmu_qemu_auxv *a,
                        const struct spmu_qemu_api *api,
                        struct qemu_plugin_tb *qtb,
                        const struct spmu_qemu_guest_mem *mem, bool keep);

#endif

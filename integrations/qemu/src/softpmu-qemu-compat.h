/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The QEMU versions the glue builds against (7.2, Debian 12's; 10.0,
 * Debian 13's): the one place their differences live. Included by
 * softpmu-qemu.c after qemu/osdep.h, whose config-host.h defines
 * QEMU_VERSION_MAJOR. */
#ifndef SOFTPMU_QEMU_COMPAT_H
#define SOFTPMU_QEMU_COMPAT_H

/* clang-format off */
#if QEMU_VERSION_MAJOR >= 10
/* 10.0 moved include/sysemu/ to include/system/ */
#include "system/reset.h"
#include "system/tcg.h"
/* curr_cflags() left exec/exec-all.h for accel/tcg's own header */
#include "accel/tcg/internal-common.h"
#else
#include "sysemu/reset.h"
#include "sysemu/tcg.h"
#endif
/* clang-format on */

#if QEMU_VERSION_MAJOR < 9
/* 9.0 renamed the global ("iothread") lock's functions to bql_*. */
#define bql_locked() qemu_mutex_iothread_locked()
#define bql_lock() qemu_mutex_lock_iothread()
#define bql_unlock() qemu_mutex_unlock_iothread()
#endif

#endif

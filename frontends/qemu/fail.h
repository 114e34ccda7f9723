/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The plugin's messages: one line on standard error, prefixed
 * "softpmu-qemu: " (fail.c). */
#ifndef SOFTPMU_QEMU_FAIL_H
#define SOFTPMU_QEMU_FAIL_H

void spmu_qemu_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* qemu-x86_64's own command line, as the process's /proc/self/cmdline
 * gives it (cmdline.c): read by exec.c (the options an execve carries
 * over), layout.c (the guest base, the program) and auxv.c (the -E
 * options). */
#ifndef SOFTPMU_QEMU_CMDLINE_H
#define SOFTPMU_QEMU_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

/* The whole of it, NUL-separated, into *buf (malloc'd, one NUL more at
 * its end): its length, or 0 (nothing to free) when it cannot be read. */
size_t spmu_qemu_cmdline_read(char **buf);

/* Does QEMU's option OPT (its name without the dash) take a value, as
 * `qemu-x86_64 -h` lists them? */
bool spmu_qemu_cmdline_takes_value(const char *opt);

/* The value of QEMU's option OPT before the program (the last one given),
 * and the program (the first word that is no option nor an option's
 * value), in cmd[0, n) as spmu_qemu_cmdline_read gives it; NULL when
 * there is none. */
const char *spmu_qemu_cmdline_option(const char *cmd, size_t n,
                                     const char *opt);
const char *spmu_qemu_cmdline_program(const char *cmd, size_t n);

/* How many times QEMU's option OPT is given before the program, in cmd[0,
 * n) as spmu_qemu_cmdline_read gives it (the program's own arguments are
 * not QEMU's). */
size_t spmu_qemu_cmdline_count(const char *cmd, size_t n, const char *opt);

#endif

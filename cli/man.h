/* SPDX-License-Identifier: MIT */
/* softpmu help --roff: a manual as --help prints it, turned into a man
 * page (roff with the man(7) macros) at build time, so that the man pages
 * and --help are one text. */
#ifndef SOFTPMU_CLI_MAN_H
#define SOFTPMU_CLI_MAN_H

#include <stdio.h>

/* Writes a manual as --help does, on out. */
typedef void cli_man_print_fn(FILE *out, const void *arg);

/* The man page named page ("softpmu-stat", section 1) of the manual that
 * print(out, arg) writes, on out, with a SEE ALSO section naming the
 * pages of see_also (NULL-terminated, section 1 each) and the installed
 * documentation. Returns CLI_EXIT_OK, or CLI_EXIT_USAGE after a message
 * when out of memory. */
int cli_man_write(FILE *out, const char *page, cli_man_print_fn *print,
                  const void *arg, const char *const *see_also);

#endif

/* SPDX-License-Identifier: MIT */
/* What a signal that kills softpmu stat or record must not leave behind:
 * the session's temporary file, and the program still running, which
 * would write that file again as it exits. The session's guard callback
 * (perf/session.h). */
#ifndef SOFTPMU_CLI_CLEANUP_H
#define SOFTPMU_CLI_CLEANUP_H

#include <sys/types.h>

/* The session's guard: tmp (NULL: none) is removed and child (0: none)
 * sent the signal and waited for when SIGHUP, SIGINT, SIGPIPE or SIGTERM
 * kills the command; the handlers are installed on the first call. */
void cli_cleanup_guard(const char *tmp, pid_t child);

#endif

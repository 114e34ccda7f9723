/* SPDX-License-Identifier: MIT */
/* Running a program under qemu-x86_64 with softpmu's QEMU plugin, the
 * process side of a run of softpmu stat or record (session.h calls it).
 * Finding qemu-x86_64, the plugin and the program as a shell would; QEMU's
 * -cpu model for a profile; spawning the run and reporting its exit
 * status as a shell does.
 *
 * Nothing is printed here: a function with something to say (an error,
 * or a note such as the signal that killed the program) writes it into
 * why, which it sets to "" otherwise, and the session passes it on. */
#ifndef SOFTPMU_QEMU_RUN_H
#define SOFTPMU_QEMU_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <time.h>

#include <softpmu/profile.h>

#define QEMU_RUN_EXIT_NOT_FOUND 127 /* as a shell does */
#define QEMU_RUN_EXIT_NOT_EXEC 126

/* One run of the program: its wait status, times and resources. */
struct qemu_child {
  int status; /* waitpid's */
  struct timespec t0, t1;
  struct rusage ru;
};

/* The first PATH directory holding an executable `name`, into buf. */
bool qemu_run_search_path(const char *name, char *buf, size_t len);

/* The program to run (a path, or a name looked up in PATH) into buf: 0,
 * or QEMU_RUN_EXIT_NOT_FOUND or QEMU_RUN_EXIT_NOT_EXEC with the reason in
 * why. */
int qemu_run_find_program(const char *prog, char *buf, size_t len, char *why,
                          size_t whylen);

/* qemu-x86_64 and the plugin into their buffers: qemu is given (the
 * path the user chose: `--qemu PATH` or $SOFTPMU_QEMU, named by what in
 * messages), or NULL for qemu-x86_64 found on PATH, or, when PATH has none
 * or a static one, the one scripts/qemu-user built in
 * ${XDG_CACHE_HOME:-$HOME/.cache}/softpmu/qemu-user-X.Y/build/ (10.0, then
 * 7.2). 0, or -1 with what to do in why: a given path must exist and be an
 * executable file. */
int qemu_run_find_tools(const char *given, const char *what, char *qemu,
                        size_t qlen, char *plugin, size_t plen, char *why,
                        size_t whylen);

/* Ask qemu whether it loads plugins, before the program runs: it is run
 * as `QEMU -plugin PLUGIN --version`, which parses -plugin (a build
 * without plugins, such as a static one, refuses the option) and prints
 * the version without loading anything. 0 with the first line of its
 * output (its version) in version; else -1, why saying what it said and
 * what to do (what names where the path came from, as for find_tools). */
int qemu_run_probe(const char *qemu, const char *what, const char *plugin,
                   char *version, size_t vlen, char *why, size_t whylen);

/* QEMU's -cpu model for profile p (glibc picks its code by CPUID). */
const char *qemu_run_model(const spmu_profile *p);

/* Does a plugin's qemu_plugin_reset leave QEMU's plugin lock held under
 * QEMU qemu_major (0 unknown)? Under 9.x (9.2.1 read and run: its
 * plugins/loader.c, plugin_reset_destroy, locks the lock a second time
 * where it means to unlock it; 10.0 unlocks it), so that the next guest
 * thread to start or end waits for ever: the plugin is then told to count
 * by callbacks from the start (count=callback), never inline, as it does
 * by itself under 8.2 (frontends/qemu/api.h, which cannot tell 9.2 from
 * 10.0: both offer plugin API 4). */
bool qemu_run_reset_hangs(int qemu_major);

/* The command line given to qemu-x86_64: qemu, -cpu MODEL (with QEMU
 * 10.0's CPUID when qemu_major.qemu_minor, qemu's version, 0 unknown, is
 * 10.1 or more), -B BASE (QEMU 8 on's own: qemu_run.c), -tb-size from
 * QEMU 10 on,
 * -seed seed when seed is not NULL (a decimal number), -plugin parg and the
 * guest's LD_PRELOAD as it is here (-E, or -U when unset) when parg is not
 * NULL, then, with pad too and QEMU 8 on, the stack's padding
 * (protocol/args.h), a script's interpreter and its argument (its "#!" line,
 * as the kernel runs a script), prog, then prog_argv[1...]. One calloc'ed
 * block, which also holds the strings made for it: the caller frees it. NULL
 * if out of memory. */
char **qemu_run_argv(const spmu_profile *p, const char *qemu, int qemu_major,
                     int qemu_minor, const char *seed, char *parg, bool pad,
                     const char *prog, char **prog_argv);

/* Call fn(opaque) with the signals a command cleans up after blocked
 * (SIGHUP, SIGINT, SIGPIPE, SIGTERM: session.h, guard), so that their
 * handler never sees half of what fn changes. */
void qemu_run_blocked(void (*fn)(void *opaque), void *opaque);

/* Told of the child: its pid once forked, 0 once reaped; called with
 * qemu_run_blocked's signals blocked. */
typedef void qemu_run_watch(void *opaque, pid_t pid);

/* Run qargv and wait for it, watch (if not NULL) told of the child, the plugin
 * of its -plugin argument preloaded into qemu-x86_64 (LD_PRELOAD), so that the
 * counts are written when a signal kills the program; Ctrl-C and Ctrl-\ go to
 * the program, as with perf. A SIGINT sent to the command alone is ignored
 * (perf stat), or with int_stops stops the program with SIGTERM, which is
 * then waited for (perf record). 0 when it ran: why is "", or says why
 * qemu-x86_64 could not be executed (its status is then
 * QEMU_RUN_EXIT_NOT_EXEC, as a shell's); -1 when it could not be started
 * (why says). */
int qemu_run_spawn(char **qargv, bool int_stops, qemu_run_watch *watch,
                   void *opaque, struct qemu_child *r, char *why,
                   size_t whylen);

/* The program's exit status as a shell reports it (128 + N when killed
 * by signal N, which why then says). */
int qemu_run_exit_status(const struct qemu_child *r, char *why, size_t whylen);

#endif

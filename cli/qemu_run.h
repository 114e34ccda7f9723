/* Running a program under qemu-x86_64 with softpmu's QEMU plugin: what
 * softpmu stat and softpmu record share. Finding qemu-x86_64, the plugin
 * and the program as a shell would; QEMU's -cpu model for a profile;
 * spawning the run and reporting its exit status as a shell does.
 *
 * Every message is prefixed by the command's name (cmd: "stat",
 * "record"). */
#ifndef SOFTPMU_QEMU_RUN_H
#define SOFTPMU_QEMU_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
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

/* The program to run (a path, or a name looked up in PATH) into buf:
 * CLI_EXIT_OK, or after a message QEMU_RUN_EXIT_NOT_FOUND or
 * QEMU_RUN_EXIT_NOT_EXEC. */
int qemu_run_find_program(const char *cmd, const char *prog, char *buf,
                          size_t len);

/* qemu-x86_64 and the plugin into their buffers: CLI_EXIT_OK, or after a
 * message saying what to install, CLI_EXIT_USAGE. */
int qemu_run_find_tools(const char *cmd, char *qemu, size_t qlen, char *plugin,
                        size_t plen);

/* QEMU's -cpu model for profile p (glibc picks its code by CPUID). */
const char *qemu_run_model(const spmu_profile *p);

/* The command line given to qemu-x86_64 (a calloc'ed array the caller
 * frees; NULL if out of memory): qemu, -cpu MODEL, -plugin parg and the
 * guest's LD_PRELOAD as it is here (-E, or -U when unset) when parg is not
 * NULL, a script's interpreter and its argument (its "#!" line, as the
 * kernel runs a script), prog, then prog_argv[1...]. */
char **qemu_run_argv(const spmu_profile *p, const char *qemu, char *parg,
                     const char *prog, char **prog_argv);

/* Run qargv and wait for it, the plugin of its -plugin argument preloaded
 * into qemu-x86_64 (LD_PRELOAD), so that the counts are written when a
 * signal kills the program; Ctrl-C and Ctrl-\ go to the program, as
 * with perf. CLI_EXIT_OK, or CLI_EXIT_USAGE when fork fails. */
int qemu_run_spawn(const char *cmd, char **qargv, struct qemu_child *r);

/* The program's exit status as a shell reports it (128 + N when killed
 * by signal N, said on stderr). */
int qemu_run_exit_status(const char *cmd, const struct qemu_child *r);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* execve followed (exec.c): qemu-user runs the program an execve starts
 * natively, outside QEMU; the plugin instead replaces the process with
 * qemu-x86_64 running that program under this plugin again, with the
 * same QEMU options and plugin arguments, so that the whole tree is
 * counted. Called from plugin.c's system-call callback, before the
 * system call runs. */
#ifndef SOFTPMU_QEMU_EXEC_H
#define SOFTPMU_QEMU_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "guest.h"

/* The program's first instruction as QEMU translated it, and where the
 * guest's memory is found from it (guest.c: known when its bytes are at
 * its guest address plus QEMU's guest base). */
struct spmu_qemu_exec_probe {
  struct spmu_qemu_guest_mem mem;
  unsigned char bytes[16];
  size_t n; /* 0: none seen yet */
};

/* execve(path, argv, envp) (syscall 59) or execveat(dirfd, path, argv,
 * envp, flags) (322), the guest's arguments. */
struct spmu_qemu_exec_call {
  int64_t num;
  uint64_t a[5];
};

enum spmu_qemu_exec_way {
  /* The system call fails natively (ENOENT, EACCES, ENOEXEC, EFAULT...)
   * and the program gets its error back: let it run. */
  SPMU_QEMU_EXEC_FAILS,
  /* It would succeed, but the plugin cannot follow it (a setuid program,
   * another architecture, ...: why says): it runs natively, uncounted. */
  SPMU_QEMU_EXEC_NATIVE,
  /* Followed: spmu_qemu_exec_run replaces the process. */
  SPMU_QEMU_EXEC_FOLLOW,
};

struct spmu_qemu_exec;

/* What becomes of call; with SPMU_QEMU_EXEC_FOLLOW, *out is the command
 * line and environment to run (free with spmu_qemu_exec_free), else why
 * says why not (empty when the call fails natively). */
enum spmu_qemu_exec_way
spmu_qemu_exec_prepare(const struct spmu_qemu_config *cfg,
                       const struct spmu_qemu_exec_probe *probe,
                       const struct spmu_qemu_exec_call *call,
                       struct spmu_qemu_exec **out, char *why, size_t len);

/* Replace the process with qemu-x86_64 running x's program, its records'
 * times going on from time (exec=N). Returns only when the execve of
 * qemu-x86_64 failed: why says. */
void spmu_qemu_exec_run(struct spmu_qemu_exec *x, uint64_t time, char *why,
                        size_t len);
void spmu_qemu_exec_free(struct spmu_qemu_exec *x);

#endif

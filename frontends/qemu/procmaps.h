/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The guest's /proc/self/maps as QEMU 7.2 writes it (procmaps.c). Both
 * QEMUs fake the file for a guest that opens "/proc/self/maps" or
 * "/proc/PID/maps" of itself (linux-user/syscall.c, open_self_maps): 7.2
 * prints each host mapping whose pages are all the guest's, with the
 * guest flags of its first page; 10 prints its own table of the guest's
 * pages, cut at the host's mappings, and names the heap and the vDSO. A
 * program that reads it (libsigsegv, glibc's pthread_getattr_np) then
 * retires different instructions. While the plugin keeps 7.2's placement
 * (layout.h), the host's mappings of the guest are 7.2's, so on the
 * open's return the plugin rewrites QEMU 10's answer, a file the guest
 * has not read yet, with 7.2's text: README.md, "The guest's maps". */
#ifndef SOFTPMU_QEMU_PROCMAPS_H
#define SOFTPMU_QEMU_PROCMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "guest.h"

struct spmu_qemu_procmaps;

/* For a guest whose mappings are 7.2's (the layout kept) and whose start
 * is 7.2's (QEMU 10's vDSO withheld: auxv.h). NULL: out of memory. */
struct spmu_qemu_procmaps *spmu_qemu_procmaps_new(void);
void spmu_qemu_procmaps_free(struct spmu_qemu_procmaps *m);

/* Is num a call this file follows (open, openat)? */
bool spmu_qemu_procmaps_follows(int64_t num);

/* A system call before it runs, on vCPU vcpu, the guest's memory mem:
 * an open of the file 7.2 fakes is noted. m may be NULL. */
void spmu_qemu_procmaps_syscall(struct spmu_qemu_procmaps *m,
                                const struct spmu_qemu_guest_mem *mem,
                                unsigned vcpu, int64_t num,
                                const uint64_t *args);

/* Its return (ret): the file QEMU 10 faked rewritten with 7.2's text
 * (said once when it cannot be). m may be NULL. */
void spmu_qemu_procmaps_syscall_ret(struct spmu_qemu_procmaps *m, unsigned vcpu,
                                    int64_t num, int64_t ret);

/* Would QEMU 7.2 fake the file at path for process pid (is_proc_myself):
 * "/proc/self/maps" or "/proc/PID/maps", the path as the guest gave it? */
bool spmu_qemu_procmaps_is_self(const char *path, long pid);

/* 7.2's text from the host's /proc/self/maps (host) and QEMU 10's text
 * (qemu10: the guest's pages, their flags, "[stack]" and "[vdso]"), guest
 * base base; the vDSO's page left out (7.2 has none). A new string (its
 * length in *n), NULL when out of memory. */
char *spmu_qemu_procmaps_text(const char *host, const char *qemu10,
                              uint64_t base, size_t *n);

#endif

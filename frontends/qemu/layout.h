/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The guest's mappings placed as QEMU 7.2 places them (layout.c). QEMU
 * 8.1 on lets the host kernel place a guest's mmap without an address,
 * first fit from the bottom in the layout softpmu runs QEMU in; QEMU 7.2
 * places each after the last, from guest address 0x4000000000 up (its
 * TASK_UNMAPPED_BASE), and never fills a hole again. Under QEMU 9 on (and
 * 8.x, given softpmu's guest base: api.h) the plugin reserves (PROT_NONE,
 * no memory), at install, every hole below that address plus QEMU's guest
 * base (-B), so that the host's first fit
 * is 7.2's next one; the space 7.2 keeps for the program's heap (brk)
 * while it loads the dynamic linker and the stack; the addresses QEMU
 * asks the host for first (a dynamic program's ELF_ET_DYN_BASE, its own
 * TASK_UNMAPPED_BASE), so that the host's own choice is taken; and, as
 * the program runs, every range it unmaps, and the brk space above the
 * break; and it places the mappings the kernel would align to 2 MiB
 * where they fit first. README.md, "The guest's layout". */
#ifndef SOFTPMU_QEMU_LAYOUT_H
#define SOFTPMU_QEMU_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct spmu_qemu_layout;

/* At install, before QEMU maps anything of the guest, in the bottom-up
 * layout only (else NULL, nothing done): the holes among QEMU's own
 * mappings closed and, when QEMU's command line gives a guest base, 7.2's
 * placement prepared as above (said once when it cannot be). With
 * by_base (plugin API 1: QEMU 7.2 or 8.x, api.h), only when that base
 * puts 7.2's first address above QEMU's own mappings, else NULL, nothing
 * done. NULL also when there is nothing to follow as the program runs. */
struct spmu_qemu_layout *spmu_qemu_layout_new(bool by_base);
void spmu_qemu_layout_free(struct spmu_qemu_layout *l);

/* A system call of the guest's, before it runs and after it returned
 * (RET), on vCPU VCPU: brk, munmap and mremap keep 7.2's placement.
 * l may be NULL. */
void spmu_qemu_layout_syscall(struct spmu_qemu_layout *l, unsigned vcpu,
                              int64_t num, const uint64_t *args);
void spmu_qemu_layout_syscall_ret(struct spmu_qemu_layout *l, unsigned vcpu,
                                  int64_t num, int64_t ret);

/* An mmap of QEMU's (the plugin preloaded answers it): while l keeps
 * 7.2's placement, one that the host kernel may put at a 2 MiB boundary
 * for transparent huge pages (a file's of 2 MiB or more, an anonymous one
 * whose length is a multiple of 2 MiB; no address required) goes where
 * the kernel puts a mapping it does not align, which is 7.2's next
 * address; anything else, and everything when l is NULL, goes to the
 * kernel as it is (the system call, not libc's mmap). */
void *spmu_qemu_layout_mmap(const struct spmu_qemu_layout *l, void *addr,
                            size_t len, int prot, int flags, int fd, off_t off);

#endif

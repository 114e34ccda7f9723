/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The guest's general-purpose registers and memory, as the plugin API
 * and the host let the plugin see them (guest.c): the registers through
 * qemu_plugin_read_register (plugin API 2 on, in a callback registered
 * with QEMU_PLUGIN_CB_R_REGS), the memory as the process's own, at the
 * guest address plus QEMU's guest base, read and written with
 * process_vm_readv/writev on the process itself (a bad address is an
 * error, never a crash). */
#ifndef SOFTPMU_QEMU_GUEST_H
#define SOFTPMU_QEMU_GUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api.h"

/* The 16 general-purpose registers, in the order of QEMU's (gdb's)
 * x86-64 register list and of the PEBS record's GPR fields (SDM Vol. 3B
 * 18.6.2.4.2: RAX, RBX, RCX, RDX, RSI, RDI, RBP, RSP, R8 to R15). */
enum { SPMU_QEMU_GPRS = 16, SPMU_QEMU_RSP = 7 };

/* QEMU's handles of the registers, found once per vCPU; eflags NULL
 * when QEMU does not name it. */
struct spmu_qemu_gprs {
  struct qemu_plugin_register *handle[SPMU_QEMU_GPRS];
  struct qemu_plugin_register *eflags;
};

/* The handles, from inside a callback of a vCPU (QEMU lists the
 * registers of the vCPU that runs it): false when QEMU cannot read
 * registers or does not name all 16. */
bool spmu_qemu_gprs_find(const struct spmu_qemu_api *api,
                         struct spmu_qemu_gprs *g);

/* The first n registers' values now (n <= SPMU_QEMU_GPRS), from inside a
 * callback registered with QEMU_PLUGIN_CB_R_REGS: false when a read
 * fails. */
bool spmu_qemu_gprs_read(const struct spmu_qemu_api *api,
                         const struct spmu_qemu_gprs *g, unsigned n,
                         uint64_t *val);

/* The eflags register as QEMU's gdb description gives it (32 bits),
 * from inside a callback registered with QEMU_PLUGIN_CB_R_REGS: false
 * when QEMU names none or the read fails. */
bool spmu_qemu_eflags_read(const struct spmu_qemu_api *api,
                           const struct spmu_qemu_gprs *g, uint64_t *val);

/* What a host address of the guest's memory is: guest address + base. */
struct spmu_qemu_guest_mem {
  uint64_t base;
  bool known;
};

/* The base, from the program's first instruction while its block is
 * translated: QEMU's host address of it where QEMU gives one, else 0;
 * checked: the instruction's n bytes (as QEMU translated them) must be
 * there. false when they are not. */
bool spmu_qemu_guest_mem_find(struct spmu_qemu_guest_mem *m,
                              const struct spmu_qemu_api *api,
                              const struct qemu_plugin_insn *insn,
                              const void *bytes, size_t n);

/* n bytes of guest memory at guest address addr into buf, or from buf:
 * false when the host has nothing (writable) there. */
bool spmu_qemu_guest_read(const struct spmu_qemu_guest_mem *m, uint64_t addr,
                          void *buf, size_t n);
bool spmu_qemu_guest_write(const struct spmu_qemu_guest_mem *m, uint64_t addr,
                           const void *buf, size_t n);

/* Do the host's bytes at guest address addr agree with QEMU's own view
 * of the guest (qemu_plugin_read_memory_vaddr, API 4 on, from a vCPU's
 * callback)? True where QEMU has no such call. */
bool spmu_qemu_guest_agrees(const struct spmu_qemu_guest_mem *m,
                            const struct spmu_qemu_api *api, uint64_t addr,
                            size_t n);

#endif

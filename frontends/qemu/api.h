/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The QEMU plugin API versions the plugin runs on, in one place: which
 * version the QEMU that loads the plugin offers (qemu_plugin_version is
 * set from it at load), and the calls that differ between versions,
 * looked up at install. Every other file calls the calls all versions
 * share by name, and these through here. */
#ifndef SOFTPMU_QEMU_API_H
#define SOFTPMU_QEMU_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qemu_plugin_api.h"

/* The version-specific calls of the QEMU that runs the plugin; fixed at
 * install (a NULL call is one that QEMU lacks). */
struct spmu_qemu_api {
  int version; /* the API version the plugin exported, 1 to 4 */
  int qemu;    /* the newest one QEMU implements (info->version.cur) */
  /* API 1. */
  spmu_qemu_tb_exec_inline_v1_fn tb_exec_inline_v1;
  spmu_qemu_insn_data_v1_fn insn_data_v1;
  /* API 2 on. */
  spmu_qemu_scoreboard_new_fn scoreboard_new;
  spmu_qemu_scoreboard_free_fn scoreboard_free;
  spmu_qemu_u64_get_fn u64_get;
  spmu_qemu_u64_set_fn u64_set;
  spmu_qemu_tb_exec_inline_fn tb_exec_inline;
  spmu_qemu_tb_exec_cond_cb_fn tb_exec_cond_cb;     /* QEMU 9.1 on */
  spmu_qemu_insn_exec_cond_cb_fn insn_exec_cond_cb; /* QEMU 9.1 on */
  /* API 3 on. */
  spmu_qemu_insn_data_v3_fn insn_data_v3;
  /* Optional, NULL where QEMU lacks them: the guest's registers (API 2
   * on), its memory by virtual address (API 4 on), GLib's calls for the
   * arrays they use, an instruction's host address (every version). */
  spmu_qemu_get_registers_fn get_registers;
  spmu_qemu_read_register_fn read_register;
  spmu_qemu_read_memory_vaddr_fn read_memory_vaddr;
  spmu_glib_byte_array_new_fn byte_array_new;
  spmu_glib_byte_array_free_fn byte_array_free;
  spmu_glib_array_free_fn array_free;
  spmu_qemu_insn_haddr_fn insn_haddr;
};

/* The calls of the version QEMU described in info: false, with why, when
 * a call that version must have is missing. */
bool spmu_qemu_api_resolve(struct spmu_qemu_api *api, const qemu_info_t *info,
                           char *why, size_t whylen);

/* Per-vCPU scoreboards and inline operations on them (API 2 on). */
static inline bool spmu_qemu_api_per_vcpu(const struct spmu_qemu_api *api)
{
  return api->version >= 2;
}

/* The guest's registers can be read (get_registers, read_register and
 * GLib's arrays all found). */
static inline bool spmu_qemu_api_registers(const struct spmu_qemu_api *api)
{
  return api->get_registers && api->read_register && api->byte_array_new &&
         api->byte_array_free && api->array_free;
}

/* Does this QEMU give the program its environment in order, where QEMU
 * 7.2 gives it last variable first (auxv.c)? QEMU 10 does (API 2 on), and
 * so does 8.2, which is API 1 as 7.2 is but, unlike 7.2, names a vDSO in
 * the auxiliary vector (vdso: the vector has AT_SYSINFO_EHDR). */
static inline bool spmu_qemu_api_env_in_order(const struct spmu_qemu_api *api,
                                              bool vdso)
{
  return api->version >= 2 || vdso;
}

/* Can the plugin reset itself (qemu_plugin_reset) while the program
 * runs? Not under QEMU 8.2 (API 1 with a vDSO, as above), whose reset
 * leaves QEMU's plugin lock held (plugin_reset_destroy in its
 * plugins/loader.c locks it a second time where it means to unlock it),
 * so that the next guest thread to start or end waits for it for ever:
 * there the plugin counts by callbacks from the start, never inline. */
static inline bool spmu_qemu_api_can_reset(const struct spmu_qemu_api *api,
                                           bool vdso)
{
  return api->version >= 2 || !vdso;
}

/* Does QEMU hand the guest's mmaps without an address to the host kernel
 * (QEMU 8.1 on), so that the plugin must put them at 7.2's addresses
 * (layout.c)? Under API 2 on (QEMU 9 on), yes. API 1 is QEMU 7.2's, which
 * places them by its own hints, and 8.2's, which does not, and the two
 * cannot be told apart at install (the vDSO that tells them apart,
 * auxv.c, is mapped later): there layout.c goes by QEMU's guest base
 * (-B), which softpmu chooses for 8 on above QEMU's own mappings and for
 * 7.2 below them (perf/qemu_run.c). */
static inline bool spmu_qemu_api_host_places(const struct spmu_qemu_api *api)
{
  return api->version >= 2;
}

/* Up to len of insn's bytes into buf; how many. */
size_t spmu_qemu_insn_bytes(const struct spmu_qemu_api *api,
                            const struct qemu_plugin_insn *insn, void *buf,
                            size_t len);

#endif

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
  spmu_qemu_tb_exec_cond_cb_fn tb_exec_cond_cb; /* QEMU 9.1 on */
  /* API 3 on. */
  spmu_qemu_insn_data_v3_fn insn_data_v3;
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

/* Up to len of insn's bytes into buf; how many. */
size_t spmu_qemu_insn_bytes(const struct spmu_qemu_api *api,
                            const struct qemu_plugin_insn *insn, void *buf,
                            size_t len);

#endif

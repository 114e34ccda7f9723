/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The part of QEMU's TCG plugin API (API version 1, QEMU 7.2) that the
 * softpmu plugin uses, declared from QEMU's documentation of the calls
 * (docs/devel/tcg-plugins.rst and the API reference it generates). Debian
 * ships QEMU with plugin support but without this header. QEMU resolves
 * these symbols from its own executable when it loads the plugin. */
#ifndef SOFTPMU_QEMU_PLUGIN_API_H
#define SOFTPMU_QEMU_PLUGIN_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The API version this plugin is written for: QEMU refuses a plugin whose
 * exported qemu_plugin_version is outside [info.version.min, .cur]. */
#define SPMU_QEMU_PLUGIN_API 1

typedef uint64_t qemu_plugin_id_t;

/* What QEMU tells the plugin at install. */
typedef struct qemu_info_t {
  const char *target_name; /* "x86_64" */
  struct {
    int min; /* oldest API version QEMU still supports */
    int cur; /* the API version QEMU implements */
  } version;
  bool system_emulation; /* false under qemu-user */
  union {
    struct {
      int smp_vcpus;
      int max_vcpus;
    } system;
  };
} qemu_info_t;

struct qemu_plugin_tb;
struct qemu_plugin_insn;

/* Which guest registers a callback may touch (none here). */
enum qemu_plugin_cb_flags {
  QEMU_PLUGIN_CB_NO_REGS,
  QEMU_PLUGIN_CB_R_REGS,
  QEMU_PLUGIN_CB_RW_REGS,
};

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_simple_cb_t)(qemu_plugin_id_t id,
                                             unsigned int vcpu_index);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
                                            void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
                                               struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_syscall_cb_t)(
    qemu_plugin_id_t id, unsigned int vcpu_index, int64_t num, uint64_t a1,
    uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6,
    uint64_t a7, uint64_t a8);

/* Lifetime of guest threads (vCPUs) and of the process. */
void qemu_plugin_register_vcpu_init_cb(qemu_plugin_id_t id,
                                       qemu_plugin_vcpu_simple_cb_t cb);
void qemu_plugin_register_vcpu_exit_cb(qemu_plugin_id_t id,
                                       qemu_plugin_vcpu_simple_cb_t cb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
                                    qemu_plugin_udata_cb_t cb, void *userdata);
void qemu_plugin_register_vcpu_syscall_cb(qemu_plugin_id_t id,
                                          qemu_plugin_vcpu_syscall_cb_t cb);

/* Translation: a block's instructions, and a callback for each time the
 * translated block executes. */
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
                                           qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
                                          qemu_plugin_vcpu_udata_cb_t cb,
                                          enum qemu_plugin_cb_flags flags,
                                          void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *
qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
/* Inline operations: code QEMU emits into the translated block itself,
 * with no call (QEMU 7.2 has one: add imm to the 64-bit word at ptr; not
 * atomic). */
enum qemu_plugin_op {
  QEMU_PLUGIN_INLINE_ADD_U64,
};
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
                                              enum qemu_plugin_op op, void *ptr,
                                              uint64_t imm);

/* Remove every callback of the plugin and flush the translated code, then
 * call cb (asynchronously: callbacks may still arrive until then). */
typedef void (*qemu_plugin_simple_cb_t)(qemu_plugin_id_t id);
void qemu_plugin_reset(qemu_plugin_id_t id, qemu_plugin_simple_cb_t cb);

/* Memory callbacks: QEMU calls cb after each guest load or store of the
 * instruction it was registered on, with the access's virtual address
 * and a description (size as a power of two, store or load). */
typedef uint32_t qemu_plugin_meminfo_t;
enum qemu_plugin_mem_rw {
  QEMU_PLUGIN_MEM_R = 1,
  QEMU_PLUGIN_MEM_W,
  QEMU_PLUGIN_MEM_RW,
};
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index,
                                          qemu_plugin_meminfo_t info,
                                          uint64_t vaddr, void *userdata);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn,
                                      qemu_plugin_vcpu_mem_cb_t cb,
                                      enum qemu_plugin_cb_flags flags,
                                      enum qemu_plugin_mem_rw rw,
                                      void *userdata);
unsigned int qemu_plugin_mem_size_shift(qemu_plugin_meminfo_t info);
bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t info);

const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);

#endif

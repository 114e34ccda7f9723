/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The part of QEMU's TCG plugin API that the softpmu plugin uses, API
 * versions 1 (QEMU 7.2) to 4 (QEMU 10), declared from QEMU's
 * documentation of the calls (docs/devel/tcg-plugins.rst and the API
 * reference it generates). Debian ships QEMU with plugin support but
 * without this header. QEMU resolves the calls every version has from its
 * own executable when it loads the plugin (immediate binding); the calls
 * one version has and another lacks, or has with another signature, are
 * only types here, looked up at load by api.c. */
#ifndef SOFTPMU_QEMU_PLUGIN_API_H
#define SOFTPMU_QEMU_PLUGIN_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The API versions this plugin runs on: QEMU refuses a plugin whose
 * exported qemu_plugin_version is outside [info.version.min, .cur]; api.c
 * sets it at load from the QEMU that loads the plugin. The newest is
 * SPMU_QEMU_PLUGIN_API (stat -v's default). */
#define SPMU_QEMU_PLUGIN_API_MIN 1
#define SPMU_QEMU_PLUGIN_API 4

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

/* Which guest registers a callback may touch: R_REGS to read them
 * (auxv.c, regs.c). */
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
typedef void (*qemu_plugin_vcpu_syscall_ret_cb_t)(qemu_plugin_id_t id,
                                                  unsigned int vcpu_index,
                                                  int64_t num, int64_t ret);

/* Lifetime of guest threads (vCPUs) and of the process. */
void qemu_plugin_register_vcpu_init_cb(qemu_plugin_id_t id,
                                       qemu_plugin_vcpu_simple_cb_t cb);
void qemu_plugin_register_vcpu_exit_cb(qemu_plugin_id_t id,
                                       qemu_plugin_vcpu_simple_cb_t cb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
                                    qemu_plugin_udata_cb_t cb, void *userdata);
void qemu_plugin_register_vcpu_syscall_cb(qemu_plugin_id_t id,
                                          qemu_plugin_vcpu_syscall_cb_t cb);
void qemu_plugin_register_vcpu_syscall_ret_cb(
    qemu_plugin_id_t id, qemu_plugin_vcpu_syscall_ret_cb_t cb);

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
 * with no call. API 1 adds imm to the 64-bit word at ptr (not atomic,
 * one word for every vCPU); API 2 on, to a scoreboard's entry, one per
 * vCPU, or stores imm there. */
enum qemu_plugin_op {
  QEMU_PLUGIN_INLINE_ADD_U64,
  QEMU_PLUGIN_INLINE_STORE_U64, /* API 2 on */
};
typedef void (*spmu_qemu_tb_exec_inline_v1_fn)(struct qemu_plugin_tb *tb,
                                               enum qemu_plugin_op op,
                                               void *ptr, uint64_t imm);

/* API 2 on: a scoreboard holds one element of a given size per vCPU, in
 * memory QEMU owns (it moves when vCPUs are added); a qemu_plugin_u64
 * names the 64-bit word at offset in each element. */
struct qemu_plugin_scoreboard;
typedef struct {
  struct qemu_plugin_scoreboard *score;
  size_t offset;
} qemu_plugin_u64;
typedef struct qemu_plugin_scoreboard *(*spmu_qemu_scoreboard_new_fn)(
    size_t element_size);
typedef void (*spmu_qemu_scoreboard_free_fn)(
    struct qemu_plugin_scoreboard *score);
typedef uint64_t (*spmu_qemu_u64_get_fn)(qemu_plugin_u64 entry,
                                         unsigned int vcpu_index);
typedef void (*spmu_qemu_u64_set_fn)(qemu_plugin_u64 entry,
                                     unsigned int vcpu_index, uint64_t val);
typedef void (*spmu_qemu_tb_exec_inline_fn)(struct qemu_plugin_tb *tb,
                                            enum qemu_plugin_op op,
                                            qemu_plugin_u64 entry,
                                            uint64_t imm);
typedef void (*spmu_qemu_insn_exec_inline_fn)(struct qemu_plugin_insn *insn,
                                              enum qemu_plugin_op op,
                                              qemu_plugin_u64 entry,
                                              uint64_t imm);

/* API 2 on (QEMU 9.1 on): a callback run only when a scoreboard word
 * compares with an immediate as cond says, tested in the generated code. */
enum qemu_plugin_cond {
  QEMU_PLUGIN_COND_NEVER,
  QEMU_PLUGIN_COND_ALWAYS,
  QEMU_PLUGIN_COND_EQ,
  QEMU_PLUGIN_COND_NE,
  QEMU_PLUGIN_COND_LT,
  QEMU_PLUGIN_COND_LE,
  QEMU_PLUGIN_COND_GT,
  QEMU_PLUGIN_COND_GE,
};
typedef void (*spmu_qemu_tb_exec_cond_cb_fn)(struct qemu_plugin_tb *tb,
                                             qemu_plugin_vcpu_udata_cb_t cb,
                                             enum qemu_plugin_cb_flags flags,
                                             enum qemu_plugin_cond cond,
                                             qemu_plugin_u64 entry,
                                             uint64_t imm, void *userdata);

/* API 2 on (QEMU 9.1 on): the same for one instruction, before it runs. */
typedef void (*spmu_qemu_insn_exec_cond_cb_fn)(struct qemu_plugin_insn *insn,
                                               qemu_plugin_vcpu_udata_cb_t cb,
                                               enum qemu_plugin_cb_flags flags,
                                               enum qemu_plugin_cond cond,
                                               qemu_plugin_u64 entry,
                                               uint64_t imm, void *userdata);

/* API 2 on: the guest's registers, read in a callback registered with
 * QEMU_PLUGIN_CB_R_REGS. The list and the buffer are GLib arrays
 * (GArray of qemu_plugin_reg_descriptor, GByteArray), declared here by
 * their public layout, as the plugin does not use GLib. */
struct qemu_plugin_register;
typedef struct {
  struct qemu_plugin_register *handle;
  const char *name;
  const char *feature;
} qemu_plugin_reg_descriptor;
struct spmu_glib_array {
  char *data;
  unsigned len;
};
struct spmu_glib_bytes {
  uint8_t *data;
  unsigned len;
};
typedef struct spmu_glib_array *(*spmu_qemu_get_registers_fn)(void);
typedef int (*spmu_qemu_read_register_fn)(struct qemu_plugin_register *handle,
                                          struct spmu_glib_bytes *buf);
/* API 4 on: len bytes of guest memory at a guest virtual address into
 * buf (resized to len); false where the guest has nothing mapped. */
typedef bool (*spmu_qemu_read_memory_vaddr_fn)(uint64_t addr,
                                               struct spmu_glib_bytes *buf,
                                               size_t len);
/* GLib's own calls for those arrays (QEMU links GLib; the plugin finds
 * them in the process, as the calls above). */
typedef struct spmu_glib_bytes *(*spmu_glib_byte_array_new_fn)(void);
typedef uint8_t *(*spmu_glib_byte_array_free_fn)(struct spmu_glib_bytes *a,
                                                 int free_segment);
typedef char *(*spmu_glib_array_free_fn)(struct spmu_glib_array *a,
                                         int free_segment);

/* The host address of an instruction's first byte, asked while its block
 * is translated (every version; NULL when QEMU has none). */
typedef void *(*spmu_qemu_insn_haddr_fn)(const struct qemu_plugin_insn *insn);

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

/* An instruction's bytes: API 1 and 2 return a pointer to them, API 3 on
 * copy up to len of them into dest and return how many (one name, two
 * signatures: api.c calls the one QEMU has). */
typedef const void *(*spmu_qemu_insn_data_v1_fn)(
    const struct qemu_plugin_insn *insn);
typedef size_t (*spmu_qemu_insn_data_v3_fn)(const struct qemu_plugin_insn *insn,
                                            void *dest, size_t len);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);

#endif

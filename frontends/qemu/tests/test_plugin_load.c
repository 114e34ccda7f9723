/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The plugin's checks at install, run by loading it as QEMU does (dlopen,
 * then qemu_plugin_install) with made-up QEMU descriptions. Only refusals
 * are exercised: an accepted install registers callbacks with QEMU, which
 * this test is not. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "qemu_plugin_api.h" /* frontends/qemu/ */

typedef int (*install_fn)(qemu_plugin_id_t, const qemu_info_t *, int, char **);

/* QEMU's side of the API, which the plugin imports. A plugin linked with
 * -z now (Debian's hardening flags) binds every import when it is loaded,
 * RTLD_LAZY or not, so this program exports them all (ENABLE_EXPORTS);
 * a refused install calls none of them. */
static void not_called(void)
{
  fputs("test_plugin_load: the plugin called QEMU\n", stderr);
  abort();
}

void qemu_plugin_register_vcpu_init_cb(qemu_plugin_id_t id,
                                       qemu_plugin_vcpu_simple_cb_t cb)
{
  (void)id, (void)cb, not_called();
}

void qemu_plugin_register_vcpu_exit_cb(qemu_plugin_id_t id,
                                       qemu_plugin_vcpu_simple_cb_t cb)
{
  (void)id, (void)cb, not_called();
}

void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
                                    qemu_plugin_udata_cb_t cb, void *userdata)
{
  (void)id, (void)cb, (void)userdata, not_called();
}

void qemu_plugin_register_vcpu_syscall_cb(qemu_plugin_id_t id,
                                          qemu_plugin_vcpu_syscall_cb_t cb)
{
  (void)id, (void)cb, not_called();
}

void qemu_plugin_register_vcpu_syscall_ret_cb(
    qemu_plugin_id_t id, qemu_plugin_vcpu_syscall_ret_cb_t cb)
{
  (void)id, (void)cb, not_called();
}

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
                                           qemu_plugin_vcpu_tb_trans_cb_t cb)
{
  (void)id, (void)cb, not_called();
}

void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
                                          qemu_plugin_vcpu_udata_cb_t cb,
                                          enum qemu_plugin_cb_flags flags,
                                          void *userdata)
{
  (void)tb, (void)cb, (void)flags, (void)userdata, not_called();
}

size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb)
{
  (void)tb, not_called();
  return 0;
}

uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb)
{
  (void)tb, not_called();
  return 0;
}

struct qemu_plugin_insn *
qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx)
{
  (void)tb, (void)idx, not_called();
  return NULL;
}

void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
                                              enum qemu_plugin_op op, void *ptr,
                                              uint64_t imm)
{
  (void)tb, (void)op, (void)ptr, (void)imm, not_called();
}

void qemu_plugin_reset(qemu_plugin_id_t id, qemu_plugin_simple_cb_t cb)
{
  (void)id, (void)cb, not_called();
}

void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn,
                                      qemu_plugin_vcpu_mem_cb_t cb,
                                      enum qemu_plugin_cb_flags flags,
                                      enum qemu_plugin_mem_rw rw,
                                      void *userdata)
{
  (void)insn, (void)cb, (void)flags, (void)rw, (void)userdata, not_called();
}

unsigned int qemu_plugin_mem_size_shift(qemu_plugin_meminfo_t info)
{
  (void)info, not_called();
  return 0;
}

bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t info)
{
  (void)info, not_called();
  return false;
}

const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn)
{
  (void)insn, not_called();
  return NULL;
}

size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn)
{
  (void)insn, not_called();
  return 0;
}

uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn)
{
  (void)insn, not_called();
  return 0;
}

static void *handle;
static install_fn install;

static int load(void **state)
{
  (void)state;
  handle = dlopen(SPMU_QEMU_PLUGIN_PATH, RTLD_LAZY | RTLD_LOCAL);
  if (!handle) {
    fprintf(stderr, "%s\n", dlerror());
    return -1;
  }
  install = (install_fn)(uintptr_t)dlsym(handle, "qemu_plugin_install");
  return install ? 0 : -1;
}

static int unload(void **state)
{
  (void)state;
  dlclose(handle);
  return 0;
}

/* QEMU 7.2: API version 1, user mode, x86-64. */
static qemu_info_t qemu72(void)
{
  qemu_info_t info = {.target_name = "x86_64"};

  info.version.min = 1;
  info.version.cur = 1;
  return info;
}

static int try_install(const qemu_info_t *info, char *a0, char *a1, char *a2)
{
  char *argv[] = {a0, a1, a2};

  return install(0, info, a2 ? 3 : a1 ? 2 : 1, argv);
}

/* The plugin states the API version it is written for. */
static void test_exports_api_version_1(void **state)
{
  const int *v = dlsym(handle, "qemu_plugin_version");

  (void)state;
  assert_non_null(v);
  assert_int_equal(*v, 1);
}

/* Another API version than 1 (a QEMU that dropped it, or older than it)
 * is refused. */
static void test_refuses_other_api_versions(void **state)
{
  qemu_info_t info = qemu72();

  (void)state;
  info.version.min = 2;
  info.version.cur = 3;
  assert_int_equal(try_install(&info, "out=/dev/null", "event=4300c0", NULL),
                   -1);
  info.version.min = 0;
  info.version.cur = 0;
  assert_int_equal(try_install(&info, "out=/dev/null", "event=4300c0", NULL),
                   -1);
}

/* System emulation and other guest architectures are refused. */
static void test_refuses_other_targets(void **state)
{
  qemu_info_t info = qemu72();

  (void)state;
  info.target_name = "aarch64";
  assert_int_equal(try_install(&info, "out=/dev/null", "event=4300c0", NULL),
                   -1);
  info = qemu72();
  info.system_emulation = true;
  assert_int_equal(try_install(&info, "out=/dev/null", "event=4300c0", NULL),
                   -1);
}

/* CMASK, INV and edge detect (SDM Vol. 3B 18.2.1.1) would apply per block
 * here, not per cycle: refused. */
static void test_refuses_cmask_inv_edge(void **state)
{
  qemu_info_t info = qemu72();

  (void)state;
  assert_int_equal(try_install(&info, "out=/dev/null", "event=14300c0", NULL),
                   -1);
  assert_int_equal(try_install(&info, "out=/dev/null", "event=c300c0", NULL),
                   -1);
  assert_int_equal(try_install(&info, "out=/dev/null", "event=4700c0", NULL),
                   -1);
}

/* Bad arguments: no USR/OS bit, not hex, no event, no out=, an unknown
 * key, an unknown profile. */
static void test_refuses_bad_arguments(void **state)
{
  qemu_info_t info = qemu72();

  (void)state;
  assert_int_equal(try_install(&info, "out=/dev/null", "event=4000c0", NULL),
                   -1);
  assert_int_equal(try_install(&info, "out=/dev/null", "event=xyz", NULL), -1);
  assert_int_equal(try_install(&info, "out=/dev/null", NULL, NULL), -1);
  assert_int_equal(try_install(&info, "event=4300c0", NULL, NULL), -1);
  assert_int_equal(
      try_install(&info, "out=/dev/null", "event=4300c0", "colour=blue"), -1);
  assert_int_equal(
      try_install(&info, "profile=nosuchcpu", "out=/dev/null", "event=4300c0"),
      -1);
}

/* regs=1 (the PEBS records' registers) needs register reads and
 * conditional instruction callbacks, which API 1 (QEMU 7.2) lacks:
 * refused at install. */
static void test_refuses_regs_on_api_1(void **state)
{
  qemu_info_t info = qemu72();
  char *argv[] = {"record=/dev/null", "period=1009", "event=4300c0",
                  "precise=1", "regs=1"};

  (void)state;
  assert_int_equal(install(0, &info, 5, argv), -1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_exports_api_version_1),
      cmocka_unit_test(test_refuses_other_api_versions),
      cmocka_unit_test(test_refuses_other_targets),
      cmocka_unit_test(test_refuses_cmask_inv_edge),
      cmocka_unit_test(test_refuses_bad_arguments),
      cmocka_unit_test(test_refuses_regs_on_api_1),
  };

  return cmocka_run_group_tests(tests, load, unload);
}

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

#include <cmocka.h>

#include "../qemu_plugin_api.h"

typedef int (*install_fn)(qemu_plugin_id_t, const qemu_info_t *, int, char **);

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

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_exports_api_version_1),
      cmocka_unit_test(test_refuses_other_api_versions),
      cmocka_unit_test(test_refuses_other_targets),
      cmocka_unit_test(test_refuses_cmask_inv_edge),
      cmocka_unit_test(test_refuses_bad_arguments),
  };

  return cmocka_run_group_tests(tests, load, unload);
}

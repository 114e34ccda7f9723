/* SPDX-License-Identifier: MIT */
/* The version is set once, by project() in CMakeLists.txt: version.h is
 * generated from it, and the build passes the same number to this test as
 * SPMU_PROJECT_VERSION (as it does to softpmu.pc, softpmu-agent.pc and
 * softpmuConfigVersion.cmake, which tests/check_install.sh compares). */
#include "helpers.h"

#include <stdlib.h>

/* The generated header's numbers are the build system's version. */
static void test_header_is_project_version(void **state)
{
  char text[32];

  (void)state;
  snprintf(text, sizeof text, "%d.%d.%d", SPMU_VERSION_MAJOR,
           SPMU_VERSION_MINOR, SPMU_VERSION_PATCH);
  assert_string_equal(text, SPMU_PROJECT_VERSION);
  assert_string_equal(SPMU_VERSION_STRING, SPMU_PROJECT_VERSION);
}

/* The library linked answers the build system's version, as a string and
 * as 0xMMmmpp. */
static void test_library_is_project_version(void **state)
{
  const char *v = SPMU_PROJECT_VERSION;
  char *end;
  unsigned long major, minor, patch;

  (void)state;
  assert_string_equal(spmu_version_string(), SPMU_PROJECT_VERSION);
  major = strtoul(v, &end, 10);
  assert_int_equal(*end, '.');
  minor = strtoul(end + 1, &end, 10);
  assert_int_equal(*end, '.');
  patch = strtoul(end + 1, &end, 10);
  assert_int_equal(*end, '\0');
  assert_int_equal(spmu_version(), major << 16 | minor << 8 | patch);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_header_is_project_version),
      cmocka_unit_test(test_library_is_project_version),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

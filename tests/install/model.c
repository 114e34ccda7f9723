/* SPDX-License-Identifier: MIT */
/* A program built against an installed libsoftpmu (the model alone):
 * checks the version it was compiled against is the library's and the
 * one its build system found (argv[1]), then one guest access.
 *   consumer_model VERSION */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <softpmu/softpmu.h>

int main(int argc, char **argv)
{
  spmu_profile prof;
  spmu_core *core;
  uint64_t v = 0;
  char why[256];

  if (argc != 2 || strcmp(argv[1], SPMU_VERSION_STRING) != 0 ||
      strcmp(spmu_version_string(), SPMU_VERSION_STRING) != 0 ||
      spmu_version() != SPMU_VERSION_HEX) {
    fprintf(stderr, "version: header %s, library %s, build system %s\n",
            SPMU_VERSION_STRING, spmu_version_string(),
            argc > 1 ? argv[1] : "?");
    return 1;
  }
  if (spmu_profile_parse("skylake", &prof, why, sizeof why) != SPMU_OK ||
      spmu_core_new(&prof, &core) != SPMU_OK) {
    fprintf(stderr, "skylake: %s\n", why);
    return 1;
  }
  /* SDM 18.2.5: a write to IA32_PMC0 (0C1H) sets bits 31:0 and
   * sign-extends bit 31 to the counter's width (48 bits on Skylake). */
  if (spmu_wrmsr(spmu_core_lp(core, 0), 0xC1, 0x80000000) != SPMU_OK ||
      spmu_rdmsr(spmu_core_lp(core, 0), 0xC1, &v) != SPMU_OK ||
      v != UINT64_C(0xFFFF80000000)) {
    fprintf(stderr, "IA32_PMC0 = %#" PRIx64 "\n", v);
    return 1;
  }
  spmu_core_free(core);
  printf("model %s: IA32_PMC0 = %#" PRIx64 "\n", spmu_version_string(), v);
  return 0;
}

/* SPDX-License-Identifier: MIT */
/* bench_msr: cost of the guest MSR path (WRMSR/RDMSR/RDPMC) on one core,
 * and of register lookups (regs.h) with and without an spmu_regview.
 * Prints nanoseconds per call; run by hand or `cmake --build build --target
 * bench`. Not a test: no thresholds. */
#include "bench.h"

#include <inttypes.h>
#include <stdio.h>

#include <softpmu/softpmu.h>

#define N 20000000u
#define NQ 200000u

int main(void)
{
  spmu_profile p;
  spmu_core *core;
  spmu_lp *lp;
  uint64_t v, sink = 0;
  unsigned i;
  double t;

  spmu_profile_parse("skylake", &p, NULL, 0);
  if (spmu_core_new(&p, &core) != SPMU_OK)
    return 1;
  lp = spmu_core_lp(core, 0);

  t = bench_now();
  for (i = 0; i < N; i++)
    sink += (unsigned)spmu_wrmsr(lp, 0x186 + (i & 3), 0x4300c0 | (i & 0xff00));
  printf("wrmsr IA32_PERFEVTSELx     %6.2f ns/call\n",
         (bench_now() - t) * 1e9 / N);

  t = bench_now();
  for (i = 0; i < N; i++)
    sink += (unsigned)spmu_wrmsr(lp, 0xC1 + (i & 3), i);
  printf("wrmsr IA32_PMCx (sign-ext) %6.2f ns/call\n",
         (bench_now() - t) * 1e9 / N);

  t = bench_now();
  for (i = 0; i < N; i++) {
    spmu_rdmsr(lp, 0x38E + (i & 1), &v);
    sink += v;
  }
  printf("rdmsr GLOBAL_STATUS/CTRL   %6.2f ns/call\n",
         (bench_now() - t) * 1e9 / N);

  t = bench_now();
  for (i = 0; i < N; i++) {
    spmu_rdmsr(lp, 0x392, &v);
    sink += v;
  }
  printf("rdmsr GLOBAL_INUSE (live)  %6.2f ns/call\n",
         (bench_now() - t) * 1e9 / N);

  t = bench_now();
  for (i = 0; i < N; i++) {
    spmu_rdpmc(lp, i & 3, 0, false, &v);
    sink += v;
  }
  printf("rdpmc GP counter           %6.2f ns/call\n",
         (bench_now() - t) * 1e9 / N);

  printf("(%u calls each; checksum %" PRIu64 ")\n", N, sink);

  /* Register lookups (regs.h): a field decode through the profile, which
   * applies it for each call, and through an spmu_regview, which applied
   * it once. */
  {
    spmu_regview *r;
    if (spmu_regview_new(&p, &r) != SPMU_OK)
      return 1;
    t = bench_now();
    for (i = 0; i < NQ; i++) {
      spmu_msr_field_decode(&p, 0x186, "EN", i, &v);
      sink += v;
    }
    printf("field decode, profile      %8.1f ns/call\n",
           (bench_now() - t) * 1e9 / NQ);
    t = bench_now();
    for (i = 0; i < NQ; i++) {
      spmu_regview_field_decode(r, 0x186, "EN", i, &v);
      sink += v;
    }
    printf("field decode, regview      %8.1f ns/call\n",
           (bench_now() - t) * 1e9 / NQ);
    t = bench_now();
    for (i = 0; i < NQ; i++) {
      spmu_msr_info info;
      spmu_regview_info(r, 0x186, &info);
      sink += info.nfields;
    }
    printf("msr info, regview          %8.1f ns/call\n",
           (bench_now() - t) * 1e9 / NQ);
    spmu_regview_free(r);
    t = bench_now();
    for (i = 0; i < NQ; i++) {
      spmu_regview_new(&p, &r);
      spmu_regview_free(r);
    }
    printf("apply (regview new + free) %8.1f ns/call\n",
           (bench_now() - t) * 1e9 / NQ);
    printf("(%u lookups each; checksum %" PRIu64 ")\n", NQ, sink);
  }
  spmu_core_free(core);
  return 0;
}

/* bench_count: cost of event delivery (spmu_deliver) against the floor of
 * a software PMU (a bare loop adding increments into 12 counters), and the
 * cost of batched delivery for K = 1 and K = 10^9 clocks. Prints figures;
 * no thresholds. Run: cmake --build build --target bench */
#include "bench.h"

#include <inttypes.h>
#include <stdio.h>

#include <softpmu/softpmu.h>

#define N 5000000u

/* The four lines the fixed counters count (events.h), programmed on the GP
 * counters too, so that every enabled counter matches a line. */
static const spmu_event_line lines[4] = {
  {0xC0, 0x00, 3}, {0x3C, 0x00, 1}, {0x00, 0x03, 1}, {0x00, 0x04, 4}};

static spmu_core *setup(unsigned gp, unsigned fixed, spmu_lp **lp)
{
  spmu_profile p;
  spmu_core *core;
  unsigned i;
  uint64_t ctrl = 0, fctl = 0;

  spmu_profile_parse("icelake", &p, NULL, 0);
  spmu_core_new(&p, &core);
  *lp = spmu_core_lp(core, 0);
  for (i = 0; i < gp; i++) {
    spmu_wrmsr(*lp, 0x186 + i, 0x430000 | lines[i % 4].event |
                                   (uint64_t)lines[i % 4].umask << 8);
    ctrl |= 1ULL << i;
  }
  for (i = 0; i < fixed; i++) {
    fctl |= 3ULL << (4 * i);
    ctrl |= 1ULL << (32 + i);
  }
  spmu_wrmsr(*lp, 0x38D, fctl);
  spmu_wrmsr(*lp, 0x38F, ctrl);
  return core;
}

static double per_clock(unsigned gp, unsigned fixed)
{
  spmu_lp *lp;
  spmu_core *core = setup(gp, fixed, &lp);
  spmu_clock clk = {.lines = lines, .nlines = 4, .cpl = 3};
  uint64_t used;
  unsigned i;
  double t = bench_now();
  for (i = 0; i < N; i++)
    spmu_deliver(lp, &clk, 1, &used);
  t = (bench_now() - t) * 1e9 / N;
  spmu_core_free(core);
  return t;
}

/* The floor: 12 counters, each adding its line's increment every clock. */
static double floor_per_clock(void)
{
  volatile uint32_t inc[4] = {3, 1, 1, 4};
  uint64_t ctr[12] = {0}, sum = 0;
  unsigned i, c;
  double t = bench_now();
  for (i = 0; i < N; i++)
    for (c = 0; c < 12; c++)
      ctr[c] += inc[c & 3];
  t = (bench_now() - t) * 1e9 / N;
  for (c = 0; c < 12; c++)
    sum += ctr[c];
  if (sum == 42)
    printf(" ");
  return t;
}

static double batch(uint64_t k)
{
  spmu_lp *lp;
  spmu_core *core = setup(8, 4, &lp);
  spmu_clock clk = {.lines = lines, .nlines = 4, .cpl = 3};
  uint64_t used;
  unsigned i, reps = 1000000;
  double t = bench_now();
  for (i = 0; i < reps; i++)
    spmu_deliver(lp, &clk, k, &used);
  t = (bench_now() - t) * 1e9 / reps;
  spmu_core_free(core);
  return t;
}

int main(void)
{
  double f = floor_per_clock();
  double c1 = per_clock(1, 0), c4 = per_clock(4, 0), c12 = per_clock(8, 4);
  double b1 = batch(1), b9 = batch(1000000000ULL);

  printf("deliver 1 clock, 4 lines, 1 counter enabled    %6.2f ns\n", c1);
  printf("deliver 1 clock, 4 lines, 4 counters enabled   %6.2f ns\n", c4);
  printf("deliver 1 clock, 4 lines, 12 counters enabled  %6.2f ns\n", c12);
  printf("floor: bare loop, 12 counters                  %6.2f ns\n", f);
  printf("ratio model/floor, 12 counters                 %6.2f\n", c12 / f);
  printf("batched delivery, K = 1                        %6.2f ns\n", b1);
  printf("batched delivery, K = 10^9                     %6.2f ns\n", b9);
  printf("ratio K=10^9 / K=1                             %6.2f\n", b9 / b1);
  return 0;
}

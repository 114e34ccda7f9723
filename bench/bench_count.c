/* SPDX-License-Identifier: MIT */
/* bench_count: cost of event delivery (spmu_deliver) against the floor of
 * a software PMU (a bare loop adding each clock's increments into the same
 * number of uint64_t counters), and the cost of batched delivery for
 * K = 1 and K = 10^9 clocks. Each figure is the best of five runs, to keep
 * a shared machine's noise out. Prints figures; no thresholds.
 * Run: cmake --build build --target bench */
#include "bench.h"

#include <inttypes.h>
#include <stdio.h>

#include <softpmu/softpmu.h>

#define N 5000000u
#define RUNS 5

/* The lines the fixed counters count (events.h): instructions, core
 * cycles, reference cycles, slots. */
static const spmu_event_line lines[4] = {
    {0xC0, 0x00, 3}, {0x3C, 0x00, 1}, {0x00, 0x03, 1}, {0x00, 0x04, 4}};

/* With general set, PMC0 has CMASK = 1: the clock takes the engine's
 * general path instead of the plain one (src/arch/count.c). */
static int general;

/* A core (icelake preset: 8 GP + 4 fixed counters) with gp GP counters
 * counting line (i % nlines) at every CPL, and `fixed` fixed counters. */
static spmu_core *setup(unsigned gp, unsigned fixed, unsigned nlines,
                        spmu_lp **lp)
{
  spmu_profile p;
  spmu_core *core;
  unsigned i;
  uint64_t ctrl = 0, fctl = 0;

  spmu_profile_parse("icelake", &p, NULL, 0);
  spmu_core_new(&p, &core);
  *lp = spmu_core_lp(core, 0);
  for (i = 0; i < gp; i++) {
    const spmu_event_line *l = &lines[i % nlines];
    uint64_t cmask = general && i == 0 ? UINT64_C(1) << 24 : 0;
    spmu_wrmsr(*lp, 0x186 + i,
               0x430000 | cmask | l->event | (uint64_t)l->umask << 8);
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

static double best(double a, double b)
{
  return a < b ? a : b;
}

/* ns per spmu_deliver of `k` clocks. */
static double deliver_ns(unsigned gp, unsigned fixed, unsigned nlines,
                         uint64_t k, unsigned reps)
{
  double t_best = 1e30;
  unsigned r, i;

  for (r = 0; r < RUNS; r++) {
    spmu_lp *lp;
    spmu_core *core = setup(gp, fixed, nlines, &lp);
    spmu_clock clk = {.lines = lines, .nlines = nlines, .cpl = 3};
    uint64_t used;
    double t = bench_now();
    for (i = 0; i < reps; i++)
      spmu_deliver(lp, &clk, k, &used);
    t_best = best(t_best, (bench_now() - t) * 1e9 / reps);
    spmu_core_free(core);
  }
  return t_best;
}

/* The floor: n counters, counter c adding the increment of line
 * (c % nlines) every clock. The increments are read through volatile so
 * the compiler cannot fold the loop. */
static double floor_ns(unsigned n, unsigned nlines)
{
  volatile uint32_t inc[4] = {3, 1, 1, 4};
  unsigned line_of[12];
  double t_best = 1e30;
  unsigned r, i, c;

  for (c = 0; c < 12; c++)
    line_of[c] = c % nlines;
  for (r = 0; r < RUNS; r++) {
    uint64_t ctr[12] = {0}, sum = 0;
    double t = bench_now();
    for (i = 0; i < N; i++)
      for (c = 0; c < n; c++)
        ctr[c] += inc[line_of[c]];
    t_best = best(t_best, (bench_now() - t) * 1e9 / N);
    for (c = 0; c < n; c++)
      sum += ctr[c];
    if (sum == 42)
      printf(" ");
  }
  return t_best;
}

static void row(const char *what, unsigned gp, unsigned fixed, unsigned nlines)
{
  double m = deliver_ns(gp, fixed, nlines, 1, N);
  double f = floor_ns(gp + fixed, nlines);
  printf("%-44s %7.2f ns   floor %6.2f ns   ratio %5.2f\n", what, m, f, m / f);
}

int main(void)
{
  double b1, b9;

  printf("spmu_deliver, one clock (best of %d runs of %u)\n", RUNS, N);
  row("1 line, 1 GP counter", 1, 0, 1);
  row("1 line, 4 GP counters", 4, 0, 1);
  row("1 line, 8 GP counters", 8, 0, 1);
  row("4 lines, 12 counters (8 GP + 4 fixed)", 8, 4, 4);
  general = 1;
  row("same, PMC0 with CMASK=1 (general path)", 8, 4, 4);
  general = 0;
  b1 = deliver_ns(8, 4, 4, 1, 1000000);
  b9 = deliver_ns(8, 4, 4, 1000000000ULL, 1000000);
  printf("batched, 12 counters, K = 1                 %7.2f ns\n", b1);
  printf("batched, 12 counters, K = 10^9              %7.2f ns\n", b9);
  printf("ratio K=10^9 / K=1                          %7.2f\n", b9 / b1);
  return 0;
}

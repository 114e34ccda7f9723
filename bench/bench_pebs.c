/* SPDX-License-Identifier: MIT */
/* bench_pebs: what PEBS costs. (1) A counting clock with PEBS enabled on
 * every counter but not armed, against the same clock with PEBS off.
 * (2) A PEBS assist: format 3 (Skylake) and adaptive with every group and
 * 32 LBR entries (Ice Lake). The host memory here keeps the PEBS index at
 * the base (as a host that drains every record would), so the buffer
 * never fills. Best of five runs; prints figures, no thresholds.
 * Run: cmake --build build --target bench */
#include "bench.h"

#include <stdio.h>
#include <string.h>

#include <softpmu/softpmu.h>

#define N 2000000u
#define RUNS 5
#define DS 0x10000u
#define BUF 0x20000u
#define W48 ((UINT64_C(1) << 48) - 1)

static uint8_t ds[0x100];
static uint8_t buf[4096];

static int rd_mem(void *o, spmu_lp *l, uint64_t la, void *p, size_t len)
{
  (void)o;
  (void)l;
  if (la >= DS && la + len <= DS + sizeof ds) {
    memcpy(p, ds + (la - DS), len);
    return 0;
  }
  return -1;
}

static int wr_mem(void *o, spmu_lp *l, uint64_t la, const void *p, size_t len)
{
  (void)o;
  (void)l;
  if (la >= BUF && la + len <= BUF + sizeof buf) {
    memcpy(buf + (la - BUF), p, len);
    return 0;
  }
  return la == DS + 0x28 ? 0 : -1; /* the index write: kept at the base */
}

static void put64(uint8_t *p, uint64_t v)
{
  unsigned i;
  for (i = 0; i < 8; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

static spmu_core *make(const char *cpu, spmu_lp **lp)
{
  spmu_profile p;
  spmu_core *core;
  spmu_host h = {.read_mem = rd_mem, .write_mem = wr_mem};
  spmu_profile_parse(cpu, &p, NULL, 0);
  spmu_core_new(&p, &core);
  spmu_core_set_host(core, &h);
  *lp = spmu_core_lp(core, 0);
  put64(ds + 0x20, BUF);
  put64(ds + 0x28, BUF);
  put64(ds + 0x30, BUF + sizeof buf);
  put64(ds + 0x38, BUF + sizeof buf); /* no threshold PMI */
  put64(ds + 0x40, W48);              /* PMC0 reset: wraps on the next event */
  spmu_wrmsr(*lp, 0x600, DS);
  return core;
}

/* ns per clock with 8 GP + 4 fixed counters, PEBS on all of them or off. */
static double clock_ns(bool pebs)
{
  double t_best = 1e30;
  unsigned r, i;
  for (r = 0; r < RUNS; r++) {
    spmu_event_line line = {0xC0, 0x00, 1};
    spmu_clock clk = {.lines = &line, .nlines = 1, .cpl = 3};
    spmu_lp *lp;
    spmu_core *core = make("icelake", &lp);
    double t;
    for (i = 0; i < 8; i++)
      spmu_wrmsr(lp, 0x186 + i, 0x4300C0);
    spmu_wrmsr(lp, 0x38D, 0x3333);
    spmu_wrmsr(lp, 0x3F1, pebs ? 0xF000000FFULL : 0);
    spmu_wrmsr(lp, 0x38F, 0xF000000FFULL);
    t = bench_now();
    for (i = 0; i < N; i++)
      spmu_deliver(lp, &clk, 1, NULL);
    t = (bench_now() - t) * 1e9 / N;
    if (t < t_best)
      t_best = t;
    spmu_core_free(core);
  }
  return t_best;
}

/* ns per assist: PMC0 reloads to all ones, so every second clock wraps and
 * the next one assists; the cost of the two clocks without an assist is
 * subtracted. */
static double assist_ns(const char *cpu, uint64_t evtsel, uint64_t data_cfg)
{
  double t_best = 1e30;
  unsigned r, i;
  for (r = 0; r < RUNS; r++) {
    spmu_event_line line = {0xC0, 0x00, 1};
    spmu_clock clk = {.lines = &line, .nlines = 1, .cpl = 3};
    spmu_lp *lp;
    spmu_core *core = make(cpu, &lp);
    double t, base;
    spmu_wrmsr(lp, 0x186, evtsel);
    spmu_wrmsr(lp, 0x38F, 1);
    base = bench_now();
    for (i = 0; i < N; i++)
      spmu_deliver(lp, &clk, 1, NULL);
    base = (bench_now() - base) * 1e9 / N;
    if (data_cfg)
      spmu_wrmsr(lp, 0x3F2, data_cfg);
    spmu_wrmsr(lp, 0x3F1, 1);
    spmu_host_wrmsr(lp, 0xC1, W48);
    t = bench_now();
    for (i = 0; i < N; i++)
      spmu_deliver(lp, &clk, 1, NULL);
    t = (bench_now() - t) * 1e9 / N;
    t = 2 * t - 2 * base; /* one assist per two clocks */
    if (t < t_best)
      t_best = t;
    spmu_core_free(core);
  }
  return t_best;
}

int main(void)
{
  double off = clock_ns(false), on = clock_ns(true);

  printf("PEBS (best of %d runs of %u clocks)\n", RUNS, N);
  printf("clock, 12 counters, PEBS off              %7.2f ns\n", off);
  printf("clock, 12 counters, PEBS on, not armed    %7.2f ns  (%+.1f%%)\n", on,
         (on / off - 1) * 100);
  printf("assist, format 3 (skylake, 200 B)         %7.2f ns\n",
         assist_ns("skylake", 0x4300C0, 0));
  printf("assist, adaptive, all groups, 32 LBRs     %7.2f ns\n",
         assist_ns("icelake", 0x4300C0 | UINT64_C(1) << 34,
                   0xF | UINT64_C(31) << 24));
  return 0;
}

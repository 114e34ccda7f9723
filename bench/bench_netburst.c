/* SPDX-License-Identifier: MIT */
/* bench_netburst: cost of NetBurst delivery (spmu_deliver, the call both
 * PMU families share) on the pentium4 preset: one clock with 1, 4 and 8
 * events programmed on as many counters, a batch of 10^9 identical clocks
 * against one, and spmu_deadline for the same clock. Each figure is the
 * best of five runs. Prints figures; no thresholds.
 * Run: cmake --build build --target bench */
#include "bench.h"

#include <inttypes.h>
#include <stdio.h>

#include <softpmu/softpmu.h>

#define N 2000000u
#define RUNS 5
#define MAXEV 8

#define ESCR_T0_OS_USR (UINT64_C(3) << 2) /* ESCR bits 3:2 */
#define CCCR_ENABLE (UINT64_C(1) << 12)
#define CCCR_SELECT(s) ((uint64_t)(s) << 13)
#define CCCR_ACTIVE_ANY (UINT64_C(3) << 16)

static spmu_nb_line lines[MAXEV];
static unsigned ctr_of[MAXEV]; /* the counter each line's event is on */

/* A pentium4 core with up to `want` events of the SDM's table programmed
 * the way SDM 18.15.5.1 does it: events that are not at-retirement, each
 * through its own ESCR on a free counter that ESCR feeds, counting at
 * every CPL of thread 0. lines[] gets one line per event (its lowest
 * mask bit, 1 occurrence per clock). Returns how many were programmed. */
static unsigned setup(unsigned want, spmu_core **core, spmu_lp **lp)
{
  spmu_profile p;
  uint32_t ctrs = 0, escrs[MAXEV];
  const spmu_nb_event *ev;
  unsigned i, n = 0;

  spmu_profile_parse("pentium4", &p, NULL, 0);
  spmu_core_new(&p, core);
  *lp = spmu_core_lp(*core, 0);
  for (i = 0; n < want && (ev = spmu_nb_event_at(i)) != NULL; i++) {
    spmu_nb_event_sel sel;
    unsigned k, c, bit = 0;
    if ((ev->flags & SPMU_NB_EV_AT_RETIREMENT) ||
        spmu_nb_event_parse(&p, ev->name, &sel) != SPMU_OK)
      continue;
    for (k = 0; k < 2; k++) {
      uint32_t free_ctrs = sel.counters[k] & ~ctrs;
      unsigned j;
      if (!sel.escr_addr[k] || !free_ctrs)
        continue;
      for (j = 0; j < n && escrs[j] != sel.escr_addr[k]; j++)
        ;
      if (j < n)
        continue;
      for (c = 0; !(free_ctrs >> c & 1); c++)
        ;
      while (!(sel.mask >> bit & 1))
        bit++;
      spmu_wrmsr(*lp, sel.escr_addr[k], sel.escr_value | ESCR_T0_OS_USR);
      spmu_wrmsr(*lp, 0x360 + c,
                 CCCR_SELECT(sel.cccr_select) | CCCR_ACTIVE_ANY | CCCR_ENABLE);
      ctrs |= UINT32_C(1) << c;
      escrs[n] = sel.escr_addr[k];
      lines[n] = (spmu_nb_line){ev->unit, ev->evsel, (uint8_t)bit, 1};
      ctr_of[n] = c;
      n++;
      break;
    }
  }
  return n;
}

static double best(double a, double b)
{
  return a < b ? a : b;
}

/* ns per spmu_deliver of `k` clocks with `want` events (with deadline:
 * per spmu_deadline of that clock instead). */
static double deliver_ns(unsigned want, uint64_t k, unsigned reps,
                         unsigned *got, int deadline)
{
  double t_best = 1e30;
  unsigned r, i;

  for (r = 0; r < RUNS; r++) {
    spmu_core *core;
    spmu_lp *lp;
    spmu_clock clk = {.nb_lines = lines, .cpl = 3};
    uint64_t used, dl = 0;
    double t;
    clk.nb_nlines = *got = setup(want, &core, &lp);
    t = bench_now();
    for (i = 0; i < reps; i++) {
      if (deadline)
        spmu_deadline(lp, &clk, &dl);
      else
        spmu_deliver(lp, &clk, k, &used);
    }
    t_best = best(t_best, (bench_now() - t) * 1e9 / reps);
    if (deadline && dl != SPMU_DEADLINE_NEVER) {
      fprintf(stderr,
              "bench_netburst: deadline %" PRIu64 ", expected "
              "never (no PMI programmed)\n",
              dl);
      return -1;
    }
    /* The work measured is real: one clock at a time, every counter
     * counted every clock. */
    for (i = 0; k == 1 && !deadline && i < *got; i++) {
      uint64_t v = 0;
      spmu_rdmsr(lp, 0x300 + ctr_of[i], &v);
      if (v != reps) {
        fprintf(stderr,
                "bench_netburst: counter %u read %" PRIu64 ", expected %u\n",
                ctr_of[i], v, reps);
        return -1;
      }
    }
    spmu_core_free(core);
  }
  return t_best;
}

int main(void)
{
  static const unsigned counts[] = {1, 4, 8};
  unsigned i, got;
  double b1, b9, d;

  printf("spmu_deliver (NetBurst), one clock (best of %d runs of %u)\n", RUNS,
         N);
  for (i = 0; i < sizeof counts / sizeof counts[0]; i++) {
    double t = deliver_ns(counts[i], 1, N, &got, 0);
    char what[64];
    snprintf(what, sizeof what, "%u event(s) on %u counter(s)", got, got);
    printf("%-44s %7.2f ns\n", what, t);
  }
  b1 = deliver_ns(MAXEV, 1, N / 10, &got, 0);
  b9 = deliver_ns(MAXEV, 1000000000ULL, N / 10, &got, 0);
  d = deliver_ns(MAXEV, 1, N / 10, &got, 1);
  printf("batched, %u counters, K = 1                  %7.2f ns\n", got, b1);
  printf("batched, %u counters, K = 10^9               %7.2f ns\n", got, b9);
  printf("ratio K=10^9 / K=1                           %7.2f\n", b9 / b1);
  printf("spmu_deadline, %u counters                   %7.2f ns\n", got, d);
  return 0;
}

/* SPDX-License-Identifier: MIT */
/* Shared by the benchmarks: a monotonic clock in seconds. */
#ifndef SPMU_BENCH_H
#define SPMU_BENCH_H

#define _POSIX_C_SOURCE 199309L
#include <time.h>

static inline double bench_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif

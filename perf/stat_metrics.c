/* SPDX-License-Identifier: MIT */
/* softpmu stat -M: perf's metrics that this engine's events give
 * (stat_metrics.h). */
#include "stat_metrics.h"

#include <stdio.h>
#include <strings.h>

/* perf 6.1's Skylake metrics (skylake/skl-metrics.json), each one event
 * over another; the memory ones from MEM_LOAD_RETIRED (SDM Vol. 3B Table
 * 19-3 gives its encodings), so they resolve where the profile's event
 * table has it (Skylake on), and are refused elsewhere by the resolver. */
static const struct stat_metric stat_metrics[] = {
    {"IPC", "INST_RETIRED.ANY", "CPU_CLK_UNHALTED.THREAD", 1.0},
    {"CPI", "CPU_CLK_UNHALTED.THREAD", "INST_RETIRED.ANY", 1.0},
    {"IpBranch", "INST_RETIRED.ANY", "BR_INST_RETIRED.ALL_BRANCHES", 1.0},
    {"IpCall", "INST_RETIRED.ANY", "BR_INST_RETIRED.NEAR_CALL", 1.0},
    {"IpMispredict", "INST_RETIRED.ANY", "BR_MISP_RETIRED.ALL_BRANCHES", 1.0},
    {"BpTkBranch", "BR_INST_RETIRED.ALL_BRANCHES", "BR_INST_RETIRED.NEAR_TAKEN",
     1.0},
    {"L1MPKI", "MEM_LOAD_RETIRED.L1_MISS", "INST_RETIRED.ANY", 1000.0},
    {"L2MPKI", "MEM_LOAD_RETIRED.L2_MISS", "INST_RETIRED.ANY", 1000.0},
    {"L3MPKI", "MEM_LOAD_RETIRED.L3_MISS", "INST_RETIRED.ANY", 1000.0},
};
#define NMETRICS (sizeof(stat_metrics) / sizeof(stat_metrics[0]))

const struct stat_metric *stat_metric_find(const char *name)
{
  size_t i;

  for (i = 0; i < NMETRICS; i++)
    if (strcasecmp(stat_metrics[i].name, name) == 0)
      return &stat_metrics[i];
  return NULL;
}

const struct stat_metric *stat_metric_at(size_t i)
{
  return i < NMETRICS ? &stat_metrics[i] : NULL;
}

void stat_metric_names(char *buf, size_t len)
{
  size_t i, o = 0;
  int n;

  if (len)
    buf[0] = '\0';
  for (i = 0; i < NMETRICS && o < len; i++) {
    n = snprintf(buf + o, len - o, "%s%s", i ? ", " : "", stat_metrics[i].name);
    if (n < 0)
      return;
    o += (size_t)n;
  }
}

/* SPDX-License-Identifier: MIT */
/* softpmu stat -M: the metrics of perf's Intel metric tables (perf list
 * metrics; tools/perf/pmu-events/arch/x86/skylake/skl-metrics.json) that are
 * one event divided by another, both of them events this engine produces,
 * exactly or from the model: IPC, CPI, IpBranch, IpCall, IpMispredict,
 * BpTkBranch, L1MPKI, L2MPKI, L3MPKI. Each is counted with its two events,
 * spelt as perf's metric expression spells them (INST_RETIRED.ANY...),
 * and printed as perf prints a metric without a unit: "%8.2f" and its
 * name, on its first event's line. Data and lookup only: nothing is
 * printed here. */
#ifndef SOFTPMU_STAT_METRICS_H
#define SOFTPMU_STAT_METRICS_H

#include <stddef.h>

struct stat_metric {
  const char *name; /* perf's MetricName: "IPC" */
  const char *num;  /* the event counted first, divided... */
  const char *den;  /* ...by this one */
  double scale;     /* 1000 for the per-kilo-instruction metrics */
};

/* The metric named name (case-insensitive, as perf matches them), or
 * NULL. */
const struct stat_metric *stat_metric_find(const char *name);

/* The i-th metric (from 0), or NULL past the last: for softpmu list. */
const struct stat_metric *stat_metric_at(size_t i);

/* The names of every metric, ", "-separated, into buf (for a refusal). */
void stat_metric_names(char *buf, size_t len);

#endif

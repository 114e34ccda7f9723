/* SPDX-License-Identifier: MIT */
/* softpmu record: what perf.data's header features say of a recording
 * (perf_data_env, perf_data.h), found as perf record finds it
 * (tools/perf/util/header.c): the host's name, OS release and
 * architecture (uname), its CPUs (sysconf) and memory (/proc/meminfo
 * MemTotal, kB), the command line with the command's own path first
 * (/proc/self/exe) -- and of the processor, the MODELLED one: the profile's
 * CPUID as perf's x86 header gives it ("GenuineIntel,FAMILY,MODEL,STEPPING",
 * from CPUID leaf 01H) and its name as the description, so perf report
 * --header says what was modelled. The version is softpmu's. */
#ifndef SOFTPMU_PERF_ENV_H
#define SOFTPMU_PERF_ENV_H

#include <softpmu/profile.h>
#include <stddef.h>

#include "perf_data.h"

/* The env and the strings it points to. */
struct perf_env_buf {
  struct perf_data_env env;
  char hostname[65], osrelease[65], arch[65];
  char version[64], cpudesc[96], cpuid[64];
  char exe[4096];
  const char **cmdline; /* exe, then argv[0..argc) */
};

/* Fill b for a recording of profile p by the command line argv[0..argc)
 * (argv[0] the command's name, "record"): 0, or -1 out of memory. A fact
 * the host does not give is left out (its feature is not written). */
int perf_env_fill(struct perf_env_buf *b, const spmu_profile *p, int argc,
                  char *const argv[]);
void perf_env_free(struct perf_env_buf *b);

/* perf's x86 CPUID header string of p (vendor, then family, model and
 * stepping as SDM Vol. 2A, CPUID, "Version Information" composes them
 * from leaf 01H EAX) into buf. */
void perf_env_cpuid(const spmu_profile *p, char *buf, size_t len);

#endif

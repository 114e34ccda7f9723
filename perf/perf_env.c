/* SPDX-License-Identifier: MIT */
/* softpmu record: the header features' facts (perf_env.h). */
#define _POSIX_C_SOURCE 200809L /* readlink */
#include "perf_env.h"

#include <inttypes.h>
#include <softpmu/error.h>
#include <softpmu/version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

void perf_env_cpuid(const spmu_profile *p, char *buf, size_t len)
{
  /* The modelled processor's signature (profile.h): the model's leaf
   * 01H leaves EAX to the host's CPU model. */
  uint32_t eax = spmu_profile_signature(p);
  unsigned family, model, stepping;

  /* SDM Vol. 2A, CPUID, "Version Information": the family is EAX[11:8],
   * plus the extended family EAX[27:20] when it is 0FH; the model EAX[7:4],
   * with the extended model EAX[19:16] above it for families 06H and 0FH. */
  stepping = eax & 0xf;
  family = (eax >> 8) & 0xf;
  model = (eax >> 4) & 0xf;
  if (family == 0xf)
    family += (eax >> 20) & 0xff;
  if (family == 0x6 || family >= 0xf)
    model += ((eax >> 16) & 0xf) << 4;
  /* Every processor softpmu models is Intel's (the SDM's). */
  snprintf(buf, len, "GenuineIntel,%u,%u,%u", family, model, stepping);
}

/* /proc/meminfo's MemTotal, in kB; 0 if not found. */
static uint64_t perf_env_total_mem(void)
{
  FILE *f = fopen("/proc/meminfo", "r");
  char line[256];
  uint64_t kb = 0;

  if (!f)
    return 0;
  while (fgets(line, sizeof(line), f))
    if (sscanf(line, "MemTotal: %" SCNu64, &kb) == 1)
      break;
  fclose(f);
  return kb;
}

/* The host's uname, CPUs and memory. */
static void perf_env_host(struct perf_env_buf *b)
{
  struct utsname u;
  long online = sysconf(_SC_NPROCESSORS_ONLN),
       conf = sysconf(_SC_NPROCESSORS_CONF);

  if (uname(&u) == 0) {
    snprintf(b->hostname, sizeof(b->hostname), "%s", u.nodename);
    snprintf(b->osrelease, sizeof(b->osrelease), "%s", u.release);
    snprintf(b->arch, sizeof(b->arch), "%s", u.machine);
    b->env.hostname = b->hostname;
    b->env.osrelease = b->osrelease;
    b->env.arch = b->arch;
  }
  if (online > 0) {
    b->env.nr_cpus_online = (uint32_t)online;
    b->env.nr_cpus_avail = (uint32_t)(conf > online ? conf : online);
  }
  b->env.total_mem = perf_env_total_mem();
}

int perf_env_fill(struct perf_env_buf *b, const spmu_profile *p, int argc,
                  char *const argv[])
{
  ssize_t n;
  int i;

  memset(b, 0, sizeof(*b));
  perf_env_host(b);
  snprintf(b->version, sizeof(b->version), "softpmu %s", spmu_version_string());
  b->env.version = b->version;
  snprintf(b->cpudesc, sizeof(b->cpudesc), "%s (modelled by softpmu)", p->name);
  b->env.cpudesc = b->cpudesc;
  perf_env_cpuid(p, b->cpuid, sizeof(b->cpuid));
  b->env.cpuid = b->cpuid;
  n = readlink("/proc/self/exe", b->exe, sizeof(b->exe) - 1);
  if (n <= 0)
    snprintf(b->exe, sizeof(b->exe), "softpmu");
  else
    b->exe[n] = '\0';
  b->cmdline = malloc(((size_t)argc + 1) * sizeof(*b->cmdline));
  if (!b->cmdline)
    return -1;
  b->cmdline[0] = b->exe;
  for (i = 0; i < argc; i++)
    b->cmdline[i + 1] = argv[i];
  b->env.cmdline = b->cmdline;
  b->env.ncmdline = (unsigned)argc + 1;
  return 0;
}

void perf_env_free(struct perf_env_buf *b)
{
  free(b->cmdline);
  b->cmdline = NULL;
}

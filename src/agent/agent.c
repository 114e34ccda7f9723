/* SPDX-License-Identifier: MIT */
/* Layer 3 of the agent (internal.h): the agent object. Creation,
 * discovery of the PMU through its backend (msr.h), the accessors, and
 * the release of what it holds when it is freed (share.c). */
#include <stdlib.h>

#include "agent/msr.h"
#include "softpmu/profile.h"

/* A counter is an MSR: no wider than 64 bits, whatever CPUID says. */
static uint8_t clamp_width(unsigned w)
{
  return (uint8_t)(w > 64 ? 64 : w);
}

/* The PMU as CPUID enumerates it, decoded by spmu_profile_from_cpuid (SDM
 * Vol. 2A Table 3-8, leaf 0AH; SDM 18.2.1-18.2.5), as is: a real part may
 * enumerate more than the model has. The agent uses at most the counters
 * the architectural MSR ranges hold (SPMU_MAX_GP, SPMU_MAX_FIXED). SDM
 * 18.2.3: AnyThread from v3; CPUID.0AH:EDX[15] deprecates it (v5). */
static void pmu_from_profile(spmu_agent *a, const spmu_profile *prof)
{
  spmu_agent_pmu *p = &a->pmu;
  unsigned len = prof->events_len < 32 ? prof->events_len : 32;

  p->version = prof->version;
  p->gp = (uint8_t)(prof->gp < SPMU_MAX_GP ? prof->gp : SPMU_MAX_GP);
  p->gp_width = clamp_width(prof->gp_width);
  p->events_available =
      ~prof->events_unavailable & (uint32_t)spmu_width_mask(len);
  p->fixed_mask =
      (uint32_t)(prof->fixed_mask & spmu_width_mask(SPMU_MAX_FIXED));
  p->fixed_width = clamp_width(prof->fixed_width);
  p->any_thread =
      p->version >= 3 && !(prof->features & SPMU_FEAT_ANY_DEPRECATED);
  p->perf_capabilities = prof->perf_capabilities;
  /* SDM 18.2.5: PERF_CAPABILITIES[13] enables full-width writes through
   * IA32_A_PMCx. */
  p->full_width_writes = (p->perf_capabilities & SPMU_PERFCAP_FW_WRITE) != 0;
  a->present = spmu_width_mask(p->gp) | (uint64_t)p->fixed_mask
                                            << SPMU_AGENT_FIXED(0);
}

/* CPUID.0AH, then, when there is a PMU, CPUID.01H and, where CPUID.01H:
 * ECX[15] (PDCM) says it exists, IA32_PERF_CAPABILITIES. A backend
 * without leaf 01H (SPMU_ENOENT) has no PDCM. */
static int discover_architectural(spmu_agent *a)
{
  uint32_t r0a[4], r01[4];
  const uint32_t *leaf_01 = NULL;
  uint64_t caps = 0;
  spmu_profile prof;
  int rc = spmu_ag_cpuid(a, 0xA, r0a);

  if (rc != SPMU_OK)
    return rc;
  spmu_profile_from_cpuid(r0a, NULL, 0, SPMU_CPUID_DECODE, &prof, NULL, 0);
  if (!prof.version)
    return SPMU_ENOMSR;
  rc = spmu_ag_cpuid(a, 0x1, r01);
  if (rc == SPMU_OK)
    leaf_01 = r01;
  else if (rc != SPMU_ENOENT)
    return rc;
  spmu_profile_from_cpuid(r0a, leaf_01, 0, SPMU_CPUID_DECODE, &prof, NULL, 0);
  if ((prof.features & SPMU_FEAT_PDCM) &&
      (rc = spmu_ag_rdmsr(a, AG_PERF_CAPABILITIES, &caps)) != SPMU_OK)
    return rc;
  spmu_profile_from_cpuid(r0a, leaf_01, caps, SPMU_CPUID_DECODE, &prof, NULL,
                          0);
  pmu_from_profile(a, &prof);
  return SPMU_OK;
}

/* NetBurst (SDM 18.15): nothing enumerates the PMU, so
 * the caller names it and the agent checks what it can. CPUID.01H:EAX
 * [11:8] is the family; 0FH is NetBurst, 0 a backend that reports none
 * (the model answers only the PMU's bits of leaf 01H). A NetBurst PMU has
 * MSR_BPU_CCCR0 (360H). Counters 0-17, 40 bits (SDM 18.15.2). */
static int discover_netburst(spmu_agent *a)
{
  uint32_t r[4], family;
  uint64_t v;
  int rc = spmu_ag_cpuid(a, 0x1, r);

  if (rc == SPMU_OK) {
    family = r[0] >> 8 & 0xf;
    if (family != 0 && family != 0xf)
      return SPMU_ENOMSR;
  } else if (rc != SPMU_ENOENT) {
    return rc;
  }
  rc = spmu_ag_rdmsr_opt(a, AG_NB_CCCR0, &v);
  if (rc == SPMU_GP)
    return SPMU_ENOMSR;
  if (rc != SPMU_OK)
    return rc;
  a->pmu.netburst = true;
  a->pmu.gp_width = AG_NB_WIDTH;
  a->present = spmu_width_mask(AG_NB_NCTR);
  return SPMU_OK;
}

/* A new agent on be, discovered by discover; *out stays NULL on failure. */
static int agent_create(const spmu_backend *be, spmu_agent **out,
                        int (*discover)(spmu_agent *))
{
  spmu_agent *a;
  int rc;

  if (!out)
    return SPMU_EINVAL;
  *out = NULL;
  if (!be || !be->rdmsr || !be->wrmsr || !be->cpuid)
    return SPMU_EINVAL;
  a = calloc(1, sizeof *a);
  if (!a)
    return SPMU_ENOMEM;
  a->be = *be;
  rc = discover(a);
  if (rc != SPMU_OK) {
    free(a);
    return rc;
  }
  *out = a;
  return SPMU_OK;
}

int spmu_agent_new(const spmu_backend *be, spmu_agent **out)
{
  return agent_create(be, out, discover_architectural);
}

int spmu_agent_new_netburst(const spmu_backend *be, spmu_agent **out)
{
  return agent_create(be, out, discover_netburst);
}

void spmu_agent_free(spmu_agent *a)
{
  if (!a)
    return;
  spmu_agent_release_all(a);
  free(a);
}

int spmu_agent_pmu_get(const spmu_agent *a, spmu_agent_pmu *out)
{
  if (!a || !out)
    return SPMU_EINVAL;
  *out = a->pmu;
  return SPMU_OK;
}

uint64_t spmu_agent_present(const spmu_agent *a)
{
  return a ? a->present : 0;
}

uint64_t spmu_agent_owned(const spmu_agent *a)
{
  return a ? a->owned : 0;
}

uint64_t spmu_agent_running(const spmu_agent *a)
{
  return a ? a->running : 0;
}

bool spmu_agent_pmi_owned(const spmu_agent *a)
{
  return a && a->pmi_owned;
}

uint32_t spmu_agent_fault_msr(const spmu_agent *a)
{
  return a ? a->fault_msr : 0;
}

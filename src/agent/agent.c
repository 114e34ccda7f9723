/* Layer 3 of the agent (internal.h): the agent object. Creation,
 * discovery of the PMU through its backend (msr.h), the accessors, and
 * the release of what it holds when it is freed (share.c). */
#include <stdlib.h>

#include "agent/msr.h"

/* A counter is an MSR: no wider than 64 bits, whatever CPUID says. */
static uint8_t clamp_width(uint32_t w)
{
  w &= 0xff;
  return (uint8_t)(w > 64 ? 64 : w);
}

/* CPUID.0AH (SDM 18.2.1 Figure 18-1 / Vol. 2A Table 3-8):
 * version, GP counters and width, the event-availability vector; from v2
 * the fixed counters (EDX[4:0] contiguous ones, EDX[12:5] width); from v5
 * also the ECX bitmap, FxCtr[i]_supported := ECX[i] || EDX[4:0] > i, and
 * EDX[15] AnyThread deprecation. The agent uses at most the counters the
 * architectural MSR ranges hold (SPMU_MAX_GP, SPMU_MAX_FIXED). */
static int discover_leaf_0a(spmu_agent *a)
{
  spmu_agent_pmu *p = &a->pmu;
  uint32_t r[4], len, gp;
  int rc = spmu_ag_cpuid(a, 0xA, r);

  if (rc != SPMU_OK)
    return rc;
  p->version = (uint8_t)r[0];
  if (!p->version)
    return SPMU_ENOMSR;
  gp = (r[0] >> 8) & 0xff;
  p->gp = (uint8_t)(gp < SPMU_MAX_GP ? gp : SPMU_MAX_GP);
  p->gp_width = clamp_width(r[0] >> 16);
  len = r[0] >> 24;
  p->events_available = ~r[1] & (uint32_t)spmu_width_mask(len < 32 ? len : 32);
  if (p->version >= 2) {
    uint64_t fixed = spmu_width_mask(r[3] & 0x1f);
    if (p->version >= 5)
      fixed |= r[2];
    p->fixed_mask = (uint32_t)(fixed & spmu_width_mask(SPMU_MAX_FIXED));
    p->fixed_width = clamp_width(r[3] >> 5);
  }
  /* SDM 18.2.3: AnyThread from v3; CPUID.0AH:EDX[15] deprecates it. */
  p->any_thread = p->version >= 3 && !(p->version >= 5 && (r[3] >> 15 & 1));
  a->present = spmu_width_mask(p->gp) | (uint64_t)p->fixed_mask
                                            << AG_FIXED_BASE;
  return SPMU_OK;
}

/* IA32_PERF_CAPABILITIES exists iff CPUID.01H:ECX[15] (PDCM); its bit 13
 * enables full-width writes through IA32_A_PMCx (SDM 18.2.5). A backend
 * without leaf 01H (SPMU_ENOENT) has no PDCM. */
static int discover_capabilities(spmu_agent *a)
{
  uint32_t r[4];
  int rc = spmu_ag_cpuid(a, 0x1, r);

  if (rc == SPMU_ENOENT || (rc == SPMU_OK && !(r[2] >> 15 & 1)))
    return SPMU_OK;
  if (rc != SPMU_OK)
    return rc;
  rc = spmu_ag_rdmsr(a, AG_PERF_CAPABILITIES, &a->pmu.perf_capabilities);
  if (rc != SPMU_OK)
    return rc;
  a->pmu.full_width_writes =
      (a->pmu.perf_capabilities & SPMU_PERFCAP_FW_WRITE) != 0;
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

static int discover_architectural(spmu_agent *a)
{
  int rc = discover_leaf_0a(a);
  return rc == SPMU_OK ? discover_capabilities(a) : rc;
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

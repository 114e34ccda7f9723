/* SPDX-License-Identifier: MIT */
/* Layer 0 of the agent (internal.h): the backend calls every other agent
 * file goes through. */
#include "agent/msr.h"

int spmu_ag_rdmsr(spmu_agent *a, uint32_t msr, uint64_t *v)
{
  int rc = a->be.rdmsr(a->be.opaque, msr, v);
  if (rc == SPMU_GP)
    a->fault_msr = msr;
  return rc;
}

int spmu_ag_wrmsr(spmu_agent *a, uint32_t msr, uint64_t v)
{
  int rc = a->be.wrmsr(a->be.opaque, msr, v);
  if (rc == SPMU_GP)
    a->fault_msr = msr;
  return rc;
}

int spmu_ag_rdmsr_opt(spmu_agent *a, uint32_t msr, uint64_t *v)
{
  return a->be.rdmsr(a->be.opaque, msr, v);
}

int spmu_ag_update(spmu_agent *a, uint32_t msr, uint64_t mask, uint64_t bits)
{
  uint64_t v, nv;
  int rc = spmu_ag_rdmsr(a, msr, &v);

  if (rc != SPMU_OK)
    return rc;
  nv = (v & ~mask) | (bits & mask);
  return nv == v ? SPMU_OK : spmu_ag_wrmsr(a, msr, nv);
}

bool spmu_ag_has_rdpmc(const spmu_agent *a)
{
  return a->be.rdpmc != NULL;
}

int spmu_ag_rdpmc(spmu_agent *a, uint32_t ecx, uint32_t msr, uint64_t *v)
{
  int rc = a->be.rdpmc(a->be.opaque, ecx, v);
  if (rc == SPMU_GP)
    a->fault_msr = msr;
  return rc;
}

int spmu_ag_cpuid(spmu_agent *a, uint32_t leaf, uint32_t r[4])
{
  return a->be.cpuid(a->be.opaque, leaf, 0, r);
}

int spmu_ag_pmi_unmask(spmu_agent *a)
{
  return a->be.pmi_unmask ? a->be.pmi_unmask(a->be.opaque) : SPMU_OK;
}

/* SPDX-License-Identifier: MIT */
/* Layer 0 of the agent (internal.h): every backend call the agent makes.
 * The files above reach the PMU only through these. */
#ifndef SPMU_AGENT_MSR_H
#define SPMU_AGENT_MSR_H

#include "agent/internal.h"

/* RDMSR and WRMSR; a #GP (SPMU_GP) records the MSR in a->fault_msr. */
int spmu_ag_rdmsr(spmu_agent *a, uint32_t msr, uint64_t *v);
int spmu_ag_wrmsr(spmu_agent *a, uint32_t msr, uint64_t v);
/* RDMSR of an MSR that may be absent: SPMU_GP is not a fault of the agent. */
int spmu_ag_rdmsr_opt(spmu_agent *a, uint32_t msr, uint64_t *v);
/* Read-modify-write of a shared MSR: only the bits of mask change. Skips
 * the write when nothing changes. */
int spmu_ag_update(spmu_agent *a, uint32_t msr, uint64_t mask, uint64_t bits);
/* Does the backend have RDPMC? */
bool spmu_ag_has_rdpmc(const spmu_agent *a);
/* RDPMC with ECX = ecx (SDM Vol. 2B RDPMC); a #GP records msr, the MSR the
 * counter is. */
int spmu_ag_rdpmc(spmu_agent *a, uint32_t ecx, uint32_t msr, uint64_t *v);
/* CPUID leaf, subleaf 0: r gets EAX, EBX, ECX, EDX. */
int spmu_ag_cpuid(spmu_agent *a, uint32_t leaf, uint32_t r[4]);
/* Unmask the LVT performance-monitoring entry (SDM 10.5.1) when the
 * backend can; SPMU_OK when it has nothing to unmask. */
int spmu_ag_pmi_unmask(spmu_agent *a);

#endif

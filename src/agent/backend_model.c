/* SPDX-License-Identifier: MIT */
/* The in-process backend: an agent driving the model through the guest
 * path, exactly as a driver inside a guest drives its virtual PMU. */
#include "softpmu/agent.h"
#include "softpmu/error.h"

static int model_rdmsr(void *opaque, uint32_t msr, uint64_t *value)
{
  return spmu_rdmsr(opaque, msr, value);
}

static int model_wrmsr(void *opaque, uint32_t msr, uint64_t value)
{
  return spmu_wrmsr(opaque, msr, value);
}

/* The agent is a driver: RDPMC at CPL 0, where CR4.PCE does not matter
 * (SDM Vol. 2B RDPMC). */
static int model_rdpmc(void *opaque, uint32_t ecx, uint64_t *value)
{
  return spmu_rdpmc(opaque, ecx, 0, false, value);
}

static int model_cpuid(void *opaque, uint32_t leaf, uint32_t subleaf,
                       uint32_t regs[4])
{
  return spmu_cpuid(opaque, leaf, subleaf, regs);
}

int spmu_backend_model(spmu_lp *lp, spmu_backend *out)
{
  if (!lp || !out)
    return SPMU_EINVAL;
  *out = (spmu_backend){.opaque = lp,
                        .rdmsr = model_rdmsr,
                        .wrmsr = model_wrmsr,
                        .rdpmc = model_rdpmc,
                        .cpuid = model_cpuid};
  return SPMU_OK;
}

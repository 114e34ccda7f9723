/* softpmu — the Intel performance-monitoring unit in software.
 * The one header to include. */
#ifndef SOFTPMU_SOFTPMU_H
#define SOFTPMU_SOFTPMU_H

#include "agent.h"
#include "error.h"
#include "events.h"
#include "netburst.h"
#include "pmu.h"
#include "profile.h"
#include "regs.h"
#include "version.h"

#endif

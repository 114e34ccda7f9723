/* SPDX-License-Identifier: MIT */
/* softpmu — the Intel performance-monitoring unit in software.
 * The one header to include for the model (libsoftpmu; pkg-config softpmu,
 * CMake softpmu::softpmu).
 *
 * The agent library is not part of it: a program that uses the agent
 * includes <softpmu/agent.h> as well and links libsoftpmu-agent
 * (pkg-config softpmu-agent, CMake softpmu::agent), which links the model.
 * A program that includes only this header links the model alone. */
#ifndef SOFTPMU_SOFTPMU_H
#define SOFTPMU_SOFTPMU_H

#include "error.h"
#include "events.h"
#include "netburst.h"
#include "pmu.h"
#include "profile.h"
#include "regs.h"
/* Generated from version.h.in in the build tree, found through the include
 * path; installed beside this file. */
#include "softpmu/version.h"

#endif

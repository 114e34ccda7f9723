/* SPDX-License-Identifier: MIT */
/* Layer 1 of the agent (internal.h): programming the counters the agent
 * holds, on the MSR access of msr.h. Nothing here looks at other agents
 * or at the PMI. */
#ifndef SPMU_AGENT_PROGRAM_H
#define SPMU_AGENT_PROGRAM_H

#include "agent/msr.h"

uint64_t spmu_ag_width_mask(const spmu_agent *a, unsigned c);
/* The most a period may be on counter c. */
uint64_t spmu_ag_max_period(const spmu_agent *a, unsigned c);
/* Counter c's value: RDPMC, else RDMSR; masked to its width. */
int spmu_ag_read_counter(spmu_agent *a, unsigned c, uint64_t *v);
int spmu_ag_write_counter(spmu_agent *a, unsigned c, uint64_t v);
/* The control a held GP counter gets: its event select without EN; for a
 * fixed counter its FIXED_CTR_CTRL field. */
uint64_t spmu_ag_control(unsigned c, const spmu_agent_event *ev);
/* Counter c's control: its event select, or its FIXED_CTR_CTRL field (the
 * write is a read-modify-write: the other fields are other agents'). */
int spmu_ag_read_control(spmu_agent *a, unsigned c, uint64_t *ctl);
int spmu_ag_write_control(spmu_agent *a, unsigned c, uint64_t ctl);
/* Can counter c count ev? SPMU_OK or SPMU_EINVAL / SPMU_ERESERVED /
 * SPMU_ERANGE. */
int spmu_ag_check_event(const spmu_agent *a, unsigned c,
                        const spmu_agent_event *ev);
/* Clear the overflow indications of set (SDM 18.2.2); nothing before v2. */
int spmu_ag_ack(spmu_agent *a, uint64_t set);
/* Start the held, stopped counters of set: EN, then GLOBAL_CTRL last. */
int spmu_ag_start_set(spmu_agent *a, uint64_t set);
/* Stop the running counters of set: GLOBAL_CTRL bits first, then EN. */
int spmu_ag_stop_set(spmu_agent *a, uint64_t set);

#endif

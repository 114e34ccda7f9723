/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Multiplexing (multiplex=N): one PMU per thread, time-sliced among the
 * events as perf does when they outnumber the counters, instead of as
 * many model PMUs as the events need.
 *
 * The events are split into groups, in order, each as many as one PMU's
 * counters take (the agent's claims, SDM Vol. 3B 18.2.4.3), never
 * splitting the events of one perf group (grouped=, {a,b}); the thread
 * runs each group for a slice of N instructions it retires, in turn. At
 * the end of a slice the counters are read and released and the next
 * group is claimed and started (GLOBAL_CTRL last, SDM 18.2.4.1). Time is
 * counted in the thread's retired instructions: an event's time enabled
 * is every instruction, its time running those of its slices, and stat
 * scales its count by enabled / running as perf does. Slices end at the
 * end of the block in which the N-th instruction retires.
 *
 * Also every event's count as read, multiplexed or not (the totals of
 * threads.c, a leader's group read in sample.c, a rebase in cores.c). */
#include "mux.h"

#include <stdio.h>
#include <string.h>

#include <softpmu/error.h>

#include "vcpu.h"

static int claim(struct vcpu *v, unsigned i)
{
  spmu_agent_event ev = spmu_qemu_agent_event(v->cfg, v->cfg->evtsel[i]);

  v->core_of[i] = 0;
  return spmu_agent_claim(v->agents[0], &ev, &v->counter_of[i]);
}

/* Claim and start group grp. */
static int start_group(struct vcpu *v, unsigned grp)
{
  unsigned i;
  int rc = 0;

  for (i = 0; i < v->cfg->nevents && rc == 0; i++)
    if (v->group_of[i] == grp)
      rc = claim(v, i);
  if (rc == 0)
    rc = spmu_agent_start(v->agents[0]);
  v->cur_group = grp;
  v->slice_start = v->insns;
  v->slice_left = v->cfg->mux;
  return rc;
}

/* The end of the perf group event i starts: the events after it with
 * their grouped= bit set. */
static unsigned unit_end(const struct vcpu *v, unsigned i)
{
  unsigned end = i + 1;

  while (end < v->cfg->nevents && end < 64 && (v->cfg->grouped >> end & 1))
    end++;
  return end;
}

/* Claim events i to end - 1 (one perf group) into group grp. */
static int claim_unit(struct vcpu *v, unsigned i, unsigned end, unsigned grp)
{
  int rc = 0;

  for (; i < end && rc == 0; i++) {
    rc = claim(v, i);
    v->group_of[i] = grp;
  }
  return rc;
}

/* Split the events into groups that one PMU holds, each perf group whole
 * in one, then start the first. v has one model core. */
int spmu_qemu_mux_plan(struct vcpu *v, char *why, size_t len)
{
  unsigned i = 0, end = 0, grp = 0, in_group = 0;
  int rc = 0;

  while (i < v->cfg->nevents) {
    end = unit_end(v, i);
    rc = claim_unit(v, i, end, grp);
    if (rc == SPMU_EBUSY && in_group > 0) {
      rc = spmu_agent_release_all(v->agents[0]);
      grp++;
      in_group = 0;
      if (rc == 0)
        rc = claim_unit(v, i, end, grp);
    }
    if (rc != 0)
      break;
    in_group += end - i;
    i = end;
  }
  v->ngroups = grp + 1;
  if (rc == SPMU_EBUSY && end - i > 1) {
    snprintf(why, len,
             "multiplex: a group of %u events does not fit one PMU's "
             "counters",
             end - i);
    return rc;
  }
  if (rc == 0)
    rc = spmu_agent_release_all(v->agents[0]);
  if (rc == 0)
    rc = start_group(v, 0);
  if (rc != 0)
    snprintf(why, len, "multiplex: cannot program the counters: %s",
             spmu_strerror(rc));
  return rc;
}

/* The count of event i so far: its slices ended, and the one running. */
uint64_t spmu_qemu_mux_value(struct vcpu *v, unsigned i)
{
  uint64_t value = 0;

  if (v->group_of[i] == v->cur_group)
    spmu_agent_read(v->agents[0], v->counter_of[i], &value);
  return v->mux_count[i] + value;
}

/* The instructions during which event i was counted. */
uint64_t spmu_qemu_mux_running(const struct vcpu *v, unsigned i)
{
  uint64_t now = v->insns - v->slice_start;

  return v->mux_running[i] + (v->group_of[i] == v->cur_group ? now : 0);
}

/* The end of a slice (the caller has handed the model every block so
 * far): the group's counts are kept, the next group starts. */
void spmu_qemu_mux_rotate(struct vcpu *v)
{
  unsigned i;

  if (v->ngroups < 2) {
    v->slice_left = v->cfg->mux;
    return;
  }
  for (i = 0; i < v->cfg->nevents; i++)
    if (v->group_of[i] == v->cur_group) {
      v->mux_count[i] = spmu_qemu_mux_value(v, i);
      v->mux_running[i] = spmu_qemu_mux_running(v, i);
    }
  if (spmu_agent_release_all(v->agents[0]) != 0 ||
      start_group(v, (v->cur_group + 1) % v->ngroups) != 0)
    v->failed = true;
}

/* ---- the counts as read, multiplexed or not ------------------------------ */

uint64_t spmu_qemu_event_count(struct vcpu *v, unsigned i)
{
  uint64_t value = 0;

  if (v->cfg->mux)
    value = spmu_qemu_mux_value(v, i);
  else
    spmu_agent_read(v->agents[v->core_of[i]], v->counter_of[i], &value);
  return value - v->base[i];
}

uint64_t spmu_qemu_event_enabled(const struct vcpu *v)
{
  return v->insns - v->base_insns;
}

uint64_t spmu_qemu_event_running(const struct vcpu *v, unsigned i)
{
  if (v->cfg->mux)
    return spmu_qemu_mux_running(v, i) - v->base_running[i];
  return v->insns - v->base_insns;
}

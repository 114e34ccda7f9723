/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The plugin's configuration: everything its arguments (protocol/args.h)
 * decide, fixed at install by setup.c and read by every part through a
 * const pointer (each thread's struct vcpu holds it); nothing changes it
 * afterwards. Types only. */
#ifndef SOFTPMU_QEMU_CONFIG_H
#define SOFTPMU_QEMU_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include <softpmu/agent.h>
#include <softpmu/profile.h>
#include <softpmu/regs.h>

#include "args.h"
#include "uarch.h"

#define MAX_EVENTS SPMU_PLUGIN_ARGS_MAX_EVENTS

/* precise=1 (pebs.c): the profile's PEBS registers and record format. */
struct spmu_qemu_pebs_regs {
  uint32_t ds_area, pebs_enable, data_cfg, status_reset, ovf_ctrl, evtsel0;
  uint32_t fixed_ctrl;
  unsigned fmt;  /* PERF_CAPABILITIES.PEBS_FMT */
  bool baseline; /* PERF_CAPABILITIES.PEBS_BASELINE: adaptive PEBS */
};

/* branch=BITS (lbr.c): what programming the LBRs takes, worked out once. */
struct spmu_qemu_lbr_regs {
  bool arch;            /* architectural LBRs */
  bool callstack;       /* call-stack mode */
  unsigned kept;        /* types the filter records: the ring's */
  unsigned fmt;         /* PERF_CAPABILITIES[5:0] (model-specific) */
  unsigned depth;       /* entries: lbr_depth, or IA32_LBR_DEPTH */
  uint64_t select, ctl; /* MSR_LBR_SELECT, IA32_LBR_CTL */
  uint32_t from, to, info, tos, sel_msr, ctl_msr, depth_msr, reset_msr;
};

struct spmu_qemu_config {
  spmu_profile profile;
  char out[SPMU_PLUGIN_ARGS_PATH_MAX];    /* results file; "" none */
  char record[SPMU_PLUGIN_ARGS_PATH_MAX]; /* sample stream; "" counting */
  char comm[SPMU_PLUGIN_ARGS_COMM_MAX];
  unsigned nevents;
  uint64_t evtsel[MAX_EVENTS];
  int line_of[MAX_EVENTS]; /* the line event i counts, or -1 */
  /* model=SPEC (model.c): the modelled micro-architecture is on; the
   * modelled line event i counts (lines.h enum mline), or -1; a sampled
   * event counts a modelled line. */
  bool model, model_sampled;
  char model_spec[SPMU_PLUGIN_ARGS_MODEL_MAX];
  int mline_of[MAX_EVENTS];
  spmu_uarch_config uarch;
  /* Record mode (protocol/record.h). */
  uint64_t period;
  bool callgraph, precise;
  uint64_t branch;  /* branch=: perf's branch_sample_type bits; 0: none */
  uint64_t mux;     /* multiplex=N: slices of N instructions; 0: off */
  uint64_t grouped; /* grouped=: bit i, event i is in event i - 1's group */
  uint64_t ival;    /* interval=N: rows every N instructions; 0: none */
  uint64_t read;    /* read=: bit i, event i counts, read at its leader's
                       samples (sample.c) */
  /* Inline counting (inline.c) from the start: no event needs what only
   * a callback per block sees, nothing is sampled, modelled or
   * multiplexed. */
  bool inline_start;
  /* Counting by callback sums only the lines events count, packed one a
   * lane (count.c): nothing is modelled or multiplexed, no PEBS, no branch
   * stacks, and the events count at most 4 lines, instructions included;
   * lane_line gives them, L_INST first (-1: an unused lane). Each block
   * is counted as it starts (eager) when no event counts taken branches,
   * which only the next block tells. */
  bool packed, eager;
  int lane_line[4];
  struct spmu_qemu_pebs_regs pebs;
  struct spmu_qemu_lbr_regs lbr;
  /* The arguments as given: an execve the plugin follows (exec.c) hands
   * them on, its exec=N and comm= changed. */
  struct spmu_plugin_args args;
};

/* Event sel as the agent claims it, preset to -period in record mode. */
static inline spmu_agent_event
spmu_qemu_agent_event(const struct spmu_qemu_config *cfg, uint64_t sel)
{
  spmu_agent_event ev = {.event = (uint8_t)sel,
                         .umask = (uint8_t)(sel >> 8),
                         .period = cfg->period};

  if (sel & SPMU_EVTSEL_USR)
    ev.flags |= SPMU_AGENT_USR;
  if (sel & SPMU_EVTSEL_OS)
    ev.flags |= SPMU_AGENT_OS;
  return ev;
}

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A guest thread (QEMU's vCPU, in user mode one host thread): its model
 * cores and what it has counted. Each part sees its thread through this
 * struct, passed as a parameter, and the configuration through its cfg;
 * the process's threads are threads.c's registry. Types only. */
#ifndef SOFTPMU_QEMU_VCPU_H
#define SOFTPMU_QEMU_VCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <softpmu/agent.h>
#include <softpmu/pmu.h>

#include "config.h"
#include "tb.h"

#define MAX_VCPUS 4096
#define MAX_CHAIN 127 /* call-chain entries kept per sample */

struct spmu_qemu_stream;
struct spmu_qemu_ival;
struct spmu_qemu_budget;
struct spmu_qemu_regs;
struct spmu_qemu_vregs;

struct vcpu {
  const struct spmu_qemu_config *cfg;
  struct spmu_qemu_stream *stream; /* record mode's (sample.c), or NULL */
  const struct tb *prev; /* the block that ran last, not yet counted */
  unsigned prev_cont;    /* VAR_CONT: prev began by repeating its REP */
  unsigned restarts;     /* system calls QEMU will execute again (plugin.c) */
  lanes sum[NVECS];      /* lines of the blocks counted, not delivered */
  uint64_t budget;       /* events until a sampling counter may overflow */
  /* The events of each line until a sampling counter on it may
   * overflow, counted from the sums' last delivery (UINT64_MAX: none). */
  uint64_t left[NLINES];
  /* Counting by packed lanes (count.c, cfg->packed): by lane,
   * what the lane's line may still add to the sums before a block must
   * be looked at (it may overflow a counter, or the sums reach their
   * bound), less one, now and when the sums were last delivered. */
  slanes slack, slack0;
  uint64_t insns; /* instructions delivered to the model */
  unsigned ncores;
  spmu_core *cores[MAX_EVENTS];
  spmu_agent *agents[MAX_EVENTS];
  unsigned core_of[MAX_EVENTS], counter_of[MAX_EVENTS];
  uint64_t base[MAX_EVENTS]; /* counter values at a fork (the child's 0) */
  int tid;                   /* 0 until the thread runs */
  int host_tid; /* the host thread that ran its first block since a flush */
  bool failed;  /* a count of it is incomplete (said at exit) */
  struct spmu_qemu_pebs *pebs[MAX_EVENTS]; /* each core's DS area (pebs.c) */
  uint64_t base_insns, base_running[MAX_EVENTS]; /* at a fork, an execve */
  /* Multiplexing (mux.c). */
  unsigned group_of[MAX_EVENTS], ngroups, cur_group;
  uint64_t slice_start, slice_left;
  uint64_t mux_count[MAX_EVENTS], mux_running[MAX_EVENTS];
  uint64_t cur_ip, cur_next_ip; /* the instruction being delivered alone */
  const struct tb *cur_tb;      /* its block (NULL: a bulk delivery) */
  uint32_t cur_j;               /* its index there */
  /* regs=1 (regs.c): the process's register capture and the thread's,
   * and whether the last PEBS assist had the registers. */
  const struct spmu_qemu_regs *regs;
  struct spmu_qemu_vregs *vregs;
  const struct tb *regs_tb; /* the block starting or running */
  bool regs_live;           /* in its callback: the registers can be read */
  bool regs_on;             /* its registers are kept (regs.c) */
  bool assist_regs;
  uint64_t *stack; /* return addresses, outermost first */
  size_t depth, stackcap;
  struct spmu_qemu_lbr *lbr;     /* branch stacks (lbr.c) */
  struct spmu_qemu_model *model; /* the thread's modelled uarch (model.c) */
  struct spmu_qemu_ival *ival;   /* its rows of intervals (interval.c) */
  uint64_t ival_at;              /* v->insns at its next interval boundary */
  /* Record mode by an inline budget (budget.c), or NULL; QEMU's index of
   * this vCPU, whose scoreboard words it uses. */
  const struct spmu_qemu_budget *ib;
  unsigned vcpu_index;
};

/* The thread QEMU runs as vCPU index, from the registry's table (a
 * callback reads its own thread's entry), or NULL. */
static inline struct vcpu *spmu_qemu_vcpu_at(struct vcpu *const *vcpus,
                                             unsigned index)
{
  return index < MAX_VCPUS ? vcpus[index] : NULL;
}

#endif

/* SPDX-License-Identifier: MIT */
/* The QEMU plugin's argument string: every option of libsoftpmu-qemu.so
 * in one struct, written by the commands (softpmu stat and record build
 * it with spmu_plugin_args_build) and read back by the plugin
 * (spmu_plugin_args_parse), through the same table of keys (args.c).
 *
 * On qemu-x86_64's command line the string follows the plugin's path:
 *   -plugin PATH,profile=skylake,out=FILE,event=4300c0,event=4301c4
 * QEMU splits it at single commas and hands the plugin one "key=value"
 * per argument; a doubled comma is a comma of the value (QEMU's option
 * syntax), which the builder writes for every comma of a string value.
 *
 * The keys, in the order the builder writes them:
 *   profile=NAME   the processor to model (a preset, or a key=value
 *                  profile with its commas doubled); default skylake
 *   out=PATH       counting: append this process's results block to PATH
 *                  (results.h)
 *   record=PATH    record mode: append the sample stream to PATH
 *                  (record.h)
 *   period=N       record mode: each event's counter is preset to -N with
 *                  INT set and reloaded to -N at each PMI; required there
 *   event=HEX      an IA32_PERFEVTSELx value, repeated once per event, at
 *                  most SPMU_PLUGIN_ARGS_MAX_EVENTS
 *   multiplex=N    counting: one PMU per thread, time-sliced every N
 *                  retired instructions
 *   grouped=HEX    with multiplex: bit I set when event I is in the same
 *                  group as event I - 1 (perf's {a,b}): a group is
 *                  scheduled together, in one slice
 *   interval=N     counting: each thread's counts also at every N
 *                  instructions of its clock (results.h, intervals)
 *   read=HEX       record mode: bit I set when event I is counted, not
 *                  sampled (its counter starts at 0, no PMI), and read at
 *                  each sample of its leader, the nearest event before it
 *                  without the bit (perf's leader sampling, {a,b}:S):
 *                  protocol/record.h's SPMU_REC_READ
 *   callgraph=0|1  record mode: each sample's call chain
 *   precise=0|1    record mode: sample through PEBS
 *   regs=0|1       with precise=1: each PEBS record holds the guest's
 *                  general-purpose registers (plugin API 2 on), and each
 *                  sample its record's: protocol/record.h's SPMU_REC_REGS
 *   comm=NAME      the process name: of SPMU_REC_PROCESS in record mode,
 *                  of each thread's lines in the results
 *                  (default prog; longer names are cut to 15 characters)
 *   branch=HEX     record mode: a branch stack with each sample, the LBRs
 *                  programmed by perf_event_attr.branch_sample_type's bits
 *   model=SPEC     the modelled micro-architecture (uarch/README.md)
 *   count=inline|callback  how blocks are counted where inline adds would
 *                  do (the tests compare the two); default inline
 *   exec=N         the process is a program an execve started, followed by
 *                  the plugin (frontends/qemu/exec.c); N, from 1, the
 *                  instructions the thread that called execve had retired:
 *                  the stream's times go on from there. Written by the
 *                  plugin itself, never by the commands
 *   vdso=0|1       1: leave the program the vDSO QEMU gives it (QEMU 8.2 on);
 *                  0, the default: withhold it, as QEMU 7.2 gives none
 *                  (frontends/qemu/auxv.c)
 *   seed=N         the bytes getrandom(2) returns to the program come from
 *                  N (0 to 2^64 - 1, decimal), the same on every run
 *                  (frontends/qemu/seed.c); absent, the default: the
 *                  host's. QEMU's -seed N, which the commands give QEMU
 *                  with it, does the same for AT_RANDOM and RDRAND
 * A key the builder omits has its default value. The parser checks each
 * value's syntax and the rules between keys (out or record, at least one
 * event; period, callgraph, precise and branch only with record; regs
 * only with precise; multiplex
 * and interval only without; grouped only with multiplex; read only with
 * record, not with precise, and never on event 0); what a value means (a
 * profile, a model, the bits of an event select) is the plugin's to check.
 * Plain C, libc only. */
#ifndef SOFTPMU_PROTOCOL_ARGS_H
#define SOFTPMU_PROTOCOL_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SPMU_PLUGIN_ARGS_MAX_EVENTS 32
#define SPMU_PLUGIN_ARGS_PATH_MAX 4096
#define SPMU_PLUGIN_ARGS_PROFILE_MAX 256
#define SPMU_PLUGIN_ARGS_MODEL_MAX 256
#define SPMU_PLUGIN_ARGS_COMM_MAX 16 /* SPMU_REC_COMM_LEN */

/* The stack's padding: softpmu stat and record give QEMU 8 on (without
 * vdso=1) SPMU_PLUGIN_PADS environment variables named
 * SPMU_PLUGIN_PAD_PREFIX and a digit from 1, their strings
 * SPMU_PLUGIN_PAD_BYTES long together, NULs included, set last (-E), so
 * that QEMU puts them first in the environment, their strings just above
 * the arguments': the program's stack pointer then starts one page below
 * QEMU 7.2's, at its page offset, and the plugin takes them out
 * (frontends/qemu/auxv.c). */
#define SPMU_PLUGIN_PAD_PREFIX "SOFTPMU_PAD"
#define SPMU_PLUGIN_PADS 2
#define SPMU_PLUGIN_PAD_BYTES 4064

struct spmu_plugin_args {
  char profile[SPMU_PLUGIN_ARGS_PROFILE_MAX];
  char out[SPMU_PLUGIN_ARGS_PATH_MAX];    /* "": not counting */
  char record[SPMU_PLUGIN_ARGS_PATH_MAX]; /* "": not recording */
  uint64_t period;                        /* 0: none */
  unsigned nevents;
  uint64_t event[SPMU_PLUGIN_ARGS_MAX_EVENTS];
  uint64_t multiplex; /* 0: off */
  uint64_t grouped;   /* bit i: event i is grouped with event i - 1 */
  uint64_t interval;  /* instructions a row of intervals; 0: none */
  uint64_t read;      /* bit i: event i is read at its leader's samples */
  bool callgraph, precise;
  bool regs; /* regs=1 */
  char comm[SPMU_PLUGIN_ARGS_COMM_MAX];
  uint64_t branch;                        /* 0: no branch stacks */
  char model[SPMU_PLUGIN_ARGS_MODEL_MAX]; /* "": no model */
  bool count_callback;                    /* count=callback */
  uint64_t exec_time;                     /* exec=N; 0: not exec'd */
  bool vdso;                              /* vdso=1 */
  struct spmu_plugin_seed {
    bool given;     /* seed=N */
    uint64_t value; /* N */
  } seed;
};

/* Every key at its default: profile skylake, comm prog, the rest 0 or
 * empty. */
void spmu_plugin_args_init(struct spmu_plugin_args *a);

/* The argument string of a, as snprintf writes: into buf (len bytes, NUL
 * included, may be 0 with buf NULL), the length the whole string takes. */
size_t spmu_plugin_args_build(const struct spmu_plugin_args *a, char *buf,
                              size_t len);

/* qemu-x86_64's -plugin value: the plugin's path, a comma, the argument
 * string of a; in memory from malloc (NULL when there is none). */
char *spmu_plugin_args_option(const char *plugin,
                              const struct spmu_plugin_args *a);

/* Parse the arguments QEMU hands the plugin (argv[0..argc), each
 * "key=value") into a, from its defaults: 0, or -1 with the reason in why
 * (as the plugin prints it, without its prefix). */
int spmu_plugin_args_parse(struct spmu_plugin_args *a, int argc,
                           char *const argv[], char *why, size_t len);

#endif

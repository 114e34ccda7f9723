/* SPDX-License-Identifier: MIT */
/* The scenario language of `softpmu run`: a script parsed into statements
 * that cmd_run.c executes. docs/scripts.md is the reference.
 *
 * Parsing resolves everything that does not depend on the run: MSR names
 * and numbers, field values, event lines, logical processor indices. A
 * script that parses runs without further input errors; the only outcomes
 * left are the PMU's (#GP, PMIs, values) and failed expectations.
 */
#ifndef SOFTPMU_CLI_SCRIPT_H
#define SOFTPMU_CLI_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <softpmu/events.h>

#include "cli.h"

enum script_op {
  SCRIPT_LP,           /* lp N */
  SCRIPT_WRMSR,        /* wrmsr / host-wrmsr MSR VALUE | FIELD=VALUE... */
  SCRIPT_RDMSR,        /* rdmsr MSR */
  SCRIPT_RDPMC,        /* rdpmc ECX [cpl=N] [pce=0|1] */
  SCRIPT_DELIVER,      /* deliver LINE... [cpl=N] [x COUNT] [tx] ... */
  SCRIPT_SIGNAL,       /* signal topa|uncore|condchgd */
  SCRIPT_RESET_PMIS,   /* reset-pmis */
  SCRIPT_EXPECT_MSR,   /* expect MSR == VALUE, expect MSR.FIELD == VALUE */
  SCRIPT_EXPECT_RDPMC, /* expect rdpmc ECX == VALUE */
  SCRIPT_EXPECT_PMIS,  /* expect pmis == N */
  SCRIPT_EXPECT_FAULT, /* expect fault / expect ok */
  SCRIPT_MEMORY,       /* memory BASE SIZE */
  SCRIPT_POKE,         /* poke ADDR VALUE [size=1|2|4|8] */
  SCRIPT_STATE,        /* state KEY=VALUE... */
  SCRIPT_EXPECT_MEM,   /* expect mem ADDR == VALUE [size=N] */
  SCRIPT_EXPECT_COUNT, /* expect pebs-records|bts-records|lost == N */
};

/* What `expect ... == N` counts besides PMIs (per logical processor). */
enum script_count {
  SCRIPT_COUNT_PEBS, /* records PEBS assists wrote (SPMU_TICK_PEBS) */
  SCRIPT_COUNT_BTS,  /* branch records stored (SPMU_TICK_BTS) */
  SCRIPT_COUNT_LOST, /* PEBS records lost (SPMU_TICK_PEBS_LOST) */
};

/* A window of guest linear memory: `memory BASE SIZE`. */
struct script_window {
  uint64_t base, size;
  unsigned line;
};

/* The machine state a PEBS assist records (`state`): a part of
 * spmu_machine_state; gpr by register number (RAX, RCX, RDX, RBX, RSP,
 * RBP, RSI, RDI, R8-R15). */
struct script_state {
  uint64_t ip, next_ip, rflags, tsc;
  uint64_t gpr[16];
};

/* How a number was written, so that the actual value of a failed
 * expectation is printed the same way. */
enum script_radix {
  SCRIPT_HEX, /* 0x1f */
  SCRIPT_DEC, /* 31 */
  SCRIPT_NEG, /* -31: two's complement within `width` bits */
};

struct script_stmt {
  enum script_op op;
  unsigned line;
  /* wrmsr, rdmsr, expect MSR: the address, and the profile's name for it
   * (or the name as written, for a catalogue MSR the profile lacks). */
  uint32_t msr;
  bool present; /* the profile has the MSR (else the access raises #GP) */
  char msr_name[48];
  char field[40]; /* expect MSR.FIELD: the field's name; "" otherwise */
  bool host;      /* host-wrmsr */
  /* The value written or expected; the logical processor of `lp`; the
   * PMI count of `expect pmis`; the enum spmu_signal of `signal`. */
  uint64_t value;
  enum script_radix radix; /* how an expected value was written */
  unsigned width;          /* its width in bits (for SCRIPT_NEG) */
  uint32_t ecx;            /* rdpmc */
  unsigned cpl;            /* rdpmc, deliver */
  bool pce;                /* rdpmc: CR4.PCE */
  size_t first, nlines;    /* deliver: script.events[first..+nlines) */
  uint64_t clocks;         /* deliver: repetitions (x COUNT) */
  uint8_t flags;           /* deliver: enum spmu_clock_flag */
  spmu_mem_access mem;     /* deliver: mem= lat= src= store */
  spmu_branch branch;      /* deliver: branch=FROM->TO [predicted] */
  bool has_mem, has_branch;
  /* memory: the window (addr = BASE, len = SIZE); poke and expect mem:
   * the address and the size in bytes (value and radix as above; width
   * = 8 * len). */
  uint64_t addr, len;
  size_t state;            /* state: script.states[state] */
  enum script_count count; /* expect pebs-records, bts-records, lost */
  bool want_fault;         /* expect fault (true) or expect ok */
  unsigned access_line;    /* expect fault/ok: the access it checks */
  const char *access_op;   /* ... and its keyword ("wrmsr") */
};

struct script {
  const char *file;     /* as named in messages */
  spmu_profile profile; /* what the script runs on */
  unsigned cpu_line;    /* the `cpu` statement's line; 0 if none */
  bool uses_lp;         /* an `lp` statement: more than lp 0 may run */
  struct script_stmt *stmt;
  size_t nstmt;
  spmu_event_line *events; /* the event lines of every deliver */
  size_t nevents;
  struct script_window *windows; /* every `memory`, in script order */
  size_t nwindows;
  struct script_state *states; /* every `state` */
  size_t nstates;
};

/* Parse text, the NUL-terminated contents of file, into *s (freed with
 * script_free, also after a failure). The script runs on the profile of
 * its `cpu` statement, unless cpu (the --cpu option) is not NULL; then,
 * and when the script has no `cpu` statement, on *given. Every error is
 * reported on stderr as "FILE:LINE:COL: message". Returns the number of
 * errors (0: the script may run), or -1 if out of memory (reported). */
int script_parse(struct script *s, const char *file, const char *text,
                 const char *cpu, const spmu_profile *given);

void script_free(struct script *s);

/* The enum spmu_signal named by a `signal` statement, and back. */
const char *script_signal_name(unsigned sig);

/* The names of struct script_state's registers, as `state` takes them:
 * script_state_name(i) for i = 0.. until NULL; script_state_reg gives
 * the register in s. */
const char *script_state_name(unsigned i);
uint64_t *script_state_reg(struct script_state *s, unsigned i);

/* The names of the enum script_count, as `expect` takes them. */
const char *script_count_name(enum script_count c);

#endif

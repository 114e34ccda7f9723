/* SPDX-License-Identifier: MIT */
/* The QEMU plugin's results file (plugin argument out=PATH): what the
 * plugin writes (spmu_results_format) and softpmu stat reads
 * (spmu_results_parse_line), through the same definitions.
 *
 * Each process (the program, each forked child, and the program up to an
 * execve) appends one block, in one write, so blocks never interleave:
 *   softpmu-qemu 1 pid=PID threads=N status=S counting=C
 *   event I COUNT ENABLED RUNNING      (one line per event= argument)
 *   end
 * 1 is the format's version (SPMU_RESULTS_VERSION), which a reader
 * checks. S is the exit status, "execve" (the block ends at an execve
 * whose program runs without the plugin), "exec" (the block ends at an
 * execve the plugin followed: the program it started writes the next
 * block of this pid), "signal:N" (killed by signal N) or "unknown"; C says how
 * blocks were counted: "inline", "callback" or "inline,callback" (inline until
 * a second thread started). COUNT is event I's count, ENABLED and RUNNING the
 * instructions retired while it was enabled and counting (equal unless
 * multiplexing), summed over the process's threads. A reader ignores lines it
 * does not know. Plain C, libc only. */
#ifndef SOFTPMU_PROTOCOL_RESULTS_H
#define SOFTPMU_PROTOCOL_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#define SPMU_RESULTS_VERSION 1
#define SPMU_RESULTS_MAX_EVENTS 32 /* SPMU_PLUGIN_ARGS_MAX_EVENTS */

/* A block's status: >= 0 an exit status, else one of these. */
#define SPMU_RESULTS_STATUS_UNKNOWN (-1)
#define SPMU_RESULTS_STATUS_EXECVE (-2) /* its program is not counted */
#define SPMU_RESULTS_STATUS_EXEC (-3)   /* its program is, under the plugin */
#define SPMU_RESULTS_STATUS_SIGNAL(sig) (-16 - (sig))

enum spmu_results_counting {
  SPMU_RESULTS_CALLBACK,       /* "callback" */
  SPMU_RESULTS_INLINE,         /* "inline" */
  SPMU_RESULTS_INLINE_CALLBACK /* "inline,callback" */
};

struct spmu_results_event {
  uint64_t count, enabled, running;
};

struct spmu_results_head {
  long pid;
  unsigned threads;
  int status;
  enum spmu_results_counting counting;
};

/* One process's block. */
struct spmu_results_block {
  struct spmu_results_head head;
  unsigned nevents;
  struct spmu_results_event ev[SPMU_RESULTS_MAX_EVENTS];
};

/* Block b as text into buf (cap bytes): the length written, at most
 * cap - 1 (cut short if it does not fit). */
size_t spmu_results_format(const struct spmu_results_block *b, char *buf,
                           size_t cap);

/* One line of a results file. */
enum spmu_results_kind {
  SPMU_RESULTS_OTHER, /* a line the format does not have: ignored */
  SPMU_RESULTS_HEAD,  /* a block's first line: head */
  SPMU_RESULTS_EVENT, /* an event line: index, ev */
  SPMU_RESULTS_END    /* a block's last line */
};

struct spmu_results_line {
  enum spmu_results_kind kind;
  struct spmu_results_head head;
  unsigned index;
  struct spmu_results_event ev;
};

/* Parse one line (with or without its newline) into out: 0, or -1 with
 * the reason in why for a block of another version than this one's. A
 * head's fields that are missing keep the values of an unknown status:
 * pid 0, threads 0, status unknown, counting callback. */
int spmu_results_parse_line(const char *line, struct spmu_results_line *out,
                            char *why, size_t len);

#endif

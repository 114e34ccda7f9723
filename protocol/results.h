/* SPDX-License-Identifier: MIT */
/* The QEMU plugin's results file (plugin argument out=PATH): what the
 * plugin writes (spmu_results_format) and softpmu stat reads
 * (spmu_results_parse_line), through the same definitions.
 *
 * Each process (the program, each forked child, and the program up to an
 * execve) appends one block, in one write, so blocks never interleave:
 *   softpmu-qemu 2 pid=PID threads=N status=S counting=C
 *   event I COUNT ENABLED RUNNING      (one line per event= argument)
 *   thread TID CLOCK COMM              (then for each of its threads:)
 *   tevent I COUNT ENABLED RUNNING     (its counts, one line per event)
 *   interval K I COUNT ENABLED RUNNING (with interval=N: its rows)
 *   end
 * 2 is the format's version (SPMU_RESULTS_VERSION), which a reader
 * checks. S is the exit status, "execve" (the block ends at an execve
 * whose program runs without the plugin), "exec" (the block ends at an
 * execve the plugin followed: the program it started writes the next
 * block of this pid), "signal:N" (killed by signal N) or "unknown"; C says how
 * blocks were counted: "inline", "callback" or "inline,callback" (inline until
 * a second thread started). COUNT is event I's count, ENABLED and RUNNING the
 * instructions retired while it was enabled and counting (equal unless
 * multiplexing), summed over the process's threads. Each thread that ran
 * follows: TID its thread id, CLOCK its clock at the end (the instructions
 * it retired, a forked child's counted on from its parent thread's, an
 * exec'd program's from the caller's: record.h's sample times), COMM the
 * process's name (to the line's end), its own counts on the tevent lines
 * (the process's event lines are their sums); with interval=N its rows:
 * row K holds the events that came while its clock was in [(K-1)N, KN),
 * from its first row to its last (the last partial, as the block ends), so
 * that a thread's rows add up to its counts exactly. A reader ignores
 * lines it does not know. Plain C, libc only. */
#ifndef SOFTPMU_PROTOCOL_RESULTS_H
#define SOFTPMU_PROTOCOL_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#define SPMU_RESULTS_VERSION 2
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

#define SPMU_RESULTS_COMM_MAX 16 /* SPMU_PLUGIN_ARGS_COMM_MAX */

/* One thread of a block: its counts, and its rows of intervals (nrows
 * rows of the block's nevents events each, row r being interval
 * first + r). */
struct spmu_results_thread {
  long tid;
  uint64_t clock;
  char comm[SPMU_RESULTS_COMM_MAX];
  struct spmu_results_event ev[SPMU_RESULTS_MAX_EVENTS];
  uint64_t first;
  size_t nrows;
  struct spmu_results_event *rows; /* [nrows * nevents] */
};

/* One process's block. */
struct spmu_results_block {
  struct spmu_results_head head;
  unsigned nevents;
  struct spmu_results_event ev[SPMU_RESULTS_MAX_EVENTS];
  size_t nthreads;
  const struct spmu_results_thread *thread; /* [nthreads] */
};

/* Block b as text into buf (cap bytes): the length written, at most
 * cap - 1 (cut short if it does not fit). */
size_t spmu_results_format(const struct spmu_results_block *b, char *buf,
                           size_t cap);
/* Block b as text, in memory from malloc (its length in *len), or NULL
 * when out of memory. */
char *spmu_results_text(const struct spmu_results_block *b, size_t *len);

/* One line of a results file. */
enum spmu_results_kind {
  SPMU_RESULTS_OTHER,  /* a line the format does not have: ignored */
  SPMU_RESULTS_HEAD,   /* a block's first line: head */
  SPMU_RESULTS_EVENT,  /* an event line: index, ev */
  SPMU_RESULTS_END,    /* a block's last line */
  SPMU_RESULTS_THREAD, /* a thread's first line: tid, clock, comm */
  SPMU_RESULTS_TEVENT, /* a thread's event line: index, ev */
  SPMU_RESULTS_ROW     /* a thread's interval: row, index, ev */
};

struct spmu_results_line {
  enum spmu_results_kind kind;
  struct spmu_results_head head;
  unsigned index;
  struct spmu_results_event ev;
  long tid;
  uint64_t clock, row;
  char comm[SPMU_RESULTS_COMM_MAX];
};

/* Parse one line (with or without its newline) into out: 0, or -1 with
 * the reason in why for a block of another version than this one's. A
 * head's fields that are missing keep the values of an unknown status:
 * pid 0, threads 0, status unknown, counting callback. */
int spmu_results_parse_line(const char *line, struct spmu_results_line *out,
                            char *why, size_t len);

#endif

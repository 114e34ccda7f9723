/* The sample stream of the QEMU plugin's record mode: what the plugin
 * writes (plugin argument record=FILE) and softpmu record reads to write a
 * perf.data file. The plugin knows nothing of perf.data; softpmu record
 * knows nothing of QEMU.
 *
 * Layout: a sequence of records in the host's byte order, each beginning
 * with spmu_rec_head; size counts the whole record, head included, and is
 * a multiple of 8. Each process (the program, and each forked child)
 * appends its records to FILE in whole records (O_APPEND); the records of
 * one process are in the order they happened, those of different
 * processes may interleave (at record boundaries only). A reader skips
 * records of a type it does not know, by size.
 *
 * time: the number of instructions the thread has retired before the
 * record (INST_RETIRED.ANY as the model counts it): a clock that is the
 * same on every run. */
#ifndef SOFTPMU_QEMU_RECORD_H
#define SOFTPMU_QEMU_RECORD_H

#include <stdint.h>

enum spmu_rec_type {
  /* A process starts: its first record (a forked child's included, with
   * ppid its parent). */
  SPMU_REC_PROCESS = 1,
  /* An executable file mapping of the process, as /proc/self/maps lists
   * it (written at the process's start, after each new executable mapping
   * is seen, and at its end: a reader keeps the first of equal ones). */
  SPMU_REC_MMAP = 2,
  /* A guest thread starts (the process's first thread too). */
  SPMU_REC_THREAD = 3,
  /* A sample: a counter overflowed (a PMI). */
  SPMU_REC_SAMPLE = 4,
  /* A guest thread ends. */
  SPMU_REC_EXIT = 5,
  /* Samples that were lost (count of them), e.g. a PEBS record dropped. */
  SPMU_REC_LOST = 6,
};

#define SPMU_REC_COMM_LEN 16

struct spmu_rec_head {
  uint32_t type; /* enum spmu_rec_type */
  uint32_t size; /* bytes, head included, a multiple of 8 */
};

struct spmu_rec_process {
  struct spmu_rec_head head;
  uint32_t pid, ppid;           /* ppid 0: the program itself */
  char comm[SPMU_REC_COMM_LEN]; /* NUL-terminated */
};

struct spmu_rec_mmap {
  struct spmu_rec_head head;
  uint32_t pid, tid;
  uint64_t start, len, pgoff;
  char path[]; /* NUL-terminated, padded with NULs to the size */
};

struct spmu_rec_thread {
  struct spmu_rec_head head;
  uint32_t pid, tid;
  uint64_t time;
};

struct spmu_rec_sample {
  struct spmu_rec_head head;
  uint32_t pid, tid;
  uint64_t time;
  uint64_t ip;     /* the instruction whose retirement overflowed */
  uint64_t period; /* events counted since the previous sample */
  uint32_t event;  /* index of the event in the plugin's event= list */
  uint32_t nr;     /* entries in chain[] (0 without callgraph=1) */
  /* The calls the thread is in, innermost first: each entry is the
   * return address a near call pushed (a shadow stack of the calls and
   * returns executed; never unwound from memory). */
  uint64_t chain[];
  /* With branch=BITS, a branch stack follows chain[nr]: struct
   * spmu_rec_brstack (the record's size says whether it is there). */
};

/* A sample's last branch records, as the model's LBRs held them at the
 * PMI (read through their MSRs; SDM Vol. 3B 17.4.8, "Architectural Last
 * Branch Records"), most recent first. */
#define SPMU_REC_BRSTACK_MAX 32
enum spmu_rec_branch_flag {
  SPMU_REC_BR_MISPRED = 1,   /* the record format says: mispredicted */
  SPMU_REC_BR_PREDICTED = 2, /* the format says: predicted */
  SPMU_REC_BR_IN_TX = 4,     /* retired in a transaction (IN_TX) */
  SPMU_REC_BR_ABORT = 8,     /* a transactional abort (TSX_ABORT) */
};

struct spmu_rec_branch {
  uint64_t from, to; /* linear addresses, flags removed, sign-extended */
  uint32_t flags;    /* enum spmu_rec_branch_flag (none: the format has
                        no flags) */
  uint16_t cycles;   /* the entry's cycle count, 0 when none */
  uint8_t type;      /* with branch_sample_type's TYPE_SAVE: perf's
                        PERF_BR_* (<linux/perf_event.h>); else 0 */
  uint8_t pad;       /* 0 */
};

struct spmu_rec_brstack {
  uint64_t nr;     /* entries[] */
  uint64_t hw_idx; /* MSR_LASTBRANCH_TOS; all ones for architectural LBRs */
  struct spmu_rec_branch entries[];
};

struct spmu_rec_exit {
  struct spmu_rec_head head;
  uint32_t pid, tid;
  uint64_t time;
};

struct spmu_rec_lost {
  struct spmu_rec_head head;
  uint32_t pid, tid;
  uint64_t count;
};

/* The plugin's record-mode arguments (with event=HEX as for counting):
 *   record=FILE   write the stream above to FILE (appending);
 *   period=N      each event's counter is preset to -N with INT set, and
 *                 reloaded to -N at each PMI (1 <= N < 2^width - 1);
 *   callgraph=1   fill chain[];
 *   precise=1     arm PEBS for the events (profiles with PEBS only);
 *   comm=NAME     the process name for SPMU_REC_PROCESS;
 *   branch=HEX    a branch stack with each sample, the LBRs programmed by
 *                 perf_event_attr.branch_sample_type's bits HEX (README). */

#endif

/* SPDX-License-Identifier: MIT */
/* The sample stream of the QEMU plugin's record mode: what the plugin
 * writes (plugin argument record=FILE, args.h) and softpmu record reads to
 * write a perf.data file, through these definitions (and record.c for the
 * PROCESS record, which states the format's version). The plugin knows
 * nothing of perf.data; softpmu record knows nothing of QEMU.
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
#ifndef SOFTPMU_PROTOCOL_RECORD_H
#define SOFTPMU_PROTOCOL_RECORD_H

#include <stddef.h>
#include <stdint.h>

/* The format's version, stated by each process's PROCESS record. It was
 * added after version 1's other bytes were fixed, at the end of that
 * record, so a PROCESS record too short to hold it (32 bytes, from before
 * the field) is version 1 as well. Version 2 added the REGS record; a
 * version 1 stream is version 2 without it. A reader refuses versions
 * after its own. */
#define SPMU_REC_VERSION 2
#define SPMU_REC_VERSION_MIN 1

enum spmu_rec_type {
  /* A process starts: its first record (a forked child's included, with
   * ppid its parent; a program an execve started, which the plugin
   * followed, with SPMU_REC_PROCESS_EXEC: the same pid, a new comm). */
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
  /* With read= (args.h): the counts of the events a sample's event
   * leads, written just before that SAMPLE record (perf's leader
   * sampling, {a,b}:S). */
  SPMU_REC_READ = 7,
  /* With regs=1 (args.h; version 2 on): the registers a sample's PEBS
   * record holds, written just before that SAMPLE record. A sample
   * without one has no registers known. */
  SPMU_REC_REGS = 8,
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
  uint32_t version;             /* SPMU_REC_VERSION */
  uint32_t flags;               /* enum spmu_rec_process_flag; 0 before */
};

enum spmu_rec_process_flag {
  /* The process is pid after an execve (its ppid is the one pid had):
   * perf's COMM with PERF_RECORD_MISC_COMM_EXEC, no FORK. */
  SPMU_REC_PROCESS_EXEC = 1,
};

/* The PROCESS record's size before it had its version. */
#define SPMU_REC_PROCESS_V1_SIZE 32u

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

struct spmu_rec_read {
  struct spmu_rec_head head;
  uint32_t pid, tid;
  uint32_t event; /* the leader: the event of the SAMPLE that follows */
  uint32_t nr;    /* count[]: the events after it that read= marks, in
                     order, up to the next event it does not mark */
  /* Each one's count in this thread since the thread started (a forked
   * child: since the fork; a program an execve started: since the
   * exec), as the model's counter holds it. */
  uint64_t count[];
};

/* The general-purpose registers by their number in the instruction
 * encoding (SDM Vol. 2A 2.1.5, Table 2-2): RAX, RCX, RDX, RBX, RSP, RBP,
 * RSI, RDI, R8 to R15. */
#define SPMU_REC_NGPRS 16

struct spmu_rec_regs {
  struct spmu_rec_head head;
  uint32_t pid, tid;
  uint64_t rflags;              /* as the PEBS record holds it */
  uint64_t gpr[SPMU_REC_NGPRS]; /* by register number */
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

/* A record's size for len bytes: a multiple of 8. */
static inline uint32_t spmu_rec_size(size_t len)
{
  return (uint32_t)((len + 7) & ~(size_t)7);
}

/* Fill a PROCESS record (head, version and comm, cut to 15 characters,
 * included). */
void spmu_rec_process_fill(struct spmu_rec_process *r, uint32_t pid,
                           uint32_t ppid, const char *comm);

/* Read the PROCESS record of len bytes at rec (head included) into out,
 * its comm NUL-terminated and its version stated: 0, or -1 with what is
 * wrong with it in why ("a short PROCESS record", or one of another
 * version than this reader's), worded to follow "the stream has". */
int spmu_rec_process_read(const void *rec, size_t len,
                          struct spmu_rec_process *out, char *why,
                          size_t whylen);

/* The plugin's record-mode arguments are args.h's record=, period=,
 * callgraph=, precise=, regs=, comm= and branch= (with event=HEX as for
 * counting). */

#endif

/* SPDX-License-Identifier: MIT */
/* perf.data: the file perf record writes and perf report / perf script
 * read, written and read here from the format's public documentation
 * (Linux, tools/perf/Documentation/perf.data-file-format.txt) and the
 * record layouts of the kernel's UAPI header <linux/perf_event.h>.
 *
 * Layout written, all in the host's byte order:
 *   the file header (perf_data_header: magic "PERFILE2", section table,
 *     feature bitmap);
 *   the attrs section: per event, a perf_event_attr (PERF_ATTR_SIZE_VER7
 *     bytes) and the file section of its ids;
 *   the ids: one u64 per event (its index + 1);
 *   the data section: the records (COMM, MMAP, FORK, EXIT, SAMPLE,
 *     LOST_SAMPLES), each a perf_event_header then its fields;
 *   the feature sections, a table of (offset, size) in feature-bit order,
 *     then each section in the same order, as perf record writes them
 *     (tools/perf/util/header.c's layouts): HEADER_BUILD_ID (2: one
 *     build_id_event per file given to perf_data_build_id), HEADER_HOSTNAME
 *     (3), _OSRELEASE (4), _VERSION (5), _ARCH (6), _NRCPUS (7: u32
 *     available, u32 online), _CPUDESC (8), _CPUID (9), _TOTAL_MEM (10: u64
 *     kB), _CMDLINE (11: u32 nr, then nr strings), each when the env given to
 *     perf_data_set_env has it; HEADER_EVENT_DESC (12: each event's attr,
 *     name and ids), so the tools print the event names as given; and
 *     HEADER_BRANCH_STACK (15, empty) when the samples carry branch stacks
 *     taken as perf record -b or -j takes them, which makes perf report show
 *     branches by default; HEADER_GROUP_DESC (17: u32 nr, then per group of
 *     two events or more its name "{anon_group}", u32 leader index, u32
 *     members) when -e had perf's groups, which is all that says which
 *     events are grouped (perf evlist -g, perf report --group). A string is a
 * perf_header_string: u32 length, then the string NUL-padded to that length, a
 * multiple of 64. Branch stacks (PERF_SAMPLE_BRANCH_STACK,
 * attr.branch_sample_type): after the call chain, u64 nr, u64 hw_idx when
 * branch_sample_type has PERF_SAMPLE_BRANCH_HW_INDEX, then nr perf_branch_entry
 * (from, to, a u64 of flags: mispred bit 0, predicted 1, in_tx 2, abort 3,
 * cycles 19:4, type 23:20), most recent first. Interrupt registers
 * (PERF_SAMPLE_REGS_INTR, attr.sample_regs_intr): after the branch stack,
 * u64 abi (PERF_SAMPLE_REGS_ABI_64, or _NONE when not known), then with
 * ABI 64 one u64 per bit of the mask, lowest bit first. Leader sampling
 * ({a,b}:S): every event of the group has PERF_SAMPLE_READ with read_format ID
 * | GROUP, the members no period; the leader's samples carry, after the period,
 * u64 nr then per event of the group (leader first) u64 value, u64 id: the
 * event's count over the whole recording, from which perf takes each member's
 * samples (a member's period: its count since the leader's previous sample).
 * sample_id_all is clear: only samples carry a time, so perf delivers the
 * other records as they come in the file and orders the samples by time.
 *
 * perf_data_open/..._close write a file; perf_data_load reads one into
 * memory and perf_data_next walks its records (softpmu report), in file
 * order, or after perf_data_sort in the order perf delivers them. */
#ifndef SOFTPMU_PERF_DATA_H
#define SOFTPMU_PERF_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PERF_DATA_MAX_EVENTS 32
#define PERF_DATA_NAME_MAX 96

/* perf_event_attr, as many bytes as PERF_ATTR_SIZE_VER7: the fields this
 * tool sets, by offset, then zeros; the flag bits by number (no C
 * bit-fields). */
struct perf_data_attr {
  uint32_t type, size;
  uint64_t config;
  uint64_t sample_period;
  uint64_t sample_type;
  uint64_t read_format; /* PERF_FORMAT_* */
  uint64_t flags;
  uint8_t rest[80];
};
#define PERF_DATA_ATTR_SIZE 128 /* PERF_ATTR_SIZE_VER7 */
#define PERF_DATA_ATTR_EXCLUDE_USER (1ULL << 4)
#define PERF_DATA_ATTR_EXCLUDE_KERNEL (1ULL << 5)
#define PERF_DATA_ATTR_EXCLUDE_HV (1ULL << 6)
#define PERF_DATA_ATTR_FREQ (1ULL << 10) /* sample_freq, not _period */
#define PERF_DATA_ATTR_PRECISE_SHIFT 15  /* precise_ip, 2 bits */
#define PERF_DATA_ATTR_SAMPLE_ID_ALL (1ULL << 18)
#define PERF_DATA_ATTR_BRANCH_OFF 24    /* branch_sample_type: rest[24] */
#define PERF_DATA_ATTR_REGS_INTR_OFF 48 /* sample_regs_intr: rest[48] */

/* One perf_branch_entry (<linux/perf_event.h>), its bit-fields as one
 * u64 (flags), in the order they are laid out on x86. */
struct perf_data_branch {
  uint64_t from, to;
  uint64_t flags;
};
#define PERF_DATA_BR_MISPRED (1ULL << 0)
#define PERF_DATA_BR_PREDICTED (1ULL << 1)
#define PERF_DATA_BR_IN_TX (1ULL << 2)
#define PERF_DATA_BR_ABORT (1ULL << 3)
#define PERF_DATA_BR_CYCLES_SHIFT 4 /* 16 bits */
#define PERF_DATA_BR_TYPE_SHIFT 20  /* 4 bits */

/* A sample's branch stack, most recent first. */
struct perf_data_branches {
  uint64_t nr;
  uint64_t hw_idx; /* written with PERF_SAMPLE_BRANCH_HW_INDEX */
  const struct perf_data_branch *e;
};

/* One event of a recording. */
struct perf_data_event {
  char name[PERF_DATA_NAME_MAX]; /* as the user spelt it */
  uint32_t type;                 /* PERF_TYPE_HARDWARE, _HW_CACHE, _RAW */
  uint64_t config;
  uint64_t raw_config; /* the same event as PERF_TYPE_RAW's config */
  bool exclude_user;   /* kernel code only (:k) */
  bool precise;        /* precise_ip = 3: the IP of the instruction itself */
  bool per_second;     /* counts retired instructions, the samples' clock: a
                          period from -F is then exactly desc.freq a second */
  /* perf's groups: 1 + the index of the event's group leader (the
   * leader's own index for the leader); 0: in no group. */
  unsigned group;
  bool sample_read; /* in a group sampled by its leader only ({a,b}:S) */
};

/* What the attrs say of every event: the same period and sample layout. */
struct perf_data_desc {
  unsigned nev;
  struct perf_data_event ev[PERF_DATA_MAX_EVENTS];
  uint64_t period;
  /* -F: the frequency the period was derived from (0: none); written as
   * perf writes -F (attr.freq, sample_freq) for the per_second events,
   * the others keeping the period attr. */
  uint64_t freq;
  bool callchain; /* PERF_SAMPLE_CALLCHAIN */
  /* PERF_SAMPLE_BRANCH_STACK with these attr.branch_sample_type bits
   * (0: none); branch_feature: HEADER_BRANCH_STACK (perf record -b, -j;
   * not --call-graph lbr). */
  uint64_t branch_sample_type;
  bool branch_feature;
  /* PERF_SAMPLE_REGS_INTR with these attr.sample_regs_intr bits (perf's
   * register indices, <asm/perf_regs.h> on x86: AX 0, BX, CX, DX, SI,
   * DI, BP, SP, IP 8, FLAGS, CS, SS, DS, ES, FS, GS 15, R8 16 to R15
   * 23); 0: none. */
  uint64_t regs_intr;
};

/* The x86 registers perf indexes (PERF_REG_X86_*), enough for
 * regs_intr's values. */
#define PERF_DATA_NREGS 24

/* The sample_type of desc: IP, TID, TIME, PERIOD; CALLCHAIN with
 * callchain; BRANCH_STACK with branch_sample_type; REGS_INTR with
 * regs_intr; IDENTIFIER when there
 * are several events (and READ for an event of a leader-sampled group:
 * perf_data_event_sample_type). */
uint64_t perf_data_sample_type(const struct perf_data_desc *desc);
uint64_t perf_data_event_sample_type(const struct perf_data_desc *desc,
                                     unsigned ev);

/* ---- writing ------------------------------------------------------------- */

struct perf_data_writer;

/* What the header features state of the recording (each NULL or 0: that
 * feature is not written). The host's facts (hostname etc.) and the
 * modelled processor's (cpudesc, cpuid) are the caller's to find
 * (perf_env.h); the writer stays deterministic. */
struct perf_data_env {
  const char *hostname;  /* HEADER_HOSTNAME: uname -n */
  const char *osrelease; /* HEADER_OSRELEASE: uname -r */
  const char *version;   /* HEADER_VERSION: the recording tool's */
  const char *arch;      /* HEADER_ARCH: uname -m */
  uint32_t nr_cpus_avail, nr_cpus_online; /* HEADER_NRCPUS (online != 0) */
  const char *cpudesc;                    /* HEADER_CPUDESC */
  const char *cpuid;  /* HEADER_CPUID: "GenuineIntel,6,85,4" on x86 */
  uint64_t total_mem; /* HEADER_TOTAL_MEM, kB (/proc/meminfo MemTotal) */
  unsigned ncmdline;  /* HEADER_CMDLINE: the command's path, then */
  const char *const *cmdline; /* its arguments (the command's name first) */
};

/* Create path and write its attrs: the writer, or NULL with the reason in
 * why. */
struct perf_data_writer *perf_data_open(const char *path,
                                        const struct perf_data_desc *desc,
                                        char *why, size_t whylen);
/* Each appends one record; 0, or -1 on a write error (reported by
 * perf_data_close). */
int perf_data_comm(struct perf_data_writer *w, uint32_t pid, uint32_t tid,
                   const char *comm);
/* COMM with PERF_RECORD_MISC_COMM_EXEC: pid's thread tid ran execve;
 * after a FINISHED_ROUND, so that the samples before it are delivered
 * before it by a reader ordering them in rounds. */
int perf_data_comm_exec(struct perf_data_writer *w, uint32_t pid, uint32_t tid,
                        const char *comm);
int perf_data_mmap(struct perf_data_writer *w, uint32_t pid, uint32_t tid,
                   uint64_t start, uint64_t len, uint64_t pgoff,
                   const char *path);
/* PERF_RECORD_FORK (exit false) or PERF_RECORD_EXIT (exit true). */
int perf_data_task(struct perf_data_writer *w, bool exit, uint32_t pid,
                   uint32_t ppid, uint32_t tid, uint32_t ptid, uint64_t time);
/* A sample of event ev; chain: the nr return addresses, innermost first
 * (written after PERF_CONTEXT_USER and ip when the desc has callchain);
 * br: its branch stack when the desc has branch_sample_type (NULL: none,
 * written as nr 0). */
int perf_data_sample(struct perf_data_writer *w, unsigned ev, uint32_t pid,
                     uint32_t tid, uint64_t time, uint64_t ip, uint64_t period,
                     const uint64_t *chain, uint32_t nr,
                     const struct perf_data_branches *br);
/* A leader-sampled group's next sample (perf_data_sample's, of the
 * leader): before it, the group's counts over the recording so far,
 * values[i] that of the group's i-th event in index order (the leader
 * first). */
void perf_data_set_read(struct perf_data_writer *w, const uint64_t *values,
                        unsigned n);
/* The next sample's interrupt registers (desc.regs_intr), val[i] that
 * of perf's register index i (PERF_DATA_NREGS of them): written as ABI
 * 64-bit, then the value of each bit of regs_intr, lowest first. A
 * sample with none set has no registers known: ABI none, no values. */
void perf_data_set_regs(struct perf_data_writer *w, const uint64_t *val);
/* PERF_RECORD_FINISHED_ROUND: the end of a round of records (perf
 * delivers the samples it holds up to the previous round's latest time). */
int perf_data_round(struct perf_data_writer *w);
/* PERF_RECORD_LOST_SAMPLES: count samples were lost. */
int perf_data_lost(struct perf_data_writer *w, uint64_t count);
/* The header features env states; env and its strings must live until
 * perf_data_close (NULL: none but EVENT_DESC and BRANCH_STACK). */
void perf_data_set_env(struct perf_data_writer *w,
                       const struct perf_data_env *env);
/* Add path's build id (len bytes, at most 20) to HEADER_BUILD_ID, in the
 * order added: 0, or -1 (out of memory, or len too long). */
int perf_data_build_id(struct perf_data_writer *w, const char *path,
                       const unsigned char *id, size_t len);
/* Write the feature sections and the header, close: 0, or -1 with the
 * reason in why. Frees w either way. */
int perf_data_close(struct perf_data_writer *w, char *why, size_t whylen);

/* ---- reading ------------------------------------------------------------- */

/* One event of a file read. */
struct perf_data_file_event {
  struct perf_data_attr attr;
  char name[PERF_DATA_NAME_MAX];
  uint64_t id; /* its first id, 0 if none */
};

struct perf_data_file {
  unsigned char *buf; /* the whole file */
  size_t len;
  unsigned nev;
  struct perf_data_file_event ev[PERF_DATA_MAX_EVENTS];
  uint64_t data_off, data_end; /* the data section */
  uint64_t pos;                /* of the next record */
  uint64_t *order;             /* perf_data_sort's: the records' offsets */
  size_t norder, next;         /* in delivery order; the next one's index */
};

/* One record, decoded. */
struct perf_data_rec {
  uint32_t type; /* PERF_RECORD_* */
  uint16_t misc;
  uint32_t pid, tid, ppid, ptid;
  uint64_t time;
  const char *str; /* COMM: comm; MMAP, MMAP2: the file name */
  uint64_t start, len, pgoff;
  /* SAMPLE */
  unsigned ev; /* index in perf_data_file.ev */
  uint64_t ip, period;
  const unsigned char *chain; /* nr callchain entries (perf_data_chain),
                                 context markers included */
  uint64_t nr;
  const unsigned char *br; /* nbr branch entries (perf_data_branch_at) */
  uint64_t nbr, hw_idx;    /* hw_idx: all ones when not in the file */
  /* PERF_SAMPLE_READ with PERF_FORMAT_GROUP (leader sampling): nread
   * values (perf_data_read_at); 0 without. */
  const unsigned char *read;
  uint64_t nread, read_stride;
  uint64_t lost; /* LOST, LOST_SAMPLES */
  /* PERF_SAMPLE_REGS_INTR (read when the fields before it are those this
   * writer writes): its ABI and the nregs values after it; 0 without. */
  uint64_t regs_abi, nregs;
  const unsigned char *regs;
};

/* Read path whole: 0, or -1 with the reason in why (not a perf.data file,
 * truncated, a sample layout this reader does not know). */
int perf_data_load(const char *path, struct perf_data_file *f, char *why,
                   size_t whylen);
/* The next record into *r: 1, 0 at the end, -1 (reason in why) for a
 * malformed one. */
int perf_data_next(struct perf_data_file *f, struct perf_data_rec *r, char *why,
                   size_t whylen);
/* Deliver the records as perf report does (perf.data-file-format.txt,
 * "Ordering"): one without a time (any but a SAMPLE, unless the attr has
 * sample_id_all) as it comes; those with one (PERF_SAMPLE_TIME) held and
 * delivered sorted by time (in file order among equal times) at each
 * PERF_RECORD_FINISHED_ROUND and at the end. perf_data_next then walks
 * that order from the first record: 0, or -1 with the reason in why (a
 * malformed record, out of memory). */
int perf_data_sort(struct perf_data_file *f, char *why, size_t whylen);
/* Value i of a sample's interrupt registers (in its mask's bit order). */
uint64_t perf_data_reg_at(const struct perf_data_rec *r, uint64_t i);
/* Entry i of a sample's call chain. */
uint64_t perf_data_chain(const struct perf_data_rec *r, uint64_t i);
/* Entry i of a sample's READ group: the event its id names (its index in
 * perf_data_file.ev) and its value. */
void perf_data_read_at(const struct perf_data_file *f,
                       const struct perf_data_rec *r, uint64_t i, unsigned *ev,
                       uint64_t *value);
/* Entry i of a sample's branch stack. */
struct perf_data_branch perf_data_branch_at(const struct perf_data_rec *r,
                                            uint64_t i);
void perf_data_free(struct perf_data_file *f);

#endif

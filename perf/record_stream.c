/* SPDX-License-Identifier: MIT */
/* softpmu record: the plugin's sample stream to perf.data
 * (record_stream.h). */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "record_stream.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buildid_cache.h"
#include "record.h"
#include "symbols.h"

#define RS_MAX_RECORD (1u << 20) /* no stream record is larger */

/* A process the stream announced: its name and parent. */
struct rs_process {
  uint32_t pid, ppid;
  char comm[SPMU_REC_COMM_LEN];
};

/* The MMAP records already written (the plugin repeats equal ones);
 * hit: an address of a sample, its call chain or its branch stack is in
 * it. */
struct rs_mmap {
  uint32_t pid;
  uint64_t start, len, pgoff;
  char *path;
  bool hit;
};

/* Leader sampling (record.h's READ): a thread's counts of each event at
 * its last READ, and the READ that waits for its sample. */
struct rs_reads {
  uint32_t pid, tid;
  uint64_t last[PERF_DATA_MAX_EVENTS];
  bool pending;
  uint32_t event, nr;
  uint64_t count[PERF_DATA_MAX_EVENTS];
};

/* A thread's end, written after every sample (rs_exits). */
struct rs_exit {
  uint32_t pid, ppid, tid;
  uint64_t time;
};

/* A thread the stream started (PROCESS, THREAD): its latest time, and
 * whether it ended (an EXIT record, or an execve of its process, which
 * ends every thread but the one that becomes the process's). */
struct rs_live {
  uint32_t pid, tid;
  uint64_t time;
  bool ended;
};

struct rs_state {
  struct perf_data_writer *w;
  const struct perf_data_desc *desc;
  struct record_stream_stats *st;
  const char *buildid_dir; /* the build-id cache, or NULL */
  struct rs_process *proc;
  size_t nproc, capproc;
  struct rs_mmap *maps;
  size_t nmaps, capmaps;
  struct rs_reads *reads;
  size_t nreads, capreads;
  struct rs_exit *exits;
  size_t nexits, capexits;
  struct rs_live *live;
  size_t nlive, caplive, last_live; /* last_live: the last one found */
  /* Each event's count over the recording, as READ gives it to perf: a
   * leader's, the sum of its periods; a member's, of its counts' growth
   * in every thread. */
  uint64_t total[PERF_DATA_MAX_EVENTS];
  /* The REGS record that waits for its thread's next SAMPLE. */
  bool regs_pending;
  struct spmu_rec_regs regs;
  uint64_t off; /* of the record being converted */
  char *why;
  size_t whylen;
};

static int rs_fail(struct rs_state *s, const char *what)
{
  snprintf(s->why, s->whylen, "the sample stream has %s at offset %" PRIu64,
           what, s->off);
  return -1;
}

static bool rs_grow(void **p, size_t *cap, size_t n, size_t elem)
{
  void *q;

  if (n < *cap)
    return true;
  q = realloc(*p, (*cap ? 2 * *cap : 16) * elem);
  if (!q)
    return false;
  *p = q;
  *cap = *cap ? 2 * *cap : 16;
  return true;
}

static const struct rs_process *rs_find(const struct rs_state *s, uint32_t pid)
{
  size_t i;

  for (i = s->nproc; i-- > 0;)
    if (s->proc[i].pid == pid)
      return &s->proc[i];
  return NULL;
}

/* Thread tid of pid among those started, or NULL. */
static struct rs_live *rs_live_find(struct rs_state *s, uint32_t pid,
                                    uint32_t tid)
{
  size_t i;

  if (s->last_live < s->nlive && s->live[s->last_live].tid == tid &&
      s->live[s->last_live].pid == pid)
    return &s->live[s->last_live];
  for (i = s->nlive; i-- > 0;)
    if (s->live[i].tid == tid && s->live[i].pid == pid) {
      s->last_live = i;
      return &s->live[i];
    }
  return NULL;
}

/* Thread tid of pid starts at time. */
static int rs_live_start(struct rs_state *s, uint32_t pid, uint32_t tid,
                         uint64_t time)
{
  struct rs_live *t = rs_live_find(s, pid, tid);

  if (!t) {
    if (!rs_grow((void **)&s->live, &s->caplive, s->nlive, sizeof(*t)))
      return rs_fail(s, "more threads than memory holds");
    t = &s->live[s->nlive++];
  }
  *t = (struct rs_live){pid, tid, time, false};
  return 0;
}

/* An execve in pid: its program goes on in the thread that becomes the
 * process's (tid pid); the others end with the old program (on Linux the
 * exec'ing thread takes the leader's tid, and the thread left behind has
 * no EXIT of its own). */
static void rs_live_exec(struct rs_state *s, uint32_t pid)
{
  size_t i;

  for (i = 0; i < s->nlive; i++)
    if (s->live[i].pid == pid && s->live[i].tid != pid)
      s->live[i].ended = true;
}

/* A program pid started by an execve the plugin followed: the same
 * process (its parent unchanged), a new name; perf record's COMM with
 * PERF_RECORD_MISC_COMM_EXEC. */
static int rs_exec(struct rs_state *s, const struct spmu_rec_process *r)
{
  size_t i;

  rs_live_exec(s, r->pid);
  for (i = s->nproc; i-- > 0;)
    if (s->proc[i].pid == r->pid) {
      memcpy(s->proc[i].comm, r->comm, sizeof(s->proc[i].comm));
      return perf_data_comm_exec(s->w, r->pid, r->pid, s->proc[i].comm);
    }
  return rs_fail(s, "an exec's PROCESS record for a pid it never started");
}

static int rs_process(struct rs_state *s, const unsigned char *b, size_t n)
{
  struct spmu_rec_process r;
  struct rs_process *p;
  char what[128];

  if (spmu_rec_process_read(b, n, &r, what, sizeof(what)) != 0)
    return rs_fail(s, what); /* short, or of another format version */
  if (r.flags & SPMU_REC_PROCESS_EXEC)
    return rs_exec(s, &r);
  if (!rs_grow((void **)&s->proc, &s->capproc, s->nproc, sizeof(*s->proc)))
    return rs_fail(s, "more processes than memory holds");
  p = &s->proc[s->nproc++];
  p->pid = r.pid;
  p->ppid = r.ppid;
  memcpy(p->comm, r.comm, sizeof(p->comm));
  s->st->processes++;
  if (rs_live_start(s, r.pid, r.pid, 0) != 0)
    return -1;
  /* A forked child: perf record's FORK (pid, ppid, tid, ptid, time). */
  if (r.ppid != 0 &&
      perf_data_task(s->w, false, r.pid, r.ppid, r.pid, r.ppid, 0) != 0)
    return -1;
  return perf_data_comm(s->w, r.pid, r.pid, p->comm);
}

static bool rs_mmap_seen(const struct rs_state *s, const struct rs_mmap *m)
{
  size_t i;

  for (i = 0; i < s->nmaps; i++)
    if (s->maps[i].pid == m->pid && s->maps[i].start == m->start &&
        s->maps[i].len == m->len && s->maps[i].pgoff == m->pgoff &&
        strcmp(s->maps[i].path, m->path) == 0)
      return true;
  return false;
}

static int rs_mmap(struct rs_state *s, const unsigned char *b, size_t n)
{
  struct spmu_rec_mmap r;
  struct rs_mmap m;
  const char *path = (const char *)b + sizeof(r);

  if (n < sizeof(r) + 1 || !memchr(path, 0, n - sizeof(r)))
    return rs_fail(s, "an MMAP record without a NUL-terminated path");
  memcpy(&r, b, sizeof(r));
  m = (struct rs_mmap){r.pid, r.start, r.len, r.pgoff, (char *)path, false};
  if (rs_mmap_seen(s, &m))
    return 0;
  if (!rs_grow((void **)&s->maps, &s->capmaps, s->nmaps, sizeof(*s->maps)) ||
      !(m.path = strdup(path)))
    return rs_fail(s, "more mappings than memory holds");
  s->maps[s->nmaps++] = m;
  return perf_data_mmap(s->w, r.pid, r.tid, r.start, r.len, r.pgoff, path);
}

/* The READ state of thread tid (created, counting from 0, when new). */
static struct rs_reads *rs_reads_of(struct rs_state *s, uint32_t pid,
                                    uint32_t tid)
{
  struct rs_reads *t;
  size_t i;

  for (i = 0; i < s->nreads; i++)
    if (s->reads[i].tid == tid && s->reads[i].pid == pid)
      return &s->reads[i];
  if (!rs_grow((void **)&s->reads, &s->capreads, s->nreads, sizeof(*t)))
    return NULL;
  t = &s->reads[s->nreads++];
  memset(t, 0, sizeof(*t));
  t->pid = pid;
  t->tid = tid;
  return t;
}

/* A thread starts (again, in a program an execve started): its counts
 * start from 0 (record.h, READ). */
static void rs_reads_restart(struct rs_state *s, uint32_t pid, uint32_t tid)
{
  size_t i;

  for (i = 0; i < s->nreads; i++)
    if (s->reads[i].tid == tid && s->reads[i].pid == pid)
      memset(s->reads[i].last, 0, sizeof(s->reads[i].last));
}

static int rs_read(struct rs_state *s, const unsigned char *b, size_t n)
{
  struct spmu_rec_read r;
  struct rs_reads *t;

  if (n < sizeof(r))
    return rs_fail(s, "a short READ record");
  memcpy(&r, b, sizeof(r));
  if (r.nr > (n - sizeof(r)) / 8 || r.event >= s->desc->nev ||
      r.nr > s->desc->nev - 1 - r.event)
    return rs_fail(s, "a READ record of events -e did not give");
  if (!(t = rs_reads_of(s, r.pid, r.tid)))
    return rs_fail(s, "more threads than memory holds");
  t->pending = true;
  t->event = r.event;
  t->nr = r.nr;
  memcpy(t->count, b + sizeof(r), 8 * (size_t)r.nr);
  return 0;
}

/* A leader-sampled group's sample (event ev, of period): the counts of
 * its group over the recording, for perf_data_set_read; each member's
 * grown by what it counted in this thread since the thread's last READ
 * (the READ that came before this sample). */
static int rs_group_read(struct rs_state *s, const struct spmu_rec_sample *r)
{
  uint64_t values[PERF_DATA_MAX_EVENTS];
  struct rs_reads *t = rs_reads_of(s, r->pid, r->tid);
  unsigned j, n = 0, k = 0;

  if (!t)
    return rs_fail(s, "more threads than memory holds");
  s->total[r->event] += r->period;
  for (j = 0; j < s->desc->nev; j++) {
    if (s->desc->ev[j].group != r->event + 1)
      continue;
    if (j != r->event) {
      if (t->pending && t->event == r->event && k < t->nr) {
        s->total[j] += t->count[k] - t->last[j];
        t->last[j] = t->count[k];
      }
      k++;
    }
    values[n++] = s->total[j];
  }
  t->pending = false;
  perf_data_set_read(s->w, values, n);
  return 0;
}

static int rs_thread(struct rs_state *s, const unsigned char *b, size_t n)
{
  struct spmu_rec_thread r;
  const struct rs_process *p;

  if (n < sizeof(r))
    return rs_fail(s, "a short THREAD record");
  memcpy(&r, b, sizeof(r));
  s->st->threads++;
  rs_reads_restart(s, r.pid, r.tid);
  if (rs_live_start(s, r.pid, r.tid, r.time) != 0)
    return -1;
  if (r.tid == r.pid)
    return 0; /* the main thread: its COMM came with PROCESS */
  p = rs_find(s, r.pid);
  if (perf_data_task(s->w, false, r.pid, r.pid, r.tid, r.pid, r.time) != 0)
    return -1;
  return perf_data_comm(s->w, r.pid, r.tid, p ? p->comm : "");
}

/* perf_branch_entry's flags from the stream's (record.h, both say what
 * the LBR format gives). */
static uint64_t rs_branch_flags(const struct spmu_rec_branch *e)
{
  return ((e->flags & SPMU_REC_BR_MISPRED) ? PERF_DATA_BR_MISPRED : 0) |
         ((e->flags & SPMU_REC_BR_PREDICTED) ? PERF_DATA_BR_PREDICTED : 0) |
         ((e->flags & SPMU_REC_BR_IN_TX) ? PERF_DATA_BR_IN_TX : 0) |
         ((e->flags & SPMU_REC_BR_ABORT) ? PERF_DATA_BR_ABORT : 0) |
         (uint64_t)e->cycles << PERF_DATA_BR_CYCLES_SHIFT |
         (uint64_t)(e->type & 0xf) << PERF_DATA_BR_TYPE_SHIFT;
}

/* The branch stack after a sample's call chain (n bytes at b), when the
 * record has one; br->nr 0 when not. */
static int rs_branches(struct rs_state *s, const unsigned char *b, size_t n,
                       struct perf_data_branches *br,
                       struct perf_data_branch *e)
{
  struct spmu_rec_brstack h;
  struct spmu_rec_branch x;
  uint64_t i;

  br->nr = 0;
  br->hw_idx = UINT64_MAX;
  br->e = e;
  if (n < sizeof(h))
    return 0;
  memcpy(&h, b, sizeof(h));
  if (h.nr > SPMU_REC_BRSTACK_MAX || h.nr > (n - sizeof(h)) / sizeof(x))
    return rs_fail(s, "a SAMPLE whose branch stack overruns it");
  for (i = 0; i < h.nr; i++) {
    memcpy(&x, b + sizeof(h) + i * sizeof(x), sizeof(x));
    e[i].from = x.from;
    e[i].to = x.to;
    e[i].flags = rs_branch_flags(&x);
  }
  br->nr = h.nr;
  br->hw_idx = h.hw_idx;
  return 0;
}

/* Mark the mapping that holds addr in process pid (the latest: a new
 * mapping replaces what was there), or in its parent's, whose mappings
 * a forked child has (perf's thread__fork). */
static void rs_hit(struct rs_state *s, uint32_t pid, uint64_t addr)
{
  const struct rs_process *p;
  unsigned depth;
  size_t i;

  for (depth = 0; depth < 64 && pid != 0; depth++) {
    for (i = s->nmaps; i-- > 0;)
      if (s->maps[i].pid == pid && addr >= s->maps[i].start &&
          addr - s->maps[i].start < s->maps[i].len) {
        s->maps[i].hit = true;
        return;
      }
    p = rs_find(s, pid);
    pid = p ? p->ppid : 0;
  }
}

/* Every address a sample touches: its ip, its call chain, both ends of
 * each branch. */
static void rs_hits(struct rs_state *s, const struct spmu_rec_sample *r,
                    const uint64_t *chain, uint32_t nr,
                    const struct perf_data_branches *br)
{
  uint64_t i;

  rs_hit(s, r->pid, r->ip);
  for (i = 0; i < nr; i++)
    rs_hit(s, r->pid, chain[i]);
  for (i = 0; i < br->nr; i++) {
    rs_hit(s, r->pid, br->e[i].from);
    rs_hit(s, r->pid, br->e[i].to);
  }
}

static int rs_regs(struct rs_state *s, const unsigned char *b, size_t n)
{
  if (n < sizeof(s->regs))
    return rs_fail(s, "a short REGS record");
  memcpy(&s->regs, b, sizeof(s->regs));
  s->regs_pending = true;
  return 0;
}

/* x86-64 Linux's user code and stack segment selectors (__USER_CS,
 * __USER_DS): a PMI's interrupt frame in user code has them. */
#define RS_USER_CS 0x33
#define RS_USER_SS 0x2b
/* Linux marks a PEBS sample's exact IP in the flags it samples: bit 3
 * of RFLAGS, reserved as 0 (PERF_EFLAGS_EXACT, <asm/perf_event.h>). */
#define RS_EFLAGS_EXACT 0x8

/* The registers of the sample r (perf's indices, perf_data.h): those of
 * the REGS record just before it in its thread; IP the sample's. */
static void rs_sample_regs(struct rs_state *s, const struct spmu_rec_sample *r)
{
  /* perf's index of each register number (RAX, RCX, RDX, RBX, RSP, RBP,
   * RSI, RDI, R8-R15). */
  static const uint8_t perf_index[SPMU_REC_NGPRS] = {
      0, 2, 3, 1, 7, 6, 4, 5, 16, 17, 18, 19, 20, 21, 22, 23};
  uint64_t val[PERF_DATA_NREGS] = {0};
  unsigned i;

  if (!s->regs_pending || s->regs.pid != r->pid || s->regs.tid != r->tid)
    return;
  s->regs_pending = false;
  for (i = 0; i < SPMU_REC_NGPRS; i++)
    val[perf_index[i]] = s->regs.gpr[i];
  val[8] = r->ip;
  val[9] =
      s->regs.rflags | (s->desc->ev[r->event].precise ? RS_EFLAGS_EXACT : 0);
  val[10] = RS_USER_CS;
  val[11] = RS_USER_SS;
  perf_data_set_regs(s->w, val);
}

static int rs_sample(struct rs_state *s, const unsigned char *b, size_t n)
{
  struct spmu_rec_sample r;
  struct perf_data_branch e[SPMU_REC_BRSTACK_MAX];
  struct perf_data_branches br;
  uint64_t chain[4096];
  struct rs_live *t;
  uint32_t i, nr;

  if (n < sizeof(r))
    return rs_fail(s, "a short SAMPLE record");
  memcpy(&r, b, sizeof(r));
  if (r.nr > (n - sizeof(r)) / 8)
    return rs_fail(s, "a SAMPLE whose call chain overruns it");
  if (r.event >= s->desc->nev) {
    snprintf(s->why, s->whylen,
             "the sample stream has a sample of event %" PRIu32
             " at offset %" PRIu64 ", but -e gave %u event%s (numbered "
             "from 0)",
             r.event, s->off, s->desc->nev, s->desc->nev == 1 ? "" : "s");
    return -1;
  }
  if (s->desc->ev[r.event].sample_read &&
      s->desc->ev[r.event].group != r.event + 1)
    return rs_fail(s, "a SAMPLE of an event its group's leader reads "
                      "({...}:S)");
  nr = r.nr < 4096 ? r.nr : 4096;
  for (i = 0; i < nr; i++)
    memcpy(&chain[i], b + sizeof(r) + 8 * i, 8);
  if (rs_branches(s, b + sizeof(r) + 8 * (size_t)r.nr,
                  n - sizeof(r) - 8 * (size_t)r.nr, &br, e) != 0)
    return -1;
  s->st->samples[r.event]++;
  if ((t = rs_live_find(s, r.pid, r.tid)) != NULL && r.time > t->time)
    t->time = r.time;
  rs_hits(s, &r, chain, nr, &br);
  if (s->desc->ev[r.event].sample_read &&
      s->desc->ev[r.event].group == r.event + 1 && rs_group_read(s, &r) != 0)
    return -1;
  if (s->desc->regs_intr)
    rs_sample_regs(s, &r);
  s->regs_pending = false;
  return perf_data_sample(s->w, r.event, r.pid, r.tid, r.time, r.ip, r.period,
                          chain, nr, br.nr ? &br : NULL);
}

/* The EXIT of thread tid of pid at time, kept for rs_exits. */
static int rs_add_exit(struct rs_state *s, uint32_t pid, uint32_t tid,
                       uint64_t time)
{
  const struct rs_process *p = rs_find(s, pid);
  uint32_t ppid = tid != pid ? pid : p ? p->ppid : 0;
  struct rs_live *t = rs_live_find(s, pid, tid);

  if (t)
    t->ended = true;
  if (!rs_grow((void **)&s->exits, &s->capexits, s->nexits, sizeof(*s->exits)))
    return rs_fail(s, "more threads than memory holds");
  s->exits[s->nexits++] = (struct rs_exit){pid, ppid, tid, time};
  return 0;
}

static int rs_exit(struct rs_state *s, const unsigned char *b, size_t n)
{
  struct spmu_rec_exit r;

  if (n < sizeof(r))
    return rs_fail(s, "a short EXIT record");
  memcpy(&r, b, sizeof(r));
  return rs_add_exit(s, r.pid, r.tid, r.time);
}

/* The threads the stream left without an EXIT: a program killed by a
 * signal (QEMU calls no exit callback then), the program an execve
 * started in it included, or a stream cut short. Each thread ends on
 * Linux, whose perf record writes its EXIT; here at its latest time,
 * before the EXITs of the stream (a parent waiting for a killed child
 * ends after it). */
static int rs_end_live(struct rs_state *s)
{
  size_t i, had = s->nexits, added;
  struct rs_exit *moved;

  for (i = 0; i < s->nlive; i++)
    if (!s->live[i].ended &&
        rs_add_exit(s, s->live[i].pid, s->live[i].tid, s->live[i].time) != 0)
      return -1;
  added = s->nexits - had;
  if (added == 0 || had == 0)
    return 0;
  if (!(moved = malloc(added * sizeof(*moved))))
    return rs_fail(s, "more threads than memory holds");
  memcpy(moved, s->exits + had, added * sizeof(*moved));
  memmove(s->exits + added, s->exits, had * sizeof(*moved));
  memcpy(s->exits, moved, added * sizeof(*moved));
  free(moved);
  return 0;
}

/* The EXIT records, after every sample and two rounds. perf holds the
 * samples to sort them by time until a round delivers them (they alone
 * have a time: perf_data.h), while it handles an EXIT as it reads it; a
 * tool that forgets a thread at its EXIT (perf buildid-list -H) would
 * then find no mapping for its samples. The first round sets the time
 * up to which the second delivers (perf.data-file-format.txt,
 * FINISHED_ROUND): every sample. */
static int rs_exits(struct rs_state *s)
{
  size_t i;

  if (s->nexits == 0)
    return 0;
  if (perf_data_round(s->w) != 0 || perf_data_round(s->w) != 0)
    return -1;
  for (i = 0; i < s->nexits; i++)
    if (perf_data_task(s->w, true, s->exits[i].pid, s->exits[i].ppid,
                       s->exits[i].tid, s->exits[i].ppid,
                       s->exits[i].time) != 0)
      return -1;
  return 0;
}

static int rs_lost(struct rs_state *s, const unsigned char *b, size_t n)
{
  struct spmu_rec_lost r;

  if (n < sizeof(r))
    return rs_fail(s, "a short LOST record");
  memcpy(&r, b, sizeof(r));
  s->st->lost += r.count;
  return perf_data_lost(s->w, r.count);
}

static int rs_convert_one(struct rs_state *s, uint32_t type,
                          const unsigned char *b, size_t n)
{
  switch (type) {
  case SPMU_REC_PROCESS:
    return rs_process(s, b, n);
  case SPMU_REC_MMAP:
    return rs_mmap(s, b, n);
  case SPMU_REC_THREAD:
    return rs_thread(s, b, n);
  case SPMU_REC_SAMPLE:
    return rs_sample(s, b, n);
  case SPMU_REC_EXIT:
    return rs_exit(s, b, n);
  case SPMU_REC_LOST:
    return rs_lost(s, b, n);
  case SPMU_REC_READ:
    return rs_read(s, b, n);
  case SPMU_REC_REGS:
    return rs_regs(s, b, n);
  default:
    return 0; /* a type this reader does not know: skipped by size */
  }
}

/* Read and convert each record of in, in order. */
static int rs_convert_all(struct rs_state *s, FILE *in)
{
  unsigned char *b = malloc(RS_MAX_RECORD);
  struct spmu_rec_head h;
  size_t got;
  int rc = 0;

  if (!b)
    return rs_fail(s, "a record larger than memory holds");
  while ((got = fread(&h, 1, sizeof(h), in)) == sizeof(h)) {
    if (h.size < sizeof(h) || h.size % 8 != 0 || h.size > RS_MAX_RECORD) {
      rc = rs_fail(s, "a record of a bad size");
      break;
    }
    memcpy(b, &h, sizeof(h));
    if (fread(b + sizeof(h), 1, h.size - sizeof(h), in) != h.size - sizeof(h)) {
      rc = rs_fail(s, "a truncated record");
      break;
    }
    if ((rc = rs_convert_one(s, h.type, b, h.size)) != 0) {
      if (s->why[0] == '\0')
        snprintf(s->why, s->whylen, "cannot write the perf.data file");
      break;
    }
    s->off += h.size;
  }
  if (rc == 0 && got != 0)
    rc = rs_fail(s, "a truncated record");
  free(b);
  return rc;
}

/* A file with hits into the build-id cache, as perf record puts it there
 * (perf archive packs the files from the cache). */
static void rs_cache_build_id(struct rs_state *s, const char *path,
                              const unsigned char *id, size_t n)
{
  char cwhy[256];

  if (!s->buildid_dir ||
      buildid_cache_add(s->buildid_dir, path, id, n, cwhy, sizeof(cwhy)) == 0)
    return;
  if (!s->st->buildid_cache_failed++)
    snprintf(s->st->buildid_cache_why, sizeof(s->st->buildid_cache_why), "%s",
             cwhy);
}

/* HEADER_BUILD_ID: the build id of each file a sample touched, once,
 * in the order of their MMAP records (perf record writes the build ids
 * of the files with hits). */
static int rs_build_ids(struct rs_state *s)
{
  unsigned char id[32];
  size_t i, j, n;

  for (i = 0; i < s->nmaps; i++) {
    if (!s->maps[i].hit)
      continue;
    for (j = 0; j < i; j++)
      if (s->maps[j].hit && strcmp(s->maps[j].path, s->maps[i].path) == 0)
        break;
    if (j < i || !(n = symbols_build_id(s->maps[i].path, id, sizeof(id))) ||
        n > 20)
      continue;
    if (perf_data_build_id(s->w, s->maps[i].path, id, n) != 0)
      return rs_fail(s, "more files than memory holds");
    rs_cache_build_id(s, s->maps[i].path, id, n);
  }
  return 0;
}

int record_stream_convert(const char *path, const struct perf_data_desc *desc,
                          const struct perf_data_env *env, const char *out,
                          const char *buildid_dir,
                          struct record_stream_stats *st, char *why,
                          size_t whylen)
{
  struct rs_state s = {.desc = desc,
                       .st = st,
                       .buildid_dir = buildid_dir,
                       .why = why,
                       .whylen = whylen};
  FILE *in = fopen(path, "rb");
  char cwhy[256];
  size_t i;
  int rc;

  memset(st, 0, sizeof(*st));
  why[0] = '\0';
  if (!in) {
    snprintf(why, whylen, "%s: %s", path, strerror(errno));
    return -1;
  }
  s.w = perf_data_open(out, desc, why, whylen);
  if (!s.w) {
    fclose(in);
    return -1;
  }
  perf_data_set_env(s.w, env);
  rc = rs_convert_all(&s, in);
  if (rc == 0)
    rc = rs_end_live(&s);
  if (rc == 0)
    rc = rs_exits(&s);
  if (rc == 0)
    rc = rs_build_ids(&s);
  fclose(in);
  if (perf_data_close(s.w, cwhy, sizeof(cwhy)) != 0 && rc == 0) {
    snprintf(why, whylen, "%s", cwhy);
    rc = -1;
  }
  for (i = 0; i < s.nmaps; i++)
    free(s.maps[i].path);
  free(s.maps);
  free(s.proc);
  free(s.reads);
  free(s.exits);
  free(s.live);
  return rc;
}

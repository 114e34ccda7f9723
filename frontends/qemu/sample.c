/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Record mode: what the PMIs sampled, written as the stream of record.h.
 * With branch stacks, a sample carries the stack lbr.c read at its PMI.
 * Each file mapping an address of a sample falls in (its IP, its call
 * chain, either end of a branch) is written (MMAP) before the sample.
 * With read= (perf's leader sampling), a leader's sample is preceded by
 * the counts of the events it reads (READ); with regs=1, a sample whose
 * PEBS record had the guest's registers by them (REGS).
 *
 * A sample's IP is the instruction whose retirement made the counter
 * overflow (the model takes one clock per instruction in that block); its
 * call chain comes from a shadow stack of the near calls and returns the
 * thread executed, never from unwinding memory. Records are buffered per
 * process and appended to the file in whole records. */
#define _GNU_SOURCE /* O_CLOEXEC, gettid */
#include "sample.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fail.h"
#include "insn.h"
#include "lbr.h"
#include "mux.h"
#include "record.h"
#include "vcpu.h"

#define BUF_SIZE (256u * 1024u)
#define MAX_MAPS 4096

/* The process's stream: one, shared by its threads. */
struct spmu_qemu_stream {
  const struct spmu_qemu_config *cfg;
  pthread_mutex_t lock; /* everything below */
  unsigned char buf[BUF_SIZE];
  size_t len;
  bool started; /* the PROCESS record is out */
  bool failed;  /* a write failed (said then) */
  uint32_t ppid;
  /* Added to every time: after an execve the plugin followed, the
   * instructions the thread had retired before it (exec=N). */
  uint64_t time0;
  bool exec;     /* the PROCESS record says so: a followed execve's program */
  uint64_t base; /* QEMU's guest base: host address - guest address */
  /* Executable mappings already written: [start, end). */
  struct {
    uint64_t start, end;
  } maps[MAX_MAPS];
  unsigned nmaps;
};

static void write_out(struct spmu_qemu_stream *rec)
{
  int fd;

  if (rec->len == 0)
    return;
  fd = open(rec->cfg->record, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 || write(fd, rec->buf, rec->len) != (ssize_t)rec->len) {
    spmu_qemu_fail("cannot write %s: %s", rec->cfg->record, strerror(errno));
    rec->failed = true;
  }
  if (fd >= 0)
    close(fd);
  rec->len = 0;
}

static void put_process(struct spmu_qemu_stream *rec);

/* Room for a record of size bytes in the buffer (rec->lock held). */
static void *reserve(struct spmu_qemu_stream *rec, uint32_t type, size_t size)
{
  struct spmu_rec_head *h;

  size = spmu_rec_size(size);
  if (!rec->started) {
    rec->started = true;
    put_process(rec);
  }
  if (rec->len + size > BUF_SIZE)
    write_out(rec);
  h = (struct spmu_rec_head *)(rec->buf + rec->len);
  memset(h, 0, size);
  h->type = type;
  h->size = (uint32_t)size;
  rec->len += size;
  return h;
}

static void put_process(struct spmu_qemu_stream *rec)
{
  struct spmu_rec_process *p = reserve(rec, SPMU_REC_PROCESS, sizeof(*p));

  spmu_rec_process_fill(p, (uint32_t)getpid(), rec->ppid, rec->cfg->comm);
  if (rec->exec)
    p->flags |= SPMU_REC_PROCESS_EXEC;
}

/* ---- mappings --------------------------------------------------------- */

static bool mapped(const struct spmu_qemu_stream *rec, uint64_t ip)
{
  unsigned i;

  for (i = 0; i < rec->nmaps; i++)
    if (ip >= rec->maps[i].start && ip < rec->maps[i].end)
      return true;
  return false;
}

static void put_mmap(struct spmu_qemu_stream *rec, uint32_t tid, uint64_t start,
                     uint64_t end, uint64_t pgoff, const char *path)
{
  size_t n = strlen(path) + 1;
  struct spmu_rec_mmap *m = reserve(rec, SPMU_REC_MMAP, sizeof(*m) + n);

  m->pid = (uint32_t)getpid();
  m->tid = tid;
  m->start = start;
  m->len = end - start;
  m->pgoff = pgoff;
  memcpy(m->path, path, n);
  if (rec->nmaps < MAX_MAPS) {
    rec->maps[rec->nmaps].start = start;
    rec->maps[rec->nmaps++].end = end;
  }
}

/* Write the file mapping that holds ip, from /proc/self/maps
 * (under qemu-user the guest's mappings are the process's own, at the
 * guest's addresses plus QEMU's guest base). */
static void map_ip(struct spmu_qemu_stream *rec, uint32_t tid, uint64_t ip)
{
  FILE *f;
  char line[4352], path[4096];
  uint64_t start, end, pgoff;

  if (mapped(rec, ip) || !(f = fopen("/proc/self/maps", "re")))
    return;
  while (fgets(line, sizeof(line), f)) {
    path[0] = '\0';
    if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %*s %*s %4095s",
               &start, &end, &pgoff, path) < 3 ||
        start < rec->base)
      continue;
    start -= rec->base;
    end -= rec->base;
    if (ip < start || ip >= end)
      continue;
    /* QEMU maps the guest's code without the host's execute permission
     * (it runs translated code): any file mapping that holds an IP. */
    if (path[0] == '/')
      put_mmap(rec, tid, start, end, pgoff, path);
    break;
  }
  fclose(f);
}

/* ---- samples ---------------------------------------------------------- */

/* The branch stack a sample carries, read before its record is reserved
 * so that the files its branches' ends are in get their MMAP first. */
union brstack_buf {
  struct spmu_rec_brstack s;
  unsigned char b[sizeof(struct spmu_rec_brstack) +
                  SPMU_REC_BRSTACK_MAX * sizeof(struct spmu_rec_branch)];
};

/* Take v's branch stack into out and write the mappings of both ends of
 * each branch: its size in bytes (0: no branch stack). */
static size_t map_branches(struct spmu_qemu_stream *rec, struct vcpu *v,
                           union brstack_buf *out)
{
  size_t br = v->cfg->branch ? spmu_qemu_lbr_size(v) : 0, i;

  if (br == 0 || br > sizeof(*out))
    return 0;
  spmu_qemu_lbr_put(v, &out->s);
  for (i = 0; i < out->s.nr; i++) {
    map_ip(rec, (uint32_t)v->tid, out->s.entries[i].from);
    map_ip(rec, (uint32_t)v->tid, out->s.entries[i].to);
  }
  return br;
}

/* With read= (leader sampling): the counts of the events event leads,
 * just before its sample (rec->lock held). */
static void put_read(struct spmu_qemu_stream *rec, struct vcpu *v,
                     unsigned event)
{
  const struct spmu_qemu_config *cfg = v->cfg;
  struct spmu_rec_read *r;
  unsigned n = 0, i;

  while (event + 1 + n < cfg->nevents && event + 1 + n < 64 &&
         (cfg->read >> (event + 1 + n) & 1))
    n++;
  if (n == 0)
    return;
  r = reserve(rec, SPMU_REC_READ, sizeof(*r) + n * sizeof(r->count[0]));
  r->pid = (uint32_t)getpid();
  r->tid = (uint32_t)v->tid;
  r->event = event;
  r->nr = n;
  for (i = 0; i < n; i++)
    r->count[i] = spmu_qemu_event_count(v, event + 1 + i);
}

/* regs=1: the registers of the sample that follows (rec->lock held). */
static void put_regs(struct spmu_qemu_stream *rec, struct vcpu *v,
                     uint64_t rflags, const uint64_t *gpr)
{
  struct spmu_rec_regs *r = reserve(rec, SPMU_REC_REGS, sizeof(*r));

  r->pid = (uint32_t)getpid();
  r->tid = (uint32_t)v->tid;
  r->rflags = rflags;
  memcpy(r->gpr, gpr, sizeof(r->gpr));
}

void spmu_qemu_sample(struct vcpu *v, unsigned event, uint64_t ip)
{
  spmu_qemu_sample_regs(v, event, ip, 0, NULL);
}

void spmu_qemu_sample_regs(struct vcpu *v, unsigned event, uint64_t ip,
                           uint64_t rflags, const uint64_t *gpr)
{
  struct spmu_qemu_stream *rec = v->stream;
  size_t nr = v->cfg->callgraph ? v->depth : 0, i, br;
  struct spmu_rec_sample *s;
  union brstack_buf brs;

  if (!rec)
    return;
  if (nr > MAX_CHAIN)
    nr = MAX_CHAIN;
  pthread_mutex_lock(&rec->lock);
  map_ip(rec, (uint32_t)v->tid, ip);
  for (i = 0; i < nr; i++)
    map_ip(rec, (uint32_t)v->tid, v->stack[v->depth - 1 - i]);
  br = map_branches(rec, v, &brs);
  put_read(rec, v, event);
  if (gpr)
    put_regs(rec, v, rflags, gpr);
  s = reserve(rec, SPMU_REC_SAMPLE, sizeof(*s) + nr * sizeof(uint64_t) + br);
  s->pid = (uint32_t)getpid();
  s->tid = (uint32_t)v->tid;
  s->time = rec->time0 + v->insns;
  s->ip = ip;
  s->period = v->cfg->period;
  s->event = event;
  s->nr = (uint32_t)nr;
  for (i = 0; i < nr; i++)
    s->chain[i] = v->stack[v->depth - 1 - i];
  if (br)
    memcpy(s->chain + nr, brs.b, br);
  pthread_mutex_unlock(&rec->lock);
}

/* ---- the shadow stack ------------------------------------------------- */

static void push(struct vcpu *v, uint64_t ret)
{
  if (v->depth == v->stackcap) {
    size_t cap = v->stackcap ? v->stackcap * 2 : 256;
    uint64_t *s = realloc(v->stack, cap * sizeof(*s));

    if (!s)
      return; /* deeper than memory allows: the chain stops there */
    v->stack = s;
    v->stackcap = cap;
  }
  v->stack[v->depth++] = ret;
}

/* A near CALL pushes the address after it (SDM Vol. 2A, CALL); a near RET
 * pops the return address it jumps to (RET). A return to an address the
 * shadow stack holds deeper (longjmp, exceptions) pops through it; a
 * return to an address it does not hold pops one entry. */
void spmu_qemu_stack_update(struct vcpu *v, const struct tb *p, uint64_t next)
{
  size_t d;

  switch (p->last_kind) {
  case K_CALL:
  case K_CALL_IND:
    push(v, p->fallthrough);
    break;
  case K_RET:
    for (d = v->depth; d-- > 0;)
      if (v->stack[d] == next) {
        v->depth = d;
        return;
      }
    if (v->depth)
      v->depth--;
    break;
  default:
    break;
  }
}

/* ---- threads and processes ------------------------------------------- */

void spmu_qemu_thread_start(struct vcpu *v)
{
  struct spmu_qemu_stream *rec = v->stream;
  struct spmu_rec_thread *t;

  v->tid = (int)gettid();
  if (!rec)
    return;
  pthread_mutex_lock(&rec->lock);
  t = reserve(rec, SPMU_REC_THREAD, sizeof(*t));
  t->pid = (uint32_t)getpid();
  t->tid = (uint32_t)v->tid;
  t->time = rec->time0 + v->insns + v->sum[0][L_INST];
  pthread_mutex_unlock(&rec->lock);
}

void spmu_qemu_thread_exit(struct vcpu *v)
{
  struct spmu_qemu_stream *rec = v->stream;
  struct spmu_rec_exit *e;

  if (!rec || !v->tid)
    return;
  pthread_mutex_lock(&rec->lock);
  e = reserve(rec, SPMU_REC_EXIT, sizeof(*e));
  e->pid = (uint32_t)getpid();
  e->tid = (uint32_t)v->tid;
  e->time = rec->time0 + v->insns + v->sum[0][L_INST];
  pthread_mutex_unlock(&rec->lock);
}

/* Records lost: the stream says how many. */
void spmu_qemu_record_lost(struct vcpu *v, uint64_t count)
{
  struct spmu_qemu_stream *rec = v->stream;
  struct spmu_rec_lost *l;

  if (!rec)
    return;
  pthread_mutex_lock(&rec->lock);
  l = reserve(rec, SPMU_REC_LOST, sizeof(*l));
  l->pid = (uint32_t)getpid();
  l->tid = (uint32_t)v->tid;
  l->count = count;
  pthread_mutex_unlock(&rec->lock);
}

/* ---- the stream -------------------------------------------------------- */

struct spmu_qemu_stream *
spmu_qemu_stream_open(const struct spmu_qemu_config *cfg, char *why, size_t len)
{
  struct spmu_qemu_stream *rec;
  int fd = open(cfg->record, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);

  if (fd < 0) {
    snprintf(why, len, "record=%s: %s", cfg->record, strerror(errno));
    return NULL;
  }
  close(fd);
  rec = calloc(1, sizeof(*rec));
  if (!rec || pthread_mutex_init(&rec->lock, NULL) != 0) {
    snprintf(why, len, "record=%s: out of memory", cfg->record);
    free(rec);
    return NULL;
  }
  rec->cfg = cfg;
  rec->time0 = cfg->args.exec_time;
  rec->exec = cfg->args.exec_time != 0;
  return rec;
}

void spmu_qemu_stream_free(struct spmu_qemu_stream *rec)
{
  if (rec) {
    pthread_mutex_destroy(&rec->lock);
    free(rec);
  }
}

void spmu_qemu_stream_flush(struct spmu_qemu_stream *rec)
{
  if (!rec)
    return;
  pthread_mutex_lock(&rec->lock);
  write_out(rec);
  pthread_mutex_unlock(&rec->lock);
}

void spmu_qemu_stream_set_base(struct spmu_qemu_stream *rec, uint64_t base)
{
  if (!rec)
    return;
  pthread_mutex_lock(&rec->lock);
  rec->base = base;
  pthread_mutex_unlock(&rec->lock);
}

/* In a fork's child: a new process, whose first record says so. */
void spmu_qemu_stream_fork_child(struct spmu_qemu_stream *rec)
{
  if (!rec)
    return;
  rec->len = 0;
  rec->started = false;
  rec->ppid = (uint32_t)getppid();
  rec->nmaps = 0;
  rec->exec = false;
  pthread_mutex_init(&rec->lock, NULL);
}

bool spmu_qemu_stream_failed(const struct spmu_qemu_stream *rec)
{
  return rec && rec->failed;
}

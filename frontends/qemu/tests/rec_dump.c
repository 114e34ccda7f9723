/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Prints the record-mode stream of the QEMU plugin (record.h) as text, one
 * record a line, for the tests:
 *   process PID PPID COMM
 *   mmap PID TID START LEN PGOFF PATH
 *   thread PID TID TIME
 *   sample PID TID TIME IP PERIOD EVENT [CHAIN...]
 *   exit PID TID TIME
 *   lost PID TID COUNT
 *   regs PID TID RFLAGS RAX RCX RDX RBX RSP RBP RSI RDI R8 ... R15 (hex)
 * Numbers in decimal, addresses in hexadecimal. Exit status 1 on a
 * malformed stream. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"

/* A sample's branch stack, when its size leaves room for one: "brstack
 * HW_IDX NR" then per entry " FROM>TO/FLAGS/CYCLES" (hexadecimal), then
 * "/TYPE" (decimal PERF_BR_*) when the entry has a type. */
static void print_brstack(const struct spmu_rec_sample *s)
{
  size_t at = sizeof(*s) + 8 * (size_t)s->nr;
  const struct spmu_rec_brstack *b;
  uint64_t i;

  if (s->head.size < at + sizeof(*b))
    return;
  b = (const struct spmu_rec_brstack *)((const unsigned char *)s + at);
  printf("brstack %" PRIx64 " %" PRIu64, b->hw_idx, b->nr);
  for (i = 0; i < b->nr &&
              at + sizeof(*b) + (i + 1) * sizeof(b->entries[0]) <= s->head.size;
       i++) {
    printf(" %" PRIx64 ">%" PRIx64 "/%" PRIx32 "/%u", b->entries[i].from,
           b->entries[i].to, b->entries[i].flags, b->entries[i].cycles);
    if (b->entries[i].type)
      printf("/%u", b->entries[i].type);
  }
  putchar('\n');
}

static int dump(const unsigned char *d, size_t n)
{
  size_t o = 0;

  while (o + sizeof(struct spmu_rec_head) <= n) {
    const struct spmu_rec_head *h = (const void *)(d + o);
    const void *r = h;

    if (h->size < sizeof(*h) || h->size % 8 || o + h->size > n) {
      fprintf(stderr, "rec_dump: bad record size %" PRIu32 " at %zu\n", h->size,
              o);
      return 1;
    }
    switch (h->type) {
    case SPMU_REC_PROCESS: {
      struct spmu_rec_process p;
      char why[128];

      if (spmu_rec_process_read(r, h->size, &p, why, sizeof(why)) != 0) {
        fprintf(stderr, "rec_dump: %s at %zu\n", why, o);
        return 1;
      }
      printf("process %" PRIu32 " %" PRIu32 " %s\n", p.pid, p.ppid, p.comm);
      break;
    }
    case SPMU_REC_MMAP: {
      const struct spmu_rec_mmap *m = r;
      printf("mmap %" PRIu32 " %" PRIu32 " %" PRIx64 " %" PRIu64 " %" PRIu64
             " %s\n",
             m->pid, m->tid, m->start, m->len, m->pgoff, m->path);
      break;
    }
    case SPMU_REC_THREAD: {
      const struct spmu_rec_thread *t = r;
      printf("thread %" PRIu32 " %" PRIu32 " %" PRIu64 "\n", t->pid, t->tid,
             t->time);
      break;
    }
    case SPMU_REC_SAMPLE: {
      const struct spmu_rec_sample *s = r;
      uint32_t i;

      printf("sample %" PRIu32 " %" PRIu32 " %" PRIu64 " %" PRIx64 " %" PRIu64
             " %" PRIu32,
             s->pid, s->tid, s->time, s->ip, s->period, s->event);
      for (i = 0; i < s->nr; i++)
        printf(" %" PRIx64, s->chain[i]);
      putchar('\n');
      print_brstack(s);
      break;
    }
    case SPMU_REC_EXIT: {
      const struct spmu_rec_exit *e = r;
      printf("exit %" PRIu32 " %" PRIu32 " %" PRIu64 "\n", e->pid, e->tid,
             e->time);
      break;
    }
    case SPMU_REC_REGS: {
      const struct spmu_rec_regs *g = r;
      unsigned i;
      printf("regs %" PRIu32 " %" PRIu32 " %" PRIx64, g->pid, g->tid,
             g->rflags);
      for (i = 0; i < SPMU_REC_NGPRS; i++)
        printf(" %" PRIx64, g->gpr[i]);
      printf("\n");
      break;
    }
    case SPMU_REC_LOST: {
      const struct spmu_rec_lost *l = r;
      printf("lost %" PRIu32 " %" PRIu32 " %" PRIu64 "\n", l->pid, l->tid,
             l->count);
      break;
    }
    default:
      break;
    }
    o += h->size;
  }
  return o == n ? 0 : 1;
}

int main(int argc, char **argv)
{
  FILE *f;
  unsigned char *d = NULL;
  size_t n = 0, cap = 0, got;
  int rc;

  if (argc != 2 || !(f = fopen(argv[1], "rb"))) {
    fprintf(stderr, "usage: rec_dump FILE\n");
    return 2;
  }
  do {
    if (n == cap) {
      unsigned char *p = realloc(d, cap = cap ? cap * 2 : 65536);
      if (!p)
        return 2;
      d = p;
    }
    got = fread(d + n, 1, cap - n, f);
    n += got;
  } while (got);
  fclose(f);
  rc = dump(d, n);
  free(d);
  return rc;
}

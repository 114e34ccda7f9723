/* SPDX-License-Identifier: MIT */
/* A sample stream as the QEMU plugin's record mode writes it
 * (protocol/record.h), from a text description, for the tests of
 * softpmu record --from and softpmu report (test_record.sh).
 *   test_record_stream OUT < description
 * One record a line, numbers in C syntax (0x for hex):
 *   process PID PPID COMM [VERSION | -]   (-: without the version field)
 *   mmap PID TID START LEN PGOFF PATH
 *   thread PID TID TIME
 *   sample PID TID TIME IP PERIOD EVENT [RETURN-ADDRESS...]
 *   exit PID TID TIME
 *   lost PID TID COUNT
 *   read PID TID EVENT COUNT...   the counts of the events EVENT leads
 *   regs PID TID RFLAGS RAX RCX RDX RBX RSP RBP RSI RDI R8 ... R15
 *   unknown TYPE          a record of that type, 24 bytes
 *   badsize               a record whose size is not a multiple of 8
 *   truncated             a SAMPLE record cut short by the end of file */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"

#define MAX_WORDS 64

static FILE *out;

static void put(const void *p, size_t n)
{
  if (fwrite(p, 1, n, out) != n) {
    perror("test_record_stream");
    exit(1);
  }
}

static uint64_t num(const char *s)
{
  return strtoull(s, NULL, 0);
}

/* As the plugin writes it (record.c), or with another version, or ("-")
 * as it was before it stated one. */
static void process(char **w, int nw)
{
  struct spmu_rec_process r;

  spmu_rec_process_fill(&r, (uint32_t)num(w[1]), (uint32_t)num(w[2]), w[3]);
  if (nw == 5 && strcmp(w[4], "-") == 0) {
    r.head.size = SPMU_REC_PROCESS_V1_SIZE;
    put(&r, SPMU_REC_PROCESS_V1_SIZE);
    return;
  }
  if (nw == 5)
    r.version = (uint32_t)num(w[4]);
  put(&r, sizeof(r));
}

static void mmap_rec(char **w)
{
  struct spmu_rec_mmap r;
  size_t plen = strlen(w[6]) + 1, pad = (8 - (sizeof(r) + plen) % 8) % 8;
  static const char zeros[8];

  r.head.type = SPMU_REC_MMAP;
  r.head.size = (uint32_t)(sizeof(r) + plen + pad);
  r.pid = (uint32_t)num(w[1]);
  r.tid = (uint32_t)num(w[2]);
  r.start = num(w[3]);
  r.len = num(w[4]);
  r.pgoff = num(w[5]);
  put(&r, sizeof(r));
  put(w[6], plen);
  put(zeros, pad);
}

/* THREAD and EXIT have the same layout. */
static void task(char **w, uint32_t type)
{
  struct spmu_rec_thread r = {{type, sizeof(r)}, 0, 0, 0};

  r.pid = (uint32_t)num(w[1]);
  r.tid = (uint32_t)num(w[2]);
  r.time = num(w[3]);
  put(&r, sizeof(r));
}

static void sample(char **w, int nw, int cut)
{
  struct spmu_rec_sample r;
  int i;

  r.head.type = SPMU_REC_SAMPLE;
  r.nr = (uint32_t)(nw - 7);
  r.head.size = (uint32_t)(sizeof(r) + 8 * r.nr);
  r.pid = (uint32_t)num(w[1]);
  r.tid = (uint32_t)num(w[2]);
  r.time = num(w[3]);
  r.ip = num(w[4]);
  r.period = num(w[5]);
  r.event = (uint32_t)num(w[6]);
  put(&r, sizeof(r) - (size_t)cut);
  for (i = 7; i < nw && !cut; i++) {
    uint64_t a = num(w[i]);

    put(&a, sizeof(a));
  }
}

static void lost(char **w)
{
  struct spmu_rec_lost r = {{SPMU_REC_LOST, sizeof(r)}, 0, 0, 0};

  r.pid = (uint32_t)num(w[1]);
  r.tid = (uint32_t)num(w[2]);
  r.count = num(w[3]);
  put(&r, sizeof(r));
}

static void read_rec(char **w, int nw)
{
  struct spmu_rec_read r;
  int i;

  r.head.type = SPMU_REC_READ;
  r.nr = (uint32_t)(nw - 4);
  r.head.size = (uint32_t)(sizeof(r) + 8 * r.nr);
  r.pid = (uint32_t)num(w[1]);
  r.tid = (uint32_t)num(w[2]);
  r.event = (uint32_t)num(w[3]);
  put(&r, sizeof(r));
  for (i = 4; i < nw; i++) {
    uint64_t c = num(w[i]);

    put(&c, sizeof(c));
  }
}

static void regs_rec(char **w)
{
  struct spmu_rec_regs r;
  int i;

  memset(&r, 0, sizeof(r));
  r.head.type = SPMU_REC_REGS;
  r.head.size = sizeof(r);
  r.pid = (uint32_t)num(w[1]);
  r.tid = (uint32_t)num(w[2]);
  r.rflags = num(w[3]);
  for (i = 0; i < SPMU_REC_NGPRS; i++)
    r.gpr[i] = num(w[4 + i]);
  put(&r, sizeof(r));
}

static void odd(char **w, int kind)
{
  uint32_t r[6] = {kind ? 4 : (uint32_t)num(w[1]), kind ? 12 : 24};

  put(r, kind ? 12 : sizeof(r));
}

static void line(char **w, int nw)
{
  if (strcmp(w[0], "process") == 0 && (nw == 4 || nw == 5))
    process(w, nw);
  else if (strcmp(w[0], "mmap") == 0 && nw == 7)
    mmap_rec(w);
  else if (strcmp(w[0], "thread") == 0 && nw == 4)
    task(w, SPMU_REC_THREAD);
  else if (strcmp(w[0], "exit") == 0 && nw == 4)
    task(w, SPMU_REC_EXIT);
  else if (strcmp(w[0], "sample") == 0 && nw >= 7)
    sample(w, nw, 0);
  else if (strcmp(w[0], "truncated") == 0)
    sample((char *[]){"", "1", "1", "0", "0", "1", "0"}, 7, 16);
  else if (strcmp(w[0], "lost") == 0 && nw == 4)
    lost(w);
  else if (strcmp(w[0], "read") == 0 && nw >= 5)
    read_rec(w, nw);
  else if (strcmp(w[0], "regs") == 0 && nw == 4 + SPMU_REC_NGPRS)
    regs_rec(w);
  else if (strcmp(w[0], "unknown") == 0 && nw == 2)
    odd(w, 0);
  else if (strcmp(w[0], "badsize") == 0)
    odd(w, 1);
  else {
    fprintf(stderr, "test_record_stream: bad line '%s' (%d words)\n", w[0], nw);
    exit(2);
  }
}

int main(int argc, char **argv)
{
  char buf[4096], *w[MAX_WORDS];

  if (argc != 2 || !(out = fopen(argv[1], "wb"))) {
    fprintf(stderr, "usage: test_record_stream OUT < description\n");
    return 2;
  }
  while (fgets(buf, sizeof(buf), stdin)) {
    int nw = 0;
    char *save = NULL, *t = strtok_r(buf, " \t\n", &save);

    for (; t && nw < MAX_WORDS; t = strtok_r(NULL, " \t\n", &save))
      w[nw++] = t;
    if (nw > 0)
      line(w, nw);
  }
  return fclose(out) != 0;
}

/* SPDX-License-Identifier: MIT */
/* A guest's linear memory for the PEBS / DS tests: one window of bytes,
 * reached through the host callbacks of events.h. Accesses outside the
 * window fail, and so does any access a test marks as failing. Every write
 * is logged so a test can check the model wrote nowhere else. */
#ifndef SPMU_TEST_GUEST_MEM_H
#define SPMU_TEST_GUEST_MEM_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <softpmu/softpmu.h>

#define GM_BASE UINT64_C(0x10000)
#define GM_SIZE 0x10000u
#define GM_DS GM_BASE              /* the DS management area */
#define GM_PEBS (GM_BASE + 0x1000) /* a one-page PEBS buffer */
#define GM_LOG 64

typedef struct guest_mem {
  uint8_t b[GM_SIZE];
  /* Accesses touching [fail_lo, fail_hi) fail. */
  uint64_t fail_lo, fail_hi;
  bool fail_reads, fail_writes;
  unsigned reads, writes, nlog;
  struct {
    uint64_t la;
    size_t len;
  } log[GM_LOG];
  spmu_machine_state state; /* what machine_state() hands the model */
  unsigned pmis;
} guest_mem;

static inline bool gm_ok(const guest_mem *m, uint64_t la, size_t len,
                         bool write)
{
  bool hit = la < m->fail_hi && la + len > m->fail_lo;
  if (la < GM_BASE || la + len > GM_BASE + GM_SIZE || la + len < la)
    return false;
  return !(hit && (write ? m->fail_writes : m->fail_reads));
}

static inline int gm_read(void *opaque, spmu_lp *l, uint64_t la, void *buf,
                          size_t len)
{
  guest_mem *m = opaque;
  (void)l;
  m->reads++;
  if (!gm_ok(m, la, len, false))
    return -1;
  memcpy(buf, m->b + (la - GM_BASE), len);
  return 0;
}

static inline int gm_write(void *opaque, spmu_lp *l, uint64_t la,
                           const void *buf, size_t len)
{
  guest_mem *m = opaque;
  (void)l;
  m->writes++;
  if (!gm_ok(m, la, len, true))
    return -1;
  if (m->nlog < GM_LOG) {
    m->log[m->nlog].la = la;
    m->log[m->nlog].len = len;
    m->nlog++;
  }
  memcpy(m->b + (la - GM_BASE), buf, len);
  return 0;
}

static inline void gm_state(void *opaque, spmu_lp *l, spmu_machine_state *st)
{
  guest_mem *m = opaque;
  (void)l;
  *st = m->state;
}

static inline void gm_pmi(void *opaque, spmu_lp *l)
{
  (void)l;
  ((guest_mem *)opaque)->pmis++;
}

static inline uint64_t gm_get(const guest_mem *m, uint64_t la, unsigned n)
{
  uint64_t v = 0;
  unsigned i;
  for (i = 0; i < n; i++)
    v |= (uint64_t)m->b[la - GM_BASE + i] << (8 * i);
  return v;
}

static inline void gm_put(guest_mem *m, uint64_t la, uint64_t v, unsigned n)
{
  unsigned i;
  for (i = 0; i < n; i++)
    m->b[la - GM_BASE + i] = (uint8_t)(v >> (8 * i));
}

/* Install m as core c's host. */
static inline void gm_attach(guest_mem *m, spmu_core *c)
{
  spmu_host h = {.opaque = m,
                 .pmi = gm_pmi,
                 .read_mem = gm_read,
                 .write_mem = gm_write,
                 .machine_state = gm_state};
  spmu_core_set_host(c, &h);
}

/* The 64-bit DS management area (SDM 17.4.9.1 Figure 17-8): PEBS base 20H,
 * index 28H, absolute maximum 30H, interrupt threshold 38H, counter reset
 * 40H + 8i, fixed counter j reset 80H + 8j (SDM 18.9.2). */
static inline void gm_ds64(guest_mem *m, uint64_t base, uint64_t max,
                           uint64_t threshold)
{
  gm_put(m, GM_DS + 0x20, base, 8);
  gm_put(m, GM_DS + 0x28, base, 8);
  gm_put(m, GM_DS + 0x30, max, 8);
  gm_put(m, GM_DS + 0x38, threshold, 8);
}

static inline uint64_t gm_index64(const guest_mem *m)
{
  return gm_get(m, GM_DS + 0x28, 8);
}

#endif

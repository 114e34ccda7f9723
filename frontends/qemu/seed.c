/* SPDX-License-Identifier: GPL-2.0-or-later */
/* getrandom(2) from a seed (seed.h). QEMU's -seed N makes the bytes QEMU
 * itself draws deterministic (AT_RANDOM, RDRAND and RDSEED), but its
 * user mode hands getrandom to the host; the plugin replaces what the
 * host wrote. The generator is SplitMix64 (Steele, Lea and Flood,
 * "Fast splittable pseudorandom number generators", OOPSLA 2014): the
 * state steps by the golden-ratio constant and each output mixes it.
 * Each call takes whole outputs, little-endian, the rest of the last
 * one dropped: a call of n bytes uses ceil(n / 8) of them
 * (docs/decisions.md, "--seed"). */
#include "seed.h"

#include <stdlib.h>
#include <string.h>

#include "vcpu.h" /* MAX_VCPUS */

/* Reads as large as the host's getrandom returns in one call (Linux
 * returns at most 32 MiB - 1 bytes) are written a chunk at a time. */
#define CHUNK 4096

struct spmu_qemu_seed {
  uint64_t state;
  uint64_t buf[MAX_VCPUS]; /* each vCPU's getrandom buffer, at its call */
};

struct spmu_qemu_seed *spmu_qemu_seed_new(uint64_t seed)
{
  struct spmu_qemu_seed *s = calloc(1, sizeof(*s));

  if (s)
    s->state = seed;
  return s;
}

void spmu_qemu_seed_free(struct spmu_qemu_seed *s)
{
  free(s);
}

static uint64_t next(struct spmu_qemu_seed *s)
{
  uint64_t z = (s->state += UINT64_C(0x9e3779b97f4a7c15));

  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

void spmu_qemu_seed_bytes(struct spmu_qemu_seed *s, void *buf, uint64_t n)
{
  unsigned char *b = buf;

  while (n) {
    uint64_t x = next(s);
    unsigned i;

    for (i = 0; i < 8 && n; i++, n--, x >>= 8)
      *b++ = (unsigned char)x;
  }
}

void spmu_qemu_seed_call(struct spmu_qemu_seed *s, unsigned vcpu, uint64_t buf)
{
  if (vcpu < MAX_VCPUS)
    s->buf[vcpu] = buf;
}

bool spmu_qemu_seed_return(struct spmu_qemu_seed *s,
                           const struct spmu_qemu_guest_mem *m, unsigned vcpu,
                           int64_t ret)
{
  unsigned char chunk[CHUNK];
  uint64_t at, left;

  if (ret <= 0 || vcpu >= MAX_VCPUS)
    return true;
  at = s->buf[vcpu];
  for (left = (uint64_t)ret; left;) {
    uint64_t n = left < CHUNK ? left : CHUNK;

    spmu_qemu_seed_bytes(s, chunk, n);
    if (!spmu_qemu_guest_write(m, at, chunk, n))
      return false;
    at += n;
    left -= n;
  }
  return true;
}

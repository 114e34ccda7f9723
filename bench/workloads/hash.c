/* SPDX-License-Identifier: MIT */
/* A branchy workload for bench/bench_stat.sh: open-addressing hash table
 * inserts and lookups with data-dependent branches. Prints a checksum so
 * the work cannot be optimised away. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define SLOTS (1u << 16)

static uint64_t keys[SLOTS];
static uint32_t vals[SLOTS];

static uint64_t next(uint64_t *s)
{
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static uint32_t *slot_of(uint64_t k)
{
  uint32_t i = (uint32_t)(k * 0x9E3779B97F4A7C15u >> 48) & (SLOTS - 1);

  while (keys[i] && keys[i] != k)
    i = (i + 1) & (SLOTS - 1);
  keys[i] = k;
  return &vals[i];
}

int main(int argc, char **argv)
{
  unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 0) : 2000;
  uint64_t s = 88172645463325252u, sum = 0;
  unsigned long r, i;

  for (r = 0; r < rounds; r++) {
    for (i = 0; i < SLOTS / 2; i++) {
      uint64_t k = (next(&s) & 0xFFFFF) + 1;
      uint32_t *v = slot_of(k);
      if (k & 1)
        *v += 1;
      else
        *v ^= (uint32_t)k;
      sum += *v;
    }
    for (i = 0; i < SLOTS; i++)
      keys[i] = 0;
  }
  printf("%llu\n", (unsigned long long)sum);
  return 0;
}

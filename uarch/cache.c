/* SPDX-License-Identifier: MIT */
/* One set-associative cache with true LRU replacement and write-allocate.
 *
 * Rules (the same as cachegrind's simulator, so that its compatibility
 * configuration agrees count for count):
 *   - set = block mod sets, with block = address >> log2(line): plain bit
 *     selection, no hashing;
 *   - the tag kept is the whole block number;
 *   - each set is kept most-recently-used first: a hit moves the line to
 *     the front, a miss inserts it at the front and drops the last (LRU)
 *     way. No dirty state: write-backs are not modelled.
 * The geometry checks are cachegrind's, in its order and words. */
#include "internal.h"

#include <stdlib.h>

/* Smallest line cachegrind accepts: any smaller and one instruction could
 * straddle three lines. */
#define SPMU_CACHE_MIN_LINE 16u

static int is_pow2(uint64_t x)
{
  return x != 0 && (x & (x - 1)) == 0;
}

static uint32_t log2_u32(uint32_t x)
{
  uint32_t n = 0;

  while (x > 1) {
    x >>= 1;
    n++;
  }
  return n;
}

const char *spmu_cache_check(const spmu_uarch_geom *g)
{
  uint64_t way_bytes = (uint64_t)g->line * g->ways;

  if (g->ways == 0)
    return "Cache associativity must be at least 1.";
  if (way_bytes == 0 || g->size % way_bytes != 0 ||
      !is_pow2(g->size / way_bytes))
    return "Cache set count is not a power of two.";
  if (!is_pow2(g->line))
    return "Cache line size is not a power of two.";
  if (g->line < SPMU_CACHE_MIN_LINE)
    return "Cache line size is too small.";
  if (g->size <= g->line)
    return "Cache size <= line size.";
  if (g->ways > g->size / g->line)
    return "Cache associativity > (size / line size).";
  return NULL;
}

int spmu_cache_init(spmu_cache *c, const spmu_uarch_geom *g, uint64_t empty)
{
  c->ways = g->ways;
  c->sets = g->size / g->line / g->ways;
  c->line_bits = log2_u32(g->line);
  c->empty = empty;
  c->tags = malloc((size_t)c->sets * c->ways * sizeof *c->tags);
  if (!c->tags)
    return -1;
  spmu_cache_clear(c);
  return 0;
}

void spmu_cache_fini(spmu_cache *c)
{
  free(c->tags);
  c->tags = NULL;
}

void spmu_cache_clear(spmu_cache *c)
{
  size_t n = (size_t)c->sets * c->ways;

  for (size_t i = 0; i < n; i++)
    c->tags[i] = c->empty;
}

int spmu_cache_invalidate(spmu_cache *c, uint64_t block)
{
  uint64_t *set = c->tags + (size_t)(block & (c->sets - 1)) * c->ways;

  for (uint32_t i = 0; i < c->ways; i++) {
    if (set[i] == block) {
      for (; i + 1 < c->ways; i++)
        set[i] = set[i + 1];
      set[c->ways - 1] = c->empty;
      return 1;
    }
  }
  return 0;
}

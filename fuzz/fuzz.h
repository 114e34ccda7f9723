/* The libFuzzer entry point every harness defines. fuzz/replay.c calls it
 * for each corpus file when the harness is built without libFuzzer. */
#ifndef SPMU_FUZZ_FUZZ_H
#define SPMU_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* The library's bit helpers (spmu_width_mask, spmu_get_le, spmu_put_le),
 * found next to this file whatever the target's include path. */
#include "../src/util/bits.h"

/* Run one input; returns 0. A violated property calls abort(). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- what every harness uses ------------------------------------------- */

/* The input, read front to back; past its end every read gives 0. */
typedef struct reader {
  const uint8_t *p;
  size_t n;
} reader;

static inline uint8_t u8(reader *r)
{
  if (!r->n)
    return 0;
  r->n--;
  return *r->p++;
}

/* `bytes` bytes, little-endian. */
static inline uint64_t uN(reader *r, unsigned bytes)
{
  uint64_t v = 0;
  unsigned i;
  for (i = 0; i < bytes; i++)
    v |= (uint64_t)u8(r) << (8 * i);
  return v;
}

static inline uint16_t u16(reader *r) { return (uint16_t)uN(r, 2); }
static inline uint32_t u32(reader *r) { return (uint32_t)uN(r, 4); }
static inline uint64_t u64(reader *r) { return uN(r, 8); }

/* A batch size for spmu_deliver: one clock, a few, many, "forever", or
 * around the deadline (the next PMI): one before, at, one after (no PMI
 * ahead: a huge count). */
static inline uint64_t pick_clocks(reader *in, uint64_t deadline)
{
  switch (u8(in) % 8) {
  case 0:
  case 1:
    return 1;
  case 2:
  case 3:
    return 1 + (uint64_t)u8(in);
  case 4:
    return 1 + (uint64_t)u16(in);
  case 5:
    return u64(in) | 1;
  case 6:
    return UINT64_MAX;
  default: {
    uint64_t k = u8(in) % 3;
    if (deadline == UINT64_MAX)
      return UINT64_MAX - k;
    if (k == 0)
      return deadline > 1 ? deadline - 1 : 1;
    return k == 1 || deadline == UINT64_MAX - 1 ? deadline : deadline + 1;
  }
  }
}

static inline unsigned long long ull(uint64_t v)
{
  return (unsigned long long)v;
}

#endif

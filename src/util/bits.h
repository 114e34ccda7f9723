/* SPDX-License-Identifier: MIT */
/* Bit helpers. Guest-visible state is uint64_t plus these; no C bit-fields. */
#ifndef SPMU_UTIL_BITS_H
#define SPMU_UTIL_BITS_H

#include <stdint.h>

#define BIT64(n) (UINT64_C(1) << (n))
/* Bits h..l inclusive (h >= l, h <= 63). */
#define GENMASK64(h, l) ((~UINT64_C(0) >> (63 - (h))) & (~UINT64_C(0) << (l)))

/* The low w bits set (w = 0..64). */
static inline uint64_t spmu_width_mask(unsigned w)
{
  return w >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << w) - 1;
}

/* Bits lsb..lsb+w-1 set. */
static inline uint64_t spmu_field_mask(unsigned lsb, unsigned w)
{
  return spmu_width_mask(w) << lsb;
}

/* Sign-extend bit 31 of v to 64 bits. */
static inline uint64_t spmu_sext32(uint64_t v)
{
  return (uint64_t)(int64_t)(int32_t)(uint32_t)v;
}

/* Number of consecutive 1 bits starting at bit 0. */
static inline unsigned spmu_trailing_ones(uint64_t v)
{
  unsigned n = 0;
  while (n < 64 && (v >> n) & 1)
    n++;
  return n;
}

static inline unsigned spmu_popcount(uint64_t v)
{
  unsigned n = 0;
  for (; v; v &= v - 1)
    n++;
  return n;
}

/* Little-endian n-byte (n <= 8) store and load. */
static inline void spmu_put_le(uint8_t *p, uint64_t v, unsigned n)
{
  unsigned i;
  for (i = 0; i < n; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint64_t spmu_get_le(const uint8_t *p, unsigned n)
{
  uint64_t v = 0;
  unsigned i;
  for (i = 0; i < n; i++)
    v |= (uint64_t)p[i] << (8 * i);
  return v;
}

/* Index of the lowest set bit of v != 0. */
static inline unsigned spmu_ctz32(uint32_t v)
{
  return (unsigned)__builtin_ctz(v);
}

/* Number of leading zero bits of v != 0. */
static inline unsigned spmu_clz32(uint32_t v)
{
  return (unsigned)__builtin_clz(v);
}

#endif

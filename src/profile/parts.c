/* SPDX-License-Identifier: MIT */
/* The parts: one descriptor per processor, its caches as CPUID leaf 04H
 * reports them, the modelled micro-architecture's predictor and timing
 * (parts.h).
 *
 * Caches. Sandy Bridge, Haswell, Skylake: L1D, L1I and L2 as the
 * cache-parameters tables of the Intel 64 and IA-32 Architectures
 * Optimization Reference Manual give them (chapter 2, one section per
 * microarchitecture), L3 as leaf 04H of the 4-core desktop parts (Core
 * i7-2600, i7-4770, i7-6700K) reports it: L1D and L1I 32 KB 8-way, L2
 * 256 KB (8-way; 4-way on Skylake), L3 8 MB 16-way, inclusive of the
 * core caches, complex indexing, shared by 16 logical processors of 8
 * addressable cores. Ice Lake (client, Sunny Cove): the Core i7-1065G7's,
 * L1D 48 KB 12-way (EBX[31:22] + 1 = 12, 64 sets, on the Core i5-1035G1
 * and i7-1065G7; the optimization manual's 8-way is wrong), L1I 32 KB
 * 8-way, L2 512 KB 8-way, L3 8 MB 16-way, inclusive: the inclusiveness
 * of L2 and the LLC changed only with Willow Cove (Tiger Lake). Sapphire
 * Rapids (4th generation Xeon Scalable): one core of the part, L1D 48 KB
 * 12-way, L1I 32 KB 8-way, its own L2 (2 MB 16-way) and its slice of the
 * L3 (1.875 MB, 15-way, 2048 sets), non-inclusive as on every Xeon
 * Scalable part since Skylake-SP: a package of one core, whose two
 * threads share every level.
 *
 * Predictor and timing are the modelled micro-architecture's stated
 * parameters, not Intel's (Intel does not document its predictors): gshare
 * of 2^16 counters with 16 bits of history, a 4096-entry BTB, a 16-entry
 * return-stack buffer; latencies are round load-to-use figures beyond an
 * L1 hit, and ref 1/1 models the core at its base frequency. The
 * reorder buffer (rob) and the L1D fill buffers bound the memory-level
 * parallelism (uarch/timing.c): ROB entries as the optimization manual's
 * section on each microarchitecture gives them (Sandy Bridge 168, Haswell
 * 192, Skylake 224, Sunny Cove 352, Golden Cove 512); fill buffers 10 on
 * Sandy Bridge and Haswell, 12 on Skylake and Sunny Cove, 16 on Golden
 * Cove, as commonly reported (not confirmed from the manual here).
 * llc_adaptive: the LLC's insertion adapts (uarch/llc.c), as the L3 of
 * Intel's parts since Ivy Bridge is measured to (its hit rate under a
 * stream larger than it, H. Wong, "Intel Ivy Bridge Cache Replacement
 * Policy", 2013); Sandy Bridge's L3, measured not to, stays true LRU. */
#include "profile/parts.h"

#include <string.h>

#include "softpmu/profile.h"

#define KIB 1024u
#define MIB (1024u * KIB)

/* Not formatted: a table, one part a block. */
/* clang-format off */
/* Every part's predictor (uarch/README.md, "Branch prediction"). */
#define GSHARE_16 {.hist_bits = 16, .btb = 4096, .rsb = 16}

/* The L1 caches and the client LLC most parts share: 32 KB 8-way per
 * core (shared by its two threads); 8 MB 16-way, inclusive, with the
 * hashed slice index, shared by the package's 16 threads. */
#define L1_32K_8WAY {.size = 32 * KIB, .ways = 8, .sharing = 2}
#define LLC_8M_16WAY_INCLUSIVE \
  {.size = 8 * MIB, .ways = 16, .sharing = 16, .inclusive = true, \
   .complex_index = true}

/* In the order spmu_part_at gives (the modelled micro-architecture's list). */
static const struct spmu_part_desc parts[] = {
  {.id = SPMU_PART_SKYLAKE, .name = "skylake", .cores = 8, .line = 64,
   .l1d = L1_32K_8WAY,
   .l1i = L1_32K_8WAY,
   .l2 = {.size = 256 * KIB, .ways = 4, .sharing = 2},
   .llc = LLC_8M_16WAY_INCLUSIVE,
   .bpred = GSHARE_16,
   .timing = {.issue_width = 4, .lat_l2 = 12, .lat_llc = 42, .lat_mem = 250,
              .misp_penalty = 16, .ref_num = 1, .ref_den = 1,
              .rob = 224, .fill_buffers = 12},
   .llc_adaptive = true},
  {.id = SPMU_PART_HASWELL, .name = "haswell", .cores = 8, .line = 64,
   .l1d = L1_32K_8WAY,
   .l1i = L1_32K_8WAY,
   .l2 = {.size = 256 * KIB, .ways = 8, .sharing = 2},
   .llc = LLC_8M_16WAY_INCLUSIVE,
   .bpred = GSHARE_16,
   .timing = {.issue_width = 4, .lat_l2 = 12, .lat_llc = 36, .lat_mem = 230,
              .misp_penalty = 15, .ref_num = 1, .ref_den = 1,
              .rob = 192, .fill_buffers = 10},
   .llc_adaptive = true},
  {.id = SPMU_PART_SANDYBRIDGE, .name = "sandybridge", .cores = 8, .line = 64,
   .l1d = L1_32K_8WAY,
   .l1i = L1_32K_8WAY,
   .l2 = {.size = 256 * KIB, .ways = 8, .sharing = 2},
   .llc = LLC_8M_16WAY_INCLUSIVE,
   .bpred = GSHARE_16,
   .timing = {.issue_width = 4, .lat_l2 = 12, .lat_llc = 30, .lat_mem = 200,
              .misp_penalty = 15, .ref_num = 1, .ref_den = 1,
              .rob = 168, .fill_buffers = 10}},
  {.id = SPMU_PART_ICELAKE, .name = "icelake", .cores = 8, .line = 64,
   .l1d = {.size = 48 * KIB, .ways = 12, .sharing = 2},
   .l1i = L1_32K_8WAY,
   .l2 = {.size = 512 * KIB, .ways = 8, .sharing = 2},
   .llc = LLC_8M_16WAY_INCLUSIVE,
   .bpred = GSHARE_16,
   .timing = {.issue_width = 5, .lat_l2 = 13, .lat_llc = 42, .lat_mem = 250,
              .misp_penalty = 16, .ref_num = 1, .ref_den = 1,
              .rob = 352, .fill_buffers = 12},
   .llc_adaptive = true},
  {.id = SPMU_PART_SAPPHIRERAPIDS, .name = "sapphirerapids", .cores = 1,
   .line = 64,
   .l1d = {.size = 48 * KIB, .ways = 12, .sharing = 2},
   .l1i = L1_32K_8WAY,
   .l2 = {.size = 2 * MIB, .ways = 16, .sharing = 2},
   .llc = {.size = 1920 * KIB, .ways = 15, .sharing = 2,
           .complex_index = true},
   .bpred = GSHARE_16,
   .timing = {.issue_width = 6, .lat_l2 = 15, .lat_llc = 60, .lat_mem = 300,
              .misp_penalty = 17, .ref_num = 1, .ref_den = 1,
              .rob = 512, .fill_buffers = 16},
   .llc_adaptive = true},
};
/* clang-format on */
#define NPARTS (sizeof parts / sizeof parts[0])

const struct spmu_part_desc *spmu_part_by_id(unsigned id)
{
  size_t i;

  for (i = 0; id != SPMU_PART_NONE && i < NPARTS; i++)
    if (parts[i].id == id)
      return &parts[i];
  return NULL;
}

const struct spmu_part_desc *spmu_part_by_name(const char *name, size_t len)
{
  size_t i;

  for (i = 0; i < NPARTS; i++)
    if (strlen(parts[i].name) == len && strncmp(parts[i].name, name, len) == 0)
      return &parts[i];
  return NULL;
}

const struct spmu_part_desc *spmu_part_at(unsigned index)
{
  return index < NPARTS ? &parts[index] : NULL;
}

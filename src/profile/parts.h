/* SPDX-License-Identifier: MIT */
/* The parts (parts.c): what a processor is beyond its PMU, one descriptor
 * each, data only. A preset names its part (spmu_profile.part, profile.c);
 * CPUID leaf 04H is derived from the part's caches (cpuid.c), and the
 * modelled micro-architecture (uarch/config.c, part:NAME) takes the same
 * caches, its predictor and its timing from here. Nothing else states
 * these numbers. Calls nothing; callable from src/profile and uarch/. */
#ifndef SPMU_PROFILE_PARTS_H
#define SPMU_PROFILE_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One cache as CPUID leaf 04H describes it (SDM Vol. 2A CPUID, Table 3-8,
 * leaf 04H): size = ways x partitions x line x sets, with one partition
 * and the part's line. */
struct spmu_part_cache {
  uint32_t size;      /* bytes */
  uint16_t ways;      /* EBX[31:22] + 1 */
  uint16_t sharing;   /* EAX[25:14] + 1: logical processors sharing it */
  bool inclusive;     /* EDX[1]: inclusive of the lower levels */
  bool complex_index; /* EDX[2]: complex cache indexing */
};

/* The default predictor of the modelled micro-architecture
 * (uarch/bpred.c): gshare over hist_bits of history (2^hist_bits
 * counters), a direct-mapped BTB, a return-stack buffer. */
struct spmu_part_bpred {
  uint32_t hist_bits;
  uint32_t btb; /* entries, a power of two */
  uint32_t rsb; /* entries */
};

/* The modelled micro-architecture's timing (uarch/timing.c): extra cycles
 * beyond an L1 hit, not a cycle-accurate pipeline. */
struct spmu_part_timing {
  uint32_t issue_width;  /* instructions per cycle when nothing stalls */
  uint32_t lat_l2;       /* an L1 miss served by L2 */
  uint32_t lat_llc;      /* a miss served by the LLC */
  uint32_t lat_mem;      /* an LLC miss */
  uint32_t misp_penalty; /* a mispredicted branch */
  uint32_t ref_num;      /* reference cycles = core cycles * ref_num */
  uint32_t ref_den;      /*                    / ref_den            */
  uint32_t rob;          /* reorder-buffer entries (memory-level */
  uint32_t fill_buffers; /* parallelism), L1D misses outstanding */
};

struct spmu_part_desc {
  unsigned id;      /* enum spmu_part (softpmu/profile.h) */
  const char *name; /* part=NAME, part:NAME; the preset's name */
  uint8_t cores;    /* addressable core IDs in the package: EAX[31:26] + 1 */
  uint16_t line;    /* every level's line size: EBX[11:0] + 1 */
  /* Leaf 04H's sub-leaves 0-3: L1D (data), L1I (instruction), L2 and the
   * last level, L3 (unified). */
  struct spmu_part_cache l1d, l1i, l2, llc;
  struct spmu_part_bpred bpred;
  struct spmu_part_timing timing;
  /* The modelled LLC's insertion adapts by set dueling (uarch/llc.c),
   * else it is true LRU; not in CPUID. */
  bool llc_adaptive;
};

/* The part whose enum spmu_part is id; NULL for SPMU_PART_NONE and for a
 * number no part has. */
const struct spmu_part_desc *spmu_part_by_id(unsigned id);

/* The part named name[0..len) exactly; NULL if none is. */
const struct spmu_part_desc *spmu_part_by_name(const char *name, size_t len);

/* The parts in a stable order (the modelled micro-architecture's list),
 * index 0 up; NULL past the last. */
const struct spmu_part_desc *spmu_part_at(unsigned index);

#endif

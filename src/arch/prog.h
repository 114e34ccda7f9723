/* SPDX-License-Identifier: MIT */
/* The architectural engine's per-logical-processor state (src/arch): its
 * compiled counting program and edge state. Types only, so that the core
 * can hold them in struct spmu_lp (src/core/objects.h) without knowing the
 * engine's code. */
#ifndef SPMU_ARCH_PROG_H
#define SPMU_ARCH_PROG_H

#include <stdbool.h>
#include <stdint.h>

#include "core/state.h"

/* Counters by engine counter index (core/state.h). */
#define SPMU_NCTR (SPMU_MAX_GP + SPMU_MAX_FIXED)

/* The counting engine's compiled view of one counter: what its event
 * select (or FIXED_CTR_CTRL block) and GLOBAL_CTRL say, decoded once when
 * they change instead of on every clock (src/arch/count.c). */
struct spmu_pe {
  /* Where the counter finds its raw count in the clock's line sums, by
   * clock variant (bit 0: CPL > 0, bit 1: inside a transaction). A clock
   * the counter filters out (USR/OS, ENABLE, IN_TX) points at a zero sum. */
  uint8_t raw_at[4];
  uint8_t c; /* counter index (struct spmu_regs ctr[c]); for GP
                counters also the edge state bit */
  uint8_t cmask;
  uint8_t flags; /* SPMU_PE_* */
};

enum {
  SPMU_PE_GP = 1u << 0,   /* a GP counter (CMASK/INV/E logic, edge state) */
  SPMU_PE_COND = 1u << 1, /* CMASK != 0 or E: the count is not the raw sum */
  SPMU_PE_PMI = 1u << 2,  /* overflow requests a PMI (INT / PMI) */
  SPMU_PE_INV = 1u << 3,
  SPMU_PE_EDGE = 1u << 4,
  SPMU_PE_ANY = 1u << 6, /* AnyThread */
  SPMU_PE_LL = 1u << 7,  /* load-latency PEBS (LL_EN): counts only loads
                            slower than MSR_PEBS_LD_LAT_THRESHOLD */
};

/* Line-sum slots past the program's keys (count.c line_sums): ZERO always
 * holds 0 (filtered clocks read it), DUMP takes lines no counter counts.
 * They are not adjacent, so their two zero stores stay two scalar stores
 * (a merged 16-byte store cannot forward to DUMP's 8-byte reads). */
#define SPMU_KEY_ZERO SPMU_NCTR
#define SPMU_KEY_DUMP (SPMU_NCTR + 2)
#define SPMU_KEY_SUMS (SPMU_NCTR + 3) /* line_sums' array */
#define SPMU_KEY_SLOTS 64 /* the program's key hash table (6 bits) */

struct spmu_prog {
  uint32_t en_at[2];     /* entries enabled at CPL 0 / CPL > 0 (bit k = e[k]) */
  uint32_t any;          /* entries with AnyThread set */
  uint32_t any_gp;       /* GP counters with AnyThread set (bit i = PMCi) */
  uint64_t pmi_ctrs;     /* counters whose overflow requests a PMI (bit c) */
  uint32_t pebs_ctrs;    /* counters whose overflow arms PEBS (bit c) */
  uint32_t stop_entries; /* entries whose wrap ends a batch (PMI or PEBS) */
  /* Multiplier of the key hash (count.c key_slot): no two keys share a
   * slot; 0 when none of the candidates managed that. */
  uint32_t hash_mult;
  uint8_t n;        /* entries */
  uint8_t ngp;      /* entries 0..ngp-1 are GP counters, the rest fixed */
  uint8_t nkeys;    /* distinct lines counted */
  bool has_edge;    /* some entry uses edge detection */
  uint32_t derived; /* entries whose count is derived from the raw count
                       (CMASK, E, load latency); the others add it */
  bool fast;        /* one clock may take the plain path (count.c
                       plain_clock): none derived, every entry enabled at
                       every CPL, not frozen by CTR_Frz, widths < 64 */
  uint8_t slot[SPMU_KEY_SLOTS]; /* key hash -> index in keys, or DUMP */
  uint16_t keys[SPMU_KEY_SUMS]; /* (event select, umask) as one uint16_t
                                   in host byte order (count.c
                                   native_key); ZERO and DUMP unused */
  struct spmu_pe e[SPMU_NCTR];
};

#define SPMU_EDGE_PENDING (UINT32_C(1) << 31)
#define SPMU_EDGE_VARIANT_SHIFT 29

#endif

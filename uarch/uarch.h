/* SPDX-License-Identifier: MIT */
/* softpmu's modelled micro-architecture: caches, branch prediction and a
 * simple timing model, fed by a front end (memory accesses, instruction
 * fetches, branch outcomes, retired instructions) and read back as counts.
 *
 * Two configurations:
 *   - "cachegrind": valgrind's cachegrind simulation, reproduced exactly
 *     (I1 and D1 in front of one last-level cache LL; its 2-bit-counter
 *     conditional predictor and last-target indirect predictor), so that
 *     its D1/LL misses and mispredicts can be compared count for count;
 *   - "part:NAME": a processor's cache geometry (L1I, L1D, L2, LLC,
 *     inclusive or not) with a stated default predictor (gshare, a BTB, a
 *     return-stack buffer).
 * Neither is Intel's real hardware: they are models with stated rules
 * (uarch/README.md). The library does no I/O and allocates only in
 * spmu_uarch_new. Not thread-safe: one instance per simulated core.
 *
 * Growth: fields are only added at the end of the structs below. */
#ifndef SPMU_UARCH_H
#define SPMU_UARCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One cache's geometry: total bytes, ways (associativity), line bytes. A
 * size of 0 means the level is absent. */
typedef struct spmu_uarch_geom {
  uint32_t size;
  uint32_t ways;
  uint32_t line;
} spmu_uarch_geom;

typedef enum spmu_uarch_mode {
  SPMU_UARCH_CACHEGRIND = 1, /* I1, D1 -> LL; cachegrind's predictor */
  SPMU_UARCH_PART = 2        /* L1I, L1D -> L2 -> LLC; gshare, BTB, RSB */
} spmu_uarch_mode;

/* The timing model (uarch/timing.c): not cycle-accurate. */
typedef struct spmu_uarch_timing {
  uint32_t issue_width;  /* instructions per cycle when nothing stalls */
  uint32_t lat_l2;       /* extra cycles for an L1 miss served by L2 */
  uint32_t lat_llc;      /* extra cycles for a miss served by the LLC */
  uint32_t lat_mem;      /* extra cycles for an LLC miss (memory) */
  uint32_t misp_penalty; /* cycles lost per mispredicted branch */
  uint32_t ref_num;      /* reference cycles = core cycles * ref_num */
  uint32_t ref_den;      /*                    / ref_den            */
  /* Memory-level parallelism (timing.c): data accesses served by the LLC
   * or memory that begin within rob instructions of the first of their
   * group overlap, at most fill_buffers of them a group; fill_buffers 0
   * or 1: none overlap. */
  uint32_t rob;          /* reorder-buffer entries */
  uint32_t fill_buffers; /* L1D misses outstanding at once */
} spmu_uarch_timing;

/* The default predictor of the part configurations (uarch/bpred.c). */
typedef struct spmu_uarch_bpred_geom {
  uint32_t hist_bits; /* global history length; the table has 2^bits */
  uint32_t btb;       /* BTB entries (power of two), direct-mapped */
  uint32_t rsb;       /* return-stack buffer entries */
} spmu_uarch_bpred_geom;

typedef struct spmu_uarch_config {
  spmu_uarch_mode mode;
  char name[32];               /* "cachegrind" or the part's name */
  spmu_uarch_geom l1i;         /* cachegrind: I1 */
  spmu_uarch_geom l1d;         /* cachegrind: D1 */
  spmu_uarch_geom l2;          /* cachegrind: absent (size 0) */
  spmu_uarch_geom llc;         /* cachegrind: LL */
  int llc_inclusive;           /* 1: an LLC eviction invalidates L1I, L1D, L2 */
  spmu_uarch_bpred_geom bpred; /* SPMU_UARCH_PART only */
  spmu_uarch_timing timing;
  /* The part LLC's insertion adapts by set dueling (uarch/llc.c); 0:
   * true LRU. SPMU_UARCH_PART only. */
  int llc_adaptive;
} spmu_uarch_config;

/* Parse a model specification:
 *   cachegrind[:I1=S,A,L][:D1=S,A,L][:LL=S,A,L]   (cachegrind's --I1/--D1/
 *       --LL triples, size,assoc,line_size; any omitted one takes
 *       cachegrind's x86/amd64 default; each checked as cachegrind does)
 *   part:NAME                                      (spmu_uarch_part_names)
 * Returns 0, or -1 with a NUL-terminated message in err (errlen > 0). */
int spmu_uarch_config_parse(const char *spec, spmu_uarch_config *out, char *err,
                            size_t errlen);

/* The part configurations' names, index 0 up; NULL past the last. */
const char *spmu_uarch_part_name(unsigned index);

typedef struct spmu_uarch spmu_uarch;

/* A model for a configuration (checked again: NULL if invalid or out of
 * memory, with the reason in err when err is not NULL). All state is
 * allocated here; nothing is allocated afterwards. */
spmu_uarch *spmu_uarch_new(const spmu_uarch_config *cfg, char *err,
                           size_t errlen);
void spmu_uarch_free(spmu_uarch *u);
/* Empty caches, predictor and counts, as just created. */
void spmu_uarch_reset(spmu_uarch *u);

/* Where an access was served: the deepest level any of its lines reached. */
typedef enum spmu_uarch_level {
  SPMU_UARCH_L1 = 1,
  SPMU_UARCH_L2 = 2,
  SPMU_UARCH_LLC = 3,
  SPMU_UARCH_MEM = 4
} spmu_uarch_level;

/* One access of len bytes (len 0 counts as 1) at addr: an instruction
 * fetch (is_fetch, through L1I), else a data read or write (is_write)
 * through L1D. Returns where it was served. A read-modify-write of one
 * location by one instruction is one read in the cachegrind configuration
 * (cachegrind counts it so); the front end passes it as a read. */
spmu_uarch_level spmu_uarch_access(spmu_uarch *u, uint64_t addr, uint32_t len,
                                   int is_write, int is_fetch);

/* n more instruction fetches, each within the line of the fetch before it
 * (which left that line the most recently used of its L1I set): n hits
 * that change no cache state, counted as spmu_uarch_access counts them.
 * For a front end that knows which instructions share a line; only where
 * nothing can remove that line from L1I in between (no inclusive LLC,
 * whose evictions by data accesses can). */
void spmu_uarch_fetch_hits(spmu_uarch *u, uint64_t n);

/* One instruction's fetch as a front end describes it once (when it
 * translates a block) and hands it over many times: its address and
 * length, and same = k > 0 when its bytes and those of the k - 1
 * instructions after it lie in the L1I line of the instruction before it,
 * which the front end fetched just before (0 otherwise). */
typedef struct spmu_uarch_fetch {
  uint64_t addr;
  uint32_t len;
  uint32_t same;
} spmu_uarch_fetch;

/* The fetches f[0..n) in order, each counted as spmu_uarch_access(u,
 * addr, len, 0, 1) counts it. The fetches of a run marked same hit the
 * line the fetch before them left the most recently used of its L1I set,
 * with no set walk and no work per fetch; with an inclusive LLC only
 * while that line is still there (an LLC eviction by a data access in
 * between can remove it: then the run's first fetch goes through the
 * hierarchy as any other). */
void spmu_uarch_fetch_run(spmu_uarch *u, const spmu_uarch_fetch *f, uint32_t n);

/* reads more data reads and writes more data writes, each within the
 * line of the data access before it, which left that line the most
 * recently used of its L1D set: hits that change no cache state, counted
 * as spmu_uarch_access counts them. For a front end that keeps the line
 * of its last data access (the last line it touched; spmu_uarch_access
 * leaves it the most recently used), and only while no LLC
 * back-invalidation (llc_back_invalidations) came after that access: one
 * can take the line out of L1D. */
void spmu_uarch_data_hits(spmu_uarch *u, uint64_t reads, uint64_t writes);

typedef enum spmu_uarch_br {
  SPMU_UARCH_BR_COND = 1, /* conditional direct branch (Jcc) */
  SPMU_UARCH_BR_JUMP,     /* unconditional direct jump */
  SPMU_UARCH_BR_CALL,     /* direct call */
  SPMU_UARCH_BR_IND_JUMP, /* indirect jump (JMP r/m) */
  SPMU_UARCH_BR_IND_CALL, /* indirect call (CALL r/m) */
  SPMU_UARCH_BR_RET       /* return */
} spmu_uarch_br;

/* One retired branch at pc; next is the address of the instruction after
 * it (a call's return address), taken its outcome (COND only; the others
 * are taken), target where it went when taken. Returns 1 if the model
 * mispredicted it, else 0. */
int spmu_uarch_branch(spmu_uarch *u, uint64_t pc, uint64_t next,
                      spmu_uarch_br kind, int taken, uint64_t target);

/* n more retired instructions, for the timing model. */
void spmu_uarch_retire(spmu_uarch *u, uint64_t n);

/* n more retired load instructions whose data reads reached level lvl at
 * deepest (SPMU_UARCH_L1 for one that read nothing): counted in loads_*
 * only, for the front end that knows which instructions load and where
 * each instruction's accesses begin and end. */
void spmu_uarch_load_retired(spmu_uarch *u, spmu_uarch_level lvl, uint64_t n);

typedef struct spmu_uarch_counts {
  /* Cachegrind's names, in both configurations: fetches (Ir), data reads
   * (Dr) and writes (Dw); their first-level misses (I1mr, D1mr, D1mw) and
   * last-level misses (ILmr, DLmr, DLmw); conditional branches (Bc) and
   * their mispredicts (Bcm), indirect jumps and calls (Bi, Bim). */
  uint64_t ir, i1mr, ilmr;
  uint64_t dr, d1mr, dlmr;
  uint64_t dw, d1mw, dlmw;
  uint64_t bc, bcm, bi, bim;
  /* Per level, references and misses as the configuration counts them: in
   * the part configuration one per cache line (an access straddling two
   * lines is two references), in cachegrind's one per access (README.md).
   * l1d_* counts reads and writes; l2_* are 0 without an L2. */
  uint64_t l1i_refs, l1i_misses;
  uint64_t l1d_refs, l1d_misses;
  uint64_t l2_refs, l2_misses;
  uint64_t llc_refs, llc_misses;
  uint64_t llc_back_invalidations; /* inclusive LLC: L1/L2 lines removed */
  /* Where accesses were served (spmu_uarch_access's result). */
  uint64_t served_l2, served_llc, served_mem;
  /* Branches of every kind, returns and their mispredicts (the RSB's). */
  uint64_t branches, ret, retm;
  /* Retired instructions (spmu_uarch_retire), the timing model's cycles. */
  uint64_t instructions, core_cycles, ref_cycles;
  /* Of the data reads (dr), those served by L2, the LLC and memory (the
   * rest hit L1D): accesses, each piece of an instruction on its own. */
  uint64_t dr_served_l2, dr_served_llc, dr_served_mem;
  /* Retired load instructions (spmu_uarch_load_retired) by the deepest
   * level any of their data reads reached: what MEM_LOAD_RETIRED counts
   * by level, one per instruction (README.md, "Loads by level"). */
  uint64_t loads_l1, loads_l2, loads_llc, loads_mem;
  /* The cycles the accesses served by the LLC and memory cost, after the
   * overlap of the data accesses among them (timing.c): at most
   * served_llc * lat_llc + served_mem * lat_mem. */
  uint64_t long_stall;
} spmu_uarch_counts;

void spmu_uarch_get_counts(const spmu_uarch *u, spmu_uarch_counts *out);

/* The counts as they stand, without the cycles (core_cycles and
 * ref_cycles read 0): a view that follows the model until
 * spmu_uarch_free, for a front end that reads a few counts often. */
const spmu_uarch_counts *spmu_uarch_peek_counts(const spmu_uarch *u);

/* The cycles of the timing model for counts n (a copy of the view above
 * taken earlier, say): what spmu_uarch_get_counts reports for them. */
void spmu_uarch_cycles(const spmu_uarch *u, const spmu_uarch_counts *n,
                       uint64_t *core, uint64_t *ref);

/* The configuration the model runs. */
const spmu_uarch_config *spmu_uarch_get_config(const spmu_uarch *u);

#ifdef __cplusplus
}
#endif

#endif

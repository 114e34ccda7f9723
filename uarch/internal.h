/* SPDX-License-Identifier: MIT */
/* Internal interfaces of the micro-architecture models: one module each
 * (cache.c, llc.c, hier.c, bpred.c, timing.c, config.c), put together by
 * uarch.c. Not installed. */
#ifndef SPMU_UARCH_INTERNAL_H
#define SPMU_UARCH_INTERNAL_H

#include "uarch.h"

/* ---- cache.c: one set-associative cache, true LRU ---------------------
 * Each set holds its ways' tags most-recently-used first; a tag is the
 * line's block number (address >> log2(line)). A miss installs the line
 * as MRU and drops the LRU way (write-allocate: reads and writes alike). */
typedef struct spmu_cache {
  uint64_t *tags; /* sets * ways, each set MRU first */
  uint64_t empty; /* the tag of a way that holds no line */
  uint32_t sets, ways, line_bits;
} spmu_cache;

/* The checks cachegrind applies to a --I1/--D1/--LL triple, in its order;
 * NULL if the geometry is accepted, else the reason. */
const char *spmu_cache_check(const spmu_uarch_geom *g);
/* Allocates the tags (the only allocation); 0, or -1 if out of memory. */
int spmu_cache_init(spmu_cache *c, const spmu_uarch_geom *g, uint64_t empty);
void spmu_cache_fini(spmu_cache *c);
void spmu_cache_clear(spmu_cache *c);
/* Reference the line holding block: 0 on a hit; on a miss 1, with the
 * evicted block in *victim (c->empty if the way held none). Inline: it is
 * the innermost step of every access. */
static inline int spmu_cache_ref(spmu_cache *c, uint64_t block,
                                 uint64_t *victim)
{
  uint64_t *set = c->tags + (size_t)(block & (c->sets - 1)) * c->ways;
  uint32_t i;
  int miss;

  if (set[0] == block)
    return 0;
  for (i = 1; i < c->ways && set[i] != block; i++)
    ;
  miss = i == c->ways;
  if (miss) {
    i = c->ways - 1;
    *victim = set[i];
  }
  /* The entries before it move down one way; it goes to the front. */
  for (; i > 0; i--)
    set[i] = set[i - 1];
  set[0] = block;
  return miss;
}

/* Reference block only if it is present: 0 if it is not (nothing
 * changes), else 1, with the line moved to the front as spmu_cache_ref
 * moves it. The first match from the front is the line (cachegrind's
 * sets can hold block 0 more than once: only the most recent counts). */
static inline int spmu_cache_hit(spmu_cache *c, uint64_t block)
{
  uint64_t *set = c->tags + (size_t)(block & (c->sets - 1)) * c->ways;
  uint64_t carry;
  uint32_t i;

  if (set[0] == block)
    return 1;
  for (i = 1; i < c->ways; i++)
    if (set[i] == block)
      break;
  if (i == c->ways)
    return 0;
  /* Ways 0 to i - 1 move down one and block takes way 0, passed along in
   * a register: a few ways, where a copy loop would be turned into a call
   * of memmove. */
  carry = block;
  for (uint32_t k = 0; k < i; k++) {
    uint64_t t = set[k];

    set[k] = carry;
    carry = t;
  }
  set[i] = carry;
  return 1;
}
/* Does the cache hold block? No change of order. */
static inline int spmu_cache_holds(const spmu_cache *c, uint64_t block)
{
  const uint64_t *set = c->tags + (size_t)(block & (c->sets - 1)) * c->ways;

  for (uint32_t i = 0; i < c->ways; i++)
    if (set[i] == block)
      return 1;
  return 0;
}
/* Remove block if present (the others keep their LRU order): 1 if it was. */
int spmu_cache_invalidate(spmu_cache *c, uint64_t block);

/* ---- timing.c: the overlap of long misses --------------------------------
 * The group of overlapping data accesses served by the LLC or memory
 * (timing.c states the rule): the instruction index of its first, its
 * members, the latency it has paid. */
typedef struct spmu_mlp {
  uint64_t first;
  uint32_t members; /* 0: no group open */
  uint32_t paid;
} spmu_mlp;

/* ---- llc.c: the part LLC's replacement ------------------------------------
 * Adaptive insertion by set dueling, and the inclusive LLC's choice of a
 * victim not held above (llc.c states the rules). */
typedef struct spmu_llc {
  int adaptive;  /* set dueling between LRU and BIP insertion */
  uint32_t run;  /* sets per leader pair: the first LRU's, the last BIP's */
  uint32_t psel; /* the selector, 0 to 1023 */
  uint32_t sets;
  uint8_t *bip; /* [sets] each set's BIP insertions mod 64 (adaptive) */
} spmu_llc;

/* Allocates the per-set counts (adaptive only); 0, or -1 if out of
 * memory. */
int spmu_llc_init(spmu_llc *l, const spmu_cache *c, int adaptive);
void spmu_llc_fini(spmu_llc *l);
void spmu_llc_clear(spmu_llc *l);

/* ---- hier.c: the hierarchies -------------------------------------------- */
typedef struct spmu_hier {
  spmu_cache l1i, l1d, l2, llc;
  int cachegrind; /* cachegrind's rules (uarch.h, README.md) */
  int has_l2, inclusive;
  /* The block the last fetch (last_i) and the last data access (last_d)
   * referenced last, plus 1 (0: none): the most recently used line of its
   * L1 set, since only fetches reorder L1I and only data accesses L1D;
   * an access within it alone hits and changes no order. */
  uint64_t last_i, last_d;
  /* Memory-level parallelism: the timing the long misses are charged
   * with (timing.c), and the group open. */
  spmu_uarch_timing timing;
  spmu_mlp mlp;
  spmu_llc llc_policy; /* the part LLC's (llc.c) */
} spmu_hier;

/* The part LLC's reference of block (llc.c): 0 on a hit; on a miss 1, with
 * the evicted block in *victim (llc.empty if the way held none). */
int spmu_llc_ref(spmu_hier *h, uint64_t block, uint64_t *victim);

int spmu_hier_init(spmu_hier *h, const spmu_uarch_config *cfg);
void spmu_hier_fini(spmu_hier *h);
void spmu_hier_clear(spmu_hier *h);
/* An access that is not within the line its L1 referenced last (last_i,
 * last_d); uarch.c takes the accesses within it, which hit the most
 * recently used way and change no order. */
spmu_uarch_level spmu_hier_access_slow(spmu_hier *h, spmu_uarch_counts *n,
                                       uint64_t addr, uint32_t len,
                                       int is_write, int is_fetch);

/* ---- bpred.c: branch predictors ----------------------------------------- */
typedef struct spmu_bpred {
  int cachegrind;
  uint8_t *ctr;       /* 2-bit saturating counters */
  uint32_t ctr_bits;  /* log2(counters) */
  uint32_t hist_bits; /* global history bits used in the index */
  uint64_t ctr_mask, hist_mask, btb_mask; /* 2^bits - 1 of each */
  uint64_t hist;        /* global history: last outcomes, newest in bit 0 */
  uint64_t *btb_pc;     /* part: the branch each BTB entry holds */
  uint64_t *btb_target; /* the last target (cachegrind: its BTAC) */
  uint32_t btb_bits;    /* log2(entries) */
  uint64_t *rsb;        /* part: return-stack buffer */
  uint32_t rsb_len, rsb_top, rsb_used;
} spmu_bpred;

/* Cachegrind's predictor: 2^7 history bits above 2^7 address bits index
 * its counters, 2^9 last targets (bpred.c). */
#define SPMU_BP_CG_HIST_BITS 7u
#define SPMU_BP_CG_IADDR_BITS 7u
#define SPMU_BP_CG_BTAC_BITS 9u
#define SPMU_BP_CG_HIST_MASK ((UINT64_C(1) << SPMU_BP_CG_HIST_BITS) - 1)
#define SPMU_BP_CG_IADDR_MASK ((UINT64_C(1) << SPMU_BP_CG_IADDR_BITS) - 1)
/* The part BTB's empty entry: no branch is at this address. */
#define SPMU_BPRED_BTB_NONE UINT64_MAX

int spmu_bpred_init(spmu_bpred *b, const spmu_uarch_config *cfg);
void spmu_bpred_fini(spmu_bpred *b);
void spmu_bpred_clear(spmu_bpred *b);
/* Each returns 1 on a mispredict, else 0, and trains the predictor. */
int spmu_bpred_cond(spmu_bpred *b, uint64_t pc, int taken);
int spmu_bpred_indirect(spmu_bpred *b, uint64_t pc, uint64_t target);
int spmu_bpred_ret(spmu_bpred *b, uint64_t target);
void spmu_bpred_call(spmu_bpred *b, uint64_t ret_addr);
/* The predictors' steps (bpred.c states their rules), inline: every
 * retired branch takes one. spmu_bpred_branch is spmu_uarch_branch: the
 * predictor of kind, and the branch counts. */
static inline size_t spmu_bp_cond_index(const spmu_bpred *b, uint64_t pc)
{
  if (b->cachegrind)
    return (size_t)((b->hist & SPMU_BP_CG_HIST_MASK) << SPMU_BP_CG_IADDR_BITS |
                    (pc & SPMU_BP_CG_IADDR_MASK));
  return (size_t)((pc ^ b->hist) & b->ctr_mask);
}

static inline int spmu_bp_cond(spmu_bpred *b, uint64_t pc, int taken)
{
  size_t i = spmu_bp_cond_index(b, pc);
  int predicted = b->ctr[i] >= 2;

  taken = taken != 0;
  b->hist = (b->hist << 1 | (uint64_t)taken) & b->hist_mask;
  if (taken && b->ctr[i] < 3)
    b->ctr[i]++;
  else if (!taken && b->ctr[i] > 0)
    b->ctr[i]--;
  return predicted != taken;
}

static inline int spmu_bp_indirect(spmu_bpred *b, uint64_t pc, uint64_t target)
{
  size_t i = (size_t)(pc & b->btb_mask);
  int hit = b->btb_target[i] == target && (!b->btb_pc || b->btb_pc[i] == pc);

  b->btb_target[i] = target;
  if (b->btb_pc)
    b->btb_pc[i] = pc;
  return !hit;
}

static inline void spmu_bp_call(spmu_bpred *b, uint64_t ret_addr)
{
  if (b->rsb_len == 0)
    return;
  b->rsb_top = b->rsb_top + 1 == b->rsb_len ? 0 : b->rsb_top + 1;
  b->rsb[b->rsb_top] = ret_addr;
  if (b->rsb_used < b->rsb_len)
    b->rsb_used++;
}

static inline int spmu_bp_ret(spmu_bpred *b, uint64_t target)
{
  uint64_t predicted;

  if (b->cachegrind)
    return 0;
  if (b->rsb_used == 0)
    return 1;
  predicted = b->rsb[b->rsb_top];
  b->rsb_top = b->rsb_top == 0 ? b->rsb_len - 1 : b->rsb_top - 1;
  b->rsb_used--;
  return predicted != target;
}

/* One retired branch of any kind: its predictor, its counts. */
static inline int spmu_bpred_branch(spmu_bpred *b, spmu_uarch_counts *n,
                                    uint64_t pc, uint64_t next,
                                    spmu_uarch_br kind, int taken,
                                    uint64_t target)
{
  int misp = 0;

  n->branches++;
  switch (kind) {
  case SPMU_UARCH_BR_COND:
    misp = spmu_bp_cond(b, pc, taken);
    n->bc++;
    n->bcm += (uint64_t)misp;
    break;
  case SPMU_UARCH_BR_IND_CALL:
    spmu_bp_call(b, next);
    /* fall through */
  case SPMU_UARCH_BR_IND_JUMP:
    misp = spmu_bp_indirect(b, pc, target);
    n->bi++;
    n->bim += (uint64_t)misp;
    break;
  case SPMU_UARCH_BR_CALL:
    spmu_bp_call(b, next);
    break;
  case SPMU_UARCH_BR_RET:
    misp = spmu_bp_ret(b, target);
    n->ret++;
    n->retm += (uint64_t)misp;
    break;
  case SPMU_UARCH_BR_JUMP:
    break;
  }
  return misp;
}

/* ---- uarch.c: the handle ------------------------------------------------ */
struct spmu_uarch {
  spmu_uarch_config cfg;
  spmu_hier hier;
  spmu_bpred bpred;
  spmu_uarch_counts n;
};

/* ---- timing.c: cycles from counts --------------------------------------- */
/* An access served at lvl (SPMU_UARCH_LLC or SPMU_UARCH_MEM) charged in
 * n->long_stall: in full, or what it adds to the latency its group paid. */
void spmu_timing_long(const spmu_uarch_timing *t, spmu_mlp *g,
                      spmu_uarch_counts *n, spmu_uarch_level lvl, int is_fetch);
void spmu_timing_cycles(const spmu_uarch_timing *t, const spmu_uarch_counts *n,
                        uint64_t *core, uint64_t *ref);

/* a * num / den without overflowing the product (den > 0). */
static inline uint64_t spmu_timing_scale(uint64_t a, uint32_t num, uint32_t den)
{
  return a / den * num + a % den * num / den;
}

/* spmu_timing_cycles inline (timing.c's opening comment states the rule),
 * for a front end that reads the cycles at every block (uarch_hot.h); the
 * core cycles alone; the instructions' issue and the cycles beyond it. */
static inline uint64_t spmu_timing_stall_hot(const spmu_uarch_timing *t,
                                             const spmu_uarch_counts *n)
{
  return n->served_l2 * t->lat_l2 + n->long_stall +
         (n->bcm + n->bim + n->retm) * t->misp_penalty;
}

static inline uint64_t spmu_timing_issue_hot(const spmu_uarch_timing *t,
                                             uint64_t instructions)
{
  uint64_t width = t->issue_width ? t->issue_width : 1;
  uint64_t issue = instructions + width - 1;

  /* A width that is a power of two divides by a shift (the same value). */
  return width & (width - 1) ? issue / width : issue >> __builtin_ctzll(width);
}

static inline uint64_t spmu_timing_core_hot(const spmu_uarch_timing *t,
                                            const spmu_uarch_counts *n)
{
  return spmu_timing_issue_hot(t, n->instructions) +
         spmu_timing_stall_hot(t, n);
}

static inline void spmu_timing_cycles_hot(const spmu_uarch_timing *t,
                                          const spmu_uarch_counts *n,
                                          uint64_t *core, uint64_t *ref)
{
  uint64_t c = spmu_timing_core_hot(t, n);

  *core = c;
  *ref = t->ref_den ? spmu_timing_scale(c, t->ref_num, t->ref_den) : c;
}

/* ---- config.c ------------------------------------------------------------ */
/* NULL if cfg can be run, else why (the same checks as the parser). */
const char *spmu_uarch_config_check(const spmu_uarch_config *cfg);

#endif

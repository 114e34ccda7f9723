/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The modelled micro-architecture (plugin argument model=SPEC; uarch/):
 * caches, branch predictors and a timing model, one instance per guest
 * thread, fed by the thread's instruction fetches, data accesses and
 * branch outcomes, and read back as lines.h's modelled event lines
 * (enum mline), which go to the PMU model with the exact lines at each
 * delivery (count.c), so that counters, overflows and PMIs work on them
 * as on any event (SDM Vol. 3B 18.2).
 *
 * What feeds the model (README.md, "The modelled micro-architecture"):
 *   - a fetch per instruction, its address and length, issued lazily: the
 *     block callback (count.c) starts a block, each memory callback first
 *     fetches the instructions up to its own, and the end of the block
 *     (the next block's callback) fetches the rest, so that fetches and
 *     data accesses reach the model in program order with no callback per
 *     instruction;
 *   - every data access through QEMU's memory callbacks (address, size,
 *     load or store); the accesses QEMU splits (a 16-byte SSE access is
 *     two of 8, a 32-byte AVX one four) are put together again when they
 *     are contiguous, of one instruction and one direction, up to its
 *     operand's width (MERGE_DEFAULT): each load or store is one access;
 *   - the branch of each block's last instruction (its kind from
 *     classify.c), its outcome and target told by the block that runs
 *     next: taken when that block is not the fall-through.
 * Front-end rules of the cachegrind configuration (what cachegrind's
 * instrumentation does, so that the counts compare):
 *   - one fetch per execution of an instruction: a REP string instruction
 *     is fetched per iteration and once more for the final check of RCX;
 *   - a read then a write of the same location and size by one
 *     instruction (a read-modify-write such as ADD m, r) is one read;
 *   - each execution of a REP string instruction is one conditional
 *     branch at its address, taken when it iterates (RCX was not 0), not
 *     taken at the final check; returns are never mispredicted;
 *   - an atomic read-modify-write of memory (XCHG m, LOCK ADD m, ...;
 *     classify.c) is a conditional branch at its address, not taken:
 *     VEX makes it a compare-and-swap whose failure exits to restart it,
 *     and cachegrind counts that exit.
 * In the part configurations a REP string instruction is one fetch and no
 * branch (it retires once, SDM Vol. 2B, REP), and a read-modify-write is
 * a read and a write.
 *
 * Threads: each guest thread has its own hierarchy, LLC included. The
 * threads run at the same time on host threads, so a shared LLC would
 * need a lock on every access and its counts would depend on how the host
 * interleaved the threads; a per-thread LLC keeps every count
 * reproducible. The LLC is therefore per thread here, not shared.
 *
 * Overflow exactness: when a sampling counter counts a modelled line, the
 * block that may bring the counter to overflow goes to the PMU model one
 * instruction per clock with each instruction's own modelled events (the
 * model's counts kept at each of its instruction boundaries, a copy per
 * instruction): the PMI falls on the instruction that caused the event
 * (the load that missed). Only such blocks keep the copies ("logs on
 * demand" below); the others feed the model in bulk, as counting does. */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "count.h"
#include "insn.h"
#include "regs.h"
#include "uarch_hot.h"
#include "vcpu.h"

/* The steps of every access, one body with on_mem's and the block end's:
 * a call to any of them costs more than its work. */
#define ALWAYS_INLINE __attribute__((always_inline))

/* The most instructions QEMU puts in one block (TCG_MAX_INSNS). */
#define MAX_TB_INSNS 512u
/* QEMU 7.2 makes an access wider than 8 bytes in pieces of at most 8 (a
 * 16-byte SSE access is two, a 32-byte AVX one four), in address order.
 * The pieces of one instruction, contiguous and of one direction, are put
 * together up to the instruction's widest memory operand when that is a
 * ymm or zmm one (32 or 64 bytes: SDM Vol. 1 14.1.1, 15.1.1), else up to
 * 16 bytes (an xmm operand, x87's 10-byte one; an FXSAVE's 512 bytes are
 * not one access: they stay accesses of at most 16). */
#define MERGE_DEFAULT 16u

/* One instruction of a translated block, as the model needs it (one
 * allocation per block, so that a block's execution touches few lines of
 * the host's caches); also the data of its memory callbacks. */
struct ment {
  struct spmu_qemu_mtb *b;
  uint32_t j;    /* its index in the block */
  uint8_t merge; /* the widest access its pieces make (MERGE_DEFAULT) */
  uint8_t what;  /* ME_LOAD, ME_CAS */
  uint16_t nl;   /* the block's fetches up to it that start a line */
};

#define ME_LOAD 1u /* it loads (MEM_INST_RETIRED.ALL_LOADS counts it) */
#define ME_CAS 2u  /* cachegrind: a conditional branch too (classify.c) */

/* What the model keeps of a translated block. */
struct spmu_qemu_mtb {
  struct vcpu *const *vcpus; /* the block's (tb.h): on_mem's thread */
  uint32_t n;                /* instructions */
  uint32_t rep;              /* index of its REP string instruction, or n */
  uint32_t nloads;           /* instructions with ME_LOAD */
  uint32_t ncas;             /* instructions with ME_CAS */
  uint8_t last_kind;         /* enum insn_kind of the last instruction */
  uint64_t fallthrough, rep_addr;
  /* Its REP instruction's accesses an iteration (tb.h). */
  uint32_t rep_acc;
  uint64_t bound;       /* the most its retirements add to a sampled line */
  spmu_uarch_fetch *fe; /* [n] each instruction's fetch, after e[] */
  struct ment e[];      /* [n] */
};

/* What a memory callback's info says (qemu_plugin_mem_size_shift,
 * qemu_plugin_mem_is_store), remembered by value: a program's accesses
 * take few values, and asking QEMU is two calls into it per access. */
#define MEMINFO_SLOTS 64u
struct meminfo_memo {
  uint32_t key; /* the info + 1; 0: none */
  uint16_t len;
  bool write;
};

/* One guest thread's model. */
struct spmu_qemu_model {
  struct meminfo_memo memo[MEMINFO_SLOTS];
  spmu_uarch *u;
  const spmu_uarch_counts *live;
  bool cg;        /* the cachegrind configuration */
  bool inclusive; /* a part's inclusive LLC */
  /* Fetches within the line of the fetch before them, not yet handed to
   * the model (spmu_uarch_fetch_hits), and its LLC back-invalidations
   * when it last fetched (see fetch_to). */
  uint64_t same_hits, bi_seen;
  /* The same for data accesses (spmu_uarch_data_hits): reads and writes
   * within the L1D line of the data access before them, not yet handed
   * over; that line plus 1 (0: not known) and the back-invalidations
   * when it was touched. Not with a log (whose copies need every count). */
  uint64_t hit_reads, hit_writes, last_d, bi_d;
  uint32_t l1d_bits;
  /* The block running. */
  const struct spmu_qemu_mtb *cur;
  uint32_t fetched; /* its instructions fetched so far */
  bool cont;        /* it began by repeating its REP instruction */
  /* Its fetches may need more than fetch_run: a log, or cachegrind's
   * branches of a REP string or atomic instruction (fetch_to). */
  bool fetch_slow;
  bool rep_iter; /* cachegrind: its REP instruction iterated */
  /* Its REP instruction's accesses in this iteration (rep_access). */
  uint32_t rep_seen;
  /* A data access held back to be put together with the next. */
  bool pend, pend_write;
  uint32_t pend_j, pend_len;
  uint64_t pend_addr;
  /* The modelled lines' values handed to the PMU model so far. */
  uint64_t delivered[NMLINES];
  /* With a sampled modelled event: the counts at each instruction
   * boundary of the block, log[0] at its start, log[j + 1] after its
   * instruction j (or NULL). */
  spmu_uarch_counts *log;
  bool log_ok;  /* the block fitted in the log */
  bool logging; /* the block keeps them (it may reach an overflow) */
  bool use_log; /* count.c delivers the block per instruction */
  bool misp;    /* the predictor mispredicted the last block's branch */
  /* MEM_LOAD_RETIRED, one per retired load instruction by its deepest
   * read (loads_retire_block): the load instruction of the block whose
   * reads missed L1D (ld_j, or LD_NONE), the deepest level they reached,
   * and the block's load instructions already counted at a deeper level
   * than L1. */
  uint32_t ld_j, ld_missed;
  spmu_uarch_level ld_lvl;
  /* Logs on demand (record mode): after the fields counting uses. */
  /* A block that keeps no log: the budget it started with and what may
   * still be added before the growth is read again; the most one data
   * access, one fetch and one branch add to a sampled line (see "logs on
   * demand"). */
  uint64_t budget0, slack, acc_w, fetch_w, br_w;
  const struct spmu_qemu_config *cfg;
  /* The lines of the events (sampled, or read at a sample), and their
   * values at the block's start. */
  int sl[NMLINES];
  unsigned nsl;
  uint64_t before[NMLINES];
  /* At the block's start: the instructions retired, the cycles beyond
   * their issue (the growth of cycles while no instruction retired). */
  uint64_t insns0, issue0, stall0;
  /* log[0] holds counts this block passed below the budget (its start,
   * or where the slack first ran out: see "logs on demand"). */
  bool snap;
};

#define LD_NONE UINT32_MAX

bool spmu_qemu_model_setup(const char *spec, spmu_uarch_config *cfg, char *why,
                           size_t len)
{
  char err[256];
  spmu_uarch *u;

  if (spmu_uarch_config_parse(spec, cfg, err, sizeof(err)) != 0) {
    snprintf(why, len, "model=%s: %s", spec, err);
    return false;
  }
  u = spmu_uarch_new(cfg, err, sizeof(err));
  if (!u) {
    snprintf(why, len, "model=%s: %s", spec, err);
    return false;
  }
  spmu_uarch_free(u);
  return true;
}

/* ---- logs on demand ----------------------------------------------------
 * A block keeps its counts per instruction boundary (the log) only when it
 * may bring a sampled counter to overflow: count.c goes per instruction in
 * just those blocks (its budget B: the events until the first sampling
 * counter may overflow; the block is near when a sampled line grows by B
 * in it). The rest go to the model in bulk, as when counting. Which block
 * gets there is known only when it ends, so a block starts without a log
 * (unless its exact lines, or its retirements and its end may reach B)
 * with a slack: B less those. Before it passes boundaries it takes from
 * the slack the most their fetches add, and each data access that misses
 * L1 the most it adds (an L1 hit adds to no modelled line); when the slack
 * cannot hold that, the growth is read from the model's counts and the
 * slack set again from it. When even that cannot show the lines below B
 * at the boundaries ahead, the block keeps its log from there on. The
 * first time the slack runs out, before anything it does not hold, the
 * counts are kept in log[0] (snapshot): below B, they stand for every
 * boundary passed without a log; a block whose slack never ran out cannot
 * be near. A block near at its end without a log keeps them at every
 * boundary but the last. No counter overflowed at a boundary not kept, so
 * the overflow falls on the same instruction (no other PMI can come
 * before it: the exact lines' charge is below B too), and each sample is
 * what a log at every boundary gives. The bound per unit, for line l
 * (Lmax the longest latency; k the most cache lines one access touches):
 *   cycles: a fetch or data access is served once, at most Lmax cycles
 *     (uarch/timing.c), and a data access that misses may make the next
 *     fetch of its line miss again (an inclusive LLC's back-invalidation):
 *     2 Lmax; a branch the misprediction penalty; an instruction at most
 *     one issue cycle; reference cycles these times ceil(ref_num /
 *     ref_den), plus 1 for the rounding;
 *   LONGEST_LAT_CACHE, L1D.REPLACEMENT: k a fetch, 2k a data access;
 *   BR_MISP_RETIRED: 1 a branch;
 *   MEM_LOAD_RETIRED: 1 a load instruction, 1 a data access (a missed
 *     load counted when the next misses), 1 carried from a REP repeat. */
struct unit_w {
  uint64_t fetch, branch, insn, load, access, extra;
};

static uint64_t max_u64(uint64_t a, uint64_t b)
{
  return a > b ? a : b;
}

/* The most cache lines one access of at most 64 bytes (the widest put
 * together, MERGE_DEFAULT) touches. */
static uint64_t lines_per_access(const spmu_uarch_config *u)
{
  uint32_t line = u->l1i.line;

  if (u->l1d.line && u->l1d.line < line)
    line = u->l1d.line;
  if (u->l2.size && u->l2.line && u->l2.line < line)
    line = u->l2.line;
  if (u->llc.line && u->llc.line < line)
    line = u->llc.line;
  return line ? 64u / line + 1u : 65u;
}

static struct unit_w unit_weights(const spmu_uarch_config *u, int l)
{
  const spmu_uarch_timing *t = &u->timing;
  uint64_t lmax = max_u64(max_u64(t->lat_l2, t->lat_llc), t->lat_mem);
  uint64_t k = lines_per_access(u);
  uint64_t r = t->ref_den ? (t->ref_num + t->ref_den - 1) / t->ref_den : 1;
  struct unit_w w = {0};

  switch (l) {
  case M_CYCLES:
  case M_REF_XCLK:
  case M_REF_TSC:
    r = l == M_CYCLES ? 1 : max_u64(r, 1);
    w = (struct unit_w){.fetch = lmax * r,
                        .branch = (uint64_t)t->misp_penalty * r,
                        .insn = r,
                        .access = 2 * lmax * r,
                        .extra = r + 1};
    break;
  case M_LLC_REF:
  case M_LLC_MISS:
    w = (struct unit_w){.fetch = k, .access = 2 * k};
    break;
  case M_L1D_REPL:
    w = (struct unit_w){.access = k};
    break;
  case M_MISP_ALL:
  case M_MISP_COND:
    w = (struct unit_w){.branch = 1};
    break;
  default: /* MEM_LOAD_RETIRED */
    w = (struct unit_w){.load = 1, .access = 1, .extra = 1};
    break;
  }
  return w;
}

/* The most one data access, fetch and branch add to a line of m's
 * events. */
static void unit_bounds(struct spmu_qemu_model *m)
{
  const struct spmu_qemu_config *cfg = m->cfg;
  unsigned i;

  m->acc_w = m->fetch_w = m->br_w = 1;
  for (i = 0; i < cfg->nevents; i++) {
    unsigned k;

    for (k = 0; k < m->nsl && m->sl[k] != cfg->mline_of[i]; k++)
      ;
    if (cfg->mline_of[i] >= 0 && k == m->nsl)
      m->sl[m->nsl++] = cfg->mline_of[i];
  }
  for (i = 0; i < cfg->nevents; i++)
    if (cfg->mline_of[i] >= 0) {
      struct unit_w w = unit_weights(&cfg->uarch, cfg->mline_of[i]);

      m->acc_w = max_u64(m->acc_w, w.access);
      m->fetch_w = max_u64(m->fetch_w, w.fetch);
      m->br_w = max_u64(m->br_w, w.branch);
    }
}

/* The most the retirements of block b's instructions and loads add to a
 * line of cfg's events. */
static uint64_t block_bound(const struct spmu_qemu_config *cfg,
                            const struct spmu_qemu_mtb *b)
{
  uint64_t bound = 1;
  unsigned i;

  for (i = 0; i < cfg->nevents; i++) {
    struct unit_w w;

    if (cfg->mline_of[i] < 0)
      continue;
    w = unit_weights(&cfg->uarch, cfg->mline_of[i]);
    bound = max_u64(bound,
                    b->n * w.insn + (b->nloads + 1u) * w.load + w.extra + 1u);
  }
  return bound;
}

bool spmu_qemu_model_attach(struct vcpu *v, char *why, size_t len)
{
  const struct spmu_qemu_config *cfg = v->cfg;
  struct spmu_qemu_model *m;
  char err[256];

  if (!cfg->model)
    return true;
  m = calloc(1, sizeof(*m));
  if (!m) {
    snprintf(why, len, "out of memory");
    return false;
  }
  m->u = spmu_uarch_new(&cfg->uarch, err, sizeof(err));
  if (cfg->model_sampled)
    m->log = calloc(MAX_TB_INSNS + 1, sizeof(*m->log));
  if (!m->u || (cfg->model_sampled && !m->log)) {
    snprintf(why, len, "model=%s: %s", cfg->model_spec,
             m->u ? "out of memory" : err);
    spmu_uarch_free(m->u);
    free(m);
    return false;
  }
  m->live = spmu_uarch_peek_counts(m->u);
  m->cfg = cfg;
  unit_bounds(m);
  m->cg = cfg->uarch.mode == SPMU_UARCH_CACHEGRIND;
  m->ld_j = LD_NONE;
  m->inclusive = !m->cg && cfg->uarch.llc_inclusive;
  while ((1u << m->l1d_bits) < cfg->uarch.l1d.line)
    m->l1d_bits++;
  v->model = m;
  return true;
}

void spmu_qemu_model_free(struct vcpu *v)
{
  if (v->model) {
    spmu_uarch_free(v->model->u);
    free(v->model->log);
    free(v->model);
    v->model = NULL;
  }
}

/* The hits counted here so far, handed to the model: before anything
 * reads its counts. */
static void flush_hits(struct spmu_qemu_model *m)
{
  if (m->same_hits) {
    spmu_uarch_fetch_hits_hot(m->u, m->same_hits);
    m->same_hits = 0;
  }
  if (m->hit_reads | m->hit_writes) {
    spmu_uarch_data_hits_hot(m->u, m->hit_reads, m->hit_writes);
    m->hit_reads = m->hit_writes = 0;
  }
}

/* ---- the modelled lines ---------------------------------------------- */

/* Each modelled line's value for counts n (lines.h, enum mline):
 *   cycles: the timing model's core cycles; both reference-cycle lines
 *     its reference cycles (uarch/README.md, "Timing");
 *   LONGEST_LAT_CACHE.REFERENCE / MISS: references to and misses of the
 *     last level, fetches and data alike (cachegrind: LL references and
 *     ILmr + DLmr + DLmw);
 *   L1D.REPLACEMENT: lines L1D filled (cachegrind: D1mr + D1mw);
 *   BR_MISP_RETIRED.ALL_BRANCHES: mispredicted conditional, indirect and
 *     return branches; .CONDITIONAL: the conditional ones;
 *   MEM_LOAD_RETIRED.*: retired load instructions, each by the deepest
 *     level its reads reached (uarch/README.md, "Loads by level"); a miss
 *     of one level is a hit or a miss of the next (SDM Vol. 3B Chapter
 *     19, Table 19-3), so L1_HIT + L1_MISS is ALL_LOADS. */
static void mline_values(const struct spmu_qemu_model *m,
                         const spmu_uarch_counts *n, uint64_t val[NMLINES])
{
  uint64_t core, ref;
  uint64_t l1_miss = n->loads_l2 + n->loads_llc + n->loads_mem;

  spmu_uarch_cycles_hot(m->u, n, &core, &ref);
  val[M_CYCLES] = core;
  val[M_REF_XCLK] = val[M_REF_TSC] = ref;
  val[M_LLC_REF] = n->llc_refs;
  val[M_LLC_MISS] = n->llc_misses;
  val[M_L1D_REPL] = n->l1d_misses;
  val[M_MISP_ALL] = n->bcm + n->bim + n->retm;
  val[M_MISP_COND] = n->bcm;
  val[M_LD_L1_HIT] = n->loads_l1;
  val[M_LD_L1_MISS] = l1_miss;
  val[M_LD_L2_HIT] = n->loads_l2;
  val[M_LD_L2_MISS] = n->loads_llc + n->loads_mem;
  val[M_LD_L3_HIT] = n->loads_llc;
  val[M_LD_L3_MISS] = n->loads_mem;
}

/* The lines from what was delivered up to the values of n (each at most
 * 2^32 - 1 a clock; what is left goes with a later clock). */
static size_t lines_upto(struct spmu_qemu_model *m, const spmu_uarch_counts *n,
                         spmu_event_line *out)
{
  uint64_t val[NMLINES];
  unsigned l;

  mline_values(m, n, val);
  for (l = 0; l < NMLINES; l++) {
    uint64_t d = val[l] > m->delivered[l] ? val[l] - m->delivered[l] : 0;

    if (d > UINT32_MAX)
      d = UINT32_MAX;
    m->delivered[l] += d;
    out[l] = (spmu_event_line){.event = mline_code[l][0],
                               .umask = mline_code[l][1],
                               .count = (uint32_t)d};
  }
  return NMLINES;
}

/* The lines of a bulk clock: everything counted so far, or, when the
 * block is delivered one instruction per clock, what came before it. */
size_t spmu_qemu_model_lines(struct vcpu *v, spmu_event_line *out)
{
  struct spmu_qemu_model *m = v->model;

  if (!m)
    return 0;
  flush_hits(m);
  return lines_upto(m, m->use_log ? &m->log[0] : m->live, out);
}

/* The lines of instruction j of the block delivered per instruction. */
size_t spmu_qemu_model_insn_lines(struct vcpu *v, uint32_t j,
                                  spmu_event_line *out)
{
  struct spmu_qemu_model *m = v->model;

  if (!m || !m->use_log)
    return 0; /* the bulk clock before the block carried them */
  return lines_upto(m, &m->log[j + 1], out);
}

/* Is anything counted but not delivered? */
bool spmu_qemu_model_pending(struct vcpu *v)
{
  struct spmu_qemu_model *m = v->model;
  uint64_t val[NMLINES];
  unsigned l;

  if (!m)
    return false;
  flush_hits(m);
  mline_values(m, m->live, val);
  for (l = 0; l < NMLINES; l++)
    if (val[l] != m->delivered[l])
      return true;
  return false;
}

/* count.c delivers the block just ended one instruction per clock (near
 * an overflow): from its log, when it has one. */
void spmu_qemu_model_near(struct vcpu *v, bool near)
{
  struct spmu_qemu_model *m = v->model;

  if (m)
    m->use_log = near && m->logging;
}

/* Modelled line l's value for counts n (mline_values). */
static uint64_t line_value(const struct spmu_qemu_model *m,
                           const spmu_uarch_counts *n, int l)
{
  uint64_t val[NMLINES];

  if (l == M_CYCLES)
    return spmu_uarch_core_cycles_hot(m->u, n);
  mline_values(m, n, val);
  return val[l];
}

/* The values at the block's start of the events' lines (m->before). */
static void note_before(struct spmu_qemu_model *m)
{
  unsigned k;

  for (k = 0; k < m->nsl; k++)
    if (m->sl[k] != M_CYCLES)
      m->before[k] = line_value(m, m->live, m->sl[k]);
  m->insns0 = m->live->instructions;
  m->issue0 = spmu_uarch_issue_cycles_hot(m->u, m->insns0);
  m->stall0 = spmu_uarch_stall_cycles_hot(m->u, m->live);
}

/* The largest growth of an event's line from the block's start to n. */
static uint64_t growth_to(const struct spmu_qemu_model *m,
                          const spmu_uarch_counts *n)
{
  uint64_t g = 0;
  unsigned k;

  for (k = 0; k < m->nsl; k++) {
    uint64_t d;

    /* Cycles: their issue (the same without a retirement) and the
     * cycles beyond it. */
    if (m->sl[k] == M_CYCLES)
      d = (n->instructions == m->insns0
               ? 0
               : spmu_uarch_issue_cycles_hot(m->u, n->instructions) -
                     m->issue0) +
          spmu_uarch_stall_cycles_hot(m->u, n) - m->stall0;
    else
      d = line_value(m, n, m->sl[k]) - m->before[k];

    if (d > g)
      g = d;
  }
  return g;
}

bool spmu_qemu_model_logs(const struct vcpu *v)
{
  return v->model && v->model->logging;
}

/* The budget the block just ended takes (count.c): the most any sampled
 * modelled line grew in it, or charge (its exact lines') if more. */
uint32_t spmu_qemu_model_charge(struct vcpu *v, uint32_t charge)
{
  struct spmu_qemu_model *m = v->model;
  uint64_t g;
  uint32_t n;

  if (!m || !m->log || !m->cur)
    return charge;
  n = m->cur->n;
  g = growth_to(m, m->logging ? &m->log[n] : m->live);
  if (g > charge)
    charge = g > UINT32_MAX ? UINT32_MAX : (uint32_t)g;
  if (!m->logging && m->log_ok && n > 0 && charge >= v->budget) {
    /* Near without a log (logs on demand): the boundaries before the
     * last keep the counts of the block's start. */
    uint32_t k;

    for (k = 1; k < n; k++)
      m->log[k] = m->log[0];
    m->log[n] = *m->live;
    m->logging = true;
  }
  return charge;
}

/* ---- loads by level (MEM_LOAD_RETIRED) --------------------------------
 * One count per retired load instruction, at the deepest level any of its
 * reads reached: its pieces (a line-crossing access, an FXRSTOR's pieces)
 * and, for a REP string instruction, every iteration, since it retires
 * once (SDM Vol. 2B, REP), when it stops repeating. The accesses of one
 * instruction reach the model one after another, so only the one that
 * missed last is remembered. Without a log the block's loads that hit
 * are counted at its end, all at once; with one, each at its boundary. */

/* Count the remembered load instruction at its level. */
static void loads_flush(struct spmu_qemu_model *m)
{
  if (m->ld_j != LD_NONE) {
    spmu_uarch_load_retired_hot(m->u, m->ld_lvl, 1);
    m->ld_missed++;
    m->ld_j = LD_NONE;
  }
}

/* A read of instruction j of the block running missed L1D, served at
 * lvl. */
static void loads_missed(struct spmu_qemu_model *m, uint32_t j,
                         spmu_uarch_level lvl)
{
  if (!(m->cur->e[j].what & ME_LOAD))
    return;
  if (m->ld_j != j) {
    loads_flush(m);
    m->ld_j = j;
    m->ld_lvl = lvl;
  } else if (lvl > m->ld_lvl) {
    m->ld_lvl = lvl;
  }
}

/* Instruction k retires alone (a block with a log). */
static void loads_retire_one(struct spmu_qemu_model *m, uint32_t k)
{
  if (!(m->cur->e[k].what & ME_LOAD))
    return;
  if (m->ld_j == k)
    loads_flush(m);
  else
    spmu_uarch_load_retired_hot(m->u, SPMU_UARCH_L1, 1);
}

/* The block's instructions retire (a block without a log); rep_on: its
 * REP string instruction, the last, goes on repeating in the next. */
static void loads_retire_block(struct spmu_qemu_model *m, bool rep_on)
{
  uint32_t last = m->cur->n - 1, loads = m->cur->nloads;

  if (rep_on && (m->cur->e[last].what & ME_LOAD))
    loads--;
  if (!(rep_on && m->ld_j == last))
    loads_flush(m);
  if (loads > m->ld_missed)
    spmu_uarch_load_retired_hot(m->u, SPMU_UARCH_L1, loads - m->ld_missed);
}

/* ---- feeding the model ------------------------------------------------ */

/* One data access to the model, in program order; the level that served
 * it. One within the L1D line of the access before it (and no
 * back-invalidation since) is the hit spmu_uarch_access would count
 * there: counted here, no call; any other goes to the model inline
 * (uarch_hot.h), which leaves only an L1 miss to a call. */
static inline ALWAYS_INLINE spmu_uarch_level
data_access(struct spmu_qemu_model *m, uint64_t addr, uint32_t len, bool w)
{
  spmu_uarch_level lvl;
  uint64_t line = addr >> m->l1d_bits, span = len ? len - 1u : 0u;
  uint64_t last = addr > UINT64_MAX - span ? UINT64_MAX : addr + span;

  if (__builtin_expect(last >> m->l1d_bits != line, 0)) {
    lvl = spmu_uarch_data_lines(m->u, addr, len, w);
  } else if (line + 1 == m->last_d && !m->logging &&
             m->live->llc_back_invalidations == m->bi_d) {
    if (w)
      m->hit_writes++;
    else
      m->hit_reads++;
    return SPMU_UARCH_L1;
  } else {
    lvl = spmu_uarch_data_line_hot(m->u, addr, len, line, w);
  }
  m->last_d = (last >> m->l1d_bits) + 1;
  m->bi_d = m->live->llc_back_invalidations;
  return lvl;
}

/* The slack ran out for the first time in the block: everything so far
 * was within it, below the budget, so the counts now can stand for the
 * boundaries passed (log[0]). Until then the block could not have reached
 * the budget, even at its end (start_log keeps the end's share). */
static void snapshot(struct spmu_qemu_model *m)
{
  if (!m->snap) {
    m->log[0] = *m->live;
    m->snap = true;
  }
}

/* data_access, watched in a block without a log (logs on demand): an L1
 * hit adds to no modelled line; any other access takes its bound from the
 * slack, the counts kept first when the slack may not hold it. */
static inline ALWAYS_INLINE spmu_uarch_level
watched_access(struct spmu_qemu_model *m, uint64_t addr, uint32_t len, bool w)
{
  bool watch;
  spmu_uarch_level lvl;

  if (__builtin_expect(m->log == NULL, 1))
    return data_access(m, addr, len, w); /* counting: nothing to watch */
  watch = !m->logging && m->cur;
  if (watch && m->slack <= m->acc_w)
    snapshot(m);
  lvl = data_access(m, addr, len, w);
  if (watch && lvl != SPMU_UARCH_L1)
    m->slack = m->slack > m->acc_w ? m->slack - m->acc_w : 0;
  return lvl;
}

static inline ALWAYS_INLINE void issue_pending(struct spmu_qemu_model *m)
{
  if (m->pend) {
    spmu_uarch_level lvl;

    m->pend = false;
    lvl = watched_access(m, m->pend_addr, m->pend_len, m->pend_write);
    if (lvl != SPMU_UARCH_L1 && !m->pend_write)
      loads_missed(m, m->pend_j, lvl);
  }
}

/* Instruction k of the block retires (a repeat of a REP string
 * instruction retires nothing). */
static inline unsigned retires(const struct spmu_qemu_model *m, uint32_t k)
{
  return !(k == 0 && m->cont);
}

/* Instruction k's fetch, whatever line the fetch before it was in. */
static void fetch_insn(struct spmu_qemu_model *m, uint32_t k)
{
  const spmu_uarch_fetch *f = &m->cur->fe[k];

  spmu_uarch_access_hot(m->u, f->addr, f->len, 0, 1);
}

/* In the block's order, instruction k's fetch; one within the line of the
 * instruction before it hits the line that fetch left most recent
 * (spmu_uarch_fetch_run). */
static inline void fetch_next(struct spmu_qemu_model *m, uint32_t k)
{
  spmu_uarch_fetch_run_hot(m->u, &m->cur->fe[k], 1);
}

/* The boundary before instruction k: the data accesses of the one before
 * it are issued; with a log, that one retires there and the counts are
 * kept. */
static void boundary(struct spmu_qemu_model *m, uint32_t k)
{
  issue_pending(m);
  if (m->logging && k > 0) {
    spmu_uarch_retire_hot(m->u, retires(m, k - 1));
    loads_retire_one(m, k - 1);
    m->log[k] = *m->live;
  }
}

/* fetch_to, one boundary at a time: with counts kept per boundary, or a
 * REP iteration among the instructions. */
static void fetch_each(struct spmu_qemu_model *m, uint32_t end)
{
  while (m->fetched < end) {
    uint32_t k = m->fetched++;

    boundary(m, k);
    fetch_next(m, k);
    if (m->cg && k == m->cur->rep) {
      /* A REP iteration: its check of RCX found it not 0. */
      spmu_uarch_branch_hot(m->u, m->cur->fe[k].addr, m->cur->fallthrough,
                            SPMU_UARCH_BR_COND, 1, m->cur->fe[k].addr);
      m->rep_iter = true;
    }
    if (m->cg && (m->cur->e[k].what & ME_CAS)) {
      /* The restart of an atomic read-modify-write, never taken. */
      uint64_t ft = m->cur->fe[k].addr + m->cur->fe[k].len;

      spmu_uarch_branch_hot(m->u, m->cur->fe[k].addr, ft, SPMU_UARCH_BR_COND, 0,
                            ft);
    }
  }
}

static void watch_fetches(struct spmu_qemu_model *m, uint64_t need);

/* The fetches from m->fetched up to end (excluded), with no counts kept
 * per boundary and no REP iteration or atomic instruction among them
 * (cachegrind's branches): only the first boundary can hold a data access
 * (none comes between these fetches), so the caller issues it once and
 * the fetches follow. */
static inline ALWAYS_INLINE void fetch_run(struct spmu_qemu_model *m,
                                           uint32_t end)
{
  if (m->cur->fe[m->fetched].same >= end - m->fetched &&
      (!m->inclusive || m->live->llc_back_invalidations == m->bi_seen)) {
    /* All within the line fetched last, still in L1I: an inclusive LLC
     * removes a line only by a back-invalidation, which it counts. */
    m->same_hits += end - m->fetched;
  } else {
    spmu_uarch_fetch_run_hot(m->u, &m->cur->fe[m->fetched], end - m->fetched);
    m->bi_seen = m->live->llc_back_invalidations;
  }
  m->fetched = end;
}

/* Fetch the block's instructions up to end (excluded), each after the
 * data accesses of the one before it. */
static inline ALWAYS_INLINE void fetch_to(struct spmu_qemu_model *m,
                                          uint32_t end)
{
  if (m->fetched >= end)
    return;
  if (__builtin_expect(!m->fetch_slow, 1)) {
    issue_pending(m);
    fetch_run(m, end);
    return;
  }
  if (__builtin_expect(m->log && !m->logging, 0) && m->log_ok) {
    /* The fetches that start a line may miss; cachegrind's branches
     * among them (atomic instructions, a REP iteration). */
    const struct ment *e = m->cur->e;
    uint64_t need =
        (uint64_t)(e[end - 1].nl - (m->fetched ? e[m->fetched - 1].nl : 0)) *
        m->fetch_w;

    if (m->cg)
      need += (m->cur->ncas + 1u) * m->br_w;
    issue_pending(m); /* the access before the first boundary */
    if (m->slack > need)
      m->slack -= need;
    else
      watch_fetches(m, need);
  }
  if (__builtin_expect(
          m->logging || (m->cg && (end > m->cur->rep || m->cur->ncas)), 0)) {
    fetch_each(m, end);
    return;
  }
  issue_pending(m);
  fetch_run(m, end);
}

/* The load instructions among the block's first upto, counted as boundaries
 * would have counted them one at a time (loads_retire_one): the missed
 * ones at their level (already, by loads_missed, or now), the rest as L1
 * hits. */
static void loads_catch_up(struct spmu_qemu_model *m, uint32_t upto)
{
  uint32_t j, loads = 0;

  if (m->ld_j != LD_NONE && m->ld_j < upto)
    loads_flush(m);
  for (j = 0; j < upto; j++)
    loads += (m->cur->e[j].what & ME_LOAD) != 0;
  if (loads > m->ld_missed)
    spmu_uarch_load_retired_hot(m->u, SPMU_UARCH_L1, loads - m->ld_missed);
}

/* The block keeps its log from here on (logs on demand): the instructions
 * whose boundary has passed retire, and the boundaries passed keep the
 * counts at the block's start (their growth goes with the next). */
static void switch_to_log(struct spmu_qemu_model *m)
{
  uint32_t f = m->fetched, k;

  if (f >= 2) {
    uint32_t r = f - 1 - (m->cont ? 1u : 0u);

    if (r)
      spmu_uarch_retire_hot(m->u, r);
    loads_catch_up(m, f - 1);
  }
  for (k = 1; k < f; k++)
    m->log[k] = m->log[0];
  m->logging = true;
}

/* The largest growth of a sampled line since the block started. */
static uint64_t growth(const struct spmu_qemu_model *m)
{
  return growth_to(m, m->live);
}

/* A block without a log is to take need more: true when the slack holds
 * it (taken from it). Else the slack is read again from the growth, less
 * the block's retirements and the access held back, and need is not
 * taken. */
static bool guard(struct spmu_qemu_model *m, uint64_t need)
{
  uint64_t g;

  if (m->slack > need) {
    m->slack -= need;
    return true;
  }
  snapshot(m);
  g = growth(m) + m->cur->bound + (m->pend ? m->acc_w : 0);
  m->slack = g < m->budget0 ? m->budget0 - g : 0;
  if (m->slack > need) {
    m->slack -= need;
    return true;
  }
  return false;
}

/* The block without a log passes the next boundaries, whose fetches may
 * add need: below B at each, or it keeps its log from here. */
static __attribute__((noinline)) void watch_fetches(struct spmu_qemu_model *m,
                                                    uint64_t need)
{
  if (!guard(m, need))
    switch_to_log(m);
}

/* Does block t, starting (cont: repeating its REP instruction), keep a log
 * from its start? When its exact lines may reach the budget (count.c's
 * charge), or its retirements may, or intervals or multiplexing need every
 * boundary; else it starts without one, with the slack of the budget. */
static void start_log(const struct vcpu *v, struct spmu_qemu_model *m,
                      const struct tb *t, unsigned cont)
{
  uint64_t b = v->budget;
  uint32_t exact = t->charge[cont & VAR_CONT];

  /* Besides the retirements, the block's end: its branch, and a REP's
   * final check (a fetch and a branch). */
  uint64_t need = t->model->bound + 2 * m->br_w + m->fetch_w;

  if (t->charge[(cont & VAR_CONT) | VAR_TAKEN] > exact)
    exact = t->charge[(cont & VAR_CONT) | VAR_TAKEN];
  m->budget0 = b;
  m->logging = m->log_ok;
  if (!m->log_ok || v->cfg->ival || v->cfg->mux || exact >= b || need >= b) {
    m->log[0] = *m->live;
    m->snap = true;
    return;
  }
  m->logging = false;
  m->snap = false;
  m->slack = b - need;
}

/* The size and direction info gives, from the memo or else from QEMU. */
static inline const struct meminfo_memo *meminfo_of(struct spmu_qemu_model *m,
                                                    qemu_plugin_meminfo_t info)
{
  struct meminfo_memo *e = &m->memo[(info ^ info >> 16) % MEMINFO_SLOTS];

  if (__builtin_expect(e->key != info + 1u, 0)) {
    e->key = info + 1u;
    e->len = (uint16_t)(1u << qemu_plugin_mem_size_shift(info));
    e->write = qemu_plugin_mem_is_store(info);
  }
  return e;
}

/* An access of the block's REP string instruction. QEMU 10 runs its
 * iterations in a loop inside the block, where QEMU 7.2 ends the block
 * after each and starts one at the instruction again (README.md, "QEMU
 * versions"); the memory callbacks fire per access under both. An access
 * after a whole iteration's accesses therefore begins the next iteration,
 * which the model takes as 7.2's repeat (spmu_qemu_model_end, then
 * spmu_qemu_model_begin with cont): the iteration before's accesses
 * issued, not put together with this one's; nothing retires (SDM Vol. 2B,
 * REP); in the cachegrind configuration a fetch of the instruction and a
 * taken branch (it iterated). Under 7.2 a block sees one iteration at
 * most, and this does nothing. */
static void rep_access(struct spmu_qemu_model *m)
{
  uint32_t k = m->cur->rep;

  if (m->rep_seen++ < m->cur->rep_acc)
    return;
  m->rep_seen = 1;
  issue_pending(m);
  if (m->cg) {
    fetch_insn(m, k);
    spmu_uarch_branch(m->u, m->cur->fe[k].addr, m->cur->fallthrough,
                      SPMU_UARCH_BR_COND, 1, m->cur->fe[k].addr);
  }
}

static void on_mem(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
                   uint64_t vaddr, void *udata)
{
  const struct ment *r = udata;
  struct vcpu *v = spmu_qemu_vcpu_at(r->b->vcpus, vcpu_index);
  struct spmu_qemu_model *m = v ? v->model : NULL;
  const struct meminfo_memo *mi;
  uint32_t len;
  bool w;

  if (__builtin_expect(!m, 0))
    return;
  mi = meminfo_of(m, info);
  len = mi->len;
  w = mi->write;
  if (__builtin_expect(m->cur != r->b, 0)) {
    watched_access(m, vaddr, len, w); /* not begun: no order */
    return;
  }
  if (r->j >= m->fetched)
    fetch_to(m, r->j + 1);
  if (r->j == m->cur->rep)
    rep_access(m);
  /* regs=1: a block that keeps its log from here (the fetches above, or
   * an access before this one) keeps its registers from the next
   * boundary on (regs.c). */
  if (__builtin_expect(v->regs != NULL, 0) && m->logging)
    spmu_qemu_regs_follow(v);
  if (m->pend && m->pend_j == r->j) {
    /* One access QEMU made in pieces. */
    if (w == m->pend_write && vaddr == m->pend_addr + m->pend_len &&
        m->pend_len + len <= r->merge) {
      m->pend_len += len;
      return;
    }
    /* Cachegrind: a read-modify-write is one read. */
    if (m->cg && w && !m->pend_write && vaddr == m->pend_addr &&
        len == m->pend_len)
      return;
  }
  issue_pending(m);
  m->pend = true;
  m->pend_write = w;
  m->pend_j = r->j;
  m->pend_addr = vaddr;
  m->pend_len = len;
}

/* The block starting keeps its log, or may (record mode): out of line,
 * so that counting's start of a block needs no registers saved. */
static __attribute__((noinline)) void begin_log(const struct vcpu *v,
                                                struct spmu_qemu_model *m,
                                                const struct tb *t,
                                                unsigned cont)
{
  m->log_ok = t->model->n <= MAX_TB_INSNS;
  note_before(m);
  start_log(v, m, t, cont);
}

/* A block starts on v (cont: it repeats its REP string instruction). */
void spmu_qemu_model_begin(struct vcpu *v, const struct tb *t, unsigned cont)
{
  struct spmu_qemu_model *m = v->model;

  if (!m || !t->model)
    return;
  m->cur = t->model;
  m->cont = cont != 0;
  m->fetch_slow =
      m->log || (m->cg && (t->model->rep < t->model->n || t->model->ncas));
  /* A repeat fetches nothing in the part configurations. */
  m->fetched = (m->cont && !m->cg) ? 1 : 0;
  m->rep_iter = false;
  m->rep_seen = 0;
  m->pend = false;
  m->use_log = false;
  /* A REP string instruction repeating goes on as instruction 0. */
  m->ld_j = m->cont && m->ld_j != LD_NONE ? 0 : LD_NONE;
  m->ld_missed = 0;
  if (m->log)
    begin_log(v, m, t, cont);
}

/* The branch of the block's last instruction, now that next (NULL: none
 * ran) tells where it went. */
static void last_branch(struct spmu_qemu_model *m, const struct tb *next)
{
  const struct spmu_qemu_mtb *b = m->cur;
  uint64_t pc = b->fe[b->n - 1].addr, ft = b->fallthrough;
  uint64_t to = next ? next->vaddr : ft;
  int misp = 0;

  switch (b->last_kind) {
  case K_COND:
    if (next)
      misp =
          spmu_uarch_branch_hot(m->u, pc, ft, SPMU_UARCH_BR_COND, to != ft, to);
    break;
  case K_JMP:
    misp = spmu_uarch_branch_hot(m->u, pc, ft, SPMU_UARCH_BR_JUMP, 1, to);
    break;
  case K_CALL:
    misp = spmu_uarch_branch_hot(m->u, pc, ft, SPMU_UARCH_BR_CALL, 1, to);
    break;
  case K_JMP_IND:
    if (next)
      misp = spmu_uarch_branch_hot(m->u, pc, ft, SPMU_UARCH_BR_IND_JUMP, 1, to);
    break;
  case K_CALL_IND:
    if (next)
      misp = spmu_uarch_branch_hot(m->u, pc, ft, SPMU_UARCH_BR_IND_CALL, 1, to);
    break;
  case K_RET:
    if (next)
      misp = spmu_uarch_branch_hot(m->u, pc, ft, SPMU_UARCH_BR_RET, 1, to);
    break;
  default:
    break;
  }
  m->misp = misp != 0;
}

/* The end of a block ending at a REP string instruction (cachegrind):
 * the execution that found RCX = 0 is a fetch and a not-taken branch;
 * it is this one when it did not iterate, else one more after the last
 * iteration when the instruction does not run again. */
static void rep_end(struct spmu_qemu_model *m, const struct tb *next)
{
  uint32_t k = m->cur->rep;

  if (m->rep_iter && next && next->vaddr == m->cur->rep_addr)
    return;
  if (!m->rep_iter) {
    boundary(m, k);
    m->fetched = k + 1;
    fetch_next(m, k);
  } else {
    fetch_insn(m, k); /* the final check, one more execution */
  }
  spmu_uarch_branch_hot(m->u, m->cur->rep_addr, m->cur->fallthrough,
                        SPMU_UARCH_BR_COND, 0, m->cur->fallthrough);
}

void spmu_qemu_model_end(struct vcpu *v, const struct tb *p,
                         const struct tb *next)
{
  struct spmu_qemu_model *m = v->model;
  uint32_t n;
  bool rep_on;

  if (!m)
    return;
  m->misp = false;
  if (!p->model || m->cur != p->model)
    return;
  n = m->cur->n;
  if (n == 0)
    return;
  /* As count.c tells a repeat (VAR_CONT) from the block's start. */
  rep_on = next && next->rep_first && next->vaddr == p->rep_addr;
  fetch_to(m, m->cg && m->cur->rep < n ? n - 1 : n);
  issue_pending(m);
  if (m->cg && m->cur->rep < n) {
    if (m->log && !m->logging && m->log_ok && !guard(m, 0))
      switch_to_log(m); /* rep_end may pass boundary n - 1 */
    rep_end(m, next);
  } else
    last_branch(m, next);
  if (m->logging) {
    spmu_uarch_retire_hot(m->u, retires(m, n - 1));
    if (!rep_on)
      loads_retire_one(m, n - 1);
    m->log[n] = *m->live;
  } else {
    if (n > (m->cont ? 1u : 0u))
      spmu_uarch_retire_hot(m->u, n - (m->cont ? 1u : 0u));
    loads_retire_block(m, rep_on);
  }
}

/* The branch of the block spmu_qemu_model_end just ended, for its LBR
 * entry (lbr.c): whether the predictor mispredicted it, and the timing
 * model's core cycles once the block retired. False without a model. */
bool spmu_qemu_model_branch(const struct vcpu *v, bool *misp, uint64_t *cycles)
{
  const struct spmu_qemu_model *m = v->model;
  uint64_t ref;

  if (!m)
    return false;
  *misp = m->misp;
  spmu_uarch_cycles(m->u, m->live, cycles, &ref);
  return true;
}

/* In a fork's child: the counts not yet delivered were the parent's. */
void spmu_qemu_model_fork_child(struct vcpu *v)
{
  struct spmu_qemu_model *m = v->model;

  if (!m)
    return;
  flush_hits(m);
  mline_values(m, m->live, m->delivered);
  m->cur = NULL;
  m->pend = false;
  m->ld_j = LD_NONE;
  m->use_log = false;
}

/* ---- translation ------------------------------------------------------ */

/* Do the bytes from a to last lie in one L1I line? */
static bool same_line(const spmu_uarch_config *u, uint64_t a, uint64_t last)
{
  unsigned bits = 0;

  while ((1u << bits) < u->l1i.line)
    bits++;
  return a >> bits == last >> bits;
}

/* How wide an access the pieces of an instruction make (MERGE_DEFAULT). */
static uint8_t merge_limit(const insn_class *c)
{
  return c->mem_bytes == 32 || c->mem_bytes == 64 ? (uint8_t)c->mem_bytes
                                                  : MERGE_DEFAULT;
}

bool spmu_qemu_model_tb(const struct spmu_qemu_config *cfg,
                        struct qemu_plugin_tb *qtb, struct tb *t)
{
  struct spmu_qemu_mtb *b = calloc(
      1, sizeof(*b) + (size_t)t->ninsns * (sizeof(b->e[0]) + sizeof(b->fe[0])));
  uint32_t j;

  if (!b)
    return false;
  b->vcpus = t->vcpus;
  b->n = t->ninsns;
  b->rep = t->rep_addr != UINT64_MAX ? t->ninsns - 1 : t->ninsns;
  b->last_kind = t->last_kind;
  b->fallthrough = t->fallthrough;
  b->rep_addr = t->rep_addr;
  b->rep_acc = t->rep_accesses ? t->rep_accesses : 1;
  b->fe = (spmu_uarch_fetch *)(void *)(b->e + b->n);
  for (j = 0; j < b->n; j++) {
    uint64_t end = j + 1 < b->n ? t->insn_vaddr[j + 1] : t->fallthrough;
    struct ment *e = &b->e[j];
    spmu_uarch_fetch *f = &b->fe[j];

    e->b = b;
    e->j = j;
    e->merge = merge_limit(&t->insn[j]);
    e->what = (uint8_t)((t->insn[j].load ? ME_LOAD : 0) |
                        (t->insn[j].vex_cas ? ME_CAS : 0));
    b->nloads += t->insn[j].load;
    b->ncas += t->insn[j].vex_cas;
    f->addr = t->insn_vaddr[j];
    f->len = (uint8_t)(end - t->insn_vaddr[j]);
    f->same = j > 0 && same_line(&cfg->uarch, t->insn_vaddr[j - 1], end - 1);
    qemu_plugin_register_vcpu_mem_cb(qemu_plugin_tb_get_insn(qtb, j), on_mem,
                                     QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW,
                                     e);
  }
  /* Each run of instructions in one line: its length from each on
   * (spmu_uarch_fetch). */
  for (j = b->n; j-- > 1;)
    if (b->fe[j].same && j + 1 < b->n && b->fe[j + 1].same)
      b->fe[j].same = b->fe[j + 1].same + 1;
  for (j = 0; j < b->n; j++)
    b->e[j].nl = (uint16_t)((j ? b->e[j - 1].nl : 0) + !b->fe[j].same);
  if (cfg->model_sampled)
    b->bound = block_bound(cfg, b);
  t->model = b;
  return true;
}

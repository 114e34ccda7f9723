/* Counting by QEMU's inline adds alone: each translated block adds 1 to
 * its own execution count in the generated code, with no call into the
 * plugin (README.md, "Speed").
 *
 * It is exact while
 *  - one guest thread runs (QEMU 7.2's inline add is not atomic and its
 *    counter is shared by every thread): when a second thread starts, the
 *    plugin resets itself (qemu_plugin_reset flushes the translated code)
 *    and counts with the callback per block from then on; the counts
 *    added inline so far are kept;
 *  - no event needs a conditional branch's direction
 *    (BR_INST_RETIRED.NEAR_TAKEN), which only the next block tells;
 *  - nothing is sampled.
 * REP string instructions need more: QEMU runs one iteration per
 * execution of the block that starts at the instruction, and hardware
 * retires the instruction once (SDM Vol. 2B, REP). Each run of a REP
 * instruction X ends by going on to the code after it, the block at its
 * fall-through N, and only there: so a callback on the blocks at N (run
 * once per run, not per iteration) counts the runs. When N was reached
 * and a block ending at X (the REP's own block, or one that reached X
 * from earlier instructions) ran since N was last reached, one run of X
 * ended. The runs that began in the REP's own block are the runs minus
 * the executions of the other blocks ending at X; the rest of that
 * block's executions are repeats, which retire nothing. Where the blocks
 * at N were translated before X was seen, they have no such callback: the
 * blocks ending at X then get a callback per execution instead, which
 * tells a repeat from the block that ran before it. */
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

/* Counters live in chunks that never move: generated code holds their
 * addresses. */
#define CHUNK_WORDS 4096

#define SITE_BLOCKS 16

/* A REP string instruction and the blocks that end at it. */
struct rep_site {
  uint64_t x, n;                 /* its address, its fall-through */
  struct tb *block[SITE_BLOCKS]; /* the blocks ending at x */
  unsigned nblocks;
  uint64_t seen; /* their executions when N was last run */
  uint64_t runs; /* runs of x that ended */
  bool per_exec; /* counted by a callback per execution */
  struct rep_site *next;
};

static struct {
  uint64_t *chunk;
  size_t used;
  struct rep_site *sites;
  /* Counting per execution: the REP string instruction whose block ran
   * last, and what the blocks at its fall-through had counted then. */
  uint64_t rep_addr;
  uint64_t after_rep;
} in = {.rep_addr = UINT64_MAX};

static uint64_t *new_counter(void)
{
  if (!in.chunk || in.used == CHUNK_WORDS) {
    in.chunk = calloc(CHUNK_WORDS, sizeof(uint64_t));
    if (!in.chunk)
      return NULL;
    in.used = 0;
  }
  return &in.chunk[in.used++];
}

/* Executions of the blocks that start at vaddr (QEMU may translate the
 * same address more than once). */
static uint64_t runs_at(uint64_t vaddr)
{
  const struct tb *t;
  uint64_t n = 0;

  for (t = spmu_qemu_tbs_at(vaddr); t; t = t->same_vaddr)
    if (t->inline_count)
      n += *t->inline_count;
  return n;
}

/* Counting per execution: the callback of a block that ends at a REP
 * string instruction. */
static void on_rep_block(unsigned int vcpu_index, void *udata)
{
  struct tb *t = udata;

  (void)vcpu_index;
  if (t->rep_first && in.rep_addr == t->vaddr &&
      runs_at(t->fallthrough) == in.after_rep)
    ++*t->inline_cont;
  in.rep_addr = t->rep_addr;
  in.after_rep = runs_at(t->fallthrough);
}

static uint64_t site_execs(const struct rep_site *s)
{
  uint64_t n = 0;
  unsigned i;

  for (i = 0; i < s->nblocks; i++)
    n += *s->block[i]->inline_count;
  return n;
}

/* The callback of a block at a REP instruction's fall-through. */
static void on_rep_done(unsigned int vcpu_index, void *udata)
{
  struct rep_site *s = udata;
  uint64_t e = site_execs(s);

  (void)vcpu_index;
  if (e != s->seen) {
    s->runs++;
    s->seen = e;
  }
}

static struct rep_site *site_of(uint64_t x)
{
  struct rep_site *s;

  for (s = in.sites; s; s = s->next)
    if (s->x == x)
      return s;
  return NULL;
}

/* A block ending at the REP instruction at t->rep_addr. */
static bool add_rep_block(struct qemu_plugin_tb *qtb, struct tb *t)
{
  struct rep_site *s = site_of(t->rep_addr);

  if (!s) {
    s = calloc(1, sizeof(*s));
    if (!s)
      return false;
    s->x = t->rep_addr;
    s->n = t->fallthrough;
    s->per_exec = spmu_qemu_tbs_at(s->n) != NULL;
    s->next = in.sites;
    in.sites = s;
  }
  if (s->nblocks == SITE_BLOCKS)
    s->per_exec = true; /* retranslated that often: count per execution */
  else
    s->block[s->nblocks++] = t;
  t->inline_cont = new_counter();
  if (!t->inline_cont)
    return false;
  if (s->per_exec)
    qemu_plugin_register_vcpu_tb_exec_cb(qtb, on_rep_block,
                                         QEMU_PLUGIN_CB_NO_REGS, t);
  return true;
}

void spmu_qemu_inline_tb(struct qemu_plugin_tb *qtb, struct tb *t)
{
  struct rep_site *s;

  t->inline_count = new_counter();
  if (!t->inline_count) {
    g.failed = true;
    return;
  }
  qemu_plugin_register_vcpu_tb_exec_inline(qtb, QEMU_PLUGIN_INLINE_ADD_U64,
                                           t->inline_count, 1);
  for (s = in.sites; s; s = s->next)
    if (s->n == t->vaddr && !s->per_exec)
      qemu_plugin_register_vcpu_tb_exec_cb(qtb, on_rep_done,
                                           QEMU_PLUGIN_CB_NO_REGS, s);
  if (t->rep_addr != UINT64_MAX && !add_rep_block(qtb, t))
    g.failed = true;
}

/* The repeats of each REP instruction counted by its runs, into the
 * inline_cont of its own blocks: the runs that began there are the runs
 * less the executions of the blocks that reached it from earlier
 * instructions. */
static void settle_sites(void)
{
  struct rep_site *s;
  unsigned i;

  for (s = in.sites; s; s = s->next) {
    uint64_t fresh = s->runs;

    if (s->per_exec)
      continue;
    for (i = 0; i < s->nblocks; i++)
      if (!s->block[i]->rep_first) {
        uint64_t e = *s->block[i]->inline_count;

        fresh = fresh > e ? fresh - e : 0;
      }
    for (i = 0; i < s->nblocks; i++)
      if (s->block[i]->rep_first) {
        uint64_t e = *s->block[i]->inline_count;
        uint64_t f = fresh < e ? fresh : e;

        *s->block[i]->inline_cont = e - f;
        fresh -= f;
      }
    s->runs = s->seen = 0;
  }
}

/* Hand the inline counts to v's cores (every one of them: they are the
 * process's, counted while it had one thread). */
void spmu_qemu_inline_flush(struct vcpu *v)
{
  size_t i;

  settle_sites();
  for (i = 0; i < g.ntbs; i++) {
    struct tb *t = g.tbs[i];
    uint64_t runs = t->inline_count ? *t->inline_count : 0;
    uint64_t cont = t->inline_cont ? *t->inline_cont : 0;

    if (!runs)
      continue;
    spmu_qemu_deliver(v, t, 0, runs - cont);
    if (cont)
      spmu_qemu_deliver(v, t, VAR_CONT, cont);
    *t->inline_count = 0;
    if (t->inline_cont)
      *t->inline_cont = 0;
  }
}

/* In a fork's child: the counts so far are the parent's. */
void spmu_qemu_inline_forget(void)
{
  struct rep_site *s;
  size_t i;

  for (s = in.sites; s; s = s->next)
    s->runs = s->seen = 0;
  for (i = 0; i < g.ntbs; i++) {
    if (g.tbs[i]->inline_count)
      *g.tbs[i]->inline_count = 0;
    if (g.tbs[i]->inline_cont)
      *g.tbs[i]->inline_cont = 0;
  }
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
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
 * tells a repeat from the block that ran before it.
 * A system call QEMU restarts (spmu_qemu_inline_restart) is executed
 * again, by a block of that one instruction: that execution is the same
 * retirement, counted as a repeat (inline_cont), by a callback on each
 * block that is one far transfer.
 *
 * The counters are QEMU 7.2's words, one for all threads (plugin API 1),
 * or, from API 2 (QEMU 9 on), the words of per-vCPU scoreboards, added to
 * by the inline operation that replaced it (api.h). Inline counting runs
 * while the process has one thread, vCPU 0, either way: its words are
 * the ones read. Almost: the reset takes effect only when QEMU next
 * stops every vCPU (it flushes the translated code in an exclusive
 * section), and a thread whose start came in between runs the blocks
 * translated for inline counting until then (QEMU 10, under load: the
 * first block after its clone), its adds in its own vCPU's words from
 * API 2. spmu_qemu_inline_gather, run by the reset's callback in that
 * exclusive section, adds them to vCPU 0's, as QEMU 7.2's one word for
 * every thread had them. */
#include "inline.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "classify.h"
#include "count.h"

/* Counters live in chunks that never move: generated code holds their
 * addresses (API 1); from API 2 a chunk is a scoreboard of as many words
 * per vCPU, which QEMU moves and the generated code finds. */
#define CHUNK_WORDS 4096

struct inline_chunk {
  struct inline_chunk *prev;
  struct qemu_plugin_scoreboard *score; /* API 2 on, else NULL */
  uint64_t word[];                      /* [CHUNK_WORDS], API 1 */
};

/* The vCPU whose counters are read: inline counting's one thread. */
#define INLINE_VCPU 0u

#define SITE_BLOCKS 16

/* A REP string instruction and the blocks that end at it. */
struct rep_site {
  const struct spmu_qemu_inline *in;
  uint64_t x, n;                 /* its address, its fall-through */
  struct tb *block[SITE_BLOCKS]; /* the blocks ending at x */
  unsigned nblocks;
  uint64_t seen; /* their executions when N was last run */
  uint64_t runs; /* runs of x that ended */
  bool per_exec; /* counted by a callback per execution */
  struct rep_site *next;
  struct rep_site *next_at_n; /* another site in its bucket of n */
};

/* The sites by fall-through, hashed: each translation looks its address
 * up. */
#define SITE_BUCKETS 1024

/* Counting per execution: a block that ends at a REP string
 * instruction, as its callback's userdata. */
struct rep_block {
  struct spmu_qemu_inline *in;
  struct tb *t;
  struct rep_block *next;
};

struct spmu_qemu_inline {
  const struct spmu_qemu_blocks *blocks;
  const struct spmu_qemu_api *api;
  struct inline_chunk *chunk; /* the newest; each holds the one before */
  size_t used;
  struct rep_site *sites;
  struct rep_site *at_n[SITE_BUCKETS];
  struct rep_block *rep_blocks;
  /* Counting per execution: the REP string instruction whose block ran
   * last, and what the blocks at its fall-through had counted then. */
  uint64_t rep_addr;
  uint64_t after_rep;
  uint64_t restarts; /* system calls QEMU will execute again */
};

struct spmu_qemu_inline *
spmu_qemu_inline_new(const struct spmu_qemu_blocks *blocks,
                     const struct spmu_qemu_api *api)
{
  struct spmu_qemu_inline *in = calloc(1, sizeof(*in));

  if (in) {
    in->blocks = blocks;
    in->api = api;
    in->rep_addr = UINT64_MAX;
  }
  return in;
}

void spmu_qemu_inline_free(struct spmu_qemu_inline *in)
{
  if (!in)
    return;
  while (in->chunk) {
    struct inline_chunk *c = in->chunk;

    in->chunk = c->prev;
    if (c->score)
      in->api->scoreboard_free(c->score);
    free(c);
  }
  while (in->sites) {
    struct rep_site *s = in->sites;

    in->sites = s->next;
    free(s);
  }
  while (in->rep_blocks) {
    struct rep_block *r = in->rep_blocks;

    in->rep_blocks = r->next;
    free(r);
  }
  free(in);
}

static struct inline_chunk *new_chunk(const struct spmu_qemu_api *api)
{
  bool per_vcpu = spmu_qemu_api_per_vcpu(api);
  struct inline_chunk *c =
      calloc(1, sizeof(*c) + (per_vcpu ? 0 : CHUNK_WORDS * sizeof(uint64_t)));

  if (c && per_vcpu &&
      !(c->score = api->scoreboard_new(CHUNK_WORDS * sizeof(uint64_t)))) {
    free(c);
    return NULL;
  }
  return c;
}

/* A new counter, at 0; chunk NULL when out of memory. */
static struct icounter new_counter(struct spmu_qemu_inline *in)
{
  if (!in->chunk || in->used == CHUNK_WORDS) {
    struct inline_chunk *c = new_chunk(in->api);

    if (!c)
      return (struct icounter){0};
    c->prev = in->chunk;
    in->chunk = c;
    in->used = 0;
  }
  return (struct icounter){in->chunk, (uint32_t)in->used++};
}

static qemu_plugin_u64 entry_of(struct icounter c)
{
  return (qemu_plugin_u64){c.chunk->score, c.word * sizeof(uint64_t)};
}

/* Counter c's value (0 when there is none). */
static uint64_t get(const struct spmu_qemu_inline *in, struct icounter c)
{
  if (!c.chunk)
    return 0;
  if (!c.chunk->score)
    return c.chunk->word[c.word];
  return in->api->u64_get(entry_of(c), INLINE_VCPU);
}

static void set(const struct spmu_qemu_inline *in, struct icounter c,
                uint64_t value)
{
  if (!c.chunk)
    return;
  if (!c.chunk->score)
    c.chunk->word[c.word] = value;
  else
    in->api->u64_set(entry_of(c), INLINE_VCPU, value);
}

static void add(const struct spmu_qemu_inline *in, struct icounter c,
                uint64_t n)
{
  set(in, c, get(in, c) + n);
}

/* Code in block qtb that adds 1 to c each time it runs. */
static void add_inline(const struct spmu_qemu_inline *in,
                       struct qemu_plugin_tb *qtb, struct icounter c)
{
  if (!c.chunk->score)
    in->api->tb_exec_inline_v1(qtb, QEMU_PLUGIN_INLINE_ADD_U64,
                               &c.chunk->word[c.word], 1);
  else
    in->api->tb_exec_inline(qtb, QEMU_PLUGIN_INLINE_ADD_U64, entry_of(c), 1);
}

/* Executions of the blocks that start at vaddr (QEMU may translate the
 * same address more than once). */
static uint64_t runs_at(const struct spmu_qemu_inline *in, uint64_t vaddr)
{
  const struct tb *t;
  uint64_t n = 0;

  for (t = spmu_qemu_tbs_at(in->blocks, vaddr); t; t = t->same_vaddr)
    n += get(in, t->inline_count);
  return n;
}

/* Counting per execution: the callback of a block that ends at a REP
 * string instruction. */
static void on_rep_block(unsigned int vcpu_index, void *udata)
{
  struct rep_block *r = udata;
  struct spmu_qemu_inline *in = r->in;
  struct tb *t = r->t;

  (void)vcpu_index;
  if (t->rep_first && in->rep_addr == t->vaddr &&
      runs_at(in, t->fallthrough) == in->after_rep)
    add(in, t->inline_cont, 1);
  in->rep_addr = t->rep_addr;
  in->after_rep = runs_at(in, t->fallthrough);
}

static uint64_t site_execs(const struct spmu_qemu_inline *in,
                           const struct rep_site *s)
{
  uint64_t n = 0;
  unsigned i;

  for (i = 0; i < s->nblocks; i++)
    n += get(in, s->block[i]->inline_count);
  return n;
}

/* The callback of a block at a REP instruction's fall-through. */
static void on_rep_done(unsigned int vcpu_index, void *udata)
{
  struct rep_site *s = udata;
  uint64_t e = site_execs(s->in, s);

  (void)vcpu_index;
  if (e != s->seen) {
    s->runs++;
    s->seen = e;
  }
}

static unsigned bucket_of(uint64_t n)
{
  return (unsigned)((n * UINT64_C(0x9e3779b97f4a7c15)) >> 54) &
         (SITE_BUCKETS - 1);
}

static struct rep_site *site_of(const struct spmu_qemu_inline *in, uint64_t x)
{
  struct rep_site *s;

  for (s = in->sites; s; s = s->next)
    if (s->x == x)
      return s;
  return NULL;
}

/* A callback cb on each execution of block t (its rep_block, freed with
 * in). */
static bool watch_block(struct spmu_qemu_inline *in, struct qemu_plugin_tb *qtb,
                        struct tb *t, qemu_plugin_vcpu_udata_cb_t cb)
{
  struct rep_block *r = calloc(1, sizeof(*r));

  if (!r)
    return false;
  *r = (struct rep_block){.in = in, .t = t, .next = in->rep_blocks};
  in->rep_blocks = r;
  qemu_plugin_register_vcpu_tb_exec_cb(qtb, cb, QEMU_PLUGIN_CB_NO_REGS, r);
  return true;
}

/* Block t's callback per execution. */
static bool count_per_exec(struct spmu_qemu_inline *in,
                           struct qemu_plugin_tb *qtb, struct tb *t)
{
  return watch_block(in, qtb, t, on_rep_block);
}

/* A block that is one far transfer (SYSCALL, INT n): the execution that
 * re-runs a restarted system call is no new retirement (README.md,
 * "Restarted system calls"). */
static void on_far_alone(unsigned int vcpu_index, void *udata)
{
  struct rep_block *r = udata;
  struct spmu_qemu_inline *in = r->in;

  (void)vcpu_index;
  if (!in->restarts)
    return;
  in->restarts--;
  add(in, r->t->inline_cont, 1);
}

static bool count_restarts(struct spmu_qemu_inline *in,
                           struct qemu_plugin_tb *qtb, struct tb *t)
{
  if (!t->inline_cont.chunk)
    t->inline_cont = new_counter(in);
  return t->inline_cont.chunk && watch_block(in, qtb, t, on_far_alone);
}

void spmu_qemu_inline_restart(struct spmu_qemu_inline *in)
{
  in->restarts++;
}

/* A block ending at the REP instruction at t->rep_addr. */
static bool add_rep_block(struct spmu_qemu_inline *in,
                          struct qemu_plugin_tb *qtb, struct tb *t)
{
  struct rep_site *s = site_of(in, t->rep_addr);

  if (!s) {
    s = calloc(1, sizeof(*s));
    if (!s)
      return false;
    s->in = in;
    s->x = t->rep_addr;
    s->n = t->fallthrough;
    s->per_exec = spmu_qemu_tbs_at(in->blocks, s->n) != NULL;
    s->next = in->sites;
    in->sites = s;
    s->next_at_n = in->at_n[bucket_of(s->n)];
    in->at_n[bucket_of(s->n)] = s;
  }
  if (s->nblocks == SITE_BLOCKS)
    s->per_exec = true; /* retranslated that often: count per execution */
  else
    s->block[s->nblocks++] = t;
  t->inline_cont = new_counter(in);
  if (!t->inline_cont.chunk)
    return false;
  return !s->per_exec || count_per_exec(in, qtb, t);
}

bool spmu_qemu_inline_tb(struct spmu_qemu_inline *in,
                         struct qemu_plugin_tb *qtb, struct tb *t)
{
  struct rep_site *s;

  t->inline_count = new_counter(in);
  if (!t->inline_count.chunk)
    return false;
  add_inline(in, qtb, t->inline_count);
  for (s = in->at_n[bucket_of(t->vaddr)]; s; s = s->next_at_n)
    if (s->n == t->vaddr && !s->per_exec)
      qemu_plugin_register_vcpu_tb_exec_cb(qtb, on_rep_done,
                                           QEMU_PLUGIN_CB_NO_REGS, s);
  if (t->far_alone && !count_restarts(in, qtb, t))
    return false;
  return t->rep_addr == UINT64_MAX || add_rep_block(in, qtb, t);
}

/* Every word of chunk c that is in use (used: the newest chunk's). */
static size_t words_of(const struct spmu_qemu_inline *in,
                       const struct inline_chunk *c)
{
  return c == in->chunk ? in->used : CHUNK_WORDS;
}

/* Word w of chunk c on vCPUs 1 to nvcpus - 1 added to vCPU 0's, and
 * cleared. */
static void gather_word(const struct spmu_qemu_inline *in,
                        struct inline_chunk *c, uint32_t w, unsigned nvcpus)
{
  qemu_plugin_u64 e = entry_of((struct icounter){c, w});
  uint64_t sum = 0;
  unsigned k;

  for (k = 1; k < nvcpus; k++) {
    uint64_t n = in->api->u64_get(e, k);

    if (n) {
      sum += n;
      in->api->u64_set(e, k, 0);
    }
  }
  if (sum)
    in->api->u64_set(e, INLINE_VCPU, in->api->u64_get(e, INLINE_VCPU) + sum);
}

void spmu_qemu_inline_gather(struct spmu_qemu_inline *in, unsigned nvcpus)
{
  struct inline_chunk *c;
  size_t w;

  for (c = in->chunk; c; c = c->prev)
    if (c->score)
      for (w = 0; w < words_of(in, c); w++)
        gather_word(in, c, (uint32_t)w, nvcpus);
}

/* The repeats of each REP instruction counted by its runs, into the
 * inline_cont of its own blocks: the runs that began there are the runs
 * less the executions of the blocks that reached it from earlier
 * instructions. */
static void settle_sites(struct spmu_qemu_inline *in)
{
  struct rep_site *s;
  unsigned i;

  for (s = in->sites; s; s = s->next) {
    uint64_t fresh = s->runs;

    if (s->per_exec)
      continue;
    for (i = 0; i < s->nblocks; i++)
      if (!s->block[i]->rep_first) {
        uint64_t e = get(in, s->block[i]->inline_count);

        fresh = fresh > e ? fresh - e : 0;
      }
    for (i = 0; i < s->nblocks; i++)
      if (s->block[i]->rep_first) {
        uint64_t e = get(in, s->block[i]->inline_count);
        uint64_t f = fresh < e ? fresh : e;

        set(in, s->block[i]->inline_cont, e - f);
        fresh -= f;
      }
    s->runs = s->seen = 0;
  }
}

/* Hand the inline counts to v's cores (every one of them: they are the
 * process's, counted while it had one thread). */
void spmu_qemu_inline_flush(struct spmu_qemu_inline *in, struct vcpu *v)
{
  size_t i, n = spmu_qemu_blocks_count(in->blocks);

  if (!in->chunk)
    return; /* no block was ever counted inline */
  settle_sites(in);
  for (i = 0; i < n; i++) {
    struct tb *t = spmu_qemu_block(in->blocks, i);
    uint64_t runs = get(in, t->inline_count);
    uint64_t cont = get(in, t->inline_cont);

    if (!runs)
      continue;
    spmu_qemu_deliver(v, t, 0, runs - cont);
    if (cont)
      spmu_qemu_deliver(v, t, VAR_CONT, cont);
    set(in, t->inline_count, 0);
    set(in, t->inline_cont, 0);
  }
}

/* In a fork's child: the counts so far are the parent's. */
void spmu_qemu_inline_forget(struct spmu_qemu_inline *in)
{
  struct rep_site *s;
  size_t i, n = spmu_qemu_blocks_count(in->blocks);

  if (!in->chunk)
    return; /* no block was ever counted inline */
  for (s = in->sites; s; s = s->next)
    s->runs = s->seen = 0;
  for (i = 0; i < n; i++) {
    struct tb *t = spmu_qemu_block(in->blocks, i);

    set(in, t->inline_count, 0);
    set(in, t->inline_cont, 0);
  }
}

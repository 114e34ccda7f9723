/* SPDX-License-Identifier: MIT */
/* The skeleton every fuzz harness shares: the libFuzzer entry point, the
 * input reader, the report of a violated property (fz_die, TRACE), the
 * profile an input picks and its checker context, the step loop with a
 * table of operations per harness, and the snapshot comparisons. A harness
 * file holds only its own operations and properties.
 *
 * Expensive checks (the whole invariant sweep of invariants.h, clones of
 * the core compared with it, save/restore round trips, one-clock-at-a-time
 * replays) run on a sample of steps: fz_run.full says whether this step is
 * one. The sample is decided by a hash of the input and the step number,
 * so an input always checks the same steps (a failure replays). replay.c
 * (the ctest replay of the corpora) checks every step; the environment
 * variable SPMU_FUZZ_CHECKS set to "all" or "sampled" chooses
 * for any build. */
#ifndef SPMU_FUZZ_HARNESS_H
#define SPMU_FUZZ_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The library's bit helpers (spmu_width_mask, spmu_get_le, spmu_put_le),
 * found next to this file whatever the target's include path. */
#include "invariants.h"
#include "util/bits.h" /* src/util: the model's bit macros */

/* Run one input; returns 0. A violated property calls abort(). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Build with -DSPMU_FUZZ_TRACE to print every step (to stderr): the
 * sequence of a failing input, for a report or a test. */
#ifdef SPMU_FUZZ_TRACE
#define TRACE(...) fprintf(stderr, __VA_ARGS__)
#else
#define TRACE(...) ((void)0)
#endif

#if defined(__GNUC__)
#define FZ_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define FZ_NORETURN __attribute__((noreturn))
#else
#define FZ_PRINTF(f, a)
#define FZ_NORETURN
#endif

static inline unsigned long long ull(uint64_t v)
{
  return (unsigned long long)v;
}

/* ---- the input ----------------------------------------------------------- */

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

static inline uint16_t u16(reader *r)
{
  return (uint16_t)uN(r, 2);
}
static inline uint32_t u32(reader *r)
{
  return (uint32_t)uN(r, 4);
}
static inline uint64_t u64(reader *r)
{
  return uN(r, 8);
}

/* A batch size for spmu_deliver: one clock, a few, many, "forever", or
 * around the deadline (the next PMI): one before, at, one after (no PMI
 * ahead: a huge count). */
uint64_t pick_clocks(reader *in, uint64_t deadline);

/* ---- reporting a violation ---------------------------------------------- */

/* Where a violation is reported from; fz_die prints
 *   "<harness>: profile P, step N (OP): <message>"
 * (without "profile P, " when no profile is set, without "step N (OP): "
 * outside the step loop), then what `tail` prints (the input, for the
 * harnesses whose input is text), and aborts. */
typedef struct fz_where {
  const char *harness; /* "fuzz_model" */
  const char *profile;
  unsigned step; /* 0: not in the step loop */
  const char *op;
  void (*tail)(const void *arg);
  const void *tail_arg;
} fz_where;

extern fz_where fz_at;

void fz_die(const char *fmt, ...) FZ_PRINTF(1, 2) FZ_NORETURN;

/* ---- the profile and its checker context --------------------------------- */

/* The profile specs[u8 % n] (a preset name or a custom profile string);
 * false if it does not parse. */
bool fz_profile_of(reader *in, const char *const *specs, size_t n,
                   spmu_profile *p);

/* A preset, perhaps changed by a few key=value pairs (any profile the
 * parser accepts): byte 0 bits 3:0 pick the preset (mod the number of
 * presets), bits 7:6 how many pairs follow, each a key byte (mod the key
 * table) and its value's bytes. False if the result does not parse. */
bool fz_profile_perturbed(reader *in, spmu_profile *p);

/* The checker context for p, kept across inputs (preparing one queries
 * the catalogue for every MSR). A reused one starts from a reset scratch
 * core and no verified snapshot, so no input depends on the one before.
 * Dies if none can be made. */
spmu_inv_ctx *fz_ctx_for(const spmu_profile *p);

/* ---- the step loop ------------------------------------------------------- */

#define FZ_SPARES 2 /* cores beside the one under test (clones) */
#define FZ_BUFS 5   /* snapshot buffers: pre, tmp and buf[] */

/* The state every harness's run begins with (the first member of the
 * harness's own run struct, so that an operation converts the pointer).
 * Its cores and buffers are kept for the profile across inputs: the core
 * under test starts each input reset (RESET, pmu.h); a spare holds what
 * the last fz_restore into it put there. */
typedef struct fz_run {
  reader in;
  spmu_inv_ctx *ctx;
  spmu_core *core; /* the core under test */
  spmu_core *spare[FZ_SPARES];
  uint8_t *buf[FZ_BUFS - 2]; /* the harness's snapshot buffers */
  spmu_lp *lp; /* fz_steps.lp_first: the step's logical processor */
  unsigned step;
  bool full;             /* this step runs the expensive checks */
  uint64_t seed;         /* of the sample: a hash of the input */
  uint8_t *pre;          /* a snapshot of the core (fz_expect_unchanged) */
  uint8_t *tmp;          /* scratch snapshot */
  const char *unchanged; /* set: the step must leave the core as pre */
  bool snap_fresh;       /* ctx->blob_a is the core's snapshot (the last check
                            ran after the last change) */
  char why[512];
} fz_run;

typedef struct fz_op {
  const char *name;
  void (*fn)(fz_run *r);
} fz_op;

typedef struct fz_steps {
  const fz_op *ops; /* an opcode byte picks ops[byte % nops] */
  unsigned nops;
  unsigned max_steps;
  bool lp_first;   /* a byte before the opcode picks r->lp */
  unsigned sample; /* about 1 step in `sample` is full (1: every one) */
} fz_steps;

/* Set up r for an input (data, size) on a core of p: r->ctx, r->core and
 * the spares (each harness sets their host), the snapshot buffers; the
 * reader is left at `in`. Nothing to free. */
void fz_run_init(fz_run *r, reader in, const uint8_t *data, size_t size,
                 const spmu_profile *p);

/* Run the steps: for each, pick the operation, run it, then on a full
 * step check the invariants, and r->unchanged if the operation set it.
 * Step 0, before the first, checks the reset core (if in the sample). */
void fz_run_steps(fz_run *r, const fz_steps *s);

/* Every check on every step (replay.c), or a sample (libFuzzer, the
 * default); SPMU_FUZZ_CHECKS overrides it. */
void fz_check_all_steps(bool all);

/* Outside the step loop: is check `key` of this input in the sample (1 in
 * n; always when every check runs)? */
bool fz_sampled(const uint8_t *data, size_t size, unsigned key, unsigned n);

/* The logical processor of r->core an input byte picks. */
spmu_lp *fz_pick_lp(fz_run *r);

/* A WRMSR of a driver-like sequence: OK or #GP (anything else dies: the
 * property guest-result); the rest is checked by the invariants. */
void fz_guest_write(spmu_lp *lp, uint32_t msr, uint64_t v);

/* The invariants of invariants.h on r->core (dies if one fails). */
void fz_check_invariants(fz_run *r);

/* ---- snapshots and clones ------------------------------------------------ */

/* buf = the snapshot of c (r->ctx->blob_len bytes). */
void fz_save(fz_run *r, const spmu_core *c, uint8_t *buf);

/* dst = the core saved in blob (dies if refused: snapshot-roundtrip). */
void fz_restore(fz_run *r, spmu_core *dst, const uint8_t *blob);

/* The snapshot of c must be `want` (what: the property's name). */
void fz_expect_same(fz_run *r, const spmu_core *c, const uint8_t *want,
                    const char *what);

/* r->pre = the core's snapshot, on any step (before the operation
 * changes the core). */
void fz_take_pre(fz_run *r);

/* On a full step: r->pre = the core's snapshot, and the step must leave
 * the core so (property `what`; NULL: no such promise yet). Call it
 * before the operation changes the core. */
void fz_begin(fz_run *r, const char *what);

/* On a full step (after fz_begin): the step must leave the core as
 * r->pre (property `what`). */
void fz_promise(fz_run *r, const char *what);

#endif

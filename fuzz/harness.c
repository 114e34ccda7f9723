/* SPDX-License-Identifier: MIT */
/* The skeleton every fuzz harness shares (see harness.h). */
#include "harness.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

fz_where fz_at;

/* ---- the input ----------------------------------------------------------- */

uint64_t pick_clocks(reader *in, uint64_t deadline)
{
  switch (u8(in) % 8) {
  case 0:
  case 1:
    return 1;
  case 2:
  case 3:
    return 1 + (uint64_t)u8(in);
  case 4:
    return 1 + (uint64_t)u16(in);
  case 5:
    return u64(in) | 1;
  case 6:
    return UINT64_MAX;
  default: {
    uint64_t k = u8(in) % 3;
    if (deadline == UINT64_MAX)
      return UINT64_MAX - k;
    if (k == 0)
      return deadline > 1 ? deadline - 1 : 1;
    return k == 1 || deadline == UINT64_MAX - 1 ? deadline : deadline + 1;
  }
  }
}

/* ---- reporting a violation ---------------------------------------------- */

void fz_die(const char *fmt, ...)
{
  va_list ap;

  fprintf(stderr, "%s: ", fz_at.harness ? fz_at.harness : "fuzz");
  if (fz_at.profile && fz_at.step)
    fprintf(stderr, "profile %s, step %u (%s): ", fz_at.profile, fz_at.step,
            fz_at.op ? fz_at.op : "?");
  else if (fz_at.profile)
    fprintf(stderr, "profile %s, step 0 (%s): ", fz_at.profile,
            fz_at.op ? fz_at.op : "new");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  if (fz_at.tail)
    fz_at.tail(fz_at.tail_arg);
  abort();
}

/* ---- the profile and its checker context --------------------------------- */

bool fz_profile_of(reader *in, const char *const *specs, size_t n,
                   spmu_profile *p)
{
  const char *spec = specs[u8(in) % n];

  fz_at.profile = spec;
  return spmu_profile_parse(spec, p, NULL, 0) == SPMU_OK;
}

static const char *const keys[] = {
    "version",
    "gp",
    "gp_width",
    "fixed",
    "fixed_mask",
    "fixed_width",
    "events",
    "unavailable",
    "perf_capabilities",
    "threads",
    "pdcm",
    "ds",
    "dtes64",
    "ds_cpl",
    "bts",
    "pebs",
    "rtm",
    "pt",
    "sgx",
    "uncore_pmi",
    "precise_store",
    "any_deprecated",
};
#define NKEYS (sizeof keys / sizeof keys[0])

static const unsigned widths[] = {31, 32, 33, 40, 47, 48, 63, 64, 65};

/* The value of key `key` (keys[]): mostly in range, sometimes not. */
static uint64_t key_value(reader *in, unsigned key, uint64_t perfcap)
{
  uint8_t b = u8(in);

  switch (key) {
  case 0:
    return b % 7;
  case 1:
  case 9:
    return b % 10;
  case 2:
  case 5:
    return widths[b % (sizeof widths / sizeof widths[0])];
  case 3:
    return b % 6;
  case 4:
    return b | (uint64_t)u8(in) << 8;
  case 6:
    return b % 34;
  case 7:
    return u8(in);
  case 8:
    return (b & 1) ? perfcap ^ (UINT64_C(1) << ((b >> 1) % 18))
                   : u32(in) & 0x3FFFF;
  default:
    return b & 1;
  }
}

bool fz_profile_perturbed(reader *in, spmu_profile *p)
{
  uint8_t b = u8(in);
  unsigned npre = 0, i, n = b >> 6;
  const char *preset;
  char spec[512];
  size_t len;
  bool ok;

  while (spmu_profile_preset_name(npre))
    npre++;
  preset = spmu_profile_preset_name((b & 0xF) % npre);
  len = (size_t)snprintf(spec, sizeof spec, "base=%s", preset);
  if (spmu_profile_parse(spec, p, NULL, 0) != SPMU_OK)
    abort();  /* a preset must parse */
  if (n == 0) /* the preset by name: keeps its name */
    ok = spmu_profile_parse(preset, p, NULL, 0) == SPMU_OK;
  else {
    for (i = 0; i < n && len < sizeof spec - 64; i++) {
      unsigned key = u8(in) % NKEYS;
      uint64_t v = key_value(in, key, p->perf_capabilities);
      len += (size_t)snprintf(spec + len, sizeof spec - len, ",%s=%#llx",
                              keys[key], ull(v));
    }
    ok = spmu_profile_parse(spec, p, NULL, 0) == SPMU_OK;
  }
  fz_at.profile = ok ? p->name : NULL;
  return ok;
}

/* What is kept for a recent profile across inputs: making a checker
 * context queries the catalogue for every MSR, and a core, its clones
 * and snapshot buffers made afresh for each input (the sanitizers hand out
 * new pages each time) would cost more than most inputs' steps. */
#define SLOTS 64
typedef struct fz_slot {
  spmu_profile prof;
  spmu_inv_ctx *ctx;
  spmu_core *core[1 + FZ_SPARES];
  uint8_t *buf[FZ_BUFS];
} fz_slot;

static fz_slot slots[SLOTS];
static unsigned slot_next;

static bool same_profile(const spmu_profile *a, const spmu_profile *b)
{
  return strncmp(a->name, b->name, sizeof a->name) == 0 &&
         a->version == b->version && a->gp == b->gp &&
         a->gp_width == b->gp_width && a->events_len == b->events_len &&
         a->events_unavailable == b->events_unavailable &&
         a->fixed_mask == b->fixed_mask && a->fixed_width == b->fixed_width &&
         a->threads == b->threads && a->features == b->features &&
         a->perf_capabilities == b->perf_capabilities;
}

static void slot_free(fz_slot *s)
{
  unsigned i;

  if (s->ctx) {
    spmu_inv_ctx_fini(s->ctx);
    free(s->ctx);
  }
  for (i = 0; i < 1 + FZ_SPARES; i++)
    spmu_core_free(s->core[i]);
  for (i = 0; i < FZ_BUFS; i++)
    free(s->buf[i]);
  memset(s, 0, sizeof *s);
}

static void slot_make(fz_slot *s, const spmu_profile *p)
{
  unsigned i;

  s->prof = *p;
  s->ctx = malloc(sizeof(*s->ctx));
  if (!s->ctx || spmu_inv_ctx_init(s->ctx, p) != SPMU_OK)
    fz_die("cannot prepare the checker for profile %s", p->name);
  for (i = 0; i < 1 + FZ_SPARES; i++)
    if (spmu_core_new(p, &s->core[i]) != SPMU_OK)
      fz_die("cannot make a core of profile %s", p->name);
  for (i = 0; i < FZ_BUFS; i++)
    if (!(s->buf[i] = malloc(s->ctx->blob_len)))
      fz_die("out of memory");
}

/* The slot of profile p, made if needed. A reused one's scratch core and
 * core under test are reset (RESET: every register at its power-on
 * value, pmu.h) and it has no verified snapshot, so no input depends on
 * the one before; its spares are restored before each use. */
static fz_slot *slot_for(const spmu_profile *p)
{
  unsigned i;
  fz_slot *s;

  for (i = 0; i < SLOTS; i++)
    if (slots[i].ctx && same_profile(&slots[i].prof, p)) {
      s = &slots[i];
      spmu_core_reset(s->ctx->scratch);
      spmu_core_reset(s->core[0]);
      s->ctx->have_verified = 0;
      return s;
    }
  s = &slots[slot_next++ % SLOTS];
  slot_free(s);
  slot_make(s, p);
  return s;
}

spmu_inv_ctx *fz_ctx_for(const spmu_profile *p)
{
  return slot_for(p)->ctx;
}

/* ---- the step loop ------------------------------------------------------- */

/* Every step full (replay.c), or a sample (libFuzzer's default). */
static bool check_all;

void fz_check_all_steps(bool all)
{
  check_all = all;
}

/* SPMU_FUZZ_CHECKS=all or =sampled overrides the default. */
static bool all_steps(void)
{
  const char *e = getenv("SPMU_FUZZ_CHECKS");

  if (e && strcmp(e, "all") == 0)
    return true;
  if (e && strcmp(e, "sampled") == 0)
    return false;
  return check_all;
}

/* FNV-1a of the input: the seed of its sample. */
static uint64_t input_hash(const uint8_t *data, size_t size)
{
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  size_t i;

  for (i = 0; i < size; i++)
    h = (h ^ data[i]) * UINT64_C(0x100000001b3);
  return h;
}

/* Is step `step` of the input with this seed in the sample (1 in n)? */
static bool sampled(uint64_t seed, unsigned step, unsigned n)
{
  uint64_t x = seed ^ (uint64_t)step * UINT64_C(0x9e3779b97f4a7c15);

  x ^= x >> 31;
  x *= UINT64_C(0xbf58476d1ce4e5b9);
  x ^= x >> 29;
  return n <= 1 || x % n == 0;
}

bool fz_sampled(const uint8_t *data, size_t size, unsigned key, unsigned n)
{
  return all_steps() || sampled(input_hash(data, size), key, n);
}

void fz_run_init(fz_run *r, reader in, const uint8_t *data, size_t size,
                 const spmu_profile *p)
{
  fz_slot *s = slot_for(p);
  unsigned i;

  memset(r, 0, sizeof *r);
  r->in = in;
  r->seed = input_hash(data, size);
  r->ctx = s->ctx;
  r->core = s->core[0];
  for (i = 0; i < FZ_SPARES; i++)
    r->spare[i] = s->core[1 + i];
  r->pre = s->buf[0];
  r->tmp = s->buf[1];
  for (i = 0; i + 2 < FZ_BUFS; i++)
    r->buf[i] = s->buf[2 + i];
}

spmu_lp *fz_pick_lp(fz_run *r)
{
  return spmu_core_lp(r->core, u8(&r->in) % r->ctx->prof.threads);
}

void fz_guest_write(spmu_lp *lp, uint32_t msr, uint64_t v)
{
  int rc = spmu_wrmsr(lp, msr, v);

  TRACE("  LP%u WRMSR %#x = %#llx -> %s\n", spmu_lp_index(lp), msr, ull(v),
        spmu_errname(rc));
  if (rc != SPMU_OK && rc != SPMU_GP)
    fz_die("guest-result: WRMSR %#x = %#llx gave %s", msr, ull(v),
           spmu_errname(rc));
}

void fz_check_invariants(fz_run *r)
{
  if (spmu_inv_check(r->ctx, r->core, r->why, sizeof r->why))
    fz_die("%s", r->why);
  r->snap_fresh = true; /* the check leaves the snapshot in ctx->blob_a */
}

/* The core must be as r->pre (property what); the snapshot the invariant
 * check just took serves if there is one. */
static void check_unchanged(fz_run *r, const char *what)
{
  size_t i;

  if (!r->snap_fresh) {
    fz_expect_same(r, r->core, r->pre, what);
    return;
  }
  for (i = 0; i < r->ctx->blob_len; i++)
    if (r->ctx->blob_a[i] != r->pre[i])
      fz_die("%s: snapshot byte %zu of %zu changed (%#x, was %#x)", what, i,
             r->ctx->blob_len, r->ctx->blob_a[i], r->pre[i]);
}

void fz_run_steps(fz_run *r, const fz_steps *s)
{
  bool all = all_steps();

  fz_at.step = 0;
  fz_at.op = "new";
  r->full = all || sampled(r->seed, 0, s->sample);
  if (r->full)
    fz_check_invariants(r);
  for (r->step = 1; r->step <= s->max_steps && r->in.n; r->step++) {
    unsigned op;
    if (s->lp_first)
      r->lp = fz_pick_lp(r);
    op = u8(&r->in) % s->nops;
    fz_at.step = r->step;
    fz_at.op = s->ops[op].name;
    r->full = all || sampled(r->seed, r->step, s->sample);
    r->unchanged = NULL;
    TRACE("step %u: %s%s\n", r->step, fz_at.op, r->full ? " (full)" : "");
    s->ops[op].fn(r);
    r->snap_fresh = false;
    if (r->full)
      fz_check_invariants(r);
    if (r->unchanged)
      check_unchanged(r, r->unchanged);
  }
}

/* ---- snapshots and clones ------------------------------------------------ */

void fz_save(fz_run *r, const spmu_core *c, uint8_t *buf)
{
  if (spmu_inv_save(r->ctx, c, buf, r->why, sizeof r->why))
    fz_die("%s", r->why);
}

void fz_restore(fz_run *r, spmu_core *dst, const uint8_t *blob)
{
  int rc = spmu_core_restore(dst, blob, r->ctx->blob_len);

  if (rc != SPMU_OK)
    fz_die("snapshot-roundtrip: restoring into a clone: %s", spmu_errname(rc));
}

void fz_expect_same(fz_run *r, const spmu_core *c, const uint8_t *want,
                    const char *what)
{
  size_t i;

  fz_save(r, c, r->tmp);
  for (i = 0; i < r->ctx->blob_len; i++)
    if (r->tmp[i] != want[i])
      fz_die("%s: snapshot byte %zu of %zu differs (%#x, expected %#x)", what,
             i, r->ctx->blob_len, r->tmp[i], want[i]);
}

void fz_take_pre(fz_run *r)
{
  if (r->snap_fresh) /* nothing changed the core since the last check */
    memcpy(r->pre, r->ctx->blob_a, r->ctx->blob_len);
  else
    fz_save(r, r->core, r->pre);
}

void fz_begin(fz_run *r, const char *what)
{
  if (!r->full)
    return;
  fz_take_pre(r);
  r->unchanged = what;
}

void fz_promise(fz_run *r, const char *what)
{
  if (r->full)
    r->unchanged = what;
}

/* SPDX-License-Identifier: MIT */
/* State invariants of a softpmu core (see invariants.h), from the public
 * API alone: RDMSR / host RDMSR / RDPMC for the state, spmu_msr_info_get
 * and spmu_msr_field_get for what the profile defines. */
#include "invariants.h"
#include "harness.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Architectural MSR numbers the invariants name (SDM Vol. 4 Table 2-2). */
#define MSR_PMC0 0xC1u
#define MSR_EVTSEL0 0x186u
#define MSR_FIXED_CTR0 0x309u
#define MSR_PERF_METRICS 0x329u
#define MSR_FIXED_CTR_CTRL 0x38Du
#define MSR_GLOBAL_INUSE 0x392u
#define MSR_PEBS_ENABLE 0x3F1u
#define MSR_DS_AREA 0x600u

/* RDPMC ECX forms (SDM Vol. 2B RDPMC; PERF_METRICS per Linux). */
#define RDPMC_FIXED 0x40000000u
#define RDPMC_METRICS 0x20000000u

#define EVTSEL_EVENT 0xFFu
#define EVTSEL_INT (UINT64_C(1) << 20)
#define INUSE_PMI (UINT64_C(1) << 63)

#if defined(__GNUC__)
#define INV_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define INV_PRINTF(f, a)
#endif

static int fail(char *why, size_t len, const char *fmt, ...) INV_PRINTF(3, 4);

static int fail(char *why, size_t len, const char *fmt, ...)
{
  if (why && len) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
  }
  return -1;
}

const spmu_msr_info *spmu_inv_msr(const spmu_inv_ctx *ctx, uint32_t addr)
{
  size_t lo = 0, hi = ctx->nmsr;

  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (ctx->msr[mid].addr == addr)
      return &ctx->msr[mid];
    if (ctx->msr[mid].addr < addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

/* The PEBS_ENABLE bits that enable PEBS on a counter: the fields whose
 * name starts with PEBS_EN_ (PEBS_EN_PMCi, PEBS_EN_FIXEDj). */
static uint64_t pebs_enable_bits(const spmu_inv_ctx *ctx)
{
  const spmu_msr_info *m = spmu_inv_msr(ctx, MSR_PEBS_ENABLE);
  uint64_t bits = 0;
  unsigned i;

  if (!m)
    return 0;
  for (i = 0; i < m->nfields; i++) {
    spmu_field_info f;
    if (spmu_msr_field_get(&ctx->prof, m->addr, i, &f) != SPMU_OK)
      continue;
    if (strncmp(f.name, "PEBS_EN_", 8) == 0)
      bits |= spmu_width_mask(f.width) << f.lsb;
  }
  return bits;
}

int spmu_inv_ctx_init(spmu_inv_ctx *ctx, const spmu_profile *p)
{
  uint32_t addrs[SPMU_INV_MAX_MSRS];
  size_t i, n;
  int rc;

  memset(ctx, 0, sizeof(*ctx));
  ctx->prof = *p;
  n = spmu_msr_list(p, NULL, 0);
  if (n > SPMU_INV_MAX_MSRS)
    return SPMU_ERANGE;
  spmu_msr_list(p, addrs, n);
  for (i = 0; i < n; i++) {
    rc = spmu_msr_info_get(p, addrs[i], &ctx->msr[i]);
    if (rc != SPMU_OK)
      return rc;
  }
  ctx->nmsr = n;
  ctx->pebs_en = pebs_enable_bits(ctx);

  rc = spmu_core_new(p, &ctx->scratch);
  if (rc != SPMU_OK)
    return rc;
  if (spmu_core_save(ctx->scratch, NULL, 0, &ctx->blob_len) != SPMU_ENOSPC) {
    spmu_inv_ctx_fini(ctx);
    return SPMU_EINVAL;
  }
  ctx->blob_a = malloc(ctx->blob_len);
  ctx->blob_b = malloc(ctx->blob_len);
  ctx->verified = malloc(ctx->blob_len);
  if (!ctx->blob_a || !ctx->blob_b || !ctx->verified) {
    spmu_inv_ctx_fini(ctx);
    return SPMU_ENOMEM;
  }
  return SPMU_OK;
}

void spmu_inv_ctx_fini(spmu_inv_ctx *ctx)
{
  spmu_core_free(ctx->scratch);
  free(ctx->blob_a);
  free(ctx->blob_b);
  free(ctx->verified);
  ctx->scratch = NULL;
  ctx->blob_a = ctx->blob_b = ctx->verified = NULL;
  ctx->have_verified = 0;
}

int spmu_inv_save(spmu_inv_ctx *ctx, const spmu_core *core, uint8_t *buf,
                  char *why, size_t len)
{
  size_t got = 0;
  int rc = spmu_core_save(core, buf, ctx->blob_len, &got);

  if (rc != SPMU_OK)
    return fail(why, len, "snapshot-roundtrip: spmu_core_save: %s",
                spmu_errname(rc));
  if (got != ctx->blob_len)
    return fail(why, len,
                "snapshot-roundtrip: snapshot is %zu bytes, was %zu for "
                "this profile",
                got, ctx->blob_len);
  return 0;
}

/* An MSR value as RDMSR gives it; read-agree is checked on the way. */
static int read_msr(spmu_lp *lp, const spmu_msr_info *m, uint64_t *v, char *why,
                    size_t len)
{
  uint64_t h = 0;
  int rc = spmu_rdmsr(lp, m->addr, v);

  if (rc != SPMU_OK)
    return fail(why, len, "read-agree: LP%u RDMSR %s (%#x) of a listed MSR: %s",
                spmu_lp_index(lp), m->name, m->addr, spmu_errname(rc));
  rc = spmu_host_rdmsr(lp, m->addr, &h);
  if (rc != SPMU_OK || h != *v)
    return fail(why, len,
                "read-agree: LP%u %s: RDMSR %#llx, host RDMSR %#llx (%s)",
                spmu_lp_index(lp), m->name, ull(*v), ull(h), spmu_errname(rc));
  return 0;
}

/* Value of a listed MSR (0 when absent), without re-checking. */
static uint64_t value_of(const spmu_inv_ctx *ctx, spmu_lp *lp, uint32_t addr)
{
  uint64_t v = 0;

  if (spmu_inv_msr(ctx, addr))
    spmu_host_rdmsr(lp, addr, &v);
  return v;
}

/* The invariants of one register value, by the register's policy. */
static int check_value(const spmu_inv_ctx *ctx, spmu_lp *lp,
                       const spmu_msr_info *m, uint64_t v, char *why,
                       size_t len)
{
  unsigned k = spmu_lp_index(lp);

  switch (m->policy) {
  case SPMU_POLICY_W1C:
  case SPMU_POLICY_W1S:
    if (v != 0)
      return fail(why, len, "write-only-zero: LP%u %s reads %#llx", k, m->name,
                  ull(v));
    return 0;
  case SPMU_POLICY_COUNTER:
  case SPMU_POLICY_COUNTER_SX:
    if (v & ~spmu_width_mask(m->width))
      return fail(why, len,
                  "counter-width: LP%u %s = %#llx has bits at or above %u", k,
                  m->name, ull(v), m->width);
    if (m->target != m->addr) {
      uint64_t t = value_of(ctx, lp, m->target);
      if (t != v)
        return fail(why, len,
                    "alias-agree: LP%u %s = %#llx, its target "
                    "%#x = %#llx",
                    k, m->name, ull(v), m->target, ull(t));
    }
    return 0;
  case SPMU_POLICY_RW:
  case SPMU_POLICY_RO:
    if (v & m->reserved)
      return fail(why, len,
                  "reserved-clear: LP%u %s = %#llx sets reserved bits %#llx", k,
                  m->name, ull(v), ull(v & m->reserved));
    if ((v ^ m->reset) & m->readonly)
      return fail(why, len,
                  "readonly-kept: LP%u %s = %#llx changed read-only bits "
                  "%#llx (power-on %#llx)",
                  k, m->name, ull(v), ull((v ^ m->reset) & m->readonly),
                  ull(m->reset));
    /* SDM 3.3.7.1: the DS save area address is canonical (48 bits). */
    if (m->addr == MSR_DS_AREA && (v >> 47) != 0 &&
        (v >> 47) != (UINT64_C(1) << 17) - 1)
      return fail(why, len, "ds-canonical: LP%u %s = %#llx", k, m->name,
                  ull(v));
    return 0;
  case SPMU_POLICY_CONST:
    if (v != m->reset)
      return fail(why, len,
                  "readonly-kept: LP%u %s = %#llx, the profile "
                  "says %#llx",
                  k, m->name, ull(v), ull(m->reset));
    return 0;
  case SPMU_POLICY_COMPUTED:
    return 0; /* INUSE: check_inuse */
  }
  return fail(why, len, "read-agree: LP%u %s has unknown policy %d", k, m->name,
              (int)m->policy);
}

/* IA32_PERF_GLOBAL_INUSE recomputed from the event selects,
 * FIXED_CTR_CTRL and PEBS_ENABLE (SDM 18.2.4.3; invariants.h). */
static uint64_t expected_inuse(const spmu_inv_ctx *ctx, spmu_lp *lp)
{
  uint64_t ctrl = value_of(ctx, lp, MSR_FIXED_CTR_CTRL);
  uint64_t v = 0;
  bool pmi = false;
  unsigned i;

  for (i = 0; i < SPMU_MAX_GP; i++) {
    uint64_t sel;
    if (!spmu_inv_msr(ctx, MSR_EVTSEL0 + i))
      continue;
    sel = value_of(ctx, lp, MSR_EVTSEL0 + i);
    if (sel & EVTSEL_EVENT)
      v |= UINT64_C(1) << i;
    if (sel & EVTSEL_INT)
      pmi = true;
  }
  for (i = 0; i < SPMU_MAX_FIXED; i++) {
    if (!spmu_inv_msr(ctx, MSR_FIXED_CTR0 + i))
      continue;
    if ((ctrl >> (4 * i)) & 3)
      v |= UINT64_C(1) << (32 + i);
    if ((ctrl >> (4 * i)) & 8)
      pmi = true;
  }
  if (value_of(ctx, lp, MSR_PEBS_ENABLE) & ctx->pebs_en)
    pmi = true;
  return pmi ? v | INUSE_PMI : v;
}

static int check_inuse(const spmu_inv_ctx *ctx, spmu_lp *lp, char *why,
                       size_t len)
{
  uint64_t got, want;

  if (!spmu_inv_msr(ctx, MSR_GLOBAL_INUSE))
    return 0;
  got = value_of(ctx, lp, MSR_GLOBAL_INUSE);
  want = expected_inuse(ctx, lp);
  if (got != want)
    return fail(why, len,
                "inuse: LP%u IA32_PERF_GLOBAL_INUSE = %#llx, the event "
                "selects, FIXED_CTR_CTRL and PEBS_ENABLE give %#llx",
                spmu_lp_index(lp), ull(got), ull(want));
  return 0;
}

/* One RDPMC form: present => OK with the MSR's value, absent => #GP. */
static int check_rdpmc_one(const spmu_inv_ctx *ctx, spmu_lp *lp, uint32_t ecx,
                           uint32_t msr, char *why, size_t len)
{
  uint64_t v = 0;
  int rc = spmu_rdpmc(lp, ecx, 0, false, &v);
  bool present = spmu_inv_msr(ctx, msr) != NULL;

  if (present && (rc != SPMU_OK || v != value_of(ctx, lp, msr)))
    return fail(why, len,
                "rdpmc-agree: LP%u RDPMC ECX=%#x: %s %#llx, RDMSR %#x "
                "gives %#llx",
                spmu_lp_index(lp), ecx, spmu_errname(rc), ull(v), msr,
                ull(value_of(ctx, lp, msr)));
  if (!present && rc != SPMU_GP)
    return fail(why, len,
                "rdpmc-agree: LP%u RDPMC ECX=%#x names no counter "
                "(MSR %#x absent) but gives %s",
                spmu_lp_index(lp), ecx, msr, spmu_errname(rc));
  return 0;
}

static int check_rdpmc(const spmu_inv_ctx *ctx, spmu_lp *lp, char *why,
                       size_t len)
{
  unsigned i;

  if (ctx->prof.features & SPMU_FEAT_NETBURST) {
    /* NetBurst (Vol. 2B RDPMC): ECX[30:0] = counter n at 300H + n. */
    for (i = 0; i < 18; i++)
      if (check_rdpmc_one(ctx, lp, i, 0x300 + i, why, len))
        return -1;
    return 0;
  }
  for (i = 0; i < SPMU_MAX_GP; i++)
    if (check_rdpmc_one(ctx, lp, i, MSR_PMC0 + i, why, len))
      return -1;
  for (i = 0; i < SPMU_MAX_FIXED; i++)
    if (check_rdpmc_one(ctx, lp, RDPMC_FIXED | i, MSR_FIXED_CTR0 + i, why, len))
      return -1;
  return check_rdpmc_one(ctx, lp, RDPMC_METRICS, MSR_PERF_METRICS, why, len);
}

/* Addresses outside every profile, and PMU addresses some profiles lack. */
static const uint32_t probe_addrs[] = {
    0x0,   0xC0,  0xC1,  0xC8,    0xC9,       0x185,      0x186, 0x18D,
    0x18E, 0x309, 0x30C, 0x318,   0x329,      0x345,      0x38D, 0x38E,
    0x390, 0x391, 0x392, 0x393,   0x3F1,      0x3F2,      0x3F6, 0x3F7,
    0x4C1, 0x600, 0x601, 0x10000, 0xC0000080, 0xFFFFFFFF,
};

static int check_absent(const spmu_inv_ctx *ctx, spmu_lp *lp, char *why,
                        size_t len)
{
  size_t i;

  for (i = 0; i < sizeof probe_addrs / sizeof probe_addrs[0]; i++) {
    uint64_t v = 0;
    int rg, rh;
    if (spmu_inv_msr(ctx, probe_addrs[i]))
      continue;
    rg = spmu_rdmsr(lp, probe_addrs[i], &v);
    rh = spmu_host_rdmsr(lp, probe_addrs[i], &v);
    if (rg != SPMU_GP || rh != SPMU_ENOMSR)
      return fail(why, len,
                  "read-agree: LP%u MSR %#x is not listed, but "
                  "RDMSR gives %s and host RDMSR %s",
                  spmu_lp_index(lp), probe_addrs[i], spmu_errname(rg),
                  spmu_errname(rh));
  }
  return 0;
}

static int check_lp(const spmu_inv_ctx *ctx, spmu_lp *lp, char *why, size_t len)
{
  size_t i;

  for (i = 0; i < ctx->nmsr; i++) {
    const spmu_msr_info *m = &ctx->msr[i];
    uint64_t v = 0;
    if (read_msr(lp, m, &v, why, len) || check_value(ctx, lp, m, v, why, len))
      return -1;
  }
  if (check_inuse(ctx, lp, why, len) || check_rdpmc(ctx, lp, why, len) ||
      check_absent(ctx, lp, why, len))
    return -1;
  return 0;
}

/* save -> restore into the scratch core -> save: the same bytes. */
static int check_snapshot(spmu_inv_ctx *ctx, spmu_core *core, char *why,
                          size_t len)
{
  size_t i;
  int rc;

  if (spmu_inv_save(ctx, core, ctx->blob_a, why, len))
    return -1;
  if (ctx->have_verified &&
      memcmp(ctx->blob_a, ctx->verified, ctx->blob_len) == 0)
    return 0;
  rc = spmu_core_restore(ctx->scratch, ctx->blob_a, ctx->blob_len);
  if (rc != SPMU_OK)
    return fail(why, len,
                "snapshot-roundtrip: restoring a fresh snapshot "
                "into a second core: %s",
                spmu_errname(rc));
  if (spmu_inv_save(ctx, ctx->scratch, ctx->blob_b, why, len))
    return -1;
  for (i = 0; i < ctx->blob_len; i++)
    if (ctx->blob_a[i] != ctx->blob_b[i])
      return fail(why, len,
                  "snapshot-roundtrip: byte %zu of %zu differs "
                  "after save/restore/save (%#x, then %#x)",
                  i, ctx->blob_len, ctx->blob_a[i], ctx->blob_b[i]);
  memcpy(ctx->verified, ctx->blob_a, ctx->blob_len);
  ctx->have_verified = 1;
  return 0;
}

int spmu_inv_check(spmu_inv_ctx *ctx, spmu_core *core, char *why, size_t len)
{
  unsigned k, n = spmu_core_threads(core);

  if (n != ctx->prof.threads)
    return fail(why, len,
                "read-agree: the core has %u logical processors, "
                "the profile %u",
                n, ctx->prof.threads);
  for (k = 0; k < n; k++)
    if (check_lp(ctx, spmu_core_lp(core, k), why, len))
      return -1;
  return check_snapshot(ctx, core, why, len);
}

int spmu_check_invariants(spmu_core *core, char *why, size_t len)
{
  spmu_inv_ctx *ctx;
  int rc;

  if (!core)
    return fail(why, len, "no core");
  ctx = malloc(sizeof(*ctx));
  if (!ctx)
    return fail(why, len, "out of memory");
  rc = spmu_inv_ctx_init(ctx, spmu_core_profile(core));
  if (rc != SPMU_OK) {
    spmu_inv_ctx_fini(ctx);
    free(ctx);
    return fail(why, len, "cannot prepare the checker: %s", spmu_errname(rc));
  }
  rc = spmu_inv_check(ctx, core, why, len);
  spmu_inv_ctx_fini(ctx);
  free(ctx);
  return rc;
}

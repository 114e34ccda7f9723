/* Model configurations: the cachegrind-compatible one (parsed from
 * cachegrind's --I1/--D1/--LL triples) and the parts' (a table).
 *
 * Cache geometry is what CPUID leaf 04H reports for each cache (SDM Vol. 2A
 * CPUID, Table 3-8, leaf 04H: ways = EBX[31:22] + 1, line = EBX[11:0] + 1,
 * sets = ECX + 1, size = ways * line * sets; EDX bit 1 "cache
 * inclusiveness"), here as size, ways, line. */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Cachegrind's geometry when none is given and it cannot ask the host: its
 * x86/amd64 defaults (I1 and D1 65536 B 2-way 64 B lines, LL 262144 B
 * 8-way 64 B lines). softpmu never reads the host's caches: the same
 * specification gives the same model everywhere. */
static const spmu_uarch_geom cg_default_i1 = {65536, 2, 64};
static const spmu_uarch_geom cg_default_d1 = {65536, 2, 64};
static const spmu_uarch_geom cg_default_ll = {262144, 8, 64};

/* Cachegrind has no timing; this generic one (an L1 miss served by LL
 * costs 12 cycles, memory 200, a mispredict 15, 4-wide issue) is a model
 * parameter set, stated so that cycles can be shown in this configuration
 * too. */
static const spmu_uarch_timing cg_timing = {4, 0, 12, 200, 15, 1, 1};

/* The part configurations.
 * Geometry: Intel 64 and IA-32 Architectures Optimization Reference Manual,
 * the cache-parameters table of each microarchitecture's chapter-2
 * section; the LLC is the 4-core desktop part's as CPUID leaf 04H reports
 * it (Skylake: Core i7-6700K; Haswell: Core i7-4770; Sandy Bridge: Core
 * i7-2600), inclusive of the core caches in all three (leaf 04H EDX[1]).
 * Ice Lake (client, Sunny Cove): L1D 48 KB 12-way (leaf 04H of the Core
 * i5-1035G1 and i7-1065G7: EBX[31:22] + 1 = 12, 64 sets; the optimization
 * manual's 8-way is wrong), L1I 32 KB 8-way, L2 512 KB 8-way, the 4-core
 * part's LLC 8 MB 16-way (i7-1065G7), inclusive: the inclusiveness of L2
 * and LLC changed only with Willow Cove (Tiger Lake). Sapphire Rapids
 * (4th generation Xeon Scalable): L1D 48 KB 12-way, L1I 32 KB 8-way, a
 * private 2 MB 16-way L2, and per core one LLC slice of 1.875 MB, 15-way
 * (2048 sets), non-inclusive as on every Xeon Scalable part since
 * Skylake-SP; the model has one core, so its LLC is that core's slice.
 * Predictor and timing are this model's stated parameters, not Intel's
 * (Intel does not document its predictors): gshare of 2^16 counters with
 * 16 bits of history, a 4096-entry BTB, a 16-entry return-stack buffer;
 * latencies are round load-to-use figures beyond an L1 hit, and ref 1/1
 * models the core at its base frequency. */
typedef struct part {
  const char *name;
  spmu_uarch_geom l1i, l1d, l2, llc;
  int inclusive;
  spmu_uarch_timing timing;
} part;

/* Not formatted: one part per row, columns aligned. */
/* clang-format off */
static const part parts[] = {
  /* name           L1I              L1D              L2                 LLC                   incl  width l2 llc mem  misp ref */
  {"skylake",     {32768, 8, 64}, {32768, 8, 64}, {262144, 4, 64}, {8388608, 16, 64}, 1, {4, 12, 42, 250, 16, 1, 1}},
  {"haswell",     {32768, 8, 64}, {32768, 8, 64}, {262144, 8, 64}, {8388608, 16, 64}, 1, {4, 12, 36, 230, 15, 1, 1}},
  {"sandybridge", {32768, 8, 64}, {32768, 8, 64}, {262144, 8, 64}, {8388608, 16, 64}, 1, {4, 12, 30, 200, 15, 1, 1}},
  {"icelake",     {32768, 8, 64}, {49152, 12, 64}, {524288, 8, 64}, {8388608, 16, 64}, 1, {5, 13, 42, 250, 16, 1, 1}},
  {"sapphirerapids", {32768, 8, 64}, {49152, 12, 64}, {2097152, 16, 64}, {1966080, 15, 64}, 0, {6, 15, 60, 300, 17, 1, 1}},
};
/* clang-format on */
#define NPARTS (sizeof parts / sizeof parts[0])

static const spmu_uarch_bpred_geom part_bpred = {16, 4096, 16};

const char *spmu_uarch_part_name(unsigned index)
{
  return index < NPARTS ? parts[index].name : NULL;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Write the message into err; returns -1. */
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
  if (err && errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* Checks that every configuration must pass; NULL if it can run. */
const char *spmu_uarch_config_check(const spmu_uarch_config *cfg)
{
  const spmu_uarch_geom *g[4] = {&cfg->l1i, &cfg->l1d, &cfg->l2, &cfg->llc};
  const char *why;

  if (cfg->mode != SPMU_UARCH_CACHEGRIND && cfg->mode != SPMU_UARCH_PART)
    return "unknown model mode";
  for (int i = 0; i < 4; i++) {
    if (i == 2 && (cfg->mode == SPMU_UARCH_CACHEGRIND || g[i]->size == 0))
      continue;
    why = spmu_cache_check(g[i]);
    if (why)
      return why;
  }
  if (cfg->mode == SPMU_UARCH_CACHEGRIND)
    return NULL;
  /* A part's levels share one line size, so one block number names a
   * line everywhere (back-invalidation needs it). */
  if (cfg->l1i.line != cfg->l1d.line || cfg->llc.line != cfg->l1d.line ||
      (cfg->l2.size && cfg->l2.line != cfg->l1d.line))
    return "a part's caches must share one line size";
  if (cfg->bpred.hist_bits < 1 || cfg->bpred.hist_bits > 24)
    return "predictor history must be 1 to 24 bits";
  if (cfg->bpred.btb == 0 || (cfg->bpred.btb & (cfg->bpred.btb - 1)) ||
      cfg->bpred.btb > (1u << 20))
    return "BTB entries must be a power of two up to 2^20";
  return NULL;
}

/* One decimal number that fits cachegrind's int; 0 or -1. */
static int parse_num(const char **p, uint32_t *out)
{
  uint64_t v = 0;
  const char *s = *p;

  if (*s < '0' || *s > '9')
    return -1;
  while (*s >= '0' && *s <= '9') {
    v = v * 10 + (uint64_t)(*s++ - '0');
    if (v > 0x7fffffffu)
      return -2;
  }
  *p = s;
  *out = (uint32_t)v;
  return 0;
}

/* "size,assoc,line" up to end (exclusive) into g, checked as cachegrind
 * checks --I1/--D1/--LL. */
static int parse_triple(const char *s, const char *end, const char *key,
                        spmu_uarch_geom *g, char *err, size_t errlen)
{
  uint32_t v[3];
  const char *why;
  char arg[64];
  int rc;

  snprintf(arg, sizeof arg, "%.*s", (int)(end - s), s);
  for (int i = 0; i < 3; i++) {
    rc = parse_num(&s, &v[i]);
    if (rc == -2)
      return fail(err, errlen,
                  "%s: one of the cache parameters was too large and "
                  "overflowed",
                  key);
    if (rc || s > end || (i < 2 && *s != ',') || (i == 2 && s != end))
      return fail(err, errlen,
                  "%s: bad argument '%s' (expected size,assoc,line_size)", key,
                  arg);
    s++;
  }
  *g = (spmu_uarch_geom){v[0], v[1], v[2]};
  why = spmu_cache_check(g);
  if (why)
    return fail(err, errlen, "%s: %s", key, why);
  return 0;
}

/* One ":KEY=S,A,L" field of a cachegrind specification. */
static int parse_cg_field(const char *s, const char *end, spmu_uarch_config *c,
                          unsigned *seen, char *err, size_t errlen)
{
  static const char *const keys[3] = {"I1", "D1", "LL"};
  spmu_uarch_geom *dst[3] = {&c->l1i, &c->l1d, &c->llc};
  const char *eq = memchr(s, '=', (size_t)(end - s));
  char key[16];

  snprintf(key, sizeof key, "%.*s", eq ? (int)(eq - s) : (int)(end - s), s);
  for (unsigned i = 0; i < 3; i++) {
    if (!eq || strcmp(key, keys[i]) != 0)
      continue;
    if (*seen & (1u << i))
      return fail(err, errlen, "%s given twice", keys[i]);
    *seen |= 1u << i;
    return parse_triple(eq + 1, end, keys[i], dst[i], err, errlen);
  }
  return fail(err, errlen,
              "unknown cachegrind field '%s' (expected I1=, D1= or LL=)", key);
}

static int parse_cachegrind(const char *rest, spmu_uarch_config *c, char *err,
                            size_t errlen)
{
  unsigned seen = 0;

  memset(c, 0, sizeof *c);
  c->mode = SPMU_UARCH_CACHEGRIND;
  snprintf(c->name, sizeof c->name, "cachegrind");
  c->l1i = cg_default_i1;
  c->l1d = cg_default_d1;
  c->llc = cg_default_ll;
  c->timing = cg_timing;
  while (*rest == ':') {
    const char *f = rest + 1, *end = strchr(f, ':');

    if (!end)
      end = f + strlen(f);
    if (parse_cg_field(f, end, c, &seen, err, errlen))
      return -1;
    rest = end;
  }
  if (*rest)
    return fail(err, errlen, "expected ':' after 'cachegrind', not '%s'", rest);
  return 0;
}

static int parse_part(const char *name, spmu_uarch_config *c, char *err,
                      size_t errlen)
{
  char list[128] = "";

  for (size_t i = 0; i < NPARTS; i++) {
    if (strcmp(name, parts[i].name) != 0)
      continue;
    memset(c, 0, sizeof *c);
    c->mode = SPMU_UARCH_PART;
    snprintf(c->name, sizeof c->name, "%s", parts[i].name);
    c->l1i = parts[i].l1i;
    c->l1d = parts[i].l1d;
    c->l2 = parts[i].l2;
    c->llc = parts[i].llc;
    c->llc_inclusive = parts[i].inclusive;
    c->bpred = part_bpred;
    c->timing = parts[i].timing;
    return 0;
  }
  for (size_t i = 0; i < NPARTS; i++) {
    strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
    strncat(list, parts[i].name, sizeof list - strlen(list) - 1);
  }
  return fail(err, errlen, "unknown part '%s' (known: %s)", name, list);
}

int spmu_uarch_config_parse(const char *spec, spmu_uarch_config *out, char *err,
                            size_t errlen)
{
  if (err && errlen)
    err[0] = '\0';
  if (!spec || !out)
    return fail(err, errlen, "no model specification");
  if (strncmp(spec, "cachegrind", 10) == 0)
    return parse_cachegrind(spec + 10, out, err, errlen);
  if (strncmp(spec, "part:", 5) == 0)
    return parse_part(spec + 5, out, err, errlen);
  return fail(err, errlen,
              "unknown model '%s' (expected cachegrind[:I1=S,A,L][:D1=S,A,L]"
              "[:LL=S,A,L] or part:NAME)",
              spec);
}

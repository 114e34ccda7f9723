/* SPDX-License-Identifier: MIT */
/* Model configurations: the cachegrind-compatible one (parsed from
 * cachegrind's --I1/--D1/--LL triples) and the parts' (libsoftpmu's part
 * descriptors, src/profile/parts.c: the caches CPUID leaf 04H reports,
 * with the part's predictor and timing; nothing of a part is stated here).
 *
 * Cache geometry is what CPUID leaf 04H reports for each cache (SDM Vol. 2A
 * CPUID, Table 3-8, leaf 04H: ways = EBX[31:22] + 1, line = EBX[11:0] + 1,
 * sets = ECX + 1, size = ways * line * sets; EDX bit 1 "cache
 * inclusiveness"), here as size, ways, line. */
#include "internal.h"

#include "profile/parts.h"

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
 * too. No memory-level parallelism (rob and fill buffers 0): every miss
 * pays its latency in full. */
static const spmu_uarch_timing cg_timing = {4, 0, 12, 200, 15, 1, 1, 0, 0};

const char *spmu_uarch_part_name(unsigned index)
{
  const struct spmu_part_desc *d = spmu_part_at(index);

  return d ? d->name : NULL;
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

/* One cache of a part as the model states one. */
static spmu_uarch_geom part_geom(const struct spmu_part_desc *d,
                                 const struct spmu_part_cache *c)
{
  return (spmu_uarch_geom){c->size, c->ways, d->line};
}

/* The configuration of part d: its caches (an inclusive LLC when leaf 04H
 * says the last level is inclusive), predictor and timing. */
static void part_config(const struct spmu_part_desc *d, spmu_uarch_config *c)
{
  const struct spmu_part_timing *t = &d->timing;

  memset(c, 0, sizeof *c);
  c->mode = SPMU_UARCH_PART;
  snprintf(c->name, sizeof c->name, "%s", d->name);
  c->l1i = part_geom(d, &d->l1i);
  c->l1d = part_geom(d, &d->l1d);
  c->l2 = part_geom(d, &d->l2);
  c->llc = part_geom(d, &d->llc);
  c->llc_inclusive = d->llc.inclusive;
  c->llc_adaptive = d->llc_adaptive;
  c->bpred = (spmu_uarch_bpred_geom){.hist_bits = d->bpred.hist_bits,
                                     .btb = d->bpred.btb,
                                     .rsb = d->bpred.rsb};
  c->timing = (spmu_uarch_timing){.issue_width = t->issue_width,
                                  .lat_l2 = t->lat_l2,
                                  .lat_llc = t->lat_llc,
                                  .lat_mem = t->lat_mem,
                                  .misp_penalty = t->misp_penalty,
                                  .ref_num = t->ref_num,
                                  .ref_den = t->ref_den,
                                  .rob = t->rob,
                                  .fill_buffers = t->fill_buffers};
}

static int parse_part(const char *name, spmu_uarch_config *c, char *err,
                      size_t errlen)
{
  const struct spmu_part_desc *d = spmu_part_by_name(name, strlen(name));
  char list[128] = "";

  if (d) {
    part_config(d, c);
    return 0;
  }
  for (unsigned i = 0; (d = spmu_part_at(i)) != NULL; i++) {
    strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
    strncat(list, d->name, sizeof list - strlen(list) - 1);
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

/* SPDX-License-Identifier: MIT */
/* The catalogue's public face: list, describe, look up, decode, encode.
 *
 * Each question is answered from a profile applied to the catalogue
 * (struct spmu_applied). An spmu_regview handle applies its profile whole,
 * once, in spmu_regview_new; the spmu_msr_* calls that take a profile
 * compute its base on the stack and then only the MSR they are asked
 * about. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "regs/applied.h"
#include "softpmu/error.h"
#include "softpmu/regs.h"
#include "util/bits.h"

/* One field instance of a present MSR, found by walking the defs. */
struct field_ref {
  const struct spmu_field_def *f;
  unsigned k; /* counter index for repeated fields */
  unsigned lsb, width;
};

struct spmu_regview {
  struct spmu_applied a;
};

/* What a question is answered from: a profile applied to the catalogue,
 * either whole (a handle: every MSR's masks in a->msr) or its base only
 * (spmu_applied_init_base: a spmu_msr_* call, which then computes just the
 * MSRs its answer needs). */
struct scope {
  const struct spmu_applied *a;
  bool whole;
};

/* Base only: the profile's def at addr, the last of the catalogue that has
 * an instance there (as spmu_applied_init indexes them: OVF_CTRL and
 * STATUS_RESET share 390H), or NULL; *inst its instance. */
static const struct spmu_reg_def *def_at_base(const struct spmu_applied *a,
                                              uint32_t addr, unsigned *inst)
{
  const struct spmu_reg_def *found = NULL;
  size_t i;

  for (i = 0; i < spmu_catalog_len; i++) {
    const struct spmu_reg_def *d = &spmu_catalog[i];
    uint32_t k;

    if (addr < d->addr || addr - d->addr >= 32)
      continue;
    k = addr - d->addr;
    if (spmu_def_instances(a, d) >> k & 1) {
      found = d;
      *inst = k;
    }
  }
  return found;
}

/* The def present at addr in the scope's profile, or NULL. */
static const struct spmu_reg_def *def_at(const struct scope *s, uint32_t addr)
{
  const struct spmu_msr_rt *m;
  unsigned inst;

  if (!s->whole)
    return def_at_base(s->a, addr, &inst);
  m = spmu_applied_find(s->a, addr);
  return m ? m->def : NULL;
}

/* The present MSR at addr, or NULL; buf holds it when computed here. */
static const struct spmu_msr_rt *msr_find(const struct scope *s, uint32_t addr,
                                          struct spmu_msr_rt *buf)
{
  const struct spmu_reg_def *d;
  unsigned inst;

  if (s->whole)
    return spmu_applied_find(s->a, addr);
  d = def_at_base(s->a, addr, &inst);
  if (!d)
    return NULL;
  spmu_msr_rt_init(s->a, d, inst, buf, NULL);
  return buf;
}

/* Visit the field instances of m in ascending bit order (at one bit, in
 * the order of the def's fields, then of the counter index); stop when fn
 * returns true. Returns the number visited. */
static unsigned walk_fields(const struct spmu_applied *a,
                            const struct spmu_msr_rt *m,
                            bool (*fn)(const struct field_ref *, void *),
                            void *ctx)
{
  uint32_t sets[256];
  unsigned bit, n = 0, i;

  for (i = 0; i < m->def->nfields; i++)
    sets[i] = spmu_field_instances(a, &m->def->fields[i], m->inst);
  for (bit = 0; bit < 64; bit++) {
    if (m->def->field_exclude & BIT64(bit))
      continue;
    for (i = 0; i < m->def->nfields; i++) {
      const struct spmu_field_def *f = &m->def->fields[i];
      uint32_t set = sets[i];
      unsigned k;

      if (!set || bit < f->lsb)
        continue;
      if (f->stride) {
        /* Instance k sits at bit lsb + k * stride (catalog.h). */
        k = (bit - f->lsb) / f->stride;
        if ((bit - f->lsb) % f->stride || k >= 32 || !(set >> k & 1))
          continue;
        set = UINT32_C(1) << k;
      } else if (bit != f->lsb) {
        continue;
      }
      for (k = 0; set; k++, set >>= 1) {
        struct field_ref r;
        if (!(set & 1))
          continue;
        r.f = f;
        r.k = k;
        r.lsb = bit;
        r.width = f->width ? f->width : m->width;
        n++;
        if (fn && fn(&r, ctx))
          return n;
      }
    }
  }
  return n;
}

static size_t msr_list(const struct scope *s, uint32_t *addrs, size_t cap)
{
  uint64_t present[(SPMU_MSR_SPAN + 63) / 64] = {0};
  size_t n = 0, i;
  uint32_t addr;

  if (s->whole) {
    for (addr = 0; addr < SPMU_MSR_SPAN; addr++)
      if (s->a->index[addr])
        present[addr / 64] |= BIT64(addr % 64);
  } else {
    for (i = 0; i < spmu_catalog_len; i++) {
      uint32_t set = spmu_def_instances(s->a, &spmu_catalog[i]);
      for (addr = spmu_catalog[i].addr; set; addr++, set >>= 1)
        if (set & 1)
          present[addr / 64] |= BIT64(addr % 64);
    }
  }
  for (addr = 0; addr < SPMU_MSR_SPAN; addr++)
    if (present[addr / 64] >> (addr % 64) & 1) {
      if (addrs && n < cap)
        addrs[n] = addr;
      n++;
    }
  return n;
}

/* The addresses the catalogue's MSRs and reserved blocks
 * (spmu_msr_reserved) span, up to ABSENT_SPAN. */
#define ABSENT_SPAN 0x1700
_Static_assert(SPMU_MSR_SPAN <= ABSENT_SPAN, "the catalogue within the span");

/* Set (on) or clear the bits of set's instances, from def address addr. */
static void mark_set(uint64_t *bits, uint32_t addr, uint32_t set, bool on)
{
  for (; set; addr++, set >>= 1)
    if (set & 1) {
      if (on)
        bits[addr / 64] |= BIT64(addr % 64);
      else
        bits[addr / 64] &= ~BIT64(addr % 64);
    }
}

/* The addresses the catalogue declares on some profile, or reserves for
 * the families' debug and LBR facilities, that the scope's profile lacks,
 * ascending (spmu_msr_absent_list); the architectural MSRs of other
 * facilities inside those blocks (spmu_msr_foreign) are never absent. */
static size_t msr_absent_list(const struct scope *s, uint32_t *addrs,
                              size_t cap)
{
  uint64_t absent[ABSENT_SPAN / 64] = {0};
  size_t n = 0, i;
  uint32_t addr;

  for (i = 0; i < spmu_catalog_len; i++)
    mark_set(absent, spmu_catalog[i].addr, spmu_def_span(&spmu_catalog[i]),
             true);
  for (i = 0; i < spmu_msr_reserved_len; i++)
    for (addr = spmu_msr_reserved[i].first; addr <= spmu_msr_reserved[i].last;
         addr++)
      absent[addr / 64] |= BIT64(addr % 64);
  for (i = 0; i < spmu_catalog_len; i++)
    mark_set(absent, spmu_catalog[i].addr,
             spmu_def_instances(s->a, &spmu_catalog[i]), false);
  for (i = 0; i < spmu_msr_foreign_len; i++)
    mark_set(absent, spmu_msr_foreign[i], 1, false);
  for (addr = 0; addr < ABSENT_SPAN; addr++)
    if (absent[addr / 64] >> (addr % 64) & 1) {
      if (addrs && n < cap)
        addrs[n] = addr;
      n++;
    }
  return n;
}

/* The MSR that owns the state of alias m: the lowest address holding a
 * present non-alias def with the same storage and instance; else m's. */
static uint32_t alias_target(const struct scope *s, const struct spmu_msr_rt *m)
{
  uint32_t best = m->addr;
  bool found = false;
  size_t i;

  for (i = 0; i < spmu_catalog_len; i++) {
    const struct spmu_reg_def *o = &spmu_catalog[i];
    uint32_t t = o->addr + m->inst;

    if (o->alias || o->storage != m->def->storage ||
        !(spmu_def_instances(s->a, o) >> m->inst & 1) || def_at(s, t) != o)
      continue;
    if (!found || t < best)
      best = t;
    found = true;
  }
  return best;
}

static int msr_info_get(const struct scope *s, uint32_t addr,
                        spmu_msr_info *out)
{
  struct spmu_msr_rt buf;
  const struct spmu_msr_rt *m = msr_find(s, addr, &buf);

  if (!m)
    return SPMU_ENOMSR;
  memset(out, 0, sizeof(*out));
  out->addr = addr;
  spmu_name_format(out->name, sizeof out->name, m->def->name, NULL,
                   m->inst + m->def->name_base);
  out->policy = (spmu_policy)m->def->policy;
  out->target = m->def->alias ? alias_target(s, m) : addr;
  out->width = m->width;
  out->reset = m->reset;
  out->reserved = m->rsvd;
  out->readonly = m->ro;
  out->nfields = walk_fields(s->a, m, NULL, NULL);
  out->sdm = m->def->sdm;
  spmu_name_format(out->brief, sizeof out->brief, m->def->brief, NULL, m->inst);
  return SPMU_OK;
}

struct nth_ctx {
  unsigned want, seen;
  struct field_ref found;
};

static bool nth_fn(const struct field_ref *r, void *ctx)
{
  struct nth_ctx *c = ctx;
  if (c->seen++ == c->want) {
    c->found = *r;
    return true;
  }
  return false;
}

static void fill_field(const struct spmu_msr_rt *m, const struct field_ref *r,
                       spmu_field_info *out)
{
  spmu_name_format(out->name, sizeof out->name, r->f->name,
                   m->def->field_prefix, r->k);
  out->lsb = r->lsb;
  out->width = r->width;
  out->access = (spmu_access)r->f->access;
  if (m->def->policy == SPMU_POLICY_W1C)
    out->access = SPMU_ACCESS_W1C;
  else if (m->def->policy == SPMU_POLICY_W1S)
    out->access = SPMU_ACCESS_W1S;
  else if (m->def->policy != SPMU_POLICY_RW &&
           m->def->policy != SPMU_POLICY_COUNTER &&
           m->def->policy != SPMU_POLICY_COUNTER_SX)
    out->access = SPMU_ACCESS_RO;
  spmu_name_format(out->brief, sizeof out->brief, r->f->brief, NULL, r->k);
}

static int msr_field_get(const struct scope *s, uint32_t addr, unsigned idx,
                         spmu_field_info *out)
{
  struct spmu_msr_rt buf;
  const struct spmu_msr_rt *m = msr_find(s, addr, &buf);
  struct nth_ctx c = {.want = idx};

  if (!m)
    return SPMU_ENOMSR;
  walk_fields(s->a, m, nth_fn, &c);
  if (c.seen <= idx)
    return SPMU_ENOENT;
  fill_field(m, &c.found, out);
  return SPMU_OK;
}

static bool ieq(const char *a, const char *b)
{
  for (; *a && *b; a++, b++)
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
      return false;
  return *a == *b;
}

/* Does name start with pre (case-insensitive)? Returns the rest, or NULL. */
static const char *skip_prefix(const char *name, const char *pre, size_t len)
{
  size_t i;

  for (i = 0; i < len; i++)
    if (!name[i] ||
        tolower((unsigned char)name[i]) != tolower((unsigned char)pre[i]))
      return NULL;
  return name + i;
}

/* Is name (case-insensitive) what spmu_name_format(tmpl, prefix, idx)
 * writes? Compared in place, without formatting. */
static bool name_is(const char *name, const char *prefix, const char *tmpl,
                    unsigned idx)
{
  const char *pct = strstr(tmpl, "%u");
  char digits[12];
  size_t nd = sizeof digits;

  if (prefix && !(name = skip_prefix(name, prefix, strlen(prefix))))
    return false;
  if (!pct)
    return ieq(tmpl, name);
  if (!(name = skip_prefix(name, tmpl, (size_t)(pct - tmpl))))
    return false;
  do /* idx in decimal, as "%u" writes it, at the end of digits */
    digits[--nd] = (char)('0' + idx % 10);
  while (idx /= 10);
  if (strncmp(name, digits + nd, sizeof digits - nd) != 0)
    return false;
  return ieq(pct + 2, name + (sizeof digits - nd));
}

struct byname_ctx {
  const struct spmu_msr_rt *m;
  const char *name;
  bool hit;
  struct field_ref found;
};

static bool byname_fn(const struct field_ref *r, void *ctx)
{
  struct byname_ctx *c = ctx;

  if (name_is(c->name, c->m->def->field_prefix, r->f->name, r->k)) {
    c->hit = true;
    c->found = *r;
    return true;
  }
  return false;
}

static int find_field(const struct scope *s, uint32_t addr, const char *field,
                      struct field_ref *out)
{
  struct spmu_msr_rt buf;
  struct byname_ctx c = {.name = field};

  if (!field)
    return SPMU_EINVAL;
  c.m = msr_find(s, addr, &buf);
  if (!c.m)
    return SPMU_ENOMSR;
  walk_fields(s->a, c.m, byname_fn, &c);
  if (!c.hit)
    return SPMU_ENOENT;
  *out = c.found;
  return SPMU_OK;
}

static int field_decode(const struct scope *s, uint32_t addr, const char *field,
                        uint64_t reg, uint64_t *value)
{
  struct field_ref r;
  int rc;

  if (!value)
    return SPMU_EINVAL;
  rc = find_field(s, addr, field, &r);
  if (rc != SPMU_OK)
    return rc;
  *value = (reg >> r.lsb) & spmu_width_mask(r.width);
  return SPMU_OK;
}

static int field_encode(const struct scope *s, uint32_t addr, const char *field,
                        uint64_t value, uint64_t *reg)
{
  struct field_ref r;
  int rc;

  if (!reg)
    return SPMU_EINVAL;
  rc = find_field(s, addr, field, &r);
  if (rc != SPMU_OK)
    return rc;
  if (value & ~spmu_width_mask(r.width))
    return SPMU_ERANGE;
  *reg = (*reg & ~spmu_field_mask(r.lsb, r.width)) | (value << r.lsb);
  return SPMU_OK;
}

/* Does `name` match template tmpl ("IA32_PMC%u") for some index? */
static bool match_template(const char *tmpl, const char *name, unsigned *idx)
{
  const char *pct = strstr(tmpl, "%u");
  size_t pre, i;
  char *end;
  unsigned long v;

  if (!pct) {
    *idx = 0;
    return ieq(tmpl, name);
  }
  pre = (size_t)(pct - tmpl);
  if (strlen(name) < pre)
    return false;
  for (i = 0; i < pre; i++)
    if (tolower((unsigned char)tmpl[i]) != tolower((unsigned char)name[i]))
      return false;
  if (!isdigit((unsigned char)name[pre]))
    return false;
  v = strtoul(name + pre, &end, 10);
  if (v >= 64 || !ieq(pct + 2, end))
    return false;
  *idx = (unsigned)v;
  return true;
}

/* s == NULL: any name of the catalogue (regs.h). */
static int msr_lookup(const struct scope *s, const char *name, uint32_t *addr)
{
  size_t i;
  bool known = false;

  if (!name || !addr)
    return SPMU_EINVAL;

  if (isdigit((unsigned char)name[0])) {
    char *end;
    unsigned long v = strtoul(name, &end, 0);
    if (*end || v > UINT32_MAX)
      return SPMU_ENOENT;
    if (s && !def_at(s, (uint32_t)v))
      return SPMU_ENOMSR;
    *addr = (uint32_t)v;
    return SPMU_OK;
  }
  for (i = 0; i < spmu_catalog_len; i++) {
    const struct spmu_reg_def *d = &spmu_catalog[i];
    unsigned idx;

    if (!match_template(d->name, name, &idx) &&
        !(d->former && match_template(d->former, name, &idx)))
      continue;
    /* The name's index counts from name_base (MSR_CRU_ESCR2 is instance
     * 0 of the CRU_ESCR2/3 pair). */
    if (idx < d->name_base)
      continue;
    idx -= d->name_base;
    if (d->repeat == SPMU_REP_ONE && idx != 0)
      continue;
    if (d->repeat == SPMU_REP_GP && idx >= SPMU_MAX_GP)
      continue;
    if (d->repeat == SPMU_REP_FIXED && idx >= SPMU_MAX_FIXED)
      continue;
    if (d->repeat == SPMU_REP_COUNT && idx >= d->count)
      continue;
    known = true;
    /* The def must be the one present at that address (OVF_CTRL and
     * STATUS_RESET share 390H across versions). */
    if (s && def_at(s, d->addr + idx) != d)
      continue;
    *addr = d->addr + idx;
    return SPMU_OK;
  }
  return known ? SPMU_ENOMSR : SPMU_ENOENT;
}

/* ---- the handle: the profile applied once ---------------------------- */

int spmu_regview_new(const spmu_profile *p, spmu_regview **out)
{
  spmu_regview *r;

  if (!out)
    return SPMU_EINVAL;
  *out = NULL;
  if (!p || spmu_profile_validate(p, NULL, 0) != SPMU_OK)
    return SPMU_EINVAL;
  r = malloc(sizeof *r);
  if (!r)
    return SPMU_ENOMEM;
  spmu_applied_init(&r->a, p);
  *out = r;
  return SPMU_OK;
}

void spmu_regview_free(spmu_regview *r)
{
  free(r);
}

/* The scope of a handle: its profile applied whole. */
static struct scope whole(const spmu_regview *r)
{
  struct scope s = {&r->a, true};
  return s;
}

size_t spmu_regview_list(const spmu_regview *r, uint32_t *addrs, size_t cap)
{
  struct scope s;

  if (!r)
    return 0;
  s = whole(r);
  return msr_list(&s, addrs, cap);
}

int spmu_regview_info(const spmu_regview *r, uint32_t addr, spmu_msr_info *out)
{
  struct scope s;

  if (!r || !out)
    return SPMU_EINVAL;
  s = whole(r);
  return msr_info_get(&s, addr, out);
}

int spmu_regview_field_get(const spmu_regview *r, uint32_t addr, unsigned idx,
                           spmu_field_info *out)
{
  struct scope s;

  if (!r || !out)
    return SPMU_EINVAL;
  s = whole(r);
  return msr_field_get(&s, addr, idx, out);
}

int spmu_regview_lookup(const spmu_regview *r, const char *name, uint32_t *addr)
{
  struct scope s;

  if (!r)
    return msr_lookup(NULL, name, addr);
  s = whole(r);
  return msr_lookup(&s, name, addr);
}

int spmu_regview_field_decode(const spmu_regview *r, uint32_t addr,
                              const char *field, uint64_t reg, uint64_t *value)
{
  struct scope s;

  if (!r)
    return SPMU_EINVAL;
  s = whole(r);
  return field_decode(&s, addr, field, reg, value);
}

int spmu_regview_field_encode(const spmu_regview *r, uint32_t addr,
                              const char *field, uint64_t value, uint64_t *reg)
{
  struct scope s;

  if (!r)
    return SPMU_EINVAL;
  s = whole(r);
  return field_encode(&s, addr, field, value, reg);
}

/* ---- one call, one profile: its base only ---------------------------
 *
 * A spmu_msr_* call validates p and computes the profile's capabilities
 * and counter masks (spmu_applied_init_base), then only the MSR its answer
 * is about: the rest of struct spmu_applied (every MSR's masks, the address
 * index) stays unset and unread. */

/* The base of p for a query, in *a (stack storage, no allocation). */
static int apply_base(const spmu_profile *p, struct spmu_applied *a,
                      struct scope *s)
{
  if (!p || spmu_profile_validate(p, NULL, 0) != SPMU_OK)
    return SPMU_EINVAL;
  spmu_applied_init_base(a, p);
  s->a = a;
  s->whole = false;
  return SPMU_OK;
}

size_t spmu_msr_list(const spmu_profile *p, uint32_t *addrs, size_t cap)
{
  struct spmu_applied a;
  struct scope s;

  return apply_base(p, &a, &s) == SPMU_OK ? msr_list(&s, addrs, cap) : 0;
}

size_t spmu_msr_absent_list(const spmu_profile *p, uint32_t *addrs, size_t cap)
{
  struct spmu_applied a;
  struct scope s;

  return apply_base(p, &a, &s) == SPMU_OK ? msr_absent_list(&s, addrs, cap) : 0;
}

int spmu_msr_info_get(const spmu_profile *p, uint32_t addr, spmu_msr_info *out)
{
  struct spmu_applied a;
  struct scope s;

  if (!out || apply_base(p, &a, &s) != SPMU_OK)
    return SPMU_EINVAL;
  return msr_info_get(&s, addr, out);
}

int spmu_msr_field_get(const spmu_profile *p, uint32_t addr, unsigned idx,
                       spmu_field_info *out)
{
  struct spmu_applied a;
  struct scope s;

  if (!out || apply_base(p, &a, &s) != SPMU_OK)
    return SPMU_EINVAL;
  return msr_field_get(&s, addr, idx, out);
}

int spmu_msr_lookup(const spmu_profile *p, const char *name, uint32_t *addr)
{
  struct spmu_applied a;
  struct scope s;

  if (!name || !addr)
    return SPMU_EINVAL;
  if (!p)
    return msr_lookup(NULL, name, addr);
  if (apply_base(p, &a, &s) != SPMU_OK)
    return SPMU_EINVAL;
  return msr_lookup(&s, name, addr);
}

int spmu_msr_field_decode(const spmu_profile *p, uint32_t addr,
                          const char *field, uint64_t reg, uint64_t *value)
{
  struct spmu_applied a;
  struct scope s;

  if (!field || !value || apply_base(p, &a, &s) != SPMU_OK)
    return SPMU_EINVAL;
  return field_decode(&s, addr, field, reg, value);
}

int spmu_msr_field_encode(const spmu_profile *p, uint32_t addr,
                          const char *field, uint64_t value, uint64_t *reg)
{
  struct spmu_applied a;
  struct scope s;

  if (!field || !reg || apply_base(p, &a, &s) != SPMU_OK)
    return SPMU_EINVAL;
  return field_encode(&s, addr, field, value, reg);
}

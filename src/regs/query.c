/* The catalogue's public face: list, describe, look up, decode, encode.
 *
 * Each question is answered from a profile applied to the catalogue
 * (struct spmu_applied). An spmu_regview handle applies its profile once, in
 * spmu_regview_new; the spmu_msr_* calls that take a profile apply it on the
 * stack for that one call. */
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
  unsigned k;   /* counter index for repeated fields */
  unsigned lsb, width;
};

struct spmu_regview {
  struct spmu_applied a;
};

/* Apply p for a query (stack storage, no allocation). */
static int apply(const spmu_profile *p, struct spmu_applied *a)
{
  if (!p || spmu_profile_validate(p, NULL, 0) != SPMU_OK)
    return SPMU_EINVAL;
  spmu_applied_init(a, p);
  return SPMU_OK;
}

/* Visit the field instances of m in ascending bit order; stop when fn
 * returns true. Returns the number visited. */
static unsigned walk_fields(const struct spmu_applied *a,
                            const struct spmu_msr_rt *m,
                            bool (*fn)(const struct field_ref *, void *),
                            void *ctx)
{
  unsigned bit, n = 0, i;

  for (bit = 0; bit < 64; bit++) {
    for (i = 0; i < m->def->nfields; i++) {
      const struct spmu_field_def *f = &m->def->fields[i];
      uint32_t set = spmu_field_instances(a, f, m->inst);
      unsigned k;

      for (k = 0; set; k++, set >>= 1) {
        struct field_ref r;
        if (!(set & 1) || f->lsb + k * f->stride != bit)
          continue;
        if (m->def->field_exclude & BIT64(bit))
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

static size_t msr_list(const struct spmu_applied *a, uint32_t *addrs,
                       size_t cap)
{
  size_t n = 0;
  uint32_t addr;

  for (addr = 0; addr < SPMU_MSR_SPAN; addr++)
    if (a->index[addr]) {
      if (addrs && n < cap)
        addrs[n] = addr;
      n++;
    }
  return n;
}

static int msr_info_get(const struct spmu_applied *a, uint32_t addr,
                        spmu_msr_info *out)
{
  const struct spmu_msr_rt *m = spmu_applied_find(a, addr);

  if (!m)
    return SPMU_ENOMSR;
  memset(out, 0, sizeof(*out));
  out->addr = addr;
  spmu_name_format(out->name, sizeof out->name, m->def->name, NULL,
                   m->inst + m->def->name_base);
  out->policy = (spmu_policy)m->def->policy;
  out->target = addr;
  if (m->def->alias) {
    /* The MSR that owns the state: the non-alias def with the same
     * storage and instance. */
    uint32_t t;
    for (t = 0; t < SPMU_MSR_SPAN; t++) {
      const struct spmu_msr_rt *o = spmu_applied_find(a, t);
      if (o && !o->def->alias && o->def->storage == m->def->storage &&
          o->inst == m->inst) {
        out->target = t;
        break;
      }
    }
  }
  out->width = m->width;
  out->reset = m->reset;
  out->reserved = m->rsvd;
  out->readonly = m->ro;
  out->nfields = walk_fields(a, m, NULL, NULL);
  out->sdm = m->def->sdm;
  spmu_name_format(out->brief, sizeof out->brief, m->def->brief, NULL,
                   m->inst);
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

static int msr_field_get(const struct spmu_applied *a, uint32_t addr,
                         unsigned idx, spmu_field_info *out)
{
  const struct spmu_msr_rt *m = spmu_applied_find(a, addr);
  struct nth_ctx c = {.want = idx};

  if (!m)
    return SPMU_ENOMSR;
  walk_fields(a, m, nth_fn, &c);
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

struct byname_ctx {
  const struct spmu_msr_rt *m;
  const char *name;
  bool hit;
  struct field_ref found;
};

static bool byname_fn(const struct field_ref *r, void *ctx)
{
  struct byname_ctx *c = ctx;
  char buf[48];

  spmu_name_format(buf, sizeof buf, r->f->name, c->m->def->field_prefix, r->k);
  if (ieq(buf, c->name)) {
    c->hit = true;
    c->found = *r;
    return true;
  }
  return false;
}

static int find_field(const struct spmu_applied *a, uint32_t addr,
                      const char *field, struct field_ref *out)
{
  struct byname_ctx c = {.name = field};

  if (!field)
    return SPMU_EINVAL;
  c.m = spmu_applied_find(a, addr);
  if (!c.m)
    return SPMU_ENOMSR;
  walk_fields(a, c.m, byname_fn, &c);
  if (!c.hit)
    return SPMU_ENOENT;
  *out = c.found;
  return SPMU_OK;
}

static int field_decode(const struct spmu_applied *a, uint32_t addr,
                        const char *field, uint64_t reg, uint64_t *value)
{
  struct field_ref r;
  int rc;

  if (!value)
    return SPMU_EINVAL;
  rc = find_field(a, addr, field, &r);
  if (rc != SPMU_OK)
    return rc;
  *value = (reg >> r.lsb) & spmu_width_mask(r.width);
  return SPMU_OK;
}

static int field_encode(const struct spmu_applied *a, uint32_t addr,
                        const char *field, uint64_t value, uint64_t *reg)
{
  struct field_ref r;
  int rc;

  if (!reg)
    return SPMU_EINVAL;
  rc = find_field(a, addr, field, &r);
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

/* a == NULL: any name of the catalogue (regs.h). */
static int msr_lookup(const struct spmu_applied *a, const char *name,
                      uint32_t *addr)
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
    if (a && !spmu_applied_find(a, (uint32_t)v))
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
    if (a) {
      /* The def must be the one present at that address (OVF_CTRL and
       * STATUS_RESET share 390H across versions). */
      const struct spmu_msr_rt *m = spmu_applied_find(a, d->addr + idx);
      if (!m || m->def != d)
        continue;
    }
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

size_t spmu_regview_list(const spmu_regview *r, uint32_t *addrs, size_t cap)
{
  return r ? msr_list(&r->a, addrs, cap) : 0;
}

int spmu_regview_info(const spmu_regview *r, uint32_t addr, spmu_msr_info *out)
{
  return r && out ? msr_info_get(&r->a, addr, out) : SPMU_EINVAL;
}

int spmu_regview_field_get(const spmu_regview *r, uint32_t addr, unsigned idx,
                        spmu_field_info *out)
{
  return r && out ? msr_field_get(&r->a, addr, idx, out) : SPMU_EINVAL;
}

int spmu_regview_lookup(const spmu_regview *r, const char *name, uint32_t *addr)
{
  return msr_lookup(r ? &r->a : NULL, name, addr);
}

int spmu_regview_field_decode(const spmu_regview *r, uint32_t addr,
                           const char *field, uint64_t reg, uint64_t *value)
{
  return r ? field_decode(&r->a, addr, field, reg, value) : SPMU_EINVAL;
}

int spmu_regview_field_encode(const spmu_regview *r, uint32_t addr,
                           const char *field, uint64_t value, uint64_t *reg)
{
  return r ? field_encode(&r->a, addr, field, value, reg) : SPMU_EINVAL;
}

/* ---- one call, one profile: applied on the stack --------------------- */

size_t spmu_msr_list(const spmu_profile *p, uint32_t *addrs, size_t cap)
{
  struct spmu_applied a;

  return apply(p, &a) == SPMU_OK ? msr_list(&a, addrs, cap) : 0;
}

int spmu_msr_info_get(const spmu_profile *p, uint32_t addr, spmu_msr_info *out)
{
  struct spmu_applied a;

  if (!out || apply(p, &a) != SPMU_OK)
    return SPMU_EINVAL;
  return msr_info_get(&a, addr, out);
}

int spmu_msr_field_get(const spmu_profile *p, uint32_t addr, unsigned idx,
                       spmu_field_info *out)
{
  struct spmu_applied a;

  if (!out || apply(p, &a) != SPMU_OK)
    return SPMU_EINVAL;
  return msr_field_get(&a, addr, idx, out);
}

int spmu_msr_lookup(const spmu_profile *p, const char *name, uint32_t *addr)
{
  struct spmu_applied a;

  if (!name || !addr)
    return SPMU_EINVAL;
  if (p && apply(p, &a) != SPMU_OK)
    return SPMU_EINVAL;
  return msr_lookup(p ? &a : NULL, name, addr);
}

int spmu_msr_field_decode(const spmu_profile *p, uint32_t addr,
                          const char *field, uint64_t reg, uint64_t *value)
{
  struct spmu_applied a;

  if (!field || !value || apply(p, &a) != SPMU_OK)
    return SPMU_EINVAL;
  return field_decode(&a, addr, field, reg, value);
}

int spmu_msr_field_encode(const spmu_profile *p, uint32_t addr,
                          const char *field, uint64_t value, uint64_t *reg)
{
  struct spmu_applied a;

  if (!field || !reg || apply(p, &a) != SPMU_OK)
    return SPMU_EINVAL;
  return field_encode(&a, addr, field, value, reg);
}

/* SPDX-License-Identifier: MIT */
/* CPUID leaves 00H (the maximum basic leaf), 01H (its PMU bits), 04H (the
 * part's caches, parts.c) and 0AH as a profile enumerates them, and a profile
 * from those leaves: the one place softpmu encodes and decodes them (SDM Vol.
 * 2A CPUID, Table 3-8, leaves 04H and 0AH; Tables 3-10 and 3-11, leaf 01H; Vol.
 * 3B 18.2.1-18.2.5). */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "profile/parts.h"
#include "regs/applied.h"
#include "softpmu/error.h"
#include "softpmu/events.h"
#include "softpmu/profile.h"
#include "util/bits.h"

enum { EAX, EBX, ECX, EDX };

/* Leaf 01H bits softpmu defines. */
#define L01_ECX_DTES64 (1u << 2)
#define L01_ECX_DS_CPL (1u << 4)
#define L01_ECX_PDCM (1u << 15)
#define L01_EDX_DS (1u << 21)
/* Leaf 07H sub-leaf 0 EDX[19]: architectural LBRs. */
#define L07_EDX_ARCH_LBR (1u << 19)
/* Leaf 0DH (SDM Vol. 2A CPUID, "Processor Extended State Enumeration"):
 * sub-leaf 1 ECX[n] state component n is supported in IA32_XSS; sub-leaf
 * n > 1 ECX[0] the component is a supervisor one (IA32_XSS), ECX[1] it is
 * 64-byte aligned in the compacted format. Component 15: the
 * architectural LBR state (Vol. 1 13.5.12 "Arch LBR State"). */
#define XSTATE_ARCH_LBR 15u
#define L0D1_ECX_ARCH_LBR (1u << XSTATE_ARCH_LBR)
#define L0DN_ECX_XSS 1u
/* Leaf 0AH EDX[15], v5: AnyThread deprecation. */
#define L0A_EDX_ANY_DEPRECATED (1u << 15)

/* ---- leaf 04H: deterministic cache parameters ------------------------
 *
 * SDM Vol. 2A CPUID, Table 3-8, leaf 04H, one sub-leaf per cache:
 *   EAX[4:0] cache type (1 data, 2 instruction, 3 unified; 0 no more
 *   caches), EAX[7:5] level, EAX[8] self-initializing, EAX[9] fully
 *   associative, EAX[25:14] logical processors sharing the cache - 1,
 *   EAX[31:26] addressable core IDs in the package - 1;
 *   EBX[11:0] line size - 1, EBX[21:12] physical line partitions - 1,
 *   EBX[31:22] ways - 1; ECX sets - 1; EDX[0] WBINVD/INVD of lower levels,
 *   EDX[1] inclusive of lower levels, EDX[2] complex indexing.
 * size = ways x partitions x line x sets. Derived from the part's caches
 * (parts.c): one partition, self-initializing, not fully associative. */
#define L4_DATA 1
#define L4_INSTR 2
#define L4_UNIFIED 3
#define L4_SELF_INIT (1u << 8) /* EAX[8] */
#define L4_INCL 0x2            /* EDX[1] */
#define L4_COMPLEX 0x4         /* EDX[2] */

/* Sub-leaf `sub` of leaf 04H for p's part: L1D, L1I, L2, L3, then type 0
 * (no more caches); SPMU_ENOENT when p has no part. */
static int leaf_04(const spmu_profile *p, uint32_t sub, uint32_t regs[4])
{
  static const uint8_t type[4] = {L4_DATA, L4_INSTR, L4_UNIFIED, L4_UNIFIED};
  static const uint8_t level[4] = {1, 1, 2, 3};
  const struct spmu_part_desc *d = spmu_part_by_id(p->part);
  const struct spmu_part_cache *c;

  if (!d)
    return SPMU_ENOENT;
  if (sub >= 4)
    return SPMU_OK; /* type 0: no more caches */
  c = sub == 0 ? &d->l1d : sub == 1 ? &d->l1i : sub == 2 ? &d->l2 : &d->llc;
  regs[EAX] = type[sub] | (uint32_t)level[sub] << 5 | L4_SELF_INIT |
              (uint32_t)(c->sharing - 1) << 14 | (uint32_t)(d->cores - 1) << 26;
  regs[EBX] = (uint32_t)(d->line - 1) | (uint32_t)(c->ways - 1) << 22;
  regs[ECX] = c->size / ((uint32_t)c->ways * d->line) - 1;
  regs[EDX] =
      (c->inclusive ? L4_INCL : 0) | (c->complex_index ? L4_COMPLEX : 0);
  return SPMU_OK;
}

int spmu_cpuid_owned(uint32_t leaf, uint32_t owned[4])
{
  if (!owned)
    return SPMU_EINVAL;
  switch (leaf) {
  case 0x1:
    owned[0] = 0;
    owned[1] = 0;
    owned[2] = L01_ECX_DTES64 | L01_ECX_DS_CPL | L01_ECX_PDCM;
    owned[3] = L01_EDX_DS;
    return SPMU_OK;
  case 0x7:
    owned[0] = owned[1] = owned[2] = 0;
    owned[3] = L07_EDX_ARCH_LBR;
    return SPMU_OK;
  case 0x4:
  case 0xA:
  case 0x1C:
    owned[0] = owned[1] = owned[2] = owned[3] = 0xffffffffu;
    return SPMU_OK;
  default:
    return SPMU_ENOENT;
  }
}

int spmu_cpuid_owned_subleaf(uint32_t leaf, uint32_t subleaf, uint32_t owned[4])
{
  /* Leaf 07H: EDX[19] Arch LBR is a bit of sub-leaf 0 only (SDM Vol. 2A
   * CPUID leaf 07H); the other sub-leaves' EDX bits are other features. */
  if (leaf == 0x7 && subleaf != 0) {
    if (!owned)
      return SPMU_EINVAL;
    owned[0] = owned[1] = owned[2] = owned[3] = 0;
    return SPMU_OK;
  }
  if (leaf != 0xD)
    return spmu_cpuid_owned(leaf, owned);
  if (!owned)
    return SPMU_EINVAL;
  owned[0] = owned[1] = owned[2] = owned[3] = 0;
  if (subleaf == 1)
    owned[ECX] = L0D1_ECX_ARCH_LBR;
  else if (subleaf == XSTATE_ARCH_LBR)
    owned[0] = owned[1] = owned[2] = owned[3] = 0xffffffffu;
  return SPMU_OK;
}

/* Leaf 0DH with architectural LBRs: sub-leaf 1 ECX[15], IA32_XSS bit 15
 * supported; sub-leaf 0FH EAX the component's size (its five MSRs and
 * FROM/TO/INFO of the deepest depth leaf 1CH enumerates, as
 * spmu_lbr_xsave lays it out), EBX 0 (a supervisor component has no
 * standard-format offset), ECX[0] = 1 (IA32_XSS), ECX[1] = 0 (follows
 * the preceding component in the compacted format), EDX 0. */
static void leaf_0d(const spmu_profile *p, uint32_t subleaf, uint32_t regs[4])
{
  if (!(p->features & SPMU_FEAT_ARCH_LBR))
    return;
  if (subleaf == 1)
    regs[ECX] = L0D1_ECX_ARCH_LBR;
  if (subleaf == XSTATE_ARCH_LBR) {
    regs[EAX] = SPMU_LBR_XSAVE_SIZE(spmu_lbr_max_depth(p));
    regs[ECX] = L0DN_ECX_XSS;
  }
}

/* Leaf 00H EAX, the maximum input value for basic CPUID information (SDM
 * Vol. 2A CPUID, Table 3-8): the highest leaf this file enumerates for p,
 * so that software reaches it (a leaf above the maximum answers as the
 * maximum leaf does): 1CH with architectural LBRs, 0AH with architectural
 * performance monitoring (SDM 18.2: CPUID.0AH), 04H with a part's caches,
 * else 01H. */
static uint32_t max_basic_leaf(const spmu_profile *p)
{
  if (p->features & SPMU_FEAT_ARCH_LBR)
    return 0x1C;
  if (p->version >= 1)
    return 0xA;
  if (spmu_part_by_id(p->part))
    return 0x4;
  return 0x1;
}

int spmu_profile_cpuid(const spmu_profile *p, uint32_t leaf, uint32_t subleaf,
                       uint32_t regs[4])
{
  if (!p || !regs)
    return SPMU_EINVAL;
  regs[0] = regs[1] = regs[2] = regs[3] = 0;
  switch (leaf) {
  case 0x0:
    /* Only EAX: the vendor string (EBX, EDX, ECX) is the host's. */
    regs[EAX] = max_basic_leaf(p);
    return SPMU_OK;
  case 0x1:
    /* SDM Vol. 2A CPUID, Table 3-10/3-11. */
    if (p->features & SPMU_FEAT_DTES64)
      regs[ECX] |= L01_ECX_DTES64;
    if (p->features & SPMU_FEAT_DS_CPL)
      regs[ECX] |= L01_ECX_DS_CPL;
    if (p->features & SPMU_FEAT_PDCM)
      regs[ECX] |= L01_ECX_PDCM;
    if (p->features & SPMU_FEAT_DS)
      regs[EDX] |= L01_EDX_DS;
    return SPMU_OK;
  case 0x4:
    return leaf_04(p, subleaf, regs);
  case 0xA:
    /* SDM 18.2.1 / Vol. 2A Table 3-8, leaf 0AH. */
    if (p->version == 0)
      return SPMU_OK;
    regs[0] = p->version | (uint32_t)p->gp << 8 | (uint32_t)p->gp_width << 16 |
              (uint32_t)p->events_len << 24;
    regs[1] = p->events_unavailable;
    if (p->version >= 5) /* supported fixed counters bitmap */
      regs[2] = spmu_profile_fixed_stated(p) ? p->fixed_ecx : p->fixed_mask;
    if (p->version >= 2 && p->fixed_mask)
      regs[3] =
          (spmu_profile_fixed_stated(p) ? p->fixed_contig
                                        : spmu_trailing_ones(p->fixed_mask)) |
          (uint32_t)p->fixed_width << 5;
    if (p->features & SPMU_FEAT_ANY_DEPRECATED)
      regs[3] |= L0A_EDX_ANY_DEPRECATED;
    return SPMU_OK;
  case 0x7:
    /* SDM Vol. 2A CPUID leaf 07H, sub-leaf 0: EDX[19] Arch LBR. */
    if (subleaf == 0 && (p->features & SPMU_FEAT_ARCH_LBR))
      regs[EDX] = L07_EDX_ARCH_LBR;
    return SPMU_OK;
  case 0xD:
    leaf_0d(p, subleaf, regs);
    return SPMU_OK;
  case 0x1C:
    /* SDM Vol. 2A CPUID leaf 1CH (Vol. 3B "Architectural Last Branch
     * Records"): EAX, EBX, ECX as the profile states; EDX reserved. */
    if (p->features & SPMU_FEAT_ARCH_LBR) {
      regs[EAX] = p->lbr_leaf_1c[0];
      regs[EBX] = p->lbr_leaf_1c[1];
      regs[ECX] = p->lbr_leaf_1c[2];
    }
    return SPMU_OK;
  default:
    return SPMU_ENOENT;
  }
}

/* ---- a profile from CPUID -------------------------------------------- */

/* Field [lsb + width - 1 : lsb] of a register. */
static unsigned field(uint32_t reg, unsigned lsb, unsigned width)
{
  return (unsigned)(reg >> lsb & spmu_width_mask(width));
}

/* Leaf 0AH's fixed counters as enumerated, before any limit. */
struct fixed_enum {
  unsigned contig; /* EDX[4:0] */
  uint32_t ecx;    /* ECX (v5) */
};

static uint32_t fixed_union(const struct fixed_enum *f)
{
  return (uint32_t)(spmu_width_mask(f->contig) | f->ecx);
}

/* One more line of what CLAMP did, appended to why. */
static void limit_note(char *why, size_t whylen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void limit_note(char *why, size_t whylen, const char *fmt, ...)
{
  const char *end;
  size_t used;
  va_list ap;

  if (!why || !whylen)
    return;
  end = memchr(why, '\0', whylen);
  used = end ? (size_t)(end - why) : whylen;
  if (used && used + 1 < whylen) {
    why[used++] = '\n';
    why[used] = '\0';
  }
  if (used + 1 >= whylen)
    return;
  va_start(ap, fmt);
  vsnprintf(why + used, whylen - used, fmt, ap);
  va_end(ap);
}

/* Leaf 0AH into p and f (SDM Vol. 2A Table 3-8). */
static void decode_leaf_0a(const uint32_t r[4], spmu_profile *p,
                           struct fixed_enum *f)
{
  unsigned len = field(r[EAX], 24, 8);

  p->version = (uint8_t)field(r[EAX], 0, 8);
  p->gp = (uint8_t)field(r[EAX], 8, 8);
  p->gp_width = (uint8_t)field(r[EAX], 16, 8);
  p->events_len = (uint8_t)len;
  p->events_unavailable =
      r[EBX] & (uint32_t)spmu_width_mask(len < 32 ? len : 32);
  f->contig = 0;
  f->ecx = 0;
  if (p->version >= 2) {
    f->contig = field(r[EDX], 0, 5);
    p->fixed_width = (uint8_t)field(r[EDX], 5, 8);
  }
  if (p->version >= 5) {
    f->ecx = r[ECX];
    if (r[EDX] & L0A_EDX_ANY_DEPRECATED)
      p->features |= SPMU_FEAT_ANY_DEPRECATED;
  }
}

/* Leaf 01H's PMU bits (SDM Vol. 2A Tables 3-10, 3-11) and, with PDCM,
 * IA32_PERF_CAPABILITIES. */
static void decode_leaf_01(const uint32_t r[4], uint64_t perf_capabilities,
                           spmu_profile *p)
{
  if (!r)
    return;
  if (r[ECX] & L01_ECX_PDCM) {
    p->features |= SPMU_FEAT_PDCM;
    p->perf_capabilities = perf_capabilities;
  }
  if (r[EDX] & L01_EDX_DS) {
    p->features |= SPMU_FEAT_DS;
    if (r[ECX] & L01_ECX_DTES64)
      p->features |= SPMU_FEAT_DTES64;
    if (r[ECX] & L01_ECX_DS_CPL)
      p->features |= SPMU_FEAT_DS_CPL;
  }
}

/* CLAMP: the counters within the model's limits (profile.h). */
static void clamp_counters(spmu_profile *p, struct fixed_enum *f, char *why,
                           size_t whylen)
{
  if (p->version > 5) {
    limit_note(why, whylen,
               "perfmon version %u: softpmu models versions 1-5; the MSRs are "
               "decoded as version 5",
               p->version);
    p->version = 5;
  }
  if (p->gp > SPMU_MAX_GP) {
    limit_note(why, whylen,
               "%u GP counters: the architectural MSR ranges hold %u; "
               "IA32_PMC%u and up are left out",
               p->gp, SPMU_MAX_GP, SPMU_MAX_GP);
    p->gp = SPMU_MAX_GP;
  }
  if (p->events_len > 32) {
    limit_note(why, whylen, "EBX vector length %u: EBX has 32 bits",
               p->events_len);
    p->events_len = 32;
  }
  if (p->version < 5 && f->contig > 3) {
    limit_note(why, whylen,
               "%u fixed counters: perfmon versions 2-4 define three",
               f->contig);
    f->contig = 3;
  }
  if (fixed_union(f) >> SPMU_MAX_FIXED) {
    limit_note(why, whylen,
               "fixed counters %u and up are left out (IA32_PERF_GLOBAL_CTRL "
               "has bits for %u)",
               SPMU_MAX_FIXED, SPMU_MAX_FIXED);
    f->contig = f->contig < SPMU_MAX_FIXED ? f->contig : SPMU_MAX_FIXED;
    f->ecx &= (uint32_t)spmu_width_mask(SPMU_MAX_FIXED);
  }
}

/* CLAMP: IA32_PERF_CAPABILITIES as far as softpmu models it (SDM 18.6.2,
 * Vol. 4 Table 2-2): defined bits 17:0, PEBS record formats 0-4, format 4
 * with PEBS_BASELINE, PERF_METRICS with fixed counter 3. */
static void clamp_capabilities(spmu_profile *p, char *why, size_t whylen)
{
  uint64_t pc = p->perf_capabilities;
  unsigned fmt;

  if (pc & ~SPMU_PERFCAP_DEFINED_MASK) {
    limit_note(why, whylen,
               "IA32_PERF_CAPABILITIES 0x%llx: bits above 17 are not "
               "modelled and are left out of the profile",
               (unsigned long long)pc);
    pc &= SPMU_PERFCAP_DEFINED_MASK;
  }
  fmt = (unsigned)((pc & SPMU_PERFCAP_PEBS_FMT_MASK) >>
                   SPMU_PERFCAP_PEBS_FMT_SHIFT);
  if (fmt > 4 || (fmt == 4) != ((pc & SPMU_PERFCAP_PEBS_BASELINE) != 0)) {
    unsigned as = (pc & SPMU_PERFCAP_PEBS_BASELINE) ? 4 : 3;
    limit_note(
        why, whylen, "PEBS record format %u%s: decoded as format %u", fmt,
        (pc & SPMU_PERFCAP_PEBS_BASELINE) ? " with PEBS_BASELINE" : "", as);
    pc = (pc & ~SPMU_PERFCAP_PEBS_FMT_MASK) |
         (uint64_t)as << SPMU_PERFCAP_PEBS_FMT_SHIFT;
  }
  if ((pc & SPMU_PERFCAP_PERF_METRICS) && !(p->fixed_mask & 0x8)) {
    limit_note(why, whylen,
               "PERF_METRICS without fixed counter 3: left out of the "
               "profile");
    pc &= ~SPMU_PERFCAP_PERF_METRICS;
  }
  p->perf_capabilities = pc;
}

/* The fixed counters present, and EDX[4:0] / ECX stated only when
 * spmu_profile_cpuid would not give them back from fixed_mask alone
 * (profile.h). */
static void set_fixed(spmu_profile *p, const struct fixed_enum *f)
{
  p->fixed_mask = fixed_union(f);
  if (f->contig == spmu_trailing_ones(p->fixed_mask) &&
      f->ecx == (p->version >= 5 ? p->fixed_mask : 0))
    return;
  p->fixed_contig = (uint8_t)f->contig;
  p->fixed_ecx = f->ecx;
}

/* Architectural LBRs (CPUID.(EAX=07H,ECX=0):EDX[19], leaf 1CH EAX, EBX,
 * ECX; Vol. 3B "Architectural Last Branch Records"). */
int spmu_profile_lbr_from_cpuid(spmu_profile *p, const uint32_t leaf_07[4],
                                const uint32_t leaf_1c[4], char *why,
                                size_t whylen)
{
  spmu_profile q;
  int rc;

  if (why && whylen)
    why[0] = '\0';
  if (!p || !leaf_07 || (!leaf_1c && (leaf_07[EDX] & L07_EDX_ARCH_LBR)))
    return SPMU_EINVAL;
  q = *p;
  if (leaf_07[EDX] & L07_EDX_ARCH_LBR) {
    q.features |= SPMU_FEAT_ARCH_LBR;
    q.lbr_depth = 0;
    q.lbr_leaf_1c[0] = leaf_1c[EAX];
    q.lbr_leaf_1c[1] = leaf_1c[EBX];
    q.lbr_leaf_1c[2] = leaf_1c[ECX];
  } else {
    q.features &= ~(uint32_t)SPMU_FEAT_ARCH_LBR;
    memset(q.lbr_leaf_1c, 0, sizeof q.lbr_leaf_1c);
  }
  if ((rc = spmu_profile_validate(&q, why, whylen)) != SPMU_OK)
    return rc;
  *p = q;
  return SPMU_OK;
}

int spmu_profile_from_cpuid(const uint32_t leaf_0a[4],
                            const uint32_t leaf_01[4],
                            uint64_t perf_capabilities, spmu_cpuid_mode mode,
                            spmu_profile *out, char *why, size_t whylen)
{
  spmu_profile p = {.name = "cpuid", .threads = 1};
  struct fixed_enum f;
  int rc;

  if (why && whylen)
    why[0] = '\0';
  if (!leaf_0a || !out || (unsigned)mode > SPMU_CPUID_DECODE) {
    if (why && whylen)
      snprintf(why, whylen, "no leaf 0AH, no profile to fill or no such mode");
    return SPMU_EINVAL;
  }
  decode_leaf_0a(leaf_0a, &p, &f);
  decode_leaf_01(leaf_01, perf_capabilities, &p);
  if (mode == SPMU_CPUID_CLAMP)
    clamp_counters(&p, &f, why, whylen);
  set_fixed(&p, &f);
  if (mode == SPMU_CPUID_CLAMP)
    clamp_capabilities(&p, why, whylen);
  if (mode != SPMU_CPUID_DECODE &&
      (rc = spmu_profile_validate(&p, why, whylen)) != SPMU_OK)
    return rc;
  *out = p;
  return SPMU_OK;
}

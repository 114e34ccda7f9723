/* SPDX-License-Identifier: MIT */
/* CPU profiles: presets of real processors (each its PMU, LBRs, event
 * table and part: parts.c), custom profiles from key=value strings,
 * validation; CPUID as the profile enumerates it is cpuid.c's. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/parts.h"
#include "softpmu/error.h"
#include "softpmu/profile.h"
#include "util/bits.h"

/* Features every DS-capable Core-family part from Core 2 on has. */
#define CORE_DS                                                                \
  (SPMU_FEAT_PDCM | SPMU_FEAT_DS | SPMU_FEAT_DTES64 | SPMU_FEAT_DS_CPL |       \
   SPMU_FEAT_BTS | SPMU_FEAT_PEBS)

/* The Pentium 4 model 2 preset's features (decisions.md, NetBurst). */
#define NETBURST_DS                                                            \
  (SPMU_FEAT_DS | SPMU_FEAT_BTS | SPMU_FEAT_PEBS | SPMU_FEAT_NETBURST |        \
   SPMU_FEAT_NB_IQ_ESCR | SPMU_FEAT_NB_EXT_CASCADE)

/* CPUID leaf 1CH with every architectural LBR capability (SDM Vol. 3B
 * "Architectural Last Branch Records", Table "CPUID Leaf 01CH"): depths
 * 8, 16, 24 and 32 (EAX[3:0]) and LIP (EAX[31]); CPL filtering, branch
 * filtering and call-stack mode (EBX[2:0]); the mispredict bit, timed LBRs
 * and the branch type field (ECX[2:0]). */
#define LBR_1C_EAX_ALL 0x8000000Fu
#define LBR_1C_EBX_ALL 0x7u
#define LBR_1C_ECX_ALL 0x7u

/* Presets. CPUID.0AH values as the SDM gives them per generation (18.2,
 * 18.4-18.9): 40-bit counters on Core Duo/Core 2, 48-bit
 * from Nehalem; 4 GP counters per thread with HT; 8 on Ice Lake and
 * Sapphire Rapids. PERF_CAPABILITIES: LBR format, trap-like PEBS, arch
 * registers saved, the PEBS record format of the generation (0 Core 2,
 * 1 Nehalem-Ivy Bridge, 2 Haswell, 3 Skylake, 4 baseline), SMM freeze and
 * full-width writes from Sandy Bridge, baseline and PERF_METRICS on Ice
 * Lake. LBRs: the model-specific stack of each generation (lbr_depth;
 * SDM 17.5 Core 2: 4, 17.7-17.9 Nehalem to Haswell: 16, 17.12 Skylake:
 * 32, Ice Lake as Skylake); architectural LBRs on Sapphire Rapids. The
 * part (its caches, CPUID leaf 04H, and the modelled micro-architecture:
 * parts.c) from Sandy Bridge on. The event table: libpfm4's name of the
 * generation's table (its PMU: coreduo, core, nhm, snb, hsw, skl, icl,
 * spr); NetBurst's is not named. */
struct preset {
  spmu_profile pmu;
  const char *event_table; /* spmu_profile_event_table */
  uint32_t signature;      /* spmu_profile_signature: CPUID.01H:EAX */
};

/* Not formatted: tables, one entry a line. */
/* clang-format off */
static const struct preset presets[] = {
  {.pmu = {.name = "core-duo", .version = 1, .gp = 2, .gp_width = 40,
           .events_len = 7, .threads = 1,
           .features = SPMU_FEAT_DS | SPMU_FEAT_BTS},
   .event_table = "coreduo", .signature = 0x000006E8},
  {.pmu = {.name = "core2", .version = 2, .gp = 2, .gp_width = 40,
           .events_len = 7, .fixed_mask = 0x7, .fixed_width = 40,
           .threads = 1, .features = CORE_DS, .perf_capabilities = 0xC1,
           .lbr_depth = 4},
   .event_table = "core", .signature = 0x000006F6},
  {.pmu = {.name = "nehalem", .version = 3, .gp = 4, .gp_width = 48,
           .events_len = 7, .fixed_mask = 0x7, .fixed_width = 48,
           .threads = 2, .features = CORE_DS | SPMU_FEAT_UNCORE_PMI,
           .perf_capabilities = 0x1C3, .lbr_depth = 16},
   .event_table = "nhm", .signature = 0x000106A5},
  {.pmu = {.name = "sandybridge", .version = 3, .gp = 4, .gp_width = 48,
           .events_len = 7, .fixed_mask = 0x7, .fixed_width = 48,
           .threads = 2,
           .features = CORE_DS | SPMU_FEAT_UNCORE_PMI |
                       SPMU_FEAT_PRECISE_STORE,
           .perf_capabilities = 0x31C3, .lbr_depth = 16,
           .part = SPMU_PART_SANDYBRIDGE},
   .event_table = "snb", .signature = 0x000206A7},
  {.pmu = {.name = "haswell", .version = 3, .gp = 4, .gp_width = 48,
           .events_len = 7, .fixed_mask = 0x7, .fixed_width = 48,
           .threads = 2,
           .features = CORE_DS | SPMU_FEAT_UNCORE_PMI | SPMU_FEAT_RTM,
           .perf_capabilities = 0x32C4, .lbr_depth = 16,
           .part = SPMU_PART_HASWELL},
   .event_table = "hsw", .signature = 0x000306C3},
  {.pmu = {.name = "skylake", .version = 4, .gp = 4, .gp_width = 48,
           .events_len = 7, .fixed_mask = 0x7, .fixed_width = 48,
           .threads = 2,
           .features = CORE_DS | SPMU_FEAT_UNCORE_PMI | SPMU_FEAT_RTM |
                       SPMU_FEAT_PT | SPMU_FEAT_SGX,
           .perf_capabilities = 0x33C5, .lbr_depth = 32,
           .part = SPMU_PART_SKYLAKE},
   .event_table = "skl", .signature = 0x000506E3},
  {.pmu = {.name = "icelake", .version = 5, .gp = 8, .gp_width = 48,
           .events_len = 8, .fixed_mask = 0xF, .fixed_width = 48,
           .threads = 2,
           .features = CORE_DS | SPMU_FEAT_UNCORE_PMI | SPMU_FEAT_RTM |
                       SPMU_FEAT_PT | SPMU_FEAT_SGX |
                       SPMU_FEAT_ANY_DEPRECATED,
           .perf_capabilities = 0xF4C5, .lbr_depth = 32,
           .part = SPMU_PART_ICELAKE},
   .event_table = "icl", .signature = 0x000706E5},
  {.pmu = {.name = "sapphirerapids", .version = 5, .gp = 8, .gp_width = 48,
           .events_len = 8, .fixed_mask = 0xF, .fixed_width = 48,
           .threads = 2,
           .features = CORE_DS | SPMU_FEAT_UNCORE_PMI | SPMU_FEAT_RTM |
                       SPMU_FEAT_PT | SPMU_FEAT_SGX |
                       SPMU_FEAT_ANY_DEPRECATED | SPMU_FEAT_ARCH_LBR,
           .perf_capabilities = 0x1F4C5,
           .lbr_leaf_1c = {LBR_1C_EAX_ALL, LBR_1C_EBX_ALL, LBR_1C_ECX_ALL},
           .part = SPMU_PART_SAPPHIRERAPIDS},
   .event_table = "spr", .signature = 0x000806F8},
  /* NetBurst (SDM 18.15-18.16): no architectural perfmon (CPUID.0AH all
   * zero); family 0FH model 2 with Hyper-Threading (the two logical
   * processors share the PMU), which has MSR_IQ_ESCR0/1 (models 1-2,
   * Table 18-63) and extended cascading (0F_02, 18.15.5.7); DS with BTS and
   * PEBS, no DTES64 and no DS-CPL (32-bit DS layout outside IA-32e mode). */
  {.pmu = {.name = "pentium4", .threads = 2, .features = NETBURST_DS},
   .signature = 0x00000F29},
  {.pmu = {.name = "pentium4-noht", .threads = 1, .features = NETBURST_DS},
   .signature = 0x00000F29},
};
#define NPRESETS (sizeof(presets) / sizeof(presets[0]))

/* Other names people use for the same parts. */
static const struct {
  const char *alias, *name;
} aliases[] = {
  {"yonah", "core-duo"}, {"coreduo", "core-duo"}, {"merom", "core2"},
  {"penryn", "core2"},   {"nhm", "nehalem"},      {"snb", "sandybridge"},
  {"hsw", "haswell"},    {"skl", "skylake"},      {"icl", "icelake"},
  {"spr", "sapphirerapids"}, {"netburst", "pentium4"}, {"p4", "pentium4"},
};

/* Keys of the feature flags. `sparse` keys are written by
 * spmu_profile_format only when set, so the key=value form of every
 * architectural profile stays what it was before NetBurst existed. */
static const struct {
  const char *key;
  uint32_t flag;
  bool sparse;
} feature_keys[] = {
  {"pdcm", SPMU_FEAT_PDCM, false},
  {"ds", SPMU_FEAT_DS, false},
  {"dtes64", SPMU_FEAT_DTES64, false},
  {"ds_cpl", SPMU_FEAT_DS_CPL, false},
  {"bts", SPMU_FEAT_BTS, false},
  {"pebs", SPMU_FEAT_PEBS, false},
  {"rtm", SPMU_FEAT_RTM, false},
  {"pt", SPMU_FEAT_PT, false},
  {"sgx", SPMU_FEAT_SGX, false},
  {"uncore_pmi", SPMU_FEAT_UNCORE_PMI, false},
  {"precise_store", SPMU_FEAT_PRECISE_STORE, false},
  {"any_deprecated", SPMU_FEAT_ANY_DEPRECATED, false},
  {"netburst", SPMU_FEAT_NETBURST, true},
  {"iq_escr", SPMU_FEAT_NB_IQ_ESCR, true},
  {"ext_cascade", SPMU_FEAT_NB_EXT_CASCADE, true},
  {"arch_lbr", SPMU_FEAT_ARCH_LBR, true},
};
/* clang-format on */
#define NFEATURES (sizeof(feature_keys) / sizeof(feature_keys[0]))

/* profile.h: the struct grows only within its reserved space. */
_Static_assert(sizeof(spmu_profile) == 120, "spmu_profile keeps its size");
_Static_assert(offsetof(spmu_profile, lbr_depth) == 72,
               "the LBR members take the first reserved bytes");

bool spmu_profile_fixed_stated(const spmu_profile *p)
{
  return p->fixed_contig != 0 || p->fixed_ecx != 0;
}

const char *spmu_profile_part_name(const spmu_profile *p)
{
  const struct spmu_part_desc *d = p ? spmu_part_by_id(p->part) : NULL;

  return d ? d->name : NULL;
}

const char *spmu_profile_event_table(const spmu_profile *p)
{
  size_t i;

  for (i = 0; p && i < NPRESETS; i++)
    if (strncmp(p->name, presets[i].pmu.name, sizeof p->name) == 0)
      return presets[i].event_table;
  return NULL;
}

/* The signatures are those of the parts the presets model, as their
 * CPUID.01H:EAX reports them (SDM Vol. 2A, CPUID, "Version Information":
 * stepping [3:0], model [7:4], family [11:8], extended model [19:16];
 * the family 06H DisplayModels of SDM Vol. 4, Table 2-1): Core Duo
 * (Yonah, 06_0EH), Core 2 (Merom, 06_0FH), Nehalem (06_1AH), Sandy Bridge
 * (06_2AH), Haswell (06_3CH), Skylake client (06_5EH), Ice Lake client
 * (06_7EH), Sapphire Rapids (06_8FH), Pentium 4 (family 0FH, model 2;
 * SDM 18.15). The steppings are those of shipped parts; the profile's PMU
 * does not depend on them. */
uint32_t spmu_profile_signature(const spmu_profile *p)
{
  size_t i;

  for (i = 0; p && i < NPRESETS; i++)
    if (strncmp(p->name, presets[i].pmu.name, sizeof p->name) == 0)
      return presets[i].signature;
  return 0;
}

const char *spmu_profile_preset_name(unsigned index)
{
  return index < NPRESETS ? presets[index].pmu.name : NULL;
}

static int say(char *why, size_t whylen, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int say(char *why, size_t whylen, int rc, const char *fmt, ...)
{
  if (why && whylen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
  }
  return rc;
}

/* Case-insensitive equality of a[0..len) and the whole of b. */
static bool name_eq(const char *a, size_t len, const char *b)
{
  size_t i;
  if (strlen(b) != len)
    return false;
  for (i = 0; i < len; i++)
    if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i]))
      return false;
  return true;
}

static const spmu_profile *find_preset(const char *name, size_t len)
{
  size_t i;

  for (i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
    if (name_eq(name, len, aliases[i].alias)) {
      name = aliases[i].name;
      len = strlen(name);
      break;
    }
  for (i = 0; i < NPRESETS; i++)
    if (name_eq(name, len, presets[i].pmu.name))
      return &presets[i].pmu;
  return NULL;
}

/* The presets' names, ", "-separated, into list[0..len). */
static void join_preset_names(char *list, size_t len)
{
  size_t used = 0, i;
  int k;

  list[0] = '\0';
  for (i = 0; i < NPRESETS; i++) {
    k = snprintf(list + used, len - used, "%s%s", i ? ", " : "",
                 presets[i].pmu.name);
    if (k < 0 || (size_t)k >= len - used)
      return; /* cut short; the list below is sized to never be */
    used += (size_t)k;
  }
}

static int unknown_preset(const char *name, size_t len, char *why,
                          size_t whylen)
{
  /* Room for every name and its separator. */
  char list[NPRESETS * (sizeof(presets[0].pmu.name) + 2)];

  join_preset_names(list, sizeof(list));
  return say(why, whylen, SPMU_ENOENT, "unknown profile '%.*s'; known: %s",
             (int)len, name, list);
}

/* ---- validation ------------------------------------------------------ */

/* SDM 18.15-18.16: the NetBurst PMU is not architectural perfmon
 * (CPUID.0AH reports version 0), has the T0/T1 qualification of two
 * logical processors at most, and predates PERF_CAPABILITIES (PDCM came
 * with Core 2), TSX, Intel PT and SGX. */
static int validate_netburst(const spmu_profile *p, char *why, size_t whylen)
{
  if (p->version != 0)
    return say(why, whylen, SPMU_EPROFILE,
               "netburst=1 needs version=0: a NetBurst part has no "
               "architectural perfmon (CPUID.0AH all zero)");
  if (p->threads > 2)
    return say(why, whylen, SPMU_EPROFILE,
               "threads=%u: NetBurst qualifies events for two logical "
               "processors at most (T0/T1 bits)",
               p->threads);
  if (p->features &
      (SPMU_FEAT_PDCM | SPMU_FEAT_RTM | SPMU_FEAT_PT | SPMU_FEAT_SGX))
    return say(why, whylen, SPMU_EPROFILE,
               "a NetBurst part has no PERF_CAPABILITIES (pdcm), TSX (rtm), "
               "Intel PT (pt) or SGX (sgx)");
  return SPMU_OK;
}

/* The fixed counters as CPUID.0AH enumerates them, when the profile
 * states EDX[4:0] and ECX (profile.h; SDM Vol. 2A Table 3-8, leaf 0AH:
 * FxCtr[i]_supported := ECX[i] || EDX[4:0] > i). */
static int validate_fixed_enum(const spmu_profile *p, char *why, size_t whylen)
{
  uint64_t un;

  if (!spmu_profile_fixed_stated(p))
    return SPMU_OK;
  if (p->fixed_contig > 31)
    return say(why, whylen, SPMU_EPROFILE,
               "fixed_contig=%u: CPUID.0AH:EDX[4:0] has five bits (0-31)",
               p->fixed_contig);
  if (p->fixed_ecx && p->version < 5)
    return say(why, whylen, SPMU_EPROFILE,
               "fixed_ecx=0x%x with version %u: CPUID.0AH:ECX enumerates fixed "
               "counters from version 5 (reserved before)",
               p->fixed_ecx, p->version);
  un = spmu_width_mask(p->fixed_contig) | p->fixed_ecx;
  if (un != p->fixed_mask)
    return say(why, whylen, SPMU_EPROFILE,
               "fixed_mask=0x%x is not the union 0x%llx of fixed_contig=%u "
               "and fixed_ecx=0x%x (fixed counter i exists iff ECX[i] = 1 or "
               "EDX[4:0] > i)",
               p->fixed_mask, (unsigned long long)un, p->fixed_contig,
               p->fixed_ecx);
  return SPMU_OK;
}

/* The LBR facility (SDM Vol. 3B 17.4.8.1, 17.5-17.12 and "Architectural
 * Last Branch Records"): the model-specific stack of 4, 16 or 32 entries
 * in one of the 64-bit record formats 1-5 of IA32_PERF_CAPABILITIES[5:0],
 * or architectural LBRs with a leaf 1CH that enumerates at least one
 * depth and only defined bits. */
static int validate_lbr(const spmu_profile *p, char *why, size_t whylen)
{
  unsigned fmt = (unsigned)(p->perf_capabilities & SPMU_PERFCAP_LBR_FMT_MASK);
  const uint32_t *l = p->lbr_leaf_1c;

  if (p->lbr_depth && p->lbr_depth != 4 && p->lbr_depth != 16 &&
      p->lbr_depth != 32)
    return say(why, whylen, SPMU_EPROFILE,
               "lbr_depth=%u: the modelled LBR stacks have 4 (Core 2), 16 "
               "(Nehalem to Haswell) or 32 (Skylake) entries",
               p->lbr_depth);
  if (p->lbr_depth && (p->features & SPMU_FEAT_NETBURST))
    return say(why, whylen, SPMU_EPROFILE,
               "lbr_depth with netburst=1: the NetBurst LBR stack is not "
               "modelled");
  if (p->lbr_depth && (!(p->features & SPMU_FEAT_PDCM) || fmt < 1 || fmt > 5))
    return say(why, whylen, SPMU_EPROFILE,
               "lbr_depth=%u needs an LBR format 1-5 in "
               "perf_capabilities[5:0] (pdcm=1); it is %u",
               p->lbr_depth, fmt);
  if (!(p->features & SPMU_FEAT_ARCH_LBR)) {
    if (l[0] | l[1] | l[2])
      return say(why, whylen, SPMU_EPROFILE,
                 "lbr_1c_eax/ebx/ecx describe architectural LBRs (arch_lbr=1)");
    return SPMU_OK;
  }
  if (p->lbr_depth)
    return say(why, whylen, SPMU_EPROFILE,
               "arch_lbr=1 with lbr_depth=%u: a part has architectural or "
               "model-specific LBRs, not both",
               p->lbr_depth);
  if (p->features & SPMU_FEAT_NETBURST)
    return say(
        why, whylen, SPMU_EPROFILE,
        "arch_lbr=1 with netburst=1: NetBurst has no architectural LBRs");
  if (!(l[0] & 0xffu) || (l[0] & ~0xC00000FFu) || (l[1] & ~7u) || (l[2] & ~7u))
    return say(why, whylen, SPMU_EPROFILE,
               "lbr_1c_eax=0x%x lbr_1c_ebx=0x%x lbr_1c_ecx=0x%x: leaf 1CH "
               "needs a depth in EAX[7:0] and defines EAX[7:0,30,31], "
               "EBX[2:0] and ECX[2:0] only",
               l[0], l[1], l[2]);
  return SPMU_OK;
}

/* The highest enum spmu_part of a part (they are numbered from 1 up). */
static unsigned last_part(void)
{
  const struct spmu_part_desc *d;
  unsigned i, last = SPMU_PART_NONE;

  for (i = 0; (d = spmu_part_at(i)) != NULL; i++)
    if (d->id > last)
      last = d->id;
  return last;
}

static int validate_reserved(const spmu_profile *p, char *why, size_t whylen)
{
  size_t i;

  if (p->lbr_pad_[0] | p->lbr_pad_[1])
    return say(why, whylen, SPMU_EPROFILE, "lbr_pad_ is not zero");
  if (p->part != SPMU_PART_NONE && !spmu_part_by_id(p->part))
    return say(why, whylen, SPMU_EPROFILE,
               "part=%u: the parts are 0 (none) to %u", p->part, last_part());

  for (i = 0; i < sizeof p->reserved_ / sizeof p->reserved_[0]; i++)
    if (p->reserved_[i])
      return say(why, whylen, SPMU_EPROFILE,
                 "reserved_[%zu] is not zero (members of a newer release?)", i);
  return SPMU_OK;
}

int spmu_profile_validate(const spmu_profile *p, char *why, size_t whylen)
{
  uint64_t pc;
  unsigned fmt, v;
  size_t i;
  int rc;

  if (!p)
    return say(why, whylen, SPMU_EINVAL, "no profile");
  v = p->version;
  pc = p->perf_capabilities;
  fmt = (unsigned)((pc & SPMU_PERFCAP_PEBS_FMT_MASK) >>
                   SPMU_PERFCAP_PEBS_FMT_SHIFT);

  if ((rc = validate_reserved(p, why, whylen)) != SPMU_OK)
    return rc;
  if (memchr(p->name, '\0', sizeof(p->name)) == NULL)
    return say(why, whylen, SPMU_EPROFILE, "name is not terminated");
  for (i = 0; p->name[i]; i++)
    if (!isalnum((unsigned char)p->name[i]) && !strchr("-_.+", p->name[i]))
      return say(why, whylen, SPMU_EPROFILE,
                 "name may hold letters, digits and -_.+ only");
  if (p->threads < 1 || p->threads > SPMU_MAX_THREADS)
    return say(why, whylen, SPMU_EPROFILE,
               "threads=%u: a core has 1 to %u logical processors", p->threads,
               SPMU_MAX_THREADS);
  if (v > 5)
    return say(why, whylen, SPMU_EPROFILE,
               "version=%u: perfmon versions 1-5 are modelled (0 = no PMU)", v);
  if (p->gp > SPMU_MAX_GP)
    return say(why, whylen, SPMU_EPROFILE,
               "gp=%u: the architectural MSR ranges hold at most %u GP "
               "counters (IA32_PMC0-7)",
               p->gp, SPMU_MAX_GP);
  if (v == 0 && (p->gp || p->fixed_mask))
    return say(why, whylen, SPMU_EPROFILE,
               "version=0 means no architectural PMU, so no counters");
  if (p->gp && (p->gp_width < 32 || p->gp_width > 64))
    return say(why, whylen, SPMU_EPROFILE,
               "gp_width=%u: a counter is 32 to 64 bits (a PMCx write sets "
               "bits 31:0; CPUID.0AH:EAX[23:16])",
               p->gp_width);
  if ((rc = validate_fixed_enum(p, why, whylen)) != SPMU_OK)
    return rc;
  if (p->fixed_mask) {
    unsigned n = spmu_trailing_ones(p->fixed_mask);
    if (v < 2)
      return say(why, whylen, SPMU_EPROFILE,
                 "fixed counters need version 2 or later (CPUID.0AH:EDX[4:0])");
    if (v < 5 && (uint64_t)p->fixed_mask != spmu_width_mask(n))
      return say(why, whylen, SPMU_EPROFILE,
                 "fixed_mask=0x%x: before version 5 CPUID enumerates fixed "
                 "counters only as a count, so they are 0..n-1",
                 p->fixed_mask);
    if (v < 5 && n > 3)
      return say(why, whylen, SPMU_EPROFILE,
                 "%u fixed counters with version %u: versions 2-4 define three "
                 "(GLOBAL_STATUS bits 32-34); more need version 5",
                 n, v);
    if (p->fixed_mask >> SPMU_MAX_FIXED)
      return say(why, whylen, SPMU_EPROFILE,
                 "fixed_mask=0x%x: GLOBAL_CTRL bits 47:32 hold at most %u "
                 "fixed counters",
                 p->fixed_mask, SPMU_MAX_FIXED);
    if ((pc & SPMU_PERFCAP_PEBS_BASELINE) && (p->fixed_mask >> 8))
      return say(why, whylen, SPMU_EPROFILE,
                 "fixed counters 8 and up collide with the FIXED_CTR_CTRL "
                 "ADAPTIVE bits (32+4j) of adaptive PEBS");
    if (p->fixed_width < 32 || p->fixed_width > 64)
      return say(why, whylen, SPMU_EPROFILE,
                 "fixed_width=%u: a counter is 32 to 64 bits", p->fixed_width);
  }
  if (p->events_len > 32)
    return say(why, whylen, SPMU_EPROFILE,
               "events=%u: the EBX availability vector has 32 bits",
               p->events_len);
  if (p->events_unavailable & ~(uint32_t)spmu_width_mask(p->events_len))
    return say(
        why, whylen, SPMU_EPROFILE,
        "unavailable=0x%x has bits at or past events=%u (reserved in EBX)",
        p->events_unavailable, p->events_len);
  if (pc && !(p->features & SPMU_FEAT_PDCM))
    return say(why, whylen, SPMU_EPROFILE,
               "perf_capabilities needs pdcm=1 (CPUID.01H:ECX[15])");
  if (pc & ~SPMU_PERFCAP_DEFINED_MASK)
    return say(why, whylen, SPMU_EPROFILE,
               "perf_capabilities=0x%llx sets undefined bits above 17",
               (unsigned long long)pc);
  if (fmt > 4)
    return say(why, whylen, SPMU_EPROFILE,
               "PEBS record format %u: formats 0-4 are modelled", fmt);
  if ((fmt == 4) != ((pc & SPMU_PERFCAP_PEBS_BASELINE) != 0))
    return say(why, whylen, SPMU_EPROFILE,
               "PEBS record format 4 and PEBS_BASELINE (bit 14) go together");
  if ((pc & SPMU_PERFCAP_PERF_METRICS) && !(p->fixed_mask & 0x8))
    return say(why, whylen, SPMU_EPROFILE,
               "PERF_METRICS (bit 15) needs fixed counter 3 (TOPDOWN.SLOTS)");
  if ((p->features & (SPMU_FEAT_DTES64 | SPMU_FEAT_DS_CPL | SPMU_FEAT_BTS |
                      SPMU_FEAT_PEBS)) &&
      !(p->features & SPMU_FEAT_DS))
    return say(why, whylen, SPMU_EPROFILE,
               "dtes64, ds_cpl, bts and pebs need the debug store (ds=1)");
  if (p->features & SPMU_FEAT_NETBURST) {
    if ((rc = validate_netburst(p, why, whylen)) != SPMU_OK)
      return rc;
  } else if (p->features & (SPMU_FEAT_NB_IQ_ESCR | SPMU_FEAT_NB_EXT_CASCADE)) {
    return say(why, whylen, SPMU_EPROFILE,
               "iq_escr and ext_cascade describe NetBurst parts (netburst=1)");
  }
  if ((p->features & SPMU_FEAT_PEBS) && v < 2 &&
      !(p->features & SPMU_FEAT_NETBURST))
    return say(why, whylen, SPMU_EPROFILE,
               "PEBS needs version 2 or later (GLOBAL_STATUS.OvfBuf)");
  if ((p->features & SPMU_FEAT_PRECISE_STORE) &&
      (!(p->features & SPMU_FEAT_PEBS) || fmt < 1 || fmt > 3))
    return say(why, whylen, SPMU_EPROFILE,
               "precise_store (PEBS_ENABLE[63]) needs PEBS with record "
               "format 1-3");
  if ((p->features & SPMU_FEAT_ANY_DEPRECATED) && v < 5)
    return say(why, whylen, SPMU_EPROFILE,
               "any_deprecated is CPUID.0AH:EDX[15], defined from version 5");
  if ((p->features & SPMU_FEAT_UNCORE_PMI) && v < 3)
    return say(why, whylen, SPMU_EPROFILE,
               "uncore_pmi needs version 3 or later");
  return validate_lbr(p, why, whylen);
}

/* ---- parsing --------------------------------------------------------- */

static int parse_num(const char *s, size_t len, uint64_t max, uint64_t *out)
{
  char buf[32];
  char *end;
  unsigned long long v;

  if (len == 0 || len >= sizeof buf || s[0] == '-' || s[0] == '+')
    return -1;
  memcpy(buf, s, len);
  buf[len] = '\0';
  errno = 0;
  v = strtoull(buf, &end, 0);
  if (errno || *end || v > max)
    return -1;
  *out = v;
  return 0;
}

struct kv {
  const char *key, *val;
  size_t klen, vlen;
};

/* Next "key=value" token; separators are commas and white space. */
static const char *next_token(const char *s, const char **tok, size_t *len)
{
  while (*s == ',' || isspace((unsigned char)*s))
    s++;
  *tok = s;
  while (*s && *s != ',' && !isspace((unsigned char)*s))
    s++;
  *len = (size_t)(s - *tok);
  return s;
}

static bool key_is(const struct kv *kv, const char *k)
{
  return strlen(k) == kv->klen && strncmp(kv->key, k, kv->klen) == 0;
}

static int set_key(spmu_profile *p, const struct kv *kv, char *why,
                   size_t whylen)
{
  uint64_t n;
  size_t i;

  if (key_is(kv, "name")) {
    /* An empty name would not survive spmu_profile_format, which leaves
     * name= out for it (fuzz/regressions/profile/empty-name). */
    if (kv->vlen == 0)
      return say(why, whylen, SPMU_EINVAL, "name= needs a value");
    if (kv->vlen >= sizeof(p->name))
      return say(why, whylen, SPMU_EINVAL, "name is longer than %zu characters",
                 sizeof(p->name) - 1);
    memset(p->name, 0, sizeof(p->name));
    memcpy(p->name, kv->val, kv->vlen);
    return SPMU_OK;
  }
  for (i = 0; i < NFEATURES; i++)
    if (key_is(kv, feature_keys[i].key)) {
      if (parse_num(kv->val, kv->vlen, 1, &n))
        return say(why, whylen, SPMU_EINVAL, "%s=%.*s: expected 0 or 1",
                   feature_keys[i].key, (int)kv->vlen, kv->val);
      p->features = n ? p->features | feature_keys[i].flag
                      : p->features & ~feature_keys[i].flag;
      return SPMU_OK;
    }

#define NUMKEY(k, field, max)                                                  \
  if (key_is(kv, k)) {                                                         \
    if (parse_num(kv->val, kv->vlen, (max), &n))                               \
      return say(why, whylen, SPMU_EINVAL,                                     \
                 "%s=%.*s: expected a number 0..%llu", k, (int)kv->vlen,       \
                 kv->val, (unsigned long long)(max));                          \
    p->field = (__typeof__(p->field))n;                                        \
    return SPMU_OK;                                                            \
  }
  NUMKEY("version", version, 255)
  NUMKEY("gp", gp, 255)
  NUMKEY("gp_width", gp_width, 255)
  NUMKEY("fixed_width", fixed_width, 255)
  NUMKEY("events", events_len, 255)
  NUMKEY("unavailable", events_unavailable, UINT32_MAX)
  NUMKEY("fixed_mask", fixed_mask, UINT32_MAX)
  NUMKEY("fixed_contig", fixed_contig, 255)
  NUMKEY("fixed_ecx", fixed_ecx, UINT32_MAX)
  NUMKEY("threads", threads, 255)
  NUMKEY("lbr_depth", lbr_depth, 255)
  NUMKEY("lbr_1c_eax", lbr_leaf_1c[0], UINT32_MAX)
  NUMKEY("lbr_1c_ebx", lbr_leaf_1c[1], UINT32_MAX)
  NUMKEY("lbr_1c_ecx", lbr_leaf_1c[2], UINT32_MAX)
#undef NUMKEY
  if (key_is(kv, "part")) {
    const struct spmu_part_desc *d = spmu_part_by_name(kv->val, kv->vlen);
    if (d || (kv->vlen == 4 && strncmp(kv->val, "none", 4) == 0)) {
      p->part = (uint8_t)(d ? d->id : SPMU_PART_NONE);
      return SPMU_OK;
    }
    return say(why, whylen, SPMU_EINVAL,
               "part=%.*s: expected none, sandybridge, haswell, skylake, "
               "icelake or sapphirerapids",
               (int)kv->vlen, kv->val);
  }
  if (key_is(kv, "fixed")) {
    if (parse_num(kv->val, kv->vlen, 32, &n))
      return say(why, whylen, SPMU_EINVAL,
                 "fixed=%.*s: expected a count 0..32 (or use fixed_mask=)",
                 (int)kv->vlen, kv->val);
    p->fixed_mask = (uint32_t)spmu_width_mask((unsigned)n);
    return SPMU_OK;
  }
  if (key_is(kv, "perf_capabilities")) {
    if (parse_num(kv->val, kv->vlen, UINT64_MAX, &n))
      return say(why, whylen, SPMU_EINVAL,
                 "perf_capabilities=%.*s: expected a number", (int)kv->vlen,
                 kv->val);
    p->perf_capabilities = n;
    if (n)
      p->features |= SPMU_FEAT_PDCM;
    return SPMU_OK;
  }
  return say(
      why, whylen, SPMU_EINVAL,
      "unknown key '%.*s' (keys: name base version gp gp_width fixed "
      "fixed_mask fixed_contig fixed_ecx fixed_width events unavailable "
      "perf_capabilities threads lbr_depth lbr_1c_eax lbr_1c_ebx "
      "lbr_1c_ecx part pdcm ds dtes64 ds_cpl bts pebs rtm pt sgx uncore_pmi "
      "precise_store any_deprecated netburst iq_escr ext_cascade "
      "arch_lbr)",
      (int)kv->klen, kv->key);
}

int spmu_profile_parse(const char *spec, spmu_profile *out, char *why,
                       size_t whylen)
{
  spmu_profile p = {.name = "custom",
                    .gp_width = 48,
                    .fixed_width = 48,
                    .events_len = 7,
                    .threads = 1};
  const char *s, *tok;
  size_t len;
  bool first = true, mask_given = false;
  int rc;

  if (!spec || !out)
    return say(why, whylen, SPMU_EINVAL, "no profile string");
  s = next_token(spec, &tok, &len);
  if (len == 0)
    return say(why, whylen, SPMU_EINVAL, "empty profile string");

  if (!memchr(tok, '=', len)) {
    /* A bare preset name, alone. */
    const spmu_profile *pre = find_preset(tok, len);
    const char *rest;
    size_t rlen;
    next_token(s, &rest, &rlen);
    if (!pre)
      return unknown_preset(tok, len, why, whylen);
    if (rlen)
      return say(why, whylen, SPMU_EINVAL,
                 "write base=%.*s to add keys to a preset", (int)len, tok);
    *out = *pre;
    return SPMU_OK;
  }

  for (s = spec;; first = false) {
    struct kv kv;
    const char *eq;

    s = next_token(s, &tok, &len);
    if (len == 0)
      break;
    eq = memchr(tok, '=', len);
    if (!eq || eq == tok)
      return say(why, whylen, SPMU_EINVAL, "'%.*s' is not key=value", (int)len,
                 tok);
    kv.key = tok;
    kv.klen = (size_t)(eq - tok);
    kv.val = eq + 1;
    kv.vlen = len - kv.klen - 1;
    if (key_is(&kv, "base")) {
      const spmu_profile *pre = find_preset(kv.val, kv.vlen);
      if (!first)
        return say(why, whylen, SPMU_EINVAL, "base= must come first");
      if (!pre)
        return unknown_preset(kv.val, kv.vlen, why, whylen);
      p = *pre;
      memset(p.name, 0, sizeof(p.name));
      strcpy(p.name, "custom");
      continue;
    }
    rc = set_key(&p, &kv, why, whylen);
    if (rc != SPMU_OK)
      return rc;
    mask_given |= key_is(&kv, "fixed") || key_is(&kv, "fixed_mask");
  }
  /* fixed_contig and fixed_ecx alone give the union (profile.h). */
  if (spmu_profile_fixed_stated(&p) && !mask_given && p.fixed_contig <= 31)
    p.fixed_mask = (uint32_t)(spmu_width_mask(p.fixed_contig) | p.fixed_ecx);
  rc = spmu_profile_validate(&p, why, whylen);
  if (rc != SPMU_OK)
    return rc;
  *out = p;
  return SPMU_OK;
}

int spmu_profile_format(const spmu_profile *p, char *buf, size_t len)
{
  int n, k;
  size_t i, room;

  if (!p || (!buf && len))
    return SPMU_EINVAL;
  n = snprintf(buf, len,
               "%s%s%sversion=%u,gp=%u,gp_width=%u,events=%u,unavailable=0x%x,"
               "fixed_mask=0x%x,fixed_width=%u,threads=%u,"
               "perf_capabilities=0x%llx",
               p->name[0] ? "name=" : "", p->name, p->name[0] ? "," : "",
               p->version, p->gp, p->gp_width, p->events_len,
               p->events_unavailable, p->fixed_mask, p->fixed_width, p->threads,
               (unsigned long long)p->perf_capabilities);
  /* Written only when stated, so every other profile's string stays what
   * it was before these keys existed. */
  if (spmu_profile_fixed_stated(p) && n >= 0) {
    k = snprintf(buf && (size_t)n < len ? buf + n : NULL,
                 (size_t)n < len ? len - (size_t)n : 0,
                 ",fixed_contig=%u,fixed_ecx=0x%x", p->fixed_contig,
                 p->fixed_ecx);
    n = k < 0 ? k : n + k;
  }
  if (p->lbr_depth && n >= 0) {
    room = (size_t)n < len ? len - (size_t)n : 0;
    k = snprintf(room ? buf + n : NULL, room, ",lbr_depth=%u", p->lbr_depth);
    n = k < 0 ? k : n + k;
  }
  if ((p->features & SPMU_FEAT_ARCH_LBR) && n >= 0) {
    room = (size_t)n < len ? len - (size_t)n : 0;
    k = snprintf(room ? buf + n : NULL, room,
                 ",lbr_1c_eax=0x%x,lbr_1c_ebx=0x%x,lbr_1c_ecx=0x%x",
                 p->lbr_leaf_1c[0], p->lbr_leaf_1c[1], p->lbr_leaf_1c[2]);
    n = k < 0 ? k : n + k;
  }
  if (spmu_profile_part_name(p) && n >= 0) {
    room = (size_t)n < len ? len - (size_t)n : 0;
    k = snprintf(room ? buf + n : NULL, room, ",part=%s",
                 spmu_profile_part_name(p));
    n = k < 0 ? k : n + k;
  }
  for (i = 0; i < NFEATURES && n >= 0; i++) {
    if (feature_keys[i].sparse && !(p->features & feature_keys[i].flag))
      continue;
    room = (size_t)n < len ? len - (size_t)n : 0;
    k = snprintf(room ? buf + n : NULL, room, ",%s=%d", feature_keys[i].key,
                 (p->features & feature_keys[i].flag) != 0);
    n = k < 0 ? k : n + k;
  }
  if (n < 0)
    return SPMU_EINVAL;
  if ((size_t)n >= len)
    return SPMU_ENOSPC;
  return n;
}

/* SPDX-License-Identifier: MIT */
/* softpmu stat: -e event strings to IA32_PERFEVTSELx values (stat_events.h).
 *
 * Order of resolution: perf's PMU form (cpu/.../), perf's raw form (rNNN),
 * perf's generic names, then the profile's Intel names through libpfm4.
 * The event select layout is SDM Vol. 3B 18.2.1.1, Figure 18-1. */
/* setenv, unsetenv and strtok_r are POSIX.1-2001. syscall(2), which
 * libpfm4's perfmon/perf_event.h calls in an inline function of its own,
 * is declared by glibc's <unistd.h> only with _DEFAULT_SOURCE: GCC 14
 * (Debian 13) makes an undeclared function an error, in a system header
 * too. */
#define _POSIX_C_SOURCE 200112L
#define _DEFAULT_SOURCE

#include "stat_events.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfmon/pfmlib_perf_event.h>

#include "lines.h"   /* the plugin's event lines (protocol/) */
#include "nearest.h" /* "did you mean" (util/) */
#include "text.h"    /* numbers and words as typed (util/) */

/* ---- What the engine produces, per profile -------------------------------
 *
 * The QEMU plugin produces the event lines of protocol/lines.h, with
 * their Skylake meaning (SDM Vol. 3B Chapter 19, Table 19-3), on every
 * profile; a line it does not produce would count 0, so it is <not
 * supported>. Of its lines, each profile takes those that mean the same in
 * its own event table (SDM Vol. 3B Chapter 19):
 *   C0H/00H and C4H/00H everywhere: the architectural instructions and
 *     branch instructions retired (SDM Vol. 3B Table 18-1);
 *   Nehalem: C4H/01H CONDITIONAL and C4H/02H NEAR_CALL as well;
 *   Sandy Bridge to Skylake: every line (D0H/81H and D0H/82H are
 *     MEM_UOPS_RETIRED.ALL_LOADS/ALL_STORES before Skylake);
 *   Ice Lake and Sapphire Rapids: every line but C4H/01H, which is
 *     BR_INST_RETIRED.COND_TAKEN there (COND is C4H/11H, not produced).
 * Core 2's loads and stores (C0H/01H, C0H/02H), Nehalem's (0BH/01H,
 * 0BH/02H) and Skylake's C4H/04H (ALL_BRANCHES_PEBS) are not lines of the
 * plugin: <not supported>. tests/test_stat_events.c checks each.
 *
 * The modelled lines (mline_code, produced with the plugin's model=SPEC)
 * likewise, each where it means the same:
 *   3CH/00H UnHalted Core Cycles, 3CH/01H UnHalted Reference Cycles,
 *     2EH/4FH LLC Reference, 2EH/41H LLC Misses and C5H/00H Branch Misses
 *     Retired everywhere: architectural events (SDM Vol. 3B Table 18-1);
 *   00H/03H, fixed counter 2's CPU_CLK_UNHALTED.REF (SDM Vol. 3B Table
 *     18-2), where the profile has IA32_FIXED_CTR2;
 *   51H/01H L1D.REPLACEMENT from Nehalem (L1D.REPL there: lines brought
 *     into the L1 data cache); on Core 2 51H is no such event;
 *   C5H/01H BR_MISP_RETIRED.CONDITIONAL on Sandy Bridge, Haswell and
 *     Skylake (COND_TAKEN on Ice Lake and Sapphire Rapids, where COND is
 *     C5H/11H; Nehalem has no C5H/01H);
 *   D1H/01H, 02H, 04H MEM_LOAD_UOPS_RETIRED.L1_HIT, L2_HIT, LLC_HIT from
 *     Sandy Bridge, D1H/08H, 10H, 20H (L1_MISS, L2_MISS, L3_MISS) from
 *     Haswell (MEM_LOAD_RETIRED.* from Skylake); before Sandy Bridge
 *     MEM_LOAD_RETIRED is CBH. */
#define LINE(l) (1u << (l))
#define LINES_ARCH (LINE(L_INST) | LINE(L_BR_ALL))
#define LINES_ALL ((1u << NLINES) - 1)
#define MLINES_ARCH                                                            \
  (LINE(M_CYCLES) | LINE(M_REF_XCLK) | LINE(M_REF_TSC) | LINE(M_LLC_REF) |     \
   LINE(M_LLC_MISS) | LINE(M_MISP_ALL))
#define MLINES_HITS (LINE(M_LD_L1_HIT) | LINE(M_LD_L2_HIT) | LINE(M_LD_L3_HIT))
#define MLINES_ALL ((1u << NMLINES) - 1)

struct stat_gen {
  const char *pfm;   /* spmu_profile_event_table: libpfm4's PMU table */
  unsigned lines;    /* LINE(l) for each exact line of lines.h taken */
  unsigned mlines;   /* LINE(m) for each modelled line taken */
  uint16_t l1d_miss; /* perf's raw config of L1-dcache-load-misses (its
                        hw_cache_event_ids), 0 where perf has none */
};

/* Not formatted: one event table per row. */
/* clang-format off */
static const struct stat_gen stat_gens[] = {
  {"coreduo", LINES_ARCH, MLINES_ARCH, 0},
  {"core", LINES_ARCH, MLINES_ARCH, 0x0140},
  {"nhm", LINES_ARCH | LINE(L_BR_COND) | LINE(L_BR_CALL),
   MLINES_ARCH | LINE(M_L1D_REPL), 0x0151},
  {"snb", LINES_ALL,
   MLINES_ARCH | LINE(M_L1D_REPL) | LINE(M_MISP_COND) | MLINES_HITS, 0x0151},
  {"hsw", LINES_ALL, MLINES_ALL, 0x0151},
  {"skl", LINES_ALL, MLINES_ALL, 0x0151},
  {"icl", LINES_ALL & ~LINE(L_BR_COND),
   MLINES_ALL & ~LINE(M_MISP_COND), 0x0151},
  {"spr", LINES_ALL & ~LINE(L_BR_COND),
   MLINES_ALL & ~LINE(M_MISP_COND), 0xe124},
};
/* clang-format on */

/* A profile without a table of its own (custom): the architectural
 * events only. */
static const struct stat_gen stat_gen_arch = {NULL, LINES_ARCH, MLINES_ARCH, 0};

/* The row of the event table the profile names its events with. */
static const struct stat_gen *gen_of(const spmu_profile *p)
{
  const char *table = spmu_profile_event_table(p);
  size_t i;

  for (i = 0; table && i < sizeof(stat_gens) / sizeof(stat_gens[0]); i++)
    if (strcmp(table, stat_gens[i].pfm) == 0)
      return &stat_gens[i];
  return &stat_gen_arch;
}

const char *stat_events_pfm_pmu(const spmu_profile *p)
{
  return gen_of(p)->pfm;
}

/* Does the engine produce event line (event, umask) exactly on this
 * profile? */
static bool gen_produces(const struct stat_gen *g, uint8_t event, uint8_t umask)
{
  unsigned l;

  for (l = 0; l < NLINES; l++)
    if ((g->lines & LINE(l)) && line_code[l][0] == event &&
        line_code[l][1] == umask)
      return true;
  return false;
}

/* Is (event, umask) a modelled line with the same meaning on profile p?
 * 00H/03H is fixed counter 2's, so it needs IA32_FIXED_CTR2 (SDM Vol. 3B
 * 18.2.2, Table 18-2). */
static bool gen_models(const struct stat_gen *g, const spmu_profile *p,
                       uint8_t event, uint8_t umask)
{
  unsigned m;

  for (m = 0; m < NMLINES; m++)
    if ((g->mlines & LINE(m)) && mline_code[m][0] == event &&
        mline_code[m][1] == umask)
      return m != M_REF_TSC || (p->fixed_mask & 0x4) != 0;
  return false;
}

/* The config of line l when the profile takes it. */
static bool gen_line(const struct stat_gen *g, enum line l, uint64_t *config)
{
  *config = (uint64_t)line_code[l][1] << 8 | line_code[l][0];
  return (g->lines & LINE(l)) != 0;
}

/* ---- perf's generic names ------------------------------------------------
 *
 * perf list (perf-list(1)) names the hardware events; for Intel, Linux's
 * event map (arch/x86/events/intel/core.c, intel_perfmon_event_map)
 * programs instructions as C0H/00H, branches as C4H/00H, cycles as
 * 3CH/00H, cache-references as 2EH/4FH, cache-misses as 2EH/41H and
 * branch-misses as C5H/00H, the architectural events (SDM Vol. 3B Table
 * 18-1), bus-cycles as 3CH/01H and ref-cycles as 00H/03H, its encoding of
 * fixed counter 2 (Table 18-2). Of the cache events, L1-dcache-loads and
 * -stores are the loads and stores retired, and L1-dcache-load-misses is
 * what each generation's table says (stat_gen.l1d_miss: L1D.REPLACEMENT
 * 51H/01H from Nehalem to Ice Lake). The others need what neither the
 * engine nor its model has (stalls, TLBs, offcore responses, time). */
enum generic_kind {
  GEN_NONE,      /* not produced */
  GEN_LINE,      /* an exact line, where the profile takes it */
  GEN_CONFIG,    /* perf's raw config on every Intel part */
  GEN_L1D_MISSES /* the profile's L1-dcache-load-misses */
};

static const struct {
  const char *name;
  enum generic_kind kind;
  unsigned arg; /* GEN_LINE: enum line; GEN_CONFIG: the raw config */
  enum stat_hw hw;
  enum stat_list_group group; /* perf list's */
} generics[] = {
    {"instructions", GEN_LINE, L_INST, STAT_HW_INSTRUCTIONS,
     STAT_LIST_HARDWARE},
    {"branches", GEN_LINE, L_BR_ALL, STAT_HW_BRANCHES, STAT_LIST_HARDWARE},
    {"branch-instructions", GEN_LINE, L_BR_ALL, STAT_HW_BRANCHES,
     STAT_LIST_HARDWARE},
    {"L1-dcache-loads", GEN_LINE, L_LOADS, STAT_HW_L1D_LOADS, STAT_LIST_CACHE},
    {"L1-dcache-stores", GEN_LINE, L_STORES, STAT_HW_NONE, STAT_LIST_CACHE},
    {"cycles", GEN_CONFIG, 0x003c, STAT_HW_CYCLES, STAT_LIST_HARDWARE},
    {"cpu-cycles", GEN_CONFIG, 0x003c, STAT_HW_CYCLES, STAT_LIST_HARDWARE},
    {"ref-cycles", GEN_CONFIG, 0x0300, STAT_HW_NONE, STAT_LIST_HARDWARE},
    {"bus-cycles", GEN_CONFIG, 0x013c, STAT_HW_NONE, STAT_LIST_HARDWARE},
    {"cache-references", GEN_CONFIG, 0x4f2e, STAT_HW_CACHE_REFS,
     STAT_LIST_HARDWARE},
    {"cache-misses", GEN_CONFIG, 0x412e, STAT_HW_CACHE_MISSES,
     STAT_LIST_HARDWARE},
    {"branch-misses", GEN_CONFIG, 0x00c5, STAT_HW_BRANCH_MISSES,
     STAT_LIST_HARDWARE},
    {"L1-dcache-load-misses", GEN_L1D_MISSES, 0, STAT_HW_L1D_LOAD_MISSES,
     STAT_LIST_CACHE},
    {"stalled-cycles-frontend", GEN_NONE, 0, STAT_HW_NONE, STAT_LIST_HARDWARE},
    {"idle-cycles-frontend", GEN_NONE, 0, STAT_HW_NONE, STAT_LIST_HARDWARE},
    {"stalled-cycles-backend", GEN_NONE, 0, STAT_HW_NONE, STAT_LIST_HARDWARE},
    {"idle-cycles-backend", GEN_NONE, 0, STAT_HW_NONE, STAT_LIST_HARDWARE},
    {"LLC-loads", GEN_NONE, 0, STAT_HW_NONE, STAT_LIST_CACHE},
    {"LLC-load-misses", GEN_NONE, 0, STAT_HW_NONE, STAT_LIST_CACHE},
    {"LLC-stores", GEN_NONE, 0, STAT_HW_NONE, STAT_LIST_CACHE},
    {"LLC-store-misses", GEN_NONE, 0, STAT_HW_NONE, STAT_LIST_CACHE},
    {"dTLB-loads", GEN_NONE, 0, STAT_HW_NONE, STAT_LIST_CACHE},
    {"dTLB-load-misses", GEN_NONE, 0, STAT_HW_NONE, STAT_LIST_CACHE},
    {"iTLB-loads", GEN_NONE, 0, STAT_HW_NONE, STAT_LIST_CACHE},
    {"iTLB-load-misses", GEN_NONE, 0, STAT_HW_NONE, STAT_LIST_CACHE},
    {"L1-icache-loads", GEN_NONE, 0, STAT_HW_NONE, STAT_LIST_CACHE},
    {"L1-icache-load-misses", GEN_NONE, 0, STAT_HW_NONE, STAT_LIST_CACHE},
    {"L1-dcache-prefetches", GEN_NONE, 0, STAT_HW_NONE, STAT_LIST_CACHE},
    {"L1-dcache-prefetch-misses", GEN_NONE, 0, STAT_HW_NONE, STAT_LIST_CACHE},
    {"branch-loads", GEN_NONE, 0, STAT_HW_NONE, STAT_LIST_CACHE},
    {"branch-load-misses", GEN_NONE, 0, STAT_HW_NONE, STAT_LIST_CACHE},
    {"task-clock", GEN_NONE, 0, STAT_HW_NONE, STAT_LIST_SOFTWARE},
    {"cpu-clock", GEN_NONE, 0, STAT_HW_NONE, STAT_LIST_SOFTWARE},
    {"context-switches", GEN_NONE, 0, STAT_HW_NONE, STAT_LIST_SOFTWARE},
    {"cpu-migrations", GEN_NONE, 0, STAT_HW_NONE, STAT_LIST_SOFTWARE},
    {"page-faults", GEN_NONE, 0, STAT_HW_NONE, STAT_LIST_SOFTWARE},
};
#define NGENERICS (sizeof(generics) / sizeof(generics[0]))

/* The raw config (perf's rNNN) of generic name i on g; false when the
 * engine does not produce it. */
static bool generic_config(const struct stat_gen *g, size_t i, uint64_t *config)
{
  switch (generics[i].kind) {
  case GEN_LINE:
    return gen_line(g, (enum line)generics[i].arg, config);
  case GEN_CONFIG:
    *config = generics[i].arg;
    return true;
  case GEN_L1D_MISSES:
    *config = g->l1d_miss;
    return g->l1d_miss != 0;
  case GEN_NONE:
    break;
  }
  return false;
}

/* ---- perf's names libpfm4 lacks -------------------------------------------
 *
 * perf's JSON event lists (Linux's tools/perf/pmu-events/arch/x86/, e.g.
 * skylake/pipeline.json) name the events of the fixed counters as SDM Vol.
 * 3B Table 18-2 does, encoded as Linux's pseudo-encodings (event 00H,
 * umask N + 1 for fixed counter N; fixed_equivalent). libpfm4 lacks them
 * before Ice Lake, and its Sapphire Rapids INST_RETIRED:ANY is C0H/01H:
 * perf's spelling of these names resolves here first, wherever the profile
 * has the fixed counter. Their _ANY variants set AnyThread (SDM Vol. 3B
 * 18.2.3.1: the events of both threads of the core), which the plugin
 * does not model: known where the profile has AnyThread (version 3, not
 * deprecated), <not supported>. */
#define PERF_GP (-1) /* a general-purpose counter's event */

static const struct {
  const char *name; /* perf's spelling */
  uint16_t config;  /* the (pseudo-)encoding */
  int fixed;        /* the fixed counter it names, or PERF_GP */
  bool any_thread;  /* AnyThread set: not produced */
  const char *desc; /* for softpmu list */
} perf_names[] = {
    {"inst_retired.any", 0x0100, 0, false,
     "Instructions retired (fixed counter 0; as INST_RETIRED.ANY_P)"},
    {"cpu_clk_unhalted.thread", 0x0200, 1, false,
     "Core cycles when the thread is not halted (fixed counter 1; as "
     "CPU_CLK_UNHALTED.THREAD_P)"},
    {"cpu_clk_unhalted.ref_tsc", 0x0300, 2, false,
     "Reference cycles when the core is not halted (fixed counter 2)"},
    {"cpu_clk_unhalted.thread_any", 0x0200, 1, true,
     "Core cycles when either thread of the core is not halted (fixed "
     "counter 1, AnyThread)"},
    {"cpu_clk_unhalted.thread_p_any", 0x003c, PERF_GP, true,
     "Core cycles when either thread of the core is not halted "
     "(AnyThread)"},
    {"cpu_clk_unhalted.ref_xclk_any", 0x013c, PERF_GP, true,
     "Core crystal clock cycles when either thread of the core is not "
     "halted (AnyThread)"},
    {"cpu_clk_thread_unhalted.ref_xclk_any", 0x013c, PERF_GP, true,
     "Core crystal clock cycles when either thread of the core is not "
     "halted (AnyThread)"},
};
#define NPERF_NAMES (sizeof(perf_names) / sizeof(perf_names[0]))

/* Does perf's name i apply to p (its fixed counter, AnyThread)? */
static bool perf_name_applies(const spmu_profile *p, size_t i)
{
  if (perf_names[i].fixed != PERF_GP &&
      !(p->fixed_mask >> perf_names[i].fixed & 1))
    return false;
  return !perf_names[i].any_thread ||
         (p->version >= 3 && !(p->features & SPMU_FEAT_ANY_DEPRECATED));
}

/* The index of perf's name base on p, or -1. */
static int perf_name_find(const spmu_profile *p, const char *base)
{
  size_t i;

  for (i = 0; i < NPERF_NAMES; i++)
    if (text_ieq(base, perf_names[i].name) && perf_name_applies(p, i))
      return (int)i;
  return -1;
}

/* ---- libpfm4 -------------------------------------------------------------
 *
 * libpfm4 reads LIBPFM_FORCE_PMU once, in pfm_initialize(); a second
 * initialisation in the same process keeps the first table. libpfm4 keeps
 * that state, and says which table it forced: the one PMU present. */

/* The name of the PMU table libpfm4 was set up with in this process
 * ("skl") into buf; false before it is set up (its calls fail then). */
static bool pfm_present_pmu(char *buf, size_t len)
{
  pfm_pmu_info_t info;
  int pmu;

  for (pmu = PFM_PMU_NONE; pmu < PFM_PMU_MAX; pmu++) {
    memset(&info, 0, sizeof info);
    info.size = sizeof info;
    if (pfm_get_pmu_info((pfm_pmu_t)pmu, &info) == PFM_SUCCESS &&
        info.is_present) {
      snprintf(buf, len, "%s", info.name);
      return true;
    }
  }
  return false;
}

/* Put the environment variable name back as it was (saved: its value, or
 * NULL if it was not set), so that the measured program gets this process's
 * environment unchanged. */
static int env_restore(const char *name, const char *saved)
{
  return saved != NULL ? setenv(name, saved, 1) : unsetenv(name);
}

int stat_events_setup(const spmu_profile *p, char *why, size_t whylen)
{
  const char *pmu = stat_events_pfm_pmu(p), *old;
  char saved[64], forced[64];
  int err;

  if (pmu == NULL)
    return 0;
  if (pfm_present_pmu(forced, sizeof forced)) {
    if (strcmp(forced, pmu) == 0)
      return 0;
    snprintf(why, whylen,
             "libpfm4 is set up for PMU '%s' in this process, not '%s'", forced,
             pmu);
    return -1;
  }
  old = getenv("LIBPFM_FORCE_PMU");
  if (old != NULL)
    snprintf(saved, sizeof saved, "%s", old);
  if (setenv("LIBPFM_FORCE_PMU", pmu, 1) != 0) {
    snprintf(why, whylen, "cannot set LIBPFM_FORCE_PMU");
    return -1;
  }
  err = pfm_initialize();
  if (env_restore("LIBPFM_FORCE_PMU", old != NULL ? saved : NULL) != 0) {
    snprintf(why, whylen, "cannot restore LIBPFM_FORCE_PMU");
    return -1;
  }
  if (err != PFM_SUCCESS) {
    snprintf(why, whylen, "libpfm4: %s", pfm_strerror(err));
    return -1;
  }
  return 0;
}

/* perf's spelling (br_inst_retired.near_call) as libpfm4's
 * (br_inst_retired:near_call): the first dot becomes a colon. */
static void pfm_spelling(const char *name, char *buf, size_t len)
{
  char *dot;

  snprintf(buf, len, "%s", name);
  dot = strchr(buf, '.');
  if (dot != NULL && strchr(buf, ':') == NULL)
    *dot = ':';
}

/* libpfm4's perf_events encoding of name: the raw config perf would use
 * (EVENT | UMASK << 8 | E << 18 | INV << 23 | CMASK << 24, and bits of
 * modifiers such as t=1 or intx=1 where given) and the privilege levels
 * its own u=/k= modifiers chose. A libpfm4 error code, or PFM_SUCCESS. */
static int pfm_config(const char *name, uint64_t *config, bool *user,
                      bool *kernel)
{
  struct perf_event_attr attr;
  pfm_perf_encode_arg_t arg;
  char buf[160];
  int err;

  pfm_spelling(name, buf, sizeof buf);
  memset(&attr, 0, sizeof attr);
  memset(&arg, 0, sizeof arg);
  arg.attr = &attr;
  arg.size = sizeof arg;
  err = pfm_get_os_event_encoding(buf, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT,
                                  &arg);
  if (err != PFM_SUCCESS)
    return err;
  *config = attr.config;
  *user = !attr.exclude_user;
  *kernel = !attr.exclude_kernel;
  return PFM_SUCCESS;
}

/* A name of the forced PMU's table and what it counts (the umask's
 * description, or the event's for an event without umasks). */
typedef void pfm_name_fn(void *ctx, const char *name, const char *desc);

/* Attribute a of event idx into *ainfo, if it is a umask. */
static bool pfm_umask(int idx, int a, pfm_event_attr_info_t *ainfo)
{
  memset(ainfo, 0, sizeof *ainfo);
  ainfo->size = sizeof *ainfo;
  return pfm_get_event_attr_info(idx, a, PFM_OS_NONE, ainfo) == PFM_SUCCESS &&
         ainfo->type == PFM_ATTR_UMASK;
}

/* Hand fn the name (lower-cased in perf's spelling) and its description. */
static void pfm_give_name(char *name, bool perf_style, const char *desc,
                          pfm_name_fn *fn, void *ctx)
{
  char *c;

  if (perf_style)
    for (c = name; *c; c++)
      *c = (char)tolower((unsigned char)*c);
  fn(ctx, name, desc);
}

/* The umask-less event idx in perf's or libpfm4's spelling, if it is one. */
static void pfm_bare_event(int idx, const pfm_event_info_t *einfo,
                           bool perf_style, pfm_name_fn *fn, void *ctx)
{
  pfm_event_attr_info_t ainfo;
  char name[96];
  int a;

  for (a = 0; a < einfo->nattrs; a++)
    if (pfm_umask(idx, a, &ainfo))
      return;
  snprintf(name, sizeof name, "%s", einfo->name);
  pfm_give_name(name, perf_style, einfo->desc, fn, ctx);
}

/* Every EVENT:UMASK name of event idx, in perf's spelling when perf_style
 * (br_inst_retired.near_call), else libpfm4's. */
static void pfm_event_names(int idx, const pfm_event_info_t *einfo,
                            bool perf_style, pfm_name_fn *fn, void *ctx)
{
  pfm_event_attr_info_t ainfo;
  char name[96];
  int a;

  for (a = 0; a < einfo->nattrs; a++) {
    if (!pfm_umask(idx, a, &ainfo))
      continue;
    snprintf(name, sizeof name, "%s%c%s", einfo->name, perf_style ? '.' : ':',
             ainfo.name);
    pfm_give_name(name, perf_style, ainfo.desc, fn, ctx);
  }
}

/* Every name of the forced PMU's table: each EVENT:UMASK, and with bare
 * each event that has no umask. */
static void pfm_each_name(bool perf_style, bool bare, pfm_name_fn *fn,
                          void *ctx)
{
  pfm_pmu_info_t pinfo;
  pfm_event_info_t einfo;
  int pmu, idx;

  for (pmu = PFM_PMU_NONE; pmu < PFM_PMU_MAX; pmu++) {
    memset(&pinfo, 0, sizeof pinfo);
    pinfo.size = sizeof pinfo;
    if (pfm_get_pmu_info((pfm_pmu_t)pmu, &pinfo) != PFM_SUCCESS ||
        !pinfo.is_present)
      continue;
    for (idx = pinfo.first_event; idx != -1; idx = pfm_get_event_next(idx)) {
      memset(&einfo, 0, sizeof einfo);
      einfo.size = sizeof einfo;
      if (pfm_get_event_info(idx, PFM_OS_NONE, &einfo) != PFM_SUCCESS)
        continue;
      if (bare)
        pfm_bare_event(idx, &einfo, perf_style, fn, ctx);
      pfm_event_names(idx, &einfo, perf_style, fn, ctx);
    }
  }
}

static void offer_name(void *nb, const char *name, const char *desc)
{
  (void)desc;
  nearest_offer(nb, name);
}

/* Offer every EVENT:UMASK name of the forced PMU, in perf's spelling when
 * the word is written in it. */
static void pfm_offer_names(struct nearest *nb, bool perf_style)
{
  pfm_each_name(perf_style, false, offer_name, nb);
}

/* ---- Parsing the event string --------------------------------------------*/

/* perf's event modifiers (perf-list(1), "modifiers"), as perf reads them:
 *   u, k, h   count user, kernel, hypervisor code; given any, only those.
 *             No hypervisor runs here, so h counts what u does (the
 *             program's own code, at CPL 3).
 *   G, H      count in guest, host mode (perf's exclude_host and
 *             exclude_guest); no virtual machine runs here, all code is
 *             host code: H changes nothing, G alone counts nothing (user
 *             and kernel both false; config_to_evtsel).
 *   p, pp, ppp, P   the precise level (perf_event_open(2), precise_ip);
 *             P is the highest the profile has: 3 with PEBS (SDM Vol. 3B
 *             18.4.4), else 0. A level above 0 needs PEBS.
 * Each letter at most once, p up to three times. */
#define PRECISE_MAX 4u /* P, until the profile says what it is */

struct stat_mods {
  bool u, k, h, guest, host, max_precise;
  unsigned precise;
};

static bool mods_take(struct stat_mods *m, char c)
{
  bool *flag = c == 'u'   ? &m->u
               : c == 'k' ? &m->k
               : c == 'h' ? &m->h
               : c == 'G' ? &m->guest
               : c == 'H' ? &m->host
               : c == 'P' ? &m->max_precise
                          : NULL;

  if (c == 'p')
    return m->precise < 3 && ++m->precise;
  if (flag == NULL || *flag)
    return false;
  *flag = true;
  return true;
}

/* Apply a modifier string ("u", "uk", "upp", "G") to *out. false if it is
 * not one. */
static bool parse_modifiers(const char *mods, struct stat_event *out)
{
  struct stat_mods m = {0};

  if (*mods == '\0')
    return false;
  for (; *mods; mods++)
    if (!mods_take(&m, *mods))
      return false;
  if (m.u || m.k || m.h) {
    out->user = m.u || m.h;
    out->kernel = m.k;
  }
  if (m.guest && !m.host) /* exclude_host: no guest runs here */
    out->user = out->kernel = false;
  out->precise = m.max_precise ? PRECISE_MAX : m.precise;
  return true;
}

/* Split a trailing modifier string (":u", ":k", ":upp", ...) off base (in
 * place). true if one was there. */
static bool strip_modifiers(char *base, struct stat_event *out)
{
  char *colon = strrchr(base, ':');

  if (colon == NULL || !parse_modifiers(colon + 1, out))
    return false;
  *colon = '\0';
  return true;
}

static bool is_hex(const char *s)
{
  if (*s == '\0')
    return false;
  for (; *s; s++)
    if (!isxdigit((unsigned char)*s))
      return false;
  return true;
}

/* One term of cpu/.../ ("event=0xc4", "inv") into *config; a later term
 * overrides the bits of an earlier one. */
static bool pmu_term(const char *term, uint64_t *config, char *why,
                     size_t whylen)
{
  static const struct {
    const char *name;
    unsigned shift;
    uint64_t max;
  } terms[] = {
      {"event", 0, 0xff},
      {"umask", 8, 0xff},
      {"edge", 18, 1},
      {"inv", 23, 1},
      {"cmask", 24, 0xff},
      /* perf's config=N: the whole raw config, as rN. */
      {"config", 0, UINT64_MAX},
  };
  const char *eq = strchr(term, '=');
  size_t n = eq ? (size_t)(eq - term) : strlen(term), i;
  uint64_t v = 1;

  for (i = 0; i < sizeof(terms) / sizeof(terms[0]); i++) {
    if (strlen(terms[i].name) != n || strncmp(term, terms[i].name, n) != 0)
      continue;
    if ((eq == NULL && terms[i].max != 1) ||
        (eq != NULL && (!text_parse_u64(eq + 1, &v) || v > terms[i].max))) {
      snprintf(why, whylen, "'%s': %s takes a number from 0 to %#llx", term,
               terms[i].name, (unsigned long long)terms[i].max);
      return false;
    }
    *config =
        (*config & ~(terms[i].max << terms[i].shift)) | v << terms[i].shift;
    return true;
  }
  snprintf(why, whylen,
           "'%s': unknown term (cpu/.../ takes event, umask, cmask, inv, "
           "edge and config)",
           term);
  return false;
}

/* The terms of cpu/TERMS/MODS (base = "TERMS/MODS") into *config. */
static bool parse_pmu_form(char *body, uint64_t *config, struct stat_event *out,
                           char *why, size_t whylen)
{
  char *slash = strchr(body, '/'), *mods, *term, *save = NULL;

  if (slash == NULL) {
    snprintf(why, whylen, "cpu/...: the closing '/' is missing");
    return false;
  }
  *slash = '\0';
  mods = slash + 1;
  if (*mods == ':')
    mods++;
  if (*mods != '\0' && !parse_modifiers(mods, out)) {
    snprintf(why, whylen,
             "'%s': unknown modifier (u, k, h, G, H, p, pp, ppp or P)", mods);
    return false;
  }
  *config = 0;
  for (term = strtok_r(body, ",", &save); term != NULL;
       term = strtok_r(NULL, ",", &save))
    if (!pmu_term(term, config, why, whylen))
      return false;
  if ((*config & 0xff) == 0) {
    snprintf(why, whylen, "cpu/...: no event= given");
    return false;
  }
  return true;
}

/* Linux's pseudo-encodings of the fixed counters, event 00H with umask
 * N + 1 for fixed counter N (perf's JSON event lists and libpfm4 from Ice
 * Lake use them), as the architectural event each fixed counter counts
 * (SDM Vol. 3B Table 18-2): 00H/01H INST_RETIRED.ANY is C0H/00H
 * instructions retired, 00H/02H CPU_CLK_UNHALTED.THREAD is 3CH/00H
 * UnHalted Core Cycles. 00H/03H CPU_CLK_UNHALTED.REF_TSC stays: the model
 * counts it as fixed counter 2 does (gen_models). */
static uint64_t fixed_equivalent(uint64_t config)
{
  switch (config & STAT_EVTSEL_EVENT_BITS) {
  case 0x0100:
    return (config & ~STAT_EVTSEL_EVENT_BITS) | 0x00c0;
  case 0x0200:
    return (config & ~STAT_EVTSEL_EVENT_BITS) | 0x003c;
  default:
    return config;
  }
}

/* perf's raw config as an event select: the bits the event chooses are
 * kept; USR, OS, INT and EN are perf's kernel side's to set (it takes the
 * raw config's EVENT, UMASK, E, INV and CMASK), so set there they are
 * dropped; any other bit is refused. */
static bool config_to_evtsel(uint64_t config, struct stat_event *out, char *why,
                             size_t whylen)
{
  const uint64_t managed =
      SPMU_EVTSEL_USR | SPMU_EVTSEL_OS | SPMU_EVTSEL_INT | SPMU_EVTSEL_EN;
  uint64_t other = config & ~(STAT_EVTSEL_EVENT_BITS | managed);

  if (other != 0) {
    snprintf(why, whylen,
             "%s: bits %#llx of the event select are not supported (only "
             "event, umask, edge, inv and cmask)",
             out->name, (unsigned long long)other);
    return false;
  }
  config = fixed_equivalent(config);
  /* Neither level (:G alone, guest mode only): a counter needs USR or OS
   * to count (SDM Vol. 3B 18.2.1.1), and the plugin refuses one with
   * neither; OS alone counts nothing as well here, where no code runs at
   * CPL 0, so it stands for "no level". */
  out->evtsel = (config & STAT_EVTSEL_EVENT_BITS) | SPMU_EVTSEL_EN |
                (out->user ? SPMU_EVTSEL_USR : 0) |
                (out->kernel || !out->user ? SPMU_EVTSEL_OS : 0);
  return true;
}

void stat_event_restrict(struct stat_event *e, bool user, bool kernel)
{
  e->user = e->user && user;
  e->kernel = e->kernel && kernel;
  if (!e->supported)
    return;
  e->evtsel &= ~(SPMU_EVTSEL_USR | SPMU_EVTSEL_OS);
  e->evtsel |= (e->user ? SPMU_EVTSEL_USR : 0) |
               (e->kernel || !e->user ? SPMU_EVTSEL_OS : 0);
}

void stat_event_user_only(struct stat_event *e)
{
  if (!e->user && !e->kernel)
    return;
  e->user = true;
  e->kernel = false;
  if (e->supported)
    e->evtsel = (e->evtsel & ~SPMU_EVTSEL_OS) | SPMU_EVTSEL_USR;
}

static int unknown_event(const spmu_profile *p, const char *base, char *why,
                         size_t whylen)
{
  struct nearest nb;
  char near[4 * NEAREST_MAX * 48];
  size_t i;

  nearest_init(&nb, base);
  for (i = 0; i < NGENERICS; i++)
    nearest_offer(&nb, generics[i].name);
  for (i = 0; i < NPERF_NAMES; i++)
    if (perf_name_applies(p, i))
      nearest_offer(&nb, perf_names[i].name);
  if (stat_events_pfm_pmu(p) != NULL)
    pfm_offer_names(&nb, strchr(base, '.') != NULL);
  if (nearest_text(&nb, near, sizeof near))
    snprintf(why, whylen, "event '%s' is not known for %s; did you mean %s?",
             base, p->name, near);
  else
    snprintf(why, whylen, "event '%s' is not known for %s", base, p->name);
  return -1;
}

/* The event (no modifiers) base as a raw config; 0 or -1 as
 * stat_event_resolve, which has set libpfm4 up for the profile's table,
 * if it has one. *known is false for a generic name the engine does not
 * produce. */
static int base_config(const spmu_profile *p, char *base, uint64_t *config,
                       bool *known, struct stat_event *out, char *why,
                       size_t whylen)
{
  bool u, k;
  size_t i;
  int n;

  *known = true;
  if (strncmp(base, "cpu/", 4) == 0)
    return parse_pmu_form(base + 4, config, out, why, whylen) ? 0 : -1;
  if ((base[0] == 'r' || base[0] == 'R') && is_hex(base + 1) &&
      strlen(base + 1) <= 16) {
    *config = strtoull(base + 1, NULL, 16);
    return 0;
  }
  for (i = 0; i < NGENERICS; i++)
    if (text_ieq(base, generics[i].name)) {
      *known = generic_config(gen_of(p), i, config);
      out->hw = generics[i].hw;
      return 0;
    }
  if ((n = perf_name_find(p, base)) >= 0) {
    *config = perf_names[n].config;
    *known = !perf_names[n].any_thread;
    return 0;
  }
  if (stat_events_pfm_pmu(p) != NULL &&
      pfm_config(base, config, &u, &k) == PFM_SUCCESS) {
    if (!u || !k) { /* libpfm4's own u=0 / k=0 */
      out->user = u;
      out->kernel = k;
    }
    return 0;
  }
  return unknown_event(p, base, why, whylen);
}

/* A modelled event without a model to count it. */
static int no_model(const spmu_profile *p, const char *spec, char *why,
                    size_t whylen)
{
  snprintf(why, whylen,
           "%s is an estimate of the modelled micro-architecture, and %s has "
           "no model of its own (no cache geometry): choose one with --model "
           "part:NAME or --model cachegrind:I1=SIZE,ASSOC,LINE:D1=SIZE,ASSOC,"
           "LINE:LL=SIZE,ASSOC,LINE, or leave modelled events out with "
           "--no-model",
           spec, p->name);
  return -1;
}

/* Which the engine does with evtsel on p: exactly, by the model (with
 * `model` deciding whether it runs), or not at all; *out set so. */
static int classify(const spmu_profile *p, enum stat_model_use model,
                    const char *spec, struct stat_event *out, char *why,
                    size_t whylen)
{
  const struct stat_gen *g = gen_of(p);
  uint8_t event = (uint8_t)(out->evtsel & 0xff);
  uint8_t umask = (uint8_t)(out->evtsel >> 8);

  /* The plugin refuses E, INV and CMASK: one of its clocks is a whole
   * translation block, not a cycle (SDM Vol. 3B 18.2.1.1). */
  if (out->evtsel &
      (SPMU_EVTSEL_E | SPMU_EVTSEL_INV | 0xffULL << SPMU_EVTSEL_CMASK_SHIFT))
    out->supported = false;
  else if (gen_produces(g, event, umask))
    out->supported = true;
  else if (gen_models(g, p, event, umask)) {
    if (model == STAT_MODEL_NONE)
      return no_model(p, spec, why, whylen);
    out->modelled = true;
    out->supported = model == STAT_MODEL_ON;
  }
  if (!out->supported)
    out->evtsel = 0;
  return 0;
}

/* The precise level the modifiers asked for, on p: P is the highest p has
 * (3 with PEBS, 0 without); p, pp and ppp need PEBS (SDM Vol. 3B 18.4.4),
 * else false with the reason. */
static bool precise_level(const spmu_profile *p, struct stat_event *out,
                          char *why, size_t whylen)
{
  bool pebs = (p->features & SPMU_FEAT_PEBS) != 0;

  if (out->precise == PRECISE_MAX)
    out->precise = pebs ? 3 : 0;
  if (out->precise == 0 || pebs)
    return true;
  snprintf(why, whylen,
           "%s: %s has no PEBS (SDM Vol. 3B 18.4.4), so no precise level: "
           "leave out :p (or write :P, the highest the profile has)",
           out->name, p->name);
  return false;
}

int stat_event_resolve(const spmu_profile *p, enum stat_model_use model,
                       const char *spec, struct stat_event *out, char *why,
                       size_t whylen)
{
  char base[sizeof out->name];
  uint64_t config = 0;
  bool known;

  memset(out, 0, sizeof *out);
  why[0] = '\0';
  if (p->features & SPMU_FEAT_NETBURST) {
    snprintf(why, whylen,
             "%s has the NetBurst PMU; softpmu stat needs architectural "
             "performance monitoring (SDM Vol. 3B 18.2)",
             p->name);
    return -1;
  }
  if (strlen(spec) >= sizeof base) {
    snprintf(why, whylen, "event '%.40s...' is too long", spec);
    return -1;
  }
  if (stat_events_setup(p, why, whylen) != 0)
    return -1;
  snprintf(out->name, sizeof out->name, "%s", spec);
  snprintf(base, sizeof base, "%s", spec);
  /* Count user and kernel code unless a modifier says otherwise (perf's
   * default; perf-list(1), "modifiers"). */
  out->user = out->kernel = true;
  if (strncmp(base, "cpu/", 4) != 0 && strip_modifiers(base, out) &&
      base[0] == '\0') {
    snprintf(why, whylen, "'%s': a modifier without an event", spec);
    return -1;
  }
  if (base_config(p, base, &config, &known, out, why, whylen) != 0 ||
      !precise_level(p, out, why, whylen))
    return -1;
  if (!known)
    return 0;
  if (!config_to_evtsel(config, out, why, whylen))
    return -1;
  return classify(p, model, spec, out, why, whylen);
}

/* ---- softpmu list ---------------------------------------------------------
 *
 * Every candidate name goes through stat_event_resolve(), so the list is
 * what stat takes, by construction. */
struct list_ctx {
  const spmu_profile *p;
  enum stat_model_use model;
  stat_list_fn *fn;
  void *opaque;
  enum stat_list_group group;
};

/* name as stat resolves it, to fn; nothing when stat refuses it. */
static void list_emit(const struct list_ctx *c, const char *name,
                      const char *desc)
{
  struct stat_event ev;
  struct stat_list_item it = {c->group, name, desc, &ev, false};
  char why[512];

  if (stat_event_resolve(c->p, c->model, name, &ev, why, sizeof why) != 0) {
    if (c->model != STAT_MODEL_NONE ||
        stat_event_resolve(c->p, STAT_MODEL_OFF, name, &ev, why, sizeof why) !=
            0 ||
        !ev.modelled)
      return;
    it.needs_model = true;
  }
  c->fn(c->opaque, &it);
}

/* A name of libpfm4's table (pfm_name_fn), unless one of perf's names,
 * listed before it, is the same. */
static void list_pfm_name(void *ctx, const char *name, const char *desc)
{
  const struct list_ctx *c = ctx;

  if (perf_name_find(c->p, name) < 0)
    list_emit(c, name, desc);
}

/* perf's generic names of group g. */
static void list_generics(struct list_ctx *c, enum stat_list_group g)
{
  size_t i;

  c->group = g;
  for (i = 0; i < NGENERICS; i++)
    if (generics[i].group == g)
      list_emit(c, generics[i].name, NULL);
}

/* perf's names libpfm4 lacks, then libpfm4's table. */
static void list_intel(struct list_ctx *c)
{
  size_t i;

  c->group = STAT_LIST_INTEL;
  for (i = 0; i < NPERF_NAMES; i++)
    list_emit(c, perf_names[i].name, perf_names[i].desc);
  if (stat_events_pfm_pmu(c->p) != NULL)
    pfm_each_name(true, true, list_pfm_name, c);
}

int stat_events_list(const spmu_profile *p, enum stat_model_use model,
                     stat_list_fn *fn, void *opaque, char *why, size_t whylen)
{
  struct list_ctx c = {p, model, fn, opaque, STAT_LIST_HARDWARE};
  struct stat_event probe;

  /* A profile stat cannot count on says so here too. */
  if (stat_event_resolve(p, STAT_MODEL_OFF, "instructions", &probe, why,
                         whylen) != 0)
    return -1;
  list_generics(&c, STAT_LIST_HARDWARE);
  list_generics(&c, STAT_LIST_CACHE);
  list_generics(&c, STAT_LIST_SOFTWARE);
  list_intel(&c);
  return 0;
}

bool stat_event_next(const char **list, char *buf, size_t len)
{
  const char *s = *list, *end = s;
  size_t n;
  bool in_pmu = false;

  buf[0] = '\0';
  if (*s == '\0')
    return false;
  for (; *end && (in_pmu || *end != ','); end++)
    if (*end == '/')
      in_pmu = !in_pmu;
  n = (size_t)(end - s);
  if (n >= len)
    return false;
  memcpy(buf, s, n);
  buf[n] = '\0';
  *list = *end == ',' ? end + 1 : end;
  return true;
}

enum stat_item stat_event_item(const char **list, char *buf, size_t len,
                               char *mods, size_t mlen)
{
  const char *s = *list, *close, *end;
  size_t n, m;

  mods[0] = '\0';
  if (*s == '\0')
    return STAT_ITEM_END;
  if (*s != '{')
    return stat_event_next(list, buf, len) ? STAT_ITEM_EVENT : STAT_ITEM_BAD;
  if (!(close = strchr(s, '}')))
    return STAT_ITEM_BAD;
  n = (size_t)(close - s - 1);
  end = close + 1 + strcspn(close + 1, ",");
  m = close[1] == ':' ? (size_t)(end - close - 2) : 0;
  if (n >= len || m >= mlen || (close[1] != ':' && end != close + 1))
    return STAT_ITEM_BAD;
  memcpy(buf, s + 1, n);
  buf[n] = '\0';
  memcpy(mods, close + 2, m);
  mods[m] = '\0';
  *list = *end == ',' ? end + 1 : end;
  return STAT_ITEM_GROUP;
}

bool stat_event_has_modifiers(const char *spec)
{
  const char *last = strrchr(spec, '/'), *colon = strrchr(spec, ':');
  struct stat_event e;

  if (last && strncmp(spec, "cpu/", 4) == 0 && last[1] != '\0')
    return true;
  /* "BR_INST_RETIRED:NEAR_CALL" is libpfm4's name, not a modifier. */
  memset(&e, 0, sizeof(e));
  return colon != NULL && parse_modifiers(colon + 1, &e);
}

bool stat_event_modifier_levels(const char *mods, bool *user, bool *kernel)
{
  struct stat_event e;

  memset(&e, 0, sizeof(e));
  e.user = e.kernel = true;
  if (!parse_modifiers(mods, &e))
    return false;
  *user = e.user;
  *kernel = e.kernel;
  return true;
}

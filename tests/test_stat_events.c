/* SPDX-License-Identifier: MIT */
/* softpmu stat's -e resolution (perf/stat_events.h): each spelling to the
 * IA32_PERFEVTSELx value it programs (SDM Vol. 3B 18.2.1.1, Figure 18-1),
 * events the engine does not produce, and errors with the nearest names.
 *
 * libpfm4 reads LIBPFM_FORCE_PMU once per process, so each profile's
 * tests run in their own process: argv[1] names the profile. */
#define _POSIX_C_SOURCE 200112L /* setenv */

#include "helpers.h"

#include <stdlib.h>

#include <perfmon/pfmlib.h>

#include "stat_events.h"

/* USR | OS | EN: what every event counts with when no modifier is given. */
#define UOE UINT64_C(0x430000)
#define U_E UINT64_C(0x410000)
#define _KE UINT64_C(0x420000)

static spmu_profile prof;
/* The model as stat chooses it: the profile's part by default. */
static enum stat_model_use model = STAT_MODEL_ON;

static struct stat_event ok(const char *spec)
{
  struct stat_event e;
  char why[512];

  if (stat_event_resolve(&prof, model, spec, &e, why, sizeof why) != 0)
    fail_msg("%s: %s", spec, why);
  return e;
}

/* The evtsel of a supported event. */
static uint64_t sel(const char *spec)
{
  struct stat_event e = ok(spec);

  if (!e.supported)
    fail_msg("%s: not supported", spec);
  return e.evtsel;
}

static void assert_unsupported(const char *spec)
{
  struct stat_event e = ok(spec);

  assert_false(e.supported);
  assert_int_equal(e.evtsel, 0);
  assert_string_equal(e.name, spec);
}

/* The evtsel of a modelled event (counted by the model, marked). */
static uint64_t msel(const char *spec)
{
  struct stat_event e = ok(spec);

  if (!e.supported || !e.modelled)
    fail_msg("%s: supported %d, modelled %d", spec, e.supported, e.modelled);
  return e.evtsel;
}

/* An exact event: supported, never marked. */
static uint64_t xsel(const char *spec)
{
  struct stat_event e = ok(spec);

  if (!e.supported || e.modelled)
    fail_msg("%s: supported %d, modelled %d", spec, e.supported, e.modelled);
  return e.evtsel;
}

static void assert_error(const char *spec, const char *expect)
{
  struct stat_event e;
  char why[512];

  assert_int_equal(stat_event_resolve(&prof, model, spec, &e, why, sizeof why),
                   -1);
  assert_string_equal(why, expect);
}

/* ---- skylake ------------------------------------------------------------*/

/* libpfm4's own encoding of INST_RETIRED:ANY_P sets INT (bit 20) and EN
 * (bit 22) besides USR; stat keeps its EVENT, UMASK, E, INV and CMASK
 * bits, never INT, and sets USR/OS from the modifiers and EN. */
static void test_libpfm_bits_kept_figure_18_1(void **state)
{
  uint64_t code = 0;
  pfm_pmu_encode_arg_t arg;

  (void)state;
  assert_int_equal(sel("INST_RETIRED:ANY_P"), UOE | 0xc0);
  memset(&arg, 0, sizeof arg);
  arg.codes = &code;
  arg.count = 1;
  arg.size = sizeof arg;
  assert_int_equal(pfm_get_os_event_encoding("INST_RETIRED:ANY_P", PFM_PLM3,
                                             PFM_OS_NONE, &arg),
                   PFM_SUCCESS);
  assert_int_equal(code, 0x5100c0);
  assert_int_equal((code & STAT_EVTSEL_EVENT_BITS) | UOE,
                   sel("INST_RETIRED:ANY_P"));
}

/* The engine's Skylake lines, each named as libpfm4 names it. */
static void test_skylake_intel_names(void **state)
{
  (void)state;
  assert_int_equal(sel("BR_INST_RETIRED:ALL_BRANCHES"), UOE | 0xc4);
  assert_int_equal(sel("BR_INST_RETIRED:CONDITIONAL"), UOE | 0x01c4);
  assert_int_equal(sel("BR_INST_RETIRED:NEAR_CALL"), UOE | 0x02c4);
  /* ALL_BRANCHES_PEBS, umask 04H, is not a line the plugin produces. */
  assert_unsupported("r04c4");
  assert_int_equal(sel("BR_INST_RETIRED:NEAR_RETURN"), UOE | 0x08c4);
  assert_int_equal(sel("BR_INST_RETIRED:NEAR_TAKEN"), UOE | 0x20c4);
  assert_int_equal(sel("BR_INST_RETIRED:FAR_BRANCH"), UOE | 0x40c4);
  assert_int_equal(sel("MEM_INST_RETIRED:ALL_LOADS"), UOE | 0x81d0);
  assert_int_equal(sel("MEM_INST_RETIRED:ALL_STORES"), UOE | 0x82d0);
  assert_string_equal(stat_events_pfm_pmu(&prof), "skl");
}

/* perf's spelling (lower case, a dot) is libpfm4's (a colon), in any
 * case. */
static void test_perf_spelling_equals_libpfm(void **state)
{
  (void)state;
  assert_int_equal(sel("br_inst_retired.near_call"),
                   sel("BR_INST_RETIRED:NEAR_CALL"));
  assert_int_equal(sel("mem_inst_retired.all_loads"),
                   sel("MEM_INST_RETIRED:ALL_LOADS"));
  assert_int_equal(sel("inst_retired.any_p"), sel("Inst_Retired:Any_P"));
  assert_int_equal(sel("br_inst_retired.near_call:u"), U_E | 0x02c4);
}

/* perf's generic names: instructions C0H/00H and branches C4H/00H are the
 * architectural events (SDM Vol. 3B Table 18-1). */
static void test_generic_names_table_18_1(void **state)
{
  struct stat_event e = ok("instructions");

  (void)state;
  assert_true(e.supported);
  assert_true(e.user);
  assert_true(e.kernel);
  assert_string_equal(e.name, "instructions");
  assert_int_equal(e.evtsel, UOE | 0xc0);
  assert_int_equal(sel("branches"), UOE | 0xc4);
  assert_int_equal(sel("branch-instructions"), UOE | 0xc4);
  assert_int_equal(sel("L1-dcache-loads"), UOE | 0x81d0);
  assert_int_equal(sel("L1-dcache-stores"), UOE | 0x82d0);
}

/* :u sets USR only, :k OS only (SDM 18.2.1.1: USR counts at CPL > 0, OS
 * at CPL 0); this engine runs only user code, so :k counts nothing. */
static void test_modifiers_usr_os_18_2_1_1(void **state)
{
  struct stat_event e = ok("instructions:k");

  (void)state;
  assert_int_equal(e.evtsel, _KE | 0xc0);
  assert_false(e.user);
  assert_true(e.kernel);
  assert_string_equal(e.name, "instructions:k");
  assert_int_equal(sel("instructions:u"), U_E | 0xc0);
  assert_int_equal(sel("instructions:uk"), UOE | 0xc0);
  assert_int_equal(sel("instructions:ku"), UOE | 0xc0);
  assert_int_equal(sel("BR_INST_RETIRED:NEAR_CALL:u"), U_E | 0x02c4);
  assert_error("instructions:x",
               "event 'instructions:x' is not known for skylake; did you "
               "mean instructions?");
}

/* perf's other modifiers, as perf reads them (perf-list(1)): :h counts
 * the hypervisor, which does not run here, so as :u; :H (host only)
 * changes nothing, :G (guest only) alone counts at no level: OS alone,
 * since the plugin needs USR or OS (SDM Vol. 3B 18.2.1.1) and no code
 * runs at CPL 0 here. */
static void test_modifiers_h_g_h_18_2_1_1(void **state)
{
  (void)state;
  assert_int_equal(sel("instructions:h"), U_E | 0xc0);
  assert_int_equal(sel("instructions:kh"), UOE | 0xc0);
  assert_int_equal(sel("instructions:H"), UOE | 0xc0);
  assert_int_equal(sel("instructions:uH"), U_E | 0xc0);
  assert_int_equal(sel("instructions:GH"), UOE | 0xc0);
  assert_int_equal(sel("instructions:G"), _KE | 0xc0);
  assert_false(ok("instructions:G").user);
  assert_false(ok("instructions:G").kernel);
  assert_int_equal(sel("cpu/event=0xc0/G"), _KE | 0xc0);
  assert_error("instructions:uu", "event 'instructions:uu' is not known for "
                                  "skylake; did you mean instructions?");
}

/* :p, :pp, :ppp and :P: the precise level; Skylake has PEBS (SDM Vol. 3B
 * 18.4.4), so P is level 3. The event select is the same: stat counts,
 * record samples with PEBS. */
static void test_modifiers_precise_18_4_4(void **state)
{
  (void)state;
  assert_int_equal(ok("instructions").precise, 0);
  assert_int_equal(ok("instructions:p").precise, 1);
  assert_int_equal(ok("instructions:pp").precise, 2);
  assert_int_equal(ok("instructions:ppp").precise, 3);
  assert_int_equal(ok("instructions:P").precise, 3);
  assert_int_equal(ok("cycles:upp").precise, 2);
  assert_int_equal(sel("instructions:upp"), U_E | 0xc0);
  assert_int_equal(sel("br_inst_retired.near_call:ppp"), UOE | 0x02c4);
  assert_int_equal(ok("BR_INST_RETIRED:NEAR_CALL:kpp").precise, 2);
  assert_int_equal(ok("r00c0:pu").precise, 1);
  assert_int_equal(ok("cpu/event=0xc0/pp").precise, 2);
  assert_int_equal(ok("cpu/event=0xc0/:ppu").precise, 2);
  assert_error("instructions:pppp", "event 'instructions:pppp' is not known "
                                    "for skylake; did you mean instructions?");
}

/* perf's spelling of the fixed counters' events (its JSON event lists,
 * SDM Vol. 3B Table 18-2), in Linux's pseudo-encodings, as the
 * architectural event each counter counts: INST_RETIRED.ANY exact as
 * C0H/00H, CPU_CLK_UNHALTED.THREAD modelled as 3CH/00H, REF_TSC modelled
 * as fixed counter 2's 00H/03H. libpfm4's Skylake table has none of them. */
static void test_perf_fixed_names_table_18_2(void **state)
{
  (void)state;
  assert_int_equal(xsel("inst_retired.any"), UOE | 0xc0);
  assert_int_equal(xsel("INST_RETIRED.ANY:u"), U_E | 0xc0);
  assert_int_equal(xsel("inst_retired.any_p"), UOE | 0xc0);
  assert_int_equal(msel("cpu_clk_unhalted.thread"), UOE | 0x3c);
  assert_int_equal(msel("cpu_clk_unhalted.thread_p"), UOE | 0x3c);
  assert_int_equal(msel("cpu_clk_unhalted.ref_tsc"), UOE | 0x0300);
  assert_int_equal(msel("cpu_clk_unhalted.ref_xclk"), UOE | 0x013c);
  assert_int_equal(msel("r200"), UOE | 0x3c);
  assert_int_equal(xsel("r100"), UOE | 0xc0);
  /* Their AnyThread variants (SDM Vol. 3B 18.2.3.1), not modelled. */
  assert_unsupported("cpu_clk_unhalted.thread_any");
  assert_unsupported("CPU_CLK_UNHALTED.THREAD_P_ANY:u");
  assert_unsupported("cpu_clk_unhalted.ref_xclk_any");
}

/* perf's rNNN is the raw config: EVENT | UMASK << 8 | E, INV, CMASK in
 * their Figure 18-1 positions; USR, OS, INT and EN given there are dropped
 * (perf's kernel side sets them). */
static void test_raw_form_figure_18_1(void **state)
{
  (void)state;
  assert_int_equal(sel("r00c0"), UOE | 0xc0);
  assert_int_equal(sel("r02c4"), UOE | 0x02c4);
  assert_int_equal(sel("R81D0"), UOE | 0x81d0);
  assert_int_equal(sel("r5100c0"), UOE | 0xc0);
  /* CMASK 1, INV, E: the plugin counts per block, not per cycle. */
  assert_unsupported("r018400c0:u");
  assert_error("r2000c0", "r2000c0: bits 0x200000 of the event select are "
                          "not supported (only event, umask, edge, inv and "
                          "cmask)");
  assert_unsupported("r0");
}

/* perf's cpu/event=...,umask=.../; with cmask, inv or edge it is <not
 * supported>: the plugin's clock is a whole block (SDM Vol. 3B 18.2.1.1
 * compares the increment per clock). */
static void test_pmu_form_figure_18_1(void **state)
{
  (void)state;
  assert_int_equal(sel("cpu/event=0xc4,umask=0x02/"), UOE | 0x02c4);
  assert_int_equal(sel("cpu/event=0xc4,umask=0x02/u"), U_E | 0x02c4);
  assert_int_equal(sel("cpu/event=0xc4,umask=2/:k"), _KE | 0x02c4);
  assert_unsupported("cpu/event=0xc0,cmask=1,inv,edge/");
  assert_unsupported("cpu/event=0xc0,cmask=3,inv=1,edge=0/");
  assert_unsupported("cpu/event=0xc0,edge/");
  assert_unsupported("cpu/event=0xc0,inv/");
  /* config=N is the raw config, as rN; later terms override its bits. */
  assert_int_equal(sel("cpu/config=0x2c4/u"), U_E | 0x02c4);
  assert_int_equal(sel("cpu/config=0x2c4,umask=0x08/"), UOE | 0x08c4);
  assert_error("cpu/event=0xc0,foo=1/",
               "'foo=1': unknown term (cpu/.../ takes event, umask, cmask, "
               "inv, edge and config)");
  assert_error("cpu/event=0x1c0/",
               "'event=0x1c0': event takes a number from 0 to 0xff");
  assert_error("cpu/umask=1/", "cpu/...: no event= given");
  assert_error("cpu/event=0xc0", "cpu/...: the closing '/' is missing");
  assert_error("cpu/event=0xc0/x",
               "'x': unknown modifier (u, k, h, G, H, p, pp, ppp or P)");
}

/* What neither the engine nor its model has (stalls, TLBs, offcore
 * responses, software events): <not supported>, never modelled. */
static void test_not_supported(void **state)
{
  struct stat_event e = ok("stalled-cycles-frontend");

  (void)state;
  assert_false(e.supported);
  assert_false(e.modelled);
  assert_unsupported("LLC-loads");
  assert_unsupported("dTLB-load-misses");
  assert_unsupported("task-clock");
  assert_unsupported("page-faults");
  assert_unsupported("r01b7");
  /* MEM_LOAD_RETIRED.FB_HIT (D1H/40H): not a modelled line. */
  assert_unsupported("mem_load_retired.fb_hit");
}

/* perf's generic names on the model, as Linux's event map encodes them:
 * the architectural events of SDM Vol. 3B Table 18-1 (3CH/00H, 2EH/4FH,
 * 2EH/41H, C5H/00H; bus-cycles 3CH/01H), ref-cycles as fixed counter 2's
 * 00H/03H (Table 18-2), L1-dcache-load-misses as L1D.REPLACEMENT
 * (51H/01H). Each is modelled; its generic identity gives perf's
 * metrics. */
static void test_modelled_generic_names_table_18_1(void **state)
{
  struct stat_event e = ok("cycles");

  (void)state;
  assert_true(e.supported);
  assert_true(e.modelled);
  assert_int_equal(e.hw, STAT_HW_CYCLES);
  assert_int_equal(e.evtsel, UOE | 0x3c);
  assert_int_equal(msel("cpu-cycles"), UOE | 0x3c);
  assert_int_equal(msel("cycles:u"), U_E | 0x3c);
  assert_int_equal(msel("ref-cycles"), UOE | 0x0300);
  assert_int_equal(msel("bus-cycles"), UOE | 0x013c);
  assert_int_equal(msel("cache-references"), UOE | 0x4f2e);
  assert_int_equal(msel("cache-misses"), UOE | 0x412e);
  assert_int_equal(msel("branch-misses"), UOE | 0xc5);
  assert_int_equal(msel("L1-dcache-load-misses"), UOE | 0x0151);
  assert_int_equal(ok("cache-misses").hw, STAT_HW_CACHE_MISSES);
  assert_int_equal(ok("cache-references").hw, STAT_HW_CACHE_REFS);
  assert_int_equal(ok("branch-misses").hw, STAT_HW_BRANCH_MISSES);
  assert_int_equal(ok("ref-cycles").hw, STAT_HW_NONE);
  /* The exact ones are never modelled. */
  assert_int_equal(xsel("instructions"), UOE | 0xc0);
  assert_int_equal(ok("instructions").hw, STAT_HW_INSTRUCTIONS);
  assert_int_equal(ok("branches").hw, STAT_HW_BRANCHES);
  assert_int_equal(ok("r00c0").hw, STAT_HW_NONE);
}

/* perf stat's --all-user: USR set and OS clear (SDM Vol. 3B 18.2.1.1)
 * whatever the modifiers said, the name unchanged; :G alone (no level)
 * stays at no level; L1-dcache-loads and -load-misses are perf's pair for
 * "of all L1-dcache accesses". */
static void test_all_user_18_2_1_1(void **state)
{
  const char *specs[] = {"instructions", "instructions:k", "instructions:u",
                         "cycles:uk", "r00c4:k"};
  struct stat_event e;
  size_t i;

  (void)state;
  for (i = 0; i < sizeof specs / sizeof specs[0]; i++) {
    e = ok(specs[i]);
    stat_event_user_only(&e);
    assert_true(e.user);
    assert_false(e.kernel);
    assert_int_equal(e.evtsel & UOE, U_E);
    assert_int_equal(e.evtsel & ~UOE, ok(specs[i]).evtsel & ~UOE);
    assert_string_equal(e.name, specs[i]);
  }
  e = ok("instructions:G");
  stat_event_user_only(&e);
  assert_int_equal(e.evtsel, ok("instructions:G").evtsel);
  assert_false(e.user);
  assert_int_equal(ok("L1-dcache-loads").hw, STAT_HW_L1D_LOADS);
  assert_int_equal(ok("L1-dcache-load-misses").hw, STAT_HW_L1D_LOAD_MISSES);
}

/* Skylake's names of the modelled lines (SDM Vol. 3B Table 19-3), in
 * every spelling. */
static void test_modelled_skylake_names_table_19_3(void **state)
{
  (void)state;
  assert_int_equal(msel("CPU_CLK_THREAD_UNHALTED:THREAD_P"), UOE | 0x3c);
  assert_int_equal(msel("cpu_clk_thread_unhalted.ref_xclk"), UOE | 0x013c);
  assert_int_equal(msel("LONGEST_LAT_CACHE:REFERENCE"), UOE | 0x4f2e);
  assert_int_equal(msel("longest_lat_cache.miss"), UOE | 0x412e);
  assert_int_equal(msel("L1D:REPLACEMENT"), UOE | 0x0151);
  assert_int_equal(msel("br_misp_retired.all_branches"), UOE | 0xc5);
  assert_int_equal(msel("BR_MISP_RETIRED:CONDITIONAL"), UOE | 0x01c5);
  assert_int_equal(msel("mem_load_retired.l1_hit"), UOE | 0x01d1);
  assert_int_equal(msel("mem_load_retired.l2_hit"), UOE | 0x02d1);
  assert_int_equal(msel("mem_load_retired.l3_hit"), UOE | 0x04d1);
  assert_int_equal(msel("MEM_LOAD_RETIRED:L1_MISS"), UOE | 0x08d1);
  assert_int_equal(msel("MEM_LOAD_RETIRED:L2_MISS"), UOE | 0x10d1);
  assert_int_equal(msel("MEM_LOAD_RETIRED:L3_MISS:u"), U_E | 0x20d1);
  assert_int_equal(msel("r003c"), UOE | 0x3c);
  assert_int_equal(msel("r20d1"), UOE | 0x20d1);
  assert_int_equal(msel("cpu/event=0x3c/"), UOE | 0x3c);
  assert_int_equal(msel("cpu/event=0x2e,umask=0x41/u"), U_E | 0x412e);
  /* BR_MISP_RETIRED.NEAR_CALL (C5H/02H) is not a modelled line; CMASK
   * on a modelled line is refused as on an exact one (SDM Vol. 3B
   * 18.2.1.1, compared per clock). */
  assert_unsupported("br_misp_retired.near_call");
  assert_unsupported("cpu/event=0x3c,cmask=1/");
}

/* --no-model: a modelled event is <not supported> (and still known as a
 * modelled one); the exact ones are as before. */
static void test_modelled_off(void **state)
{
  struct stat_event e;

  (void)state;
  model = STAT_MODEL_OFF;
  e = ok("cycles");
  assert_false(e.supported);
  assert_true(e.modelled);
  assert_int_equal(e.evtsel, 0);
  assert_unsupported("L1D:REPLACEMENT");
  assert_int_equal(xsel("instructions"), UOE | 0xc0);
  model = STAT_MODEL_ON;
}

/* No model to load: a modelled event is an error that says what works;
 * the exact ones and <not supported> ones are as before. */
static void test_modelled_without_model(void **state)
{
  (void)state;
  model = STAT_MODEL_NONE;
  assert_error("cache-misses",
               "cache-misses is an estimate of the modelled "
               "micro-architecture, and skylake has no model of its own (no "
               "cache geometry): choose one with --model part:NAME or --model "
               "cachegrind:I1=SIZE,ASSOC,LINE:D1=SIZE,ASSOC,LINE:LL=SIZE,ASSOC,"
               "LINE, or leave modelled events out with --no-model");
  assert_int_equal(xsel("branches"), UOE | 0xc4);
  assert_unsupported("task-clock");
  model = STAT_MODEL_ON;
}

/* An unknown name: the nearest generic and Intel names, in the spelling
 * used. */
static void test_errors_with_nearest_names(void **state)
{
  (void)state;
  assert_error("instrutions", "event 'instrutions' is not known for skylake; "
                              "did you mean instructions?");
  assert_error("br_inst_retired.near_cal",
               "event 'br_inst_retired.near_cal' is not known for skylake; "
               "did you mean br_inst_retired.near_call?");
  assert_error("BR_INST_RETIRED:NEAR_CAL",
               "event 'BR_INST_RETIRED:NEAR_CAL' is not known for skylake; "
               "did you mean BR_INST_RETIRED:NEAR_CALL?");
  assert_error("zzzzzzzzzzzz", "event 'zzzzzzzzzzzz' is not known for "
                               "skylake");
  assert_error(":u", "':u': a modifier without an event");
}

/* libpfm4 keeps the first forced PMU table for the process. */
static void test_one_pmu_per_process(void **state)
{
  spmu_profile icl;
  char why[256];

  (void)state;
  assert_int_equal(spmu_profile_parse("icelake", &icl, NULL, 0), 0);
  assert_int_equal(stat_events_setup(&icl, why, sizeof why), -1);
  assert_string_equal(why, "libpfm4 is set up for PMU 'skl' in this "
                           "process, not 'icl'");
  assert_int_equal(stat_events_setup(&prof, why, sizeof why), 0);
}

/* The measured program gets the environment softpmu was given:
 * LIBPFM_FORCE_PMU holds the profile's table only while libpfm4
 * initialises (main() set it to "hsw" first; the names above resolved
 * with Skylake's table). */
static void test_environment_left_unchanged(void **state)
{
  (void)state;
  assert_string_equal(getenv("LIBPFM_FORCE_PMU"), "hsw");
}

/* A custom profile has no libpfm4 table: the architectural events only;
 * NetBurst has no IA32_PERFEVTSELx at all (SDM Vol. 3B 18.15). */
static void test_custom_and_netburst_profiles(void **state)
{
  spmu_profile p = prof, saved = prof;
  struct stat_event e;
  char why[256];

  (void)state;
  assert_int_equal(spmu_profile_parse("base=skylake,gp=8", &p, NULL, 0), 0);
  prof = p;
  assert_null(stat_events_pfm_pmu(&prof));
  assert_int_equal(sel("instructions"), UOE | 0xc0);
  assert_int_equal(sel("branches:u"), U_E | 0xc4);
  assert_unsupported("L1-dcache-loads");
  assert_error("BR_INST_RETIRED:NEAR_CALL",
               "event 'BR_INST_RETIRED:NEAR_CALL' is not known for custom");
  assert_int_equal(spmu_profile_parse("pentium4", &p, NULL, 0), 0);
  assert_int_equal(
      stat_event_resolve(&p, model, "instructions", &e, why, sizeof why), -1);
  assert_string_equal(why, "pentium4 has the NetBurst PMU; softpmu stat "
                           "needs architectural performance monitoring "
                           "(SDM Vol. 3B 18.2)");
  prof = saved;
}

/* -e lists split at commas outside cpu/.../. */
static void test_event_list_split(void **state)
{
  const char *list = "instructions,cpu/event=0xc4,umask=2/u,r00c0:k";
  char buf[64], small[4];

  (void)state;
  assert_true(stat_event_next(&list, buf, sizeof buf));
  assert_string_equal(buf, "instructions");
  assert_true(stat_event_next(&list, buf, sizeof buf));
  assert_string_equal(buf, "cpu/event=0xc4,umask=2/u");
  assert_false(stat_event_next(&list, small, sizeof small));
  assert_string_equal(small, "");
  assert_true(stat_event_next(&list, buf, sizeof buf));
  assert_string_equal(buf, "r00c0:k");
  assert_false(stat_event_next(&list, buf, sizeof buf));
}

/* perf's groups in an -e list: "{a,b}:MODS" as one item, its members and
 * modifiers apart; a member's own modifiers told from libpfm4's colons;
 * the levels of a member restricted to the group's (perf ORs the
 * exclusions; SDM Vol. 3B 18.2.1.1 USR, OS). */
static void test_event_groups(void **state)
{
  const char *list = "{cycles,cpu/event=0xc4,umask=2/}:u,branches,{r00c0}";
  char buf[64], mods[8];
  struct stat_event e;
  bool u, k;

  (void)state;
  assert_int_equal(stat_event_item(&list, buf, sizeof buf, mods, sizeof mods),
                   STAT_ITEM_GROUP);
  assert_string_equal(buf, "cycles,cpu/event=0xc4,umask=2/");
  assert_string_equal(mods, "u");
  assert_int_equal(stat_event_item(&list, buf, sizeof buf, mods, sizeof mods),
                   STAT_ITEM_EVENT);
  assert_string_equal(buf, "branches");
  assert_int_equal(stat_event_item(&list, buf, sizeof buf, mods, sizeof mods),
                   STAT_ITEM_GROUP);
  assert_string_equal(buf, "r00c0");
  assert_string_equal(mods, "");
  assert_int_equal(stat_event_item(&list, buf, sizeof buf, mods, sizeof mods),
                   STAT_ITEM_END);
  list = "{cycles,branches";
  assert_int_equal(stat_event_item(&list, buf, sizeof buf, mods, sizeof mods),
                   STAT_ITEM_BAD);
  assert_true(stat_event_has_modifiers("cycles:u"));
  assert_true(stat_event_has_modifiers("cpu/event=0xc4/k"));
  assert_false(stat_event_has_modifiers("BR_INST_RETIRED:NEAR_CALL"));
  assert_false(stat_event_has_modifiers("cpu/event=0xc4/"));
  assert_true(stat_event_modifier_levels("u", &u, &k));
  assert_true(u);
  assert_false(k);
  assert_false(stat_event_modifier_levels("zz", &u, &k));
  e = ok("instructions:k");
  stat_event_restrict(&e, true, false);
  assert_false(e.user || e.kernel);
  assert_int_equal(e.evtsel, ok("instructions:G").evtsel);
  e = ok("instructions");
  stat_event_restrict(&e, true, false);
  assert_int_equal(e.evtsel, ok("instructions:u").evtsel);
}

/* ---- icelake ------------------------------------------------------------*/

/* Ice Lake: BR_INST_RETIRED.COND is umask 11H; libpfm4's INST_RETIRED:ANY
 * is Linux's pseudo-encoding 0100H of fixed counter 0, INST_RETIRED.ANY
 * (SDM Vol. 3B Table 18-2), programmed as C0H/00H. */
static void test_icelake_names(void **state)
{
  (void)state;
  assert_string_equal(stat_events_pfm_pmu(&prof), "icl");
  assert_int_equal(sel("INST_RETIRED:ANY"), UOE | 0xc0);
  assert_int_equal(sel("inst_retired.any"), UOE | 0xc0);
  /* AnyThread is deprecated from Ice Lake (CPUID.0AH:EDX[15]), and perf's
   * lists have no _ANY names there. */
  assert_error("cpu_clk_unhalted.thread_any",
               "event 'cpu_clk_unhalted.thread_any' is not known for icelake; "
               "did you mean cpu_clk_unhalted.thread_p or "
               "cpu_clk_unhalted.thread?");
  /* COND is umask 11H there: not a line the plugin produces; its
   * umask 01H line means COND_TAKEN on Ice Lake. */
  assert_unsupported("BR_INST_RETIRED:COND");
  assert_unsupported("r01c4");
  assert_int_equal(sel("br_inst_retired.near_return"), UOE | 0x08c4);
  assert_int_equal(sel("BR_INST_RETIRED:FAR_BRANCH"), UOE | 0x40c4);
  assert_int_equal(sel("MEM_INST_RETIRED:ALL_STORES"), UOE | 0x82d0);
  assert_unsupported("BR_INST_RETIRED:COND_TAKEN");
}

/* Ice Lake's modelled lines: C5H/01H is BR_MISP_RETIRED.COND_TAKEN there
 * and COND is C5H/11H, neither modelled; the rest as on Skylake, and perf
 * maps L1-dcache-load-misses to L1D.REPLACEMENT here too. */
static void test_icelake_modelled(void **state)
{
  (void)state;
  assert_unsupported("BR_MISP_RETIRED:COND_TAKEN");
  assert_unsupported("br_misp_retired.cond");
  assert_unsupported("r01c5");
  assert_int_equal(msel("BR_MISP_RETIRED:ALL_BRANCHES"), UOE | 0xc5);
  assert_int_equal(msel("L1-dcache-load-misses"), UOE | 0x0151);
  assert_int_equal(msel("mem_load_retired.l3_miss"), UOE | 0x20d1);
  assert_int_equal(msel("ref-cycles"), UOE | 0x0300);
  assert_int_equal(msel("longest_lat_cache.references"), UOE | 0x4f2e);
}

/* ---- sandybridge, haswell, sapphirerapids, core-duo ---------------------*/

/* Sandy Bridge: MEM_LOAD_UOPS_RETIRED has L1_HIT, L2_HIT, LLC_HIT (D1H/01H,
 * 02H, 04H) but no 08H, 10H, 20H; BR_MISP_RETIRED.CONDITIONAL is C5H/01H. */
static void test_sandybridge_modelled(void **state)
{
  (void)state;
  assert_string_equal(stat_events_pfm_pmu(&prof), "snb");
  assert_int_equal(msel("MEM_LOAD_UOPS_RETIRED:L1_HIT"), UOE | 0x01d1);
  assert_int_equal(msel("r04d1"), UOE | 0x04d1);
  assert_unsupported("r08d1");
  assert_unsupported("r20d1");
  assert_int_equal(msel("BR_MISP_RETIRED:CONDITIONAL"), UOE | 0x01c5);
  assert_int_equal(msel("L1D:REPLACEMENT"), UOE | 0x0151);
  assert_int_equal(msel("L1-dcache-load-misses"), UOE | 0x0151);
}

/* Haswell: MEM_LOAD_UOPS_RETIRED by every umask the model gives. */
static void test_haswell_modelled(void **state)
{
  (void)state;
  assert_string_equal(stat_events_pfm_pmu(&prof), "hsw");
  assert_int_equal(msel("MEM_LOAD_UOPS_RETIRED:L3_MISS"), UOE | 0x20d1);
  assert_int_equal(msel("mem_load_uops_retired.l1_miss"), UOE | 0x08d1);
  assert_int_equal(msel("BR_MISP_RETIRED:COND"), UOE | 0x01c5);
  assert_int_equal(msel("cycles"), UOE | 0x3c);
}

/* Sapphire Rapids: perf maps L1-dcache-load-misses to
 * L2_RQSTS.ALL_DEMAND_DATA_RD (24H/E1H), which is not modelled;
 * L1D.REPLACEMENT itself is. */
static void test_sapphirerapids_modelled(void **state)
{
  (void)state;
  assert_string_equal(stat_events_pfm_pmu(&prof), "spr");
  assert_unsupported("L1-dcache-load-misses");
  assert_int_equal(msel("L1D:REPLACEMENT"), UOE | 0x0151);
  assert_unsupported("BR_MISP_RETIRED:COND_TAKEN");
  assert_int_equal(msel("MEM_LOAD_RETIRED:L2_MISS"), UOE | 0x10d1);
}

/* perf's Sapphire Rapids names of the fixed counters (SDM Vol. 3B Table
 * 18-2): INST_RETIRED.ANY is fixed counter 0's 00H/01H there, where
 * libpfm4 4.13.0's INST_RETIRED:ANY (Debian 12) is C0H/01H (not a line of
 * the plugin) and later tables' (Debian 13) is 00H/01H, fixed counter 0's;
 * CPU_CLK_UNHALTED.THREAD 00H/02H is fixed counter 1's cycles. */
static void test_sapphirerapids_fixed_names_table_18_2(void **state)
{
  (void)state;
  assert_int_equal(xsel("inst_retired.any"), UOE | 0xc0);
  if (ok("INST_RETIRED:ANY").supported)
    assert_int_equal(xsel("INST_RETIRED:ANY"), UOE | 0xc0);
  else
    assert_unsupported("INST_RETIRED:ANY");
  assert_int_equal(msel("cpu_clk_unhalted.thread"), UOE | 0x3c);
  assert_int_equal(msel("CPU_CLK_UNHALTED:THREAD"), UOE | 0x3c);
  assert_int_equal(msel("cpu_clk_unhalted.ref_tsc"), UOE | 0x0300);
  assert_int_equal(msel("cpu_clk_unhalted.ref_tsc_p"), UOE | 0x013c);
  assert_unsupported("topdown.slots");
  assert_int_equal(ok("instructions:pp").precise, 2);
}

/* Core Duo (perfmon v1): the architectural events, but no fixed counter
 * 2 for ref-cycles' 00H/03H (SDM Vol. 3B 18.2.2: fixed counters come with
 * version 2) and no L1D.REPLACEMENT; perf has no L1-dcache-load-misses
 * there. */
static void test_core_duo_modelled(void **state)
{
  (void)state;
  assert_int_equal(msel("cycles"), UOE | 0x3c);
  assert_int_equal(msel("r412e"), UOE | 0x412e);
  assert_unsupported("ref-cycles");
  assert_unsupported("r0151");
  assert_unsupported("L1-dcache-load-misses");
}

/* Core Duo has no PEBS (SDM Vol. 3B 18.4.4: from Core 2) and no fixed
 * counters: a precise level is refused, :P is level 0, and perf's names
 * of the fixed counters' events are unknown. */
static void test_core_duo_no_pebs_18_4_4(void **state)
{
  (void)state;
  assert_error("instructions:pp",
               "instructions:pp: core-duo has no PEBS (SDM Vol. 3B 18.4.4), "
               "so no precise level: leave out :p (or write :P, the highest "
               "the profile has)");
  assert_int_equal(ok("instructions:P").precise, 0);
  assert_int_equal(ok("instructions:uP").evtsel, U_E | 0xc0);
  assert_error("inst_retired.any",
               "event 'inst_retired.any' is not known for core-duo");
}

/* ---- softpmu list ----------------------------------------------------*/

struct list_seen {
  unsigned n, groups[STAT_LIST_NGROUPS];
  unsigned inst_retired_any; /* times perf's fixed-counter name came */
  bool near_call_desc;       /* br_inst_retired.near_call, described */
};

/* Each listed name resolves to what the list says: the list is the
 * resolver's. */
static void list_check(void *opaque, const struct stat_list_item *it)
{
  struct list_seen *seen = opaque;
  struct stat_event e = ok(it->name);

  assert_false(it->needs_model);
  assert_int_equal(e.supported, it->ev->supported);
  assert_int_equal(e.modelled, it->ev->modelled);
  assert_int_equal(e.evtsel, it->ev->evtsel);
  seen->n++;
  seen->groups[it->group]++;
  if (strcmp(it->name, "inst_retired.any") == 0) {
    seen->inst_retired_any++;
    assert_true(e.supported && !e.modelled);
  }
  if (strcmp(it->name, "br_inst_retired.near_call") == 0)
    seen->near_call_desc = it->desc != NULL && it->desc[0] != '\0';
}

/* softpmu list's names: every group, perf's fixed-counter names once (not
 * again from libpfm4's table, which has INST_RETIRED:ANY on Ice Lake),
 * libpfm4's descriptions. */
static void test_list_is_the_resolver(void **state)
{
  struct list_seen seen = {0};
  char why[256];
  unsigned g;

  (void)state;
  assert_int_equal(
      stat_events_list(&prof, model, list_check, &seen, why, sizeof why), 0);
  for (g = 0; g < STAT_LIST_NGROUPS; g++)
    assert_true(seen.groups[g] > 0);
  assert_int_equal(seen.inst_retired_any, 1);
  assert_true(seen.near_call_desc);
  assert_true(seen.n > 200);
}

/* ---- core2 and nehalem --------------------------------------------------*/

/* Core 2 counts loads and stores as INST_RETIRED.LOADS/STORES (C0H/01H,
 * C0H/02H): not lines the plugin produces, so <not supported>. */
static void test_core2_loads_stores(void **state)
{
  (void)state;
  assert_string_equal(stat_events_pfm_pmu(&prof), "core");
  assert_unsupported("INST_RETIRED:LOADS");
  assert_unsupported("inst_retired.stores");
  assert_unsupported("L1-dcache-loads");
  assert_unsupported("r01c4");
  assert_int_equal(sel("BR_INST_RETIRED:ANY"), UOE | 0xc4);
  assert_unsupported("BR_INST_RETIRED:TAKEN");
}

/* Core 2 has no part: a modelled event needs --model. With one, the
 * architectural events and fixed counter 2 are modelled, but 51H/01H is
 * not L1D.REPLACEMENT there and perf's L1-dcache-load-misses is
 * L1D_CACHE_LD.I_STATE (40H/01H); MEM_LOAD_RETIRED is CBH. */
static void test_core2_modelled(void **state)
{
  (void)state;
  model = STAT_MODEL_NONE;
  assert_error("cycles",
               "cycles is an estimate of the modelled micro-architecture, and "
               "core2 has no model of its own (no cache geometry): choose one "
               "with --model part:NAME or --model cachegrind:I1=SIZE,ASSOC,"
               "LINE:D1=SIZE,ASSOC,LINE:LL=SIZE,ASSOC,LINE, or leave modelled "
               "events out with --no-model");
  model = STAT_MODEL_ON;
  assert_int_equal(msel("CPU_CLK_UNHALTED:CORE_P"), UOE | 0x3c);
  assert_int_equal(msel("ref-cycles"), UOE | 0x0300);
  assert_int_equal(msel("branch-misses"), UOE | 0xc5);
  assert_unsupported("r0151");
  assert_unsupported("L1-dcache-load-misses");
  assert_unsupported("MEM_LOAD_RETIRED:L1D_MISS");
}

/* Nehalem: MEM_INST_RETIRED.LOADS/STORES are 0BH/01H and 0BH/02H, not
 * lines the plugin produces; its conditional and near call lines are. */
static void test_nehalem_loads_stores(void **state)
{
  (void)state;
  assert_string_equal(stat_events_pfm_pmu(&prof), "nhm");
  assert_unsupported("MEM_INST_RETIRED:LOADS");
  assert_unsupported("MEM_INST_RETIRED:STORES");
  assert_int_equal(sel("BR_INST_RETIRED:CONDITIONAL"), UOE | 0x01c4);
  assert_int_equal(sel("BR_INST_RETIRED:NEAR_CALL"), UOE | 0x02c4);
  assert_unsupported("L1-dcache-stores");
  assert_unsupported("r08c4");
}

/* Nehalem: L1D.REPL (51H/01H) is the lines brought into L1D, perf's
 * L1-dcache-load-misses; no BR_MISP_RETIRED.CONDITIONAL; D1H is
 * UOPS_DECODED. */
static void test_nehalem_modelled(void **state)
{
  (void)state;
  assert_int_equal(msel("L1D:REPL"), UOE | 0x0151);
  assert_int_equal(msel("L1-dcache-load-misses"), UOE | 0x0151);
  assert_unsupported("r01c5");
  assert_unsupported("r02d1");
  assert_int_equal(msel("LONGEST_LAT_CACHE:MISS"), UOE | 0x412e);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest skylake[] = {
      cmocka_unit_test(test_libpfm_bits_kept_figure_18_1),
      cmocka_unit_test(test_skylake_intel_names),
      cmocka_unit_test(test_perf_spelling_equals_libpfm),
      cmocka_unit_test(test_generic_names_table_18_1),
      cmocka_unit_test(test_modifiers_usr_os_18_2_1_1),
      cmocka_unit_test(test_modifiers_h_g_h_18_2_1_1),
      cmocka_unit_test(test_modifiers_precise_18_4_4),
      cmocka_unit_test(test_perf_fixed_names_table_18_2),
      cmocka_unit_test(test_raw_form_figure_18_1),
      cmocka_unit_test(test_pmu_form_figure_18_1),
      cmocka_unit_test(test_not_supported),
      cmocka_unit_test(test_modelled_generic_names_table_18_1),
      cmocka_unit_test(test_modelled_skylake_names_table_19_3),
      cmocka_unit_test(test_modelled_off),
      cmocka_unit_test(test_modelled_without_model),
      cmocka_unit_test(test_errors_with_nearest_names),
      cmocka_unit_test(test_one_pmu_per_process),
      cmocka_unit_test(test_environment_left_unchanged),
      cmocka_unit_test(test_custom_and_netburst_profiles),
      cmocka_unit_test(test_event_list_split),
      cmocka_unit_test(test_all_user_18_2_1_1),
      cmocka_unit_test(test_event_groups),
      cmocka_unit_test(test_list_is_the_resolver),
  };
  const struct CMUnitTest icelake[] = {
      cmocka_unit_test(test_icelake_names),
      cmocka_unit_test(test_list_is_the_resolver),
      cmocka_unit_test(test_icelake_modelled),
  };
  const struct CMUnitTest sandybridge[] = {
      cmocka_unit_test(test_sandybridge_modelled),
  };
  const struct CMUnitTest haswell[] = {
      cmocka_unit_test(test_haswell_modelled),
  };
  const struct CMUnitTest sapphirerapids[] = {
      cmocka_unit_test(test_sapphirerapids_modelled),
      cmocka_unit_test(test_sapphirerapids_fixed_names_table_18_2),
  };
  const struct CMUnitTest core_duo[] = {
      cmocka_unit_test(test_core_duo_modelled),
      cmocka_unit_test(test_core_duo_no_pebs_18_4_4),
  };
  const struct CMUnitTest core2[] = {
      cmocka_unit_test(test_core2_loads_stores),
      cmocka_unit_test(test_core2_modelled),
  };
  const struct CMUnitTest nehalem[] = {
      cmocka_unit_test(test_nehalem_loads_stores),
      cmocka_unit_test(test_nehalem_modelled),
  };
  const char *name = argc > 1 ? argv[1] : "skylake";
  char why[256];

  if (setenv("LIBPFM_FORCE_PMU", "hsw", 1) != 0 ||
      spmu_profile_parse(name, &prof, NULL, 0) != 0 ||
      stat_events_setup(&prof, why, sizeof why) != 0) {
    fprintf(stderr, "test_stat_events: profile '%s' not usable\n", name);
    return 1;
  }
  if (strcmp(name, "icelake") == 0)
    return cmocka_run_group_tests(icelake, NULL, NULL);
  if (strcmp(name, "core2") == 0)
    return cmocka_run_group_tests(core2, NULL, NULL);
  if (strcmp(name, "nehalem") == 0)
    return cmocka_run_group_tests(nehalem, NULL, NULL);
  if (strcmp(name, "sandybridge") == 0)
    return cmocka_run_group_tests(sandybridge, NULL, NULL);
  if (strcmp(name, "haswell") == 0)
    return cmocka_run_group_tests(haswell, NULL, NULL);
  if (strcmp(name, "sapphirerapids") == 0)
    return cmocka_run_group_tests(sapphirerapids, NULL, NULL);
  if (strcmp(name, "core-duo") == 0)
    return cmocka_run_group_tests(core_duo, NULL, NULL);
  return cmocka_run_group_tests(skylake, NULL, NULL);
}

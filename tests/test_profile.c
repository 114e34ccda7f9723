/* SPDX-License-Identifier: MIT */
/* CPU profiles: the presets, CPUID as they enumerate it, custom profiles,
 * the validation rules and the key=value round trip. */
#include "helpers.h"

/* Parse that must succeed. */
static spmu_profile parse_ok(const char *spec)
{
  spmu_profile p;
  char why[256] = "";

  memset(&p, 0, sizeof p);
  if (spmu_profile_parse(spec, &p, why, sizeof why) != SPMU_OK)
    fail_msg("profile '%s': %s", spec, why);
  return p;
}

/* Parse that must fail with rc and a reason that mentions `word`. */
static void parse_fails(const char *spec, int rc, const char *word)
{
  spmu_profile p;
  char why[256] = "";

  memset(&p, 0, sizeof p);
  assert_int_equal(spmu_profile_parse(spec, &p, why, sizeof why), rc);
  if (strstr(why, word) == NULL)
    fail_msg("profile '%s': reason '%s' does not mention '%s'", spec, why,
             word);
}

/* Bits h..l of v. */
static uint32_t bits(uint32_t v, unsigned h, unsigned l)
{
  return (uint32_t)((v >> l) & ((UINT64_C(1) << (h - l + 1)) - 1));
}

/* ---- presets --------------------------------------------------------- */

/* API contract (profile.h): every preset the library lists parses by name
 * and passes spmu_profile_validate, and carries its own name. */
static void test_every_preset_parses_and_validates(void **state)
{
  const char *name;

  (void)state;
  assert_non_null(spmu_profile_preset_name(0));
  FOR_EACH_PRESET(name) {
    spmu_profile p = parse_ok(name);
    char why[256] = "";

    if (spmu_profile_validate(&p, why, sizeof why) != SPMU_OK)
      fail_msg("preset %s: %s", name, why);
    assert_string_equal(p.name, name);
  }
}

/* profile.h, spmu_profile_signature: each preset states the CPUID.01H:EAX
 * of the part it models (SDM Vol. 2A CPUID "Version Information"; SDM
 * Vol. 4 Table 2-1 for the family 06H DisplayModels); a custom profile
 * states none. */
static void test_presets_state_their_signature(void **state)
{
  static const struct {
    const char *name;
    uint32_t eax;
  } want[] = {
      {"core-duo", 0x6E8},  {"core2", 0x6F6},
      {"nehalem", 0x106A5}, {"sandybridge", 0x206A7},
      {"haswell", 0x306C3}, {"skylake", 0x506E3},
      {"icelake", 0x706E5}, {"sapphirerapids", 0x806F8},
      {"pentium4", 0xF29},  {"pentium4-noht", 0xF29},
  };
  spmu_profile p;
  char why[256];
  size_t i;

  (void)state;
  for (i = 0; i < sizeof want / sizeof want[0]; i++) {
    assert_int_equal(spmu_profile_parse(want[i].name, &p, why, sizeof why),
                     SPMU_OK);
    assert_int_equal(spmu_profile_signature(&p), want[i].eax);
  }
  assert_int_equal(spmu_profile_parse("base=skylake,gp=8", &p, why, sizeof why),
                   SPMU_OK);
  assert_int_equal(spmu_profile_signature(&p), 0);
  assert_int_equal(spmu_profile_signature(NULL), 0);
}

/* profile.h, spmu_profile_event_table: each architectural preset names
 * libpfm4's table of its generation; a custom profile names none, whatever
 * its base, and NetBurst's table is not named. */
static void test_presets_name_their_event_table(void **state)
{
  static const struct {
    const char *preset, *table;
  } want[] = {
      {"core-duo", "coreduo"}, {"core2", "core"},         {"nehalem", "nhm"},
      {"sandybridge", "snb"},  {"haswell", "hsw"},        {"skylake", "skl"},
      {"icelake", "icl"},      {"sapphirerapids", "spr"},
  };
  spmu_profile p;
  size_t i;

  (void)state;
  for (i = 0; i < sizeof want / sizeof want[0]; i++) {
    p = parse_ok(want[i].preset);
    assert_string_equal(spmu_profile_event_table(&p), want[i].table);
  }
  p = parse_ok("base=skylake,gp=8");
  assert_null(spmu_profile_event_table(&p));
  p = parse_ok("pentium4");
  assert_null(spmu_profile_event_table(&p));
  assert_null(spmu_profile_event_table(NULL));
}

/* SDM 18.2 / 18.2.1-18.2.4 and Vol. 2A Table 3-8 (CPUID.0AH): each generation's
 * perfmon version, GP counters per thread and their width, fixed counters
 * and their width, and the SMT width of the core. */
static void test_presets_match_sdm_generations(void **state)
{
  static const struct {
    const char *name;
    unsigned version, gp, gp_width;
    uint32_t fixed_mask;
    unsigned fixed_width, threads;
  } want[] = {
      {"core-duo", 1, 2, 40, 0x0, 0, 1},
      {"core2", 2, 2, 40, 0x7, 40, 1},
      {"nehalem", 3, 4, 48, 0x7, 48, 2},
      {"sandybridge", 3, 4, 48, 0x7, 48, 2},
      {"haswell", 3, 4, 48, 0x7, 48, 2},
      {"skylake", 4, 4, 48, 0x7, 48, 2},
      {"icelake", 5, 8, 48, 0xF, 48, 2},
      {"sapphirerapids", 5, 8, 48, 0xF, 48, 2},
  };
  size_t i;

  (void)state;
  for (i = 0; i < sizeof want / sizeof want[0]; i++) {
    const char *name;
    bool listed = false;
    spmu_profile p = parse_ok(want[i].name);

    FOR_EACH_PRESET(name) {
      if (strcmp(name, want[i].name) == 0)
        listed = true;
    }
    assert_true(listed);
    assert_string_equal(p.name, want[i].name);
    assert_int_equal(p.version, want[i].version);
    assert_int_equal(p.gp, want[i].gp);
    assert_int_equal(p.gp_width, want[i].gp_width);
    assert_int_equal(p.fixed_mask, want[i].fixed_mask);
    assert_int_equal(p.fixed_width, want[i].fixed_width);
    assert_int_equal(p.threads, want[i].threads);
  }
}

/* Every profile's CPUID.0AH decodes back to its own counts, decoding per
 * SDM Vol. 2A Table 3-8 (leaf 0AH): EAX[7:0] version, [15:8] GP
 * counters, [23:16] their width, [31:24] EBX length; EBX the unavailable
 * events; EDX[4:0] contiguous fixed counters, EDX[12:5] their width; ECX the
 * fixed-counter bitmap from v5 (0 before); FxCtr[i] is supported iff
 * ECX[i] || EDX[4:0] > i. */
static void test_cpuid_0a_decodes_back_to_profile(void **state)
{
  const char *name;

  (void)state;
  FOR_EACH_PRESET(name) {
    spmu_profile p = parse_ok(name);
    uint32_t r[4] = {0xdead, 0xdead, 0xdead, 0xdead};
    uint32_t eax, ebx, ecx, edx, fixed = 0;
    unsigned i;

    assert_int_equal(spmu_profile_cpuid(&p, 0xA, 0, r), SPMU_OK);
    eax = r[0];
    ebx = r[1];
    ecx = r[2];
    edx = r[3];
    assert_int_equal(bits(eax, 7, 0), p.version);
    assert_int_equal(bits(eax, 15, 8), p.gp);
    assert_int_equal(bits(eax, 23, 16), p.gp_width);
    assert_int_equal(bits(eax, 31, 24), p.events_len);
    assert_int_equal(ebx, p.events_unavailable);
    if (p.version < 5)
      assert_int_equal(ecx, 0);
    for (i = 0; i < 32; i++)
      if (bits(ecx, i, i) || bits(edx, 4, 0) > i)
        fixed |= UINT32_C(1) << i;
    assert_int_equal(fixed, p.fixed_mask);
    assert_int_equal(bits(edx, 12, 5), p.fixed_mask ? p.fixed_width : 0);
    assert_int_equal(bits(edx, 15, 15),
                     (p.features & SPMU_FEAT_ANY_DEPRECATED) != 0);
  }
}

/* SDM 18.2.1.1 / Vol. 2A CPUID leaf 0AH: the same decoding on custom
 * profiles, including a v5 fixed-counter bitmap with a hole (counters 0 and
 * 2: ECX = 0x5, EDX[4:0] = 1). */
static void test_cpuid_0a_custom_profiles(void **state)
{
  spmu_profile p;
  uint32_t r[4];

  (void)state;
  p = parse_ok("version=2,gp=2,gp_width=40,fixed=3,fixed_width=40");
  assert_int_equal(spmu_profile_cpuid(&p, 0xA, 0, r), SPMU_OK);
  assert_int_equal(r[0], 0x07280202u);
  assert_int_equal(r[1], 0);
  assert_int_equal(r[2], 0);
  assert_int_equal(r[3], (40u << 5) | 3u);

  p = parse_ok("version=5,gp=8,fixed_mask=0x5,unavailable=0x4");
  assert_int_equal(spmu_profile_cpuid(&p, 0xA, 0, r), SPMU_OK);
  assert_int_equal(r[0], 0x07300805u);
  assert_int_equal(r[1], 0x4);
  assert_int_equal(r[2], 0x5);
  assert_int_equal(r[3], (48u << 5) | 1u);
}

/* SDM Vol. 2A CPUID leaf 01H (Tables 3-10, 3-11): ECX[2] DTES64, ECX[4]
 * DS-CPL, ECX[15] PDCM, EDX[21] DS, each as the profile's features say;
 * nothing else is set. */
static void test_cpuid_01_pmu_bits_per_features(void **state)
{
  const char *name;

  (void)state;
  FOR_EACH_PRESET(name) {
    spmu_profile p = parse_ok(name);
    uint32_t r[4] = {0xdead, 0xdead, 0xdead, 0xdead};
    uint32_t ecx = 0, edx = 0;

    if (p.features & SPMU_FEAT_DTES64)
      ecx |= 1u << 2;
    if (p.features & SPMU_FEAT_DS_CPL)
      ecx |= 1u << 4;
    if (p.features & SPMU_FEAT_PDCM)
      ecx |= 1u << 15;
    if (p.features & SPMU_FEAT_DS)
      edx |= 1u << 21;
    assert_int_equal(spmu_profile_cpuid(&p, 0x1, 0, r), SPMU_OK);
    assert_int_equal(r[0], 0);
    assert_int_equal(r[1], 0);
    assert_int_equal(r[2], ecx);
    assert_int_equal(r[3], edx);
  }
  /* Core Duo: DS without DTES64, DS-CPL or PDCM; Skylake: all four. */
  {
    spmu_profile p = parse_ok("core-duo");
    uint32_t r[4];
    assert_int_equal(spmu_profile_cpuid(&p, 0x1, 0, r), SPMU_OK);
    assert_int_equal(r[2], 0);
    assert_int_equal(r[3], 1u << 21);
    p = parse_ok("skylake");
    assert_int_equal(spmu_profile_cpuid(&p, 0x1, 0, r), SPMU_OK);
    assert_int_equal(r[2], (1u << 2) | (1u << 4) | (1u << 15));
    assert_int_equal(r[3], 1u << 21);
  }
}

/* API contract (profile.h): the owned masks are exactly the bits softpmu
 * defines: leaf 01H ECX[2,4,15] and EDX[21], all of leaf 0AH. */
static void test_cpuid_owned_masks(void **state)
{
  uint32_t o[4];

  (void)state;
  assert_int_equal(spmu_cpuid_owned(0x1, o), SPMU_OK);
  assert_int_equal(o[0], 0);
  assert_int_equal(o[1], 0);
  assert_int_equal(o[2], (1u << 2) | (1u << 4) | (1u << 15));
  assert_int_equal(o[3], 1u << 21);
  assert_int_equal(spmu_cpuid_owned(0xA, o), SPMU_OK);
  assert_int_equal(o[0], 0xffffffffu);
  assert_int_equal(o[1], 0xffffffffu);
  assert_int_equal(o[2], 0xffffffffu);
  assert_int_equal(o[3], 0xffffffffu);
  /* Leaf 07H: only EDX[19] Arch LBR; leaf 1CH: all of it. */
  assert_int_equal(spmu_cpuid_owned(0x7, o), SPMU_OK);
  assert_int_equal(o[0], 0);
  assert_int_equal(o[1], 0);
  assert_int_equal(o[2], 0);
  assert_int_equal(o[3], 1u << 19);
  assert_int_equal(spmu_cpuid_owned(0x1C, o), SPMU_OK);
  assert_int_equal(o[0], 0xffffffffu);
  assert_int_equal(o[3], 0xffffffffu);
  assert_int_equal(spmu_cpuid_owned(0x6, o), SPMU_ENOENT);
  assert_int_equal(spmu_cpuid_owned(0x23, o), SPMU_ENOENT);
}

/* API contract (profile.h): leaves other than 00H, 01H, 04H, 07H, 0AH,
 * 0DH and 1CH are not the profile's: SPMU_ENOENT, for the profile and for
 * a logical processor. */
static void test_cpuid_other_leaves_enoent(void **state)
{
  spmu_profile p = parse_ok("skylake");
  spmu_core *c = core_for("skylake");
  uint32_t r[4];

  (void)state;
  assert_int_equal(spmu_profile_cpuid(&p, 0x6, 0, r), SPMU_ENOENT);
  assert_int_equal(spmu_profile_cpuid(&p, 0x2, 0, r), SPMU_ENOENT);
  assert_int_equal(spmu_cpuid(spmu_core_lp(c, 1), 0x6, 0, r), SPMU_ENOENT);
  spmu_core_free(c);
}

/* Leaf 00H EAX, the maximum basic leaf (SDM Vol. 2A CPUID: a leaf above it
 * answers as the maximum does), reaches every leaf the profile
 * enumerates: 1CH with architectural LBRs (Sapphire Rapids, CPUID.07H:
 * EDX[19]), 0AH with a perfmon version (SDM 18.2.1), 04H with only a
 * part's caches, 01H for NetBurst (SDM 18.15: no leaf 0AH). EBX/ECX/EDX
 * (the vendor) are not the profile's; no bit of it is owned. */
static void test_cpuid_leaf0_max_leaf(void **state)
{
  static const struct {
    const char *spec;
    uint32_t max;
  } want[] = {{"sapphirerapids", 0x1C}, {"icelake", 0xA},  {"skylake", 0xA},
              {"core2", 0xA},           {"core-duo", 0xA}, {"pentium4", 0x1},
              {"version=0", 0x1}};
  spmu_core *c = core_for("sapphirerapids");
  uint32_t r[4], o[4];
  size_t i;

  (void)state;
  for (i = 0; i < sizeof want / sizeof want[0]; i++) {
    spmu_profile p = parse_ok(want[i].spec);
    memset(r, 0xee, sizeof r);
    assert_int_equal(spmu_profile_cpuid(&p, 0x0, 0, r), SPMU_OK);
    assert_int_equal(r[0], want[i].max);
    assert_int_equal(r[1], 0);
    assert_int_equal(r[2], 0);
    assert_int_equal(r[3], 0);
  }
  assert_int_equal(spmu_cpuid(spmu_core_lp(c, 0), 0x0, 0, r), SPMU_OK);
  assert_int_equal(r[0], 0x1C);
  /* the leaf it reaches is enumerated: 1CH's depth bitmap is not zero */
  assert_int_equal(spmu_cpuid(spmu_core_lp(c, 0), 0x1C, 0, r), SPMU_OK);
  assert_int_not_equal(r[0] & 0xff, 0);
  assert_int_equal(spmu_cpuid_owned(0x0, o), SPMU_ENOENT);
  spmu_core_free(c);
}

/* SDM 18.2.1.1: version ID 0 means no architectural performance
 * monitoring: all of leaf 0AH reads 0. */
static void test_version0_leaf_0a_all_zero(void **state)
{
  spmu_profile p = parse_ok("version=0");
  uint32_t r[4] = {0xdead, 0xdead, 0xdead, 0xdead};

  (void)state;
  assert_int_equal(p.version, 0);
  assert_int_equal(p.gp, 0);
  assert_int_equal(p.fixed_mask, 0);
  assert_int_equal(spmu_profile_cpuid(&p, 0xA, 0, r), SPMU_OK);
  assert_int_equal(r[0], 0);
  assert_int_equal(r[1], 0);
  assert_int_equal(r[2], 0);
  assert_int_equal(r[3], 0);
}

/* ---- custom profiles ------------------------------------------------- */

/* API contract (profile.h): base=NAME starts from a preset, later keys
 * change it, and the result is named "custom". */
static void test_custom_from_base(void **state)
{
  spmu_profile sk = parse_ok("skylake");
  spmu_profile p = parse_ok("base=skylake,gp=8,threads=1");

  (void)state;
  assert_string_equal(p.name, "custom");
  assert_int_equal(p.gp, 8);
  assert_int_equal(p.threads, 1);
  assert_int_equal(p.version, sk.version);
  assert_int_equal(p.gp_width, sk.gp_width);
  assert_int_equal(p.events_len, sk.events_len);
  assert_int_equal(p.events_unavailable, sk.events_unavailable);
  assert_int_equal(p.fixed_mask, sk.fixed_mask);
  assert_int_equal(p.fixed_width, sk.fixed_width);
  assert_int_equal(p.features, sk.features);
  assert_int_equal(p.perf_capabilities, sk.perf_capabilities);

  /* Space as a separator works as well as a comma. */
  p = parse_ok("base=skylake gp=8 threads=1");
  assert_int_equal(p.gp, 8);
  assert_int_equal(p.threads, 1);
}

/* API contract (profile.h): a profile built from keys alone (a Core 2-like
 * v2 PMU: 2 GP counters, 3 fixed, all 40 bits). */
static void test_custom_from_keys(void **state)
{
  spmu_profile p =
      parse_ok("version=2,gp=2,gp_width=40,fixed=3,fixed_width=40");

  (void)state;
  assert_string_equal(p.name, "custom");
  assert_int_equal(p.version, 2);
  assert_int_equal(p.gp, 2);
  assert_int_equal(p.gp_width, 40);
  assert_int_equal(p.fixed_mask, 0x7);
  assert_int_equal(p.fixed_width, 40);
  assert_int_equal(p.threads, 1);
}

/* API contract (profile.h): preset names and their aliases are
 * case-insensitive; an alias gives the preset itself. */
static void test_preset_aliases_case_insensitive(void **state)
{
  spmu_profile sk = parse_ok("skylake");
  spmu_profile snb = parse_ok("sandybridge");
  spmu_profile p;

  (void)state;
  p = parse_ok("SKL");
  assert_memory_equal(&p, &sk, sizeof p);
  p = parse_ok("skl");
  assert_memory_equal(&p, &sk, sizeof p);
  p = parse_ok("SkyLake");
  assert_memory_equal(&p, &sk, sizeof p);
  p = parse_ok("snb");
  assert_memory_equal(&p, &snb, sizeof p);
  p = parse_ok("SNB");
  assert_memory_equal(&p, &snb, sizeof p);
  p = parse_ok("base=SKL,gp=2");
  assert_int_equal(p.gp, 2);
  assert_int_equal(p.version, 4);
}

/* ---- impossible profiles (SPMU_EPROFILE) ----------------------------- */

/* SDM 18.2.2 / 18.2.4: versions 2-4 define three fixed counters
 * (GLOBAL_STATUS bits 32-34); nine need the v5 bitmap. */
static void test_reject_nine_fixed_on_v2(void **state)
{
  (void)state;
  parse_fails("version=2,gp=2,fixed=9", SPMU_EPROFILE, "fixed");
  parse_fails("version=4,gp=4,fixed=4", SPMU_EPROFILE, "fixed");
}

/* SDM 18.2.1.1: CPUID.0AH:EAX[23:16] is a counter width; a 64-bit MSR holds
 * at most 64 bits. */
static void test_reject_gp_width_65(void **state)
{
  (void)state;
  parse_fails("version=4,gp=4,gp_width=65", SPMU_EPROFILE, "gp_width");
}

/* SDM Vol. 4 Table 2-2: IA32_PMC0-7 / IA32_PERFEVTSEL0-7 hold at most 8 GP
 * counters. */
static void test_reject_nine_gp(void **state)
{
  (void)state;
  parse_fails("version=4,gp=9", SPMU_EPROFILE, "gp=9");
}

/* CPUID.0AH:EAX[7:0] (Vol. 2A Table 3-8): perfmon versions 1-5 are
 * modelled (0 = none). */
static void test_reject_version_6(void **state)
{
  (void)state;
  parse_fails("version=6,gp=4", SPMU_EPROFILE, "version");
}

/* SDM 18.2.2 / CPUID.0AH:EDX[4:0] "(version > 1)": version 1 has no fixed
 * counters. */
static void test_reject_fixed_on_v1(void **state)
{
  (void)state;
  parse_fails("version=1,gp=2,fixed=3", SPMU_EPROFILE, "fixed");
}

/* Vol. 2A Table 3-8: before v5 CPUID.0AH enumerates fixed counters only as a
 * count (EDX[4:0], ECX reserved), so they are 0..n-1; a hole (0x5) needs
 * the v5 ECX bitmap. */
static void test_fixed_mask_hole_needs_v5(void **state)
{
  spmu_profile p;

  (void)state;
  parse_fails("version=4,gp=4,fixed_mask=0x5", SPMU_EPROFILE, "fixed_mask");
  p = parse_ok("version=5,gp=8,fixed_mask=0x5");
  assert_int_equal(p.version, 5);
  assert_int_equal(p.fixed_mask, 0x5);
}

/* Vol. 4 Table 2-2 (IA32_PERF_CAPABILITIES[11:8]): PEBS record formats 0-4
 * are modelled; format 5 is rejected. */
static void test_reject_pebs_format_5(void **state)
{
  (void)state;
  parse_fails("base=skylake,perf_capabilities=0x500", SPMU_EPROFILE, "format");
}

/* Vol. 4 Table 2-2 (MSR_PERF_METRICS): the metrics are fractions of
 * TOPDOWN.SLOTS, fixed counter 3; PERF_CAPABILITIES[15] without it is
 * impossible. */
static void test_reject_perf_metrics_without_fixed3(void **state)
{
  (void)state;
  parse_fails("base=icelake,fixed=3", SPMU_EPROFILE, "PERF_METRICS");
  parse_fails("base=skylake,perf_capabilities=0x8000", SPMU_EPROFILE,
              "PERF_METRICS");
}

/* API contract (pmu.h): a core has 1 to SPMU_MAX_THREADS logical
 * processors. */
static void test_reject_zero_threads(void **state)
{
  (void)state;
  parse_fails("base=skylake,threads=0", SPMU_EPROFILE, "threads");
  parse_fails("base=skylake,threads=9", SPMU_EPROFILE, "threads");
}

/* SDM 18.2.1.1: EBX bit i is meaningful only for i < EAX[31:24]; an
 * "unavailable" bit at or past the length is reserved. */
static void test_reject_unavailable_beyond_events(void **state)
{
  (void)state;
  parse_fails("base=skylake,unavailable=0x80", SPMU_EPROFILE, "unavailable");
}

/* Vol. 2A Table 3-8: CPUID.0AH:EDX[15] (AnyThread deprecation) is defined from
 * version 5. */
static void test_reject_any_deprecated_on_v4(void **state)
{
  (void)state;
  parse_fails("base=skylake,any_deprecated=1", SPMU_EPROFILE, "any_deprecated");
}

/* API contract (profile.h): spmu_profile_validate applies the same rules
 * to a struct built in C. */
static void test_validate_struct(void **state)
{
  spmu_profile p = parse_ok("skylake");
  char why[256] = "";

  (void)state;
  assert_int_equal(spmu_profile_validate(&p, why, sizeof why), SPMU_OK);
  p.gp_width = 65;
  assert_int_equal(spmu_profile_validate(&p, why, sizeof why), SPMU_EPROFILE);
  assert_non_null(strstr(why, "gp_width"));
  p = parse_ok("skylake");
  p.fixed_mask = 0x5;
  assert_int_equal(spmu_profile_validate(&p, why, sizeof why), SPMU_EPROFILE);
  assert_non_null(strstr(why, "fixed_mask"));
  /* A NULL reason buffer is allowed. */
  assert_int_equal(spmu_profile_validate(&p, NULL, 0), SPMU_EPROFILE);
}

/* ---- malformed strings (SPMU_EINVAL) --------------------------------- */

/* API contract (profile.h): a malformed string is SPMU_EINVAL with a
 * reason that names the offending part. */
static void test_malformed_strings_einval(void **state)
{
  (void)state;
  parse_fails("gp=abc", SPMU_EINVAL, "gp=abc");
  parse_fails("bogus=1", SPMU_EINVAL, "bogus");
  parse_fails("=3", SPMU_EINVAL, "=3");
  parse_fails("gp=-1", SPMU_EINVAL, "gp=-1");
  parse_fails("version=2,base=skylake", SPMU_EINVAL, "base");
  parse_fails("version=2,gp", SPMU_EINVAL, "gp");
  parse_fails("gp=", SPMU_EINVAL, "gp");
  parse_fails("gp=256", SPMU_EINVAL, "gp=256");
  parse_fails("", SPMU_EINVAL, "empty");
  parse_fails("skylake,gp=2", SPMU_EINVAL, "base=");
  /* An empty name would not read back from spmu_profile_format (fuzz
   * finding, fuzz/regressions/profile/empty-name). */
  parse_fails("version=2,name=", SPMU_EINVAL, "name=");
}

/* API contract (profile.h): an unknown preset is SPMU_ENOENT, and the
 * reason lists every known preset. */
static void test_unknown_preset_lists_known(void **state)
{
  const char *specs[] = {"pentium9", "base=pentium9,gp=2"};
  size_t i;

  (void)state;
  for (i = 0; i < sizeof specs / sizeof specs[0]; i++) {
    spmu_profile p;
    char why[512] = "";
    const char *name;

    assert_int_equal(spmu_profile_parse(specs[i], &p, why, sizeof why),
                     SPMU_ENOENT);
    assert_non_null(strstr(why, "pentium9"));
    FOR_EACH_PRESET(name) {
      if (strstr(why, name) == NULL)
        fail_msg("'%s' does not list preset %s", why, name);
    }
  }
}

/* ---- format / parse round trip --------------------------------------- */

/* Format p, parse the text back, and compare the two structs byte for
 * byte. */
static void check_round_trip(const spmu_profile *p)
{
  char text[1024];
  spmu_profile back;
  int n = spmu_profile_format(p, text, sizeof text);
  char why[256] = "";

  assert_int_equal(n, (int)strlen(text));
  memset(&back, 0, sizeof back);
  if (spmu_profile_parse(text, &back, why, sizeof why) != SPMU_OK)
    fail_msg("'%s' does not parse: %s", text, why);
  assert_memory_equal(&back, p, sizeof back);
}

/* API contract (profile.h): spmu_profile_format writes a string that
 * spmu_profile_parse reads back to an identical profile, for every preset
 * and for custom profiles. */
static void test_format_parse_round_trip(void **state)
{
  const char *customs[] = {
      "base=skylake,gp=8,threads=1",
      "version=2,gp=2,gp_width=40,fixed=3,fixed_width=40",
      "version=5,gp=8,fixed_mask=0x5,unavailable=0x4,name=odd.one",
      "version=0",
  };
  const char *name;
  size_t i;

  (void)state;
  FOR_EACH_PRESET(name) {
    spmu_profile p = parse_ok(name);
    check_round_trip(&p);
  }
  for (i = 0; i < sizeof customs / sizeof customs[0]; i++) {
    spmu_profile p = parse_ok(customs[i]);
    check_round_trip(&p);
  }
}

/* API contract (profile.h): a buffer too small gives SPMU_ENOSPC and a
 * NUL-terminated prefix; the exact size (length + 1) is enough. */
static void test_format_small_buffer_enospc(void **state)
{
  spmu_profile p = parse_ok("sapphirerapids");
  char full[1024], small[16];
  int n = spmu_profile_format(&p, full, sizeof full);

  (void)state;
  assert_int_equal(n, (int)strlen(full));
  assert_int_equal(spmu_profile_format(&p, small, sizeof small), SPMU_ENOSPC);
  assert_int_equal(strlen(small), sizeof small - 1);
  assert_memory_equal(small, full, sizeof small - 1);
  assert_int_equal(spmu_profile_format(&p, full, (size_t)n), SPMU_ENOSPC);
  assert_int_equal(spmu_profile_format(&p, full, (size_t)n + 1), n);
  assert_int_equal(spmu_profile_format(&p, NULL, 0), SPMU_ENOSPC);
}

/* ---- fixed counters: EDX[4:0] and ECX stated apart ------------------- */

/* The presets enumerate their fixed counters exactly as before the keys
 * fixed_contig/fixed_ecx existed (SDM Vol. 2A Table 3-8, leaf 0AH): ECX
 * and EDX per preset, written out, and neither key stated. */
static void test_presets_fixed_leaf_values_unchanged(void **state)
{
  static const struct {
    const char *name;
    uint32_t ecx, edx;
  } want[] = {
      {"core-duo", 0, 0},    /* v1: no fixed counters */
      {"core2", 0, 0x503},   /* 3 of 40 bits */
      {"nehalem", 0, 0x603}, /* 3 of 48 bits */
      {"sandybridge", 0, 0x603},
      {"haswell", 0, 0x603},
      {"skylake", 0, 0x603},
      {"icelake", 0xF, 0x8604}, /* v5: bitmap 0-3, EDX[15] */
      {"sapphirerapids", 0xF, 0x8604},
      {"pentium4", 0, 0}, /* no architectural perfmon */
      {"pentium4-noht", 0, 0},
  };
  size_t i;

  (void)state;
  for (i = 0; i < sizeof want / sizeof want[0]; i++) {
    spmu_profile p = parse_ok(want[i].name);
    uint32_t r[4];
    assert_int_equal(spmu_profile_cpuid(&p, 0xA, 0, r), SPMU_OK);
    assert_int_equal(r[2], want[i].ecx);
    assert_int_equal(r[3], want[i].edx);
    assert_int_equal(p.fixed_contig, 0);
    assert_int_equal(p.fixed_ecx, 0);
    assert_false(spmu_profile_fixed_stated(&p));
  }
}

/* SDM Vol. 2A Table 3-8, leaf 0AH: a profile that states EDX[4:0] and ECX
 * gets them bit for bit; the counters present are the union
 * (FxCtr[i]_supported := ECX[i] || EDX[4:0] > i). */
static void test_fixed_contig_and_ecx_stated_bit_for_bit(void **state)
{
  static const struct {
    const char *spec;
    uint32_t mask, ecx, edx;
  } want[] = {
      /* v5 with the bitmap left 0: counters 0-2 from EDX alone. */
      {"version=5,gp=8,fixed_contig=3,fixed_ecx=0", 0x7, 0x0, 0x603},
      /* Counters 0 and 2: one contiguous, the bitmap names both. */
      {"version=5,gp=8,fixed_contig=1,fixed_ecx=0x5", 0x5, 0x5, 0x601},
      /* Counters 0-2 contiguous, 3 only in the bitmap. */
      {"version=5,gp=8,fixed_contig=3,fixed_ecx=0x8", 0xF, 0x8, 0x603},
      /* Ice Lake's counters with ECX = 0: EDX[15] stays. */
      {"base=icelake,fixed_contig=4,fixed_ecx=0", 0xF, 0x0, 0x8604},
      /* Before v5 only EDX[4:0]: the same leaf as skylake's. */
      {"base=skylake,fixed_contig=3", 0x7, 0x0, 0x603},
  };
  size_t i;

  (void)state;
  for (i = 0; i < sizeof want / sizeof want[0]; i++) {
    spmu_profile p = parse_ok(want[i].spec);
    uint32_t r[4];
    assert_int_equal(p.fixed_mask, want[i].mask);
    assert_true(spmu_profile_fixed_stated(&p));
    assert_int_equal(spmu_profile_cpuid(&p, 0xA, 0, r), SPMU_OK);
    assert_int_equal(r[2], want[i].ecx);
    assert_int_equal(r[3], want[i].edx);
  }
}

/* profile.h: the stated keys are written by spmu_profile_format (after
 * fixed_mask and the rest) and read back to the same profile. */
static void test_fixed_contig_ecx_format_round_trip(void **state)
{
  spmu_profile p = parse_ok("version=5,gp=8,fixed_contig=3,fixed_ecx=0,"
                            "name=vm");
  char text[1024];

  (void)state;
  assert_true(spmu_profile_format(&p, text, sizeof text) > 0);
  assert_string_equal(
      text, "name=vm,version=5,gp=8,gp_width=48,events=7,unavailable=0x0,"
            "fixed_mask=0x7,fixed_width=48,threads=1,perf_capabilities=0x0,"
            "fixed_contig=3,fixed_ecx=0x0,pdcm=0,ds=0,dtes64=0,ds_cpl=0,"
            "bts=0,pebs=0,rtm=0,pt=0,sgx=0,uncore_pmi=0,precise_store=0,"
            "any_deprecated=0");
  check_round_trip(&p);
}

/* SDM Vol. 2A Table 3-8, leaf 0AH: ECX is reserved before version 5,
 * EDX[4:0] has five bits, and fixed_mask given beside them must be their
 * union. */
static void test_reject_fixed_contig_ecx_inconsistent(void **state)
{
  (void)state;
  parse_fails("version=4,gp=4,fixed_contig=3,fixed_ecx=0x8", SPMU_EPROFILE,
              "CPUID.0AH:ECX enumerates fixed counters from version 5");
  parse_fails("version=5,gp=4,fixed_contig=40", SPMU_EPROFILE,
              "fixed_contig=40: CPUID.0AH:EDX[4:0] has five bits");
  parse_fails("version=5,gp=4,fixed_mask=0x7,fixed_contig=2,fixed_ecx=0",
              SPMU_EPROFILE,
              "fixed_mask=0x7 is not the union 0x3 of fixed_contig=2");
}

/* profile.h, Growth: reserved_ must be zero. */
static void test_reject_reserved_nonzero(void **state)
{
  spmu_profile p = parse_ok("skylake");
  char why[256] = "";

  (void)state;
  p.reserved_[3] = 1;
  assert_int_equal(spmu_profile_validate(&p, why, sizeof why), SPMU_EPROFILE);
  assert_string_equal(why,
                      "reserved_[3] is not zero (members of a newer release?)");
}

/* ---- a profile from CPUID -------------------------------------------- */

/* The features CPUID leaves 01H and 0AH enumerate (profile.h). */
#define CPUID_FEATURES                                                         \
  (SPMU_FEAT_PDCM | SPMU_FEAT_DS | SPMU_FEAT_DTES64 | SPMU_FEAT_DS_CPL |       \
   SPMU_FEAT_ANY_DEPRECATED)

/* The PMU fields of a and b are the same: what leaves 0AH and 01H and
 * IA32_PERF_CAPABILITIES carry. */
static void same_pmu_fields(const spmu_profile *a, const spmu_profile *b)
{
  assert_int_equal(a->version, b->version);
  assert_int_equal(a->gp, b->gp);
  assert_int_equal(a->gp_width, b->gp_width);
  assert_int_equal(a->events_len, b->events_len);
  assert_int_equal(a->events_unavailable, b->events_unavailable);
  assert_int_equal(a->fixed_mask, b->fixed_mask);
  assert_int_equal(a->fixed_mask ? a->fixed_width : 0,
                   b->fixed_mask ? b->fixed_width : 0);
  assert_int_equal(a->fixed_contig, b->fixed_contig);
  assert_int_equal(a->fixed_ecx, b->fixed_ecx);
  assert_int_equal(a->features & CPUID_FEATURES, b->features & CPUID_FEATURES);
  assert_int_equal(a->perf_capabilities, b->perf_capabilities);
}

/* spmu_profile_from_cpuid is the inverse of spmu_profile_cpuid (SDM Vol.
 * 2A Table 3-8, leaf 0AH; Tables 3-10/3-11, leaf 01H): every preset, and
 * profiles that state EDX[4:0] and ECX apart, come back with the same PMU
 * fields, validated. (A stated pair that is the plain form of its set,
 * fixed_contig=1,fixed_ecx=0x5 say, comes back plain: the same leaf.) */
static void test_from_cpuid_round_trips_presets(void **state)
{
  static const char *const customs[] = {
      "version=5,gp=8,fixed_contig=3,fixed_ecx=0",
      "version=5,gp=8,fixed_contig=1,fixed_ecx=0x4",
      "version=5,gp=4,fixed_mask=0x5,unavailable=0x5",
      "version=2,gp=2,gp_width=40,fixed=3,fixed_width=40,events=5",
  };
  const char *name;
  size_t i;

  (void)state;
  FOR_EACH_PRESET(name) {
    spmu_profile p = parse_ok(name), back;
    uint32_t r0a[4], r01[4];
    char why[256] = "x";
    assert_int_equal(spmu_profile_cpuid(&p, 0xA, 0, r0a), SPMU_OK);
    assert_int_equal(spmu_profile_cpuid(&p, 0x1, 0, r01), SPMU_OK);
    assert_int_equal(spmu_profile_from_cpuid(r0a, r01, p.perf_capabilities,
                                             SPMU_CPUID_EXACT, &back, why,
                                             sizeof why),
                     SPMU_OK);
    assert_string_equal(why, "");
    same_pmu_fields(&p, &back);
    assert_string_equal(back.name, "cpuid");
    assert_int_equal(back.threads, 1);
  }
  for (i = 0; i < sizeof customs / sizeof customs[0]; i++) {
    spmu_profile p = parse_ok(customs[i]), back;
    uint32_t r0a[4], r01[4];
    assert_int_equal(spmu_profile_cpuid(&p, 0xA, 0, r0a), SPMU_OK);
    assert_int_equal(spmu_profile_cpuid(&p, 0x1, 0, r01), SPMU_OK);
    assert_int_equal(
        spmu_profile_from_cpuid(r0a, r01, 0, SPMU_CPUID_EXACT, &back, NULL, 0),
        SPMU_OK);
    same_pmu_fields(&p, &back);
  }
}

/* Leaves as real parts enumerate them, each field read per SDM Vol. 2A
 * Table 3-8 (leaf 0AH) and Tables 3-10/3-11 (leaf 01H):
 * - Core 2: EAX 07280202H = version 2, 2 GP counters of 40 (28H) bits,
 *   7 events; EDX 503H = 3 fixed counters of 40 bits.
 * - Nehalem with Hyper-Threading: EAX 07300403H = version 3, 4 GP of 48
 *   (30H) bits; EDX 603H = 3 fixed of 48 bits.
 * - Skylake: EAX 07300404H, EDX 603H; leaf 01H ECX 7FFAFBBFH (DTES64 bit 2,
 *   DS-CPL bit 4, PDCM bit 15 set) and EDX BFEBFBFFH (DS bit 21 set).
 * - Ice Lake: EAX 08300805H = version 5, 8 GP of 48 bits, 8 events; ECX
 *   FH = fixed counters 0-3; EDX 8604H = 4 contiguous of 48 bits and
 *   bit 15, AnyThread deprecated.
 * - A version 5 leaf with ECX = 0 and EDX[4:0] = 3: counters 0-2, stated
 *   apart because the plain form of that set has ECX = 7. */
static void test_from_cpuid_real_parts(void **state)
{
  /* One real part a line. */
  /* clang-format off */
  static const struct {
    uint32_t r0a[4], r01[4];
    uint64_t perfcap;
    uint8_t version, gp, gp_width, events_len, fixed_width, contig;
    uint32_t fixed_mask, ecx, features;
  } want[] = {
      {{0x07280202, 0, 0, 0x503}, {0, 0, 0, 0}, 0, 2, 2, 40, 7, 40, 0, 0x7, 0, 0},
      {{0x07300403, 0, 0, 0x603}, {0, 0, 0, 0}, 0, 3, 4, 48, 7, 48, 0, 0x7, 0, 0},
      {{0x07300404, 0, 0, 0x603}, {0x000506E3, 0, 0x7FFAFBBF, 0xBFEBFBFF}, 0x33C5, 4, 4, 48, 7, 48, 0, 0x7, 0, SPMU_FEAT_PDCM | SPMU_FEAT_DS | SPMU_FEAT_DTES64 | SPMU_FEAT_DS_CPL},
      {{0x08300805, 0, 0xF, 0x8604}, {0, 0, 0, 0}, 0, 5, 8, 48, 8, 48, 0, 0xF, 0, SPMU_FEAT_ANY_DEPRECATED},
      {{0x07300805, 0, 0, 0x603}, {0, 0, 0, 0}, 0, 5, 8, 48, 7, 48, 3, 0x7, 0, 0},
  };
  /* clang-format on */
  size_t i;

  (void)state;
  for (i = 0; i < sizeof want / sizeof want[0]; i++) {
    spmu_profile p;
    uint32_t again[4];
    char why[256];
    assert_int_equal(spmu_profile_from_cpuid(want[i].r0a, want[i].r01,
                                             want[i].perfcap, SPMU_CPUID_EXACT,
                                             &p, why, sizeof why),
                     SPMU_OK);
    assert_int_equal(p.version, want[i].version);
    assert_int_equal(p.gp, want[i].gp);
    assert_int_equal(p.gp_width, want[i].gp_width);
    assert_int_equal(p.events_len, want[i].events_len);
    assert_int_equal(p.events_unavailable, 0);
    assert_int_equal(p.fixed_width, want[i].fixed_width);
    assert_int_equal(p.fixed_mask, want[i].fixed_mask);
    assert_int_equal(p.fixed_contig, want[i].contig);
    assert_int_equal(p.fixed_ecx, want[i].ecx);
    assert_int_equal(p.features, want[i].features);
    assert_int_equal(p.perf_capabilities, want[i].perfcap);
    /* ... and the profile enumerates the same leaf 0AH, bit for bit. */
    assert_int_equal(spmu_profile_cpuid(&p, 0xA, 0, again), SPMU_OK);
    assert_memory_equal(again, want[i].r0a, sizeof again);
  }
}

/* SDM Vol. 2A Table 3-8: EBX bits at or past the vector length EAX[31:24]
 * are reserved and not taken; ECX is reserved before version 5 and
 * EDX[4:0] before version 2; IA32_PERF_CAPABILITIES is taken only with
 * PDCM, DTES64 and DS-CPL only with DS (leaf 01H). */
static void test_from_cpuid_reserved_bits_not_taken(void **state)
{
  const uint32_t v4[4] = {0x07300404, 0xFFFFFF84, 0xF, 0x603};
  const uint32_t v1[4] = {0x07280201, 0, 0, 0x603};
  const uint32_t no_ds[4] = {0, 0, (1u << 2) | (1u << 4), 0};
  spmu_profile p;

  (void)state;
  assert_int_equal(
      spmu_profile_from_cpuid(v4, no_ds, 0x33C5, SPMU_CPUID_EXACT, &p, NULL, 0),
      SPMU_OK);
  assert_int_equal(p.events_unavailable, 0x4);
  assert_int_equal(p.fixed_mask, 0x7);
  assert_int_equal(p.fixed_ecx, 0);
  assert_int_equal(p.features, 0);
  assert_int_equal(p.perf_capabilities, 0);
  assert_int_equal(
      spmu_profile_from_cpuid(v1, NULL, 0, SPMU_CPUID_EXACT, &p, NULL, 0),
      SPMU_OK);
  assert_int_equal(p.fixed_mask, 0);
  assert_int_equal(p.fixed_width, 0);
}

/* profile.h, spmu_cpuid_mode: a leaf past the model's limits (version 6,
 * ten GP counters; four fixed counters with AnyThread deprecated) is
 * SPMU_EPROFILE with the reason when exact, the nearest model with one
 * line per limit when clamped, and the fields as they are when decoded. */
static void test_from_cpuid_modes_past_the_limits(void **state)
{
  const uint32_t r[4] = {0x07300a06, 0, 0xf, 0x8604};
  spmu_profile p;
  char why[512];

  (void)state;
  assert_int_equal(spmu_profile_from_cpuid(r, NULL, 0, SPMU_CPUID_EXACT, &p,
                                           why, sizeof why),
                   SPMU_EPROFILE);
  assert_string_equal(why, "version=6: perfmon versions 1-5 are modelled "
                           "(0 = no PMU)");
  assert_int_equal(spmu_profile_from_cpuid(r, NULL, 0, SPMU_CPUID_CLAMP, &p,
                                           why, sizeof why),
                   SPMU_OK);
  assert_string_equal(why,
                      "perfmon version 6: softpmu models versions 1-5; the "
                      "MSRs are decoded as version 5\n"
                      "10 GP counters: the architectural MSR ranges hold 8; "
                      "IA32_PMC8 and up are left out");
  assert_int_equal(p.version, 5);
  assert_int_equal(p.gp, 8);
  assert_int_equal(p.fixed_mask, 0xF);
  assert_int_equal(spmu_profile_from_cpuid(r, NULL, 0, SPMU_CPUID_DECODE, &p,
                                           why, sizeof why),
                   SPMU_OK);
  assert_string_equal(why, "");
  assert_int_equal(p.version, 6);
  assert_int_equal(p.gp, 10);
  assert_int_equal(p.fixed_mask, 0xF);
  assert_int_equal(p.features, SPMU_FEAT_ANY_DEPRECATED);
}

/* SDM 18.2.1-18.2.5 limits applied by SPMU_CPUID_CLAMP: five contiguous
 * fixed counters on version 4 become three; PERF_CAPABILITIES bits above
 * 17, a PEBS format 5 and PERF_METRICS without fixed counter 3 are left
 * out. */
static void test_from_cpuid_clamp_fixed_and_capabilities(void **state)
{
  const uint32_t r[4] = {0x07300404, 0, 0, 0x605};
  const uint32_t pdcm[4] = {0, 0, 1u << 15, 0};
  spmu_profile p;
  char why[512];

  (void)state;
  assert_int_equal(
      spmu_profile_from_cpuid(r, pdcm, (UINT64_C(1) << 40) | 0x8500,
                              SPMU_CPUID_CLAMP, &p, why, sizeof why),
      SPMU_OK);
  assert_string_equal(why,
                      "5 fixed counters: perfmon versions 2-4 define three\n"
                      "IA32_PERF_CAPABILITIES 0x10000008500: bits above 17 "
                      "are not modelled and are left out of the profile\n"
                      "PEBS record format 5: decoded as format 3\n"
                      "PERF_METRICS without fixed counter 3: left out of the "
                      "profile");
  assert_int_equal(p.fixed_mask, 0x7);
  assert_int_equal(p.fixed_contig, 0);
  assert_int_equal(p.perf_capabilities, 0x300);
}

/* API contract (profile.h): no leaf, no profile or no such mode. */
static void test_from_cpuid_einval(void **state)
{
  const uint32_t r[4] = {0x07300404, 0, 0, 0x603};
  spmu_profile p;

  (void)state;
  assert_int_equal(
      spmu_profile_from_cpuid(NULL, NULL, 0, SPMU_CPUID_EXACT, &p, NULL, 0),
      SPMU_EINVAL);
  assert_int_equal(
      spmu_profile_from_cpuid(r, NULL, 0, SPMU_CPUID_EXACT, NULL, NULL, 0),
      SPMU_EINVAL);
  assert_int_equal(
      spmu_profile_from_cpuid(r, NULL, 0, (spmu_cpuid_mode)3, &p, NULL, 0),
      SPMU_EINVAL);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_preset_parses_and_validates),
      cmocka_unit_test(test_presets_match_sdm_generations),
      cmocka_unit_test(test_presets_name_their_event_table),
      cmocka_unit_test(test_presets_state_their_signature),
      cmocka_unit_test(test_cpuid_0a_decodes_back_to_profile),
      cmocka_unit_test(test_cpuid_0a_custom_profiles),
      cmocka_unit_test(test_cpuid_01_pmu_bits_per_features),
      cmocka_unit_test(test_cpuid_owned_masks),
      cmocka_unit_test(test_cpuid_other_leaves_enoent),
      cmocka_unit_test(test_cpuid_leaf0_max_leaf),
      cmocka_unit_test(test_version0_leaf_0a_all_zero),
      cmocka_unit_test(test_custom_from_base),
      cmocka_unit_test(test_custom_from_keys),
      cmocka_unit_test(test_preset_aliases_case_insensitive),
      cmocka_unit_test(test_reject_nine_fixed_on_v2),
      cmocka_unit_test(test_reject_gp_width_65),
      cmocka_unit_test(test_reject_nine_gp),
      cmocka_unit_test(test_reject_version_6),
      cmocka_unit_test(test_reject_fixed_on_v1),
      cmocka_unit_test(test_fixed_mask_hole_needs_v5),
      cmocka_unit_test(test_reject_pebs_format_5),
      cmocka_unit_test(test_reject_perf_metrics_without_fixed3),
      cmocka_unit_test(test_reject_zero_threads),
      cmocka_unit_test(test_reject_unavailable_beyond_events),
      cmocka_unit_test(test_reject_any_deprecated_on_v4),
      cmocka_unit_test(test_validate_struct),
      cmocka_unit_test(test_malformed_strings_einval),
      cmocka_unit_test(test_unknown_preset_lists_known),
      cmocka_unit_test(test_format_parse_round_trip),
      cmocka_unit_test(test_format_small_buffer_enospc),
      cmocka_unit_test(test_presets_fixed_leaf_values_unchanged),
      cmocka_unit_test(test_fixed_contig_and_ecx_stated_bit_for_bit),
      cmocka_unit_test(test_fixed_contig_ecx_format_round_trip),
      cmocka_unit_test(test_reject_fixed_contig_ecx_inconsistent),
      cmocka_unit_test(test_reject_reserved_nonzero),
      cmocka_unit_test(test_from_cpuid_round_trips_presets),
      cmocka_unit_test(test_from_cpuid_real_parts),
      cmocka_unit_test(test_from_cpuid_reserved_bits_not_taken),
      cmocka_unit_test(test_from_cpuid_modes_past_the_limits),
      cmocka_unit_test(test_from_cpuid_clamp_fixed_and_capabilities),
      cmocka_unit_test(test_from_cpuid_einval),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

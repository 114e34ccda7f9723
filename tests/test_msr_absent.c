/* SPDX-License-Identifier: MIT */
/* spmu_msr_absent_list: the catalogue's MSR addresses a profile lacks, which
 * a host raises #GP for (SDM Vol. 2B RDMSR, WRMSR: #GP(0) "If the value in
 * ECX specifies a reserved or unimplemented MSR address"). Each family's
 * MSRs are those of its table in SDM Vol. 4 Chapter 2. */
#include "helpers.h"

#include <stdlib.h>

#define CAP 2048

/* The LBR layouts of SDM Vol. 3B 17.5 (Core 2: 40H / 60H), 17.7 (Nehalem
 * and later: 680H / 6C0H, MSR_LASTBRANCH_TOS 1C9H), 17.12.1 (Skylake:
 * MSR_LBR_INFO_x at DC0H) and "Architectural Last Branch Records"
 * (IA32_LBR_CTL 14CEH, IA32_LBR_DEPTH 14CFH, IA32_LBR_x_INFO 1200H,
 * IA32_LBR_x_FROM_IP 1500H, IA32_LBR_x_TO_IP 1600H). */
#define LBR_CORE2_FROM 0x40u
#define LBR_CORE2_TO 0x60u
#define LBR_TOS 0x1C9u
#define LBR_NHM_FROM 0x680u
#define LBR_NHM_TO 0x6C0u
#define LBR_INFO 0xDC0u
#define ALBR_INFO 0x1200u
#define ALBR_CTL 0x14CEu
#define ALBR_DEPTH 0x14CFu
#define ALBR_FROM 0x1500u
#define ALBR_TO 0x1600u
#define NB_BPU_COUNTER0 0x300u /* NetBurst, SDM 18.15.2 */
#define NB_BSU_ESCR0 0x3A0u

static spmu_profile prof(const char *spec)
{
  spmu_profile p;
  assert_int_equal(spmu_profile_parse(spec, &p, NULL, 0), SPMU_OK);
  return p;
}

static int cmp_u32(const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

/* 1 if addr is in p's absent list, 0 if in its present list; fails if in
 * both or neither. */
static int absent(const char *spec, uint32_t addr)
{
  spmu_profile p = prof(spec);
  uint32_t a[CAP], m[CAP];
  size_t na = spmu_msr_absent_list(&p, a, CAP);
  size_t nm = spmu_msr_list(&p, m, CAP);
  bool in_a = bsearch(&addr, a, na, sizeof *a, cmp_u32) != NULL;
  bool in_m = bsearch(&addr, m, nm, sizeof *m, cmp_u32) != NULL;

  assert_true(na <= CAP && nm <= CAP);
  assert_true(in_a != in_m);
  return in_a;
}

/* RDMSR of addr on a core of profile spec: SPMU_OK or SPMU_GP. */
static int rdmsr_on(const char *spec, uint32_t addr)
{
  spmu_profile p = prof(spec);
  spmu_core *c;
  uint64_t v;
  int rc;

  assert_int_equal(spmu_core_new(&p, &c), SPMU_OK);
  rc = spmu_rdmsr(spmu_core_lp(c, 0), addr, &v);
  spmu_core_free(c);
  return rc;
}

/* Core 2 (Vol. 4 "MSRs in Processors Based on Intel Core
 * Microarchitecture"): its 4-entry stack at 40H-43H / 60H-63H and
 * MSR_LASTBRANCH_TOS; no 680H stack, no MSR_LBR_SELECT, no LBR_INFO. */
static void test_core2_lbrs_at_40h(void **state)
{
  (void)state;
  assert_int_equal(absent("core2", LBR_CORE2_FROM), 0);
  assert_int_equal(absent("core2", LBR_CORE2_FROM + 3), 0);
  assert_int_equal(absent("core2", LBR_CORE2_TO + 3), 0);
  assert_int_equal(absent("core2", LBR_CORE2_FROM + 4), 1);
  assert_int_equal(absent("core2", LBR_TOS), 0);
  assert_int_equal(absent("core2", LBR_NHM_FROM), 1);
  assert_int_equal(absent("core2", LBR_NHM_TO), 1);
  assert_int_equal(absent("core2", 0x1C8), 1); /* MSR_LBR_SELECT */
  assert_int_equal(absent("core2", LBR_INFO), 1);
  assert_int_equal(absent("core2", ALBR_CTL), 1);
  assert_int_equal(rdmsr_on("core2", LBR_CORE2_FROM), SPMU_OK);
  assert_int_equal(rdmsr_on("core2", LBR_NHM_FROM), SPMU_GP);
}

/* Skylake (Vol. 4, the 6th generation's table): 32 entries at 680H /
 * 6C0H with MSR_LBR_INFO_x at DC0H; nothing at 40H-7FH; 4 GP counters per
 * logical processor with HT (IA32_PMC4 C5H absent, SDM 18.2.1); no
 * architectural LBRs. */
static void test_skylake_the_opposite(void **state)
{
  (void)state;
  assert_int_equal(absent("skylake", LBR_CORE2_FROM), 1);
  assert_int_equal(absent("skylake", LBR_CORE2_TO + 31), 1);
  assert_int_equal(absent("skylake", LBR_NHM_FROM), 0);
  assert_int_equal(absent("skylake", LBR_NHM_FROM + 31), 0);
  assert_int_equal(absent("skylake", LBR_NHM_TO + 31), 0);
  assert_int_equal(absent("skylake", LBR_INFO + 31), 0);
  assert_int_equal(absent("skylake", LBR_TOS), 0);
  assert_int_equal(absent("skylake", MSR_PMC0 + 3), 0);
  assert_int_equal(absent("skylake", MSR_PMC0 + 4), 1);
  assert_int_equal(absent("skylake", MSR_EVTSEL0 + 4), 1);
  assert_int_equal(absent("skylake", MSR_A_PMC0 + 4), 1);
  assert_int_equal(absent("skylake", MSR_PERF_METRICS), 1);
  assert_int_equal(absent("skylake", ALBR_CTL), 1);
  assert_int_equal(absent("skylake", ALBR_FROM), 1);
  assert_int_equal(absent("skylake", NB_BPU_COUNTER0), 1);
  assert_int_equal(absent("skylake", NB_BSU_ESCR0), 1);
  assert_int_equal(rdmsr_on("skylake", LBR_CORE2_FROM), SPMU_GP);
  assert_int_equal(rdmsr_on("skylake", LBR_NHM_FROM), SPMU_OK);
}

/* Nehalem (Vol. 4 "MSRs in Processors Based on Intel Microarchitecture
 * Code Name Nehalem"): 16 entries at 680H-68FH; 690H on is absent. */
static void test_nehalem_sixteen_entries(void **state)
{
  (void)state;
  assert_int_equal(absent("nehalem", LBR_NHM_FROM + 15), 0);
  assert_int_equal(absent("nehalem", LBR_NHM_FROM + 16), 1);
  assert_int_equal(absent("nehalem", LBR_NHM_TO + 16), 1);
  assert_int_equal(absent("nehalem", LBR_CORE2_FROM), 1);
  assert_int_equal(absent("nehalem", LBR_INFO), 1);
}

/* Sapphire Rapids: architectural LBRs replace the model-specific stack
 * (IA32_LBR_x at 1200H / 1500H / 1600H, IA32_LBR_CTL, IA32_LBR_DEPTH);
 * MSR_LASTBRANCH_TOS, 680H, 6C0H and DC0H are gone. */
static void test_sapphirerapids_arch_lbrs(void **state)
{
  (void)state;
  assert_int_equal(absent("sapphirerapids", ALBR_CTL), 0);
  assert_int_equal(absent("sapphirerapids", ALBR_DEPTH), 0);
  assert_int_equal(absent("sapphirerapids", ALBR_FROM + 31), 0);
  assert_int_equal(absent("sapphirerapids", ALBR_TO), 0);
  assert_int_equal(absent("sapphirerapids", ALBR_INFO), 0);
  assert_int_equal(absent("sapphirerapids", LBR_TOS), 1);
  assert_int_equal(absent("sapphirerapids", LBR_NHM_FROM), 1);
  assert_int_equal(absent("sapphirerapids", LBR_NHM_TO + 31), 1);
  assert_int_equal(absent("sapphirerapids", LBR_INFO), 1);
  assert_int_equal(absent("sapphirerapids", LBR_CORE2_FROM), 1);
  assert_int_equal(absent("sapphirerapids", MSR_PERF_METRICS), 0);
}

/* Core Duo (perfmon v1, SDM 18.2.1): no fixed counters, no GLOBAL_* MSRs,
 * no PEBS and no DS (CPUID.01H:EDX[21] clear), no PERF_CAPABILITIES. */
static void test_core_duo_v1(void **state)
{
  (void)state;
  assert_int_equal(absent("core-duo", MSR_PMC0 + 1), 0);
  assert_int_equal(absent("core-duo", MSR_PMC0 + 2), 1);
  assert_int_equal(absent("core-duo", MSR_FIXED_CTR0), 1);
  assert_int_equal(absent("core-duo", MSR_GLOBAL_CTRL), 1);
  assert_int_equal(absent("core-duo", MSR_PEBS_ENABLE), 1);
  assert_int_equal(absent("core-duo", MSR_PERF_CAPABILITIES), 1);
  assert_int_equal(absent("core-duo", MSR_DEBUGCTL), 0);
}

/* Pentium 4 (SDM 18.15): the NetBurst counters, CCCRs and ESCRs; none of
 * the architectural PMU's MSRs. */
static void test_pentium4_netburst(void **state)
{
  (void)state;
  assert_int_equal(absent("pentium4", NB_BPU_COUNTER0), 0);
  assert_int_equal(absent("pentium4", NB_BSU_ESCR0), 0);
  assert_int_equal(absent("pentium4", MSR_PMC0), 1);
  assert_int_equal(absent("pentium4", MSR_EVTSEL0), 1);
  assert_int_equal(absent("pentium4", MSR_GLOBAL_CTRL), 1);
  assert_int_equal(absent("pentium4", MSR_PEBS_ENABLE), 0);
}

/* 1 if addr is in neither list of profile spec (an MSR the host keeps). */
static int neither(const char *spec, uint32_t addr)
{
  spmu_profile p = prof(spec);
  uint32_t a[CAP], m[CAP];
  size_t na = spmu_msr_absent_list(&p, a, CAP);
  size_t nm = spmu_msr_list(&p, m, CAP);

  return !bsearch(&addr, a, na, sizeof *a, cmp_u32) &&
         !bsearch(&addr, m, nm, sizeof *m, cmp_u32);
}

/* The debug and LBR blocks no profile has an MSR in are absent on every
 * preset (SDM Vol. 2B RDMSR, WRMSR: #GP(0) for an unimplemented MSR): the
 * NetBurst LBR facility (Vol. 4, the Pentium 4 table: MSR_LER_FROM_LIP
 * 1D7H, MSR_LER_TO_LIP 1D8H, MSR_LASTBRANCH_TOS 1DAH, MSR_LASTBRANCH_0-1
 * 1DBH-1DCH, also P6's LastBranchFromIP / ToIP), and the architectural
 * LBR entries past the 32 modelled (IA32_LBR_x_INFO 1200H + x, _FROM_IP
 * 1500H + x, _TO_IP 1600H + x, to x = 255). */
static void test_reserved_blocks_every_preset(void **state)
{
  static const uint32_t blocks[][2] = {{0x1D7, 0x1D8},
                                       {0x1DA, 0x1DC},
                                       {ALBR_INFO + 32, ALBR_INFO + 255},
                                       {ALBR_FROM + 32, ALBR_FROM + 255},
                                       {ALBR_TO + 32, ALBR_TO + 255}};
  unsigned i, b;
  uint32_t addr;
  (void)state;
  for (i = 0; spmu_profile_preset_name(i); i++)
    for (b = 0; b < sizeof blocks / sizeof blocks[0]; b++)
      for (addr = blocks[b][0]; addr <= blocks[b][1]; addr++)
        assert_int_equal(absent(spmu_profile_preset_name(i), addr), 1);
  /* Core 2 and later: 1DDH-1DEH are the last exception record */
  assert_int_equal(absent("core2", 0x1DD), 0);
  assert_int_equal(absent("skylake", 0x1DE), 0);
  assert_int_equal(absent("pentium4", 0x1DD), 1);
}

/* Inside the 40H-7FH span of Core 2's stack, the architectural MSRs of
 * other facilities (SDM Vol. 4 Table 2-2: IA32_SPEC_CTRL 48H,
 * IA32_PRED_CMD 49H, IA32_PPIN_CTL 4EH, IA32_PPIN 4FH, IA32_BIOS_UPDT_TRIG
 * 79H) are neither present nor absent on any preset: the host's. Their
 * neighbours are absent where the profile has no stack at 40H. */
static void test_foreign_msrs_stay_the_hosts(void **state)
{
  static const uint32_t foreign[] = {0x48, 0x49, 0x4E, 0x4F, 0x79};
  unsigned i, k;
  (void)state;
  for (i = 0; spmu_profile_preset_name(i); i++)
    for (k = 0; k < sizeof foreign / sizeof foreign[0]; k++)
      assert_int_equal(neither(spmu_profile_preset_name(i), foreign[k]), 1);
  assert_int_equal(absent("skylake", 0x47), 1);
  assert_int_equal(absent("skylake", 0x4A), 1);
  assert_int_equal(absent("skylake", 0x78), 1);
  assert_int_equal(absent("skylake", 0x7A), 1);
  assert_int_equal(absent("core2", 0x44), 1);
}

/* On every preset: the absent list and spmu_msr_list are disjoint, their
 * union is the same catalogue span whatever the profile, IA32_MISC_ENABLE
 * (every profile's) is never absent, and the model itself raises #GP on
 * RDMSR and WRMSR of every absent address. */
static void test_every_preset_faults_absent(void **state)
{
  uint32_t span[CAP], first[CAP];
  size_t nspan = 0;
  unsigned i;
  (void)state;
  for (i = 0; spmu_profile_preset_name(i); i++) {
    spmu_profile p = prof(spmu_profile_preset_name(i));
    uint32_t a[CAP], m[CAP];
    size_t na = spmu_msr_absent_list(&p, a, CAP);
    size_t nm = spmu_msr_list(&p, m, CAP), k;
    spmu_core *c;
    uint64_t v;

    assert_true(na > 0 && na + nm <= CAP);
    assert_int_equal(spmu_msr_absent_list(&p, NULL, 0), na);
    for (k = 0; k < nm; k++)
      assert_null(bsearch(&m[k], a, na, sizeof *a, cmp_u32));
    for (k = 1; k < na; k++)
      assert_true(a[k - 1] < a[k]);
    memcpy(span, a, na * sizeof *a);
    memcpy(span + na, m, nm * sizeof *m);
    qsort(span, na + nm, sizeof *span, cmp_u32);
    if (i == 0) {
      nspan = na + nm;
      memcpy(first, span, nspan * sizeof *span);
    }
    assert_int_equal(na + nm, nspan);
    assert_memory_equal(span, first, nspan * sizeof *span);
    assert_null(
        bsearch(&(uint32_t){MSR_MISC_ENABLE}, a, na, sizeof *a, cmp_u32));
    assert_int_equal(spmu_core_new(&p, &c), SPMU_OK);
    for (k = 0; k < na; k++) {
      assert_int_equal(spmu_rdmsr(spmu_core_lp(c, 0), a[k], &v), SPMU_GP);
      assert_int_equal(spmu_wrmsr(spmu_core_lp(c, 0), a[k], 0), SPMU_GP);
    }
    spmu_core_free(c);
  }
}

static void test_bad_arguments(void **state)
{
  spmu_profile p = prof("skylake");
  uint32_t a[4];
  (void)state;
  assert_int_equal(spmu_msr_absent_list(NULL, a, 4), 0);
  p.gp = 0xff; /* invalid */
  assert_int_equal(spmu_msr_absent_list(&p, a, 4), 0);
  p = prof("skylake");
  /* cap short of the count: the first cap, and the full count */
  assert_int_equal(spmu_msr_absent_list(&p, a, 2), 935);
  assert_int_equal(a[0], LBR_CORE2_FROM);
  assert_int_equal(a[1], LBR_CORE2_FROM + 1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_core2_lbrs_at_40h),
      cmocka_unit_test(test_skylake_the_opposite),
      cmocka_unit_test(test_nehalem_sixteen_entries),
      cmocka_unit_test(test_sapphirerapids_arch_lbrs),
      cmocka_unit_test(test_core_duo_v1),
      cmocka_unit_test(test_pentium4_netburst),
      cmocka_unit_test(test_reserved_blocks_every_preset),
      cmocka_unit_test(test_foreign_msrs_stay_the_hosts),
      cmocka_unit_test(test_every_preset_faults_absent),
      cmocka_unit_test(test_bad_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

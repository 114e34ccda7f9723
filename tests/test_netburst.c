/* SPDX-License-Identifier: MIT */
/* The NetBurst (Pentium 4) PMU: profiles, the ESCR/CCCR catalogue, event
 * selection (SDM 18.15.5.1), T0/T1 qualification, CCCR filtering, overflow
 * and the delayed PMI, FORCE_OVF, cascading, tagging, RDPMC, P4 PEBS and
 * Linux's P4 PMI handler flow (p4_pmu_handle_irq, on SDM 18.15.5.8). Every
 * test names the SDM section (Vol. 3B 325384-059US) it checks. */
#define SPMU_TEST_FIXTURE
#include "helpers.h"

#include <stdlib.h>

#include "guest_mem.h"

/* Addresses and bits written out from the SDM (Table 18-63, Figures
 * 18-43/18-45/18-47/18-48, 17-12, Table 35-41), not taken from the
 * catalogue. */
#define P4_CTR(n) (0x300u + (n))
#define P4_CCCR(n) (0x360u + (n))
#define BSU_ESCR0 0x3A0u
#define BSU_ESCR1 0x3A1u
#define FSB_ESCR0 0x3A2u
#define FIRM_ESCR0 0x3A4u
#define MOB_ESCR0 0x3AAu
#define CRU_ESCR0 0x3B8u
#define CRU_ESCR1 0x3B9u
#define IQ_ESCR0 0x3BAu
#define RAT_ESCR0 0x3BCu
#define SSU_ESCR0 0x3BEu
#define MS_ESCR0 0x3C0u
#define CRU_ESCR2 0x3CCu
#define CRU_ESCR3 0x3CDu
#define MSR_DEBUGCTLA 0x1D9u
#define MSR_TC_PRECISE 0x3F0u
#define MSR_P4_PEBS_ENABLE 0x3F1u
#define MSR_MATRIX_VERT 0x3F2u

#define CC_EXT (UINT64_C(1) << 11)
#define CC_EN (UINT64_C(1) << 12)
#define CC_SEL(s) ((uint64_t)(s) << 13)
#define CC_ACT(a) ((uint64_t)(a) << 16)
#define CC_ANY CC_ACT(3)
#define CC_CMP (UINT64_C(1) << 18)
#define CC_CPL (UINT64_C(1) << 19)
#define CC_THR(t) ((uint64_t)(t) << 20)
#define CC_EDGE (UINT64_C(1) << 24)
#define CC_FORCE (UINT64_C(1) << 25)
#define CC_PMI0 (UINT64_C(1) << 26)
#define CC_PMI1 (UINT64_C(1) << 27)
#define CC_CASCADE (UINT64_C(1) << 30)
#define CC_OVF (UINT64_C(1) << 31)
#define ES_EVSEL(e) ((uint64_t)(e) << 25)
#define ES_MASK(m) ((uint64_t)(m) << 9)
#define ES_TAG(v) (UINT64_C(1) << 4 | (uint64_t)(v) << 5)
#define ES_T0_OS (UINT64_C(1) << 3)
#define ES_T0_USR (UINT64_C(1) << 2)
#define ES_T1_OS (UINT64_C(1) << 1)
#define ES_T1_USR (UINT64_C(1) << 0)
#define ES_T0 (ES_T0_OS | ES_T0_USR)
#define ES_T1 (ES_T1_OS | ES_T1_USR)
#define PE_UOP_TAG (UINT64_C(1) << 24)
#define PE_MY_THR (UINT64_C(1) << 25)
#define PE_OTH_THR (UINT64_C(1) << 26)
#define W40 ((UINT64_C(1) << 40) - 1)

/* Events used below (Tables 19-28 / 19-29): unit, event select. */
#define BSQ_CACHE_REF SPMU_NB_BSU, 0x0C /* BSU_ESCR0/1, select 7 */
#define BRANCH_RETIRED SPMU_NB_CRU2, 0x06
#define FSB_DATA SPMU_NB_FSB, 0x17 /* thread-independent */

static unsigned pmis[SPMU_MAX_THREADS];
static unsigned pmi_order[16], npmi;

static void on_pmi(void *opaque, spmu_lp *l)
{
  (void)opaque;
  pmis[spmu_lp_index(l)]++;
  if (npmi < 16)
    pmi_order[npmi++] = spmu_lp_index(l);
}

/* A NetBurst core with a PMI counter as host. */
static void use_nb(const char *spec)
{
  spmu_host h = {.pmi = on_pmi};
  use(spec);
  memset(pmis, 0, sizeof pmis);
  npmi = 0;
  assert_int_equal(spmu_core_set_host(core, &h), SPMU_OK);
}

static spmu_lp *lp_n(unsigned i)
{
  return spmu_core_lp(core, i);
}

/* Deliver `clocks` copies of one line (unit, evsel, bit, count) at cpl. */
static int line_on(spmu_lp *l, uint8_t unit, uint8_t evsel, uint8_t bit,
                   uint32_t count, unsigned cpl, uint64_t clocks,
                   uint64_t *used)
{
  spmu_nb_line ln = {unit, evsel, bit, count};
  spmu_nb_clock clk = {.lines = &ln, .nlines = 1, .cpl = (uint8_t)cpl};
  return spmu_deliver_netburst(l, &clk, clocks, used);
}

/* One clock of one BSQ_cache_reference line (bit 0) with count v. */
static int bsq(spmu_lp *l, uint32_t v, unsigned cpl)
{
  return line_on(l, BSQ_CACHE_REF, 0, v, cpl, 1, NULL);
}

/* Counter 0 fed by BSU_ESCR0 (select 7) with BSQ_cache_reference, bit 0,
 * both CPLs of thread 0 (OS/USR without HT), and CCCR bits cc. */
static void program_ctr0(uint64_t cc)
{
  WR(BSU_ESCR0, ES_EVSEL(0x0C) | ES_MASK(1) | ES_T0);
  WR(P4_CCCR(0), CC_SEL(7) | CC_ANY | cc);
}

/* ---- profiles and the catalogue ----------------------------------------- */

/* SDM 18.15 / 18.16: the pentium4 presets have no architectural perfmon
 * (CPUID.0AH all zero), the debug store (CPUID.01H:EDX[21]), perfmon,
 * BTS and PEBS available in IA32_MISC_ENABLE (bits 7, 11, 12), two
 * logical processors with HT and one without. */
static void test_presets_18_15(void **state)
{
  static const struct {
    const char *name;
    unsigned threads;
  } want[] = {{"pentium4", 2}, {"pentium4-noht", 1}};
  size_t i;
  (void)state;
  for (i = 0; i < 2; i++) {
    uint32_t regs[4];
    use_nb(want[i].name);
    assert_int_equal(spmu_core_threads(core), want[i].threads);
    assert_int_equal(spmu_cpuid(lp, 0xA, 0, regs), SPMU_OK);
    assert_int_equal(regs[0] | regs[1] | regs[2] | regs[3], 0);
    assert_int_equal(spmu_cpuid(lp, 0x1, 0, regs), SPMU_OK);
    assert_int_equal(regs[3], 1u << 21);
    assert_int_equal(regs[2], 0); /* no DTES64, DS-CPL, PDCM */
    assert_int_equal(rd(lp, MSR_MISC_ENABLE), 0x80);
  }
}

/* The profile rules (decisions.md NetBurst): netburst needs version 0, at
 * most two threads, no PERF_CAPABILITIES; iq_escr / ext_cascade need
 * netburst; the key=value form round-trips. */
static void test_profile_rules(void **state)
{
  spmu_profile p, q;
  char why[256], buf[512];
  (void)state;
  assert_int_equal(
      spmu_profile_parse("version=2,netburst=1", &p, why, sizeof why),
      SPMU_EPROFILE);
  assert_non_null(strstr(why, "version=0"));
  assert_int_equal(
      spmu_profile_parse("base=pentium4,threads=4", &p, why, sizeof why),
      SPMU_EPROFILE);
  assert_int_equal(
      spmu_profile_parse("base=pentium4,pdcm=1", &p, why, sizeof why),
      SPMU_EPROFILE);
  assert_int_equal(
      spmu_profile_parse("base=skylake,iq_escr=1", &p, why, sizeof why),
      SPMU_EPROFILE);
  assert_int_equal(spmu_profile_parse("pentium4", &p, why, sizeof why),
                   SPMU_OK);
  assert_true(spmu_profile_format(&p, buf, sizeof buf) > 0);
  assert_non_null(strstr(buf, "netburst=1,iq_escr=1,ext_cascade=1"));
  assert_int_equal(spmu_profile_parse(buf, &q, why, sizeof why), SPMU_OK);
  assert_memory_equal(&p, &q, sizeof p);
  /* Architectural profiles do not mention the NetBurst keys. */
  assert_int_equal(spmu_profile_parse("skylake", &p, why, sizeof why), SPMU_OK);
  assert_true(spmu_profile_format(&p, buf, sizeof buf) > 0);
  assert_null(strstr(buf, "netburst"));
}

/* Table 18-63 written out: every ESCR's address, CCCR select value and
 * the counters it feeds. */
static const struct {
  uint32_t addr;
  const char *name;
  unsigned sel;
  uint32_t ctrs;
} table_18_63[] = {
    {0x3A0, "MSR_BSU_ESCR0", 7, 0x3},     {0x3A1, "MSR_BSU_ESCR1", 7, 0xC},
    {0x3A2, "MSR_FSB_ESCR0", 6, 0x3},     {0x3A3, "MSR_FSB_ESCR1", 6, 0xC},
    {0x3A4, "MSR_FIRM_ESCR0", 1, 0x300},  {0x3A5, "MSR_FIRM_ESCR1", 1, 0xC00},
    {0x3A6, "MSR_FLAME_ESCR0", 0, 0x300}, {0x3A7, "MSR_FLAME_ESCR1", 0, 0xC00},
    {0x3A8, "MSR_DAC_ESCR0", 5, 0x300},   {0x3A9, "MSR_DAC_ESCR1", 5, 0xC00},
    {0x3AA, "MSR_MOB_ESCR0", 2, 0x3},     {0x3AB, "MSR_MOB_ESCR1", 2, 0xC},
    {0x3AC, "MSR_PMH_ESCR0", 4, 0x3},     {0x3AD, "MSR_PMH_ESCR1", 4, 0xC},
    {0x3AE, "MSR_SAAT_ESCR0", 2, 0x300},  {0x3AF, "MSR_SAAT_ESCR1", 2, 0xC00},
    {0x3B0, "MSR_U2L_ESCR0", 3, 0x300},   {0x3B1, "MSR_U2L_ESCR1", 3, 0xC00},
    {0x3B2, "MSR_BPU_ESCR0", 0, 0x3},     {0x3B3, "MSR_BPU_ESCR1", 0, 0xC},
    {0x3B4, "MSR_IS_ESCR0", 1, 0x3},      {0x3B5, "MSR_IS_ESCR1", 1, 0xC},
    {0x3B6, "MSR_ITLB_ESCR0", 3, 0x3},    {0x3B7, "MSR_ITLB_ESCR1", 3, 0xC},
    {0x3B8, "MSR_CRU_ESCR0", 4, 0x13000}, {0x3B9, "MSR_CRU_ESCR1", 4, 0x2C000},
    {0x3BA, "MSR_IQ_ESCR0", 0, 0x13000},  {0x3BB, "MSR_IQ_ESCR1", 0, 0x2C000},
    {0x3BC, "MSR_RAT_ESCR0", 2, 0x13000}, {0x3BD, "MSR_RAT_ESCR1", 2, 0x2C000},
    {0x3BE, "MSR_SSU_ESCR0", 3, 0x13000}, {0x3C0, "MSR_MS_ESCR0", 0, 0x30},
    {0x3C1, "MSR_MS_ESCR1", 0, 0xC0},     {0x3C2, "MSR_TBPU_ESCR0", 2, 0x30},
    {0x3C3, "MSR_TBPU_ESCR1", 2, 0xC0},   {0x3C4, "MSR_TC_ESCR0", 1, 0x30},
    {0x3C5, "MSR_TC_ESCR1", 1, 0xC0},     {0x3C8, "MSR_IX_ESCR0", 5, 0x3},
    {0x3C9, "MSR_IX_ESCR1", 5, 0xC},      {0x3CA, "MSR_ALF_ESCR0", 1, 0x13000},
    {0x3CB, "MSR_ALF_ESCR1", 1, 0x2C000}, {0x3CC, "MSR_CRU_ESCR2", 5, 0x13000},
    {0x3CD, "MSR_CRU_ESCR3", 5, 0x2C000}, {0x3E0, "MSR_CRU_ESCR4", 6, 0x13000},
    {0x3E1, "MSR_CRU_ESCR5", 6, 0x2C000},
};
#define N_ESCR (sizeof table_18_63 / sizeof table_18_63[0])

/* SDM Table 18-63, 18.15.1-18.15.3: 18 counters at 300H+n, 18 CCCRs at
 * 360H+n, 45 ESCRs (43 without MSR_IQ_ESCR0/1, family 0FH models 3+), no
 * SSU_ESCR1; the names look up to those addresses; none of the
 * architectural MSRs exist. */
static void test_catalogue_table_18_63(void **state)
{
  static const char *const groups[] = {"BPU", "MS", "FLAME", "IQ"};
  static const unsigned first[] = {0, 4, 8, 12, 18};
  spmu_profile p, p3;
  uint32_t addr;
  size_t i, n;
  unsigned g, k;
  (void)state;
  assert_int_equal(N_ESCR, 45);
  assert_int_equal(spmu_profile_parse("pentium4", &p, NULL, 0), SPMU_OK);
  assert_int_equal(spmu_profile_parse("base=pentium4,iq_escr=0", &p3, NULL, 0),
                   SPMU_OK);
  for (g = 0; g < 4; g++)
    for (k = 0; k < first[g + 1] - first[g]; k++) {
      char nm[40];
      spmu_msr_info info;
      snprintf(nm, sizeof nm, "MSR_%s_COUNTER%u", groups[g], k);
      assert_int_equal(spmu_msr_lookup(&p, nm, &addr), SPMU_OK);
      assert_int_equal(addr, P4_CTR(first[g] + k));
      assert_int_equal(spmu_msr_info_get(&p, addr, &info), SPMU_OK);
      assert_int_equal(info.width, 40);
      assert_int_equal(info.reserved, ~W40);
      snprintf(nm, sizeof nm, "MSR_%s_CCCR%u", groups[g], k);
      assert_int_equal(spmu_msr_lookup(&p, nm, &addr), SPMU_OK);
      assert_int_equal(addr, P4_CCCR(first[g] + k));
    }
  for (i = 0; i < N_ESCR; i++) {
    spmu_msr_info info;
    assert_int_equal(spmu_msr_lookup(&p, table_18_63[i].name, &addr), SPMU_OK);
    assert_int_equal(addr, table_18_63[i].addr);
    assert_int_equal(spmu_msr_info_get(&p, addr, &info), SPMU_OK);
    assert_string_equal(info.name, table_18_63[i].name);
    /* ESCR bits 63:31 reserved (Figure 18-47). */
    assert_int_equal(info.reserved, ~UINT64_C(0x7FFFFFFF));
  }
  assert_int_equal(spmu_msr_lookup(&p, "MSR_SSU_ESCR1", &addr), SPMU_ENOENT);
  assert_int_equal(spmu_msr_lookup(&p3, "MSR_IQ_ESCR0", &addr), SPMU_ENOMSR);
  n = spmu_msr_list(&p, NULL, 0);
  assert_int_equal(n, 18 + 18 + 45 + 6);
  assert_int_equal(spmu_msr_list(&p3, NULL, 0), n - 2);
  use_nb("pentium4");
  {
    static const uint32_t absent[] = {0xC1,  0x186, 0x345, 0x38D, 0x38E,
                                      0x38F, 0x390, 0x3BF, 0x3C6, 0x3C7,
                                      0x3F6, 0x312, 0x372};
    uint64_t v;
    for (i = 0; i < sizeof absent / sizeof absent[0]; i++) {
      assert_int_equal(spmu_rdmsr(lp, absent[i], &v), SPMU_GP);
      assert_int_equal(spmu_wrmsr(lp, absent[i], 0), SPMU_GP);
    }
  }
}

/* SDM Table 18-63: CCCR ESCR-select s on counter n picks the ESCR with
 * select s among those feeding n. Each ESCR, programmed with an event and
 * picked by each counter it feeds, makes that counter count; the
 * catalogue's event lookup agrees. */
static void test_escr_to_counter_mapping_18_63(void **state)
{
  size_t i;
  unsigned n;
  (void)state;
  for (i = 0; i < N_ESCR; i++)
    for (n = 0; n < 18; n++) {
      /* unit = the pair; the line uses event select 0x01, mask bit 0. */
      unsigned unit =
          (table_18_63[i].addr == 0x3E0 || table_18_63[i].addr == 0x3E1)
              ? SPMU_NB_CRU4
          : table_18_63[i].addr >= 0x3CC ? SPMU_NB_CRU2
          : table_18_63[i].addr >= 0x3C8
              ? (table_18_63[i].addr - 0x3C8) / 2 + SPMU_NB_IX
              : (table_18_63[i].addr - 0x3A0) / 2 + SPMU_NB_BSU;
      if (!(table_18_63[i].ctrs >> n & 1))
        continue;
      use_nb("pentium4-noht");
      WR(table_18_63[i].addr, ES_EVSEL(0x01) | ES_MASK(1) | ES_T0);
      WR(P4_CCCR(n), CC_EN | CC_ANY | CC_SEL(table_18_63[i].sel));
      assert_int_equal(line_on(lp, (uint8_t)unit, 0x01, 0, 3, 0, 5, NULL), 0);
      if (rd(lp, P4_CTR(n)) != 15)
        fail_msg("%s -> counter %u: %llu", table_18_63[i].name, n,
                 (unsigned long long)rd(lp, P4_CTR(n)));
    }
}

/* A CCCR that selects an ESCR which cannot feed its counter counts nothing
 * (Table 18-63; decisions.md NetBurst), even with the every-clock recipe;
 * so does one without MSR_IQ_ESCR0 on a model 3+ part, and one whose ESCR
 * selects no_event (event select 0; SDM 18.15.5.9). */
static void test_unmatched_escr_select_counts_nothing(void **state)
{
  const uint64_t every = CC_EN | CC_ANY | CC_CMP | CC_CPL | CC_THR(15);
  (void)state;
  use_nb("pentium4-noht");
  WR(MS_ESCR0, ES_EVSEL(0x05) | ES_MASK(1) | ES_T0);
  WR(SSU_ESCR0, ES_EVSEL(0x01) | ES_MASK(1) | ES_T0);
  WR(P4_CCCR(4), every | CC_SEL(3));  /* MS group: no select 3 */
  WR(P4_CCCR(14), every | CC_SEL(3)); /* no SSU_ESCR1 */
  WR(P4_CCCR(12), every | CC_SEL(3)); /* SSU_ESCR0 feeds 12 */
  WR(P4_CCCR(5), every | CC_SEL(0));  /* MS_ESCR0 feeds 5 */
  assert_int_equal(line_on(lp, SPMU_NB_MS, 0x05, 0, 1, 0, 10, NULL), 0);
  assert_int_equal(rd(lp, P4_CTR(4)), 0);
  assert_int_equal(rd(lp, P4_CTR(14)), 0);
  assert_int_equal(rd(lp, P4_CTR(12)), 10);
  assert_int_equal(rd(lp, P4_CTR(5)), 10);
  /* no_event: the same CCCR with the ESCR's event select 0. */
  WR(MS_ESCR0, ES_MASK(1) | ES_T0);
  assert_int_equal(line_on(lp, SPMU_NB_MS, 0x05, 0, 1, 0, 10, NULL), 0);
  assert_int_equal(rd(lp, P4_CTR(5)), 10);
  /* MSR_IQ_ESCR0 (select 0 on counter 12) exists only with iq_escr. */
  use_nb("base=pentium4-noht,iq_escr=0");
  WR(P4_CCCR(12), every | CC_SEL(0));
  assert_int_equal(line_on(lp, SPMU_NB_IQ, 0x01, 0, 1, 0, 10, NULL), 0);
  assert_int_equal(rd(lp, P4_CTR(12)), 0);
  use_nb("pentium4-noht");
  WR(IQ_ESCR0, ES_EVSEL(0x01) | ES_MASK(1) | ES_T0);
  WR(P4_CCCR(12), every | CC_SEL(0));
  assert_int_equal(line_on(lp, SPMU_NB_IQ, 0x01, 0, 1, 0, 10, NULL), 0);
  assert_int_equal(rd(lp, P4_CTR(12)), 10);
}

/* Reserved bits #GP (SDM Figures 18-43..18-48, 17-12, Table 35-41): ESCR
 * 63:31 (and 1:0 without HT), CCCR 11:0 but IQ_CCCR0/3/4/5 bit 11, 29:28
 * and 63:32, counters 63:40, active thread other than 11B without HT,
 * OVF_PMI_T1 without HT, MSR_PEBS_ENABLE 23:13 and 63:27 (26 without HT),
 * MSR_PEBS_MATRIX_VERT beyond bits 0, 1, 4, MSR_DEBUGCTLA 63:7 (5, 6
 * without DS-CPL). */
static void test_reserved_bits_gp(void **state)
{
  unsigned b;
  (void)state;
  use_nb("pentium4-noht");
  assert_int_equal(spmu_wrmsr(lp, CRU_ESCR0, UINT64_C(1) << 31), SPMU_GP);
  assert_int_equal(spmu_wrmsr(lp, CRU_ESCR0, ES_T1_OS), SPMU_GP);
  assert_int_equal(spmu_wrmsr(lp, CRU_ESCR0, ES_T1_USR), SPMU_GP);
  WR(CRU_ESCR0, ES_EVSEL(0x3F) | ES_MASK(0xFFFF) | ES_TAG(0xF) | ES_T0);
  for (b = 0; b < 11; b++)
    assert_int_equal(spmu_wrmsr(lp, P4_CCCR(12), CC_ANY | UINT64_C(1) << b),
                     SPMU_GP);
  assert_int_equal(spmu_wrmsr(lp, P4_CCCR(0), CC_ANY | CC_EXT), SPMU_GP);
  assert_int_equal(spmu_wrmsr(lp, P4_CCCR(13), CC_ANY | CC_EXT), SPMU_GP);
  assert_int_equal(spmu_wrmsr(lp, P4_CCCR(14), CC_ANY | CC_EXT), SPMU_GP);
  WR(P4_CCCR(12), CC_ANY | CC_EXT);
  WR(P4_CCCR(15), CC_ANY | CC_EXT);
  WR(P4_CCCR(16), CC_ANY | CC_EXT);
  WR(P4_CCCR(17), CC_ANY | CC_EXT);
  assert_int_equal(spmu_wrmsr(lp, P4_CCCR(0), CC_ANY | UINT64_C(1) << 28),
                   SPMU_GP);
  assert_int_equal(spmu_wrmsr(lp, P4_CCCR(0), CC_ANY | UINT64_C(1) << 29),
                   SPMU_GP);
  assert_int_equal(spmu_wrmsr(lp, P4_CCCR(0), CC_ANY | UINT64_C(1) << 32),
                   SPMU_GP);
  assert_int_equal(spmu_wrmsr(lp, P4_CCCR(0), CC_ANY | CC_PMI1), SPMU_GP);
  /* Without HT the active thread reads 11B from reset and must stay so. */
  assert_int_equal(rd(lp, P4_CCCR(3)), CC_ANY);
  assert_int_equal(spmu_wrmsr(lp, P4_CCCR(3), 0), SPMU_GP);
  assert_int_equal(spmu_wrmsr(lp, P4_CCCR(3), CC_ACT(1)), SPMU_GP);
  WR(P4_CCCR(3), CC_ANY | CC_EN | CC_CMP | CC_CPL | CC_THR(15) | CC_EDGE |
                     CC_FORCE | CC_PMI0 | CC_CASCADE | CC_OVF | CC_SEL(7));
  assert_int_equal(spmu_wrmsr(lp, P4_CTR(3), UINT64_C(1) << 40), SPMU_GP);
  WR(P4_CTR(3), W40);
  assert_int_equal(rd(lp, P4_CTR(3)), W40);
  assert_int_equal(spmu_wrmsr(lp, MSR_P4_PEBS_ENABLE, PE_OTH_THR), SPMU_GP);
  for (b = 13; b < 24; b++)
    assert_int_equal(spmu_wrmsr(lp, MSR_P4_PEBS_ENABLE, UINT64_C(1) << b),
                     SPMU_GP);
  assert_int_equal(spmu_wrmsr(lp, MSR_P4_PEBS_ENABLE, UINT64_C(1) << 27),
                   SPMU_GP);
  WR(MSR_P4_PEBS_ENABLE, 0x1FFF | PE_UOP_TAG | PE_MY_THR);
  WR(MSR_MATRIX_VERT, 0x13);
  assert_int_equal(spmu_wrmsr(lp, MSR_MATRIX_VERT, 0x4), SPMU_GP);
  assert_int_equal(spmu_wrmsr(lp, MSR_MATRIX_VERT, 0x8), SPMU_GP);
  WR(MSR_TC_PRECISE, ~UINT64_C(0));
  WR(MSR_DEBUGCTLA, 0x1F);
  for (b = 5; b < 64; b++)
    assert_int_equal(spmu_wrmsr(lp, MSR_DEBUGCTLA, UINT64_C(1) << b), SPMU_GP);
  use_nb("base=pentium4,ds_cpl=1");
  WR(MSR_DEBUGCTLA, 0x7F);
  WR(P4_CCCR(0), CC_ACT(0) | CC_PMI0 | CC_PMI1);
  WR(CRU_ESCR0, ES_T0 | ES_T1);
  WR(MSR_P4_PEBS_ENABLE, PE_MY_THR | PE_OTH_THR);
}

/* The field positions src/netburst/nb.h restates (SDM Figures 18-45,
 * 18-48) are the catalogue's. */
static void test_cccr_field_positions(void **state)
{
  static const struct {
    const char *field;
    uint64_t bits;
  } f[] = {{"ENABLE", CC_EN},
           {"ESCR_SELECT", CC_SEL(7)},
           {"ACTIVE_THREAD", CC_ACT(3)},
           {"COMPARE", CC_CMP},
           {"COMPLEMENT", CC_CPL},
           {"THRESHOLD", CC_THR(15)},
           {"EDGE", CC_EDGE},
           {"FORCE_OVF", CC_FORCE},
           {"OVF_PMI_T0", CC_PMI0},
           {"OVF_PMI_T1", CC_PMI1},
           {"CASCADE", CC_CASCADE},
           {"OVF", CC_OVF},
           {"CASCNT4INTO0", CC_EXT}};
  spmu_profile p;
  size_t i;
  (void)state;
  assert_int_equal(spmu_profile_parse("pentium4", &p, NULL, 0), SPMU_OK);
  for (i = 0; i < sizeof f / sizeof f[0]; i++) {
    uint64_t reg = 0;
    unsigned w = (unsigned)__builtin_popcountll(f[i].bits);
    assert_int_equal(spmu_msr_field_encode(&p, P4_CCCR(12), f[i].field,
                                           (UINT64_C(1) << w) - 1, &reg),
                     SPMU_OK);
    if (reg != f[i].bits)
      fail_msg("%s: %#llx", f[i].field, (unsigned long long)reg);
  }
}

/* ---- the shared PMU (SDM 18.16, Table 35-41) ---------------------------- */

/* With HT both logical processors see one set of counters, CCCRs, ESCRs
 * and tagging MSRs ("Shared"); MSR_DEBUGCTLA and IA32_DS_AREA are each
 * logical processor's own ("Unique"); MSR_PEBS_ENABLE's bit 25 is the
 * accessing logical processor's PEBS enable and bit 26 the other's
 * (18.16.3). */
static void test_shared_pmu_18_16(void **state)
{
  spmu_lp *l1;
  (void)state;
  use_nb("pentium4");
  l1 = lp_n(1);
  WR(CRU_ESCR2, ES_EVSEL(0x06) | ES_MASK(0xF) | ES_T1);
  WR(P4_CCCR(12), CC_SEL(5) | CC_ANY | CC_EN);
  WR(P4_CTR(12), 0x1234567890);
  assert_int_equal(rd(l1, CRU_ESCR2), ES_EVSEL(0x06) | ES_MASK(0xF) | ES_T1);
  assert_int_equal(rd(l1, P4_CCCR(12)), CC_SEL(5) | CC_ANY | CC_EN);
  assert_int_equal(rd(l1, P4_CTR(12)), 0x1234567890);
  assert_int_equal(spmu_wrmsr(l1, P4_CTR(12), 7), SPMU_OK);
  assert_int_equal(rd(lp, P4_CTR(12)), 7);
  WR(MSR_DEBUGCTLA, 1);
  WR(MSR_DS_AREA, 0x1000);
  assert_int_equal(rd(l1, MSR_DEBUGCTLA), 0);
  assert_int_equal(rd(l1, MSR_DS_AREA), 0);
  /* lp 0 enables PEBS for itself: lp 1 sees it as the other thread's. */
  WR(MSR_P4_PEBS_ENABLE, PE_MY_THR | PE_UOP_TAG | 1);
  assert_int_equal(rd(l1, MSR_P4_PEBS_ENABLE), PE_OTH_THR | PE_UOP_TAG | 1);
  assert_int_equal(spmu_wrmsr(l1, MSR_P4_PEBS_ENABLE, PE_MY_THR | PE_OTH_THR),
                   SPMU_OK);
  assert_int_equal(rd(lp, MSR_P4_PEBS_ENABLE), PE_MY_THR | PE_OTH_THR);
  assert_int_equal(spmu_wrmsr(l1, MSR_P4_PEBS_ENABLE, PE_MY_THR), SPMU_OK);
  assert_int_equal(rd(lp, MSR_P4_PEBS_ENABLE), PE_OTH_THR);
}

/* ---- SDM 18.15.5.1: the setup procedure -------------------------------- */

/* SDM 18.15.5.1 steps 1-6 done literally, then 18.15.5.3 step 9
 * (enable) and 18.15.5.4 step 10 (read with RDPMC): the counter counts the
 * delivered retired instructions of the qualified thread and CPLs. */
static void setup_procedure_for(const char *profile, bool ht)
{
  spmu_profile p;
  spmu_nb_event_sel sel;
  uint32_t ctr_addr, cccr_addr;
  unsigned counter;
  char name[40];
  uint64_t v;
  spmu_nb_retire ret = {.uops = 3, .instrs = 2};
  spmu_nb_clock clk = {.retire = &ret, .nretire = 1, .cpl = 3};
  static const char *const group[] = {"BPU", "MS", "FLAME", "IQ"};

  use_nb(profile);
  assert_int_equal(spmu_profile_parse(profile, &p, NULL, 0), SPMU_OK);
  /* 1. Select the event to be counted. */
  assert_int_equal(spmu_nb_event_parse(&p, "instr_retired:NBOGUSNTAG", &sel),
                   SPMU_OK);
  assert_string_equal(sel.event->name, "instr_retired");
  /* 2. Select the ESCR from the ESCRs field: MSR_CRU_ESCR0. */
  assert_int_equal(sel.escr_addr[0], CRU_ESCR0);
  assert_int_equal(sel.escr_addr[1], CRU_ESCR1);
  /* 3. Select the counter from the counter numbers per ESCR: 12. */
  assert_int_equal(sel.counters[0], 0x13000);
  counter = (unsigned)__builtin_ctz(sel.counters[0]);
  assert_int_equal(counter, 12);
  /* 4. The counter's and the CCCR's names and addresses (Table 18-63). */
  snprintf(name, sizeof name, "MSR_%s_COUNTER%u",
           group[counter / 4 > 3 ? 3 : counter / 4], counter - 12);
  assert_string_equal(name, "MSR_IQ_COUNTER0");
  assert_int_equal(spmu_msr_lookup(&p, name, &ctr_addr), SPMU_OK);
  assert_int_equal(spmu_msr_lookup(&p, "MSR_IQ_CCCR0", &cccr_addr), SPMU_OK);
  assert_int_equal(ctr_addr, 0x30C);
  assert_int_equal(cccr_addr, 0x36C);
  /* 5. WRMSR the ESCR: event select and mask, with OS and USR. */
  assert_int_equal(sel.escr_value, ES_EVSEL(0x02) | ES_MASK(1));
  WR(sel.escr_addr[0], sel.escr_value | ES_T0_OS | ES_T0_USR);
  /* 6. WRMSR the CCCR select value (and the active thread: any). */
  assert_int_equal(sel.cccr_select, 4);
  WR(cccr_addr, CC_SEL(sel.cccr_select) | CC_ANY);
  /* Not enabled yet: nothing counts. */
  assert_int_equal(spmu_deliver_netburst(lp, &clk, 10, &v), 0);
  assert_int_equal(rd(lp, ctr_addr), 0);
  /* 9. Set the enable flag; the counter counts 2 instructions a clock. */
  WR(cccr_addr, CC_SEL(sel.cccr_select) | CC_ANY | CC_EN);
  assert_int_equal(spmu_deliver_netburst(lp, &clk, 10, &v), 0);
  assert_int_equal(v, 10);
  /* 10. RDPMC with the counter number. */
  assert_int_equal(spmu_rdpmc(lp, counter, 0, false, &v), SPMU_OK);
  assert_int_equal(v, 20);
  /* Bogus instructions are not NBOGUSNTAG. */
  ret.bogus = 1;
  assert_int_equal(spmu_deliver_netburst(lp, &clk, 10, NULL), 0);
  assert_int_equal(rd(lp, ctr_addr), 20);
  /* With HT, thread 1's instructions are not thread 0's. */
  if (ht) {
    ret.bogus = 0;
    assert_int_equal(spmu_deliver_netburst(lp_n(1), &clk, 10, NULL), 0);
    assert_int_equal(rd(lp, ctr_addr), 20);
  }
  /* 11. Clear the enable flag to stop counting (18.15.5.5). */
  ret.bogus = 0;
  WR(cccr_addr, CC_SEL(sel.cccr_select) | CC_ANY);
  assert_int_equal(spmu_deliver_netburst(lp, &clk, 10, NULL), 0);
  assert_int_equal(rd(lp, ctr_addr), 20);
}

static void test_setup_procedure_18_15_5_1(void **state)
{
  (void)state;
  setup_procedure_for("pentium4-noht", false);
  setup_procedure_for("pentium4", true);
}

/* ---- SDM 18.15.5.2: filtering -------------------------------------------- */

/* A clock sequence whose ESCR values (the binary number on the four input
 * lines, input k worth 2^k) take every value 0-15. */
static const uint32_t seq[20] = {0, 15, 15, 4,  9, 9, 9, 2,  11, 0,
                                 7, 8,  1,  14, 6, 5, 3, 10, 12, 13};

static uint64_t run_seq(uint64_t cc)
{
  unsigned i;
  use_nb("pentium4-noht");
  program_ctr0(CC_EN | cc);
  for (i = 0; i < 20; i++)
    assert_int_equal(bsq(lp, seq[i], 0), 0);
  return rd(lp, P4_CTR(0));
}

/* SDM 18.15.5.2 and 18.15.3: without COMPARE the counter adds
 * the value (0-15); with COMPARE a clock adds 1 when value > THRESHOLD
 * (COMPLEMENT = 0) or value <= THRESHOLD (COMPLEMENT = 1); EDGE counts the
 * threshold output's false-to-true transitions (Figure 18-46). */
static void test_threshold_filtering_18_15_5_2(void **state)
{
  static const struct {
    unsigned complement, threshold;
    uint64_t level, edge;
  } want[] = {
      {0, 0, 18, 2}, {0, 6, 12, 6}, {0, 14, 2, 1},  {0, 15, 0, 0},
      {1, 0, 2, 2},  {1, 6, 8, 6},  {1, 14, 18, 2}, {1, 15, 20, 1},
  };
  size_t i;
  (void)state;
  assert_int_equal(run_seq(0), 153);
  /* EDGE without COMPARE is inactive. */
  assert_int_equal(run_seq(CC_EDGE), 153);
  /* The example of 18.15.5.2: threshold 6, values of 7 or more count. */
  for (i = 0; i < sizeof want / sizeof want[0]; i++) {
    uint64_t cc =
        CC_CMP | CC_THR(want[i].threshold) | (want[i].complement ? CC_CPL : 0);
    uint64_t level = run_seq(cc), edge = run_seq(cc | CC_EDGE);
    if (level != want[i].level || edge != want[i].edge)
      fail_msg("complement %u threshold %u: %llu / %llu, want %llu / %llu",
               want[i].complement, want[i].threshold, (unsigned long long)level,
               (unsigned long long)edge, (unsigned long long)want[i].level,
               (unsigned long long)want[i].edge);
  }
}

/* SDM 18.15.5.2: the ESCR's value is the sum of the lines its mask selects,
 * at most 15 (four input lines); lines of unselected mask bits and other
 * events do not count. */
static void test_escr_sums_selected_lines_18_15_5_2(void **state)
{
  spmu_nb_line ln[5] = {{BSQ_CACHE_REF, 0, 3},
                        {BSQ_CACHE_REF, 8, 4},
                        {BSQ_CACHE_REF, 1, 100},      /* not in the mask */
                        {SPMU_NB_BSU, 0x05, 0, 100},  /* another event */
                        {SPMU_NB_FSB, 0x0C, 0, 100}}; /* another unit */
  spmu_nb_clock clk = {.lines = ln, .nlines = 5};
  (void)state;
  use_nb("pentium4-noht");
  WR(BSU_ESCR0, ES_EVSEL(0x0C) | ES_MASK(0x101) | ES_T0);
  WR(P4_CCCR(0), CC_SEL(7) | CC_ANY | CC_EN);
  assert_int_equal(spmu_deliver_netburst(lp, &clk, 1, NULL), 0);
  assert_int_equal(rd(lp, P4_CTR(0)), 7);
  ln[0].count = 30; /* 34 saturates at 15 */
  assert_int_equal(spmu_deliver_netburst(lp, &clk, 1, NULL), 0);
  assert_int_equal(rd(lp, P4_CTR(0)), 22);
  /* Threshold 14: 15 passes. */
  WR(P4_CCCR(0), CC_SEL(7) | CC_ANY | CC_EN | CC_CMP | CC_THR(14));
  assert_int_equal(spmu_deliver_netburst(lp, &clk, 3, NULL), 0);
  assert_int_equal(rd(lp, P4_CTR(0)), 25);
}

/* SDM 18.17.2: compare, complement, threshold 15 counts every clock, even
 * clocks without events and clocks the ESCR's CPL bits exclude. */
static void test_every_clock_recipe_18_17_2(void **state)
{
  (void)state;
  use_nb("pentium4-noht");
  WR(BSU_ESCR0, ES_EVSEL(0x0C) | ES_MASK(1) | ES_T0_OS);
  WR(P4_CCCR(0), CC_SEL(7) | CC_ANY | CC_EN | CC_CMP | CC_CPL | CC_THR(15));
  assert_int_equal(line_on(lp, BSQ_CACHE_REF, 0, 0, 3, 20, NULL), 0);
  assert_int_equal(line_on(lp, BSQ_CACHE_REF, 0, 15, 0, 20, NULL), 0);
  assert_int_equal(rd(lp, P4_CTR(0)), 40);
}

/* ---- thread qualification (SDM 18.16.1, 18.16.2, 18.16.4) --------------- */

static uint64_t count_with(uint64_t escr, unsigned from, unsigned cpl)
{
  use_nb("pentium4");
  WR(BSU_ESCR0, ES_EVSEL(0x0C) | ES_MASK(1) | escr);
  WR(P4_CCCR(0), CC_SEL(7) | CC_ANY | CC_EN);
  assert_int_equal(line_on(lp_n(from), BSQ_CACHE_REF, 0, 1, cpl, 5, NULL), 0);
  return rd(lp, P4_CTR(0));
}

/* Table 18-66 (thread-specific events): T0_OS/T0_USR count only logical
 * processor 0's events at CPL 0 / > 0, T1_OS/T1_USR only logical
 * processor 1's; nothing with all four clear. */
static void test_thread_qualification_table_18_66(void **state)
{
  static const struct {
    uint64_t escr;
    unsigned from, cpl;
    uint64_t want;
  } t[] = {
      {ES_T0, 0, 0, 5},
      {ES_T0, 0, 3, 5},
      {ES_T0, 1, 0, 0},
      {ES_T0, 1, 3, 0},
      {ES_T1, 1, 0, 5},
      {ES_T1, 1, 3, 5},
      {ES_T1, 0, 0, 0},
      {ES_T1, 0, 3, 0},
      {ES_T0_OS, 0, 0, 5},
      {ES_T0_OS, 0, 3, 0},
      {ES_T0_USR, 0, 1, 5},
      {ES_T0_USR, 0, 0, 0},
      {ES_T0_OS | ES_T1_USR, 0, 0, 5},
      {ES_T0_OS | ES_T1_USR, 0, 3, 0},
      {ES_T0_OS | ES_T1_USR, 1, 3, 5},
      {ES_T0_OS | ES_T1_USR, 1, 0, 0},
      {0, 0, 0, 0},
      {0, 1, 3, 0},
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof t / sizeof t[0]; i++) {
    uint64_t got = count_with(t[i].escr, t[i].from, t[i].cpl);
    if (got != t[i].want)
      fail_msg("ESCR bits %#llx, LP %u at CPL %u: %llu, want %llu",
               (unsigned long long)t[i].escr, t[i].from, t[i].cpl,
               (unsigned long long)got, (unsigned long long)t[i].want);
  }
}

/* Table 18-67 (thread-independent events, Table 19-34: FSB_data_activity):
 * either thread's OS / USR bit counts the event at that CPL whichever
 * logical processor delivers it. */
static void test_thread_independent_table_18_67(void **state)
{
  (void)state;
  use_nb("pentium4");
  WR(FSB_ESCR0, ES_EVSEL(0x17) | ES_MASK(1) | ES_T0_USR);
  WR(P4_CCCR(0), CC_SEL(6) | CC_ANY | CC_EN);
  assert_int_equal(line_on(lp_n(1), FSB_DATA, 0, 1, 3, 4, NULL), 0);
  assert_int_equal(line_on(lp_n(1), FSB_DATA, 0, 1, 0, 4, NULL), 0);
  assert_int_equal(rd(lp, P4_CTR(0)), 4);
  WR(FSB_ESCR0, ES_EVSEL(0x17) | ES_MASK(1) | ES_T1_OS);
  assert_int_equal(line_on(lp, FSB_DATA, 0, 1, 0, 4, NULL), 0);
  assert_int_equal(rd(lp, P4_CTR(0)), 8);
}

/* SDM 18.16.2: the CCCR's active-thread field counts when 00 neither, 01
 * exactly one, 10 both, 11 at least one logical processor is active (a
 * halted one is inactive: spmu_nb_clock.inactive). */
static void test_active_thread_18_16_2(void **state)
{
  static const uint64_t want[4][4] = {
      /* inactive = 0 (both active), 1, 2, 3 (both halted) */
      {0, 0, 0, 1}, /* 00 none */
      {0, 1, 1, 0}, /* 01 single */
      {1, 0, 0, 0}, /* 10 both */
      {1, 1, 1, 0}, /* 11 any */
  };
  unsigned field, inactive;
  (void)state;
  for (field = 0; field < 4; field++)
    for (inactive = 0; inactive < 4; inactive++) {
      spmu_nb_line ln = {BSQ_CACHE_REF, 0, 1};
      spmu_nb_clock clk = {
          .lines = &ln, .nlines = 1, .inactive = (uint8_t)inactive};
      use_nb("pentium4");
      WR(BSU_ESCR0, ES_EVSEL(0x0C) | ES_MASK(1) | ES_T0 | ES_T1);
      WR(P4_CCCR(0), CC_SEL(7) | CC_ACT(field) | CC_EN);
      assert_int_equal(spmu_deliver_netburst(lp, &clk, 1, NULL), 0);
      if (rd(lp, P4_CTR(0)) != want[field][inactive])
        fail_msg("active thread %u, inactive %#x: %llu", field, inactive,
                 (unsigned long long)rd(lp, P4_CTR(0)));
    }
}

/* ---- overflow and the PMI (SDM 18.15.3, 18.15.5.5, 18.15.5.8) ----------- */

/* "The PMI is generated on the next event count after the counter has
 * overflowed": preset to -99, the counter overflows at the 99th event and
 * interrupts at the 100th (18.15.5.8); OVF is sticky until software clears
 * it; no further PMI without a further overflow. */
static void test_pmi_on_next_increment_18_15_5_8(void **state)
{
  uint64_t used;
  unsigned i;
  (void)state;
  use_nb("pentium4-noht");
  program_ctr0(CC_EN | CC_PMI0);
  WR(P4_CTR(0), (0 - UINT64_C(99)) & W40);
  for (i = 0; i < 98; i++)
    assert_int_equal(bsq(lp, 1, 0), 0);
  assert_int_equal(rd(lp, P4_CCCR(0)) & CC_OVF, 0);
  assert_int_equal(bsq(lp, 1, 0), 0); /* the 99th: overflow, no PMI */
  assert_int_equal(rd(lp, P4_CTR(0)), 0);
  assert_true(rd(lp, P4_CCCR(0)) & CC_OVF);
  assert_int_equal(pmis[0], 0);
  /* Clocks without an increment do not deliver it. */
  assert_int_equal(bsq(lp, 0, 0), 0);
  assert_int_equal(pmis[0], 0);
  assert_int_equal(bsq(lp, 1, 0), SPMU_TICK_PMI); /* the 100th */
  assert_int_equal(pmis[0], 1);
  /* Sticky: still set, and no more PMIs. */
  assert_int_equal(line_on(lp, BSQ_CACHE_REF, 0, 1, 0, 1000, &used), 0);
  assert_int_equal(used, 1000);
  assert_int_equal(pmis[0], 1);
  assert_true(rd(lp, P4_CCCR(0)) & CC_OVF);
  WR(P4_CCCR(0), rd(lp, P4_CCCR(0)) & ~CC_OVF);
  assert_int_equal(rd(lp, P4_CCCR(0)) & CC_OVF, 0);

  /* The same in one batch: it stops at the 100th clock. */
  use_nb("pentium4-noht");
  program_ctr0(CC_EN | CC_PMI0);
  WR(P4_CTR(0), (0 - UINT64_C(99)) & W40);
  assert_int_equal(line_on(lp, BSQ_CACHE_REF, 0, 1, 0, 5000, &used),
                   SPMU_TICK_PMI);
  assert_int_equal(used, 100);
  assert_int_equal(rd(lp, P4_CTR(0)), 1);
  assert_int_equal(pmis[0], 1);

  /* Software clearing OVF before the next increment drops the PMI. */
  use_nb("pentium4-noht");
  program_ctr0(CC_EN | CC_PMI0);
  WR(P4_CTR(0), W40);
  assert_int_equal(bsq(lp, 1, 0), 0);
  WR(P4_CCCR(0), rd(lp, P4_CCCR(0)) & ~CC_OVF);
  assert_int_equal(bsq(lp, 1, 0), 0);
  assert_int_equal(pmis[0], 0);
}

/* SDM 18.16.2: OVF_PMI_T0 / OVF_PMI_T1 send the PMI to logical processor
 * 0 / 1, whichever delivers the counted event. */
static void test_pmi_to_thread_18_16_2(void **state)
{
  (void)state;
  use_nb("pentium4");
  WR(BSU_ESCR0, ES_EVSEL(0x0C) | ES_MASK(1) | ES_T0 | ES_T1);
  WR(P4_CCCR(0), CC_SEL(7) | CC_ANY | CC_EN | CC_PMI1);
  WR(P4_CTR(0), W40);
  assert_int_equal(line_on(lp, BSQ_CACHE_REF, 0, 1, 0, 2, NULL), SPMU_TICK_PMI);
  assert_int_equal(pmis[0], 0);
  assert_int_equal(pmis[1], 1);
  WR(P4_CCCR(0), CC_SEL(7) | CC_ANY | CC_EN | CC_PMI0 | CC_PMI1);
  WR(P4_CTR(0), W40);
  assert_int_equal(line_on(lp_n(1), BSQ_CACHE_REF, 0, 1, 0, 2, NULL),
                   SPMU_TICK_PMI);
  assert_int_equal(pmis[0], 1);
  assert_int_equal(pmis[1], 2);
  /* The delivering logical processor first. */
  assert_int_equal(pmi_order[1], 1);
  assert_int_equal(pmi_order[2], 0);
}

/* SDM 18.15.5.8: FORCE_OVF makes every increment an overflow, so from the
 * second increment on every increment interrupts (each one delivers the
 * PMI of the overflow before it); clocks without an increment do not. */
static void test_force_ovf_every_increment_18_15_5_8(void **state)
{
  uint64_t used;
  unsigned i;
  (void)state;
  use_nb("pentium4-noht");
  program_ctr0(CC_EN | CC_PMI0 | CC_FORCE);
  assert_int_equal(bsq(lp, 1, 0), 0);
  assert_true(rd(lp, P4_CCCR(0)) & CC_OVF);
  for (i = 0; i < 10; i++) {
    assert_int_equal(bsq(lp, 2, 0), SPMU_TICK_PMI);
    assert_int_equal(bsq(lp, 0, 0), 0);
  }
  assert_int_equal(pmis[0], 10);
  assert_int_equal(rd(lp, P4_CTR(0)), 21);
  /* Batches stop at every increment. */
  assert_int_equal(line_on(lp, BSQ_CACHE_REF, 0, 1, 0, 100, &used),
                   SPMU_TICK_PMI);
  assert_int_equal(used, 1);
  /* Without OVF_PMI, FORCE_OVF only sets OVF; batches are closed form. */
  use_nb("pentium4-noht");
  program_ctr0(CC_EN | CC_FORCE);
  assert_int_equal(line_on(lp, BSQ_CACHE_REF, 0, 1, 0, 100, &used), 0);
  assert_int_equal(used, 100);
  assert_int_equal(rd(lp, P4_CTR(0)), 100);
  assert_true(rd(lp, P4_CCCR(0)) & CC_OVF);
  assert_int_equal(pmis[0], 0);
}

/* ---- cascading (SDM 18.15.2, 18.15.5.5-18.15.5.7) ----------------------- */

/* Counter 0 overflowing starts counter 2 (CASCADE set, ENABLE clear), from
 * the next clock; clearing counter 2's CASCADE or counter 0's OVF halts it
 * (18.15.5.5). */
static void test_cascade_0_to_2_18_15_5_6(void **state)
{
  (void)state;
  use_nb("pentium4-noht");
  WR(BSU_ESCR0, ES_EVSEL(0x0C) | ES_MASK(1) | ES_T0);
  WR(BSU_ESCR1, ES_EVSEL(0x0C) | ES_MASK(1) | ES_T0);
  WR(P4_CCCR(0), CC_SEL(7) | CC_ANY | CC_EN);
  WR(P4_CCCR(2), CC_SEL(7) | CC_ANY | CC_CASCADE);
  WR(P4_CTR(0), W40 - 2); /* -3 */
  assert_int_equal(line_on(lp, BSQ_CACHE_REF, 0, 1, 0, 10, NULL), 0);
  assert_int_equal(rd(lp, P4_CTR(0)), 7);
  assert_int_equal(rd(lp, P4_CTR(2)), 7); /* clocks 4-10 */
  WR(P4_CCCR(2), CC_SEL(7) | CC_ANY);
  assert_int_equal(line_on(lp, BSQ_CACHE_REF, 0, 1, 0, 10, NULL), 0);
  assert_int_equal(rd(lp, P4_CTR(2)), 7);
  WR(P4_CCCR(2), CC_SEL(7) | CC_ANY | CC_CASCADE);
  assert_int_equal(line_on(lp, BSQ_CACHE_REF, 0, 1, 0, 10, NULL), 0);
  assert_int_equal(rd(lp, P4_CTR(2)), 17);
  WR(P4_CCCR(0), CC_SEL(7) | CC_ANY | CC_EN);
  assert_int_equal(line_on(lp, BSQ_CACHE_REF, 0, 1, 0, 10, NULL), 0);
  assert_int_equal(rd(lp, P4_CTR(2)), 17);
  assert_int_equal(rd(lp, P4_CTR(0)), 37);
  /* The other way round: counter 2 starts counter 0. */
  WR(P4_CCCR(0), CC_SEL(7) | CC_ANY | CC_CASCADE);
  WR(P4_CCCR(2), CC_SEL(7) | CC_ANY | CC_EN);
  WR(P4_CTR(2), W40);
  assert_int_equal(line_on(lp, BSQ_CACHE_REF, 0, 1, 0, 3, NULL), 0);
  assert_int_equal(rd(lp, P4_CTR(0)), 39);
}

/* SDM 18.15.5.6: in the IQ group counter 16 is started only by counter 14
 * (not 12) and 17 only by 15; 14 is not started by 16. Extended cascading
 * (18.15.5.7, Table 18-65): IQ_CCCR0 bit 11 lets counter 16 start counter
 * 12. */
static void test_iq_cascading_18_15_5_7(void **state)
{
  spmu_nb_line ln[2] = {{BRANCH_RETIRED, 0, 1}, {BRANCH_RETIRED, 1, 1}};
  spmu_nb_clock clk = {.lines = ln, .nlines = 2};
  (void)state;
  use_nb("pentium4-noht");
  WR(CRU_ESCR2, ES_EVSEL(0x06) | ES_MASK(1) | ES_T0);
  WR(CRU_ESCR3, ES_EVSEL(0x06) | ES_MASK(2) | ES_T0);
  WR(P4_CCCR(12), CC_SEL(5) | CC_ANY | CC_EN);
  WR(P4_CTR(12), W40);
  WR(P4_CCCR(16), CC_SEL(5) | CC_ANY | CC_CASCADE);
  WR(P4_CCCR(14), CC_SEL(5) | CC_ANY | CC_CASCADE);
  assert_int_equal(spmu_deliver_netburst(lp, &clk, 5, NULL), 0);
  assert_int_equal(rd(lp, P4_CTR(16)), 0); /* 12 does not start 16 */
  assert_int_equal(rd(lp, P4_CTR(14)), 4); /* 12 starts 14 */
  WR(P4_CCCR(14), CC_SEL(5) | CC_ANY | CC_EN);
  WR(P4_CTR(14), W40);
  assert_int_equal(spmu_deliver_netburst(lp, &clk, 5, NULL), 0);
  assert_int_equal(rd(lp, P4_CTR(16)), 4); /* 14 starts 16 */
  /* 16 overflowing does not start 14 by CASCADE. */
  WR(P4_CCCR(14), CC_SEL(5) | CC_ANY | CC_CASCADE);
  WR(P4_CCCR(12), CC_SEL(5) | CC_ANY);
  WR(P4_CCCR(16), CC_SEL(5) | CC_ANY | CC_EN);
  WR(P4_CTR(14), 0);
  WR(P4_CTR(16), W40);
  assert_int_equal(spmu_deliver_netburst(lp, &clk, 5, NULL), 0);
  assert_int_equal(rd(lp, P4_CTR(14)), 0);
  /* Extended cascading: CASCNT4INTO0 on IQ_CCCR0, neither ENABLE nor
   * CASCADE (Example 18-2's CCCR0 value 04038800H: OVF_PMI, active any,
   * select 4, bit 11 — here with select 5). */
  WR(P4_CCCR(12), CC_SEL(5) | CC_ANY | CC_EXT);
  WR(P4_CTR(12), 0);
  assert_int_equal(spmu_deliver_netburst(lp, &clk, 5, NULL), 0);
  assert_int_equal(rd(lp, P4_CTR(12)), 5);
  WR(P4_CCCR(16), CC_SEL(5) | CC_ANY | CC_EN); /* clears OVF: halts 12 */
  assert_int_equal(spmu_deliver_netburst(lp, &clk, 5, NULL), 0);
  assert_int_equal(rd(lp, P4_CTR(12)), 5);
}

/* SDM 18.15.5.7 Example 18-2, in spirit: counter 16 counts logical
 * processor 0's retired instructions from -4096 (the example's FFFFF000H
 * is -4096 only in 32 bits; the counters take 40), and its overflow starts
 * counter 12 by CASCNT4INTO0, which then counts logical processor 1's
 * branches and interrupts logical processor 0 at its next increment after
 * overflowing. (The example programs CRU_ESCR2 but selects ESCR 4,
 * CRU_ESCR0, in IQ_CCCR4; counter 12 here uses CRU_ESCR2.) */
static void test_extended_cascade_example_18_2(void **state)
{
  spmu_nb_retire ret = {.uops = 1, .instrs = 1};
  spmu_nb_clock c0 = {.retire = &ret, .nretire = 1};
  spmu_nb_line br = {BRANCH_RETIRED, 0, 1};
  spmu_nb_clock c1 = {.lines = &br, .nlines = 1, .cpl = 3};
  uint64_t used;
  (void)state;
  use_nb("pentium4");
  WR(P4_CTR(12), W40 - 9);
  WR(CRU_ESCR2, ES_EVSEL(0x06) | ES_MASK(1) | ES_T1);
  WR(P4_CCCR(12), CC_PMI0 | CC_ANY | CC_SEL(5) | CC_EXT);
  WR(P4_CTR(16), (0 - UINT64_C(4096)) & W40);
  WR(CRU_ESCR0, ES_EVSEL(0x02) | ES_MASK(3) | ES_T0);
  WR(P4_CCCR(16), CC_ANY | CC_SEL(4) | CC_EN);
  /* Thread 1's branches before the start are not counted. */
  assert_int_equal(spmu_deliver_netburst(lp_n(1), &c1, 100, NULL), 0);
  assert_int_equal(rd(lp, P4_CTR(12)), W40 - 9);
  assert_int_equal(spmu_deliver_netburst(lp, &c0, 4096, &used), 0);
  assert_int_equal(used, 4096);
  assert_true(rd(lp, P4_CCCR(16)) & CC_OVF);
  assert_int_equal(spmu_deliver_netburst(lp_n(1), &c1, 100, &used),
                   SPMU_TICK_PMI);
  assert_int_equal(used, 11);
  assert_int_equal(pmis[0], 1);
  assert_int_equal(pmis[1], 0);
}

/* ---- Linux's P4 PMI handler (SDM 18.15.5.8) ------------------------------ */

struct sampler {
  unsigned pmis;
};

static void sampler_pmi(void *opaque, spmu_lp *l)
{
  (void)l;
  ((struct sampler *)opaque)->pmis++;
}

/* As Linux's p4_pmu_handle_irq does: for each active counter read the CCCR;
 * if OVF is set, write the CCCR with OVF cleared and the counter with
 * -(period - overshoot); the LVT is unmasked after every OVF is clear.
 * Run against the model, it recovers every overflow: the samples times the
 * period plus what the counters hold equal the events delivered. */
static void test_linux_p4_pmi_handler_flow(void **state)
{
  static const unsigned ctr[2] = {0, 12};
  static const uint64_t period[2] = {1000, 777};
  spmu_nb_line ln[2] = {{BSQ_CACHE_REF, 0, 3}, {BRANCH_RETIRED, 2, 1}};
  spmu_nb_clock clk = {.lines = ln, .nlines = 2, .cpl = 3};
  struct sampler s = {0};
  spmu_host h = {.opaque = &s, .pmi = sampler_pmi};
  uint64_t samples[2] = {0, 0}, clocks = 0, left = 100000;
  unsigned i;
  (void)state;
  use("pentium4-noht");
  spmu_core_set_host(core, &h);
  WR(BSU_ESCR0, ES_EVSEL(0x0C) | ES_MASK(1) | ES_T0);
  WR(CRU_ESCR2, ES_EVSEL(0x06) | ES_MASK(4) | ES_T0);
  WR(P4_CCCR(0), CC_SEL(7) | CC_ANY | CC_EN | CC_PMI0);
  WR(P4_CCCR(12), CC_SEL(5) | CC_ANY | CC_EN | CC_PMI0);
  for (i = 0; i < 2; i++)
    WR(P4_CTR(ctr[i]), (0 - period[i]) & W40);
  while (left) {
    uint64_t used;
    unsigned before = s.pmis;
    assert_true(spmu_deliver_netburst(lp, &clk, left, &used) >= 0);
    left -= used;
    clocks += used;
    if (s.pmis == before)
      continue;
    for (i = 0; i < 2; i++) {
      uint64_t cc = rd(lp, P4_CCCR(ctr[i]));
      if (!(cc & CC_OVF))
        continue;
      WR(P4_CCCR(ctr[i]), cc & ~CC_OVF);
      /* The counter passed 0 by `over` events since the overflow. */
      WR(P4_CTR(ctr[i]), (rd(lp, P4_CTR(ctr[i])) - period[i]) & W40);
      samples[i]++;
    }
  }
  assert_int_equal(clocks, 100000);
  for (i = 0; i < 2; i++) {
    uint64_t held = (rd(lp, P4_CTR(ctr[i])) + period[i]) & W40;
    uint64_t events = i == 0 ? 300000 : 100000;
    assert_int_equal(samples[i] * period[i] + held, events);
    assert_int_equal(samples[i],
                     events / period[i] - (events % period[i] == 0 ? 1 : 0));
  }
  /* One PMI may serve overflows of both counters. */
  assert_true(s.pmis >= 1 && s.pmis <= samples[0] + samples[1]);
}

/* ---- RDPMC (SDM Vol. 2B RDPMC, NetBurst) ------------------------------- */

/* RDPMC index n reads counter n (0-17): 40 bits, or with ECX[31] the fast
 * read, EAX = bits 31:0 and EDX = 0; other indices #GP; CPL > 0 needs
 * CR4.PCE. */
static void test_rdpmc_fast_read_vol2(void **state)
{
  uint64_t v;
  unsigned n;
  (void)state;
  use_nb("pentium4");
  for (n = 0; n < 18; n++)
    WR(P4_CTR(n), 0xAB00000000 | 0x12345678u * (n + 1));
  for (n = 0; n < 18; n++) {
    uint64_t want = rd(lp, P4_CTR(n));
    assert_int_equal(spmu_rdpmc(lp, n, 0, false, &v), SPMU_OK);
    assert_int_equal(v, want);
    assert_int_equal(spmu_rdpmc(lp_n(1), 0x80000000u | n, 0, false, &v),
                     SPMU_OK);
    assert_int_equal(v, want & 0xffffffffu);
  }
  assert_int_equal(spmu_rdpmc(lp, 18, 0, false, &v), SPMU_GP);
  assert_int_equal(spmu_rdpmc(lp, 0x80000012u, 0, false, &v), SPMU_GP);
  assert_int_equal(spmu_rdpmc(lp, 0x40000000u, 0, false, &v), SPMU_GP);
  assert_int_equal(spmu_rdpmc(lp, 0, 3, false, &v), SPMU_GP);
  assert_int_equal(spmu_rdpmc(lp, 0, 3, true, &v), SPMU_OK);
}

/* ---- at-retirement tagging (SDM 18.15.6) -------------------------------- */

/* Front-end tagging (18.15.6.2, Table 19-31): uop_type with TAGLOADS tags
 * loads; front_end_event NBOGUS counts the tagged non-bogus uops and
 * instr_retired splits instructions into tagged and not. */
static void test_front_end_tagging_18_15_6_2(void **state)
{
  spmu_nb_retire ret[3] = {
      {.uops = 2, .instrs = 1, .kind = 0x01}, /* loads */
      {.uops = 3, .instrs = 2, .kind = 0x02}, /* stores */
      {.uops = 1, .instrs = 1, .kind = 0x01, .bogus = 1},
  };
  spmu_nb_clock clk = {.retire = ret, .nretire = 3};
  (void)state;
  use_nb("pentium4-noht");
  WR(RAT_ESCR0, ES_EVSEL(0x02) | ES_MASK(2) | ES_T0); /* TAGLOADS */
  WR(CRU_ESCR2, ES_EVSEL(0x08) | ES_MASK(1) | ES_T0); /* NBOGUS */
  WR(CRU_ESCR3, ES_EVSEL(0x08) | ES_MASK(2) | ES_T0); /* BOGUS */
  WR(CRU_ESCR0, ES_EVSEL(0x02) | ES_MASK(2) | ES_T0); /* NBOGUSTAG */
  WR(CRU_ESCR1, ES_EVSEL(0x02) | ES_MASK(1) | ES_T0); /* NBOGUSNTAG */
  WR(P4_CCCR(12), CC_SEL(5) | CC_ANY | CC_EN);
  WR(P4_CCCR(14), CC_SEL(5) | CC_ANY | CC_EN);
  WR(P4_CCCR(13), CC_SEL(4) | CC_ANY | CC_EN);
  WR(P4_CCCR(15), CC_SEL(4) | CC_ANY | CC_EN);
  assert_int_equal(spmu_deliver_netburst(lp, &clk, 10, NULL), 0);
  assert_int_equal(rd(lp, P4_CTR(12)), 20);
  assert_int_equal(rd(lp, P4_CTR(14)), 10);
  assert_int_equal(rd(lp, P4_CTR(13)), 10);
  assert_int_equal(rd(lp, P4_CTR(15)), 20);
  /* TAGSTORES as well: stores are tagged too. */
  WR(RAT_ESCR0, ES_EVSEL(0x02) | ES_MASK(6) | ES_T0);
  assert_int_equal(spmu_deliver_netburst(lp, &clk, 1, NULL), 0);
  assert_int_equal(rd(lp, P4_CTR(12)), 25);
  assert_int_equal(rd(lp, P4_CTR(15)), 20);
}

/* Execution tagging (18.15.6.3, Table 19-32): an upstream ESCR (packed_SP_
 * uop, ALL) with TAG_ENABLE and TAG_VALUE 1 tags the uops that meet its
 * event; execution_event NBOGUS0 counts them once each; NBOGUS1 (tag bit
 * 1) does not. */
static void test_execution_tagging_18_15_6_3(void **state)
{
  spmu_nb_retire ret[2] = {
      {.uops = 2,
       .exec_unit = SPMU_NB_FIRM,
       .exec_evsel = 0x08,
       .exec_bit = 15},
      {.uops = 5},
  };
  spmu_nb_clock clk = {.retire = ret, .nretire = 2};
  (void)state;
  use_nb("pentium4-noht");
  WR(FIRM_ESCR0, ES_EVSEL(0x08) | ES_MASK(0x8000) | ES_TAG(1) | ES_T0);
  WR(CRU_ESCR2, ES_EVSEL(0x0C) | ES_MASK(0x3) | ES_T0); /* NBOGUS0-1 */
  WR(CRU_ESCR3, ES_EVSEL(0x0C) | ES_MASK(0x2) | ES_T0); /* NBOGUS1 */
  WR(P4_CCCR(12), CC_SEL(5) | CC_ANY | CC_EN);
  WR(P4_CCCR(14), CC_SEL(5) | CC_ANY | CC_EN);
  assert_int_equal(spmu_deliver_netburst(lp, &clk, 7, NULL), 0);
  assert_int_equal(rd(lp, P4_CTR(12)), 14);
  assert_int_equal(rd(lp, P4_CTR(14)), 0);
  /* Tag value 3: both bits set, still one count per uop. */
  WR(FIRM_ESCR0, ES_EVSEL(0x08) | ES_MASK(0x8000) | ES_TAG(3) | ES_T0);
  assert_int_equal(spmu_deliver_netburst(lp, &clk, 1, NULL), 0);
  assert_int_equal(rd(lp, P4_CTR(12)), 16);
  assert_int_equal(rd(lp, P4_CTR(14)), 2);
}

/* Replay tagging (18.15.6.4, Table 19-33): 1stL_cache_load_miss_retired
 * is PEBS_ENABLE bit 0 with UOP_TAG, MATRIX_VERT bit 0; replay_event NBOGUS
 * counts the tagged loads; DTLB_store_miss_retired (bit 2, VERT bit 1)
 * does not tag loads; without UOP_TAG nothing is tagged. */
static void test_replay_tagging_18_15_6_4(void **state)
{
  spmu_nb_retire ret[3] = {
      {.uops = 1, .kind = 0x01, .replay = 0x1}, /* load, 1stL miss */
      {.uops = 2, .kind = 0x01, .replay = 0x4}, /* load, DTLB miss */
      {.uops = 4, .kind = 0x02, .replay = 0x5}, /* store, both */
  };
  spmu_nb_clock clk = {.retire = ret, .nretire = 3};
  (void)state;
  use_nb("pentium4-noht");
  WR(CRU_ESCR2, ES_EVSEL(0x09) | ES_MASK(1) | ES_T0);
  WR(P4_CCCR(12), CC_SEL(5) | CC_ANY | CC_EN);
  WR(MSR_P4_PEBS_ENABLE, PE_UOP_TAG | 0x1);
  WR(MSR_MATRIX_VERT, 0x1);
  assert_int_equal(spmu_deliver_netburst(lp, &clk, 3, NULL), 0);
  assert_int_equal(rd(lp, P4_CTR(12)), 3);
  WR(MSR_P4_PEBS_ENABLE, PE_UOP_TAG | 0x4); /* DTLB_store_miss_retired */
  WR(MSR_MATRIX_VERT, 0x2);
  assert_int_equal(spmu_deliver_netburst(lp, &clk, 1, NULL), 0);
  assert_int_equal(rd(lp, P4_CTR(12)), 7);
  WR(MSR_P4_PEBS_ENABLE, 0x4);
  assert_int_equal(spmu_deliver_netburst(lp, &clk, 1, NULL), 0);
  assert_int_equal(rd(lp, P4_CTR(12)), 7);
}

/* ---- P4 PEBS (SDM 18.15.7, 18.16.3, 17.4.9) ----------------------------- */

static guest_mem *gm;

/* The 32-bit DS management area (SDM Figure 17-5): PEBS base 10H, index
 * 14H, absolute maximum 18H, interrupt threshold 1CH, counter reset 20H. */
static void ds32(uint64_t max, uint64_t threshold, uint64_t reset)
{
  gm_put(gm, GM_DS + 0x10, GM_PEBS, 4);
  gm_put(gm, GM_DS + 0x14, GM_PEBS, 4);
  gm_put(gm, GM_DS + 0x18, max, 4);
  gm_put(gm, GM_DS + 0x1C, threshold, 4);
  gm_put(gm, GM_DS + 0x20, reset, 8);
}

static void machine(void)
{
  unsigned i;
  gm->state.rflags = 0x246;
  gm->state.ip = 0x8048123;
  gm->state.next_ip = 0x8048127;
  for (i = 0; i < 16; i++)
    gm->state.gpr[i] = 0x11111111u * (i + 1) | UINT64_C(0xAB) << 40;
}

/* PEBS on replay_event with 1stL_cache_load_miss_retired, the setup of
 * 18.15.7.3 on logical processor t's counter (16 + t). */
static void pebs_setup(spmu_lp *l, unsigned t)
{
  unsigned c = 16 + t;
  assert_int_equal(spmu_wrmsr(l, MSR_DS_AREA, GM_DS), SPMU_OK);
  assert_int_equal(
      spmu_wrmsr(l, MSR_P4_PEBS_ENABLE, PE_UOP_TAG | PE_MY_THR | 0x1), SPMU_OK);
  assert_int_equal(spmu_wrmsr(l, MSR_MATRIX_VERT, 0x1), SPMU_OK);
  assert_int_equal(
      spmu_wrmsr(l, t ? CRU_ESCR3 : CRU_ESCR2,
                 ES_EVSEL(0x09) | ES_MASK(1) | (t ? ES_T1 : ES_T0)),
      SPMU_OK);
  assert_int_equal(spmu_wrmsr(l, P4_CCCR(c), CC_SEL(5) | CC_ANY | CC_EN),
                   SPMU_OK);
  assert_int_equal(spmu_wrmsr(l, P4_CTR(c), W40 - 1), SPMU_OK); /* -2 */
}

static const spmu_nb_retire load_miss = {
    .uops = 1, .kind = 0x01, .replay = 0x1};

/* SDM 18.15.7, 17.4.9 Figure 17-7: after IQ_COUNTER4 overflows, the next
 * event writes the 40-byte record (EFLAGS, linear IP, EAX, EBX, ECX, EDX,
 * ESI, EDI, EBP, ESP) at the PEBS index, advances the index by 40, and
 * reloads the counter from the DS area's reset value; nothing else in
 * memory changes. */
static void test_p4_pebs_record_32bit_18_15_7(void **state)
{
  static const unsigned order[8] = {0, 3, 1, 2, 6, 7, 5, 4};
  spmu_nb_clock clk = {.retire = &load_miss, .nretire = 1};
  uint64_t used;
  unsigned i;
  (void)state;
  use_nb("pentium4-noht");
  gm = calloc(1, sizeof *gm);
  gm_attach(gm, core);
  machine();
  ds32(GM_PEBS + 40 * 10, GM_PEBS + 40 * 8, W40 - 99);
  pebs_setup(lp, 0);
  assert_int_equal(spmu_deliver_netburst(lp, &clk, 2, &used), 0);
  assert_int_equal(rd(lp, P4_CTR(16)), 0); /* wrapped, armed */
  gm->nlog = 0;
  assert_int_equal(spmu_deliver_netburst(lp, &clk, 5, &used), SPMU_TICK_PEBS);
  assert_int_equal(used, 1);
  assert_int_equal(gm_get(gm, GM_PEBS, 4), 0x246);
  assert_int_equal(gm_get(gm, GM_PEBS + 4, 4), 0x8048123);
  for (i = 0; i < 8; i++)
    assert_int_equal(gm_get(gm, GM_PEBS + 8 + 4 * i, 4),
                     (uint32_t)(0x11111111u * (order[i] + 1)));
  assert_int_equal(gm_get(gm, GM_DS + 0x14, 4), GM_PEBS + 40);
  assert_int_equal(gm->nlog, 2);
  assert_int_equal(gm->log[0].la, GM_PEBS);
  assert_int_equal(gm->log[0].len, 40);
  assert_int_equal(gm->log[1].la, GM_DS + 0x14);
  assert_int_equal(rd(lp, P4_CTR(16)), W40 - 99);
  /* 100 more events: overflow at the 100th, the record at the 101st. */
  assert_int_equal(spmu_deliver_netburst(lp, &clk, 1000, &used),
                   SPMU_TICK_PEBS);
  assert_int_equal(used, 101);
  assert_int_equal(gm_get(gm, GM_DS + 0x14, 4), GM_PEBS + 80);
  /* Untagged uops (no replay cause) are not counted. */
  {
    spmu_nb_retire plain = {.uops = 1, .kind = 0x01};
    spmu_nb_clock c2 = {.retire = &plain, .nretire = 1};
    assert_int_equal(spmu_deliver_netburst(lp, &c2, 1000, &used), 0);
    assert_int_equal(rd(lp, P4_CTR(16)), W40 - 99);
  }
  free(gm);
  gm = NULL;
}

/* SDM 17.4.9.1 Figure 17-10: with the 64-bit DS layout (DTES64, or IA-32e
 * mode) the record is RFLAGS, RIP, RAX, RBX, RCX, RDX, RSI, RDI, RBP, RSP,
 * R8-R15, 8 bytes each (144 bytes), the reset value at 40H. At the
 * interrupt threshold the assist requests a PMI. */
static void test_p4_pebs_record_64bit_17_4_9_1(void **state)
{
  static const unsigned order[16] = {0, 3, 1,  2,  6,  7,  5,  4,
                                     8, 9, 10, 11, 12, 13, 14, 15};
  spmu_nb_clock clk = {
      .retire = &load_miss, .nretire = 1, .flags = SPMU_CLK_IA32E};
  unsigned i;
  (void)state;
  use_nb("pentium4-noht");
  gm = calloc(1, sizeof *gm);
  gm_attach(gm, core);
  machine();
  gm_ds64(gm, GM_PEBS, GM_PEBS + 144 * 4, GM_PEBS + 144);
  gm_put(gm, GM_DS + 0x40, W40 - 9, 8);
  pebs_setup(lp, 0);
  assert_int_equal(spmu_deliver_netburst(lp, &clk, 3, NULL),
                   SPMU_TICK_PEBS | SPMU_TICK_PMI);
  assert_int_equal(gm_index64(gm), GM_PEBS + 144);
  assert_int_equal(gm_get(gm, GM_PEBS, 8), 0x246);
  assert_int_equal(gm_get(gm, GM_PEBS + 8, 8), 0x8048123);
  for (i = 0; i < 16; i++)
    assert_int_equal(gm_get(gm, GM_PEBS + 16 + 8 * i, 8),
                     gm->state.gpr[order[i]]);
  assert_int_equal(rd(lp, P4_CTR(16)), W40 - 9);
  assert_int_equal(gm->pmis, 1);
  free(gm);
  gm = NULL;
}

/* SDM 18.16.3: with HT, logical processor 1's PEBS counter is IQ_COUNTER5
 * (IQ_CCCR5), enabled by its own ENABLE_PEBS_MY_THR; its records go to its
 * own DS area. Logical processor 0's PEBS stays off. */
static void test_p4_pebs_thread1_18_16_3(void **state)
{
  spmu_nb_clock clk = {.retire = &load_miss, .nretire = 1};
  spmu_lp *l1;
  (void)state;
  use_nb("pentium4");
  l1 = lp_n(1);
  gm = calloc(1, sizeof *gm);
  gm_attach(gm, core);
  machine();
  ds32(GM_PEBS + 400, GM_PEBS + 400, 0);
  pebs_setup(l1, 1);
  assert_int_equal(rd(lp, MSR_P4_PEBS_ENABLE), PE_OTH_THR | PE_UOP_TAG | 1);
  assert_int_equal(spmu_deliver_netburst(lp, &clk, 5, NULL), 0);
  assert_int_equal(rd(lp, P4_CTR(17)), W40 - 1); /* T1 only */
  assert_int_equal(spmu_deliver_netburst(l1, &clk, 5, NULL), SPMU_TICK_PEBS);
  assert_int_equal(gm_get(gm, GM_DS + 0x14, 4), GM_PEBS + 40);
  assert_int_equal(rd(lp, P4_CTR(17)), 0);
  free(gm);
  gm = NULL;
}

/* ---- MSR_DEBUGCTLA and BTS (SDM 17.11.1, 17.4.9) ------------------------- */

/* MSR_DEBUGCTLA's TR (bit 2) and BTS (bit 3) store a 12-byte branch record
 * in the 32-bit BTS buffer, through the same DS code as the architectural
 * PMU; the record's flags bit 4 says "predicted". */
static void test_debugctla_bts_17_11_1(void **state)
{
  spmu_branch br = {.from = 0x8048000, .to = 0x8049000, .predicted = 1};
  spmu_nb_clock clk = {.branch = &br};
  uint64_t used;
  (void)state;
  use_nb("pentium4-noht");
  gm = calloc(1, sizeof *gm);
  gm_attach(gm, core);
  gm_put(gm, GM_DS + 0x0, GM_BASE + 0x2000, 4);
  gm_put(gm, GM_DS + 0x4, GM_BASE + 0x2000, 4);
  gm_put(gm, GM_DS + 0x8, GM_BASE + 0x2000 + 120, 4);
  gm_put(gm, GM_DS + 0xC, GM_BASE + 0x3000, 4);
  WR(MSR_DS_AREA, GM_DS);
  WR(MSR_DEBUGCTLA, 0x0C);
  assert_int_equal(spmu_deliver_netburst(lp, &clk, 10, &used), SPMU_TICK_BTS);
  assert_int_equal(used, 1);
  assert_int_equal(gm_get(gm, GM_BASE + 0x2000, 4), 0x8048000);
  assert_int_equal(gm_get(gm, GM_BASE + 0x2004, 4), 0x8049000);
  assert_int_equal(gm_get(gm, GM_BASE + 0x2008, 4), 0x10);
  assert_int_equal(gm_get(gm, GM_DS + 0x4, 4), GM_BASE + 0x200C);
  /* IA32_DEBUGCTL's TR/BTS positions (6, 7) are not NetBurst's. */
  WR(MSR_DEBUGCTLA, 0x0);
  assert_int_equal(spmu_wrmsr(lp, MSR_DEBUGCTLA, 0xC0), SPMU_GP);
  free(gm);
  gm = NULL;
}

/* ---- batching (decisions.md NetBurst) ------------------------------------ */

static uint64_t rng = 0x243F6A8885A308D3ULL;
static uint64_t rnd(void)
{
  return xorshift64(&rng);
}
static unsigned below(unsigned n)
{
  return (unsigned)(rnd() % n);
}

struct blob {
  uint8_t b[8192];
  size_t len;
};

static void save_to(spmu_core *c, struct blob *bl)
{
  assert_int_equal(spmu_core_save(c, bl->b, sizeof bl->b, &bl->len), SPMU_OK);
}

static unsigned pmi_count;
static void count_pmi(void *opaque, spmu_lp *l)
{
  (void)opaque;
  (void)l;
  pmi_count++;
}

/* Program both cores alike: a few counters on BSU/FSB/CRU2 ESCRs with
 * random filters, PMIs, FORCE_OVF, cascades and presets near overflow. */
static void random_program(spmu_core *a, spmu_core *b)
{
  static const uint32_t escr[3] = {BSU_ESCR0, BSU_ESCR1, CRU_ESCR2};
  static const unsigned sel[3] = {7, 7, 5};
  static const unsigned ctrs[3][2] = {{0, 1}, {2, 3}, {12, 16}};
  spmu_core *cs[2] = {a, b};
  unsigned i, k, j;

  for (i = 0; i < 3; i++) {
    uint64_t ev =
        ES_EVSEL(i == 2 ? 0x06 : 0x0C) | ES_MASK(below(4)) | ES_T0 | ES_T1;
    for (j = 0; j < 2; j++)
      assert_int_equal(spmu_wrmsr(spmu_core_lp(cs[j], 0), escr[i], ev),
                       SPMU_OK);
    for (k = 0; k < 2; k++) {
      unsigned n = ctrs[i][k];
      uint64_t cc = CC_SEL(sel[i]) | CC_ACT(below(4));
      uint64_t v = below(2) ? W40 - below(40) : below(1000);
      if (below(3))
        cc |= CC_EN;
      if (below(3) == 0)
        cc |= CC_CASCADE;
      if (below(3) == 0)
        cc |= CC_CMP | CC_THR(below(16)) | (below(2) ? CC_CPL : 0) |
              (below(2) ? CC_EDGE : 0);
      if (below(5) == 0)
        cc |= CC_FORCE;
      if (below(3) == 0)
        cc |= CC_PMI0;
      if (below(3) == 0)
        cc |= CC_PMI1;
      if (below(4) == 0)
        cc |= CC_OVF;
      for (j = 0; j < 2; j++) {
        assert_int_equal(spmu_wrmsr(spmu_core_lp(cs[j], 0), P4_CCCR(n), cc),
                         SPMU_OK);
        assert_int_equal(spmu_wrmsr(spmu_core_lp(cs[j], 0), P4_CTR(n), v),
                         SPMU_OK);
      }
    }
  }
}

/* Property: one batched call equals the same number of single clocks
 * (identical snapshots and PMI counts), over random programs and clocks;
 * a batch stops exactly where single clocks first request a PMI. */
static void test_batch_equals_single_clocks(void **state)
{
  spmu_host h = {.pmi = count_pmi};
  unsigned round;
  (void)state;
  for (round = 0; round < 300; round++) {
    spmu_core *a = core_for("pentium4"), *b = core_for("pentium4");
    spmu_nb_line ln[3];
    spmu_nb_clock clk = {.lines = ln, .nlines = 3};
    struct blob ba, bb;
    unsigned step;

    spmu_core_set_host(a, &h);
    spmu_core_set_host(b, &h);
    random_program(a, b);
    for (step = 0; step < 5; step++) {
      unsigned from = below(2), pa, pb;
      uint64_t n = 1 + below(3) * below(400), used = 0, k;
      int ra, rb = 0;
      ln[0] = (spmu_nb_line){BSQ_CACHE_REF, (uint8_t)below(2), below(9)};
      ln[1] = (spmu_nb_line){BRANCH_RETIRED, (uint8_t)below(2), below(3)};
      ln[2] = (spmu_nb_line){BSQ_CACHE_REF, 1, below(4)};
      clk.cpl = (uint8_t)(below(2) * 3);
      clk.inactive = (uint8_t)below(4);
      pmi_count = 0;
      ra = spmu_deliver_netburst(spmu_core_lp(a, from), &clk, n, &used);
      pa = pmi_count;
      pmi_count = 0;
      for (k = 0; k < used; k++)
        rb = spmu_deliver_netburst(spmu_core_lp(b, from), &clk, 1, NULL);
      pb = pmi_count;
      assert_true(ra >= 0);
      assert_int_equal(ra, rb);
      assert_int_equal(pa, pb);
      if (ra == 0)
        assert_int_equal(used, n);
      save_to(a, &ba);
      save_to(b, &bb);
      assert_int_equal(ba.len, bb.len);
      if (memcmp(ba.b, bb.b, ba.len) != 0)
        fail_msg("round %u step %u: batch of %llu differs", round, step,
                 (unsigned long long)n);
    }
    spmu_core_free(a);
    spmu_core_free(b);
  }
}

/* spmu_deadline on NetBurst (events.h): the clocks up to and including
 * the one at which the next PMI is requested (SDM 18.15.3: at the counter's
 * next increment after its overflow, for either thread) or the PEBS assist
 * is due (18.15.7); exact, and changing nothing: random programs near
 * their wrap, checked against delivery one clock at a time through
 * spmu_deliver. */
static void test_deadline_matches_single_clocks_18_15_3(void **state)
{
  static const uint64_t pmi_bits[4] = {0, CC_PMI0, CC_PMI1, CC_PMI0 | CC_PMI1};
  uint64_t seed = 0x2545F4914F6CDD1Du;
  unsigned round, finite = 0;
  (void)state;
  for (round = 0; round < 300; round++) {
    spmu_nb_line ln[2] = {{BSQ_CACHE_REF, 0, 0}, {BRANCH_RETIRED, 2, 0}};
    spmu_nb_retire miss = load_miss;
    spmu_clock clk = {.nb_lines = ln, .nb_nlines = 2, .cpl = 3};
    uint8_t before[4096], after[4096];
    size_t la = 0, lb = 0;
    uint64_t dl = 0, i, first = 0;
    use_nb("pentium4");
    WR(BSU_ESCR0, ES_EVSEL(0x0C) | ES_MASK(1) | ES_T0);
    WR(CRU_ESCR2, ES_EVSEL(0x06) | ES_MASK(4) | ES_T0);
    WR(P4_CCCR(0), CC_SEL(7) | CC_ANY | CC_EN |
                       pmi_bits[xorshift64(&seed) % 4] |
                       (xorshift64(&seed) % 8 == 0 ? CC_FORCE : 0));
    WR(P4_CCCR(12),
       CC_SEL(5) | CC_ANY | CC_EN | pmi_bits[xorshift64(&seed) % 4]);
    WR(P4_CTR(0), W40 - xorshift64(&seed) % 60);
    WR(P4_CTR(12), W40 - xorshift64(&seed) % 60);
    if (xorshift64(&seed) % 2) { /* PEBS on IQ_COUNTER4, no DS memory */
      pebs_setup(lp, 0);
      WR(P4_CTR(16), W40 - xorshift64(&seed) % 8);
      clk.retire = &miss;
      clk.nretire = xorshift64(&seed) % 2;
    }
    ln[0].count = (uint32_t)(xorshift64(&seed) % 4);
    ln[1].count = (uint32_t)(xorshift64(&seed) % 3);
    assert_int_equal(spmu_core_save(core, before, sizeof before, &la), SPMU_OK);
    assert_int_equal(spmu_deadline(lp, &clk, &dl), SPMU_OK);
    assert_int_equal(spmu_core_save(core, after, sizeof after, &lb), SPMU_OK);
    assert_int_equal(la, lb);
    assert_memory_equal(before, after, la);
    for (i = 1; i <= 200; i++) {
      int rc = spmu_deliver(lp, &clk, 1, NULL);
      assert_true(rc >= 0);
      if (rc & (SPMU_TICK_PMI | SPMU_TICK_PEBS | SPMU_TICK_PEBS_LOST)) {
        first = i;
        break;
      }
    }
    if (dl <= 200)
      assert_int_equal(first, dl);
    else
      assert_int_equal(first, 0);
    finite += dl <= 200;
  }
  /* Both answers occur: a deadline, and none within reach. */
  print_message("finite deadlines: %u of 300\n", finite);
  assert_true(finite > 100 && finite < 300);
}

/* One call never takes unbounded time: 2^64 - 1 clocks with free-running
 * counters that wrap many times (OVF already set, no OVF_PMI) return at
 * once with the counters advanced in closed form. */
static void test_huge_batch_is_closed_form(void **state)
{
  uint64_t used;
  (void)state;
  use_nb("pentium4-noht");
  program_ctr0(CC_EN | CC_OVF);
  assert_int_equal(line_on(lp, BSQ_CACHE_REF, 0, 15, 0, UINT64_MAX, &used), 0);
  assert_int_equal(used, UINT64_MAX);
  assert_int_equal(rd(lp, P4_CTR(0)), (UINT64_MAX & W40) * 15 & W40);
  /* A first overflow (OVF clear) is computed alone, then closed form. */
  program_ctr0(CC_EN);
  WR(P4_CTR(0), 0);
  assert_int_equal(line_on(lp, BSQ_CACHE_REF, 0, 15, 0, UINT64_MAX, &used), 0);
  assert_int_equal(used, UINT64_MAX);
  assert_true(rd(lp, P4_CCCR(0)) & CC_OVF);
}

/* ---- snapshot (pmu.h) ---------------------------------------------------- */

/* The snapshot's trailing FNV-1a-64 of every byte before it (pmu.h). */
static void fix_checksum(struct blob *bl)
{
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  size_t i;
  for (i = 0; i < bl->len - 8; i++) {
    h ^= bl->b[i];
    h *= UINT64_C(0x100000001b3);
  }
  for (i = 0; i < 8; i++)
    bl->b[bl->len - 8 + i] = (uint8_t)(h >> (8 * i));
}

/* Save / restore keeps the shared registers and the engine's state (a PMI
 * owed, the edge state): the restored core behaves the same. A blob whose
 * copies of a shared register disagree is refused. */
static void test_snapshot_netburst(void **state)
{
  spmu_core *c2;
  struct blob bl;
  size_t off;
  (void)state;
  use_nb("pentium4");
  WR(BSU_ESCR0, ES_EVSEL(0x0C) | ES_MASK(1) | ES_T0);
  WR(P4_CCCR(0), CC_SEL(7) | CC_ANY | CC_EN | CC_PMI1 | CC_CMP | CC_THR(0));
  WR(P4_CTR(0), W40);
  WR(MSR_P4_PEBS_ENABLE, PE_MY_THR);
  assert_int_equal(bsq(lp, 1, 0), 0); /* overflow: a PMI owed to LP 1 */
  save_to(core, &bl);
  c2 = core_for("pentium4");
  {
    spmu_host h = {.pmi = on_pmi};
    spmu_core_set_host(c2, &h);
  }
  assert_int_equal(spmu_core_restore(c2, bl.b, bl.len), SPMU_OK);
  assert_int_equal(rd(spmu_core_lp(c2, 1), MSR_P4_PEBS_ENABLE), PE_OTH_THR);
  assert_int_equal(
      line_on(spmu_core_lp(c2, 0), BSQ_CACHE_REF, 0, 1, 0, 1, NULL),
      SPMU_TICK_PMI);
  assert_int_equal(pmis[1], 1);
  /* Change LP 1's copy of MSR_BPU_CCCR0 (0x360) in the blob. */
  for (off = bl.len / 2; off + 12 < bl.len; off++)
    if (bl.b[off] == 0x60 && bl.b[off + 1] == 0x03 && bl.b[off + 2] == 0 &&
        bl.b[off + 3] == 0)
      break;
  assert_true(off + 12 < bl.len);
  bl.b[off + 5] ^= 0x10; /* ENABLE (bit 12) of LP 1's copy */
  fix_checksum(&bl);
  assert_int_equal(spmu_core_restore(c2, bl.b, bl.len), SPMU_ECORRUPT);
  spmu_core_free(c2);
}

/* ---- the event table (SDM Tables 19-28 .. 19-34) ------------------------ */

/* Every event names a unit with ESCRs, unique mask names, and its
 * thread-independent bits among its mask bits; select codes as the SDM
 * gives them where libpfm4 disagrees (packed_SP_uop 08H, packed_DP_uop
 * 0CH, instr_completed on CRU_ESCR0/1); lookups by name, with unknown
 * names refused. */
static void test_event_table_19_28(void **state)
{
  const spmu_nb_event *e;
  spmu_nb_event_sel s;
  spmu_profile p;
  unsigned i, k, j;
  (void)state;
  for (i = 0; (e = spmu_nb_event_at(i)) != NULL; i++) {
    uint16_t masks = 0;
    assert_non_null(spmu_nb_unit_name(e->unit));
    assert_ptr_equal(spmu_nb_event_of(e->unit, e->evsel), e);
    for (k = 0; k < 16; k++) {
      if (!e->mask_names[k])
        continue;
      masks |= (uint16_t)(1u << k);
      for (j = k + 1; j < 16; j++)
        if (e->mask_names[j])
          assert_string_not_equal(e->mask_names[k], e->mask_names[j]);
    }
    assert_int_equal(e->ti & ~masks, 0);
    assert_int_equal(spmu_nb_event_parse(NULL, e->name, &s), SPMU_OK);
    assert_int_equal(s.mask, masks);
  }
  assert_true(i >= 42);
  assert_int_equal(spmu_nb_event_parse(NULL, "packed_SP_uop:ALL", &s), SPMU_OK);
  assert_int_equal(s.escr_value, ES_EVSEL(0x08) | ES_MASK(0x8000));
  assert_int_equal(spmu_nb_event_parse(NULL, "packed_dp_uop", &s), SPMU_OK);
  assert_int_equal(s.event->evsel, 0x0C);
  assert_int_equal(spmu_nb_event_parse(NULL, "instr_completed:NBOGUS", &s),
                   SPMU_OK);
  assert_int_equal(s.escr_addr[0], CRU_ESCR0);
  assert_int_equal(s.escr_value, ES_EVSEL(0x07) | ES_MASK(1));
  assert_int_equal(
      spmu_nb_event_parse(NULL, "instr_retired:NBOGUSNTAG:NBOGUSTAG", &s),
      SPMU_OK);
  assert_int_equal(s.mask, 3);
  assert_int_equal(spmu_nb_event_parse(NULL, "instr_retired:BOGUS", &s),
                   SPMU_ENOENT);
  assert_int_equal(spmu_nb_event_parse(NULL, "no_such_event", &s), SPMU_ENOENT);
  /* ESCR restrictions: IOQ_active_entries on MSR_FSB_ESCR1 only. */
  assert_int_equal(spmu_nb_event_parse(NULL, "IOQ_active_entries", &s),
                   SPMU_OK);
  assert_int_equal(s.escr_addr[0], 0);
  assert_int_equal(s.escr_addr[1], 0x3A3);
  assert_int_equal(s.counters[1], 0xC);
  assert_int_equal(s.cccr_select, 6);
  /* Thread independence (Table 19-34). */
  e = spmu_nb_event_of(SPMU_NB_TC, 0x01);
  assert_string_equal(e->name, "TC_deliver_mode");
  assert_int_equal(e->ti, 0xFF);
  assert_int_equal(spmu_nb_event_of(SPMU_NB_CRU0, 0x02)->ti, 0);
  /* PEBS events (Table 19-29). */
  assert_true(spmu_nb_event_of(SPMU_NB_CRU2, 0x09)->flags & SPMU_NB_EV_PEBS);
  assert_false(spmu_nb_event_of(SPMU_NB_CRU0, 0x02)->flags & SPMU_NB_EV_PEBS);
  /* No MSR_IQ_ESCR0/1 without iq_escr; none on an architectural part. */
  assert_int_equal(spmu_profile_parse("skylake", &p, NULL, 0), SPMU_OK);
  assert_int_equal(spmu_nb_event_parse(&p, "instr_retired", &s), SPMU_ENOMSR);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_presets_18_15, teardown),
      cmocka_unit_test_teardown(test_profile_rules, teardown),
      cmocka_unit_test_teardown(test_catalogue_table_18_63, teardown),
      cmocka_unit_test_teardown(test_escr_to_counter_mapping_18_63, teardown),
      cmocka_unit_test_teardown(test_unmatched_escr_select_counts_nothing,
                                teardown),
      cmocka_unit_test_teardown(test_reserved_bits_gp, teardown),
      cmocka_unit_test_teardown(test_cccr_field_positions, teardown),
      cmocka_unit_test_teardown(test_shared_pmu_18_16, teardown),
      cmocka_unit_test_teardown(test_setup_procedure_18_15_5_1, teardown),
      cmocka_unit_test_teardown(test_threshold_filtering_18_15_5_2, teardown),
      cmocka_unit_test_teardown(test_escr_sums_selected_lines_18_15_5_2,
                                teardown),
      cmocka_unit_test_teardown(test_every_clock_recipe_18_17_2, teardown),
      cmocka_unit_test_teardown(test_thread_qualification_table_18_66,
                                teardown),
      cmocka_unit_test_teardown(test_thread_independent_table_18_67, teardown),
      cmocka_unit_test_teardown(test_active_thread_18_16_2, teardown),
      cmocka_unit_test_teardown(test_pmi_on_next_increment_18_15_5_8, teardown),
      cmocka_unit_test_teardown(test_pmi_to_thread_18_16_2, teardown),
      cmocka_unit_test_teardown(test_force_ovf_every_increment_18_15_5_8,
                                teardown),
      cmocka_unit_test_teardown(test_cascade_0_to_2_18_15_5_6, teardown),
      cmocka_unit_test_teardown(test_iq_cascading_18_15_5_7, teardown),
      cmocka_unit_test_teardown(test_extended_cascade_example_18_2, teardown),
      cmocka_unit_test_teardown(test_linux_p4_pmi_handler_flow, teardown),
      cmocka_unit_test_teardown(test_rdpmc_fast_read_vol2, teardown),
      cmocka_unit_test_teardown(test_front_end_tagging_18_15_6_2, teardown),
      cmocka_unit_test_teardown(test_execution_tagging_18_15_6_3, teardown),
      cmocka_unit_test_teardown(test_replay_tagging_18_15_6_4, teardown),
      cmocka_unit_test_teardown(test_p4_pebs_record_32bit_18_15_7, teardown),
      cmocka_unit_test_teardown(test_p4_pebs_record_64bit_17_4_9_1, teardown),
      cmocka_unit_test_teardown(test_p4_pebs_thread1_18_16_3, teardown),
      cmocka_unit_test_teardown(test_debugctla_bts_17_11_1, teardown),
      cmocka_unit_test(test_batch_equals_single_clocks),
      cmocka_unit_test_teardown(test_huge_batch_is_closed_form, teardown),
      cmocka_unit_test_teardown(test_deadline_matches_single_clocks_18_15_3,
                                teardown),
      cmocka_unit_test_teardown(test_snapshot_netburst, teardown),
      cmocka_unit_test(test_event_table_19_28),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/* The register catalogue's public face: lookup, description, fields,
 * decode/encode; and the field constants the model uses agree with it. */
#include "helpers.h"

#include <string.h>

#include "core/msr.h"

static spmu_profile prof(const char *spec)
{
  spmu_profile p;
  assert_int_equal(spmu_profile_parse(spec, &p, NULL, 0), SPMU_OK);
  return p;
}

static uint64_t enc(const spmu_profile *p, uint32_t msr, const char *field,
                    uint64_t v)
{
  uint64_t reg = 0;
  assert_int_equal(spmu_msr_field_encode(p, msr, field, v, &reg), SPMU_OK);
  return reg;
}

/* The model's own field constants (core/msr.h) are the catalogue's fields:
 * PERFEVTSEL (SDM 18.2.1.1, 18.11.5.1), FIXED_CTR_CTRL EN/PMI at 4j
 * (SDM 18.2.2.1), DEBUGCTL freeze bits (SDM 17.4.1), GLOBAL_STATUS
 * LBR_Frz/CTR_Frz/ASCI (SDM 18.2.4.1), INUSE PMI_InUse (SDM 18.2.4.3). */
static void test_model_constants_match_catalogue(void **state)
{
  /* Ice Lake deprecates AnyThread; Skylake has it. */
  spmu_profile p = prof("icelake"), skl = prof("skylake");
  unsigned j;
  (void)state;
  assert_int_equal(enc(&p, MSR_EVTSEL0, "EVENT", 0xff), SPMU_EVTSEL_EVENT);
  assert_int_equal(enc(&p, MSR_EVTSEL0, "INT", 1), SPMU_EVTSEL_INT);
  for (j = 0; j < 4; j++) {
    char en[8], pmi[8];
    snprintf(en, sizeof en, "EN%u", j);
    snprintf(pmi, sizeof pmi, "PMI%u", j);
    assert_int_equal(enc(&p, MSR_FIXED_CTR_CTRL, en, 3), SPMU_FIXED_EN(j));
    assert_int_equal(enc(&p, MSR_FIXED_CTR_CTRL, pmi, 1), SPMU_FIXED_PMI(j));
  }
  assert_int_equal(enc(&p, MSR_GLOBAL_INUSE, "PMI_InUse", 1), SPMU_INUSE_PMI);
  assert_int_equal(enc(&p, MSR_EVTSEL0, "UMASK", 1),
                   1ULL << SPMU_EVTSEL_UMASK_SHIFT);
  assert_int_equal(enc(&p, MSR_EVTSEL0, "USR", 1), SPMU_EVTSEL_USR);
  assert_int_equal(enc(&p, MSR_EVTSEL0, "OS", 1), SPMU_EVTSEL_OS);
  assert_int_equal(enc(&p, MSR_EVTSEL0, "E", 1), SPMU_EVTSEL_E);
  assert_int_equal(enc(&p, MSR_EVTSEL0, "EN", 1), SPMU_EVTSEL_EN);
  assert_int_equal(enc(&p, MSR_EVTSEL0, "INV", 1), SPMU_EVTSEL_INV);
  assert_int_equal(enc(&p, MSR_EVTSEL0, "CMASK", 1),
                   1ULL << SPMU_EVTSEL_CMASK_SHIFT);
  assert_int_equal(enc(&p, MSR_EVTSEL0, "IN_TX", 1), SPMU_EVTSEL_IN_TX);
  assert_int_equal(enc(&p, MSR_DEBUGCTL, "LBR", 1), SPMU_DEBUGCTL_LBR);
  assert_int_equal(enc(&p, MSR_DEBUGCTL, "TR", 1), SPMU_DEBUGCTL_TR);
  assert_int_equal(enc(&p, MSR_DEBUGCTL, "BTS", 1), SPMU_DEBUGCTL_BTS);
  assert_int_equal(enc(&p, MSR_DEBUGCTL, "BTINT", 1), SPMU_DEBUGCTL_BTINT);
  assert_int_equal(enc(&p, MSR_DEBUGCTL, "BTS_OFF_OS", 1),
                   SPMU_DEBUGCTL_BTS_OFF_OS);
  assert_int_equal(enc(&p, MSR_DEBUGCTL, "BTS_OFF_USR", 1),
                   SPMU_DEBUGCTL_BTS_OFF_USR);
  assert_int_equal(enc(&p, MSR_DEBUGCTL, "FREEZE_LBRS_ON_PMI", 1),
                   SPMU_DEBUGCTL_FREEZE_LBRS);
  assert_int_equal(enc(&p, MSR_DEBUGCTL, "FREEZE_PERFMON_ON_PMI", 1),
                   SPMU_DEBUGCTL_FREEZE_PERFMON);
  assert_int_equal(enc(&p, MSR_DEBUGCTL, "FREEZE_WHILE_SMM", 1),
                   SPMU_DEBUGCTL_FREEZE_WHILE_SMM);
  assert_int_equal(enc(&p, MSR_GLOBAL_STATUS, "LBR_Frz", 1),
                   SPMU_STATUS_LBR_FRZ);
  assert_int_equal(enc(&p, MSR_GLOBAL_STATUS, "CTR_Frz", 1),
                   SPMU_STATUS_CTR_FRZ);
  assert_int_equal(enc(&p, MSR_GLOBAL_STATUS, "ASCI", 1), SPMU_STATUS_ASCI);
  assert_int_equal(enc(&skl, MSR_EVTSEL0, "ANY", 1), SPMU_EVTSEL_ANY);
  assert_int_equal(enc(&skl, MSR_FIXED_CTR_CTRL, "ANY1", 1), SPMU_FIXED_ANY(1));
  assert_int_equal(enc(&p, MSR_DEBUGCTL, "ENABLE_UNCORE_PMI", 1),
                   SPMU_DEBUGCTL_ENABLE_UNCORE_PMI);
  assert_int_equal(enc(&p, MSR_GLOBAL_STATUS, "Trace_ToPA_PMI", 1),
                   SPMU_STATUS_TRACE_TOPA_PMI);
  assert_int_equal(enc(&p, MSR_GLOBAL_STATUS, "Ovf_Uncore", 1),
                   SPMU_STATUS_OVF_UNCORE);
  assert_int_equal(enc(&p, MSR_GLOBAL_STATUS, "CondChgd", 1),
                   SPMU_STATUS_COND_CHGD);
  assert_int_equal(enc(&p, MSR_GLOBAL_STATUS, "OvfBuf", 1),
                   SPMU_STATUS_OVF_BUF);
  assert_int_equal(MSR_GLOBAL_STATUS, SPMU_MSR_GLOBAL_STATUS);
}

/* The LBR field constants (regs.h) are the catalogue's fields: SDM 17.7.2
 * Table 17-11 and 17.9.1 (MSR_LBR_SELECT), 17.12.1 (MSR_LBR_INFO_x), and
 * the architectural IA32_LBR_CTL and IA32_LBR_x_INFO. */
static void test_lbr_constants_match_catalogue(void **state)
{
  static const char *const sel[] = {
      "JCC",          "NEAR_REL_CALL", "NEAR_IND_CALL", "NEAR_RET",
      "NEAR_IND_JMP", "NEAR_REL_JMP",  "FAR_BRANCH"};
  static const char *const ctl[] = {
      "COND",          "NEAR_IND_JMP", "NEAR_REL_JMP", "NEAR_IND_CALL",
      "NEAR_REL_CALL", "NEAR_RET",     "OTHER_BRANCH"};
  spmu_profile skl = prof("skylake"), spr = prof("sapphirerapids");
  uint64_t types = 0, ctypes = 0;
  unsigned i;
  (void)state;
  assert_int_equal(enc(&skl, 0x1C8, "CPL_EQ_0", 1), SPMU_LBR_SELECT_CPL_EQ_0);
  assert_int_equal(enc(&skl, 0x1C8, "CPL_NEQ_0", 1), SPMU_LBR_SELECT_CPL_NEQ_0);
  assert_int_equal(enc(&skl, 0x1C8, "EN_CALLSTACK", 1),
                   SPMU_LBR_SELECT_EN_CALLSTACK);
  for (i = 0; i < 7; i++) {
    assert_int_equal(enc(&skl, 0x1C8, sel[i], 1),
                     UINT64_C(1) << (SPMU_LBR_SELECT_JCC_SHIFT + i));
    assert_int_equal(enc(&spr, 0x14CE, ctl[i], 1),
                     UINT64_C(1) << (SPMU_LBR_CTL_COND_SHIFT + i));
    types |= enc(&skl, 0x1C8, sel[i], 1);
    ctypes |= enc(&spr, 0x14CE, ctl[i], 1);
  }
  assert_int_equal(types, SPMU_LBR_SELECT_TYPES);
  assert_int_equal(ctypes, SPMU_LBR_CTL_TYPES);
  assert_int_equal(enc(&spr, 0x14CE, "LBREn", 1), SPMU_LBR_CTL_LBREN);
  assert_int_equal(enc(&spr, 0x14CE, "OS", 1), SPMU_LBR_CTL_OS);
  assert_int_equal(enc(&spr, 0x14CE, "USR", 1), SPMU_LBR_CTL_USR);
  assert_int_equal(enc(&spr, 0x14CE, "CALL_STACK", 1), SPMU_LBR_CTL_CALL_STACK);
  assert_int_equal(enc(&skl, 0xDC0, "CYC_CNT", 0xffff), SPMU_LBR_INFO_CYC_CNT);
  assert_int_equal(enc(&skl, 0xDC0, "TSX_ABORT", 1), SPMU_LBR_INFO_TSX_ABORT);
  assert_int_equal(enc(&skl, 0xDC0, "IN_TX", 1), SPMU_LBR_INFO_IN_TX);
  assert_int_equal(enc(&skl, 0xDC0, "MISPRED", 1), SPMU_LBR_INFO_MISPRED);
  assert_int_equal(enc(&spr, 0x1200, "BR_TYPE", 1),
                   UINT64_C(1) << SPMU_LBR_INFO_BR_TYPE_SHIFT);
  assert_int_equal(enc(&spr, 0x1200, "CYC_CNT_VALID", 1),
                   SPMU_LBR_INFO_CYC_CNT_VALID);
}

/* Lookup by SDM name, former name, and number; per profile the name must be
 * the one present at that address (390H: OVF_CTRL v2-3, STATUS_RESET v4+). */
static void test_lookup_by_name_and_number(void **state)
{
  spmu_profile hsw = prof("haswell"), skl = prof("skylake");
  uint32_t a = 0;
  (void)state;
  assert_int_equal(spmu_msr_lookup(NULL, "IA32_PMC3", &a), SPMU_OK);
  assert_int_equal(a, 0xC4);
  assert_int_equal(spmu_msr_lookup(NULL, "ia32_perfevtsel1", &a), SPMU_OK);
  assert_int_equal(a, 0x187);
  assert_int_equal(spmu_msr_lookup(NULL, "IA32_PERFCTR0", &a), SPMU_OK);
  assert_int_equal(a, 0xC1);
  assert_int_equal(spmu_msr_lookup(NULL, "MSR_PERF_GLOBAL_CTRL", &a), SPMU_OK);
  assert_int_equal(a, 0x38F);
  assert_int_equal(spmu_msr_lookup(NULL, "0x38f", &a), SPMU_OK);
  assert_int_equal(a, 0x38F);
  assert_int_equal(spmu_msr_lookup(NULL, "911", &a), SPMU_OK);
  assert_int_equal(a, 0x38F);
  assert_int_equal(spmu_msr_lookup(NULL, "IA32_PMC5", &a), SPMU_OK);
  assert_int_equal(a, 0xC6);
  assert_int_equal(spmu_msr_lookup(&skl, "IA32_PMC5", &a), SPMU_ENOMSR);
  assert_int_equal(spmu_msr_lookup(NULL, "IA32_PMC9", &a), SPMU_ENOENT);
  assert_int_equal(spmu_msr_lookup(NULL, "IA32_PMC", &a), SPMU_ENOENT);
  assert_int_equal(spmu_msr_lookup(NULL, "NOPE", &a), SPMU_ENOENT);
  assert_int_equal(spmu_msr_lookup(&hsw, "IA32_PERF_GLOBAL_OVF_CTRL", &a),
                   SPMU_OK);
  assert_int_equal(a, 0x390);
  assert_int_equal(spmu_msr_lookup(&hsw, "IA32_PERF_GLOBAL_STATUS_RESET", &a),
                   SPMU_ENOMSR);
  assert_int_equal(spmu_msr_lookup(&skl, "IA32_PERF_GLOBAL_STATUS_RESET", &a),
                   SPMU_OK);
  assert_int_equal(spmu_msr_lookup(&skl, "IA32_PERF_GLOBAL_OVF_CTRL", &a),
                   SPMU_ENOMSR);
  assert_int_equal(spmu_msr_lookup(&skl, "0x310", &a), SPMU_ENOMSR);
}

/* Descriptions: names, policies, targets, widths, reset values and masks. */
static void test_info_describes_registers(void **state)
{
  spmu_profile hsw = prof("haswell"), skl = prof("skylake"), c2 = prof("core2");
  spmu_msr_info i;
  (void)state;
  assert_int_equal(spmu_msr_info_get(&hsw, 0x390, &i), SPMU_OK);
  assert_string_equal(i.name, "IA32_PERF_GLOBAL_OVF_CTRL");
  assert_int_equal(i.policy, SPMU_POLICY_W1C);
  assert_int_equal(i.target, 0x38E);
  assert_int_equal(spmu_msr_info_get(&skl, 0x390, &i), SPMU_OK);
  assert_string_equal(i.name, "IA32_PERF_GLOBAL_STATUS_RESET");
  assert_int_equal(spmu_msr_info_get(&skl, 0x4C2, &i), SPMU_OK);
  assert_string_equal(i.name, "IA32_A_PMC1");
  assert_int_equal(i.target, 0xC2);
  assert_int_equal(i.width, 48);
  assert_int_equal(spmu_msr_info_get(&c2, 0xC2, &i), SPMU_OK);
  assert_int_equal(i.width, 40);
  assert_int_equal(i.policy, SPMU_POLICY_COUNTER_SX);
  assert_int_equal(spmu_msr_info_get(&skl, MSR_GLOBAL_CTRL, &i), SPMU_OK);
  assert_int_equal(i.reset, 0xF);
  assert_int_equal(i.reserved, ~(0xFULL | 0x7ULL << 32));
  assert_int_equal(spmu_msr_info_get(&skl, 0x4C5, &i), SPMU_ENOMSR);
  assert_int_equal(spmu_msr_info_get(&c2, 0x4C1, &i), SPMU_ENOMSR);
  /* Only counters have the counter width; an event select is 64 bits. */
  assert_int_equal(spmu_msr_info_get(&skl, MSR_EVTSEL0 + 1, &i), SPMU_OK);
  assert_int_equal(i.width, 64);
  assert_int_equal(spmu_msr_info_get(&skl, MSR_FIXED_CTR0 + 2, &i), SPMU_OK);
  assert_int_equal(i.width, 48);
}

/* SDM 18.2.4.1 Figure 18-10: the GLOBAL_STATUS fields of a v4 part with
 * PT and SGX, in bit order; STATUS_SET lacks CondChgd (bit 63 reserved). */
static void test_status_fields_in_order(void **state)
{
  static const char *const want[] = {
      "Ovf_PMC0",      "Ovf_PMC1",      "Ovf_PMC2",      "Ovf_PMC3",
      "Ovf_FixedCtr0", "Ovf_FixedCtr1", "Ovf_FixedCtr2", "Trace_ToPA_PMI",
      "LBR_Frz",       "CTR_Frz",       "ASCI",          "Ovf_Uncore",
      "OvfBuf",        "CondChgd"};
  static const unsigned bits[] = {0,  1,  2,  3,  32, 33, 34,
                                  55, 58, 59, 60, 61, 62, 63};
  spmu_profile skl = prof("skylake");
  spmu_msr_info info;
  spmu_field_info f;
  unsigned k;
  (void)state;
  assert_int_equal(spmu_msr_info_get(&skl, MSR_GLOBAL_STATUS, &info), SPMU_OK);
  assert_int_equal(info.nfields, 14);
  for (k = 0; k < 14; k++) {
    assert_int_equal(spmu_msr_field_get(&skl, MSR_GLOBAL_STATUS, k, &f),
                     SPMU_OK);
    assert_string_equal(f.name, want[k]);
    assert_int_equal(f.lsb, bits[k]);
    assert_int_equal(f.width, 1);
  }
  assert_int_equal(spmu_msr_field_get(&skl, MSR_GLOBAL_STATUS, 14, &f),
                   SPMU_ENOENT);
  assert_int_equal(spmu_msr_info_get(&skl, MSR_GLOBAL_STATUS_SET, &info),
                   SPMU_OK);
  assert_int_equal(info.nfields, 13);
  assert_int_equal(spmu_msr_field_get(&skl, MSR_GLOBAL_STATUS_SET, 12, &f),
                   SPMU_OK);
  assert_string_equal(f.name, "SetOvfBuf");
  assert_int_equal(f.access, SPMU_ACCESS_W1S);
}

/* Briefs name the instance they describe ("IA32_PMC1 overflowed", "event
 * select for IA32_PMC3"), and no brief of any MSR or field of any preset is
 * cut short by the struct's buffer. */
static void test_briefs_name_their_instance(void **state)
{
  spmu_profile spr = prof("sapphirerapids");
  spmu_msr_info i;
  spmu_field_info f;
  unsigned p;
  (void)state;
  assert_int_equal(spmu_msr_field_get(&spr, MSR_GLOBAL_STATUS, 1, &f), SPMU_OK);
  assert_string_equal(f.name, "Ovf_PMC1");
  assert_string_equal(f.brief, "IA32_PMC1 overflowed");
  assert_int_equal(spmu_msr_field_get(&spr, MSR_GLOBAL_CTRL, 9, &f), SPMU_OK);
  assert_string_equal(f.name, "EN_FIXED_CTR1");
  assert_string_equal(f.brief, "enable IA32_FIXED_CTR1");
  assert_int_equal(spmu_msr_info_get(&spr, MSR_EVTSEL0 + 3, &i), SPMU_OK);
  assert_string_equal(i.brief, "event select for IA32_PMC3");
  for (p = 0; spmu_profile_preset_name(p); p++) {
    spmu_profile pr = prof(spmu_profile_preset_name(p));
    uint32_t addrs[160];
    size_t n = spmu_msr_list(&pr, addrs, 160), k;
    unsigned fi;
    assert_true(n <= 160);
    for (k = 0; k < n; k++) {
      assert_int_equal(spmu_msr_info_get(&pr, addrs[k], &i), SPMU_OK);
      assert_true(strlen(i.brief) > 0 && strlen(i.brief) < sizeof i.brief - 1);
      assert_null(strchr(i.brief, '%'));
      for (fi = 0; fi < i.nfields; fi++) {
        assert_int_equal(spmu_msr_field_get(&pr, addrs[k], fi, &f), SPMU_OK);
        assert_true(strlen(f.brief) > 0 &&
                    strlen(f.brief) < sizeof f.brief - 1);
        assert_null(strchr(f.brief, '%'));
      }
    }
  }
}

/* Decode (IA32_PERF_GLOBAL_STATUS 0x8000000400000001: Ovf_PMC0,
 * Ovf_FixedCtr2, CondChgd) and encode, with range checks. */
static void test_field_decode_encode(void **state)
{
  spmu_profile skl = prof("skylake");
  uint64_t v = 0, reg;
  (void)state;
  reg = 0x8000000400000001ULL;
  assert_int_equal(
      spmu_msr_field_decode(&skl, MSR_GLOBAL_STATUS, "Ovf_PMC0", reg, &v),
      SPMU_OK);
  assert_int_equal(v, 1);
  assert_int_equal(
      spmu_msr_field_decode(&skl, MSR_GLOBAL_STATUS, "ovf_fixedctr2", reg, &v),
      SPMU_OK);
  assert_int_equal(v, 1);
  assert_int_equal(
      spmu_msr_field_decode(&skl, MSR_GLOBAL_STATUS, "CondChgd", reg, &v),
      SPMU_OK);
  assert_int_equal(v, 1);
  assert_int_equal(
      spmu_msr_field_decode(&skl, MSR_GLOBAL_STATUS, "Ovf_PMC1", reg, &v),
      SPMU_OK);
  assert_int_equal(v, 0);
  assert_int_equal(
      spmu_msr_field_decode(&skl, MSR_EVTSEL0, "CMASK", 0x3000000ULL, &v),
      SPMU_OK);
  assert_int_equal(v, 3);

  reg = 0;
  assert_int_equal(
      spmu_msr_field_encode(&skl, MSR_EVTSEL0, "CMASK", 0x100, &reg),
      SPMU_ERANGE);
  assert_int_equal(
      spmu_msr_field_encode(&skl, MSR_EVTSEL0, "CMASK", 0xff, &reg), SPMU_OK);
  assert_int_equal(spmu_msr_field_encode(&skl, MSR_EVTSEL0, "EN", 1, &reg),
                   SPMU_OK);
  assert_int_equal(reg, 0xff400000ULL);
  assert_int_equal(spmu_msr_field_encode(&skl, MSR_EVTSEL0, "NOPE", 1, &reg),
                   SPMU_ENOENT);
  assert_int_equal(
      spmu_msr_field_encode(&skl, MSR_EVTSEL0, "ADAPTIVE", 1, &reg),
      SPMU_ENOENT);
  assert_int_equal(spmu_msr_field_encode(&skl, 0x999, "EN", 1, &reg),
                   SPMU_ENOMSR);
  reg = 0;
  assert_int_equal(
      spmu_msr_field_encode(&skl, MSR_FIXED_CTR_CTRL, "EN1", 3, &reg), SPMU_OK);
  assert_int_equal(reg, 0x30);
  assert_int_equal(
      spmu_msr_field_encode(&skl, MSR_PMC0, "COUNT", 1ULL << 48, &reg),
      SPMU_ERANGE);
}

/* The Skylake MSR set, exactly (Vol. 3C Table 35-2 and the chapter 18
 * figures for a perfmon v4 part with PEBS and BTS; SDM 17.12 for its
 * 32-entry LBR stack: LBR_SELECT 1C8H, TOS 1C9H, FROM_IP 680H-69FH,
 * TO_IP 6C0H-6DFH, LBR_INFO DC0H-DDFH; 17.4.8.3 and Table 35-3 for
 * MSR_LER_FROM_LIP 1DDH and MSR_LER_TO_LIP 1DEH). */
static void test_skylake_msr_list(void **state)
{
  static const uint32_t want[] = {
      0xC1,  0xC2,  0xC3,  0xC4,  0x186, 0x187, 0x188, 0x189,
      0x1A0, 0x1C8, 0x1C9, 0x1D9, 0x1DD, 0x1DE, 0x309, 0x30A,
      0x30B, 0x345, 0x38D, 0x38E, 0x38F, 0x390, 0x391, 0x392,
      0x3F1, 0x3F6, 0x3F7, 0x4C1, 0x4C2, 0x4C3, 0x4C4, 0x600};
  const size_t nw = sizeof want / sizeof want[0];
  spmu_profile skl = prof("skylake");
  uint32_t got[160];
  size_t n, i;
  (void)state;
  n = spmu_msr_list(&skl, got, 160);
  assert_int_equal(n, nw + 3 * 32);
  assert_memory_equal(got, want, sizeof want);
  for (i = 0; i < 32; i++) {
    assert_int_equal(got[nw + i], 0x680 + i);
    assert_int_equal(got[nw + 32 + i], 0x6C0 + i);
    assert_int_equal(got[nw + 64 + i], 0xDC0 + i);
  }
  assert_int_equal(spmu_msr_list(&skl, NULL, 0), n);
}

/* regs.h: an spmu_regview applies its profile once and answers every
 * question exactly as the spmu_msr_* calls do for that profile (they
 * compute only the MSR asked about): for each preset, each MSR's
 * description, each field (by index and by name, decoded from all ones and
 * encoded to its largest value), the lookup of each MSR by its name, and
 * of the two names of 390H (SDM 18.2.4: OVF_CTRL before v4,
 * STATUS_RESET from v4). */
static void test_regview_answers_as_profile_calls(void **state)
{
  const char *name;

  (void)state;
  FOR_EACH_PRESET(name) {
    spmu_profile p;
    spmu_regview *r = NULL;
    uint32_t addrs[256], addrs2[256];
    size_t n, i;

    assert_int_equal(spmu_profile_parse(name, &p, NULL, 0), SPMU_OK);
    assert_int_equal(spmu_regview_new(&p, &r), SPMU_OK);
    n = spmu_msr_list(&p, addrs, 256);
    assert_int_equal(spmu_regview_list(r, addrs2, 256), n);
    assert_memory_equal(addrs, addrs2, n * sizeof addrs[0]);
    for (i = 0; i < n; i++) {
      spmu_msr_info a, b;
      uint32_t at = 0;
      unsigned k;
      assert_int_equal(spmu_msr_info_get(&p, addrs[i], &a), SPMU_OK);
      assert_int_equal(spmu_regview_info(r, addrs[i], &b), SPMU_OK);
      assert_memory_equal(&a, &b, sizeof a);
      assert_int_equal(spmu_regview_lookup(r, a.name, &at), SPMU_OK);
      assert_int_equal(at, addrs[i]);
      at = 0;
      assert_int_equal(spmu_msr_lookup(&p, a.name, &at), SPMU_OK);
      assert_int_equal(at, addrs[i]);
      for (k = 0; k < a.nfields; k++) {
        spmu_field_info fa, fb;
        uint64_t va = 0, vb = 1, ra = 0, rb = 0;
        uint64_t top;
        memset(&fa, 0, sizeof fa); /* the names' tails are not written */
        memset(&fb, 0, sizeof fb);
        assert_int_equal(spmu_msr_field_get(&p, addrs[i], k, &fa), SPMU_OK);
        assert_int_equal(spmu_regview_field_get(r, addrs[i], k, &fb), SPMU_OK);
        assert_memory_equal(&fa, &fb, sizeof fa);
        assert_int_equal(
            spmu_msr_field_decode(&p, addrs[i], fa.name, UINT64_MAX, &va),
            SPMU_OK);
        assert_int_equal(
            spmu_regview_field_decode(r, addrs[i], fa.name, UINT64_MAX, &vb),
            SPMU_OK);
        assert_int_equal(va, vb);
        top = va; /* all ones of the field's width */
        assert_int_equal(spmu_msr_field_encode(&p, addrs[i], fa.name, top, &ra),
                         SPMU_OK);
        assert_int_equal(
            spmu_regview_field_encode(r, addrs[i], fa.name, top, &rb), SPMU_OK);
        assert_int_equal(ra, rb);
      }
    }
    /* Absent MSRs and unknown names give the same codes. */
    assert_int_equal(spmu_regview_info(r, 0x600 + 1, &(spmu_msr_info){0}),
                     SPMU_ENOMSR);
    assert_int_equal(spmu_msr_info_get(&p, 0x600 + 1, &(spmu_msr_info){0}),
                     SPMU_ENOMSR);
    assert_int_equal(spmu_regview_lookup(r, "IA32_NO_SUCH_MSR", addrs),
                     SPMU_ENOENT);
    assert_int_equal(spmu_msr_lookup(&p, "IA32_NO_SUCH_MSR", addrs),
                     SPMU_ENOENT);
    for (i = 0; i < 2; i++) {
      const char *n390 =
          i ? "IA32_PERF_GLOBAL_STATUS_RESET" : "IA32_PERF_GLOBAL_OVF_CTRL";
      uint32_t at_p = 0, at_r = 0;
      assert_int_equal(spmu_msr_lookup(&p, n390, &at_p),
                       spmu_regview_lookup(r, n390, &at_r));
      assert_int_equal(at_p, at_r);
    }
    spmu_regview_free(r);
  }
}

/* regs.h: spmu_regview_new refuses a missing or invalid profile (*out is
 * NULL then), and a NULL handle is SPMU_EINVAL (lookup: any name). */
static void test_regview_bad_arguments(void **state)
{
  spmu_profile p;
  spmu_regview *r = (spmu_regview *)&p;
  uint32_t addr = 0;
  uint64_t v;

  (void)state;
  assert_int_equal(spmu_regview_new(NULL, &r), SPMU_EINVAL);
  assert_null(r);
  assert_int_equal(spmu_profile_parse("skylake", &p, NULL, 0), SPMU_OK);
  p.gp = 9; /* SDM Vol. 4 Table 2-2: IA32_PMC0-7 hold 8 */
  r = (spmu_regview *)&p;
  assert_int_equal(spmu_regview_new(&p, &r), SPMU_EINVAL);
  assert_null(r);
  assert_int_equal(spmu_regview_new(&p, NULL), SPMU_EINVAL);
  assert_int_equal(spmu_regview_list(NULL, NULL, 0), 0);
  assert_int_equal(spmu_regview_info(NULL, 0xC1, &(spmu_msr_info){0}),
                   SPMU_EINVAL);
  assert_int_equal(spmu_regview_field_decode(NULL, 0x186, "EN", 0, &v),
                   SPMU_EINVAL);
  assert_int_equal(spmu_regview_lookup(NULL, "IA32_PMC7", &addr), SPMU_OK);
  assert_int_equal(addr, 0xC8);
  spmu_regview_free(NULL);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_model_constants_match_catalogue),
      cmocka_unit_test(test_lbr_constants_match_catalogue),
      cmocka_unit_test(test_lookup_by_name_and_number),
      cmocka_unit_test(test_info_describes_registers),
      cmocka_unit_test(test_status_fields_in_order),
      cmocka_unit_test(test_briefs_name_their_instance),
      cmocka_unit_test(test_field_decode_encode),
      cmocka_unit_test(test_skylake_msr_list),
      cmocka_unit_test(test_regview_answers_as_profile_calls),
      cmocka_unit_test(test_regview_bad_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

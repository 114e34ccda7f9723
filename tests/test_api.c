/* SPDX-License-Identifier: MIT */
/* The public API surface: version, error texts, argument checking, unknown
 * MSRs and the isolation of cores. */
#include "helpers.h"

/* Every result a call can give: SPMU_OK, SPMU_GP and each SPMU_E* code,
 * with the name spmu_errname() must give it. */
static const struct {
  int code;
  const char *name;
} results[] = {{SPMU_OK, "SPMU_OK"},
               {SPMU_GP, "SPMU_GP"},
#define RESULT_(name, text) {SPMU_##name, "SPMU_" #name},
               SPMU_ERRNO_MAP(RESULT_)
#undef RESULT_
};
#define NRESULTS (sizeof(results) / sizeof(results[0]))

/* ---- version --------------------------------------------------------- */

/* API contract (version.h): the macros a program is compiled against match
 * the version of the library it links, as a number and as "M.m.p". */
static void test_version_macros_match_library(void **state)
{
  char text[32];

  (void)state;
  assert_int_equal(spmu_version(), SPMU_VERSION_HEX);
  assert_int_equal(SPMU_VERSION_HEX, (SPMU_VERSION_MAJOR << 16) |
                                         (SPMU_VERSION_MINOR << 8) |
                                         SPMU_VERSION_PATCH);
  snprintf(text, sizeof text, "%d.%d.%d", SPMU_VERSION_MAJOR,
           SPMU_VERSION_MINOR, SPMU_VERSION_PATCH);
  assert_string_equal(spmu_version_string(), text);
  assert_string_equal(spmu_version_string(), SPMU_VERSION_STRING);
}

/* ---- error texts ----------------------------------------------------- */

/* API contract (error.h): every result has its own non-empty text and its
 * own name; the two lists come from one X-macro. */
static void test_strerror_distinct_for_every_code(void **state)
{
  size_t i, j;

  (void)state;
  /* SPMU_OK, SPMU_GP and one entry per SPMU_E* code. */
  assert_int_equal(NRESULTS, 2 + (SPMU_ERRNO_COUNT_ - 1));
  for (i = 0; i < NRESULTS; i++) {
    const char *text = spmu_strerror(results[i].code);

    assert_non_null(text);
    assert_int_not_equal(strlen(text), 0);
    assert_string_not_equal(text, "unknown error");
    assert_string_equal(spmu_errname(results[i].code), results[i].name);
    for (j = 0; j < i; j++) {
      assert_string_not_equal(text, spmu_strerror(results[j].code));
      assert_string_not_equal(spmu_errname(results[i].code),
                              spmu_errname(results[j].code));
    }
  }
}

/* API contract (error.h): "Never NULL": a code outside the list gives
 * "unknown error" and a name that is none of the known ones. */
static void test_strerror_unknown_code(void **state)
{
  const int unknown[] = {-999, 2, -SPMU_ERRNO_COUNT_, 1000};
  size_t i, j;

  (void)state;
  for (i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
    const char *name = spmu_errname(unknown[i]);

    assert_string_equal(spmu_strerror(unknown[i]), "unknown error");
    assert_non_null(name);
    for (j = 0; j < NRESULTS; j++)
      assert_string_not_equal(name, results[j].name);
  }
}

/* ---- argument checking ----------------------------------------------- */

/* API contract (pmu.h): spmu_core_new returns SPMU_EINVAL for a NULL
 * profile or a NULL result pointer. */
static void test_core_new_null_args_einval(void **state)
{
  spmu_profile p;
  spmu_core *c = NULL;

  (void)state;
  assert_int_equal(spmu_profile_parse("skylake", &p, NULL, 0), SPMU_OK);
  assert_int_equal(spmu_core_new(NULL, &c), SPMU_EINVAL);
  assert_null(c);
  assert_int_equal(spmu_core_new(&p, NULL), SPMU_EINVAL);
}

/* API contract (pmu.h): the guest path (WRMSR, RDMSR, RDPMC) returns
 * SPMU_EINVAL for a NULL logical processor or result pointer and for a
 * privilege level outside 0-3; it never raises SPMU_GP for API misuse. */
static void test_guest_path_null_args_einval(void **state)
{
  spmu_core *c = core_for("skylake");
  spmu_lp *lp = spmu_core_lp(c, 0);
  uint64_t v = 0;

  (void)state;
  assert_int_equal(spmu_wrmsr(NULL, MSR_EVTSEL0, 0), SPMU_EINVAL);
  assert_int_equal(spmu_rdmsr(NULL, MSR_EVTSEL0, &v), SPMU_EINVAL);
  assert_int_equal(spmu_rdmsr(lp, MSR_EVTSEL0, NULL), SPMU_EINVAL);
  assert_int_equal(spmu_rdpmc(NULL, 0, 0, false, &v), SPMU_EINVAL);
  assert_int_equal(spmu_rdpmc(lp, 0, 0, false, NULL), SPMU_EINVAL);
  /* CPL is 0-3 (SDM Vol. 3A 5.5). */
  assert_int_equal(spmu_rdpmc(lp, 0, 4, true, &v), SPMU_EINVAL);
  assert_int_equal(spmu_rdpmc(lp, 0, 4, false, &v), SPMU_EINVAL);
  spmu_core_free(c);
}

/* API contract (pmu.h): the host path returns SPMU_EINVAL for NULL. */
static void test_host_path_null_args_einval(void **state)
{
  spmu_core *c = core_for("skylake");
  spmu_lp *lp = spmu_core_lp(c, 0);
  uint64_t v = 0;

  (void)state;
  assert_int_equal(spmu_host_wrmsr(NULL, MSR_PMC0, 0), SPMU_EINVAL);
  assert_int_equal(spmu_host_rdmsr(NULL, MSR_PMC0, &v), SPMU_EINVAL);
  assert_int_equal(spmu_host_rdmsr(lp, MSR_PMC0, NULL), SPMU_EINVAL);
  spmu_core_free(c);
}

/* API contract (pmu.h): save/restore return SPMU_EINVAL for a NULL core,
 * length pointer or blob. */
static void test_snapshot_null_args_einval(void **state)
{
  spmu_core *c = core_for("skylake");
  uint8_t buf[4096];
  size_t len = 0;

  (void)state;
  assert_int_equal(spmu_core_save(NULL, buf, sizeof buf, &len), SPMU_EINVAL);
  assert_int_equal(spmu_core_save(c, buf, sizeof buf, NULL), SPMU_EINVAL);
  assert_int_equal(spmu_core_save(c, buf, sizeof buf, &len), SPMU_OK);
  assert_int_equal(spmu_core_restore(NULL, buf, len), SPMU_EINVAL);
  assert_int_equal(spmu_core_restore(c, NULL, 0), SPMU_EINVAL);
  assert_int_equal(spmu_core_restore(c, NULL, len), SPMU_EINVAL);
  spmu_core_free(c);
}

/* API contract (pmu.h): core-level calls on NULL or an index past the
 * core's logical processors fail without touching anything. */
static void test_core_calls_null_and_out_of_range(void **state)
{
  spmu_core *c = core_for("skylake");
  unsigned n = spmu_core_threads(c);

  (void)state;
  assert_int_equal(n, 2);
  assert_non_null(spmu_core_lp(c, n - 1));
  assert_null(spmu_core_lp(c, n));
  assert_null(spmu_core_lp(c, SPMU_MAX_THREADS));
  assert_null(spmu_core_lp(c, ~0u));
  assert_null(spmu_core_lp(NULL, 0));
  assert_null(spmu_core_profile(NULL));
  assert_int_equal(spmu_core_threads(NULL), 0);
  assert_null(spmu_lp_core(NULL));
  assert_int_equal(spmu_core_reset(NULL), SPMU_EINVAL);
  assert_int_equal(spmu_lp_init_signal(NULL), SPMU_EINVAL);
  /* An error is never also a valid result: index 0 is a valid index. */
  assert_int_equal(spmu_lp_index(NULL), SPMU_EINVAL);
  assert_int_equal(spmu_lp_index(spmu_core_lp(c, 0)), 0);
  spmu_core_free(NULL); /* like free(NULL): nothing happens */
  spmu_core_free(c);
}

/* API contract (profile.h, pmu.h): the CPUID calls return SPMU_EINVAL for
 * NULL. */
static void test_cpuid_null_args_einval(void **state)
{
  spmu_core *c = core_for("skylake");
  spmu_profile p;
  uint32_t regs[4];

  (void)state;
  assert_int_equal(spmu_profile_parse("skylake", &p, NULL, 0), SPMU_OK);
  assert_int_equal(spmu_cpuid(NULL, 0xA, 0, regs), SPMU_EINVAL);
  assert_int_equal(spmu_cpuid(spmu_core_lp(c, 0), 0xA, 0, NULL), SPMU_EINVAL);
  assert_int_equal(spmu_profile_cpuid(NULL, 0xA, 0, regs), SPMU_EINVAL);
  assert_int_equal(spmu_profile_cpuid(&p, 0xA, 0, NULL), SPMU_EINVAL);
  assert_int_equal(spmu_cpuid_owned(0xA, NULL), SPMU_EINVAL);
  spmu_core_free(c);
}

/* API contract (profile.h): the profile calls return SPMU_EINVAL for NULL,
 * with a reason when a buffer for one is given. */
static void test_profile_calls_null_args_einval(void **state)
{
  spmu_profile p;
  char why[128] = "";
  char buf[64];

  (void)state;
  assert_int_equal(spmu_profile_parse(NULL, &p, why, sizeof why), SPMU_EINVAL);
  assert_int_not_equal(strlen(why), 0);
  assert_int_equal(spmu_profile_parse("skylake", NULL, NULL, 0), SPMU_EINVAL);
  assert_int_equal(spmu_profile_parse("skylake", &p, NULL, 0), SPMU_OK);
  assert_int_equal(spmu_profile_validate(NULL, NULL, 0), SPMU_EINVAL);
  assert_int_equal(spmu_profile_format(NULL, buf, sizeof buf), SPMU_EINVAL);
  assert_int_equal(spmu_profile_format(&p, NULL, sizeof buf), SPMU_EINVAL);
}

/* API contract (regs.h): the catalogue queries return SPMU_EINVAL for a
 * NULL profile, name or result pointer, and list nothing for no profile. */
static void test_catalog_calls_null_args_einval(void **state)
{
  spmu_profile p;
  spmu_msr_info info;
  spmu_field_info field;
  uint32_t addr = 0;
  uint64_t v = 0;

  (void)state;
  assert_int_equal(spmu_profile_parse("skylake", &p, NULL, 0), SPMU_OK);
  assert_int_equal(spmu_msr_list(NULL, NULL, 0), 0);
  assert_int_equal(spmu_msr_info_get(NULL, MSR_PMC0, &info), SPMU_EINVAL);
  assert_int_equal(spmu_msr_info_get(&p, MSR_PMC0, NULL), SPMU_EINVAL);
  assert_int_equal(spmu_msr_field_get(NULL, MSR_PMC0, 0, &field), SPMU_EINVAL);
  assert_int_equal(spmu_msr_field_get(&p, MSR_PMC0, 0, NULL), SPMU_EINVAL);
  assert_int_equal(spmu_msr_lookup(&p, NULL, &addr), SPMU_EINVAL);
  assert_int_equal(spmu_msr_lookup(&p, "IA32_PMC0", NULL), SPMU_EINVAL);
  assert_int_equal(spmu_msr_field_decode(NULL, MSR_EVTSEL0, "EN", 0, &v),
                   SPMU_EINVAL);
  assert_int_equal(spmu_msr_field_decode(&p, MSR_EVTSEL0, NULL, 0, &v),
                   SPMU_EINVAL);
  assert_int_equal(spmu_msr_field_decode(&p, MSR_EVTSEL0, "EN", 0, NULL),
                   SPMU_EINVAL);
  assert_int_equal(spmu_msr_field_encode(NULL, MSR_EVTSEL0, "EN", 1, &v),
                   SPMU_EINVAL);
  assert_int_equal(spmu_msr_field_encode(&p, MSR_EVTSEL0, NULL, 1, &v),
                   SPMU_EINVAL);
  assert_int_equal(spmu_msr_field_encode(&p, MSR_EVTSEL0, "EN", 1, NULL),
                   SPMU_EINVAL);
}

/* ---- unknown MSRs ---------------------------------------------------- */

/* SDM Vol. 2B WRMSR/RDMSR: "#GP(0) if ECX specifies a reserved or
 * unimplemented MSR address". The host path reports SPMU_ENOMSR instead
 * (pmu.h: the host path never raises faults). */
static void test_unknown_msr_gp_guest_enomsr_host(void **state)
{
  const uint32_t unknown[] = {0x12345678u, 0x1FFu};
  spmu_core *c = core_for("skylake");
  spmu_lp *lp = spmu_core_lp(c, 0);
  size_t i;

  (void)state;
  for (i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
    uint64_t v = 0;

    assert_int_equal(spmu_wrmsr(lp, unknown[i], 0), SPMU_GP);
    assert_int_equal(spmu_wrmsr(lp, unknown[i], 1), SPMU_GP);
    assert_int_equal(spmu_rdmsr(lp, unknown[i], &v), SPMU_GP);
    assert_int_equal(spmu_host_wrmsr(lp, unknown[i], 0), SPMU_ENOMSR);
    assert_int_equal(spmu_host_rdmsr(lp, unknown[i], &v), SPMU_ENOMSR);
  }
  spmu_core_free(c);
}

/* ---- isolation ------------------------------------------------------- */

/* API contract (pmu.h): "distinct cores share nothing": a write to one core
 * leaves another core of the same profile in its power-on state. */
static void test_two_cores_share_no_state(void **state)
{
  spmu_core *a = core_for("skylake");
  spmu_core *b = core_for("skylake");
  spmu_lp *la = spmu_core_lp(a, 0);
  spmu_lp *lb = spmu_core_lp(b, 0);
  uint8_t before[4096], after[4096];
  size_t nbefore = 0, nafter = 0;

  (void)state;
  assert_int_equal(spmu_core_save(b, before, sizeof before, &nbefore), SPMU_OK);
  assert_int_equal(spmu_wrmsr(la, MSR_EVTSEL0, 0x4300C0), SPMU_OK);
  assert_int_equal(spmu_wrmsr(la, MSR_PMC0, 0x1234), SPMU_OK);
  assert_int_equal(spmu_wrmsr(la, MSR_GLOBAL_CTRL, 0x700000001ULL), SPMU_OK);
  assert_int_equal(spmu_host_wrmsr(la, MSR_GLOBAL_STATUS, 1), SPMU_OK);

  assert_int_equal(rd(la, MSR_EVTSEL0), 0x4300C0);
  assert_int_equal(rd(lb, MSR_EVTSEL0), 0);
  assert_int_equal(rd(lb, MSR_PMC0), 0);
  assert_int_equal(rd(lb, MSR_GLOBAL_CTRL), 0xF);
  assert_int_equal(rd(lb, MSR_GLOBAL_STATUS), 0);
  assert_int_equal(spmu_core_save(b, after, sizeof after, &nafter), SPMU_OK);
  assert_int_equal(nafter, nbefore);
  assert_memory_equal(after, before, nbefore);

  /* And the other way round. */
  assert_int_equal(spmu_wrmsr(lb, MSR_EVTSEL0, 0x4100C4), SPMU_OK);
  assert_int_equal(rd(la, MSR_EVTSEL0), 0x4300C0);
  spmu_core_free(a);
  spmu_core_free(b);
}

/* API contract (pmu.h): spmu_core_new takes only a valid profile (see
 * spmu_profile_validate) and reports SPMU_EPROFILE otherwise. */
static void test_core_new_invalid_profile_eprofile(void **state)
{
  spmu_profile p;
  spmu_core *c = NULL;

  (void)state;
  assert_int_equal(spmu_profile_parse("skylake", &p, NULL, 0), SPMU_OK);
  p.threads = 0;
  assert_int_equal(spmu_core_new(&p, &c), SPMU_EPROFILE);
  assert_null(c);

  assert_int_equal(spmu_profile_parse("skylake", &p, NULL, 0), SPMU_OK);
  p.version = 6;
  assert_int_equal(spmu_core_new(&p, &c), SPMU_EPROFILE);
  assert_null(c);

  assert_int_equal(spmu_profile_parse("skylake", &p, NULL, 0), SPMU_OK);
  p.gp = SPMU_MAX_GP + 1;
  assert_int_equal(spmu_core_new(&p, &c), SPMU_EPROFILE);
  assert_null(c);

  assert_int_equal(spmu_profile_parse("skylake", &p, NULL, 0), SPMU_OK);
  memset(p.name, 'x', sizeof p.name); /* not NUL-terminated */
  assert_int_equal(spmu_core_new(&p, &c), SPMU_EPROFILE);
  assert_null(c);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_version_macros_match_library),
      cmocka_unit_test(test_strerror_distinct_for_every_code),
      cmocka_unit_test(test_strerror_unknown_code),
      cmocka_unit_test(test_core_new_null_args_einval),
      cmocka_unit_test(test_guest_path_null_args_einval),
      cmocka_unit_test(test_host_path_null_args_einval),
      cmocka_unit_test(test_snapshot_null_args_einval),
      cmocka_unit_test(test_core_calls_null_and_out_of_range),
      cmocka_unit_test(test_cpuid_null_args_einval),
      cmocka_unit_test(test_profile_calls_null_args_einval),
      cmocka_unit_test(test_catalog_calls_null_args_einval),
      cmocka_unit_test(test_unknown_msr_gp_guest_enomsr_host),
      cmocka_unit_test(test_two_cores_share_no_state),
      cmocka_unit_test(test_core_new_invalid_profile_eprofile),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

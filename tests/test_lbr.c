/* SPDX-License-Identifier: MIT */
/* Last branch records: the model-specific LBR stacks (SDM Vol. 3B 17.4.8
 * "LBR stack", 17.4.8.1 the record formats of IA32_PERF_CAPABILITIES[5:0],
 * 17.5 Core 2, 17.7 Nehalem: Tables 17-8 to 17-11, 17.9 Haswell: call
 * stack, 17.12 Skylake: LBR_INFO), their freeze on PMI (17.4.7, 18.2.4.1)
 * and architectural LBRs (chapter "Architectural Last Branch Records":
 * CPUID leaf 1CH, IA32_LBR_CTL, IA32_LBR_DEPTH, IA32_LBR_x_*, the XSAVES
 * state component). Each test is named by the rule it checks. */
#define SPMU_TEST_FIXTURE
#include "helpers.h"

#include <string.h>

#define MSR_LBR_SELECT 0x1C8u
#define MSR_LBR_TOS 0x1C9u
#define MSR_LBR_FROM(i) (0x680u + (i))
#define MSR_LBR_TO(i) (0x6C0u + (i))
#define MSR_LBR_INFO(i) (0xDC0u + (i))
#define MSR_CORE2_FROM(i) (0x40u + (i))
#define MSR_CORE2_TO(i) (0x60u + (i))
#define MSR_ARCH_CTL 0x14CEu
#define MSR_ARCH_DEPTH 0x14CFu
#define MSR_ARCH_FROM(i) (0x1500u + (i))
#define MSR_ARCH_TO(i) (0x1600u + (i))
#define MSR_ARCH_INFO(i) (0x1200u + (i))
#define MSR_LER_FROM 0x1DDu /* MSR_LER_FROM_LIP / IA32_LER_FROM_IP */
#define MSR_LER_TO 0x1DEu   /* MSR_LER_TO_LIP / IA32_LER_TO_IP */
#define MSR_LER_INFO 0x1E0u /* IA32_LER_INFO */
#define BIT(n) (UINT64_C(1) << (n))

/* One clock with a taken branch. */
static int branch_at(uint64_t from, uint64_t to, unsigned type, unsigned cpl,
                     uint64_t n)
{
  spmu_branch br = {
      .from = from, .to = to, .predicted = 1, .type = (uint8_t)type};
  spmu_clock clk = {.cpl = (uint8_t)cpl, .branch = &br};
  uint64_t done = 0;
  int rc = spmu_deliver(lp, &clk, n, &done);
  assert_true(rc >= 0);
  return rc;
}

static void jcc(uint64_t from, uint64_t to)
{
  branch_at(from, to, SPMU_BR_JCC, 3, 1);
}

static int gp(uint32_t msr, uint64_t v)
{
  return spmu_wrmsr(lp, msr, v);
}

/* ---- which LBRs a profile has -------------------------------------------- */

/* SDM 17.4.8 Table 17-4, 17.5, 17.7.1 Table 17-10, 17.12: every preset has
 * exactly the stack its PERF_CAPABILITIES.LBR_FMT and model give: Core 2 4
 * entries at 40H / 60H without LBR_SELECT, Nehalem to Haswell 16 at 680H /
 * 6C0H, Skylake and Ice Lake 32 with LBR_INFO at DC0H; Sapphire Rapids
 * architectural LBRs and none of the model-specific MSRs; Core Duo and the
 * Pentium 4 profiles no LBR MSRs at all. */
static void test_17_4_8_stack_of_each_preset(void **state)
{
  static const struct {
    const char *name;
    unsigned depth;
    uint32_t from, to;
    bool select, info, arch;
  } want[] = {
      {"core-duo", 0, 0, 0, false, false, false},
      {"core2", 4, 0x40, 0x60, false, false, false},
      {"nehalem", 16, 0x680, 0x6C0, true, false, false},
      {"sandybridge", 16, 0x680, 0x6C0, true, false, false},
      {"haswell", 16, 0x680, 0x6C0, true, false, false},
      {"skylake", 32, 0x680, 0x6C0, true, true, false},
      {"icelake", 32, 0x680, 0x6C0, true, true, false},
      {"sapphirerapids", 32, 0x1500, 0x1600, false, false, true},
      {"pentium4", 0, 0, 0, false, false, false},
  };
  unsigned i, k;
  uint64_t v;

  (void)state;
  for (i = 0; i < sizeof want / sizeof want[0]; i++) {
    use(want[i].name);
    assert_int_equal(spmu_lbr_read(lp, NULL, 0),
                     want[i].arch ? 32 : want[i].depth);
    assert_int_equal(spmu_rdmsr(lp, MSR_LBR_TOS, &v),
                     want[i].depth && !want[i].arch ? SPMU_OK : SPMU_GP);
    assert_int_equal(spmu_rdmsr(lp, MSR_LBR_SELECT, &v),
                     want[i].select ? SPMU_OK : SPMU_GP);
    assert_int_equal(spmu_rdmsr(lp, MSR_ARCH_CTL, &v),
                     want[i].arch ? SPMU_OK : SPMU_GP);
    assert_int_equal(spmu_rdmsr(lp, MSR_LBR_INFO(0), &v),
                     want[i].info ? SPMU_OK : SPMU_GP);
    for (k = 0; k < want[i].depth; k++) {
      assert_int_equal(spmu_rdmsr(lp, want[i].from + k, &v), SPMU_OK);
      assert_int_equal(spmu_rdmsr(lp, want[i].to + k, &v), SPMU_OK);
    }
    /* One past the stack is no LBR MSR. */
    if (want[i].depth && want[i].depth < 32) {
      assert_int_equal(spmu_rdmsr(lp, want[i].from + want[i].depth, &v),
                       SPMU_GP);
      assert_int_equal(spmu_wrmsr(lp, want[i].to + want[i].depth, 0), SPMU_GP);
    }
    if (!want[i].arch && want[i].depth != 4) {
      assert_int_equal(spmu_rdmsr(lp, 0x40, &v), SPMU_GP);
      assert_int_equal(spmu_rdmsr(lp, MSR_ARCH_FROM(0), &v), SPMU_GP);
    }
  }
}

/* A profile string that spmu_profile_parse refuses with SPMU_EPROFILE and
 * a reason starting with why. */
static void refused(const char *spec, const char *why)
{
  spmu_profile p;
  char got[256] = "";
  assert_int_equal(spmu_profile_parse(spec, &p, got, sizeof got),
                   SPMU_EPROFILE);
  if (strncmp(got, why, strlen(why)) != 0)
    fail_msg("'%s': %s", spec, got);
}

/* profile.h: the LBR keys describe only stacks the SDM has (4, 16, 32
 * entries in formats 1-5 of PERF_CAPABILITIES[5:0]; leaf 1CH with a depth
 * and defined bits only), never both kinds at once; and they survive
 * spmu_profile_format. */
static void test_profile_lbr_keys_validated(void **state)
{
  const char *name;
  (void)state;
  refused("base=skylake,lbr_depth=8", "lbr_depth=8: the modelled LBR stacks");
  refused("base=skylake,perf_capabilities=0x33c0",
          "lbr_depth=32 needs an LBR format 1-5");
  refused("base=skylake,lbr_1c_eax=1", "lbr_1c_eax/ebx/ecx describe");
  refused("base=sapphirerapids,lbr_depth=32", "arch_lbr=1 with lbr_depth=32");
  refused("base=sapphirerapids,lbr_1c_eax=0x100",
          "lbr_1c_eax=0x100 lbr_1c_ebx=0x7 lbr_1c_ecx=0x7: leaf 1CH");
  refused("base=sapphirerapids,lbr_1c_ecx=8", "lbr_1c_eax=0x8000000f");
  FOR_EACH_PRESET(name) {
    spmu_profile p, q;
    char buf[512];
    assert_int_equal(spmu_profile_parse(name, &p, NULL, 0), SPMU_OK);
    assert_true(spmu_profile_format(&p, buf, sizeof buf) > 0);
    assert_int_equal(spmu_profile_parse(buf, &q, NULL, 0), SPMU_OK);
    assert_int_equal(q.lbr_depth, p.lbr_depth);
    assert_memory_equal(q.lbr_leaf_1c, p.lbr_leaf_1c, sizeof p.lbr_leaf_1c);
    assert_int_equal(q.features, p.features);
  }
}

/* ---- recording ----------------------------------------------------------- */

/* SDM 17.4.8: with DEBUGCTL.LBR set, each taken branch is written to the
 * entry after TOS, which becomes the new TOS; the stack is a ring of 16
 * entries on Nehalem, so the 17th branch overwrites entry 1 (the first
 * went to entry 1, TOS starting at 0) and TOS wraps to 1. */
static void test_17_4_8_recording_order_and_tos_wrap(void **state)
{
  spmu_lbr_entry e[16];
  unsigned i;

  (void)state;
  use("nehalem");
  jcc(0x1000, 0x2000); /* LBR off: nothing */
  assert_int_equal(rd(lp, MSR_LBR_TOS), 0);
  assert_int_equal(rd(lp, MSR_LBR_TO(1)), 0);
  WR(MSR_DEBUGCTL, DBG_LBR);
  for (i = 1; i <= 17; i++)
    jcc(0x400000 + i, 0x500000 + i);
  assert_int_equal(rd(lp, MSR_LBR_TOS), 17 % 16);
  assert_int_equal(rd(lp, MSR_LBR_TO(1)), 0x500000 + 17);
  assert_int_equal(rd(lp, MSR_LBR_TO(2)), 0x500000 + 2);
  assert_int_equal(rd(lp, MSR_LBR_TO(0)), 0x500000 + 16);
  /* Most recent first. */
  assert_int_equal(spmu_lbr_read(lp, e, 16), 16);
  for (i = 0; i < 16; i++)
    assert_int_equal(e[i].to, 0x500000 + 17 - i);
}

/* SDM 17.4.8: n identical clocks record their branch n times; on Core 2
 * (4 entries, 2-bit TOS) 6 of them advance TOS by 6 mod 4. */
static void test_17_4_8_repeated_clock_records_each_repetition(void **state)
{
  unsigned i;

  (void)state;
  use("core2");
  WR(MSR_DEBUGCTL, DBG_LBR);
  branch_at(0x1000, 0x2000, SPMU_BR_JCC, 3, 1);
  assert_int_equal(rd(lp, MSR_LBR_TOS), 1);
  branch_at(0x3000, 0x4000, SPMU_BR_JCC, 3, 6);
  assert_int_equal(rd(lp, MSR_LBR_TOS), (1 + 6) % 4);
  for (i = 0; i < 4; i++) {
    assert_int_equal(rd(lp, MSR_CORE2_FROM(i)), 0x3000);
    assert_int_equal(rd(lp, MSR_CORE2_TO(i)), 0x4000);
  }
}

/* SDM 17.4.8.1 and 17.7.1 Table 17-8 (format 3): FROM_IP holds the
 * address sign-extended from bit 47 to bit 62 and MISPRED in bit 63;
 * TO_IP (Table 17-9) the address sign-extended to bit 63. */
static void test_17_4_8_1_format3_mispred_and_sign_extension(void **state)
{
  spmu_branch br = {.from = 0xffff800000001000,
                    .to = 0xffff800000002000,
                    .predicted = 0,
                    .type = SPMU_BR_FAR};
  spmu_clock clk = {.cpl = 0, .branch = &br};

  (void)state;
  use("nehalem");
  WR(MSR_DEBUGCTL, DBG_LBR);
  assert_true(spmu_deliver(lp, &clk, 1, NULL) >= 0);
  assert_int_equal(rd(lp, MSR_LBR_FROM(1)), 0xffff800000001000);
  assert_int_equal(rd(lp, MSR_LBR_TO(1)), 0xffff800000002000);
  br.predicted = 1;
  assert_true(spmu_deliver(lp, &clk, 1, NULL) >= 0);
  assert_int_equal(rd(lp, MSR_LBR_FROM(2)), 0x7fff800000001000);
}

/* SDM 17.4.8.1 (format 1, LIP): 64 address bits, no flags (Core 2). */
static void test_17_4_8_1_format1_no_flags(void **state)
{
  spmu_branch br = {.from = 0xffff800000001000, .to = 0x2000, .predicted = 0};
  spmu_clock clk = {.cpl = 0, .branch = &br};

  (void)state;
  use("core2");
  WR(MSR_DEBUGCTL, DBG_LBR);
  assert_true(spmu_deliver(lp, &clk, 1, NULL) >= 0);
  assert_int_equal(rd(lp, MSR_CORE2_FROM(1)), 0xffff800000001000);
}

/* SDM 17.9 (format 4, Haswell): FROM_IP bit 63 MISPRED, 62 IN_TX, 61
 * TSX_ABORT, the address sign-extended from bit 47 to bit 60. */
static void test_17_9_format4_tsx_flags(void **state)
{
  spmu_branch br = {.from = 0xffff800000001000,
                    .to = 0x2000,
                    .predicted = 0,
                    .type = SPMU_BR_FAR,
                    .flags = SPMU_BRANCH_TSX_ABORT};
  spmu_clock clk = {.cpl = 0, .flags = SPMU_CLK_IN_TX, .branch = &br};

  (void)state;
  use("haswell");
  WR(MSR_DEBUGCTL, DBG_LBR);
  assert_true(spmu_deliver(lp, &clk, 1, NULL) >= 0);
  assert_int_equal(rd(lp, MSR_LBR_FROM(1)), 0xffff800000001000);
  br.predicted = 1;
  br.flags = 0;
  clk.flags = 0;
  assert_true(spmu_deliver(lp, &clk, 1, NULL) >= 0);
  assert_int_equal(rd(lp, MSR_LBR_FROM(2)), 0x1fff800000001000);
}

/* SDM 17.12.1 (format 5): MSR_LBR_INFO_x holds MISPRED (63), IN_TX (62),
 * TSX_ABORT (61) and the cycle count (15:0), which saturates at FFFFH; a
 * host that gives no count records 0. */
static void test_17_12_1_lbr_info_format5(void **state)
{
  spmu_branch br = {.from = 0x401000,
                    .to = 0x402000,
                    .predicted = 0,
                    .type = SPMU_BR_JCC,
                    .flags = SPMU_BRANCH_CYCLES | SPMU_BRANCH_TSX_ABORT,
                    .cycles = 0x123};
  spmu_clock clk = {.cpl = 3, .flags = SPMU_CLK_IN_TX, .branch = &br};

  (void)state;
  use("skylake");
  WR(MSR_DEBUGCTL, DBG_LBR);
  assert_true(spmu_deliver(lp, &clk, 1, NULL) >= 0);
  assert_int_equal(rd(lp, MSR_LBR_INFO(1)),
                   BIT(63) | BIT(62) | BIT(61) | 0x123);
  assert_int_equal(rd(lp, MSR_LBR_FROM(1)), 0x401000);
  br.cycles = 0x12345;
  br.predicted = 1;
  br.flags = SPMU_BRANCH_CYCLES;
  clk.flags = 0;
  assert_true(spmu_deliver(lp, &clk, 1, NULL) >= 0);
  assert_int_equal(rd(lp, MSR_LBR_INFO(2)), 0xffff);
  br.flags = 0;
  assert_true(spmu_deliver(lp, &clk, 1, NULL) >= 0);
  assert_int_equal(rd(lp, MSR_LBR_INFO(3)), 0);
}

/* SDM 17.12 (format 5, Skylake and Ice Lake): FROM_IP has TO_IP's layout,
 * the address sign-extended through bit 63, with no MISPRED / IN_TX /
 * TSX_ABORT in bits 63:61 (those are MSR_LBR_INFO_x's only): a
 * mispredicted branch in a transaction from a high address reads its
 * plain address, the flags in LBR_INFO; the catalogue has no such fields
 * and a WRMSR takes a canonical address only. */
static void test_17_12_format5_from_ip_holds_no_flags(void **state)
{
  static const char *const presets[] = {"skylake", "icelake"};
  spmu_branch br = {.from = UINT64_C(0xffff800000001000),
                    .to = 0x2000,
                    .predicted = 0,
                    .type = SPMU_BR_JCC,
                    .flags = SPMU_BRANCH_TSX_ABORT};
  spmu_clock clk = {.cpl = 3, .flags = SPMU_CLK_IN_TX, .branch = &br};
  spmu_profile p;
  uint64_t v;
  unsigned i;

  (void)state;
  for (i = 0; i < 2; i++) {
    use(presets[i]);
    assert_int_equal(spmu_profile_parse(presets[i], &p, NULL, 0), SPMU_OK);
    WR(MSR_DEBUGCTL, DBG_LBR);
    assert_true(spmu_deliver(lp, &clk, 1, NULL) >= 0);
    assert_int_equal(rd(lp, MSR_LBR_FROM(1)), UINT64_C(0xffff800000001000));
    assert_int_equal(rd(lp, MSR_LBR_INFO(1)), BIT(63) | BIT(62) | BIT(61));
    assert_int_equal(
        spmu_msr_field_decode(&p, MSR_LBR_FROM(0), "MISPRED", BIT(63), &v),
        SPMU_ENOENT);
    assert_int_equal(spmu_msr_field_decode(&p, MSR_LBR_FROM(0), "FROM_IP",
                                           UINT64_C(0xffff800000001000), &v),
                     SPMU_OK);
    assert_int_equal(v, UINT64_C(0xffff800000001000));
    assert_int_equal(gp(MSR_LBR_FROM(0), UINT64_C(0xffff800000004000)), 0);
    assert_int_equal(gp(MSR_LBR_FROM(0), UINT64_C(0x7fff800000004000)),
                     SPMU_GP);
    /* Call-stack mode stays (17.9: formats 4 and up). */
    assert_int_equal(gp(MSR_LBR_SELECT, SPMU_LBR_SELECT_EN_CALLSTACK), 0);
  }
}

/* SDM 17.7.2 Table 17-11: each LBR_SELECT type bit keeps its kind of
 * branch out of the stack and no other. */
static void test_17_7_2_lbr_select_each_type_bit(void **state)
{
  static const struct {
    unsigned bit, type;
  } map[] = {
      {2, SPMU_BR_JCC},           {3, SPMU_BR_NEAR_REL_CALL},
      {4, SPMU_BR_NEAR_IND_CALL}, {5, SPMU_BR_NEAR_RET},
      {6, SPMU_BR_NEAR_IND_JMP},  {7, SPMU_BR_NEAR_REL_JMP},
      {8, SPMU_BR_FAR},
  };
  unsigned i, t;

  (void)state;
  use("skylake");
  WR(MSR_DEBUGCTL, DBG_LBR);
  for (i = 0; i < 7; i++) {
    WR(MSR_LBR_SELECT, BIT(map[i].bit));
    for (t = SPMU_BR_JCC; t <= SPMU_BR_FAR; t++) {
      uint64_t tos = rd(lp, MSR_LBR_TOS);
      branch_at(0x1000 + t, 0x2000, t, 3, 1);
      assert_int_equal(rd(lp, MSR_LBR_TOS),
                       t == map[i].type ? tos : (tos + 1) % 32);
    }
  }
}

/* SDM 17.7.2 Table 17-11: CPL_EQ_0 keeps ring-0 branches out, CPL_NEQ_0
 * those of rings 1-3. */
static void test_17_7_2_lbr_select_cpl(void **state)
{
  (void)state;
  use("sandybridge");
  WR(MSR_DEBUGCTL, DBG_LBR);
  WR(MSR_LBR_SELECT, BIT(0));
  branch_at(0x1000, 0x2000, SPMU_BR_JCC, 0, 1);
  assert_int_equal(rd(lp, MSR_LBR_TOS), 0);
  branch_at(0x1000, 0x2000, SPMU_BR_JCC, 3, 1);
  assert_int_equal(rd(lp, MSR_LBR_TOS), 1);
  WR(MSR_LBR_SELECT, BIT(1));
  branch_at(0x1000, 0x2000, SPMU_BR_JCC, 1, 1);
  assert_int_equal(rd(lp, MSR_LBR_TOS), 1);
  branch_at(0x1000, 0x2000, SPMU_BR_JCC, 0, 1);
  assert_int_equal(rd(lp, MSR_LBR_TOS), 2);
}

/* events.h: a branch whose type the host does not give passes
 * MSR_LBR_SELECT only when no type bit is set (decisions.md, LBR). */
static void test_unknown_branch_type_only_unfiltered(void **state)
{
  (void)state;
  use("skylake");
  WR(MSR_DEBUGCTL, DBG_LBR);
  branch_at(0x1000, 0x2000, SPMU_BR_UNKNOWN, 3, 1);
  assert_int_equal(rd(lp, MSR_LBR_TOS), 1);
  WR(MSR_LBR_SELECT, BIT(8)); /* FAR_BRANCH only */
  branch_at(0x1000, 0x2000, SPMU_BR_UNKNOWN, 3, 1);
  assert_int_equal(rd(lp, MSR_LBR_TOS), 1);
  WR(MSR_LBR_SELECT, BIT(1)); /* a CPL bit is no type filter */
  branch_at(0x1000, 0x2000, SPMU_BR_UNKNOWN, 0, 1);
  assert_int_equal(rd(lp, MSR_LBR_TOS), 2);
}

/* SDM 17.9 (call-stack mode, EN_CALLSTACK): calls are recorded as usual;
 * a return flushes the last record (LIFO) instead of being recorded. */
static void test_17_9_callstack_push_pop(void **state)
{
  (void)state;
  use("haswell");
  WR(MSR_DEBUGCTL, DBG_LBR);
  /* Calls and returns only, as Linux programs it. */
  WR(MSR_LBR_SELECT, BIT(9) | BIT(2) | BIT(6) | BIT(7) | BIT(8));
  branch_at(0x1000, 0x2000, SPMU_BR_NEAR_REL_CALL, 3, 1); /* main -> a */
  branch_at(0x2010, 0x3000, SPMU_BR_NEAR_IND_CALL, 3, 1); /* a -> b */
  branch_at(0x3010, 0x2014, SPMU_BR_NEAR_RET, 3, 1);      /* b returns */
  branch_at(0x2020, 0x4000, SPMU_BR_NEAR_REL_CALL, 3, 1); /* a -> c */
  assert_int_equal(rd(lp, MSR_LBR_TOS), 2);
  assert_int_equal(rd(lp, MSR_LBR_FROM(1)) & 0xffffffff, 0x1000);
  assert_int_equal(rd(lp, MSR_LBR_FROM(2)) & 0xffffffff, 0x2020);
  assert_int_equal(rd(lp, MSR_LBR_FROM(3)), 0);
  assert_int_equal(rd(lp, MSR_LBR_TO(3)), 0);
  branch_at(0x4010, 0x2024, SPMU_BR_NEAR_RET, 3, 1);
  branch_at(0x2030, 0x1004, SPMU_BR_NEAR_RET, 3, 1);
  assert_int_equal(rd(lp, MSR_LBR_TOS), 0);
  assert_int_equal(rd(lp, MSR_LBR_FROM(1)), 0);
  assert_int_equal(rd(lp, MSR_LBR_TO(2)), 0);
  /* Without EN_CALLSTACK a return is a recorded branch. */
  WR(MSR_LBR_SELECT, 0);
  branch_at(0x2030, 0x1004, SPMU_BR_NEAR_RET, 3, 1);
  assert_int_equal(rd(lp, MSR_LBR_TOS), 1);
  assert_int_equal(rd(lp, MSR_LBR_TO(1)), 0x1004);
}

/* ---- freeze on PMI ------------------------------------------------------- */

/* PMC0 one branch away from overflow, with a PMI. */
static void arm_pmc0_pmi(void)
{
  WR(MSR_EVTSEL0, 0xC4 | EV_USR | EV_OS | EV_INT | EV_EN);
  HWR(MSR_PMC0, W48);
  WR(MSR_GLOBAL_CTRL, 1);
}

static void counted_branch(uint64_t from, uint64_t to)
{
  spmu_event_line ev = {0xC4, 0x00, 1};
  spmu_branch br = {
      .from = from, .to = to, .predicted = 1, .type = SPMU_BR_JCC};
  spmu_clock clk = {.lines = &ev, .nlines = 1, .cpl = 3, .branch = &br};
  assert_true(spmu_deliver(lp, &clk, 1, NULL) >= 0);
}

/* SDM 17.4.7, 18.2.4.1 (legacy, v2-v3): with FREEZE_LBRS_ON_PMI a PMI
 * clears DEBUGCTL.LBR; the branch of the clock that overflowed is
 * recorded, later ones are not until software sets LBR again. */
static void test_17_4_7_legacy_freeze_clears_debugctl_lbr(void **state)
{
  (void)state;
  use("haswell");
  WR(MSR_DEBUGCTL, DBG_LBR | DBG_FREEZE_LBRS);
  arm_pmc0_pmi();
  counted_branch(0x1000, 0x2000);
  assert_int_equal(rd(lp, MSR_DEBUGCTL), DBG_FREEZE_LBRS);
  assert_int_equal(rd(lp, MSR_LBR_TOS), 1);
  assert_int_equal(rd(lp, MSR_LBR_TO(1)), 0x2000);
  jcc(0x3000, 0x4000);
  assert_int_equal(rd(lp, MSR_LBR_TOS), 1);
  WR(MSR_DEBUGCTL, DBG_LBR | DBG_FREEZE_LBRS);
  jcc(0x3000, 0x4000);
  assert_int_equal(rd(lp, MSR_LBR_TOS), 2);
}

/* SDM 17.10.2, 18.2.4.1 (v4 streamlined freeze): the PMI sets
 * GLOBAL_STATUS.LBR_Frz and leaves DEBUGCTL.LBR set; nothing is recorded
 * while LBR_Frz is set; software clears it through
 * IA32_PERF_GLOBAL_STATUS_RESET bit 58. */
static void test_17_10_2_v4_lbr_frz_until_status_reset(void **state)
{
  (void)state;
  use("skylake");
  WR(MSR_DEBUGCTL, DBG_LBR | DBG_FREEZE_LBRS);
  arm_pmc0_pmi();
  counted_branch(0x1000, 0x2000);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), ST_LBR_FRZ | 1);
  assert_int_equal(rd(lp, MSR_DEBUGCTL), DBG_LBR | DBG_FREEZE_LBRS);
  assert_int_equal(rd(lp, MSR_LBR_TOS), 1);
  jcc(0x3000, 0x4000);
  jcc(0x3000, 0x4000);
  assert_int_equal(rd(lp, MSR_LBR_TOS), 1);
  WR(MSR_STATUS_RESET, 1); /* the overflow only: still frozen */
  jcc(0x3000, 0x4000);
  assert_int_equal(rd(lp, MSR_LBR_TOS), 1);
  WR(MSR_STATUS_RESET, ST_LBR_FRZ);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 0);
  jcc(0x3000, 0x4000);
  assert_int_equal(rd(lp, MSR_LBR_TOS), 2);
  assert_int_equal(rd(lp, MSR_LBR_TO(2)), 0x4000);
}

/* SDM 17.4.1 FREEZE_WHILE_SMM: an SMI disables LBR until RSM, so a clock
 * in SMM records its branch only without FREEZE_WHILE_SMM. */
static void test_17_4_1_freeze_while_smm_stops_lbrs(void **state)
{
  spmu_branch br = {.from = 0x1000, .to = 0x2000, .type = SPMU_BR_FAR};
  spmu_clock clk = {.cpl = 0, .flags = SPMU_CLK_SMM, .branch = &br};

  (void)state;
  use("skylake");
  WR(MSR_DEBUGCTL, DBG_LBR | DBG_FREEZE_SMM);
  assert_true(spmu_deliver(lp, &clk, 1, NULL) >= 0);
  assert_int_equal(rd(lp, MSR_LBR_TOS), 0);
  clk.flags = 0;
  assert_true(spmu_deliver(lp, &clk, 1, NULL) >= 0);
  assert_int_equal(rd(lp, MSR_LBR_TOS), 1);
  WR(MSR_DEBUGCTL, DBG_LBR);
  clk.flags = SPMU_CLK_SMM;
  assert_true(spmu_deliver(lp, &clk, 1, NULL) >= 0);
  assert_int_equal(rd(lp, MSR_LBR_TOS), 2);
}

/* ---- #GP ----------------------------------------------------------------- */

/* SDM 17.7.2 Table 17-11, 17.4.8 Table 17-4, 17.12.1, 17.4.8.1: reserved
 * bits of LBR_SELECT (10+; EN_CALLSTACK before Haswell), of TOS (past the
 * M-bit pointer) and of LBR_INFO (60:16) #GP; so do FROM_IP / TO_IP values
 * whose address does not sign-extend bit 47. The MSR is unchanged. */
static void test_17_4_8_reserved_bits_and_addresses_gp(void **state)
{
  (void)state;
  use("skylake");
  assert_int_equal(gp(MSR_LBR_SELECT, BIT(10)), SPMU_GP);
  assert_int_equal(gp(MSR_LBR_SELECT, 0x3ff), SPMU_OK);
  assert_int_equal(gp(MSR_LBR_TOS, 32), SPMU_GP);
  assert_int_equal(gp(MSR_LBR_TOS, 31), SPMU_OK);
  assert_int_equal(gp(MSR_LBR_INFO(0), BIT(16)), SPMU_GP);
  assert_int_equal(gp(MSR_LBR_INFO(0), BIT(60)), SPMU_GP);
  assert_int_equal(gp(MSR_LBR_INFO(0), 0xe00000000000ffff), SPMU_OK);
  /* Format 5: a canonical address in bits 63:0 (17.12). */
  assert_int_equal(gp(MSR_LBR_FROM(0), 0x0000800000000000), SPMU_GP);
  assert_int_equal(gp(MSR_LBR_FROM(0), 0xffff800000000000), SPMU_OK);
  assert_int_equal(gp(MSR_LBR_FROM(0), 0x1fff800000000000), SPMU_GP);
  assert_int_equal(gp(MSR_LBR_FROM(0), 0xe000000000401000), SPMU_GP);
  assert_int_equal(gp(MSR_LBR_TO(0), 0x0001000000000000), SPMU_GP);
  assert_int_equal(rd(lp, MSR_LBR_TO(0)), 0);
  /* Format 4: the address in bits 60:0 below the flags (17.9). */
  use("haswell");
  assert_int_equal(gp(MSR_LBR_FROM(0), 0x0000800000000000), SPMU_GP);
  assert_int_equal(gp(MSR_LBR_FROM(0), 0x1fff800000000000), SPMU_OK);
  assert_int_equal(gp(MSR_LBR_FROM(0), 0xe000000000401000), SPMU_OK);
  use("nehalem");
  assert_int_equal(gp(MSR_LBR_SELECT, BIT(9)), SPMU_GP);
  assert_int_equal(gp(MSR_LBR_TOS, 16), SPMU_GP);
  assert_int_equal(gp(MSR_LBR_FROM(0), 0x7fff800000000000), SPMU_OK);
  assert_int_equal(gp(MSR_LBR_FROM(0), 0x3fff800000000000), SPMU_GP);
  use("core2");
  assert_int_equal(gp(MSR_LBR_TOS, 4), SPMU_GP);
}

/* ---- INIT and RESET ------------------------------------------------------ */

/* SDM Vol. 3A 9.1 (INIT leaves MSRs unchanged): the stack and TOS survive
 * INIT; RESET puts DEBUGCTL, LBR_SELECT, TOS and every entry to 0
 * (decisions.md, LBR). */
static void test_9_1_init_keeps_reset_clears_lbrs(void **state)
{
  (void)state;
  use("skylake");
  WR(MSR_DEBUGCTL, DBG_LBR);
  WR(MSR_LBR_SELECT, BIT(2));
  jcc(0x1000, 0x2000);
  branch_at(0x1000, 0x2000, SPMU_BR_NEAR_REL_CALL, 3, 1);
  assert_int_equal(spmu_lp_init_signal(lp), SPMU_OK);
  assert_int_equal(rd(lp, MSR_LBR_TOS), 1);
  assert_int_equal(rd(lp, MSR_LBR_TO(1)), 0x2000);
  assert_int_equal(rd(lp, MSR_LBR_SELECT), BIT(2));
  assert_int_equal(spmu_core_reset(core), SPMU_OK);
  assert_int_equal(rd(lp, MSR_LBR_TOS), 0);
  assert_int_equal(rd(lp, MSR_LBR_TO(1)), 0);
  assert_int_equal(rd(lp, MSR_LBR_SELECT), 0);
  assert_int_equal(rd(lp, MSR_DEBUGCTL), 0);
}

/* ---- snapshot ------------------------------------------------------------ */

/* pmu.h: a snapshot carries the LBR stack (format 4): a core restored from
 * it reads the same entries; a format 2 blob (no LBRs) is SPMU_EVERSION,
 * and so is a format 3 blob (no LER MSRs, no last-branch latch). */
static void test_snapshot_round_trip_carries_lbr_stack(void **state)
{
  spmu_core *dst = core_for("skylake");
  spmu_lbr_entry a[32], b[32];
  uint8_t blob[16384];
  size_t len = 0;

  (void)state;
  use("skylake");
  WR(MSR_DEBUGCTL, DBG_LBR);
  WR(MSR_LBR_SELECT, BIT(9));
  jcc(0x1000, 0x2000);
  jcc(0x3000, 0x4000);
  assert_int_equal(spmu_core_save(core, blob, sizeof blob, &len), SPMU_OK);
  assert_int_equal(spmu_core_restore(dst, blob, len), SPMU_OK);
  assert_int_equal(spmu_lbr_read(lp, a, 32), 32);
  assert_int_equal(spmu_lbr_read(spmu_core_lp(dst, 0), b, 32), 32);
  assert_memory_equal(a, b, sizeof a);
  assert_int_equal(b[0].to, 0x4000);
  assert_int_equal(rd(spmu_core_lp(dst, 0), MSR_LBR_SELECT), BIT(9));
  blob[4] = 2;
  blob[5] = 0;
  assert_int_equal(spmu_core_restore(dst, blob, len), SPMU_EVERSION);
  blob[4] = 3;
  assert_int_equal(spmu_core_restore(dst, blob, len), SPMU_EVERSION);
  spmu_core_free(dst);
}

/* ---- architectural LBRs -------------------------------------------------- */

/* SDM Vol. 2A CPUID: leaf 07H EDX[19] enumerates architectural LBRs and
 * leaf 1CH their capabilities, as the profile states them; a part without
 * them reads 0. */
static void test_cpuid_1ch_from_profile(void **state)
{
  uint32_t r[4];

  (void)state;
  use("sapphirerapids");
  assert_int_equal(spmu_cpuid(lp, 0x1C, 0, r), SPMU_OK);
  assert_int_equal(r[0], 0x8000000F);
  assert_int_equal(r[1], 0x7);
  assert_int_equal(r[2], 0x7);
  assert_int_equal(r[3], 0);
  assert_int_equal(spmu_cpuid(lp, 0x7, 0, r), SPMU_OK);
  assert_int_equal(r[3], 1u << 19);
  use("base=sapphirerapids,lbr_1c_eax=0x2,lbr_1c_ebx=0,lbr_1c_ecx=0");
  assert_int_equal(spmu_cpuid(lp, 0x1C, 0, r), SPMU_OK);
  assert_int_equal(r[0], 0x2);
  assert_int_equal(rd(lp, MSR_ARCH_DEPTH), 16);
  use("skylake");
  assert_int_equal(spmu_cpuid(lp, 0x1C, 0, r), SPMU_OK);
  assert_int_equal(r[0] | r[1] | r[2] | r[3], 0);
  assert_int_equal(spmu_cpuid(lp, 0x7, 0, r), SPMU_OK);
  assert_int_equal(r[3], 0);
}

/* CPUID leaf 0DH (SDM Vol. 2A CPUID, "Processor Extended State
 * Enumeration"; Vol. 1 13.5.12 the arch LBR state): sub-leaf 1 ECX[15]
 * says IA32_XSS supports component 15; sub-leaf 0FH EAX is its size (the
 * five MSRs and 24 bytes per entry of the deepest depth: what
 * spmu_lbr_xsave writes), EBX 0, ECX[0] = 1 (supervisor, IA32_XSS),
 * ECX[1] = 0, EDX 0. Without architectural LBRs, all zero. The owned
 * masks by sub-leaf. */
static void test_cpuid_0dh_subleaf_0fh_arch_lbr_state(void **state)
{
  uint32_t r[4], o[4];
  size_t len = 0;

  (void)state;
  use("sapphirerapids");
  assert_int_equal(spmu_cpuid(lp, 0xD, 0xF, r), SPMU_OK);
  assert_int_equal(r[0], 808);
  assert_int_equal(r[1], 0);
  assert_int_equal(r[2], 1);
  assert_int_equal(r[3], 0);
  assert_int_equal(spmu_lbr_xsave(lp, NULL, 0, &len), SPMU_ENOSPC);
  assert_int_equal(len, r[0]);
  assert_int_equal(spmu_cpuid(lp, 0xD, 1, r), SPMU_OK);
  assert_int_equal(r[2], 1u << 15);
  assert_int_equal(r[0] | r[1] | r[3], 0);
  use("base=sapphirerapids,lbr_1c_eax=0x3,lbr_1c_ebx=0x7,lbr_1c_ecx=0x7");
  assert_int_equal(spmu_cpuid(lp, 0xD, 0xF, r), SPMU_OK);
  assert_int_equal(r[0], 40 + 24 * 16);
  use("skylake");
  assert_int_equal(spmu_cpuid(lp, 0xD, 0xF, r), SPMU_OK);
  assert_int_equal(r[0] | r[1] | r[2] | r[3], 0);
  assert_int_equal(spmu_cpuid(lp, 0xD, 1, r), SPMU_OK);
  assert_int_equal(r[2], 0);
  assert_int_equal(spmu_cpuid_owned_subleaf(0xD, 1, o), SPMU_OK);
  assert_int_equal(o[2], 1u << 15);
  assert_int_equal(o[0] | o[1] | o[3], 0);
  assert_int_equal(spmu_cpuid_owned_subleaf(0xD, 0xF, o), SPMU_OK);
  assert_int_equal(o[0] & o[1] & o[2] & o[3], 0xffffffffu);
  assert_int_equal(spmu_cpuid_owned_subleaf(0xD, 0, o), SPMU_OK);
  assert_int_equal(o[0] | o[1] | o[2] | o[3], 0);
  assert_int_equal(spmu_cpuid_owned_subleaf(0x1C, 0, o), SPMU_OK);
  assert_int_equal(o[0], 0xffffffffu);
  assert_int_equal(spmu_cpuid_owned(0xD, o), SPMU_ENOENT);
  /* Leaf 07H: Arch LBR is EDX[19] of sub-leaf 0 only; a host merging
   * sub-leaf 1 must keep its own EDX[19]. */
  assert_int_equal(spmu_cpuid_owned_subleaf(0x7, 0, o), SPMU_OK);
  assert_int_equal(o[3], 1u << 19);
  assert_int_equal(spmu_cpuid_owned_subleaf(0x7, 1, o), SPMU_OK);
  assert_int_equal(o[0] | o[1] | o[2] | o[3], 0);
}

/* CPUID.(EAX=07H,ECX=0):EDX[19] and leaf 1CH back into a profile: the
 * inverse of spmu_profile_cpuid for architectural LBRs; EDX[19] clear
 * takes them away; leaf 1CH without a supported depth is refused (a
 * profile spmu_profile_validate refuses). */
static void test_profile_lbr_from_cpuid_reads_leaf_1ch(void **state)
{
  spmu_profile spr, p;
  uint32_t r07[4], r1c[4], zero[4] = {0, 0, 0, 0};
  char why[256];

  (void)state;
  assert_int_equal(spmu_profile_parse("sapphirerapids", &spr, NULL, 0), 0);
  assert_int_equal(spmu_profile_cpuid(&spr, 0x7, 0, r07), SPMU_OK);
  assert_int_equal(spmu_profile_cpuid(&spr, 0x1C, 0, r1c), SPMU_OK);
  assert_int_equal(spmu_profile_parse("icelake", &p, NULL, 0), 0);
  p.perf_capabilities = spr.perf_capabilities;
  p.lbr_depth = 0;
  assert_int_equal(spmu_profile_lbr_from_cpuid(&p, r07, r1c, why, sizeof why),
                   SPMU_OK);
  assert_true(p.features & SPMU_FEAT_ARCH_LBR);
  assert_int_equal(p.lbr_leaf_1c[0], spr.lbr_leaf_1c[0]);
  assert_int_equal(p.lbr_leaf_1c[1], spr.lbr_leaf_1c[1]);
  assert_int_equal(p.lbr_leaf_1c[2], spr.lbr_leaf_1c[2]);
  assert_int_equal(spmu_profile_lbr_from_cpuid(&p, zero, NULL, why, sizeof why),
                   SPMU_OK);
  assert_false(p.features & SPMU_FEAT_ARCH_LBR);
  assert_int_equal(p.lbr_leaf_1c[0] | p.lbr_leaf_1c[1] | p.lbr_leaf_1c[2], 0);
  r1c[0] = 0; /* no depth */
  assert_int_equal(spmu_profile_lbr_from_cpuid(&p, r07, r1c, why, sizeof why),
                   SPMU_EPROFILE);
  assert_false(p.features & SPMU_FEAT_ARCH_LBR);
  assert_int_equal(spmu_profile_lbr_from_cpuid(&p, r07, NULL, why, sizeof why),
                   SPMU_EINVAL);
}

/* Arch LBR: IA32_LBR_DEPTH resets to the deepest supported depth, takes
 * only 8 * (n + 1) for the bits n of CPUID.1CH:EAX[7:0] (others #GP), and
 * a write clears every entry. Without CPL, filter or call-stack support
 * those IA32_LBR_CTL bits are reserved. */
static void test_arch_lbr_depth_rules(void **state)
{
  (void)state;
  use("sapphirerapids");
  assert_int_equal(rd(lp, MSR_ARCH_DEPTH), 32);
  assert_int_equal(gp(MSR_ARCH_DEPTH, 12), SPMU_GP);
  assert_int_equal(gp(MSR_ARCH_DEPTH, 40), SPMU_GP);
  assert_int_equal(gp(MSR_ARCH_DEPTH, 0), SPMU_GP);
  assert_int_equal(rd(lp, MSR_ARCH_DEPTH), 32);
  WR(MSR_ARCH_CTL, 0x7f0007);
  jcc(0x1000, 0x2000);
  assert_int_equal(rd(lp, MSR_ARCH_TO(0)), 0x2000);
  WR(MSR_ARCH_DEPTH, 32); /* the same depth: still a reset of the entries */
  assert_int_equal(rd(lp, MSR_ARCH_TO(0)), 0);
  WR(MSR_ARCH_DEPTH, 8);
  assert_int_equal(spmu_lbr_read(lp, NULL, 0), 8);
  assert_int_equal(gp(MSR_ARCH_CTL, BIT(4)), SPMU_GP);
  use("base=sapphirerapids,lbr_1c_ebx=0");
  assert_int_equal(gp(MSR_ARCH_CTL, BIT(1)), SPMU_GP);
  assert_int_equal(gp(MSR_ARCH_CTL, BIT(3)), SPMU_GP);
  assert_int_equal(gp(MSR_ARCH_CTL, BIT(16)), SPMU_GP);
  assert_int_equal(gp(MSR_ARCH_CTL, 1), SPMU_OK);
}

/* Arch LBR: entry 0 is the most recent branch and older ones move down
 * (depth 8: the 9th pushes the first out); IA32_LBR_x_INFO holds BR_TYPE
 * (59:56), CYC_CNT_VALID (60) with CYC_CNT, MISPRED (63). */
static void test_arch_lbr_entry0_most_recent_and_info(void **state)
{
  spmu_branch br = {.from = 0x5000,
                    .to = 0x6000,
                    .predicted = 0,
                    .type = SPMU_BR_NEAR_RET,
                    .flags = SPMU_BRANCH_CYCLES,
                    .cycles = 9};
  spmu_clock clk = {.cpl = 3, .branch = &br};
  unsigned i;

  (void)state;
  use("sapphirerapids");
  WR(MSR_ARCH_DEPTH, 8);
  WR(MSR_ARCH_CTL, 0x7f0007); /* LBREn, OS, USR, every type */
  for (i = 1; i <= 9; i++)
    jcc(0x1000 + i, 0x2000 + i);
  for (i = 0; i < 8; i++)
    assert_int_equal(rd(lp, MSR_ARCH_TO(i)), 0x2000 + 9 - i);
  assert_int_equal(rd(lp, MSR_ARCH_INFO(0)), 0);
  assert_true(spmu_deliver(lp, &clk, 1, NULL) >= 0);
  assert_int_equal(rd(lp, MSR_ARCH_FROM(0)), 0x5000);
  assert_int_equal(rd(lp, MSR_ARCH_INFO(0)),
                   BIT(63) | BIT(60) | UINT64_C(5) << 56 | 9);
  br.type = SPMU_BR_UNKNOWN;
  br.flags = 0;
  br.predicted = 1;
  assert_true(spmu_deliver(lp, &clk, 1, NULL) >= 0);
  assert_int_equal(rd(lp, MSR_ARCH_INFO(0)), UINT64_C(8) << 56);
}

/* Arch LBR IA32_LBR_CTL: OS / USR select the CPLs recorded, bits 16-22 the
 * branch types (1 = record); CALL_STACK pops on near returns. */
static void test_arch_lbr_ctl_filters_and_call_stack(void **state)
{
  (void)state;
  use("sapphirerapids");
  WR(MSR_ARCH_CTL, 0x7f0003); /* LBREn, OS only */
  jcc(0x1000, 0x2000);
  assert_int_equal(rd(lp, MSR_ARCH_TO(0)), 0);
  branch_at(0x1000, 0x2000, SPMU_BR_JCC, 0, 1);
  assert_int_equal(rd(lp, MSR_ARCH_TO(0)), 0x2000);
  WR(MSR_ARCH_CTL, BIT(20) | BIT(21) | 5); /* USR, calls and returns */
  jcc(0x1000, 0x3000);
  assert_int_equal(rd(lp, MSR_ARCH_TO(0)), 0x2000);
  branch_at(0x1000, 0x3000, SPMU_BR_NEAR_REL_CALL, 3, 1);
  assert_int_equal(rd(lp, MSR_ARCH_TO(0)), 0x3000);
  WR(MSR_ARCH_CTL, BIT(20) | BIT(21) | BIT(3) | 5); /* + CALL_STACK */
  branch_at(0x3010, 0x1004, SPMU_BR_NEAR_RET, 3, 1);
  assert_int_equal(rd(lp, MSR_ARCH_TO(0)), 0x2000);
  assert_int_equal(rd(lp, MSR_ARCH_TO(1)), 0);
}

/* Arch LBR XSAVES state component 15: LBR_CTL, LBR_DEPTH, the LER MSRs,
 * then FROM / TO / INFO of each entry; XRSTORS loads it whole (the depth
 * without clearing), and a value a WRMSR would #GP is #GP with nothing
 * loaded. */
static void test_arch_lbr_xsave_component_round_trip(void **state)
{
  uint8_t buf[SPMU_LBR_XSAVE_SIZE(32)], save[sizeof buf];
  size_t len = 0;
  spmu_lp *lp1;

  (void)state;
  use("sapphirerapids");
  lp1 = spmu_core_lp(core, 1);
  assert_int_equal(spmu_lbr_xsave(lp, NULL, 0, &len), SPMU_ENOSPC);
  assert_int_equal(len, 808);
  WR(MSR_ARCH_CTL, 0x7f0007);
  WR(MSR_ARCH_DEPTH, 16);
  jcc(0x1000, 0x2000);
  jcc(0x3000, 0x4000);
  assert_int_equal(spmu_lbr_xsave(lp, buf, sizeof buf, &len), SPMU_OK);
  assert_int_equal(len, 808);
  assert_int_equal(buf[0], 0x07);
  assert_int_equal(buf[8], 16);
  assert_int_equal(buf[40 + 8], 0x00); /* entry 0 TO = 0x4000 */
  assert_int_equal(buf[40 + 9], 0x40);
  assert_int_equal(buf[40 + 24 + 9], 0x20); /* entry 1 TO = 0x2000 */
  assert_int_equal(spmu_lbr_xrstor(lp1, buf, len), SPMU_OK);
  assert_int_equal(rd(lp1, MSR_ARCH_DEPTH), 16);
  assert_int_equal(rd(lp1, MSR_ARCH_CTL), 0x7f0007);
  assert_int_equal(rd(lp1, MSR_ARCH_TO(0)), 0x4000);
  assert_int_equal(rd(lp1, MSR_ARCH_FROM(1)), 0x3000 - 0x2000);
  memcpy(save, buf, sizeof buf);
  buf[40 + 23] = 0x01; /* entry 0 INFO bit 56: fine */
  buf[40 + 18] = 0x01; /* INFO bit 16: reserved */
  assert_int_equal(spmu_lbr_xrstor(lp1, buf, len), SPMU_GP);
  assert_int_equal(rd(lp1, MSR_ARCH_INFO(0)), 0);
  assert_int_equal(spmu_lbr_xrstor(lp1, save, len - 1), SPMU_EINVAL);
  use("skylake");
  assert_int_equal(spmu_lbr_xsave(lp, buf, sizeof buf, &len), SPMU_ENOENT);
}

/* ---- last exception record ----------------------------------------------- */

/* An exception or interrupt delivery: a far branch with SPMU_BRANCH_EVENT. */
static void event_at(uint64_t from, uint64_t to, unsigned cpl, uint64_t n)
{
  spmu_branch br = {.from = from,
                    .to = to,
                    .predicted = 1,
                    .type = SPMU_BR_FAR,
                    .flags = SPMU_BRANCH_EVENT};
  spmu_clock clk = {.cpl = (uint8_t)cpl, .branch = &br};
  assert_true(spmu_deliver(lp, &clk, n, NULL) >= 0);
}

/* SDM 17.4.8.3: MSR_LER_FROM_LIP / MSR_LER_TO_LIP hold the branch record
 * of the last branch taken before an exception or interrupt, as 64-bit
 * linear addresses (no format flags, unlike FROM_IP of format 5); the
 * delivery itself is a branch the stack records, so a second event copies
 * the first; the MSRs are read-only (Vol. 3C Table 35-3 "(R)"): WRMSR
 * #GP. */
static void test_17_4_8_3_ler_last_branch_before_exception(void **state)
{
  (void)state;
  use("skylake");
  assert_int_equal(rd(lp, MSR_LER_FROM), 0);
  event_at(0x1000, 0x2000, 3, 1); /* DEBUGCTL.LBR clear: nothing */
  WR(MSR_DEBUGCTL, DBG_LBR);
  jcc(0x1000, 0x2000);
  jcc(UINT64_C(0xffff800000003000), 0x4000);
  assert_int_equal(rd(lp, MSR_LER_FROM), 0);
  event_at(0x4010, UINT64_C(0xffff800000009000), 3, 1);
  assert_int_equal(rd(lp, MSR_LER_FROM), UINT64_C(0xffff800000003000));
  assert_int_equal(rd(lp, MSR_LER_TO), 0x4000);
  /* The stack's FROM_IP has TO_IP's layout in format 5 (17.12). */
  assert_int_equal(rd(lp, MSR_LBR_FROM(2)), UINT64_C(0xffff800000003000));
  assert_int_equal(rd(lp, MSR_LBR_TOS), 3);
  assert_int_equal(rd(lp, MSR_LBR_TO(3)), UINT64_C(0xffff800000009000));
  event_at(0x5000, 0x6000, 0, 1);
  assert_int_equal(rd(lp, MSR_LER_FROM), 0x4010);
  assert_int_equal(rd(lp, MSR_LER_TO), UINT64_C(0xffff800000009000));
  assert_int_equal(gp(MSR_LER_FROM, 0), SPMU_GP);
  assert_int_equal(gp(MSR_LER_TO, 0), SPMU_GP);
  assert_int_equal(rd(lp, MSR_LER_FROM), 0x4010);
}

/* SDM 17.4.8.3 and 17.7.2: the record is that of the last branch the LBRs
 * recorded: a branch LBR_SELECT drops is not it; an event whose own far
 * branch LBR_SELECT drops (FAR_BRANCH) still updates the record; in
 * call-stack mode (17.9) a return that popped is the last branch, though
 * TOS then holds the call before it. n identical event clocks: the last
 * copies the event itself. */
static void test_17_4_8_3_ler_follows_lbr_select(void **state)
{
  (void)state;
  use("haswell");
  WR(MSR_DEBUGCTL, DBG_LBR);
  WR(MSR_LBR_SELECT, BIT(2) | BIT(8)); /* no JCC, no far branches */
  branch_at(0x1000, 0x2000, SPMU_BR_NEAR_REL_CALL, 3, 1);
  jcc(0x3000, 0x4000);
  event_at(0x5000, 0x6000, 3, 1);
  assert_int_equal(rd(lp, MSR_LER_FROM), 0x1000);
  assert_int_equal(rd(lp, MSR_LER_TO), 0x2000);
  assert_int_equal(rd(lp, MSR_LBR_TOS), 1); /* the event is not recorded */
  event_at(0x7000, 0x8000, 3, 1);
  assert_int_equal(rd(lp, MSR_LER_FROM), 0x1000);
  WR(MSR_LBR_SELECT, BIT(9)); /* call-stack mode, every type */
  branch_at(0x1100, 0x2100, SPMU_BR_NEAR_REL_CALL, 3, 1);
  branch_at(0x2180, 0x1105, SPMU_BR_NEAR_RET, 3, 1);
  assert_int_equal(rd(lp, MSR_LBR_TO(rd(lp, MSR_LBR_TOS))), 0x2000);
  event_at(0x1105, 0x9000, 3, 1);
  assert_int_equal(rd(lp, MSR_LER_FROM), 0x2180);
  assert_int_equal(rd(lp, MSR_LER_TO), 0x1105);
  event_at(0xa000, 0xb000, 3, 3);
  assert_int_equal(rd(lp, MSR_LER_FROM), 0xa000);
  assert_int_equal(rd(lp, MSR_LER_TO), 0xb000);
}

/* Arch LBR: the LER "records the last taken branch preceding the last
 * exception, hardware interrupt, or software interrupt" in
 * IA32_LER_FROM_IP / TO_IP / INFO (INFO as IA32_LBR_x_INFO: BR_TYPE,
 * CYC_CNT_VALID, CYC_CNT) and "is subject to the same dependencies on
 * enabling and filtering": nothing with LBREn clear or while LBR_Frz is
 * set; a depth write clears the entries, not the LER; XSAVES component
 * 15 carries it at bytes 16-39. The MSRs are read-write. */
static void test_arch_ler_last_branch_info_and_enabling(void **state)
{
  spmu_branch br = {.from = 0x1000,
                    .to = 0x2000,
                    .predicted = 0,
                    .type = SPMU_BR_NEAR_IND_CALL,
                    .flags = SPMU_BRANCH_CYCLES,
                    .cycles = 70000};
  spmu_clock clk = {.cpl = 3, .branch = &br};
  uint8_t buf[SPMU_LBR_XSAVE_SIZE(32)];
  size_t len = 0;

  (void)state;
  use("sapphirerapids");
  WR(MSR_ARCH_CTL, 0x7f0007);
  assert_true(spmu_deliver(lp, &clk, 1, NULL) >= 0);
  event_at(0x2010, 0x9000, 3, 1);
  assert_int_equal(rd(lp, MSR_LER_FROM), 0x1000);
  assert_int_equal(rd(lp, MSR_LER_TO), 0x2000);
  assert_int_equal(rd(lp, MSR_LER_INFO),
                   BIT(63) | BIT(60) | UINT64_C(3) << 56 | 0xffff);
  assert_int_equal(spmu_lbr_xsave(lp, buf, sizeof buf, &len), SPMU_OK);
  assert_int_equal(buf[17], 0x10); /* LER_FROM_IP = 0x1000 */
  assert_int_equal(buf[25], 0x20); /* LER_TO_IP = 0x2000 */
  assert_int_equal(buf[39], 0x93); /* LER_INFO bits 63:56 */
  WR(MSR_ARCH_DEPTH, 8);
  assert_int_equal(rd(lp, MSR_ARCH_TO(0)), 0);
  assert_int_equal(rd(lp, MSR_LER_TO), 0x2000);
  WR(MSR_ARCH_CTL, 0x7f0006); /* LBREn clear */
  event_at(0x3000, 0x4000, 3, 1);
  assert_int_equal(rd(lp, MSR_LER_FROM), 0x1000);
  WR(MSR_ARCH_CTL, 0x7f0007);
  WR(MSR_GLOBAL_STATUS_SET, ST_LBR_FRZ);
  event_at(0x3000, 0x4000, 3, 1);
  assert_int_equal(rd(lp, MSR_LER_FROM), 0x1000);
  WR(MSR_STATUS_RESET, ST_LBR_FRZ);
  event_at(0x5000, 0x6000, 3, 1); /* the last branch: the event 2010H */
  assert_int_equal(rd(lp, MSR_LER_FROM), 0x2010);
  assert_int_equal(rd(lp, MSR_LER_INFO), UINT64_C(8) << 56);
  WR(MSR_LER_FROM, 0x1234);
  assert_int_equal(rd(lp, MSR_LER_FROM), 0x1234);
}

/* pmu.h (format 4): a snapshot carries the last branch an exception would
 * copy: the restored core's next event records the same LER; RESET clears
 * the record and INIT (Vol. 3A 9.1) keeps it. */
static void test_snapshot_carries_ler_latch(void **state)
{
  spmu_core *dst = core_for("skylake");
  spmu_lp *d0 = spmu_core_lp(dst, 0);
  uint8_t blob[16384];
  size_t len = 0;
  spmu_branch ev = {.from = 0x7000,
                    .to = 0x8000,
                    .predicted = 1,
                    .type = SPMU_BR_FAR,
                    .flags = SPMU_BRANCH_EVENT};
  spmu_clock clk = {.cpl = 3, .branch = &ev};

  (void)state;
  use("skylake");
  WR(MSR_DEBUGCTL, DBG_LBR);
  jcc(0x1000, 0x2000);
  assert_int_equal(spmu_core_save(core, blob, sizeof blob, &len), SPMU_OK);
  assert_int_equal(spmu_core_restore(dst, blob, len), SPMU_OK);
  assert_true(spmu_deliver(d0, &clk, 1, NULL) >= 0);
  assert_int_equal(rd(d0, MSR_LER_FROM), 0x1000);
  assert_int_equal(rd(d0, MSR_LER_TO), 0x2000);
  assert_int_equal(spmu_lp_init_signal(d0), SPMU_OK);
  assert_int_equal(rd(d0, MSR_LER_TO), 0x2000);
  assert_int_equal(spmu_core_reset(dst), SPMU_OK);
  assert_int_equal(rd(d0, MSR_LER_TO), 0);
  spmu_core_free(dst);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_17_4_8_stack_of_each_preset, teardown),
      cmocka_unit_test_teardown(test_profile_lbr_keys_validated, teardown),
      cmocka_unit_test_teardown(test_17_4_8_recording_order_and_tos_wrap,
                                teardown),
      cmocka_unit_test_teardown(
          test_17_4_8_repeated_clock_records_each_repetition, teardown),
      cmocka_unit_test_teardown(
          test_17_4_8_1_format3_mispred_and_sign_extension, teardown),
      cmocka_unit_test_teardown(test_17_4_8_1_format1_no_flags, teardown),
      cmocka_unit_test_teardown(test_17_9_format4_tsx_flags, teardown),
      cmocka_unit_test_teardown(test_17_12_1_lbr_info_format5, teardown),
      cmocka_unit_test_teardown(test_17_12_format5_from_ip_holds_no_flags,
                                teardown),
      cmocka_unit_test_teardown(test_17_7_2_lbr_select_each_type_bit, teardown),
      cmocka_unit_test_teardown(test_17_7_2_lbr_select_cpl, teardown),
      cmocka_unit_test_teardown(test_unknown_branch_type_only_unfiltered,
                                teardown),
      cmocka_unit_test_teardown(test_17_9_callstack_push_pop, teardown),
      cmocka_unit_test_teardown(test_17_4_7_legacy_freeze_clears_debugctl_lbr,
                                teardown),
      cmocka_unit_test_teardown(test_17_10_2_v4_lbr_frz_until_status_reset,
                                teardown),
      cmocka_unit_test_teardown(test_17_4_1_freeze_while_smm_stops_lbrs,
                                teardown),
      cmocka_unit_test_teardown(test_17_4_8_reserved_bits_and_addresses_gp,
                                teardown),
      cmocka_unit_test_teardown(test_9_1_init_keeps_reset_clears_lbrs,
                                teardown),
      cmocka_unit_test_teardown(test_snapshot_round_trip_carries_lbr_stack,
                                teardown),
      cmocka_unit_test_teardown(test_cpuid_1ch_from_profile, teardown),
      cmocka_unit_test_teardown(test_cpuid_0dh_subleaf_0fh_arch_lbr_state,
                                teardown),
      cmocka_unit_test_teardown(test_profile_lbr_from_cpuid_reads_leaf_1ch,
                                teardown),
      cmocka_unit_test_teardown(test_arch_lbr_depth_rules, teardown),
      cmocka_unit_test_teardown(test_arch_lbr_entry0_most_recent_and_info,
                                teardown),
      cmocka_unit_test_teardown(test_arch_lbr_ctl_filters_and_call_stack,
                                teardown),
      cmocka_unit_test_teardown(test_17_4_8_3_ler_last_branch_before_exception,
                                teardown),
      cmocka_unit_test_teardown(test_17_4_8_3_ler_follows_lbr_select, teardown),
      cmocka_unit_test_teardown(test_arch_ler_last_branch_info_and_enabling,
                                teardown),
      cmocka_unit_test_teardown(test_snapshot_carries_ler_latch, teardown),
      cmocka_unit_test_teardown(test_arch_lbr_xsave_component_round_trip,
                                teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

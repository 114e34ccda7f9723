/* SPDX-License-Identifier: MIT */
/* The agent library (include/softpmu/agent.h): discovery through CPUID.0AH,
 * the PMU sharing protocol of SDM 18.2.4.3, the programming procedures of
 * SDM 18.2.4.1 (GLOBAL_CTRL last) and 18.6.2.2 (clear overflow indications),
 * the PMI handler flows (SDM 18.2.2, 17.4.7; v4 freeze: 18.2.4.1), the
 * NetBurst setup procedure of SDM 18.15.5.1 with the P4 handler, and the two
 * backends (the model; Linux's msr/cpuid devices, pointed at regular
 * files). Each test names the rule it checks. */
#define _POSIX_C_SOURCE 200809L

#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <softpmu/agent.h>

#define BIT(n) (UINT64_C(1) << (n))
#define FC(j) SPMU_AGENT_FIXED(j)

static const spmu_agent_event INST = {0xC0, 0x00, 0,
                                      SPMU_AGENT_USR | SPMU_AGENT_OS, 0};
static const spmu_agent_event CYCLES = {0x3C, 0x00, 0,
                                        SPMU_AGENT_USR | SPMU_AGENT_OS, 0};
/* LLC references (architectural event 3): no fixed counter counts it. */
static const spmu_agent_event LLC = {0x2E, 0x4F, 0,
                                     SPMU_AGENT_USR | SPMU_AGENT_OS, 0};
static const spmu_agent_event BRANCHES = {0xC4, 0x00, 0, SPMU_AGENT_USR, 0};

static spmu_core *core;
static spmu_lp *lp;

static void use(const char *spec)
{
  spmu_core_free(core);
  core = core_for(spec);
  lp = spmu_core_lp(core, 0);
}

static int teardown(void **state)
{
  (void)state;
  spmu_core_free(core);
  core = NULL;
  return 0;
}

static void WR(uint32_t msr, uint64_t v)
{
  int rc = spmu_wrmsr(lp, msr, v);
  if (rc != SPMU_OK)
    fail_msg("WRMSR %#x <- %#llx: %s", msr, (unsigned long long)v,
             spmu_errname(rc));
}

static spmu_agent *agent_on_backend(const spmu_backend *be)
{
  spmu_agent *a = NULL;
  int rc = spmu_agent_new(be, &a);
  if (rc != SPMU_OK)
    fail_msg("spmu_agent_new: %s", spmu_errname(rc));
  return a;
}

static spmu_agent *agent_on(spmu_lp *l)
{
  spmu_backend be;
  assert_int_equal(spmu_backend_model(l, &be), SPMU_OK);
  return agent_on_backend(&be);
}

static spmu_agent_event sampling(spmu_agent_event ev, uint64_t period)
{
  ev.period = period;
  return ev;
}

#define OK(call) assert_int_equal((call), SPMU_OK)

/* ---- a recording backend: wraps another, logs every access ------------ */
enum { LOG_MAX = 512 };
struct entry {
  char op; /* R rdmsr, W wrmsr, P rdpmc, C cpuid, U LVT unmask */
  uint32_t msr;
  uint64_t value;
};
struct rec {
  spmu_backend inner;
  struct entry log[LOG_MAX];
  unsigned n;
  uint32_t fake_gp;      /* != 0: CPUID.0AH says this many GP counters */
  uint32_t inject_msr;   /* after this agent's WRMSR of it, "another agent" */
  uint64_t inject_value; /* writes this value (once) */
};

static void note(struct rec *r, char op, uint32_t msr, uint64_t v)
{
  if (r->n < LOG_MAX)
    r->log[r->n++] = (struct entry){op, msr, v};
}

static int rec_rdmsr(void *o, uint32_t msr, uint64_t *v)
{
  struct rec *r = o;
  int rc = r->inner.rdmsr(r->inner.opaque, msr, v);
  note(r, 'R', msr, rc == SPMU_OK ? *v : 0);
  return rc;
}

static int rec_wrmsr(void *o, uint32_t msr, uint64_t v)
{
  struct rec *r = o;
  int rc = r->inner.wrmsr(r->inner.opaque, msr, v);
  note(r, 'W', msr, v);
  if (r->inject_msr && msr == r->inject_msr) {
    r->inject_msr = 0;
    assert_int_equal(r->inner.wrmsr(r->inner.opaque, msr, r->inject_value),
                     SPMU_OK);
  }
  return rc;
}

static int rec_rdpmc(void *o, uint32_t ecx, uint64_t *v)
{
  struct rec *r = o;
  int rc = r->inner.rdpmc(r->inner.opaque, ecx, v);
  note(r, 'P', ecx, rc == SPMU_OK ? *v : 0);
  return rc;
}

static int rec_cpuid(void *o, uint32_t leaf, uint32_t sub, uint32_t regs[4])
{
  struct rec *r = o;
  int rc = r->inner.cpuid(r->inner.opaque, leaf, sub, regs);
  if (rc == SPMU_OK && leaf == 0xA && r->fake_gp)
    regs[0] = (regs[0] & ~0xff00u) | r->fake_gp << 8;
  note(r, 'C', leaf, 0);
  return rc;
}

static int rec_unmask(void *o)
{
  note(o, 'U', 0, 0);
  return SPMU_OK;
}

static struct rec *rec_new(spmu_lp *l, spmu_backend *be)
{
  struct rec *r = calloc(1, sizeof *r);
  assert_non_null(r);
  OK(spmu_backend_model(l, &r->inner));
  *be =
      (spmu_backend){r, rec_rdmsr, rec_wrmsr, rec_rdpmc, rec_cpuid, rec_unmask};
  return r;
}

/* The writes of the log from entry `from` on, as "W msr=value" entries. */
static unsigned writes_since(const struct rec *r, unsigned from,
                             struct entry *out, unsigned cap)
{
  unsigned n = 0, i;
  for (i = from; i < r->n && n < cap; i++)
    if (r->log[i].op == 'W' || r->log[i].op == 'U')
      out[n++] = r->log[i];
  return n;
}

static void assert_write(const struct entry *e, uint32_t msr, uint64_t v)
{
  if (e->op != 'W' || e->msr != msr || e->value != v)
    fail_msg("expected WRMSR %#x <- %#llx, got %c %#x %#llx", msr,
             (unsigned long long)v, e->op, e->msr,
             (unsigned long long)e->value);
}

/* ---- event delivery with the agent's PMI handler on the model's PMI ---- */
struct pmi_ctx {
  spmu_agent *agent;
  unsigned pmis;
  uint64_t overflowed;      /* union of what the handler reported */
  unsigned per_counter[64]; /* PMIs in which each counter overflowed */
  int check;                /* 1: legacy freeze, 2: v4 freeze (see on_pmi) */
  unsigned freeze_seen;     /* PMIs at which the expected freeze held */
  uint64_t ctrl_expected;   /* GLOBAL_CTRL the handler must leave */
};
static struct pmi_ctx ctx;

static void on_pmi(void *opaque, spmu_lp *l)
{
  struct pmi_ctx *c = opaque;
  uint64_t done, ctrl, st;
  unsigned i;

  c->pmis++;
  if (c->check) {
    ctrl = rd(l, MSR_GLOBAL_CTRL);
    st = rd(l, MSR_GLOBAL_STATUS);
    /* SDM 17.4.7: legacy (v2-v3) freeze clears GLOBAL_CTRL; the v4 one
     * sets CTR_Frz and leaves GLOBAL_CTRL alone (SDM 18.2.4.1). */
    if (c->check == 1 && ctrl == 0)
      c->freeze_seen++;
    if (c->check == 2 && (st & ST_CTR_FRZ) && ctrl == c->ctrl_expected)
      c->freeze_seen++;
  }
  assert_int_equal(spmu_agent_handle_pmi(c->agent, &done), SPMU_OK);
  c->overflowed |= done;
  for (i = 0; i < 64; i++)
    c->per_counter[i] += done >> i & 1;
  if (c->check) {
    assert_int_equal(rd(l, MSR_GLOBAL_CTRL), c->ctrl_expected);
    if (c->check == 2)
      assert_int_equal(rd(l, MSR_GLOBAL_STATUS), 0);
  }
}

static void hook(spmu_agent *a, int check, uint64_t ctrl_expected)
{
  spmu_host h = {.opaque = &ctx, .pmi = on_pmi};
  memset(&ctx, 0, sizeof ctx);
  ctx.agent = a;
  ctx.check = check;
  ctx.ctrl_expected = ctrl_expected;
  OK(spmu_core_set_host(core, &h));
}

static void run(spmu_lp *l, const spmu_event_line *lines, size_t n,
                uint64_t clocks)
{
  spmu_clock clk = {.lines = lines, .nlines = n, .cpl = 3};
  uint64_t done = 0, used;
  while (done < clocks) {
    int rc = spmu_deliver(l, &clk, clocks - done, &used);
    assert_true(rc >= 0);
    done += used;
  }
}

/* ========================================================================
 * 1. Discovery: CPUID.0AH (SDM 18.2.1 Figure 18-1 / Vol. 2A Table 3-8,
 *    versions: 18.2.1-18.2.5), CPUID.01H:ECX[15] PDCM and
 *    PERF_CAPABILITIES[13].
 * ===================================================================== */
struct want_pmu {
  const char *spec;
  uint8_t version, gp, gp_width, fixed_width;
  uint32_t fixed_mask, events;
  bool any, fw;
  uint64_t perfcap, present;
};

static void test_discovery_cpuid_0a_presets_18_2_1(void **state)
{
  static const struct want_pmu want[] = {
      {"core-duo", 1, 2, 40, 0, 0x0, 0x7F, false, false, 0, 0x3},
      {"core2", 2, 2, 40, 40, 0x7, 0x7F, false, false, 0xC1, 0x700000003ull},
      {"haswell", 3, 4, 48, 48, 0x7, 0x7F, true, true, 0x32C4, 0x70000000Full},
      {"skylake", 4, 4, 48, 48, 0x7, 0x7F, true, true, 0x33C5, 0x70000000Full},
      /* v5: EDX[15] deprecates AnyThread; four fixed counters. */
      {"icelake", 5, 8, 48, 48, 0xF, 0xFF, false, true, 0xF4C5, 0xF000000FFull},
      /* v5: FxCtr[i]_supported = ECX[i] || EDX[4:0] > i, with a hole;
       * EBX bit i = 1: event i NOT available. */
      {"version=5,gp=4,fixed_mask=0x5,unavailable=0x5", 5, 4, 48, 48, 0x5, 0x7A,
       true, false, 0, 0x50000000Full},
  };
  unsigned i;
  (void)state;
  for (i = 0; i < sizeof want / sizeof want[0]; i++) {
    const struct want_pmu *w = &want[i];
    spmu_agent_pmu p;
    spmu_agent *a;
    use(w->spec);
    a = agent_on(lp);
    OK(spmu_agent_pmu_get(a, &p));
    assert_int_equal(p.version, w->version);
    assert_int_equal(p.gp, w->gp);
    assert_int_equal(p.gp_width, w->gp_width);
    assert_int_equal(p.fixed_width, w->fixed_width);
    assert_int_equal(p.fixed_mask, w->fixed_mask);
    assert_int_equal(p.events_available, w->events);
    assert_int_equal(p.any_thread, w->any);
    assert_int_equal(p.full_width_writes, w->fw);
    assert_int_equal(p.perf_capabilities, w->perfcap);
    assert_int_equal(spmu_agent_present(a), w->present);
    spmu_agent_free(a);
  }
}

/* CPUID.0AH:EAX[7:0] = 0: no architectural PMU, nothing to share. */
static void test_discovery_version_0_is_no_pmu_18_2_1(void **state)
{
  spmu_backend be;
  spmu_agent *a = (spmu_agent *)&be;
  (void)state;
  use("version=0,gp=0,fixed=0");
  OK(spmu_backend_model(lp, &be));
  assert_int_equal(spmu_agent_new(&be, &a), SPMU_ENOMSR);
  assert_null(a);
}

/* ========================================================================
 * 2. The sharing protocol (SDM 18.2.4.3): scan, claim, verify by reading
 *    back, release.
 * ===================================================================== */

/* SDM 18.2.4.3 Figure 18-13: PERFEVTSELn_InUse = EVTSELn[7:0] != 0 (EN
 * does not matter), FCi_InUse = FIXED_CTR_CTRL[4i+1:4i] != 0, PMI_InUse =
 * any INT, any fixed PMI bit, any PEBS enable. Before v4 the agent computes
 * exactly what v4's IA32_PERF_GLOBAL_INUSE shows for the same registers. */
static void test_scan_inuse_predicates_18_2_4_3(void **state)
{
  static const char *const specs[] = {"core2", "haswell", "skylake", "icelake"};
  unsigned i;
  (void)state;
  for (i = 0; i < 4; i++) {
    spmu_agent *a;
    uint64_t inuse;
    use(specs[i]);
    a = agent_on(lp);
    OK(spmu_agent_scan(a, &inuse));
    assert_int_equal(inuse, 0);
    WR(MSR_EVTSEL0 + 1, 0x2E);                /* event, EN clear: in use */
    WR(MSR_EVTSEL0, EV_EN | EV_USR | 0x4F00); /* event 0: free */
    WR(MSR_FIXED_CTR_CTRL, 0x020 | 0x800);    /* FC1 USR; FC2 PMI only */
    OK(spmu_agent_scan(a, &inuse));
    assert_int_equal(inuse, BIT(1) | BIT(33) | SPMU_AGENT_PMI_INUSE);
    if (i >= 2)
      assert_int_equal(rd(lp, MSR_GLOBAL_INUSE), inuse);
    WR(MSR_FIXED_CTR_CTRL, 0);
    WR(MSR_EVTSEL0 + 1, 0x2E | EV_INT); /* INT alone: PMI_InUse */
    OK(spmu_agent_scan(a, &inuse));
    assert_int_equal(inuse, BIT(1) | SPMU_AGENT_PMI_INUSE);
    WR(MSR_EVTSEL0 + 1, 0);
    /* A PEBS enable takes the PMI, not the counter (PEBS_EN_PMC0). */
    WR(MSR_PEBS_ENABLE, 1);
    OK(spmu_agent_scan(a, &inuse));
    assert_int_equal(inuse, SPMU_AGENT_PMI_INUSE);
    spmu_agent_free(a);
  }
}

/* SDM 18.2.4.3: claim only free counters, release restoring what was found.
 * Foreign state: EVTSEL0 event 0 with a umask (free), PMC0 = 0x1234, FC1
 * in use with PMI, FIXED_CTR0 = 0x55. The agent takes FC0 for
 * instructions and, FC1 being taken, GP0 for cycles; every MSR it touched
 * is back to the found value after release. */
static void test_claim_release_restores_found_state_18_2_4_3(void **state)
{
  static const char *const specs[] = {"core2", "haswell", "skylake"};
  unsigned i;
  (void)state;
  for (i = 0; i < 3; i++) {
    const spmu_event_line lines[] = {{0xC0, 0, 2}, {0x3C, 0, 1}};
    uint64_t ctrl0, v, mask = i == 0 ? (UINT64_C(1) << 40) - 1 : W48;
    unsigned c1 = 99, c2 = 99;
    spmu_agent *a;
    use(specs[i]);
    ctrl0 = rd(lp, MSR_GLOBAL_CTRL); /* reset: every GP enable set */
    assert_int_equal(ctrl0, i == 0 ? 0x3 : 0xF);
    WR(MSR_EVTSEL0, 0x0300);
    WR(MSR_PMC0, 0x1234);
    WR(MSR_FIXED_CTR_CTRL, 0x0B0);
    WR(MSR_FIXED_CTR0, 0x55);
    a = agent_on(lp);
    OK(spmu_agent_claim(a, &INST, &c1));
    OK(spmu_agent_claim(a, &CYCLES, &c2));
    assert_int_equal(c1, FC(0));
    assert_int_equal(c2, 0);
    assert_int_equal(spmu_agent_owned(a), BIT(0) | BIT(32));
    /* Claimed, configured, not counting: GLOBAL_CTRL bit 0 cleared. */
    assert_int_equal(rd(lp, MSR_EVTSEL0), 0x3C | EV_USR | EV_OS);
    assert_int_equal(rd(lp, MSR_FIXED_CTR_CTRL), 0x0B3);
    assert_int_equal(rd(lp, MSR_GLOBAL_CTRL), ctrl0 & ~BIT(0));
    assert_int_equal(rd(lp, MSR_PMC0), 0);
    assert_int_equal(rd(lp, MSR_FIXED_CTR0), 0);
    OK(spmu_agent_start(a));
    assert_int_equal(rd(lp, MSR_EVTSEL0), 0x3C | EV_USR | EV_OS | EV_EN);
    assert_int_equal(rd(lp, MSR_GLOBAL_CTRL), ctrl0 | BIT(32));
    run(lp, lines, 2, 1000);
    OK(spmu_agent_read(a, FC(0), &v));
    assert_int_equal(v, 2000);
    OK(spmu_agent_read(a, 0, &v));
    assert_int_equal(v, 1000);
    OK(spmu_agent_release_all(a));
    assert_int_equal(spmu_agent_owned(a), 0);
    assert_int_equal(rd(lp, MSR_EVTSEL0), 0x0300);
    assert_int_equal(rd(lp, MSR_PMC0), 0x1234 & mask);
    assert_int_equal(rd(lp, MSR_FIXED_CTR_CTRL), 0x0B0);
    assert_int_equal(rd(lp, MSR_FIXED_CTR0), 0x55);
    assert_int_equal(rd(lp, MSR_GLOBAL_CTRL), ctrl0);
    assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 0);
    spmu_agent_free(a);
  }
}

/* SDM 18.2.5: with full-width writes (PERF_CAPABILITIES[13]) a counter
 * value above 32 bits is restored exactly through IA32_A_PMCx; spmu_agent_
 * free releases what the agent still holds. */
static void test_free_restores_full_width_value_18_2_5(void **state)
{
  spmu_agent *a;
  unsigned c;
  (void)state;
  use("haswell");
  OK(spmu_host_wrmsr(lp, MSR_PMC0, 0x123456789Aull));
  a = agent_on(lp);
  OK(spmu_agent_claim(a, &LLC, &c));
  assert_int_equal(c, 0);
  OK(spmu_agent_start(a));
  spmu_agent_free(a);
  assert_int_equal(rd(lp, MSR_PMC0), 0x123456789Aull);
  assert_int_equal(rd(lp, MSR_EVTSEL0), 0);
  assert_int_equal(rd(lp, MSR_GLOBAL_CTRL), 0xF);
}

/* SDM 18.2.4.3, two agents on one logical processor, interleaved: A scans, B
 * scans (both see every counter free), A claims, B claims. B's claim reads
 * the shared state again, finds A's counter in use and takes the next free
 * one; with none left it fails with SPMU_EBUSY. Neither disturbs the
 * other's counters, counting or release. */
static void test_two_agents_interleaved_never_share_18_2_4_3(void **state)
{
  static const char *const specs[] = {"core2", "haswell", "skylake"};
  unsigned i;
  (void)state;
  for (i = 0; i < 3; i++) {
    const spmu_event_line lines[] = {{0x2E, 0x4F, 1}, {0xC4, 0, 3}};
    spmu_agent *A, *B, *C;
    uint64_t ia, ib, v, ctrl0;
    unsigned ca = 99, cb = 99, cc;
    use(specs[i]);
    ctrl0 = rd(lp, MSR_GLOBAL_CTRL);
    A = agent_on(lp);
    B = agent_on(lp);
    OK(spmu_agent_scan(A, &ia));
    OK(spmu_agent_scan(B, &ib));
    assert_int_equal(ia, 0);
    assert_int_equal(ib, 0);
    OK(spmu_agent_claim(A, &LLC, &ca));
    OK(spmu_agent_claim(B, &LLC, &cb));
    assert_int_equal(ca, 0);
    assert_int_equal(cb, 1);
    assert_int_equal(rd(lp, MSR_EVTSEL0), 0x4F2E | EV_USR | EV_OS);
    assert_int_equal(rd(lp, MSR_EVTSEL0 + 1), 0x4F2E | EV_USR | EV_OS);
    /* The one taken: asking for it explicitly is refused. */
    assert_int_equal(spmu_agent_claim_counter(B, 0, &BRANCHES), SPMU_EBUSY);
    /* Fixed counters alike, through FIXED_CTR_CTRL. */
    OK(spmu_agent_claim_counter(A, FC(0), &INST));
    assert_int_equal(spmu_agent_claim_counter(B, FC(0), &INST), SPMU_EBUSY);
    /* A third agent: core2 has no GP counter left; the others have. */
    C = agent_on(lp);
    if (i == 0) {
      assert_int_equal(spmu_agent_claim(C, &BRANCHES, &cc), SPMU_EBUSY);
      assert_int_equal(spmu_agent_owned(C), 0);
    } else {
      OK(spmu_agent_claim(C, &BRANCHES, &cc));
      assert_int_equal(cc, 2);
    }
    spmu_agent_free(C);
    /* Both count their own counters. */
    OK(spmu_agent_reprogram(B, 1, &BRANCHES));
    OK(spmu_agent_start(A));
    OK(spmu_agent_start(B));
    assert_int_equal(rd(lp, MSR_GLOBAL_CTRL), ctrl0 | BIT(32));
    run(lp, lines, 2, 100);
    OK(spmu_agent_read(A, 0, &v));
    assert_int_equal(v, 100);
    OK(spmu_agent_read(B, 1, &v));
    assert_int_equal(v, 300);
    /* A leaves; B keeps counting, its state untouched. */
    spmu_agent_free(A);
    assert_int_equal(rd(lp, MSR_EVTSEL0 + 1), 0xC4 | EV_USR | EV_EN);
    assert_int_equal(rd(lp, MSR_GLOBAL_CTRL) & (BIT(1) | BIT(32)), BIT(1));
    run(lp, lines, 2, 100);
    OK(spmu_agent_read(B, 1, &v));
    assert_int_equal(v, 600);
    spmu_agent_free(B);
    assert_int_equal(rd(lp, MSR_GLOBAL_CTRL), ctrl0);
    assert_int_equal(rd(lp, MSR_EVTSEL0 + 1), 0);
  }
}

/* SDM 18.2.4.3, verify the claim by reading back: another agent writes the
 * event select between B's write and B's read-back (injected by the
 * recording backend). B sees the other agent's value, leaves it alone and
 * takes the next free counter. */
static void test_claim_readback_detects_race_18_2_4_3(void **state)
{
  static const char *const specs[] = {"haswell", "skylake"};
  const uint64_t theirs = 0xC5 | EV_OS | EV_EN;
  unsigned i;
  (void)state;
  for (i = 0; i < 2; i++) {
    spmu_backend be;
    struct rec *r;
    spmu_agent *B;
    unsigned cb = 99;
    use(specs[i]);
    r = rec_new(lp, &be);
    B = agent_on_backend(&be);
    r->inject_msr = MSR_EVTSEL0;
    r->inject_value = theirs;
    OK(spmu_agent_claim(B, &LLC, &cb));
    assert_int_equal(cb, 1);
    assert_int_equal(rd(lp, MSR_EVTSEL0), theirs);
    assert_int_equal(rd(lp, MSR_EVTSEL0 + 1), 0x4F2E | EV_USR | EV_OS);
    assert_int_equal(spmu_agent_owned(B), BIT(1));
    spmu_agent_free(B);
    assert_int_equal(rd(lp, MSR_EVTSEL0), theirs);
    free(r);
  }
}

/* SDM 18.2.4.3: PMI_InUse set by another agent means the PMI is taken: a
 * sampling claim fails with SPMU_EBUSY, counting claims still succeed.
 * Whoever holds the PMI handles it; another agent's handler does nothing. */
static void test_pmi_inuse_honoured_18_2_4_3(void **state)
{
  static const char *const specs[] = {"haswell", "skylake"};
  unsigned i;
  (void)state;
  for (i = 0; i < 2; i++) {
    spmu_agent_event s = sampling(LLC, 1000);
    spmu_agent *A, *B;
    spmu_backend be;
    struct rec *r;
    uint64_t done = 99, inuse;
    unsigned c;
    use(specs[i]);
    /* A foreign event select with INT and EN clear. */
    WR(MSR_EVTSEL0 + 3, 0xC4 | EV_USR | EV_INT);
    A = agent_on(lp);
    assert_int_equal(spmu_agent_claim(A, &s, &c), SPMU_EBUSY);
    assert_int_equal(spmu_agent_claim_counter(A, 0, &s), SPMU_EBUSY);
    assert_int_equal(spmu_agent_owned(A), 0);
    OK(spmu_agent_claim(A, &LLC, &c));
    assert_int_equal(c, 0);
    assert_false(spmu_agent_pmi_owned(A));
    /* Nor may a held counter be turned into a sampling one. */
    assert_int_equal(spmu_agent_reprogram(A, 0, &s), SPMU_EBUSY);
    spmu_agent_free(A);
    WR(MSR_EVTSEL0 + 3, 0);

    /* A takes the PMI with a sampling counter; B then cannot. */
    A = agent_on(lp);
    r = rec_new(lp, &be);
    B = agent_on_backend(&be);
    OK(spmu_agent_claim(A, &s, &c));
    assert_true(spmu_agent_pmi_owned(A));
    OK(spmu_agent_scan(B, &inuse));
    assert_int_equal(inuse, BIT(0) | SPMU_AGENT_PMI_INUSE);
    assert_int_equal(spmu_agent_claim(B, &s, &c), SPMU_EBUSY);
    OK(spmu_agent_claim(B, &LLC, &c));
    assert_int_equal(c, 1);
    r->n = 0;
    OK(spmu_agent_handle_pmi(B, &done));
    assert_int_equal(done, 0);
    assert_int_equal(r->n, 0); /* not B's PMI: no access at all */
    /* A gives the PMI back; now B may take it. */
    spmu_agent_free(A);
    OK(spmu_agent_claim(B, &s, &c));
    assert_int_equal(c, 0);
    assert_true(spmu_agent_pmi_owned(B));
    spmu_agent_free(B);
    free(r);
  }
}

/* ========================================================================
 * 3. Programming procedures (SDM 18.2.4.1, 18.6.2.2).
 * ===================================================================== */

/* SDM 18.2.4.1: "setting IA32_PERF_GLOBAL_CTRL as the very
 * last step ... after configuring the individual counter registers". The
 * claim clears the counter's GLOBAL_CTRL bit before anything else, writes
 * the event select with EN clear, presets the counter (EN clear, SDM
 * 18.2.1.1) and clears its overflow indication (18.6.2.2); start sets EN,
 * then GLOBAL_CTRL in the last write. Exact WRMSR sequence on Haswell. */
static void test_start_writes_global_ctrl_last_18_2_4_1(void **state)
{
  const uint64_t sel = 0xC0 | EV_USR | EV_OS | EV_INT;
  spmu_agent_event s = sampling(INST, 10000);
  struct entry w[16];
  spmu_backend be;
  struct rec *r;
  spmu_agent *a;
  unsigned n, from;
  (void)state;
  use("haswell");
  r = rec_new(lp, &be);
  a = agent_on_backend(&be);
  from = r->n;
  OK(spmu_agent_claim_counter(a, 0, &s));
  OK(spmu_agent_claim_counter(a, FC(1), &CYCLES));
  n = writes_since(r, from, w, 16);
  assert_int_equal(n, 7);
  assert_write(&w[0], MSR_GLOBAL_CTRL, 0xE);        /* disable first */
  assert_write(&w[1], MSR_EVTSEL0, sel);            /* EN clear */
  assert_write(&w[2], MSR_A_PMC0, W48 - 10000 + 1); /* -period, 18.2.5 */
  assert_write(&w[3], MSR_GLOBAL_OVF_CTRL, BIT(0)); /* 18.6.2.2 */
  assert_write(&w[4], MSR_FIXED_CTR_CTRL, 0x30);    /* FC1, all rings */
  assert_write(&w[5], MSR_FIXED_CTR0 + 1, 0);
  assert_write(&w[6], MSR_GLOBAL_OVF_CTRL, BIT(33));
  from = r->n;
  OK(spmu_agent_start(a));
  n = writes_since(r, from, w, 16);
  assert_int_equal(n, 2);
  assert_write(&w[0], MSR_EVTSEL0, sel | EV_EN);
  assert_write(&w[1], MSR_GLOBAL_CTRL, 0xF | BIT(33)); /* last */
  spmu_agent_free(a);
  free(r);
}

/* SDM 18.2.4.1 on every version: in the whole claim-and-start sequence no
 * counter register is written after the GLOBAL_CTRL write that enables,
 * which is the last write; before v2 (no GLOBAL_CTRL) EN is the last. */
static void test_global_ctrl_last_every_version_18_2_4_1(void **state)
{
  static const char *const specs[] = {"core-duo", "core2", "haswell", "skylake",
                                      "icelake"};
  unsigned i;
  (void)state;
  for (i = 0; i < 5; i++) {
    spmu_agent_event s = sampling(LLC, 5000);
    struct entry w[64];
    spmu_backend be;
    struct rec *r;
    spmu_agent *a;
    uint64_t prev = 0;
    unsigned n, k, c;
    use(specs[i]);
    if (i > 0)
      prev = rd(lp, MSR_GLOBAL_CTRL);
    r = rec_new(lp, &be);
    a = agent_on_backend(&be);
    r->n = 0;
    OK(spmu_agent_claim(a, &s, &c));
    OK(spmu_agent_claim(a, &BRANCHES, &c));
    if (i > 0)
      OK(spmu_agent_claim(a, &INST, &c));
    OK(spmu_agent_start(a));
    n = writes_since(r, 0, w, 64);
    assert_true(n > 2);
    if (i == 0) {
      assert_int_equal(w[n - 1].msr, MSR_EVTSEL0 + 1);
      assert_int_equal(w[n - 1].value & EV_EN, EV_EN);
    } else {
      assert_write(&w[n - 1], MSR_GLOBAL_CTRL,
                   rd(lp, MSR_GLOBAL_CTRL)); /* the last write */
      assert_int_equal(w[n - 1].value & (BIT(0) | BIT(1) | BIT(32)),
                       BIT(0) | BIT(1) | BIT(32));
      for (k = 0; k + 1 < n; k++)
        if (w[k].msr == MSR_GLOBAL_CTRL) { /* earlier ones only disable */
          assert_int_equal(w[k].value & ~prev, 0);
          prev = w[k].value;
        }
    }
    spmu_agent_free(a);
    free(r);
  }
}

/* SDM 18.6.2.2, 18.2.2: clear overflow indications when setting up a new
 * event select, when reloading, and when disabling. A counting counter
 * wraps after 2^48 events (status bit set, no PMI without INT); reprogram,
 * stop and release each clear it, and only it: another agent's overflow
 * bit stays. */
static void test_overflow_indications_cleared_18_6_2_2(void **state)
{
  static const char *const specs[] = {"haswell", "skylake"};
  const spmu_event_line wrap[] = {{0x2E, 0x4F, 1u << 16}, {0xC4, 0, 1u << 16}};
  unsigned i;
  (void)state;
  for (i = 0; i < 2; i++) {
    spmu_agent *A, *B;
    unsigned ca, cb;
    use(specs[i]);
    A = agent_on(lp);
    B = agent_on(lp);
    OK(spmu_agent_claim(A, &LLC, &ca));
    OK(spmu_agent_claim(B, &BRANCHES, &cb));
    assert_int_equal(ca, 0);
    assert_int_equal(cb, 1);
    OK(spmu_agent_start(A));
    OK(spmu_agent_start(B));
    run(lp, wrap, 2, UINT64_C(1) << 32); /* 2^48 events each */
    assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), BIT(0) | BIT(1));
    /* New event select: A's bit cleared, B's kept. */
    OK(spmu_agent_reprogram(A, 0, &LLC));
    assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), BIT(1));
    assert_int_equal(rd(lp, MSR_PMC0), 0);
    assert_int_equal(spmu_agent_running(A), BIT(0));
    /* Disabling. */
    run(lp, wrap, 1, UINT64_C(1) << 32);
    assert_int_equal(rd(lp, MSR_GLOBAL_STATUS) & BIT(0), BIT(0));
    OK(spmu_agent_stop(A));
    assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), BIT(1));
    assert_int_equal(rd(lp, MSR_GLOBAL_CTRL) & BIT(0), 0);
    /* Release (disable and give back) of B's counter. */
    spmu_agent_free(B);
    assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 0);
    spmu_agent_free(A);
  }
}

/* ========================================================================
 * 4. Sampling by overflow with the PMI handler (SDM 18.2.2, 17.4.7,
 *    18.2.4.1).
 * ===================================================================== */

/* The classic flow (SDM 18.2.2) on Haswell (v3) with legacy freeze (SDM
 * 17.4.7: the PMI clears GLOBAL_CTRL): 1,000,000 clocks retiring one
 * instruction and one cycle each; PMC0 samples instructions every 10,000,
 * FIXED_CTR1 cycles every 25,000. PMIs: 100 + 40 - 20 coinciding = 120;
 * samples 100 and 40; nothing lost: samples * period + residual = total. */
static void test_classic_handler_haswell_legacy_freeze_17_4_7(void **state)
{
  const spmu_event_line lines[] = {{0xC0, 0, 1}, {0x3C, 0, 1}};
  spmu_agent_event si = sampling(INST, 10000), sc = sampling(CYCLES, 25000);
  spmu_agent *a;
  uint64_t n, v;
  (void)state;
  use("haswell");
  a = agent_on(lp);
  OK(spmu_agent_claim_counter(a, 0, &si));
  OK(spmu_agent_claim(a, &sc, (unsigned[]){0}));
  OK(spmu_agent_set_freeze(a, true));
  assert_int_equal(rd(lp, MSR_DEBUGCTL) & DBG_FREEZE_PERFMON,
                   DBG_FREEZE_PERFMON);
  OK(spmu_agent_start(a));
  /* The handler restores GLOBAL_CTRL as it found it (0: frozen) plus its
   * own running counters; the reset enables of PMC1-3, nobody's, are gone
   * with the freeze. */
  hook(a, 1, BIT(0) | BIT(33));
  run(lp, lines, 2, 1000000);
  assert_int_equal(ctx.pmis, 120);
  assert_int_equal(ctx.freeze_seen, 120);
  assert_int_equal(ctx.per_counter[0], 100);
  assert_int_equal(ctx.per_counter[33], 40);
  OK(spmu_agent_samples(a, 0, &n));
  assert_int_equal(n, 100);
  OK(spmu_agent_read(a, 0, &v));
  assert_int_equal((v + 10000) & W48, 0); /* residual */
  OK(spmu_agent_samples(a, FC(1), &n));
  assert_int_equal(n, 40);
  OK(spmu_agent_read(a, FC(1), &v));
  assert_int_equal((v + 25000) & W48, 0);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 0);
  spmu_agent_free(a);
  /* The PMI and DEBUGCTL are given back; GLOBAL_CTRL bit 0 as found. */
  assert_int_equal(rd(lp, MSR_DEBUGCTL), 0);
  assert_int_equal(rd(lp, MSR_GLOBAL_CTRL), BIT(0));
}

/* The reload carries the events counted past the overflow (SDM 18.2.2;
 * 18.6.2.2: clear the overflow indication when reloading a counter for the
 * next sample): 7 instructions a clock, period 9,999, 1,000,000 clocks:
 * 7,000,000 = 700 * 9,999 + 700: 700 PMIs, 700 samples, residual
 * 700, on the classic flow (Haswell, Skylake without freeze) and the v4
 * freeze flow (Skylake with it). */
static void test_reload_carries_overshoot_nothing_lost_18_2_2(void **state)
{
  static const char *const specs[] = {"haswell", "skylake", "skylake"};
  const spmu_event_line line = {0xC0, 0, 7};
  unsigned i;
  (void)state;
  for (i = 0; i < 3; i++) {
    spmu_agent_event s = sampling(INST, 9999);
    spmu_agent *a;
    uint64_t n, v;
    unsigned c;
    use(specs[i]);
    a = agent_on(lp);
    OK(spmu_agent_claim(a, &s, &c));
    assert_int_equal(c, FC(0));
    if (i == 2)
      OK(spmu_agent_set_freeze(a, true));
    OK(spmu_agent_start(a));
    hook(a, 0, 0);
    run(lp, &line, 1, 1000000);
    OK(spmu_agent_samples(a, c, &n));
    OK(spmu_agent_read(a, c, &v));
    assert_int_equal(ctx.pmis, 700);
    assert_int_equal(n, 700);
    assert_int_equal((v + 9999) & W48, 700);
    assert_int_equal(n * 9999 + ((v + 9999) & W48), 7000000);
    spmu_agent_free(a);
  }
}

/* The v4 freeze flow on Skylake (SDM 18.2.4.1, 18.2.4.2): the
 * PMI sets CTR_Frz and leaves GLOBAL_CTRL alone; the handler reloads and
 * unfreezes through STATUS_RESET. 1,000,000 instructions at period 10,000:
 * exactly 100 PMIs and 100 samples, residual 0, status clear after each. */
static void test_v4_freeze_flow_skylake_18_2_4_1(void **state)
{
  const spmu_event_line line = {0xC0, 0, 1};
  spmu_agent_event s = sampling(INST, 10000);
  spmu_agent *a;
  uint64_t n, v;
  (void)state;
  use("skylake");
  a = agent_on(lp);
  OK(spmu_agent_claim_counter(a, 0, &s));
  OK(spmu_agent_set_freeze(a, true));
  OK(spmu_agent_start(a));
  hook(a, 2, 0xF);
  run(lp, &line, 1, 1000000);
  assert_int_equal(ctx.pmis, 100);
  assert_int_equal(ctx.freeze_seen, 100);
  assert_int_equal(ctx.overflowed, BIT(0));
  OK(spmu_agent_samples(a, 0, &n));
  assert_int_equal(n, 100);
  OK(spmu_agent_read(a, 0, &v));
  assert_int_equal(v, W48 - 10000 + 1); /* reloaded: residual 0 */
  assert_int_equal(n * 10000 + ((v + 10000) & W48), 1000000);
  spmu_agent_free(a);
  assert_int_equal(rd(lp, MSR_DEBUGCTL), 0);
}

/* SDM 18.2.2 and 18.2.4.1, the order of the two flows, recorded at one PMI.
 * Classic (Haswell, no freeze): GLOBAL_CTRL = 0 first; ack through
 * OVF_CTRL; reload with EN clear (SDM 18.2.1.1); GLOBAL_CTRL restored;
 * LVT unmasked last. v4 freeze (Skylake): no GLOBAL_CTRL write; reload;
 * unmask; STATUS_RESET with the overflow bit and CTR_Frz as the last
 * write. */
static void test_handler_write_order_classic_and_v4_freeze(void **state)
{
  const spmu_event_line line = {0xC0, 0, 1};
  const uint64_t sel = 0xC0 | EV_USR | EV_OS | EV_INT;
  unsigned i;
  (void)state;
  for (i = 0; i < 2; i++) {
    spmu_agent_event s = sampling(INST, 100);
    struct entry w[16];
    spmu_backend be;
    struct rec *r;
    spmu_agent *a;
    uint64_t used, done;
    spmu_clock clk = {.lines = &line, .nlines = 1, .cpl = 3};
    unsigned n;
    use(i == 0 ? "haswell" : "skylake");
    r = rec_new(lp, &be);
    a = agent_on_backend(&be);
    OK(spmu_agent_claim_counter(a, 0, &s));
    if (i == 1)
      OK(spmu_agent_set_freeze(a, true));
    OK(spmu_agent_start(a));
    assert_int_equal(spmu_deliver(lp, &clk, 1000, &used), SPMU_TICK_PMI);
    assert_int_equal(used, 100);
    r->n = 0;
    OK(spmu_agent_handle_pmi(a, &done));
    assert_int_equal(done, BIT(0));
    n = writes_since(r, 0, w, 16);
    if (i == 0) {
      assert_int_equal(n, 7);
      assert_int_equal(r->log[0].op, 'R'); /* GLOBAL_CTRL saved */
      assert_int_equal(r->log[0].msr, MSR_GLOBAL_CTRL);
      assert_write(&w[0], MSR_GLOBAL_CTRL, 0);
      assert_write(&w[1], MSR_GLOBAL_OVF_CTRL, BIT(0));
      assert_write(&w[2], MSR_EVTSEL0, sel);
      assert_write(&w[3], MSR_A_PMC0, W48 - 100 + 1);
      assert_write(&w[4], MSR_EVTSEL0, sel | EV_EN);
      assert_write(&w[5], MSR_GLOBAL_CTRL, 0xF);
      assert_int_equal(w[6].op, 'U');
    } else {
      assert_int_equal(n, 5);
      assert_write(&w[0], MSR_EVTSEL0, sel);
      assert_write(&w[1], MSR_A_PMC0, W48 - 100 + 1);
      assert_write(&w[2], MSR_EVTSEL0, sel | EV_EN);
      assert_int_equal(w[3].op, 'U');
      assert_write(&w[4], MSR_STATUS_RESET, ST_CTR_FRZ | BIT(0));
    }
    assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 0);
    spmu_agent_free(a);
    free(r);
  }
}

/* Perfmon v1 (Core Duo) has no GLOBAL_STATUS (SDM 18.2.1): a counter preset
 * to -period overflowed when its top bit is clear. 1,000,000 instructions
 * at period 10,000: 100 PMIs, 100 samples, residual 0. */
static void test_v1_sampling_by_top_bit_18_2_1(void **state)
{
  const spmu_event_line line = {0xC0, 0, 1};
  spmu_agent_event s = sampling(INST, 10000);
  spmu_agent *a;
  uint64_t n, v;
  unsigned c;
  (void)state;
  use("core-duo");
  a = agent_on(lp);
  OK(spmu_agent_claim(a, &s, &c));
  assert_int_equal(c, 0);
  assert_int_equal(spmu_agent_set_freeze(a, true), SPMU_EINVAL);
  OK(spmu_agent_start(a));
  assert_int_equal(rd(lp, MSR_EVTSEL0), 0xC0 | EV_USR | EV_OS | EV_INT | EV_EN);
  hook(a, 0, 0);
  run(lp, &line, 1, 1000000);
  assert_int_equal(ctx.pmis, 100);
  OK(spmu_agent_samples(a, 0, &n));
  assert_int_equal(n, 100);
  OK(spmu_agent_read(a, 0, &v));
  assert_int_equal(v, (UINT64_C(1) << 40) - 10000);
  spmu_agent_free(a);
  assert_int_equal(rd(lp, MSR_EVTSEL0), 0);
}

/* ========================================================================
 * 5. Errors: API misuse is an error code, a #GP a reported fault.
 * ===================================================================== */

/* SDM 18.2.1.1 / 18.2.2 / 18.2.3 / 18.2.5: what a counter cannot do. */
static void test_claim_refuses_what_counters_cannot_do(void **state)
{
  spmu_agent_event ev;
  spmu_agent *a;
  unsigned c;
  (void)state;
  use("core2");
  a = agent_on(lp);
  ev = LLC;
  ev.event = 0; /* an event select of 0 reads as free (SDM 18.2.4.3) */
  assert_int_equal(spmu_agent_claim_counter(a, 0, &ev), SPMU_EINVAL);
  ev = LLC;
  ev.flags = 0; /* counts at no CPL */
  assert_int_equal(spmu_agent_claim(a, &ev, &c), SPMU_EINVAL);
  ev = LLC;
  ev.flags |= SPMU_AGENT_ANY; /* AnyThread is v3+ */
  assert_int_equal(spmu_agent_claim(a, &ev, &c), SPMU_ERESERVED);
  /* IA32_PMCx writes sign-extend bit 31: period <= 2^31. */
  assert_int_equal(
      spmu_agent_claim(
          a, &(spmu_agent_event){0x2E, 0x4F, 0, SPMU_AGENT_OS, BIT(31) + 1},
          &c),
      SPMU_ERANGE);
  /* A fixed counter counts only its own event, without CMASK. */
  assert_int_equal(spmu_agent_claim_counter(a, FC(0), &CYCLES), SPMU_EINVAL);
  ev = INST;
  ev.cmask = 2;
  assert_int_equal(spmu_agent_claim_counter(a, FC(0), &ev), SPMU_EINVAL);
  assert_int_equal(spmu_agent_claim_counter(a, 2, &LLC), SPMU_EINVAL);
  assert_int_equal(spmu_agent_claim_counter(a, FC(3), &LLC), SPMU_EINVAL);
  assert_int_equal(spmu_agent_release(a, 0), SPMU_EINVAL);
  assert_int_equal(spmu_agent_set_freeze(a, true), SPMU_EINVAL);
  assert_int_equal(spmu_agent_owned(a), 0);
  spmu_agent_free(a);
  /* With full-width writes a GP counter takes up to 2^47. */
  use("haswell");
  a = agent_on(lp);
  OK(spmu_agent_claim(
      a, &(spmu_agent_event){0x2E, 0x4F, 0, SPMU_AGENT_OS, BIT(47)}, &c));
  assert_int_equal(rd(lp, MSR_PMC0), BIT(47));
  spmu_agent_free(a);
}

/* A #GP of the backend is reported as SPMU_GP with the MSR: here CPUID
 * claims four GP counters on a Core 2 that has two, and the scan's RDMSR
 * of IA32_PERFEVTSEL2 faults. */
static void test_fault_reported_with_msr(void **state)
{
  spmu_backend be;
  struct rec *r;
  spmu_agent *a;
  uint64_t inuse;
  spmu_agent_pmu p;
  (void)state;
  use("core2");
  r = rec_new(lp, &be);
  r->fake_gp = 4;
  a = agent_on_backend(&be);
  OK(spmu_agent_pmu_get(a, &p));
  assert_int_equal(p.gp, 4);
  assert_int_equal(spmu_agent_fault_msr(a), 0);
  assert_int_equal(spmu_agent_scan(a, &inuse), SPMU_GP);
  assert_int_equal(spmu_agent_fault_msr(a), MSR_EVTSEL0 + 2);
  assert_int_equal(spmu_agent_claim_counter(a, 3, &LLC), SPMU_GP);
  assert_string_equal(spmu_errname(SPMU_EBUSY), "SPMU_EBUSY");
  assert_string_equal(spmu_strerror(SPMU_EBUSY),
                      "counter in use by another agent");
  assert_string_equal(spmu_strerror(SPMU_EIO), "backend I/O failed");
  spmu_agent_free(a);
  free(r);
}

/* ========================================================================
 * 6. NetBurst (SDM 18.15-18.16): the setup procedure of SDM 18.15.5.1, the
 *    sharing rules of agent.h on ESCRs and CCCRs, the P4 PMI handler
 *    (SDM 18.15.5.8; Linux's p4_pmu_handle_irq).
 * ===================================================================== */

/* Addresses and bits written out from the SDM (Table 18-63, Figures
 * 18-47 / 18-48), not taken from the library. */
#define P4_CTR(n) (0x300u + (n))
#define P4_CCCR(n) (0x360u + (n))
#define IQ_ESCR0 0x3BAu
#define CRU_ESCR0 0x3B8u
#define CRU_ESCR1 0x3B9u
#define CRU_ESCR2 0x3CCu
#define CC_EN BIT(12)
#define CC_SEL(s) ((uint64_t)(s) << 13)
#define CC_ACT(t) ((uint64_t)(t) << 16)
#define CC_ANY CC_ACT(3)
#define CC_PMI0 BIT(26)
#define CC_PMI1 BIT(27)
#define CC_CASCADE BIT(30)
#define CC_OVF BIT(31)
#define ES_EVSEL(e) ((uint64_t)(e) << 25)
#define ES_MASK(m) ((uint64_t)(m) << 9)
#define ES_T0 (BIT(3) | BIT(2)) /* T0_OS | T0_USR */
#define ES_T0_USR BIT(2)
#define ES_T1 (BIT(1) | BIT(0)) /* T1_OS | T1_USR */
#define W40 ((UINT64_C(1) << 40) - 1)
/* instr_retired:NBOGUSNTAG (Table 19-29): CRU_ESCR0/1, select 02H, mask
 * bit 0, CCCR select 4; IQ counters 12, 13, 16 / 14, 15, 17. */
#define INSTR_ESCR (ES_EVSEL(0x02) | ES_MASK(1))
#define INSTR_CCCR (CC_SEL(4) | CC_ANY | CC_EN)

static const spmu_agent_nb_event NB_INSTR = {"instr_retired:NBOGUSNTAG",
                                             SPMU_AGENT_USR | SPMU_AGENT_OS,
                                             SPMU_AGENT_NB_ANY, 0};

static spmu_agent *nb_agent_on_backend(const spmu_backend *be)
{
  spmu_agent *a = NULL;
  int rc = spmu_agent_new_netburst(be, &a);
  if (rc != SPMU_OK)
    fail_msg("spmu_agent_new_netburst: %s", spmu_errname(rc));
  return a;
}

static spmu_agent *nb_agent_on(spmu_lp *l)
{
  spmu_backend be;
  OK(spmu_backend_model(l, &be));
  return nb_agent_on_backend(&be);
}

static unsigned nb_claim(spmu_agent *a, const char *spec, unsigned flags,
                         uint64_t period)
{
  spmu_agent_nb_event ev = {spec, (uint8_t)flags, SPMU_AGENT_NB_ANY, period};
  unsigned c = 99;
  int rc = spmu_agent_nb_claim(a, &ev, &c);
  if (rc != SPMU_OK)
    fail_msg("claim %s: %s", spec, spmu_errname(rc));
  return c;
}

static void nb_run(spmu_lp *l, const spmu_nb_clock *clk, uint64_t clocks)
{
  uint64_t done = 0, used;
  while (done < clocks) {
    int rc = spmu_deliver_netburst(l, clk, clocks - done, &used);
    assert_true(rc >= 0);
    done += used;
  }
}

/* `clocks` clocks on l at CPL 3, each retiring `instrs` instructions
 * (bogus: on a mispredicted path). */
static void retire_on(spmu_lp *l, uint32_t instrs, uint8_t bogus,
                      uint64_t clocks)
{
  spmu_nb_retire r = {.uops = instrs + 1, .instrs = instrs, .bogus = bogus};
  spmu_nb_clock clk = {.retire = &r, .nretire = 1, .cpl = 3};
  nb_run(l, &clk, clocks);
}

static uint64_t nb_read(spmu_agent *a, unsigned c)
{
  uint64_t v = 0;
  OK(spmu_agent_read(a, c, &v));
  return v;
}

/* SDM 18.15.5.1 steps 1-6, 18.15.5.3 step 9, through the model
 * backend, on both presets. The claim reads every CCCR and the candidate
 * ESCR (free: CRU_ESCR0 is 0 and no counter in use selects it), saves the
 * counter, writes the ESCR (event select 02H, mask NBOGUSNTAG, T0_OS and
 * T0_USR) and reads it back, presets the counter, writes the CCCR (select
 * 4, active thread 11B, ENABLE) and reads it back: exactly that sequence.
 * Then 1000 clocks of 2 retired instructions count 2000; bogus ones and,
 * with HT, logical processor 1's do not count; release puts back the
 * reset values. */
static void test_nb_setup_procedure_18_15_5_1(void **state)
{
  static const char *const specs[] = {"pentium4-noht", "pentium4"};
  unsigned i, j;
  (void)state;
  for (i = 0; i < 2; i++) {
    const uint64_t cccr_reset = i == 0 ? CC_ANY : 0; /* decision 45 */
    spmu_agent_pmu p;
    spmu_backend be;
    struct rec *r;
    spmu_agent *a;
    struct entry w[8];
    unsigned from, c;
    use(specs[i]);
    r = rec_new(lp, &be);
    a = nb_agent_on_backend(&be);
    OK(spmu_agent_pmu_get(a, &p));
    assert_true(p.netburst);
    assert_int_equal(p.version, 0);
    assert_int_equal(p.gp_width, 40);
    assert_int_equal(p.fixed_mask, 0);
    assert_int_equal(spmu_agent_present(a), 0x3FFFF);
    assert_int_equal(rd(lp, P4_CCCR(12)), cccr_reset);
    from = r->n;
    c = nb_claim(a, NB_INSTR.spec, NB_INSTR.flags, 0);
    assert_int_equal(c, 12);
    assert_int_equal(r->n - from, 25);
    for (j = 0; j < 18; j++) { /* steps 1-4: which counters are free */
      assert_int_equal(r->log[from + j].op, 'R');
      assert_int_equal(r->log[from + j].msr, P4_CCCR(j));
    }
    assert_int_equal(r->log[from + 18].op, 'R'); /* is CRU_ESCR0 free? */
    assert_int_equal(r->log[from + 18].msr, CRU_ESCR0);
    assert_int_equal(r->log[from + 19].op, 'P'); /* the value found */
    assert_int_equal(r->log[from + 19].msr, 12);
    assert_write(&r->log[from + 20], CRU_ESCR0, INSTR_ESCR | ES_T0); /* 5 */
    assert_int_equal(r->log[from + 21].op, 'R');
    assert_int_equal(r->log[from + 21].msr, CRU_ESCR0);
    assert_write(&r->log[from + 22], P4_CTR(12), 0);
    assert_write(&r->log[from + 23], P4_CCCR(12), INSTR_CCCR); /* 6, 9 */
    assert_int_equal(r->log[from + 24].op, 'R');
    assert_int_equal(r->log[from + 24].msr, P4_CCCR(12));
    assert_int_equal(writes_since(r, from, w, 8), 3);
    assert_int_equal(spmu_agent_owned(a), BIT(12));
    assert_int_equal(spmu_agent_running(a), BIT(12));
    assert_false(spmu_agent_pmi_owned(a));
    /* It counts from the claim on: 2 instructions a clock. */
    retire_on(lp, 2, 0, 1000);
    assert_int_equal(nb_read(a, 12), 2000);
    assert_int_equal(rd(lp, P4_CTR(12)), 2000);
    retire_on(lp, 2, 1, 1000); /* BOGUS: not NBOGUSNTAG */
    assert_int_equal(nb_read(a, 12), 2000);
    if (i == 1) {
      retire_on(spmu_core_lp(core, 1), 5, 0, 1000); /* T1: not qualified */
      assert_int_equal(nb_read(a, 12), 2000);
    }
    OK(spmu_agent_release(a, 12));
    assert_int_equal(spmu_agent_owned(a), 0);
    assert_int_equal(rd(lp, CRU_ESCR0), 0);
    assert_int_equal(rd(lp, P4_CTR(12)), 0);
    assert_int_equal(rd(lp, P4_CCCR(12)), cccr_reset);
    spmu_agent_free(a);
    free(r);
  }
}

/* SDM 18.16.1-18.16.2: T1 puts the OS/USR bits in T1_OS/T1_USR, so an
 * agent on logical processor 1 counts that processor's instructions only;
 * USR alone does not count CPL 0. Without Hyper-Threading the T1 bits are
 * reserved and the active-thread field must be 11B: the claim faults
 * (SPMU_GP, the MSR named) and leaves the registers as they were. */
static void test_nb_threads_and_cpl_18_16_1(void **state)
{
  spmu_nb_retire ret = {.uops = 2, .instrs = 1};
  spmu_nb_clock clk0 = {.retire = &ret, .nretire = 1, .cpl = 0};
  spmu_agent_nb_event ev = NB_INSTR;
  spmu_agent *a, *b;
  spmu_lp *l1;
  unsigned c0, c1;
  (void)state;
  use("pentium4");
  l1 = spmu_core_lp(core, 1);
  a = nb_agent_on(lp);
  b = nb_agent_on(l1);
  c0 = nb_claim(a, ev.spec, SPMU_AGENT_USR, 0);
  c1 = nb_claim(b, ev.spec, SPMU_AGENT_USR | SPMU_AGENT_OS | SPMU_AGENT_T1, 0);
  assert_int_equal(c0, 12);
  assert_int_equal(c1, 14); /* CRU_ESCR0 is a's: CRU_ESCR1 */
  assert_int_equal(rd(lp, CRU_ESCR0), INSTR_ESCR | ES_T0_USR);
  assert_int_equal(rd(lp, CRU_ESCR1), INSTR_ESCR | ES_T1);
  retire_on(lp, 3, 0, 100);
  retire_on(l1, 7, 0, 100);
  nb_run(lp, &clk0, 100); /* CPL 0: not USR */
  nb_run(l1, &clk0, 100);
  assert_int_equal(nb_read(a, 12), 300);
  assert_int_equal(nb_read(b, 14), 800);
  spmu_agent_free(a);
  spmu_agent_free(b);

  use("pentium4-noht");
  WR(P4_CTR(12), 0x55);
  a = nb_agent_on(lp);
  ev.flags |= SPMU_AGENT_T1;
  assert_int_equal(spmu_agent_nb_claim(a, &ev, &c0), SPMU_GP);
  assert_int_equal(spmu_agent_fault_msr(a), CRU_ESCR0);
  ev = NB_INSTR;
  ev.active = SPMU_AGENT_NB_SINGLE;
  assert_int_equal(spmu_agent_nb_claim(a, &ev, &c0), SPMU_GP);
  assert_int_equal(spmu_agent_fault_msr(a), P4_CCCR(12));
  assert_int_equal(spmu_agent_owned(a), 0);
  assert_int_equal(rd(lp, CRU_ESCR0), 0);
  assert_int_equal(rd(lp, P4_CTR(12)), 0x55);
  assert_int_equal(rd(lp, P4_CCCR(12)), CC_ANY);
  spmu_agent_free(a);
}

/* SDM 18.15.5.1 steps 2-3 with the sharing of 18.2.4.3: two agents claiming
 * instr_retired get CRU_ESCR0 / counter 12 and CRU_ESCR1 / counter 14; a
 * third gets SPMU_EBUSY, for uops_retired too (the same two ESCRs), while
 * branch_retired (CRU_ESCR2, which feeds 12, 13, 16) gets counter 13. Each
 * counts its own events; one leaving does not disturb the others. On HT
 * the agents sit on both logical processors, which share the registers. */
static void test_nb_two_agents_different_counters_18_15_5_1(void **state)
{
  static const char *const specs[] = {"pentium4-noht", "pentium4"};
  unsigned i;
  (void)state;
  for (i = 0; i < 2; i++) {
    spmu_nb_line br = {SPMU_NB_CRU2, 0x06, 2, 1}; /* branch_retired MMTP */
    spmu_nb_retire ret = {.uops = 3, .instrs = 2};
    spmu_nb_clock clk = {
        .lines = &br, .nlines = 1, .retire = &ret, .nretire = 1, .cpl = 3};
    spmu_agent *A, *B, *C;
    uint64_t inuse;
    unsigned c;
    use(specs[i]);
    A = nb_agent_on(lp);
    B = nb_agent_on(spmu_core_lp(core, i)); /* logical processor 1 on HT */
    C = nb_agent_on(lp);
    assert_int_equal(nb_claim(A, "instr_retired:NBOGUSNTAG", SPMU_AGENT_USR, 0),
                     12);
    assert_int_equal(nb_claim(B, "instr_retired:NBOGUSNTAG", SPMU_AGENT_USR, 0),
                     14);
    assert_int_equal(
        spmu_agent_nb_claim(
            C, &(spmu_agent_nb_event){"instr_retired", SPMU_AGENT_USR, 0, 0},
            &c),
        SPMU_EBUSY);
    assert_int_equal(
        spmu_agent_nb_claim(
            C,
            &(spmu_agent_nb_event){"uops_retired:NBOGUS", SPMU_AGENT_USR, 0, 0},
            &c),
        SPMU_EBUSY);
    assert_int_equal(spmu_agent_owned(C), 0);
    assert_int_equal(nb_claim(C, "branch_retired:MMTP", SPMU_AGENT_USR, 0), 13);
    assert_int_equal(rd(lp, CRU_ESCR2),
                     ES_EVSEL(0x06) | ES_MASK(4) | ES_T0_USR);
    assert_int_equal(rd(lp, P4_CCCR(13)), CC_SEL(5) | CC_ANY | CC_EN);
    OK(spmu_agent_scan(C, &inuse));
    assert_int_equal(inuse, BIT(12) | BIT(13) | BIT(14));
    nb_run(lp, &clk, 500);
    assert_int_equal(nb_read(A, 12), 1000);
    assert_int_equal(nb_read(B, 14), 1000);
    assert_int_equal(nb_read(C, 13), 500);
    spmu_agent_free(A);
    assert_int_equal(rd(lp, CRU_ESCR0), 0);
    nb_run(lp, &clk, 500);
    assert_int_equal(nb_read(B, 14), 2000);
    assert_int_equal(nb_read(C, 13), 1000);
    /* The freed ESCR and counter serve the next claim. */
    assert_int_equal(nb_claim(C, "instr_retired:NBOGUSNTAG", SPMU_AGENT_USR, 0),
                     12);
    spmu_agent_free(B);
    spmu_agent_free(C);
    assert_int_equal(rd(lp, P4_CCCR(12)) & CC_EN, 0);
    assert_int_equal(rd(lp, P4_CCCR(13)) & CC_EN, 0);
    assert_int_equal(rd(lp, P4_CCCR(14)) & CC_EN, 0);
  }
}

/* The free test of agent.h, and release restoring what the claim found
 * (SDM 18.2.4.3). Foreign state on pentium4-noht: counter 12 enabled on
 * IQ_ESCR0 (select 0: in use, but not selecting CRU_ESCR0); counter 13
 * left configured with ENABLE clear and OVF set, value 0x123456789A (free:
 * taken, then restored exactly). Then: a counter in use selecting
 * CRU_ESCR0 (16, ENABLE) makes that ESCR in use although it reads 0; a
 * CASCADE counter (14) is in use though not enabled; a non-zero ESCR is in
 * use. */
static void test_nb_free_rules_and_release_restores(void **state)
{
  const uint64_t left13 = CC_SEL(4) | CC_ANY | CC_OVF;
  spmu_agent *a;
  uint64_t inuse;
  unsigned c;
  (void)state;
  use("pentium4-noht");
  WR(IQ_ESCR0, ES_EVSEL(0x01) | ES_MASK(1) | ES_T0);
  WR(P4_CCCR(12), CC_SEL(0) | CC_ANY | CC_EN);
  WR(P4_CCCR(13), left13);
  WR(P4_CTR(13), 0x123456789Aull);
  a = nb_agent_on(lp);
  OK(spmu_agent_scan(a, &inuse));
  assert_int_equal(inuse, BIT(12));
  c = nb_claim(a, NB_INSTR.spec, NB_INSTR.flags, 0);
  assert_int_equal(c, 13);
  assert_int_equal(rd(lp, P4_CCCR(13)), INSTR_CCCR);
  assert_int_equal(rd(lp, P4_CTR(13)), 0);
  retire_on(lp, 1, 0, 10);
  assert_int_equal(nb_read(a, 13), 10);
  OK(spmu_agent_release(a, 13));
  assert_int_equal(rd(lp, P4_CCCR(13)), left13);
  assert_int_equal(rd(lp, P4_CTR(13)), 0x123456789Aull);
  assert_int_equal(rd(lp, CRU_ESCR0), 0);
  assert_int_equal(rd(lp, P4_CCCR(12)), CC_SEL(0) | CC_ANY | CC_EN);

  /* Counter 16 (fed by CRU_ESCR0) in use with select 4: CRU_ESCR0 is in
   * use; counter 14 cascading (on RAT_ESCR1): in use; so CRU_ESCR1 /
   * counter 15. */
  WR(P4_CCCR(16), CC_SEL(4) | CC_ANY | CC_EN);
  WR(P4_CCCR(14), CC_SEL(2) | CC_ANY | CC_CASCADE); /* RAT_ESCR1 */
  OK(spmu_agent_scan(a, &inuse));
  assert_int_equal(inuse, BIT(12) | BIT(14) | BIT(16));
  c = nb_claim(a, NB_INSTR.spec, NB_INSTR.flags, 0);
  assert_int_equal(c, 15);
  assert_int_equal(rd(lp, CRU_ESCR0), 0);
  assert_int_equal(rd(lp, CRU_ESCR1), INSTR_ESCR | ES_T0);
  OK(spmu_agent_release(a, 15));
  /* A non-zero ESCR is in use even with no counter selecting it. */
  WR(P4_CCCR(16), CC_ANY);
  WR(CRU_ESCR1, ES_EVSEL(0x01) | ES_MASK(1)); /* no OS/USR bit */
  c = nb_claim(a, NB_INSTR.spec, NB_INSTR.flags, 0);
  assert_int_equal(c, 13);
  assert_int_equal(spmu_agent_nb_claim(a, &NB_INSTR, &c), SPMU_EBUSY);
  spmu_agent_free(a);
  assert_int_equal(rd(lp, CRU_ESCR0), 0);
  assert_int_equal(rd(lp, CRU_ESCR1), ES_EVSEL(0x01) | ES_MASK(1));
}

/* The read-back of SDM 18.2.4.3, on NetBurst. Another agent writes
 * CRU_ESCR0 right after this one (the recording backend injects it): the
 * read-back shows it, the ESCR is left to the other and CRU_ESCR1 /
 * counter 14 taken. Then another agent writes IQ_CCCR0 right after this
 * one: the counter is left to it, CRU_ESCR0 given back (0), and, CRU_ESCR0
 * still being free (counter 12 now selects IQ_ESCR0), counter 13 taken. */
static void test_nb_claim_readback_detects_race(void **state)
{
  const uint64_t their_escr = ES_EVSEL(0x03) | ES_MASK(1) | ES_T0;
  const uint64_t their_cccr = CC_SEL(0) | CC_ANY | CC_EN;
  spmu_backend be;
  struct rec *r;
  spmu_agent *a;
  unsigned c = 99;
  (void)state;
  use("pentium4");
  r = rec_new(lp, &be);
  a = nb_agent_on_backend(&be);
  r->inject_msr = CRU_ESCR0;
  r->inject_value = their_escr;
  OK(spmu_agent_nb_claim(a, &NB_INSTR, &c));
  assert_int_equal(c, 14);
  assert_int_equal(rd(lp, CRU_ESCR0), their_escr);
  assert_int_equal(rd(lp, CRU_ESCR1), INSTR_ESCR | ES_T0);
  assert_int_equal(rd(lp, P4_CCCR(12)), 0);
  spmu_agent_free(a);
  WR(CRU_ESCR0, 0);

  a = nb_agent_on_backend(&be);
  r->inject_msr = P4_CCCR(12);
  r->inject_value = their_cccr;
  OK(spmu_agent_nb_claim(a, &NB_INSTR, &c));
  assert_int_equal(c, 13);
  assert_int_equal(rd(lp, P4_CCCR(12)), their_cccr);
  assert_int_equal(rd(lp, P4_CCCR(13)), INSTR_CCCR);
  assert_int_equal(rd(lp, CRU_ESCR0), INSTR_ESCR | ES_T0);
  assert_int_equal(spmu_agent_owned(a), BIT(13));
  spmu_agent_free(a);
  assert_int_equal(rd(lp, P4_CCCR(12)), their_cccr);
  assert_int_equal(rd(lp, CRU_ESCR0), 0);
  free(r);
}

/* Stop and start on NetBurst (agent.h): stop clears the ESCR's OS/USR
 * bits, so nothing counts, while ENABLE keeps the counter in use; another
 * agent cannot take it or its ESCR; start writes the bits back. */
static void test_nb_stop_keeps_counter_in_use(void **state)
{
  spmu_agent *a, *b;
  uint64_t inuse;
  unsigned c;
  (void)state;
  use("pentium4-noht");
  a = nb_agent_on(lp);
  b = nb_agent_on(lp);
  assert_int_equal(nb_claim(a, NB_INSTR.spec, NB_INSTR.flags, 0), 12);
  retire_on(lp, 1, 0, 10);
  OK(spmu_agent_stop(a));
  assert_int_equal(spmu_agent_running(a), 0);
  assert_int_equal(rd(lp, CRU_ESCR0), INSTR_ESCR);
  assert_int_equal(rd(lp, P4_CCCR(12)), INSTR_CCCR);
  retire_on(lp, 1, 0, 10);
  assert_int_equal(nb_read(a, 12), 10);
  OK(spmu_agent_scan(b, &inuse));
  assert_int_equal(inuse, BIT(12));
  assert_int_equal(nb_claim(b, NB_INSTR.spec, NB_INSTR.flags, 0), 14);
  OK(spmu_agent_start(a));
  assert_int_equal(rd(lp, CRU_ESCR0), INSTR_ESCR | ES_T0);
  retire_on(lp, 1, 0, 10);
  assert_int_equal(nb_read(a, 12), 20);
  assert_int_equal(nb_read(b, 14), 10);
  OK(spmu_agent_release_all(a));
  assert_int_equal(rd(lp, CRU_ESCR0), 0);
  assert_int_equal(rd(lp, P4_CCCR(12)), CC_ANY);
  assert_int_equal(spmu_agent_nb_claim(b, &NB_INSTR, &c), SPMU_OK);
  assert_int_equal(c, 12);
  spmu_agent_free(a);
  spmu_agent_free(b);
}

/* Sampling with the P4 handler (SDM 18.15.5.8) on both presets: period
 * 1000 presets IQ_COUNTER0 to 2^40 - 1000 with OVF_PMI_T0. The PMI comes
 * at the first increment after the overflow (SDM 18.15.5.8, decision 46):
 * with one instruction a clock, 10,000 instructions overflow ten times but
 * interrupt nine times (at instructions 1001, ..., 9001); the tenth
 * overflow leaves OVF set and the counter at 0, and the 10,001st
 * instruction brings the tenth PMI: 10 PMIs, 10 samples, the counter at
 * -999. With three a clock (overflows inside a clock), 30,000
 * instructions: 29 PMIs, and samples x period + (counter + period) mod
 * 2^40 is exactly the instructions delivered, before and after the last
 * PMI. */
static void test_nb_sampling_p4_handler_18_15_5_8(void **state)
{
  static const char *const specs[] = {"pentium4-noht", "pentium4"};
  unsigned i;
  (void)state;
  for (i = 0; i < 2; i++) {
    spmu_agent *a;
    uint64_t n;
    unsigned c;
    use(specs[i]);
    a = nb_agent_on(lp);
    c = nb_claim(a, NB_INSTR.spec, NB_INSTR.flags, 1000);
    assert_int_equal(c, 12);
    assert_true(spmu_agent_pmi_owned(a));
    assert_int_equal(rd(lp, P4_CCCR(12)), INSTR_CCCR | CC_PMI0);
    assert_int_equal(rd(lp, P4_CTR(12)), W40 - 1000 + 1);
    hook(a, 0, 0);
    retire_on(lp, 1, 0, 10000);
    if (i == 1) /* logical processor 1's instructions do not count */
      retire_on(spmu_core_lp(core, 1), 1, 0, 500);
    assert_int_equal(ctx.pmis, 9);
    OK(spmu_agent_samples(a, 12, &n));
    assert_int_equal(n, 9);
    assert_int_equal(rd(lp, P4_CCCR(12)), INSTR_CCCR | CC_PMI0 | CC_OVF);
    assert_int_equal(nb_read(a, 12), 0);
    retire_on(lp, 1, 0, 1);
    assert_int_equal(ctx.pmis, 10);
    assert_int_equal(ctx.per_counter[12], 10);
    assert_int_equal(ctx.overflowed, BIT(12));
    OK(spmu_agent_samples(a, 12, &n));
    assert_int_equal(n, 10);
    assert_int_equal(rd(lp, P4_CCCR(12)), INSTR_CCCR | CC_PMI0);
    assert_int_equal(nb_read(a, 12), W40 - 999 + 1);
    spmu_agent_free(a);
    assert_int_equal(rd(lp, P4_CCCR(12)), i == 0 ? CC_ANY : 0);
    assert_int_equal(rd(lp, P4_CTR(12)), 0);
  }

  use("pentium4-noht");
  {
    spmu_agent *a = nb_agent_on(lp);
    uint64_t n, v, done;
    assert_int_equal(nb_claim(a, NB_INSTR.spec, NB_INSTR.flags, 1000), 12);
    hook(a, 0, 0);
    retire_on(lp, 3, 0, 10000);
    assert_int_equal(ctx.pmis, 29);
    OK(spmu_agent_samples(a, 12, &n));
    v = nb_read(a, 12);
    assert_int_equal(n, 29);
    assert_int_equal(v, 0); /* the 30th overflow, its PMI still owed */
    assert_int_equal(n * 1000 + ((v + 1000) & W40), 30000);
    OK(spmu_agent_handle_pmi(a, &done));
    assert_int_equal(done, BIT(12));
    OK(spmu_agent_samples(a, 12, &n));
    v = nb_read(a, 12);
    assert_int_equal(n, 30);
    assert_int_equal(v, W40 - 1000 + 1);
    assert_int_equal(n * 1000 + ((v + 1000) & W40), 30000);
    spmu_agent_free(a);
  }
}

/* The P4 handler's accesses (SDM 18.15.5.8; as Linux's p4_pmu_handle_irq
 * does), in order: read the CCCR; OVF set: write it with OVF clear, read
 * the counter (RDPMC 12), write the reload, then unmask the LVT, last. A
 * counter whose OVF is clear is read and left alone. */
static void test_nb_handler_write_order(void **state)
{
  spmu_backend be;
  struct rec *r;
  spmu_agent *a;
  uint64_t done;
  (void)state;
  use("pentium4-noht");
  r = rec_new(lp, &be);
  a = nb_agent_on_backend(&be);
  assert_int_equal(nb_claim(a, NB_INSTR.spec, NB_INSTR.flags, 100), 12);
  assert_int_equal(nb_claim(a, "branch_retired:MMTP", SPMU_AGENT_USR, 50), 13);
  retire_on(lp, 1, 0, 103); /* 3 past the wrap, the PMI at the 101st */
  r->n = 0;
  OK(spmu_agent_handle_pmi(a, &done));
  assert_int_equal(done, BIT(12));
  assert_int_equal(r->n, 6);
  assert_int_equal(r->log[0].op, 'R');
  assert_int_equal(r->log[0].msr, P4_CCCR(12));
  assert_int_equal(r->log[0].value, INSTR_CCCR | CC_PMI0 | CC_OVF);
  assert_write(&r->log[1], P4_CCCR(12), INSTR_CCCR | CC_PMI0);
  assert_int_equal(r->log[2].op, 'P');
  assert_int_equal(r->log[2].value, 3);
  assert_write(&r->log[3], P4_CTR(12), W40 - 97 + 1);
  assert_int_equal(r->log[4].op, 'R');
  assert_int_equal(r->log[4].msr, P4_CCCR(13));
  assert_int_equal(r->log[5].op, 'U');
  spmu_agent_free(a);
  free(r);
}

/* SDM 18.16.2 with the PMI_InUse rule of 18.2.4.3: a foreign CCCR with
 * OVF_PMI_T0 holds logical processor 0's PMI: a T0 sampling claim is
 * SPMU_EBUSY, counting and a T1 sampling claim are not; another agent's
 * handler does nothing. What a NetBurst claim refuses, and what an
 * architectural agent refuses of it. */
static void test_nb_pmi_inuse_and_refusals(void **state)
{
  spmu_agent_nb_event ev = NB_INSTR;
  spmu_agent *a, *b;
  uint64_t inuse, done;
  unsigned c;
  (void)state;
  use("pentium4");
  WR(P4_CCCR(0), CC_ANY | CC_PMI0); /* not enabled: counter 0 free */
  a = nb_agent_on(lp);
  OK(spmu_agent_scan(a, &inuse));
  assert_int_equal(inuse, SPMU_AGENT_PMI_INUSE);
  ev.period = 1000;
  assert_int_equal(spmu_agent_nb_claim(a, &ev, &c), SPMU_EBUSY);
  ev.flags |= SPMU_AGENT_T0 | SPMU_AGENT_T1; /* needs both PMIs */
  assert_int_equal(spmu_agent_nb_claim(a, &ev, &c), SPMU_EBUSY);
  ev.flags = SPMU_AGENT_USR | SPMU_AGENT_T1;
  OK(spmu_agent_nb_claim(a, &ev, &c));
  assert_int_equal(c, 12);
  assert_int_equal(rd(lp, P4_CCCR(12)), INSTR_CCCR | CC_PMI1);
  assert_true(spmu_agent_pmi_owned(a));
  b = nb_agent_on(lp);
  assert_int_equal(nb_claim(b, NB_INSTR.spec, NB_INSTR.flags, 0), 14);
  ev.flags = SPMU_AGENT_USR | SPMU_AGENT_T1;
  assert_int_equal(spmu_agent_nb_claim(b, &ev, &c), SPMU_EBUSY); /* a's */
  OK(spmu_agent_handle_pmi(b, &done));
  assert_int_equal(done, 0);
  spmu_agent_free(b);
  spmu_agent_free(a);

  a = nb_agent_on(lp);
  ev = NB_INSTR;
  ev.flags = 0; /* counts at no CPL */
  assert_int_equal(spmu_agent_nb_claim(a, &ev, &c), SPMU_EINVAL);
  ev.flags = SPMU_AGENT_OS | SPMU_AGENT_EDGE;
  assert_int_equal(spmu_agent_nb_claim(a, &ev, &c), SPMU_EINVAL);
  ev = NB_INSTR;
  ev.active = 4;
  assert_int_equal(spmu_agent_nb_claim(a, &ev, &c), SPMU_EINVAL);
  ev = NB_INSTR;
  ev.period = BIT(39) + 1;
  assert_int_equal(spmu_agent_nb_claim(a, &ev, &c), SPMU_ERANGE);
  ev = NB_INSTR;
  ev.spec = "instr_retired:NO_SUCH_MASK";
  assert_int_equal(spmu_agent_nb_claim(a, &ev, &c), SPMU_ENOENT);
  ev.spec = NULL;
  assert_int_equal(spmu_agent_nb_claim(a, &ev, &c), SPMU_EINVAL);
  /* The architectural calls that do not apply. */
  assert_int_equal(spmu_agent_claim(a, &INST, &c), SPMU_EINVAL);
  assert_int_equal(spmu_agent_claim_counter(a, 12, &INST), SPMU_EINVAL);
  assert_int_equal(nb_claim(a, NB_INSTR.spec, NB_INSTR.flags, 0), 12);
  assert_int_equal(spmu_agent_reprogram(a, 12, &INST), SPMU_EINVAL);
  assert_int_equal(spmu_agent_set_freeze(a, true), SPMU_EINVAL);
  assert_int_equal(spmu_agent_release(a, 18), SPMU_EINVAL);
  assert_int_equal(spmu_agent_owned(a), BIT(12));
  spmu_agent_free(a);

  /* No architectural PMU to find; no NetBurst PMU on Skylake. */
  {
    spmu_backend be;
    spmu_agent *x = (spmu_agent *)&be;
    OK(spmu_backend_model(lp, &be));
    assert_int_equal(spmu_agent_new(&be, &x), SPMU_ENOMSR);
    assert_null(x);
    use("skylake");
    x = agent_on(lp);
    assert_int_equal(spmu_agent_nb_claim(x, &NB_INSTR, &c), SPMU_EINVAL);
    spmu_agent_free(x);
    OK(spmu_backend_model(lp, &be));
    assert_int_equal(spmu_agent_new_netburst(&be, &x), SPMU_ENOMSR);
    assert_null(x);
  }
}

/* ========================================================================
 * 7. The hardware backend on regular files.
 * ===================================================================== */
static char dir[64];

static void put(const char *path, uint64_t off, const void *p, size_t n)
{
  int fd = open(path, O_WRONLY | O_CREAT, 0600);
  assert_true(fd >= 0);
  assert_int_equal(pwrite(fd, p, n, (off_t)off), (ssize_t)n);
  close(fd);
}

static uint64_t get(const char *path, uint64_t off)
{
  uint64_t v = 0;
  int fd = open(path, O_RDONLY);
  assert_true(fd >= 0);
  assert_int_equal(pread(fd, &v, 8, (off_t)off), 8);
  close(fd);
  return v;
}

static void put64(const char *path, uint32_t msr, uint64_t v)
{
  put(path, msr, &v, 8);
}

/* Linux msr driver: 8 bytes at offset = MSR; cpuid driver: 16 bytes
 * (EAX, EBX, ECX, EDX) at offset = leaf | subleaf << 32. */
static void test_hw_backend_on_files_reads_and_writes(void **state)
{
  char msr[96], cpuid[96];
  const uint32_t leaf_a[4] = {0x07300403, 0, 0, 0x0603};
  const uint32_t leaf_7_1[4] = {1, 2, 3, 4};
  uint32_t regs[4];
  spmu_backend be;
  spmu_hw *hw;
  uint64_t v;
  (void)state;
  snprintf(msr, sizeof msr, "%s/msr", dir);
  snprintf(cpuid, sizeof cpuid, "%s/cpuid", dir);
  put64(msr, 0xC1, 0x1234);
  put64(msr, 0x38F, 0x70000000Full);
  put64(msr, 0x1000, 0);
  put(cpuid, 0xA, leaf_a, 16);
  put(cpuid, 0x7 | UINT64_C(1) << 32, leaf_7_1, 16);
  OK(spmu_hw_open_paths(msr, cpuid, &hw, NULL, 0));
  OK(spmu_hw_backend(hw, &be));
  assert_null(be.rdpmc);
  OK(be.rdmsr(be.opaque, 0xC1, &v));
  assert_int_equal(v, 0x1234);
  OK(be.rdmsr(be.opaque, 0x38F, &v));
  assert_int_equal(v, 0x70000000Full);
  OK(be.rdmsr(be.opaque, 0x186, &v)); /* a hole in the file reads 0 */
  assert_int_equal(v, 0);
  OK(be.wrmsr(be.opaque, 0x390, 0x8000000000000005ull));
  assert_int_equal(get(msr, 0x390), 0x8000000000000005ull);
  /* Past the end of the file: no such MSR, as the device's EIO. */
  assert_int_equal(be.rdmsr(be.opaque, 0x2000, &v), SPMU_GP);
  OK(be.cpuid(be.opaque, 0xA, 0, regs));
  assert_memory_equal(regs, leaf_a, 16);
  OK(be.cpuid(be.opaque, 0x7, 1, regs));
  assert_memory_equal(regs, leaf_7_1, 16);
  assert_int_equal(be.cpuid(be.opaque, 0x8, 2, regs), SPMU_ENOENT);
  spmu_hw_close(hw);
}

/* The agent end to end on a file "machine". In a flat file adjacent MSRs
 * share bytes (each value is 8 bytes at offset = address), so the machine
 * is perfmon v1 with one GP counter, whose MSRs lie apart: CPUID.0AH EAX =
 * 0x07280101 (v1, 1 counter of 40 bits), IA32_PMC0 at C1H, IA32_PERFEVTSEL0
 * at 186H; no IA32_PEBS_ENABLE (past the end: #GP, enables nothing).
 * Discovery, the scan of SDM 18.2.4.3 (an event select in use refuses the
 * claim), claim with read-back, start (EN last, before v2), counter reads
 * by RDMSR (no RDPMC), release restoring the file's values. */
static void test_agent_over_hw_backend_files(void **state)
{
  char msr[96], cpuid[96];
  const uint32_t leaf_a[4] = {0x07280101, 0, 0, 0};
  const uint64_t theirs = 0xC4 | EV_OS | EV_EN;
  spmu_agent_pmu p;
  spmu_backend be;
  spmu_agent *a;
  spmu_hw *hw;
  uint64_t inuse, v;
  unsigned c = 99;
  (void)state;
  snprintf(msr, sizeof msr, "%s/msr2", dir);
  snprintf(cpuid, sizeof cpuid, "%s/cpuid2", dir);
  put64(msr, 0xC1, 0x777);
  put64(msr, 0x186, theirs);
  put(cpuid, 0xA, leaf_a, 16);
  OK(spmu_hw_open_paths(msr, cpuid, &hw, NULL, 0));
  OK(spmu_hw_backend(hw, &be));
  a = agent_on_backend(&be);
  OK(spmu_agent_pmu_get(a, &p));
  assert_int_equal(p.version, 1);
  assert_int_equal(p.gp, 1);
  assert_int_equal(p.gp_width, 40);
  assert_int_equal(p.fixed_mask, 0);
  assert_false(p.full_width_writes); /* leaf 01H reads no PDCM */
  OK(spmu_agent_scan(a, &inuse));
  assert_int_equal(inuse, BIT(0));
  assert_int_equal(spmu_agent_claim(a, &LLC, &c), SPMU_EBUSY);
  put64(msr, 0x186, 0); /* the other agent is done */
  OK(spmu_agent_claim(a, &LLC, &c));
  assert_int_equal(c, 0);
  assert_int_equal(get(msr, 0x186), 0x4F2E | EV_USR | EV_OS);
  assert_int_equal(get(msr, 0xC1), 0); /* preset through IA32_PMC0 */
  OK(spmu_agent_start(a));
  assert_int_equal(get(msr, 0x186), 0x4F2E | EV_USR | EV_OS | EV_EN);
  put64(msr, 0xC1, 0x42);
  OK(spmu_agent_read(a, 0, &v));
  assert_int_equal(v, 0x42);
  spmu_agent_free(a);
  assert_int_equal(get(msr, 0x186), 0);
  assert_int_equal(get(msr, 0xC1), 0x777);
  spmu_hw_close(hw);
}

/* NetBurst over the file "machine" (agent.h: any backend): CPUID.01H EAX
 * = 0F27H (family 0FH, model 2), the MSRs a flat file, no RDPMC. The
 * claim reads the CCCRs (holes read 0), takes CRU_ESCR0 / counter 12 and
 * writes the ESCR, the counter (WRMSR 30CH) and the CCCR; reads go
 * through RDMSR 30CH; release puts the file's values back. A family 06H
 * CPUID, or a file without MSR_BPU_CCCR0 (360H): not NetBurst. */
static void test_nb_agent_over_hw_backend_files(void **state)
{
  char msr[96], cpuid[96], cpuid6[96], small[96];
  const uint32_t leaf1[4] = {0x00000F27, 0, 0, 1u << 21};
  const uint32_t leaf1_p6[4] = {0x000306A9, 0, 0, 0};
  spmu_agent_pmu p;
  spmu_backend be;
  spmu_agent *a;
  spmu_hw *hw;
  (void)state;
  snprintf(msr, sizeof msr, "%s/nbmsr", dir);
  snprintf(cpuid, sizeof cpuid, "%s/nbcpuid", dir);
  snprintf(cpuid6, sizeof cpuid6, "%s/nbcpuid6", dir);
  snprintf(small, sizeof small, "%s/nbmsr2", dir);
  put64(msr, 0x30C, 0x777);
  put64(msr, 0x3F8, 0); /* the file reaches past every MSR used */
  put(cpuid, 0x1, leaf1, 16);
  OK(spmu_hw_open_paths(msr, cpuid, &hw, NULL, 0));
  OK(spmu_hw_backend(hw, &be));
  a = nb_agent_on_backend(&be);
  OK(spmu_agent_pmu_get(a, &p));
  assert_true(p.netburst);
  assert_int_equal(nb_claim(a, NB_INSTR.spec, NB_INSTR.flags, 0), 12);
  assert_int_equal(get(msr, CRU_ESCR0), INSTR_ESCR | ES_T0);
  assert_int_equal(get(msr, P4_CCCR(12)), INSTR_CCCR);
  assert_int_equal(get(msr, P4_CTR(12)), 0);
  put64(msr, P4_CTR(12), 0x42);
  assert_int_equal(nb_read(a, 12), 0x42);
  spmu_agent_free(a);
  assert_int_equal(get(msr, CRU_ESCR0), 0);
  assert_int_equal(get(msr, P4_CCCR(12)), 0);
  assert_int_equal(get(msr, P4_CTR(12)), 0x777);
  spmu_hw_close(hw);

  put(cpuid6, 0x1, leaf1_p6, 16);
  OK(spmu_hw_open_paths(msr, cpuid6, &hw, NULL, 0));
  OK(spmu_hw_backend(hw, &be));
  a = (spmu_agent *)&be;
  assert_int_equal(spmu_agent_new_netburst(&be, &a), SPMU_ENOMSR);
  assert_null(a);
  spmu_hw_close(hw);
  put64(small, 0x100, 0);
  OK(spmu_hw_open_paths(small, cpuid, &hw, NULL, 0));
  OK(spmu_hw_backend(hw, &be));
  assert_int_equal(spmu_agent_new_netburst(&be, &a), SPMU_ENOMSR);
  spmu_hw_close(hw);
}

/* A missing device says plainly what to do: ENOENT names the driver to
 * load; EACCES/EPERM say root or CAP_SYS_RAWIO is needed. */
static void test_hw_backend_missing_device_says_why(void **state)
{
  char why[256] = "", msr[96];
  spmu_hw *hw = (spmu_hw *)why;
  (void)state;
  assert_int_equal(spmu_hw_open(4095, &hw, why, sizeof why), SPMU_ENOENT);
  assert_null(hw);
  assert_string_equal(why,
                      "/dev/cpu/4095/msr does not exist: the msr driver is "
                      "not loaded (run `modprobe msr` as root), or that CPU "
                      "is not online");
  assert_int_equal(spmu_hw_open_paths("/nonexistent/softpmu/msr", NULL, &hw,
                                      why, sizeof why),
                   SPMU_ENOENT);
  assert_non_null(strstr(why, "/nonexistent/softpmu/msr does not exist"));
  assert_non_null(strstr(why, "modprobe msr"));
  /* The msr file opens, the cpuid device is missing. */
  snprintf(msr, sizeof msr, "%s/msr3", dir);
  put64(msr, 0, 0);
  assert_int_equal(
      spmu_hw_open_paths(msr, "/nonexistent/3/cpuid", &hw, why, sizeof why),
      SPMU_ENOENT);
  assert_null(hw);
  assert_non_null(strstr(why, "`modprobe cpuid`"));
  assert_int_equal(spmu_hw_explain("/dev/cpu/0/msr", EACCES, why, sizeof why),
                   SPMU_EIO);
  assert_string_equal(why, "/dev/cpu/0/msr: permission denied: MSR and CPUID "
                           "device access needs root (CAP_SYS_RAWIO)");
  assert_int_equal(spmu_hw_explain("/dev/cpu/0/msr", EPERM, why, sizeof why),
                   SPMU_EIO);
  assert_non_null(strstr(why, "CAP_SYS_RAWIO"));
  assert_int_equal(spmu_hw_explain("/x", EBUSY, why, sizeof why), SPMU_EIO);
  assert_string_equal(why, "/x: Device or resource busy");
}

static int make_dir(void **state)
{
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/softpmu-agent-XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
  static const char *const names[] = {"msr",    "cpuid",   "msr2",
                                      "cpuid2", "msr3",    "nbmsr",
                                      "nbmsr2", "nbcpuid", "nbcpuid6"};
  char path[96];
  unsigned i;
  (void)state;
  for (i = 0; i < sizeof names / sizeof names[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    unlink(path);
  }
  return rmdir(dir);
}

int main(void)
{
  const struct CMUnitTest model[] = {
      cmocka_unit_test_teardown(test_discovery_cpuid_0a_presets_18_2_1,
                                teardown),
      cmocka_unit_test_teardown(test_discovery_version_0_is_no_pmu_18_2_1,
                                teardown),
      cmocka_unit_test_teardown(test_scan_inuse_predicates_18_2_4_3, teardown),
      cmocka_unit_test_teardown(
          test_claim_release_restores_found_state_18_2_4_3, teardown),
      cmocka_unit_test_teardown(test_free_restores_full_width_value_18_2_5,
                                teardown),
      cmocka_unit_test_teardown(
          test_two_agents_interleaved_never_share_18_2_4_3, teardown),
      cmocka_unit_test_teardown(test_claim_readback_detects_race_18_2_4_3,
                                teardown),
      cmocka_unit_test_teardown(test_pmi_inuse_honoured_18_2_4_3, teardown),
      cmocka_unit_test_teardown(test_start_writes_global_ctrl_last_18_2_4_1,
                                teardown),
      cmocka_unit_test_teardown(test_global_ctrl_last_every_version_18_2_4_1,
                                teardown),
      cmocka_unit_test_teardown(test_overflow_indications_cleared_18_6_2_2,
                                teardown),
      cmocka_unit_test_teardown(
          test_classic_handler_haswell_legacy_freeze_17_4_7, teardown),
      cmocka_unit_test_teardown(
          test_reload_carries_overshoot_nothing_lost_18_2_2, teardown),
      cmocka_unit_test_teardown(test_v4_freeze_flow_skylake_18_2_4_1, teardown),
      cmocka_unit_test_teardown(test_handler_write_order_classic_and_v4_freeze,
                                teardown),
      cmocka_unit_test_teardown(test_v1_sampling_by_top_bit_18_2_1, teardown),
      cmocka_unit_test_teardown(test_claim_refuses_what_counters_cannot_do,
                                teardown),
      cmocka_unit_test_teardown(test_fault_reported_with_msr, teardown),
      cmocka_unit_test_teardown(test_nb_setup_procedure_18_15_5_1, teardown),
      cmocka_unit_test_teardown(test_nb_threads_and_cpl_18_16_1, teardown),
      cmocka_unit_test_teardown(test_nb_two_agents_different_counters_18_15_5_1,
                                teardown),
      cmocka_unit_test_teardown(test_nb_free_rules_and_release_restores,
                                teardown),
      cmocka_unit_test_teardown(test_nb_claim_readback_detects_race, teardown),
      cmocka_unit_test_teardown(test_nb_stop_keeps_counter_in_use, teardown),
      cmocka_unit_test_teardown(test_nb_sampling_p4_handler_18_15_5_8,
                                teardown),
      cmocka_unit_test_teardown(test_nb_handler_write_order, teardown),
      cmocka_unit_test_teardown(test_nb_pmi_inuse_and_refusals, teardown),
  };
  const struct CMUnitTest hw[] = {
      cmocka_unit_test(test_hw_backend_on_files_reads_and_writes),
      cmocka_unit_test(test_agent_over_hw_backend_files),
      cmocka_unit_test(test_nb_agent_over_hw_backend_files),
      cmocka_unit_test(test_hw_backend_missing_device_says_why),
  };
  int failed = cmocka_run_group_tests_name("agent_model", model, NULL, NULL);
  return failed +
         cmocka_run_group_tests_name("agent_hw", hw, make_dir, remove_dir);
}

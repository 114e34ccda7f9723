/* SPDX-License-Identifier: MIT */
/* libFuzzer harness: the PMU model driven by an arbitrary sequence of
 * WRMSR / RDMSR / RDPMC / host accesses / event delivery / snapshots /
 * RESET, on a core of 1 to 8 logical processors, with guest memory for the
 * DS save area (PEBS records, BTS). Each step checks its own contract;
 * the properties marked (s) and the state invariants of invariants.h are
 * checked on a sample of steps (about one in SAMPLE, harness.h: a hash of
 * the input decides, so a failure replays), on every step when the tests
 * replay the corpus:
 *
 *   absent-gp, absent-enomsr  an MSR outside the profile faults / ENOMSR
 *   lbr-tos, lbr-depth,       after a delivery: TOS inside the stack, the
 *   lbr-frozen                depth the profile's, and a stack that was
 *                             off or frozen unchanged (SDM 17.4.8,
 *                             18.2.4.1)
 *   reserved-gp, valid-write  WRMSR faults exactly on reserved bits,
 *                             read-only fields, a non-canonical DS_AREA,
 *                             and on RO/CONST/COMPUTED registers
 *   write-effect              what a successful write leaves (sign
 *                             extension of PMCx, W1C/W1S on the status)
 *   host-write, host-readonly the host path's acceptance rules (pmu.h)
 *   fault-no-effect (s)       a refused write changes nothing
 *   read-no-effect (s)        RDMSR, RDPMC, CPUID change nothing
 *   rdpmc-cpl, rdpmc-absent, rdpmc-agree  RDPMC's faults and value
 *   deadline-pure             spmu_deadline touches no memory, (s)
 *                             changes nothing
 *   deadline-agree            delivery stops exactly at the deadline
 *   pmi-callback              one pmi() per requesting LP, lp first
 *   future-equivalence (s)    a clone restored from the snapshot, given
 *                             the same clocks, ends byte-identical (MSRs,
 *                             engine state, guest memory)
 *   batch-equivalence (s)     K clocks at once == K clocks one at a time
 *                             (K <= SINGLE_STEP_MAX), result bits included
 *   ds-bounds                 DS writes only at the BTS/PEBS index, below
 *                             the absolute maximum
 *   restore-rejects, reset-values, cpuid-agree, restore-exact (s),
 *   init-keeps (s); restore-rejects: the core left untouched (s)
 *
 * Input layout (a read past the end yields zeros, so any byte string is a
 * valid input; fuzz/gen_seeds.py writes seeds in this layout):
 *   byte 0        profile: bits 3:0 = preset (mod the number of presets),
 *                 bits 7:6 = how many key=value perturbations follow
 *   per perturbation: key byte (mod the key table), value bytes (per key)
 *   then steps, up to MAX_STEPS: an opcode byte (mod 16, see op_table),
 *   then the operands the op reads (lp, address selector, value, ...).
 *
 * A violation prints "fuzz_model: profile P, step N (OP): <invariant>:
 * <detail>" and calls abort(). Build with -DSPMU_FUZZ_TRACE to print every
 * step. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define MAX_STEPS 256
/* What ends a delivery early (events.h): a PMI, a PEBS assist, a branch
 * record, a failed memory callback. */
#define STOP_TICKS                                                             \
  (SPMU_TICK_PMI | SPMU_TICK_PEBS | SPMU_TICK_PEBS_LOST | SPMU_TICK_BTS |      \
   SPMU_TICK_MEM_FAULT)
#define SINGLE_STEP_MAX 64 /* batched == single-step check up to this */
/* About one step in SAMPLE runs the expensive checks (harness.h): the
 * whole invariant sweep, the clone and single-step replays of a delivery,
 * the no-effect snapshots. */
#define SAMPLE 64

/* MSR numbers the harness programs directly (SDM Vol. 4 Table 2-2). */
#define MSR_PMC0 0xC1u
#define MSR_EVTSEL0 0x186u
#define MSR_FIXED_CTR0 0x309u
#define MSR_PERF_METRICS 0x329u
#define MSR_FIXED_CTR_CTRL 0x38Du
#define MSR_GLOBAL_STATUS 0x38Eu
#define MSR_GLOBAL_CTRL 0x38Fu
#define MSR_GLOBAL_OVF_CTRL 0x390u
#define MSR_A_PMC0 0x4C1u
#define MSR_DEBUGCTL 0x1D9u
#define MSR_PEBS_ENABLE 0x3F1u
#define MSR_PEBS_DATA_CFG 0x3F2u
#define MSR_DS_AREA 0x600u

#define DEBUGCTL_TR (UINT64_C(1) << 6)
#define DEBUGCTL_BTS (UINT64_C(1) << 7)
#define DEBUGCTL_BTINT (UINT64_C(1) << 8)
#define DEBUGCTL_BTS_OFF_OS (UINT64_C(1) << 9)
#define DEBUGCTL_BTS_OFF_USR (UINT64_C(1) << 10)

/* The guest's linear memory the harness serves to the model (read_mem /
 * write_mem): GMEM_SIZE bytes at GMEM_BASE, below 4 GiB so that the 32-bit
 * DS layout reaches it too. op_ds_setup puts a DS management area at its
 * start and the PEBS buffer from GMEM_PEBS on. */
#define GMEM_BASE UINT64_C(0x100000)
#define GMEM_SIZE 0x4000u
#define GMEM_BTS 0x200u
#define GMEM_PEBS 0x400u

#define EVTSEL_USR (UINT64_C(1) << 16)
#define EVTSEL_OS (UINT64_C(1) << 17)
#define EVTSEL_E (UINT64_C(1) << 18)
#define EVTSEL_INT (UINT64_C(1) << 20)
#define EVTSEL_EN (UINT64_C(1) << 22)
#define EVTSEL_INV (UINT64_C(1) << 23)
#define EVTSEL_IN_TX (UINT64_C(1) << 32)

/* ---- the run --------------------------------------------------------- */

struct run;

/* The memory and host side of one core (the core under test, its clone,
 * the single-step core each have one, so that they can be compared). */
typedef struct gmem {
  struct run *r;
  uint8_t b[GMEM_SIZE];
  uint8_t fail;      /* bit 0: reads fail, bit 1: writes fail */
  uint8_t clk_flags; /* of the delivery under way (DS layout) */
  uint64_t accesses; /* read_mem / write_mem calls */
  uint64_t assists;  /* machine_state calls (the TSC it reports) */
} gmem;

typedef struct run {
  fz_run f;          /* the skeleton's: input, core under test, pre, ... */
  spmu_core *clone;  /* future equivalence: same clocks from a snapshot */
  spmu_core *single; /* batched == single-step */
  uint8_t *a, *b, *stash;
  bool have_stash;
  gmem *mem;     /* [0] core, [1] clone, [2] single */
  unsigned pmis; /* PMI callbacks since the count was last cleared */
  unsigned pmi_lp[SPMU_MAX_THREADS]; /* their logical processors */
  bool pmi_foreign;                  /* a callback for an LP of another core */
} run;

static void on_pmi(void *opaque, spmu_lp *lp)
{
  gmem *g = opaque;
  run *r = g->r;

  if (g != &r->mem[0])
    return; /* the clone's and the single-step core's are compared */
  if (spmu_lp_core(lp) != r->f.core)
    r->pmi_foreign = true;
  if (r->pmis < SPMU_MAX_THREADS)
    r->pmi_lp[r->pmis] = spmu_lp_index(lp);
  r->pmis++;
}

static bool in_window(uint64_t la, size_t len)
{
  return la >= GMEM_BASE && len <= GMEM_SIZE &&
         la - GMEM_BASE <= GMEM_SIZE - len;
}

static int read_mem(void *opaque, spmu_lp *lp, uint64_t la, void *buf,
                    size_t len)
{
  gmem *g = opaque;

  (void)lp;
  g->accesses++;
  if ((g->fail & 1) || !in_window(la, len))
    return -1;
  memcpy(buf, g->b + (la - GMEM_BASE), len);
  return 0;
}

/* ds-bounds (SDM 17.4.9; docs/decisions.md #34): when lp's DS area is
 * the one op_ds_setup wrote, the model writes only the BTS or PEBS index
 * field, a PEBS record at the PEBS index that ends at or below the PEBS
 * absolute maximum, or a BTS record at the BTS index (or the BTS base, when
 * it wraps) that ends at or below the BTS absolute maximum. Field i of the
 * management area is at 8i (64-bit layout) or 4i (32-bit). */
static void check_ds_write(gmem *g, spmu_lp *lp, uint64_t la, size_t len)
{
  uint64_t ds = 0, f[8];
  bool wide = (g->r->f.ctx->prof.features & SPMU_FEAT_DTES64) ||
              (g->clk_flags & SPMU_CLK_IA32E);
  unsigned w = wide ? 8 : 4, i;

  spmu_host_rdmsr(lp, MSR_DS_AREA, &ds);
  if ((wide ? ds : (uint32_t)ds) != GMEM_BASE)
    return;
  for (i = 0; i < 8; i++)
    f[i] = spmu_get_le(g->b + i * w, w);
  if ((la == GMEM_BASE + w || la == GMEM_BASE + 5 * w) && len == w)
    return; /* BTS index, PEBS index */
  if (la == f[5] && len <= f[6] && la <= f[6] - len)
    return; /* a PEBS record */
  if ((la == f[1] || la == f[0]) && len == 3 * w && len <= f[2] &&
      la <= f[2] - len)
    return; /* a BTS record */
  fz_die("ds-bounds: LP%u wrote %zu bytes at %#llx; BTS base/index/max "
         "%#llx/%#llx/%#llx, PEBS index/max %#llx/%#llx (%s DS layout)",
         spmu_lp_index(lp), len, ull(la), ull(f[0]), ull(f[1]), ull(f[2]),
         ull(f[5]), ull(f[6]), wide ? "64-bit" : "32-bit");
}

static int write_mem(void *opaque, spmu_lp *lp, uint64_t la, const void *buf,
                     size_t len)
{
  gmem *g = opaque;

  g->accesses++;
  if (g == &g->r->mem[0])
    check_ds_write(g, lp, la, len);
  if ((g->fail & 2) || !in_window(la, len))
    return -1;
  memcpy(g->b + (la - GMEM_BASE), buf, len);
  return 0;
}

/* A machine state that depends only on the LP and on how many assists the
 * core has had, so the clone and the single-step core see the same. */
static void machine_state(void *opaque, spmu_lp *lp, spmu_machine_state *st)
{
  gmem *g = opaque;
  uint64_t k = spmu_lp_index(lp), i;

  g->assists++;
  st->rflags = 0x202;
  st->ip = 0x401000 + 0x100 * k + g->assists;
  st->next_ip = st->ip + 3;
  for (i = 0; i < 16; i++) {
    st->gpr[i] = 0x1111111111111111u * i + k;
    st->xmm[i][0] = ~st->gpr[i];
    st->xmm[i][1] = st->gpr[i] << 1;
  }
  st->tsc = 1000000 + g->assists;
  st->tx_abort = g->assists & 7;
  st->nlbr = (unsigned)(g->assists % 5);
  for (i = 0; i < st->nlbr; i++) {
    st->lbr[i].from = 0x402000 + i;
    st->lbr[i].to = 0x403000 + i;
    st->lbr[i].info = i;
  }
}

/* The memory side of dst becomes that of src (before a clone runs). */
static void gmem_copy(gmem *dst, const gmem *src)
{
  memcpy(dst->b, src->b, sizeof dst->b);
  dst->fail = src->fail;
  dst->assists = src->assists;
}

static void gmem_expect_same(const gmem *a, const gmem *b, const char *what)
{
  size_t i;

  if (a->assists != b->assists)
    fz_die("%s: %llu PEBS assists asked for the machine state, %llu on the "
           "other core",
           what, ull(a->assists), ull(b->assists));
  for (i = 0; i < GMEM_SIZE; i++)
    if (a->b[i] != b->b[i])
      fz_die("%s: guest memory at %#llx differs (%#x, other core %#x)", what,
             ull(GMEM_BASE + i), a->b[i], b->b[i]);
}

/* events.h: pmi() is called once for each logical processor that requests
 * a PMI in the last clock, lp first, then by index; SPMU_TICK_PMI says
 * whether any did. */
static void check_pmi_calls(run *r, const spmu_lp *lp, bool pmi)
{
  unsigned i, first = 0, k = spmu_lp_index(lp);

  if (r->pmi_foreign)
    fz_die("pmi-callback: called for a logical processor of another core");
  if ((r->pmis != 0) != pmi || r->pmis > r->f.ctx->prof.threads)
    fz_die("pmi-callback: %u callbacks for a delivery that returned PMI %d",
           r->pmis, pmi);
  if (r->pmis && r->pmi_lp[0] == k)
    first = 1;
  for (i = first; i < r->pmis; i++)
    if (r->pmi_lp[i] == k || (i > first && r->pmi_lp[i] <= r->pmi_lp[i - 1]))
      fz_die("pmi-callback: callback %u of %u is for LP%u (delivering to "
             "LP%u): not lp first, then by index",
             i + 1, r->pmis, r->pmi_lp[i], k);
}

/* ---- choosing addresses, values, event lines ------------------------- */

/* Mostly an MSR of the profile; sometimes a neighbour, an instance the
 * profile lacks, or any 32-bit number. */
static uint32_t pick_addr(run *r)
{
  uint8_t b = u8(&r->f.in);
  const spmu_inv_ctx *ctx = r->f.ctx;

  if (b < 224)
    return ctx->msr[b % ctx->nmsr].addr;
  switch (b & 7) {
  case 0:
    return u32(&r->f.in);
  case 1:
    return ctx->msr[u8(&r->f.in) % ctx->nmsr].addr + 1;
  case 2:
    return MSR_PMC0 + u8(&r->f.in) % 16;
  case 3:
    return MSR_EVTSEL0 + u8(&r->f.in) % 16;
  case 4:
    return MSR_FIXED_CTR0 + u8(&r->f.in) % 24;
  case 5:
    return MSR_A_PMC0 + u8(&r->f.in) % 16;
  case 6:
    return 0x388u + u8(&r->f.in) % 16; /* 388H-397H: the global MSRs */
  default:
    return 0x3F0u + u8(&r->f.in) % 16; /* PEBS MSRs */
  }
}

/* The event lines a core counts with: those its event selects program,
 * and the fixed counters' lines (include/softpmu/events.h). */
typedef struct linesel {
  uint8_t ev[SPMU_MAX_GP + SPMU_MAX_FIXED][2];
  unsigned n;
} linesel;

static void known_lines(run *r, spmu_lp *lp, linesel *ls)
{
  unsigned i;

  ls->n = 0;
  for (i = 0; i < SPMU_MAX_GP; i++) {
    uint64_t sel;
    if (spmu_inv_msr(r->f.ctx, MSR_EVTSEL0 + i) &&
        spmu_host_rdmsr(lp, MSR_EVTSEL0 + i, &sel) == SPMU_OK) {
      ls->ev[ls->n][0] = (uint8_t)sel;
      ls->ev[ls->n][1] = (uint8_t)(sel >> 8);
      ls->n++;
    }
  }
  for (i = 0; i < SPMU_MAX_FIXED; i++) {
    if (!spmu_inv_msr(r->f.ctx, MSR_FIXED_CTR0 + i))
      continue;
    ls->ev[ls->n][0] = i == 0 ? 0xC0 : i == 1 ? 0x3C : 0x00;
    ls->ev[ls->n][1] = i < 2 ? 0x00 : (uint8_t)(i + 1);
    ls->n++;
  }
}

/* Architectural events (CPUID.0AH EBX order), for programming selects. */
static const uint8_t arch_events[][2] = {
    {0x3C, 0x00}, {0xC0, 0x00}, {0x3C, 0x01}, {0x2E, 0x4F}, {0x2E, 0x41},
    {0xC4, 0x00}, {0xC5, 0x00}, {0xA4, 0x01}, {0x00, 0x03}, {0x00, 0x04},
};
#define N_ARCH (sizeof arch_events / sizeof arch_events[0])

static uint64_t evtsel_value(run *r)
{
  uint8_t e = u8(&r->f.in), f = u8(&r->f.in), c = u8(&r->f.in);
  uint64_t v = (uint64_t)arch_events[e % N_ARCH][0] |
               (uint64_t)arch_events[e % N_ARCH][1] << 8;

  if (e >= 0xF0)
    v = u16(&r->f.in); /* any event / umask */
  v |= (f & 1) ? EVTSEL_USR : 0;
  v |= (f & 2) ? EVTSEL_OS : 0;
  v |= (f & 4) ? EVTSEL_E : 0;
  v |= (f & 8) ? EVTSEL_INT : 0;
  v |= (f & 0x10) ? 0 : EVTSEL_EN; /* mostly enabled */
  v |= (f & 0x20) ? EVTSEL_INV : 0;
  v |= (f & 0x40) ? EVTSEL_IN_TX : 0;
  if (f & 0x80)
    v |= (uint64_t)(c % 5) << 24; /* small CMASK */
  return v;
}

/* A value for WRMSR to addr: raw, valid bits only, structured by register
 * kind, or derived from the current value. */
static uint64_t pick_value(run *r, spmu_lp *lp, uint32_t addr)
{
  const spmu_msr_info *m = spmu_inv_msr(r->f.ctx, addr);
  uint64_t cur = 0, valid = m ? ~m->reserved : ~UINT64_C(0);
  uint8_t mode = u8(&r->f.in);

  if (m)
    spmu_host_rdmsr(lp, addr, &cur);
  if (m &&
      (m->policy == SPMU_POLICY_COUNTER || m->policy == SPMU_POLICY_COUNTER_SX))
    valid &= spmu_width_mask(m->width);
  switch (mode % 8) {
  case 0:
    return u64(&r->f.in);
  case 1:
    return u64(&r->f.in) & valid;
  case 2:
    if (addr >= MSR_EVTSEL0 && addr < MSR_EVTSEL0 + SPMU_MAX_GP)
      return evtsel_value(r) & valid;
    if (m && (m->policy == SPMU_POLICY_COUNTER ||
              m->policy == SPMU_POLICY_COUNTER_SX)) {
      /* A few events before the wrap; PMCx writes sign-extend. */
      uint64_t k = u8(&r->f.in);
      if (m->policy == SPMU_POLICY_COUNTER_SX)
        return (uint64_t)0 - (k + 1);
      return spmu_width_mask(m->width) - k;
    }
    if (addr == MSR_FIXED_CTR_CTRL) {
      uint64_t v = 0;
      unsigned j;
      for (j = 0; j < SPMU_MAX_FIXED; j++)
        v |= (uint64_t)(u8(&r->f.in) & 0xF) << (4 * j);
      return v & valid;
    }
    return (u8(&r->f.in) & 1) ? valid : u64(&r->f.in) & valid;
  case 3:
    return u8(&r->f.in);
  case 4:
    return cur ^ (UINT64_C(1) << (u8(&r->f.in) % 64));
  case 5:
    return ~UINT64_C(0);
  case 6:
    return m ? m->reset : 0;
  default:
    return cur;
  }
}

/* ---- guest and host writes ------------------------------------------- */

static uint64_t status_of(spmu_lp *lp)
{
  uint64_t v = 0;
  spmu_host_rdmsr(lp, MSR_GLOBAL_STATUS, &v);
  return v;
}

static bool canonical48(uint64_t v)
{
  return (v >> 47) == 0 || (v >> 47) == (UINT64_C(1) << 17) - 1;
}

/* The value checks beyond reserved bits, from the SDM: a canonical
 * DS_AREA (17.4.9) and LBR / LER linear addresses (17.4.8.1: a FROM_IP
 * sign-extends bit 47 through the address bits of the LBR format: 64 for
 * formats 1-2 and architectural LBRs, 63 for format 3, 61 for formats
 * 4-5), and an IA32_LBR_DEPTH that CPUID.1CH:EAX[7:0] lists. */
static bool value_ok(const spmu_profile *p, const spmu_msr_info *m, uint64_t v)
{
  unsigned fmt = (unsigned)(p->perf_capabilities & 0x3f), bits;
  uint64_t hi;

  if (m->addr == 0x600u)
    return canonical48(v);
  if (m->addr == 0x14CFu)
    return v && v % 8 == 0 && v <= 64 && (p->lbr_leaf_1c[0] >> (v / 8 - 1) & 1);
  if (!strstr(m->name, "_IP"))
    return true;
  bits = 64;
  if (strstr(m->name, "FROM_IP") && !(p->features & SPMU_FEAT_ARCH_LBR))
    bits = fmt >= 4 ? 61 : fmt == 3 ? 63 : 64;
  hi = (v & spmu_width_mask(bits)) >> 47;
  return hi == 0 || hi == spmu_width_mask(bits - 47);
}

/* What a successful write leaves in the register (W1C/W1S: in status). */
static void check_write_effect(spmu_lp *lp, const spmu_msr_info *m, uint64_t v,
                               uint64_t status0, bool host)
{
  uint64_t got = 0, want;

  switch (m->policy) {
  case SPMU_POLICY_W1C:
    got = status_of(lp);
    want = status0 & ~v;
    break;
  case SPMU_POLICY_W1S:
    got = status_of(lp);
    want = status0 | v;
    break;
  case SPMU_POLICY_COUNTER_SX:
    spmu_host_rdmsr(lp, m->addr, &got);
    /* SDM 18.2.5: bits 31:0 written, sign-extended to the width; the host
     * path stores the value as given. */
    want = host ? v
                : (uint64_t)(int64_t)(int32_t)(uint32_t)v &
                      spmu_width_mask(m->width);
    break;
  default:
    spmu_host_rdmsr(lp, m->addr, &got);
    want = v;
    break;
  }
  if (got != want)
    fz_die("write-effect: LP%u %s %s = %#llx succeeded but %s reads %#llx, "
           "expected %#llx",
           spmu_lp_index(lp), host ? "host WRMSR" : "WRMSR", m->name, ull(v),
           m->policy == SPMU_POLICY_W1C || m->policy == SPMU_POLICY_W1S
               ? "GLOBAL_STATUS"
               : m->name,
           ull(got), ull(want));
}

/* A write the input describes: the LP, the MSR, the value; what the MSR
 * (if the profile has it) and GLOBAL_STATUS held before it. */
typedef struct write_op {
  spmu_lp *lp;
  uint32_t addr;
  uint64_t v, status0, cur;
  const spmu_msr_info *m;
} write_op;

static void pick_write(run *r, write_op *w)
{
  w->lp = fz_pick_lp(&r->f);
  w->addr = pick_addr(r);
  w->v = pick_value(r, w->lp, w->addr);
  w->m = spmu_inv_msr(r->f.ctx, w->addr);
  w->status0 = status_of(w->lp);
  w->cur = 0;
  fz_begin(&r->f, NULL);
  if (w->m)
    spmu_host_rdmsr(w->lp, w->addr, &w->cur);
}

static void op_wrmsr(fz_run *fr)
{
  run *r = (run *)fr;
  write_op w;
  bool must_gp = false, must_ok = false;
  int rc;

  pick_write(r, &w);
  rc = spmu_wrmsr(w.lp, w.addr, w.v);
  TRACE("  LP%u WRMSR %#x = %#llx -> %s\n", spmu_lp_index(w.lp), w.addr,
        ull(w.v), spmu_errname(rc));
  if (!w.m) {
    if (rc != SPMU_GP)
      fz_die("absent-gp: WRMSR %#x (not in the profile) gave %s", w.addr,
             spmu_errname(rc));
    fz_promise(&r->f, "fault-no-effect");
    return;
  }
  switch (w.m->policy) {
  case SPMU_POLICY_RO:
  case SPMU_POLICY_CONST:
  case SPMU_POLICY_COMPUTED:
    must_gp = true; /* read-only to the guest */
    break;
  case SPMU_POLICY_COUNTER_SX:
    must_ok = true; /* bits 63:32 are not examined */
    break;
  case SPMU_POLICY_RW:
    /* regs.h: reserved bits #GP, read-only fields must keep their
     * value; value_ok: addresses and depths. */
    must_ok = !(w.v & w.m->reserved) && !((w.v ^ w.cur) & w.m->readonly) &&
              value_ok(&r->f.ctx->prof, w.m, w.v);
    must_gp = !must_ok;
    break;
  default: /* W1C, W1S, COUNTER */
    must_gp = (w.v & w.m->reserved) != 0;
    must_ok = !must_gp;
    break;
  }
  if (rc != SPMU_OK && rc != SPMU_GP)
    fz_die("guest-result: WRMSR %s = %#llx gave %s", w.m->name, ull(w.v),
           spmu_errname(rc));
  if (must_gp && rc != SPMU_GP)
    fz_die("reserved-gp: WRMSR %s = %#llx (reserved %#llx, policy %d) must "
           "#GP",
           w.m->name, ull(w.v), ull(w.m->reserved), (int)w.m->policy);
  if (must_ok && rc != SPMU_OK)
    fz_die("valid-write: WRMSR %s = %#llx (reserved %#llx, read-only %#llx) "
           "faulted",
           w.m->name, ull(w.v), ull(w.m->reserved), ull(w.m->readonly));
  if (rc == SPMU_OK)
    check_write_effect(w.lp, w.m, w.v, w.status0, false);
  else
    fz_promise(&r->f, "fault-no-effect");
}

static void op_host_wrmsr(fz_run *fr)
{
  run *r = (run *)fr;
  write_op w;
  bool must_ok = false;
  int rc;

  pick_write(r, &w);
  rc = spmu_host_wrmsr(w.lp, w.addr, w.v);
  TRACE("  LP%u host WRMSR %#x = %#llx -> %s\n", spmu_lp_index(w.lp), w.addr,
        ull(w.v), spmu_errname(rc));
  if (!w.m) {
    if (rc != SPMU_ENOMSR)
      fz_die("absent-enomsr: host WRMSR %#x gave %s", w.addr, spmu_errname(rc));
    fz_promise(&r->f, "fault-no-effect");
    return;
  }
  switch (w.m->policy) {
  case SPMU_POLICY_CONST:
  case SPMU_POLICY_COMPUTED:
    must_ok = w.v == w.cur; /* only the current value */
    if (!must_ok && rc == SPMU_OK)
      fz_die("host-readonly: host WRMSR %s = %#llx (current %#llx) "
             "succeeded",
             w.m->name, ull(w.v), ull(w.cur));
    break;
  case SPMU_POLICY_COUNTER_SX:
  case SPMU_POLICY_COUNTER:
    must_ok = !(w.v & ~spmu_width_mask(w.m->width));
    break;
  case SPMU_POLICY_RW:
    must_ok = !(w.v & w.m->reserved) && !((w.v ^ w.cur) & w.m->readonly) &&
              value_ok(&r->f.ctx->prof, w.m, w.v);
    break;
  default: /* RO, W1C, W1S */
    must_ok = !(w.v & w.m->reserved);
    break;
  }
  if (rc != SPMU_OK && rc != SPMU_ERESERVED && rc != SPMU_EREADONLY)
    fz_die("host-result: host WRMSR %s = %#llx gave %s", w.m->name, ull(w.v),
           spmu_errname(rc));
  if (must_ok != (rc == SPMU_OK))
    fz_die("host-write: host WRMSR %s = %#llx (reserved %#llx, read-only "
           "%#llx, width %u) gave %s",
           w.m->name, ull(w.v), ull(w.m->reserved), ull(w.m->readonly),
           w.m->width, spmu_errname(rc));
  if (rc == SPMU_OK && w.m->policy != SPMU_POLICY_CONST &&
      w.m->policy != SPMU_POLICY_COMPUTED)
    check_write_effect(w.lp, w.m, w.v, w.status0, true);
  if (rc != SPMU_OK || w.m->policy == SPMU_POLICY_CONST ||
      w.m->policy == SPMU_POLICY_COMPUTED)
    fz_promise(&r->f, "fault-no-effect");
}

static void op_rdmsr(fz_run *fr)
{
  run *r = (run *)fr;
  spmu_lp *lp = fz_pick_lp(&r->f);
  uint32_t addr = pick_addr(r);
  const spmu_msr_info *m = spmu_inv_msr(r->f.ctx, addr);
  uint64_t v = 0, h = 0;
  int rc, rh;

  fz_begin(&r->f, "read-no-effect");
  rc = spmu_rdmsr(lp, addr, &v);
  rh = spmu_host_rdmsr(lp, addr, &h);

  if (!m && (rc != SPMU_GP || rh != SPMU_ENOMSR))
    fz_die("absent-gp: RDMSR %#x gave %s, host %s", addr, spmu_errname(rc),
           spmu_errname(rh));
  if (m && (rc != SPMU_OK || rh != SPMU_OK || v != h))
    fz_die("read-agree: %s: RDMSR %s %#llx, host %s %#llx", m->name,
           spmu_errname(rc), ull(v), spmu_errname(rh), ull(h));
}

/* ---- RDPMC ------------------------------------------------------------ */

/* The MSR of the counter ECX names, or 0 if it names none. */
static uint32_t rdpmc_msr(const spmu_inv_ctx *ctx, uint32_t ecx)
{
  uint32_t msr = 0;

  /* NetBurst (Vol. 2B RDPMC): ECX[30:0] = counter n (300H + n), ECX[31]
   * the fast read (bits 31:0, see op_rdpmc). */
  if (ctx->prof.features & SPMU_FEAT_NETBURST)
    return (ecx & 0x7FFFFFFFu) < 18 ? 0x300 + (ecx & 0x7FFFFFFFu) : 0;
  if (ecx < SPMU_MAX_GP)
    msr = MSR_PMC0 + ecx;
  else if ((ecx & 0xC0000000u) == 0x40000000u &&
           (ecx & 0x3FFFFFFFu) < SPMU_MAX_FIXED)
    msr = MSR_FIXED_CTR0 + (ecx & 0x3FFFFFFFu);
  else if (ecx == 0x20000000u)
    msr = MSR_PERF_METRICS;
  return msr && spmu_inv_msr(ctx, msr) ? msr : 0;
}

static void op_rdpmc(fz_run *fr)
{
  run *r = (run *)fr;
  spmu_lp *lp = fz_pick_lp(&r->f);
  uint8_t mode = u8(&r->f.in), ctl = u8(&r->f.in);
  uint32_t ecx, msr;
  unsigned cpl = ctl & 3;
  bool pce = (ctl >> 2) & 1;
  uint64_t v = 0, want = 0;
  int rc;

  switch (mode % 4) {
  case 0:
    ecx = u8(&r->f.in) % 10;
    break;
  case 1:
    ecx = 0x40000000u | u8(&r->f.in) % 18;
    break;
  case 2:
    ecx = 0x20000000u;
    break;
  default:
    ecx = u32(&r->f.in);
    break;
  }
  msr = rdpmc_msr(r->f.ctx, ecx);
  fz_begin(&r->f, "read-no-effect");
  rc = spmu_rdpmc(lp, ecx, cpl, pce, &v);
  if (cpl > 0 && !pce) {
    if (rc != SPMU_GP)
      fz_die("rdpmc-cpl: RDPMC ECX=%#x at CPL %u without CR4.PCE gave %s", ecx,
             cpl, spmu_errname(rc));
    return;
  }
  if (!msr) {
    if (rc != SPMU_GP)
      fz_die("rdpmc-absent: RDPMC ECX=%#x names no counter, gave %s", ecx,
             spmu_errname(rc));
    return;
  }
  spmu_host_rdmsr(lp, msr, &want);
  if ((r->f.ctx->prof.features & SPMU_FEAT_NETBURST) && (ecx & 0x80000000u))
    want &= 0xFFFFFFFFu;
  if (rc != SPMU_OK || v != want)
    fz_die("rdpmc-agree: RDPMC ECX=%#x CPL %u PCE %d: %s %#llx, MSR %#x "
           "holds %#llx",
           ecx, cpl, pce, spmu_errname(rc), ull(v), msr, ull(want));
}

/* ---- event delivery --------------------------------------------------- */

static uint32_t pick_count(run *r)
{
  switch (u8(&r->f.in) % 6) {
  case 0:
  case 1:
    return 1;
  case 2:
    return u8(&r->f.in);
  case 3:
    return u32(&r->f.in);
  case 4:
    return UINT32_MAX;
  default:
    return 0;
  }
}

typedef struct clockbuf {
  spmu_event_line lines[4];
  spmu_mem_access mem;
  spmu_branch branch;
} clockbuf;

static void build_clock(run *r, spmu_lp *lp, spmu_clock *clk, clockbuf *cb)
{
  linesel ls;
  size_t i, n = u8(&r->f.in) % 5;
  spmu_event_line *lines = cb->lines;
  spmu_mem_access *mem = &cb->mem;
  uint8_t m;

  memset(clk, 0, sizeof *clk);
  memset(cb, 0, sizeof *cb);
  known_lines(r, lp, &ls);
  for (i = 0; i < n; i++) {
    uint8_t sel = u8(&r->f.in);
    if (sel % 4 != 3 && ls.n) {
      lines[i].event = ls.ev[sel % ls.n][0];
      lines[i].umask = ls.ev[sel % ls.n][1];
    } else {
      lines[i].event = u8(&r->f.in);
      lines[i].umask = u8(&r->f.in);
    }
    lines[i].count = pick_count(r);
  }
  clk->lines = lines;
  clk->nlines = n;
  clk->cpl = u8(&r->f.in) & 3;
  clk->flags = u8(&r->f.in) & (SPMU_CLK_IN_TX | SPMU_CLK_ENCLAVE |
                               SPMU_CLK_SMM | SPMU_CLK_IA32E);
  /* Sometimes a memory access (load latency, PEBS memory fields). */
  m = u8(&r->f.in);
  if (m & 1) {
    mem->addr = GMEM_BASE + u16(&r->f.in);
    mem->source = m >> 4;
    mem->latency = u8(&r->f.in);
    mem->store = (m >> 1) & 1;
    clk->mem = mem;
  }
  /* Sometimes a taken branch (BTS, LBRs), of a type (or unknown), with
   * TSX abort and cycles. */
  if (m & 4) {
    uint8_t t = u8(&r->f.in);
    cb->branch.from = 0x400000u + (uint64_t)u16(&r->f.in);
    cb->branch.to =
        (m & 8) ? u64(&r->f.in) : 0x400000u + (uint64_t)u16(&r->f.in);
    cb->branch.predicted = (m >> 6) & 1;
    cb->branch.type = t & 7;
    cb->branch.flags = (t >> 3) & (SPMU_BRANCH_TSX_ABORT | SPMU_BRANCH_CYCLES);
    cb->branch.cycles = (t & 0x20) ? u32(&r->f.in) : t >> 6;
    clk->branch = &cb->branch;
  }
}

/* ---- last branch records ------------------------------------------------ */

#define MSR_LBR_TOS 0x1C9u
#define MSR_ARCH_LBR_CTL 0x14CEu
#define MSR_ARCH_LBR_DEPTH 0x14CFu

typedef struct lbr_view {
  int depth; /* spmu_lbr_read's answer */
  bool on;   /* recording enabled and not frozen */
  spmu_lbr_entry e[32];
} lbr_view;

/* lp's LBR stack, and whether it records: DEBUGCTL.LBR (SDM 17.4.8) or
 * IA32_LBR_CTL.LBREn, and no GLOBAL_STATUS.LBR_Frz (18.2.4.1). */
static void lbr_look(spmu_lp *lp, lbr_view *v)
{
  uint64_t dbg = 0, ctl = 0;
  const spmu_profile *p = spmu_core_profile(spmu_lp_core(lp));

  memset(v, 0, sizeof *v);
  v->depth = spmu_lbr_read(lp, v->e, 32);
  if (p->features & SPMU_FEAT_ARCH_LBR) {
    spmu_host_rdmsr(lp, MSR_ARCH_LBR_CTL, &ctl);
    v->on = ctl & 1;
  } else {
    spmu_host_rdmsr(lp, MSR_DEBUGCTL, &dbg);
    v->on = p->lbr_depth && (dbg & 1);
  }
  if (status_of(lp) & (UINT64_C(1) << 58))
    v->on = false;
}

/* The LBR invariants after a delivery: the depth is the profile's (or
 * IA32_LBR_DEPTH); TOS points into the stack (SDM 17.4.8 Table 17-4); a
 * stack that did not record (off, frozen, or no branch) is unchanged. */
static void check_lbr(spmu_lp *lp, const lbr_view *before,
                      const spmu_clock *clk)
{
  const spmu_profile *p = spmu_core_profile(spmu_lp_core(lp));
  lbr_view after;
  uint64_t v = 0;
  int want = p->lbr_depth;

  lbr_look(lp, &after);
  if (p->features & SPMU_FEAT_ARCH_LBR) {
    spmu_host_rdmsr(lp, MSR_ARCH_LBR_DEPTH, &v);
    want = (int)v;
  } else if (p->lbr_depth) {
    spmu_host_rdmsr(lp, MSR_LBR_TOS, &v);
    if (v >= p->lbr_depth)
      fz_die("lbr-tos: MSR_LASTBRANCH_TOS %llu with %u entries", ull(v),
             p->lbr_depth);
  }
  if (after.depth != want || want > 32)
    fz_die("lbr-depth: spmu_lbr_read %d, expected %d", after.depth, want);
  if ((!before->on || !clk->branch) &&
      memcmp(before->e, after.e, sizeof after.e) != 0)
    fz_die("lbr-frozen: the LBR stack changed while %s",
           clk->branch ? "off or frozen" : "no branch was taken");
}

/* Does a clock of lp store a branch record (events.h, SDM 17.4.9): a
 * branch, DEBUGCTL.TR and BTS set, BTS_OFF_OS/USR not excluding the CPL. */
static bool bts_stores(spmu_lp *lp, const spmu_clock *clk)
{
  uint64_t dbg = 0;

  spmu_host_rdmsr(lp, MSR_DEBUGCTL, &dbg);
  if (!clk->branch ||
      (dbg & (DEBUGCTL_TR | DEBUGCTL_BTS)) != (DEBUGCTL_TR | DEBUGCTL_BTS))
    return false;
  return !(dbg & (clk->cpl == 0 ? DEBUGCTL_BTS_OFF_OS : DEBUGCTL_BTS_OFF_USR));
}

/* The batched delivery, replayed one clock at a time on r->single from the
 * state in r->f.pre, must give the same state (events.h: "Costs O(counters),
 * not O(clocks)" is an implementation choice, not a change of meaning). */
static void check_single_steps(run *r, unsigned k, const spmu_clock *clk,
                               uint64_t consumed, int rc)
{
  spmu_lp *lp = spmu_core_lp(r->single, k);
  uint64_t i, one;
  int rs;

  fz_restore(&r->f, r->single, r->f.pre);
  r->mem[2].clk_flags = clk->flags;
  for (i = 0; i < consumed; i++) {
    rs = spmu_deliver(lp, clk, 1, &one);
    if (rs < 0 || one != 1)
      fz_die("batch-equivalence: single clock %llu gave %s, consumed %llu",
             ull(i + 1), spmu_errname(rs), ull(one));
    if ((rs & STOP_TICKS) && i + 1 < consumed)
      fz_die("batch-equivalence: clock %llu of %llu stops (ticks %#x) one "
             "at a time, but the batch went on",
             ull(i + 1), ull(consumed), (unsigned)rs);
    if (i + 1 == consumed && rs != rc)
      fz_die("batch-equivalence: last clock %llu: ticks %#x one at a time, "
             "%#x batched",
             ull(consumed), (unsigned)rs, (unsigned)rc);
  }
  fz_expect_same(&r->f, r->single, r->a, "batch-equivalence");
  gmem_expect_same(&r->mem[0], &r->mem[2], "batch-equivalence");
}

static void op_deliver(fz_run *fr)
{
  run *r = (run *)fr;
  spmu_lp *lp = fz_pick_lp(&r->f), *lb;
  unsigned k = spmu_lp_index(lp);
  clockbuf cb;
  spmu_clock clk;
  lbr_view lbr0;
  uint64_t d, clocks, consumed = 0, consumed_b = 0, want, acc;
  int rc, rb;
  bool stop, may_stop, must_stop, bts;

  build_clock(r, lp, &clk, &cb);
  bts = bts_stores(lp, &clk);
  fz_begin(&r->f, NULL);
  /* The deadline is taken on the core only: if it changed anything, the
   * clone below (which never had one taken) would end elsewhere. */
  acc = r->mem[0].accesses;
  if (spmu_deadline(lp, &clk, &d) != SPMU_OK)
    fz_die("deadline-pure: spmu_deadline refused a valid clock");
  if (r->mem[0].accesses != acc)
    fz_die("deadline-pure: spmu_deadline called read_mem/write_mem");
  clocks = pick_clocks(&r->f.in, d);
  if (r->f.full) {
    gmem_copy(&r->mem[1], &r->mem[0]);
    gmem_copy(&r->mem[2], &r->mem[0]);
  }
  r->mem[0].clk_flags = clk.flags;

  r->pmis = 0;
  r->pmi_foreign = false;
  lbr_look(lp, &lbr0);
  rc = spmu_deliver(lp, &clk, clocks, &consumed);
  TRACE("  LP%u deliver %llu x {%zu lines", k, ull(clocks), clk.nlines);
  {
    size_t t;
    for (t = 0; t < clk.nlines; t++)
      TRACE(" %02x/%02x*%u", clk.lines[t].event, clk.lines[t].umask,
            (unsigned)clk.lines[t].count);
  }
  TRACE(", cpl %u, flags %#x%s%s} (deadline %llu) -> ticks %#x, %llu clocks\n",
        clk.cpl, clk.flags, clk.mem ? ", mem" : "",
        clk.branch ? ", branch" : "", ull(d), (unsigned)rc, ull(consumed));
  if (rc < 0)
    fz_die("deliver-result: %s", spmu_errname(rc));
  stop = (rc & STOP_TICKS) != 0;

  /* events.h: the deadline is the clock of the next PMI or PEBS assist,
   * and delivery stops right after it, with the reason in the ticks. A
   * clock that stores a branch record (BTS on for its CPL, a branch) has
   * deadline 1; with BTINT and a full buffer it stores nothing, and the
   * delivery stops there with no tick to say why. */
  want = d < clocks ? d : clocks;
  must_stop = d < clocks || (d == clocks && d != UINT64_MAX);
  may_stop = d <= clocks;
  if ((bts && d != 1) || consumed != want || (must_stop && !stop && !bts) ||
      (stop && !may_stop))
    fz_die("deadline-agree: LP%u deadline %llu, %llu clocks%s: consumed "
           "%llu, ticks %#x",
           k, ull(d), ull(clocks), bts ? " (stores branch records)" : "",
           ull(consumed), (unsigned)rc);
  check_pmi_calls(r, lp, (rc & SPMU_TICK_PMI) != 0);
  check_lbr(lp, &lbr0, &clk);
  if (!r->f.full)
    return;

  /* Future equivalence: a clone made from the snapshot, given the same
   * clocks, ends in the same state (and deadline-pure, see above). */
  fz_restore(&r->f, r->clone, r->f.pre);
  lb = spmu_core_lp(r->clone, k);
  r->mem[1].clk_flags = clk.flags;
  rb = spmu_deliver(lb, &clk, clocks, &consumed_b);
  if (rb != rc || consumed_b != consumed)
    fz_die("future-equivalence: LP%u: %s/%llu on the core, %s/%llu on its "
           "clone",
           k, spmu_errname(rc), ull(consumed), spmu_errname(rb),
           ull(consumed_b));
  fz_save(&r->f, r->f.core, r->a);
  fz_expect_same(&r->f, r->clone, r->a, "future-equivalence/deadline-pure");
  gmem_expect_same(&r->mem[0], &r->mem[1], "future-equivalence");

  if (consumed <= SINGLE_STEP_MAX)
    check_single_steps(r, k, &clk, consumed, rc);
}

static void op_deadline(fz_run *fr)
{
  run *r = (run *)fr;
  spmu_lp *lp = fz_pick_lp(&r->f);
  clockbuf cb;
  spmu_clock clk;
  uint64_t acc = r->mem[0].accesses, d;

  build_clock(r, lp, &clk, &cb);
  fz_begin(&r->f, "deadline-pure");
  (void)spmu_deadline(lp, &clk, &d);
  if (r->mem[0].accesses != acc)
    fz_die("deadline-pure: spmu_deadline called read_mem/write_mem");
}

/* ---- snapshots, reset, INIT, CPUID ------------------------------------ */

static void op_snapshot(fz_run *fr)
{
  run *r = (run *)fr;
  uint8_t mode = u8(&r->f.in);
  size_t len = r->f.ctx->blob_len;
  int rc;

  switch (mode % 4) {
  case 0:
    fz_save(&r->f, r->f.core, r->stash);
    r->have_stash = true;
    break;
  case 1:
    if (!r->have_stash)
      break;
    rc = spmu_core_restore(r->f.core, r->stash, len);
    if (rc != SPMU_OK)
      fz_die("restore-exact: restoring an earlier snapshot: %s",
             spmu_errname(rc));
    memcpy(r->f.pre, r->stash, len);
    fz_promise(&r->f, "restore-exact");
    break;
  case 2: {
    /* pmu.h: a damaged blob is refused and leaves the core untouched. */
    size_t at = u16(&r->f.in) % len;
    uint8_t x = u8(&r->f.in) | 1;
    /* The blob is the core's own (taken on every step: the op needs it);
     * that the core is left as it was is checked on a full step. */
    fz_take_pre(&r->f);
    fz_promise(&r->f, "restore-rejects");
    memcpy(r->b, r->f.pre, len);
    r->b[at] ^= x;
    rc = spmu_core_restore(r->f.core, r->b, len);
    if (rc == SPMU_OK)
      fz_die("restore-rejects: byte %zu ^ %#x accepted", at, x);
    break;
  }
  default: {
    size_t cut = 1 + u16(&r->f.in) % len;
    fz_take_pre(&r->f);
    fz_promise(&r->f, "restore-rejects");
    rc = spmu_core_restore(r->f.core, r->f.pre, len - cut);
    if (rc == SPMU_OK)
      fz_die("restore-rejects: a blob cut to %zu of %zu bytes accepted",
             len - cut, len);
    break;
  }
  }
}

/* pmu.h: RESET puts every PMU MSR to its power-on value. */
static void op_reset(fz_run *fr)
{
  run *r = (run *)fr;
  unsigned k;
  size_t i;

  if (spmu_core_reset(r->f.core) != SPMU_OK)
    fz_die("reset-values: spmu_core_reset failed");
  for (k = 0; k < r->f.ctx->prof.threads; k++) {
    spmu_lp *lp = spmu_core_lp(r->f.core, k);
    for (i = 0; i < r->f.ctx->nmsr; i++) {
      const spmu_msr_info *m = &r->f.ctx->msr[i];
      uint64_t v = 0;
      if (m->policy == SPMU_POLICY_W1C || m->policy == SPMU_POLICY_W1S ||
          m->policy == SPMU_POLICY_COMPUTED)
        continue;
      spmu_host_rdmsr(lp, m->addr, &v);
      if (v != m->reset)
        fz_die("reset-values: LP%u %s = %#llx after RESET, power-on value "
               "%#llx",
               k, m->name, ull(v), ull(m->reset));
    }
  }
}

static void op_init(fz_run *fr)
{
  run *r = (run *)fr;
  spmu_lp *lp = fz_pick_lp(&r->f);

  fz_begin(&r->f, "init-keeps");
  if (spmu_lp_init_signal(lp) != SPMU_OK)
    fz_die("init-keeps: spmu_lp_init_signal failed");
}

static void op_cpuid(fz_run *fr)
{
  run *r = (run *)fr;
  spmu_lp *lp = fz_pick_lp(&r->f);
  uint8_t b = u8(&r->f.in);
  uint32_t leaf = b % 3 == 0 ? 0x1 : b % 3 == 1 ? 0xA : u32(&r->f.in);
  uint32_t got[4], want[4];
  int rc, rw;

  fz_begin(&r->f, "read-no-effect");
  rc = spmu_cpuid(lp, leaf, 0, got);
  rw = spmu_profile_cpuid(&r->f.ctx->prof, leaf, 0, want);

  if (rc != rw || (rc == SPMU_OK && memcmp(got, want, sizeof got) != 0))
    fz_die("cpuid-agree: leaf %#x: the LP says %s, the profile %s", leaf,
           spmu_errname(rc), spmu_errname(rw));
}

/* ---- driver-like sequences --------------------------------------------- */

/* Program one counter as perf does: disable globally, set the period,
 * program the select (or FIXED_CTR_CTRL), enable. Operands: lp, which
 * (bit 7: 16-bit period, bit 6: a fixed counter, bit 5: PMI, bit 4: freeze
 * on PMI, low bits: the counter), the period, the select's 3 bytes. */
static void op_program(fz_run *fr)
{
  run *r = (run *)fr;
  spmu_lp *lp = fz_pick_lp(&r->f);
  const spmu_profile *p = &r->f.ctx->prof;
  uint8_t which = u8(&r->f.in);
  uint64_t period =
      1 + (uint64_t)((which & 0x80) ? u16(&r->f.in) : u8(&r->f.in));
  uint64_t sel = evtsel_value(r), ctrl = 0, fctl = 0;
  unsigned i;

  spmu_host_rdmsr(lp, MSR_GLOBAL_CTRL, &ctrl);
  fz_guest_write(lp, MSR_GLOBAL_CTRL, 0);
  if ((which & 0x40) && p->fixed_mask) {
    const spmu_msr_info *m;
    for (i = which % 16; !(p->fixed_mask >> i & 1); i = (i + 1) % 16)
      ;
    m = spmu_inv_msr(r->f.ctx, MSR_FIXED_CTR0 + i);
    spmu_host_rdmsr(lp, MSR_FIXED_CTR_CTRL, &fctl);
    if (m)
      fz_guest_write(lp, m->addr,
                     (spmu_width_mask(m->width) - period + 1) &
                         spmu_width_mask(m->width));
    fctl &= ~(UINT64_C(0xF) << (4 * i));
    fctl |= (uint64_t)(3 | ((which & 0x20) ? 8 : 0)) << (4 * i);
    fz_guest_write(lp, MSR_FIXED_CTR_CTRL, fctl);
    ctrl |= UINT64_C(1) << (32 + i);
  } else if (p->gp) {
    i = which % p->gp;
    fz_guest_write(lp, MSR_PMC0 + i, (uint64_t)0 - period);
    fz_guest_write(lp, MSR_EVTSEL0 + i,
                   sel | EVTSEL_EN | ((which & 0x20) ? EVTSEL_INT : 0));
    ctrl |= UINT64_C(1) << i;
  }
  if (which & 0x10) /* freeze on PMI, counters and LBRs */
    fz_guest_write(lp, MSR_DEBUGCTL, (UINT64_C(3) << 11) | 1);
  fz_guest_write(lp, MSR_GLOBAL_CTRL, ctrl);
}

/* The PMI handler's acknowledgement: write the status back to OVF_CTRL /
 * STATUS_RESET (reserved bits dropped, as a driver would). */
static void op_ack(fz_run *fr)
{
  run *r = (run *)fr;
  spmu_lp *lp = fz_pick_lp(&r->f);
  const spmu_msr_info *m = spmu_inv_msr(r->f.ctx, MSR_GLOBAL_OVF_CTRL);

  if (m)
    fz_guest_write(lp, MSR_GLOBAL_OVF_CTRL, status_of(lp) & ~m->reserved);
}

/* A DS save area at GMEM_BASE (SDM 17.4.9) in the 64-bit
 * or the 32-bit layout, DS_AREA pointing at it, PEBS enabled on some
 * counters, the branch trace store maybe on. Operands: lp; f (bit 0:
 * 32-bit layout, bit 1: BTS on, bit 2: BTINT, bits 3-4: BTS_OFF_OS/USR,
 * bits 7:6: make reads / writes fail); PEBS index slot; PEBS maximum and
 * threshold (u16 each); reset period; PEBS_ENABLE low byte; DATA_CFG byte;
 * PEBS_ENABLE high byte; BTS index slot, maximum, threshold (a byte each).
 * The BTS buffer is at GMEM_BTS, the PEBS buffer at GMEM_PEBS. */
static void op_ds_setup(fz_run *fr)
{
  run *r = (run *)fr;
  spmu_lp *lp = fz_pick_lp(&r->f);
  gmem *g = &r->mem[0];
  uint8_t f = u8(&r->f.in);
  bool wide = !(f & 1);
  unsigned w = wide ? 8 : 4, c;
  uint64_t pbase = GMEM_BASE + GMEM_PEBS, span = GMEM_SIZE - GMEM_PEBS;
  uint64_t index = pbase + (uint64_t)(u8(&r->f.in) % 8) * 0x80;
  uint64_t max = pbase + u16(&r->f.in) % (span + 1);
  uint64_t thr = pbase + u16(&r->f.in) % (span + 1);
  uint64_t reset = (uint64_t)0 - (1 + (uint64_t)u8(&r->f.in));
  uint64_t en = u8(&r->f.in), cfg = u8(&r->f.in);
  uint64_t bbase = GMEM_BASE + GMEM_BTS, bspan = GMEM_PEBS - GMEM_BTS;
  uint64_t bindex, bmax, bthr, dbg = 0;
  const spmu_msr_info *m;

  en |= (uint64_t)u8(&r->f.in) << 32;
  bindex = bbase + (uint64_t)(u8(&r->f.in) % 16) * 3 * w;
  bmax = bbase + u8(&r->f.in) * 2 % (bspan + 1);
  bthr = bbase + u8(&r->f.in) * 2 % (bspan + 1);
  memset(g->b, 0, GMEM_PEBS);
  spmu_put_le(g->b, bbase, w);
  spmu_put_le(g->b + w, bindex, w);
  spmu_put_le(g->b + 2 * w, bmax, w);
  spmu_put_le(g->b + 3 * w, bthr, w);
  spmu_put_le(g->b + 4 * w, pbase, w);
  spmu_put_le(g->b + 5 * w, index, w);
  spmu_put_le(g->b + 6 * w, max, w);
  spmu_put_le(g->b + 7 * w, thr, w);
  /* Counter reset slots: 40H + 8c (64-bit), 20H + 8c (32-bit). The value
   * is 64 bits wide on purpose: the model must cut it to the width. */
  for (c = 0; c < SPMU_MAX_GP + SPMU_MAX_FIXED; c++)
    spmu_put_le(g->b + (wide ? 0x40 : 0x20) + 8 * c, reset, 8);
  g->fail = f >> 6;
  TRACE("  DS area (%s): BTS base/index/max/thr %#llx/%#llx/%#llx/%#llx, "
        "PEBS base/index/max/thr %#llx/%#llx/%#llx/%#llx, reset %#llx, "
        "fail %u\n",
        wide ? "64-bit" : "32-bit", ull(bbase), ull(bindex), ull(bmax),
        ull(bthr), ull(pbase), ull(index), ull(max), ull(thr), ull(reset),
        g->fail);
  fz_guest_write(lp, MSR_DS_AREA, GMEM_BASE);
  /* BTS on (TR + BTS), BTINT, BTS_OFF_OS, BTS_OFF_USR from f bits 1-4. */
  m = spmu_inv_msr(r->f.ctx, MSR_DEBUGCTL);
  spmu_host_rdmsr(lp, MSR_DEBUGCTL, &dbg);
  dbg &= ~(DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTINT | DEBUGCTL_BTS_OFF_OS |
           DEBUGCTL_BTS_OFF_USR);
  dbg |= (f & 2) ? DEBUGCTL_TR | DEBUGCTL_BTS : 0;
  dbg |= (f & 4) ? DEBUGCTL_BTINT : 0;
  dbg |= (f & 8) ? DEBUGCTL_BTS_OFF_OS : 0;
  dbg |= (f & 16) ? DEBUGCTL_BTS_OFF_USR : 0;
  if (m)
    fz_guest_write(lp, MSR_DEBUGCTL, dbg & ~m->reserved);
  m = spmu_inv_msr(r->f.ctx, MSR_PEBS_ENABLE);
  if (m)
    fz_guest_write(lp, MSR_PEBS_ENABLE, en & ~m->reserved);
  m = spmu_inv_msr(r->f.ctx, MSR_PEBS_DATA_CFG);
  if (m)
    fz_guest_write(lp, MSR_PEBS_DATA_CFG,
                   ((cfg & 0xF) | (cfg >> 4) << 24) & ~m->reserved);
}

/* ---- the run ---------------------------------------------------------- */

static const fz_op op_table[16] = {
    {"wrmsr", op_wrmsr},           {"ds_setup", op_ds_setup},
    {"rdmsr", op_rdmsr},           {"rdpmc", op_rdpmc},
    {"host_wrmsr", op_host_wrmsr}, {"deliver", op_deliver},
    {"deliver", op_deliver},       {"deliver", op_deliver},
    {"deadline", op_deadline},     {"snapshot", op_snapshot},
    {"reset", op_reset},           {"init", op_init},
    {"cpuid", op_cpuid},           {"program", op_program},
    {"program", op_program},       {"ack", op_ack},
};

static const fz_steps steps = {
    .ops = op_table,
    .nops = 16,
    .max_steps = MAX_STEPS,
    .sample = SAMPLE,
};

/* The guest memory of the three cores, kept across inputs (cleared for
 * each). */
static gmem mems[3];

static void run_init(run *r, reader in, const uint8_t *data, size_t size,
                     const spmu_profile *p)
{
  spmu_core *cores[3];
  unsigned i;

  memset(r, 0, sizeof *r);
  fz_run_init(&r->f, in, data, size, p);
  r->clone = r->f.spare[0];
  r->single = r->f.spare[1];
  r->a = r->f.buf[0];
  r->b = r->f.buf[1];
  r->stash = r->f.buf[2];
  r->mem = mems;
  memset(mems, 0, sizeof mems);
  cores[0] = r->f.core;
  cores[1] = r->clone;
  cores[2] = r->single;
  for (i = 0; i < 3; i++) {
    spmu_host host = {.opaque = &r->mem[i],
                      .pmi = on_pmi,
                      .read_mem = read_mem,
                      .write_mem = write_mem,
                      .machine_state = machine_state};
    r->mem[i].r = r;
    spmu_core_set_host(cores[i], &host);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  reader in = {data, size};
  spmu_profile p;
  run r;

  fz_at = (fz_where){.harness = "fuzz_model"};
  if (!fz_profile_perturbed(&in, &p))
    return 0; /* an impossible profile: nothing to run */
  TRACE("profile %s\n", p.name);
  run_init(&r, in, data, size, &p);
  fz_run_steps(&r.f, &steps);
  return 0;
}

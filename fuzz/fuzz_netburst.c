/* SPDX-License-Identifier: MIT */
/* fuzz_netburst: the NetBurst PMU (SDM 18.15). An input picks
 * pentium4 or pentium4-noht and a sequence of steps on either logical
 * processor: WRMSR of any NetBurst MSR (ESCRs, CCCRs, counters, PEBS
 * metrics, DEBUGCTLA) with values built from the event table or raw,
 * RDPMC, and spmu_deliver_netburst with random lines, retiring uops and
 * clock counts up to UINT64_MAX. Properties:
 *   rdpmc-agree, rdpmc-fast-read, rdpmc-absent-counter  RDPMC n (and the
 *                   fast read, ECX[31]: bits 31:0) agrees with RDMSR
 *                   300H + n; n >= 18 faults (SDM Vol. 2B RDPMC)
 *   deliver-result  a delivery consumes 1 to the clocks asked for
 *   batch-equals-single-clocks, batch-pmis, batch-ran-past-a-pmi  on a
 *                   full step (harness.h: a sample of steps), a delivery
 *                   of K <= 64 clocks agrees with a clone of the core
 *                   given the same clocks one at a time (state bytes,
 *                   consumed count, PMIs, never past a PMI)
 *   and on a full step the invariants of invariants.h.
 *
 * Input layout: byte 0 bit 0 picks pentium4 (1) or pentium4-noht (0);
 * then steps, up to MAX_STEPS: an LP byte, an opcode byte (mod 4:
 * op_table), the operands the op reads. */
#include <string.h>

#include "harness.h"

#define MAX_STEPS 128
#define SINGLE_MAX 64 /* clone-compare batches up to this many clocks */
#define SAMPLE 64     /* about one step in SAMPLE is full (harness.h) */

/* The two presets, by byte 0 bit 0. */
static const char *const presets[] = {"pentium4-noht", "pentium4"};

static unsigned pmis[2];

static void on_pmi(void *opaque, spmu_lp *lp)
{
  (void)opaque;
  pmis[spmu_lp_index(lp) & 1]++;
}

/* A value for MSR addr: mostly valid field values from the event table,
 * sometimes raw bits (which may #GP: also a path worth taking). */
static uint64_t value_for(reader *in, uint32_t addr)
{
  unsigned kind = (unsigned)uN(in, 1) % 4;
  uint64_t raw = uN(in, 8);

  if (kind == 0)
    return raw;
  if (addr >= 0x3A0 && addr <= 0x3E1) { /* an ESCR */
    const spmu_nb_event *e = spmu_nb_event_at((unsigned)raw % 64);
    if (e)
      return (uint64_t)e->evsel << 25 | (raw >> 8 & 0xffff) << 9 |
             (raw >> 24 & 0x1ff);
  }
  if (addr >= 0x360 && addr <= 0x371) /* a CCCR: the defined bits */
    return raw & 0xFFFFF800ULL;
  if (addr >= 0x300 && addr <= 0x311) /* a counter: near the top */
    return (UINT64_C(0xFFFFFFFFFF) - (raw & 0xff)) & 0xFFFFFFFFFFULL;
  return raw & 0xffffffff;
}

static int deliver(spmu_lp *lp, const spmu_nb_clock *clk, uint64_t clocks,
                   uint64_t *used)
{
  *used = 0;
  return spmu_deliver_netburst(lp, clk, clocks, used);
}

static void op_wrmsr(fz_run *r)
{
  uint32_t addr = r->ctx->msr[uN(&r->in, 1) % r->ctx->nmsr].addr;

  (void)spmu_wrmsr(r->lp, addr, value_for(&r->in, addr));
}

/* RDPMC agrees with RDMSR (Vol. 2B RDPMC: ECX[30:0] = counter n at
 * 300H + n, ECX[31] the fast read of bits 31:0). */
static void op_rdpmc(fz_run *r)
{
  uint32_t n = (uint32_t)uN(&r->in, 1) % 20;
  uint64_t v = 0, m = 0;
  int rc = spmu_rdpmc(r->lp, n, 0, false, &v);

  if (n < 18) {
    if (rc != SPMU_OK || spmu_rdmsr(r->lp, 0x300 + n, &m) != SPMU_OK || v != m)
      fz_die("rdpmc-agree: RDPMC %u: %s %#llx, RDMSR %#llx", n,
             spmu_errname(rc), ull(v), ull(m));
    if (spmu_rdpmc(r->lp, n | 0x80000000u, 0, false, &v) != SPMU_OK ||
        v != (m & 0xffffffffu))
      fz_die("rdpmc-fast-read: RDPMC %#x: %#llx, RDMSR %#llx", n | 0x80000000u,
             ull(v), ull(m));
  } else if (rc != SPMU_GP) {
    fz_die("rdpmc-absent-counter: RDPMC %u gave %s", n, spmu_errname(rc));
  }
}

/* The clock the input describes (lines and retire into the buffers). */
static uint64_t build_clock(reader *in, spmu_nb_clock *clk,
                            spmu_nb_line lines[4], spmu_nb_retire *ret)
{
  unsigned i, nl = (unsigned)uN(in, 1) % 5;
  uint64_t clocks = uN(in, 1);

  memset(clk, 0, sizeof *clk);
  memset(ret, 0, sizeof *ret);
  clk->lines = lines;
  for (i = 0; i < nl; i++) {
    lines[i].unit = (uint8_t)(uN(in, 1) % 24);
    lines[i].evsel = (uint8_t)(uN(in, 1) % 64);
    lines[i].bit = (uint8_t)(uN(in, 1) % 16);
    lines[i].count = (uint32_t)(uN(in, 1) % 6);
  }
  clk->nlines = nl;
  if (uN(in, 1) & 1) {
    ret->uops = (uint32_t)uN(in, 1) % 5;
    ret->instrs = (uint32_t)uN(in, 1) % 4;
    ret->bogus = (uint8_t)(uN(in, 1) & 1);
    ret->kind = (uint8_t)uN(in, 1);
    ret->replay = (uint16_t)uN(in, 2);
    clk->retire = ret;
    clk->nretire = 1;
  }
  clk->cpl = (uint8_t)(uN(in, 1) % 4);
  clk->inactive = (uint8_t)(uN(in, 1) % 4);
  return (clocks & 0x80) ? UINT64_MAX - (clocks & 0x7f)
                         : 1 + clocks % SINGLE_MAX;
}

/* The batch, replayed one clock at a time on the clone (restored from
 * r->pre), must end in the same state with the same PMIs. */
static void check_single_clocks(fz_run *r, const spmu_nb_clock *clk,
                                uint64_t used, unsigned batch_pmis)
{
  spmu_lp *cl = spmu_core_lp(r->spare[0], spmu_lp_index(r->lp));
  uint64_t done = 0, u;
  unsigned pm = pmis[0] + pmis[1];

  while (done < used) {
    if (deliver(cl, clk, 1, &u) < 0 || u != 1)
      fz_die("single-result: clock %llu of %llu", ull(done + 1), ull(used));
    done++;
    if (pmis[0] + pmis[1] != pm && done < used)
      fz_die("batch-ran-past-a-pmi: a PMI at clock %llu of %llu", ull(done),
             ull(used));
  }
  if (pmis[0] + pmis[1] - pm != batch_pmis)
    fz_die("batch-pmis: %u PMIs one clock at a time, %u batched",
           pmis[0] + pmis[1] - pm, batch_pmis);
  fz_save(r, r->core, r->buf[0]);
  fz_expect_same(r, r->spare[0], r->buf[0], "batch-equals-single-clocks");
}

/* spmu_deliver_netburst; on a full step, compared with single clocks on
 * a clone. */
static void op_deliver(fz_run *r)
{
  spmu_nb_line lines[4];
  spmu_nb_retire ret;
  spmu_nb_clock clk;
  uint64_t clocks = build_clock(&r->in, &clk, lines, &ret), used = 0;
  bool compare = r->full && clocks <= SINGLE_MAX;
  unsigned pm;
  int rc;

  if (compare) {
    fz_save(r, r->core, r->pre);
    fz_restore(r, r->spare[0], r->pre);
  }
  pm = pmis[0] + pmis[1];
  rc = deliver(r->lp, &clk, clocks, &used);
  TRACE("  LP%u deliver_netburst %llu clocks, %u lines -> ticks %#x, %llu "
        "clocks\n",
        spmu_lp_index(r->lp), ull(clocks), (unsigned)clk.nlines, (unsigned)rc,
        ull(used));
  if (rc < 0 || used == 0 || used > clocks)
    fz_die("deliver-result: %s, %llu of %llu clocks", spmu_errname(rc),
           ull(used), ull(clocks));
  if (compare)
    check_single_clocks(r, &clk, used, pmis[0] + pmis[1] - pm);
}

static const fz_op op_table[4] = {
    {"wrmsr", op_wrmsr},
    {"rdpmc", op_rdpmc},
    {"deliver", op_deliver},
    {"deliver", op_deliver},
};

static const fz_steps steps = {
    .ops = op_table,
    .nops = 4,
    .max_steps = MAX_STEPS,
    .lp_first = true,
    .sample = SAMPLE,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  reader in = {data, size};
  spmu_host h = {.pmi = on_pmi};
  spmu_profile p;
  fz_run r;

  fz_at = (fz_where){.harness = "fuzz_netburst"};
  if (!fz_profile_of(&in, presets, 2, &p))
    fz_die("a NetBurst preset does not parse");
  fz_run_init(&r, in, data, size, &p);
  spmu_core_set_host(r.core, &h);
  spmu_core_set_host(r.spare[0], &h);
  fz_run_steps(&r, &steps);
  return 0;
}

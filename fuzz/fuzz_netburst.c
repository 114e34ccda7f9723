/* fuzz_netburst: the NetBurst PMU (issue 7, harness 4). An input picks
 * pentium4 or pentium4-noht and a sequence of steps on either logical
 * processor: WRMSR of any NetBurst MSR (ESCRs, CCCRs, counters, PEBS
 * metrics, DEBUGCTLA) with values built from the event table or raw,
 * RDPMC, and spmu_deliver_netburst with random lines, retiring uops and
 * clock counts up to UINT64_MAX. After every step:
 *   - the invariants of fuzz/invariants.h;
 *   - a delivery of K clocks agrees with a clone of the core given the
 *     same clocks one at a time (state bytes, consumed count, PMIs);
 *   - RDPMC n (and the fast read) agrees with RDMSR 300H + n. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "invariants.h"

#define MAX_STEPS 128
#define SINGLE_MAX 64 /* clone-compare batches up to this many clocks */

static unsigned pmis[2];

static void on_pmi(void *opaque, spmu_lp *lp)
{
  (void)opaque;
  pmis[spmu_lp_index(lp) & 1]++;
}

static void die(const char *preset, unsigned step, const char *what)
{
  fprintf(stderr, "fuzz_netburst: %s, step %u: %s\n", preset, step, what);
  abort();
}

/* A value for MSR addr: mostly valid field values from the event table,
 * sometimes raw bits (which may #GP: also a path worth taking). */
static uint64_t value_for(reader *in, const spmu_profile *p, uint32_t addr)
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
  (void)p;
  return raw & 0xffffffff;
}

static int deliver(spmu_lp *lp, const spmu_nb_clock *clk, uint64_t clocks,
                   uint64_t *used)
{
  *used = 0;
  return spmu_deliver_netburst(lp, clk, clocks, used);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  reader in = {data, size};
  const char *preset = (uN(&in, 1) & 1) ? "pentium4" : "pentium4-noht";
  spmu_profile p;
  spmu_inv_ctx ctx;
  spmu_core *core, *clone;
  spmu_host h = {.pmi = on_pmi};
  uint32_t addrs[SPMU_INV_MAX_MSRS];
  size_t naddr;
  unsigned step;
  char why[256];

  if (spmu_profile_parse(preset, &p, NULL, 0) != SPMU_OK ||
      spmu_inv_ctx_init(&ctx, &p) != SPMU_OK)
    abort();
  naddr = spmu_msr_list(&p, addrs, SPMU_INV_MAX_MSRS);
  if (spmu_core_new(&p, &core) != SPMU_OK ||
      spmu_core_new(&p, &clone) != SPMU_OK)
    abort();
  spmu_core_set_host(core, &h);
  spmu_core_set_host(clone, &h);

  for (step = 0; step < MAX_STEPS && in.n; step++) {
    spmu_lp *lp = spmu_core_lp(core, (unsigned)uN(&in, 1) %
                                         spmu_core_threads(core));
    unsigned op = (unsigned)uN(&in, 1) % 4;

    if (op == 0) { /* WRMSR */
      uint32_t addr = addrs[uN(&in, 1) % naddr];
      (void)spmu_wrmsr(lp, addr, value_for(&in, &p, addr));
    } else if (op == 1) { /* RDPMC agrees with RDMSR */
      uint32_t n = (uint32_t)uN(&in, 1) % 20;
      uint64_t v = 0, m = 0;
      int rc = spmu_rdpmc(lp, n, 0, false, &v);
      if (n < 18) {
        if (rc != SPMU_OK || spmu_rdmsr(lp, 0x300 + n, &m) != SPMU_OK ||
            v != m)
          die(preset, step, "rdpmc-agree");
        if (spmu_rdpmc(lp, n | 0x80000000u, 0, false, &v) != SPMU_OK ||
            v != (m & 0xffffffffu))
          die(preset, step, "rdpmc-fast-read");
      } else if (rc != SPMU_GP) {
        die(preset, step, "rdpmc-absent-counter");
      }
    } else { /* deliver, compared with single clocks on a clone */
      spmu_nb_line lines[4];
      spmu_nb_retire ret = {0};
      spmu_nb_clock clk = {.lines = lines};
      unsigned i, nl = (unsigned)uN(&in, 1) % 5;
      uint64_t clocks = uN(&in, 1), used = 0, done = 0, u;
      size_t len;
      unsigned pm[2];
      int rc;

      for (i = 0; i < nl; i++) {
        lines[i].unit = (uint8_t)(uN(&in, 1) % 24);
        lines[i].evsel = (uint8_t)(uN(&in, 1) % 64);
        lines[i].bit = (uint8_t)(uN(&in, 1) % 16);
        lines[i].count = (uint32_t)(uN(&in, 1) % 6);
      }
      clk.nlines = nl;
      if (uN(&in, 1) & 1) {
        ret.uops = (uint32_t)uN(&in, 1) % 5;
        ret.instrs = (uint32_t)uN(&in, 1) % 4;
        ret.bogus = (uint8_t)(uN(&in, 1) & 1);
        ret.kind = (uint8_t)uN(&in, 1);
        ret.replay = (uint16_t)uN(&in, 2);
        clk.retire = &ret;
        clk.nretire = 1;
      }
      clk.cpl = (uint8_t)(uN(&in, 1) % 4);
      clk.inactive = (uint8_t)(uN(&in, 1) % 4);
      clocks = (clocks & 0x80) ? UINT64_MAX - (clocks & 0x7f)
                               : 1 + clocks % SINGLE_MAX;
      if (clocks <= SINGLE_MAX) {
        if (spmu_inv_save(&ctx, core, ctx.blob_b, why, sizeof why) ||
            spmu_core_restore(clone, ctx.blob_b, ctx.blob_len) != SPMU_OK)
          die(preset, step, "clone");
      }
      memcpy(pm, pmis, sizeof pm);
      rc = deliver(lp, &clk, clocks, &used);
      if (rc < 0 || used == 0 || used > clocks)
        die(preset, step, "deliver-result");
      if (clocks <= SINGLE_MAX) {
        spmu_lp *cl = spmu_core_lp(clone, spmu_lp_index(lp));
        unsigned batch_pmis = pmis[0] + pmis[1] - pm[0] - pm[1];
        memcpy(pm, pmis, sizeof pm);
        while (done < used) {
          if (deliver(cl, &clk, 1, &u) < 0 || u != 1)
            die(preset, step, "single-result");
          done++;
          if (pmis[0] + pmis[1] != pm[0] + pm[1] && done < used)
            die(preset, step, "batch-ran-past-a-pmi");
        }
        if (pmis[0] + pmis[1] - pm[0] - pm[1] != batch_pmis)
          die(preset, step, "batch-pmis");
        if (spmu_inv_save(&ctx, core, ctx.blob_a, why, sizeof why) ||
            spmu_inv_save(&ctx, clone, ctx.blob_b, why, sizeof why))
          die(preset, step, why);
        len = ctx.blob_len;
        if (memcmp(ctx.blob_a, ctx.blob_b, len) != 0)
          die(preset, step, "batch-equals-single-clocks");
      }
    }
    if (spmu_inv_check(&ctx, core, why, sizeof why) != 0)
      die(preset, step, why);
  }
  spmu_core_free(clone);
  spmu_core_free(core);
  spmu_inv_ctx_fini(&ctx);
  return 0;
}

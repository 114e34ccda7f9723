/* SPDX-License-Identifier: MIT */
/* The model specifications: cachegrind's --I1/--D1/--LL triples (defaults
 * for the ones left out, cachegrind's checks and refusals) and the part
 * configurations; and the timing model's cycles. */
#include "uarch_test.h"

static spmu_uarch_config parse_ok(const char *spec)
{
  spmu_uarch_config c;
  char err[256];

  if (spmu_uarch_config_parse(spec, &c, err, sizeof err) != 0)
    fail_msg("%s: %s", spec, err);
  return c;
}

static void assert_geom(spmu_uarch_geom g, uint32_t size, uint32_t ways,
                        uint32_t line)
{
  assert_int_equal(g.size, size);
  assert_int_equal(g.ways, ways);
  assert_int_equal(g.line, line);
}

/* The three triples, in any order, are size, assoc, line size. */
static void test_cachegrind_triples(void **state)
{
  spmu_uarch_config c =
      parse_ok("cachegrind:LL=8388608,16,64:I1=32768,8,64:D1=16384,4,32");

  (void)state;
  assert_int_equal(c.mode, SPMU_UARCH_CACHEGRIND);
  assert_string_equal(c.name, "cachegrind");
  assert_geom(c.l1i, 32768, 8, 64);
  assert_geom(c.l1d, 16384, 4, 32);
  assert_geom(c.llc, 8388608, 16, 64);
  assert_int_equal(c.l2.size, 0);
}

/* A triple left out takes cachegrind's x86/amd64 default: I1 and D1
 * 65536,2,64, LL 262144,8,64. */
static void test_cachegrind_defaults(void **state)
{
  spmu_uarch_config c = parse_ok("cachegrind");

  (void)state;
  assert_geom(c.l1i, 65536, 2, 64);
  assert_geom(c.l1d, 65536, 2, 64);
  assert_geom(c.llc, 262144, 8, 64);
  c = parse_ok("cachegrind:D1=4096,2,64");
  assert_geom(c.l1i, 65536, 2, 64);
  assert_geom(c.l1d, 4096, 2, 64);
  assert_geom(c.llc, 262144, 8, 64);
}

/* The part table: Skylake client, L1D 32 KB 8-way 64 B, L1I 32 KB 8-way,
 * L2 256 KB 4-way, LLC 8 MB 16-way inclusive. */
static void test_part_skylake(void **state)
{
  spmu_uarch_config c = parse_ok("part:skylake");

  (void)state;
  assert_int_equal(c.mode, SPMU_UARCH_PART);
  assert_string_equal(c.name, "skylake");
  assert_geom(c.l1d, 32768, 8, 64);
  assert_geom(c.l1i, 32768, 8, 64);
  assert_geom(c.l2, 262144, 4, 64);
  assert_geom(c.llc, 8388608, 16, 64);
  assert_int_equal(c.llc_inclusive, 1);
  for (unsigned i = 0; spmu_uarch_part_name(i); i++) {
    char spec[64];
    spmu_uarch *u;

    snprintf(spec, sizeof spec, "part:%s", spmu_uarch_part_name(i));
    u = new_model(spec);
    spmu_uarch_free(u);
  }
}

/* Ice Lake client: L1D 48 KB 12-way (64 sets, CPUID leaf 04H), L1I 32 KB
 * 8-way, L2 512 KB 8-way, LLC 8 MB 16-way inclusive; 5-wide issue. */
static void test_part_icelake(void **state)
{
  spmu_uarch_config c = parse_ok("part:icelake");

  (void)state;
  assert_int_equal(c.mode, SPMU_UARCH_PART);
  assert_string_equal(c.name, "icelake");
  assert_geom(c.l1d, 49152, 12, 64);
  assert_geom(c.l1i, 32768, 8, 64);
  assert_geom(c.l2, 524288, 8, 64);
  assert_geom(c.llc, 8388608, 16, 64);
  assert_int_equal(c.llc_inclusive, 1);
  assert_int_equal(c.timing.issue_width, 5);
}

/* Sapphire Rapids: L1D 48 KB 12-way, L1I 32 KB 8-way, L2 2 MB 16-way, one
 * core's LLC slice of 1.875 MB 15-way (2048 sets), non-inclusive. */
static void test_part_sapphirerapids(void **state)
{
  spmu_uarch_config c = parse_ok("part:sapphirerapids");
  spmu_uarch *u;

  (void)state;
  assert_string_equal(c.name, "sapphirerapids");
  assert_geom(c.l1d, 49152, 12, 64);
  assert_geom(c.l1i, 32768, 8, 64);
  assert_geom(c.l2, 2097152, 16, 64);
  assert_geom(c.llc, 1966080, 15, 64);
  assert_int_equal(c.llc.size / c.llc.line / c.llc.ways, 2048);
  assert_int_equal(c.llc_inclusive, 0);
  assert_int_equal(c.timing.issue_width, 6);
  /* 17 lines 2 MB apart share one set of L1D (12 ways), L2 (16) and the
   * LLC (15): walked twice, every access of both passes misses every
   * level (true LRU), with no back-invalidation (non-inclusive). */
  u = new_model("part:sapphirerapids");
  for (int pass = 0; pass < 2; pass++)
    for (uint64_t i = 0; i < 17; i++)
      spmu_uarch_access(u, i * 2097152, 8, 0, 0);
  assert_int_equal(counts_of(u).l2_misses, 34);
  assert_int_equal(counts_of(u).llc_misses, 34);
  assert_int_equal(counts_of(u).dr_served_mem, 34);
  assert_int_equal(counts_of(u).llc_back_invalidations, 0);
  spmu_uarch_free(u);
}

/* Each refusal, with its message (cachegrind's checks, in its order). */
static void test_errors(void **state)
{
  static const struct {
    const char *spec, *msg;
  } bad[] = {
      {"cachegrind:I1=24576,8,64",
       "I1: Cache set count is not a power of two."},
      {"cachegrind:D1=24576,8,48",
       "D1: Cache line size is not a power of two."},
      {"cachegrind:LL=65536,8,8", "LL: Cache line size is too small."},
      {"cachegrind:I1=64,1,64", "I1: Cache size <= line size."},
      {"cachegrind:D1=32768,0,64",
       "D1: Cache associativity must be at least 1."},
      {"cachegrind:LL=4294967296,16,64",
       "LL: one of the cache parameters was too large and overflowed"},
      {"cachegrind:I1=32768,8",
       "I1: bad argument '32768,8' (expected size,assoc,line_size)"},
      {"cachegrind:I1=32768,8,64,1",
       "I1: bad argument '32768,8,64,1' (expected size,assoc,line_size)"},
      {"cachegrind:I1=-32768,8,64",
       "I1: bad argument '-32768,8,64' (expected size,assoc,line_size)"},
      {"cachegrind:I1=32768,8,64:I1=32768,8,64", "I1 given twice"},
      {"cachegrind:L2=262144,8,64",
       "unknown cachegrind field 'L2' (expected I1=, D1= or LL=)"},
      {"cachegrind:I1", "unknown cachegrind field 'I1' (expected I1=, D1= or "
                        "LL=)"},
      {"cachegrindx", "expected ':' after 'cachegrind', not 'x'"},
      {"part:nosuch",
       "unknown part 'nosuch' (known: skylake, haswell, sandybridge, "
       "icelake, sapphirerapids)"},
      {"gshare", "unknown model 'gshare' (expected cachegrind[:I1=S,A,L]"
                 "[:D1=S,A,L][:LL=S,A,L] or part:NAME)"},
  };
  spmu_uarch_config c;
  char err[256];

  (void)state;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(spmu_uarch_config_parse(bad[i].spec, &c, err, sizeof err),
                     -1);
    assert_string_equal(err, bad[i].msg);
  }
}

/* spmu_uarch_new checks a configuration built by hand as the parser does. */
static void test_new_refuses_bad_config(void **state)
{
  spmu_uarch_config c = parse_ok("part:skylake");
  char err[128];

  (void)state;
  c.l2.line = 128;
  assert_null(spmu_uarch_new(&c, err, sizeof err));
  assert_string_equal(err, "a part's caches must share one line size");
  c = parse_ok("part:skylake");
  c.llc.ways = 12; /* 8 MB / 64 / 12: not a whole power of two */
  assert_null(spmu_uarch_new(&c, err, sizeof err));
  assert_string_equal(err, "Cache set count is not a power of two.");
}

/* The timing model: ceil(instructions / width) + per-served-level latency
 * + mispredicts * penalty; ref = core * num / den. Cachegrind's
 * configuration: width 4, LL hit 12, memory 200, mispredict 15, 1/1. */
static void test_timing_cycles(void **state)
{
  spmu_uarch_config c = parse_ok("cachegrind:D1=4096,2,64:LL=65536,4,64");
  spmu_uarch *u;
  spmu_uarch_counts n;

  (void)state;
  u = spmu_uarch_new(&c, NULL, 0);
  spmu_uarch_retire(u, 10);
  spmu_uarch_access(u, 0x10000000, 8, 0, 0);        /* memory: 200 */
  spmu_uarch_access(u, 0x10000000 + 2048, 8, 0, 0); /* memory: 200 */
  spmu_uarch_access(u, 0x10000000 + 4096, 8, 0, 0); /* memory, evicts 1st */
  spmu_uarch_access(u, 0x10000000, 8, 0, 0);        /* LL: 12 */
  spmu_uarch_branch(u, 0x401000, 0x401002, SPMU_UARCH_BR_COND, 1, 0); /* 15 */
  n = counts_of(u);
  assert_int_equal(n.served_mem, 3);
  assert_int_equal(n.served_llc, 1);
  assert_int_equal(n.core_cycles, 3 + 3 * 200 + 12 + 15);
  assert_int_equal(n.ref_cycles, n.core_cycles);
  spmu_uarch_free(u);
  /* A reference clock at 3/2 of the core's: rounded down. */
  c.timing.ref_num = 3;
  c.timing.ref_den = 2;
  u = spmu_uarch_new(&c, NULL, 0);
  spmu_uarch_retire(u, 5); /* 2 cycles */
  spmu_uarch_access(u, 0x10000000, 8, 0, 0);
  n = counts_of(u);
  assert_int_equal(n.core_cycles, 202);
  assert_int_equal(n.ref_cycles, 303);
  spmu_uarch_free(u);
}

/* part:skylake's memory-level parallelism (uarch/timing.c): ROB 224,
 * 12 fill buffers, memory 250 cycles, LLC 42. Each data access below
 * reads a new line 64 KB from the last (a new L1D, L2 and LLC set each
 * time: every one is served by memory). */
#define MLP_BASE 0x40000000u
#define MLP_STRIDE 0x10000u

static spmu_uarch_counts mlp_walk(spmu_uarch *u, unsigned misses,
                                  unsigned insns_between)
{
  for (unsigned i = 0; i < misses; i++) {
    spmu_uarch_access(u, MLP_BASE + (uint64_t)i * MLP_STRIDE, 8, 0, 0);
    spmu_uarch_retire(u, insns_between);
  }
  return counts_of(u);
}

/* Rule: 12 independent misses within one ROB window pay one latency. */
static void test_mlp_one_window_one_latency(void **state)
{
  spmu_uarch *u = new_model("part:skylake");
  spmu_uarch_counts n;

  (void)state;
  n = mlp_walk(u, 12, 10); /* indices 0, 10, ... 110: one window */
  assert_int_equal(n.served_mem, 12);
  assert_int_equal(n.long_stall, 250);
  assert_int_equal(n.core_cycles, 120 / 4 + 250);
  spmu_uarch_free(u);
}

/* Rule: at most fill_buffers misses a group: the 13th opens a second. */
static void test_mlp_fill_buffers_bound_a_group(void **state)
{
  spmu_uarch *u = new_model("part:skylake");

  (void)state;
  assert_int_equal(mlp_walk(u, 13, 10).long_stall, 2 * 250);
  spmu_uarch_reset(u);
  assert_int_equal(mlp_walk(u, 25, 1).long_stall, 3 * 250);
  spmu_uarch_free(u);
}

/* Rule: a miss 224 or more instructions after its group's first opens a
 * new group: misses 224 apart each pay in full; 223 apart, two share. */
static void test_mlp_rob_window(void **state)
{
  spmu_uarch *u = new_model("part:skylake");

  (void)state;
  assert_int_equal(mlp_walk(u, 4, 224).long_stall, 4 * 250);
  spmu_uarch_reset(u);
  assert_int_equal(mlp_walk(u, 4, 223).long_stall, 2 * 250);
  spmu_uarch_free(u);
}

/* Rule: a fetch served by memory pays in full and leaves the data
 * accesses' group open: the data access after it still joins. */
static void test_mlp_fetch_pays_in_full(void **state)
{
  spmu_uarch *u = new_model("part:skylake");
  spmu_uarch_counts n;

  (void)state;
  spmu_uarch_access(u, MLP_BASE, 8, 0, 0);      /* memory: 250 */
  spmu_uarch_access(u, 0x7000000, 4, 0, 1);     /* a fetch: 250 more */
  spmu_uarch_access(u, MLP_BASE + 64, 8, 0, 0); /* joins: nothing */
  n = counts_of(u);
  assert_int_equal(n.served_mem, 3);
  assert_int_equal(n.long_stall, 2 * 250);
  spmu_uarch_free(u);
}

/* Rule: a group pays its longest latency: an LLC hit opens a group at 42; a
 * memory access joining it adds 250 - 42. Line A is brought in, pushed out of
 * L1D (8-way) and L2 (4-way) by lines 4 KB x 16 apart that share their sets,
 * not the LLC's (8192 sets: they go to other LLC sets). */
static void test_mlp_llc_then_memory(void **state)
{
  spmu_uarch *u = new_model("part:skylake");
  spmu_uarch_counts n0, n;

  (void)state;
  spmu_uarch_access(u, MLP_BASE, 8, 0, 0);
  for (unsigned i = 1; i <= 8; i++)
    spmu_uarch_access(u, MLP_BASE + (uint64_t)i * MLP_STRIDE, 8, 0, 0);
  spmu_uarch_retire(u, 1000); /* the next group starts afresh */
  n0 = counts_of(u);
  assert_int_equal(spmu_uarch_access(u, MLP_BASE, 8, 0, 0), SPMU_UARCH_LLC);
  assert_int_equal(spmu_uarch_access(u, MLP_BASE + 0x1000040, 8, 0, 0),
                   SPMU_UARCH_MEM);
  n = counts_of(u);
  assert_int_equal(n.long_stall - n0.long_stall, 250);
  spmu_uarch_free(u);
}

/* The cachegrind configuration has no overlap: each miss pays in full. */
static void test_mlp_none_in_cachegrind(void **state)
{
  spmu_uarch *u = new_model("cachegrind");

  (void)state;
  assert_int_equal(mlp_walk(u, 12, 1).long_stall, 12 * 200);
  spmu_uarch_free(u);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cachegrind_triples),
      cmocka_unit_test(test_cachegrind_defaults),
      cmocka_unit_test(test_part_skylake),
      cmocka_unit_test(test_part_icelake),
      cmocka_unit_test(test_part_sapphirerapids),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_new_refuses_bad_config),
      cmocka_unit_test(test_timing_cycles),
      cmocka_unit_test(test_mlp_one_window_one_latency),
      cmocka_unit_test(test_mlp_fill_buffers_bound_a_group),
      cmocka_unit_test(test_mlp_rob_window),
      cmocka_unit_test(test_mlp_fetch_pays_in_full),
      cmocka_unit_test(test_mlp_llc_then_memory),
      cmocka_unit_test(test_mlp_none_in_cachegrind),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

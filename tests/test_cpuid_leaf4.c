/* CPUID leaf 04H, deterministic cache parameters, as the presets with a
 * part enumerate it (SDM Vol. 2A CPUID, Table 3-8, leaf 04H), through
 * spmu_profile_cpuid and through a core's spmu_cpuid; and the same
 * geometry as the modelled micro-architecture of the same name
 * (uarch/config.c, read through spmu_uarch_config_parse("part:NAME")), so
 * that the two cannot drift apart.
 *
 * Without an argument: the rules and the exact registers. With a preset's
 * name: that preset against its uarch part; exit status 77 (skipped, said
 * on stderr) when uarch has no part of that name. */
#include "helpers.h"

#include <stdio.h>

#include "uarch.h"

enum { EAX, EBX, ECX, EDX };

static unsigned field(uint32_t r, unsigned lsb, unsigned width)
{
  return (unsigned)(r >> lsb) & ((1u << width) - 1);
}

/* A cache of leaf 04H as uarch states one: size, ways, line. */
static spmu_uarch_geom geom(const uint32_t r[4])
{
  spmu_uarch_geom g;
  uint32_t ways = field(r[EBX], 22, 10) + 1, parts = field(r[EBX], 12, 10) + 1,
           line = field(r[EBX], 0, 12) + 1;

  g.size = ways * parts * line * (r[ECX] + 1);
  g.ways = ways;
  g.line = line;
  return g;
}

static spmu_profile preset(const char *name)
{
  spmu_profile p;

  assert_int_equal(spmu_profile_parse(name, &p, NULL, 0), SPMU_OK);
  return p;
}

/* Skylake's leaf 04H, register for register: the Core i7-6700K's. L1D
 * (EAX type 1, level 1, self-initializing, 2 threads, 8 core IDs; 8 ways,
 * 64 B lines, 64 sets), L1I (type 2), L2 (type 3 level 2, 4 ways, 1024
 * sets), L3 (level 3, 16 threads, 16 ways, 8192 sets, EDX inclusive and
 * complex indexing), then type 0 for every later sub-leaf. */
static void test_skylake_leaf_04h_registers(void **state)
{
  static const uint32_t want[5][4] = {
      {0x1c004121, 0x01c0003f, 0x0000003f, 0},
      {0x1c004122, 0x01c0003f, 0x0000003f, 0},
      {0x1c004143, 0x00c0003f, 0x000003ff, 0},
      {0x1c03c163, 0x03c0003f, 0x00001fff, 6},
      {0, 0, 0, 0},
  };
  spmu_profile p = preset("skylake");
  uint32_t r[4];
  unsigned i, k;

  (void)state;
  for (i = 0; i < 5; i++) {
    assert_int_equal(spmu_profile_cpuid(&p, 0x4, i, r), SPMU_OK);
    for (k = 0; k < 4; k++)
      assert_int_equal(r[k], want[i][k]);
  }
  assert_int_equal(spmu_profile_cpuid(&p, 0x4, 1000, r), SPMU_OK);
  assert_int_equal(r[EAX] | r[EBX] | r[ECX] | r[EDX], 0);
}

/* A preset without a part (Core Duo to Nehalem, NetBurst) leaves leaf 04H
 * to the host: SPMU_ENOENT; softpmu owns all of the leaf's bits where it
 * answers. */
static void test_no_part_no_leaf_04h(void **state)
{
  const char *names[] = {"core-duo", "core2", "nehalem", "pentium4"};
  uint32_t r[4], owned[4];
  spmu_profile p;
  unsigned i;

  (void)state;
  for (i = 0; i < 4; i++) {
    p = preset(names[i]);
    assert_null(spmu_profile_part_name(&p));
    assert_int_equal(spmu_profile_cpuid(&p, 0x4, 0, r), SPMU_ENOENT);
  }
  assert_int_equal(spmu_cpuid_owned(0x4, owned), SPMU_OK);
  assert_int_equal(owned[EAX] & owned[EBX] & owned[ECX] & owned[EDX],
                   0xffffffffu);
}

/* An embedder's core answers CPUID leaf 04H as its profile. */
static void test_core_cpuid_leaf_04h(void **state)
{
  spmu_profile p = preset("icelake");
  spmu_core *core;
  uint32_t a[4], b[4];
  unsigned i, k;

  (void)state;
  assert_int_equal(spmu_core_new(&p, &core), SPMU_OK);
  for (i = 0; i < 5; i++) {
    assert_int_equal(spmu_cpuid(spmu_core_lp(core, 0), 0x4, i, a), SPMU_OK);
    assert_int_equal(spmu_profile_cpuid(&p, 0x4, i, b), SPMU_OK);
    for (k = 0; k < 4; k++)
      assert_int_equal(a[k], b[k]);
  }
  /* Ice Lake's L1D: 48 KB, 12 ways (EBX[31:22] = 11). */
  assert_int_equal(spmu_cpuid(spmu_core_lp(core, 0), 0x4, 0, a), SPMU_OK);
  assert_int_equal(a[EBX], 0x02c0003f);
  spmu_core_free(core);
}

/* part= in the key=value form: a custom profile can state it; the form
 * spmu_profile_format writes reads back to the same profile; an unknown
 * part is refused with the names. */
static void test_part_key(void **state)
{
  spmu_profile p, q;
  char buf[512], why[256];
  uint32_t r[4];

  (void)state;
  assert_int_equal(
      spmu_profile_parse("base=core2,part=haswell", &p, why, sizeof why),
      SPMU_OK);
  assert_string_equal(spmu_profile_part_name(&p), "haswell");
  assert_int_equal(spmu_profile_cpuid(&p, 0x4, 2, r), SPMU_OK);
  assert_int_equal(r[ECX], 511); /* Haswell's L2: 512 sets */
  assert_true(spmu_profile_format(&p, buf, sizeof buf) > 0);
  assert_non_null(strstr(buf, ",part=haswell"));
  assert_int_equal(spmu_profile_parse(buf, &q, why, sizeof why), SPMU_OK);
  assert_memory_equal(&p, &q, sizeof p);
  assert_int_equal(spmu_profile_parse("base=skylake,part=none", &p, NULL, 0),
                   SPMU_OK);
  assert_null(spmu_profile_part_name(&p));
  assert_int_equal(
      spmu_profile_parse("base=skylake,part=zen", &p, why, sizeof why),
      SPMU_EINVAL);
  assert_string_equal(why, "part=zen: expected none, sandybridge, haswell, "
                           "skylake, icelake or sapphirerapids");
  p = preset("skylake");
  p.part = 6;
  assert_int_equal(spmu_profile_validate(&p, why, sizeof why), SPMU_EPROFILE);
  assert_string_equal(why, "part=6: the parts are 0 (none) to 5");
}

/* The preset `name`: its part is named after it, and each cache of leaf
 * 04H (sub-leaves 0-3: L1D, L1I, L2, L3) has the geometry of uarch's part
 * row, the L3's inclusiveness (EDX[1]) its llc_inclusive; sub-leaf 4 is
 * type 0. */
static int check_preset(const char *name)
{
  spmu_profile p;
  spmu_uarch_config cfg;
  const spmu_uarch_geom *want[4];
  char spec[64], err[256];
  uint32_t r[4];
  spmu_uarch_geom g;
  unsigned i;
  int bad = 0;

  if (spmu_profile_parse(name, &p, err, sizeof err) != SPMU_OK ||
      !spmu_profile_part_name(&p) ||
      strcmp(spmu_profile_part_name(&p), name) != 0) {
    fprintf(stderr, "%s: no preset with a part of that name\n", name);
    return 1;
  }
  snprintf(spec, sizeof spec, "part:%s", name);
  if (spmu_uarch_config_parse(spec, &cfg, err, sizeof err) != 0) {
    fprintf(stderr, "%s: uarch has no such part (%s): skipped until it has\n",
            spec, err);
    return 77;
  }
  want[0] = &cfg.l1d;
  want[1] = &cfg.l1i;
  want[2] = &cfg.l2;
  want[3] = &cfg.llc;
  for (i = 0; i < 4; i++) {
    if (spmu_profile_cpuid(&p, 0x4, i, r) != SPMU_OK) {
      fprintf(stderr, "%s: no leaf 04H sub-leaf %u\n", name, i);
      return 1;
    }
    g = geom(r);
    if (g.size != want[i]->size || g.ways != want[i]->ways ||
        g.line != want[i]->line) {
      fprintf(stderr,
              "%s: leaf 04H sub-leaf %u is %u B %u-way %u B lines; uarch "
              "has %u B %u-way %u B lines\n",
              name, i, g.size, g.ways, g.line, want[i]->size, want[i]->ways,
              want[i]->line);
      bad = 1;
    }
  }
  if ((int)field(r[EDX], 1, 1) != (cfg.llc_inclusive != 0)) {
    fprintf(stderr, "%s: L3 inclusive %u in leaf 04H, %d in uarch\n", name,
            field(r[EDX], 1, 1), cfg.llc_inclusive);
    bad = 1;
  }
  if (spmu_profile_cpuid(&p, 0x4, 4, r) != SPMU_OK || field(r[EAX], 0, 5)) {
    fprintf(stderr, "%s: sub-leaf 4 is not type 0\n", name);
    bad = 1;
  }
  if (!bad)
    printf("%s: leaf 04H = uarch %s\n", name, spec);
  return bad;
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_skylake_leaf_04h_registers),
      cmocka_unit_test(test_no_part_no_leaf_04h),
      cmocka_unit_test(test_core_cpuid_leaf_04h),
      cmocka_unit_test(test_part_key),
  };

  if (argc > 1)
    return check_preset(argv[1]);
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/* CPUID leaf 04H, deterministic cache parameters, as the presets with a
 * part enumerate it (SDM Vol. 2A CPUID, Table 3-8, leaf 04H), through
 * spmu_profile_cpuid and through a core's spmu_cpuid: each sub-leaf
 * derived from the part's caches (src/profile/parts.c) by the leaf's field
 * encodings, and the modelled micro-architecture of the same name
 * (uarch/, part:NAME) taking the geometry the leaf reports.
 *
 * Without an argument: the rules and the exact registers, for every part.
 * With a preset's name: that preset's leaf 04H and its uarch part. */
#include "helpers.h"

#include <stdio.h>

#include "profile/parts.h"
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

/* 0 if field `what` of sub-leaf sub is what the part says, else 1, said
 * on stderr. */
static int expect(const char *part, unsigned sub, const char *what,
                  unsigned got, unsigned want)
{
  if (got == want)
    return 0;
  fprintf(stderr, "%s: leaf 04H sub-leaf %u: %s is %u, the part says %u\n",
          part, sub, what, got, want);
  return 1;
}

/* Sub-leaf sub (0-3: L1D, L1I, L2, L3) of p's leaf 04H against cache c of
 * part d, by the leaf's encodings: EAX[4:0] type (1 data, 2 instruction, 3
 * unified), EAX[7:5] level, EAX[8] self-initializing, EAX[9] not fully
 * associative, EAX[25:14] + 1 logical processors sharing it, EAX[31:26] +
 * 1 addressable core IDs; EBX[11:0] + 1 the line, EBX[21:12] + 1 one
 * partition, EBX[31:22] + 1 the ways; size = ways x partitions x line x
 * (ECX + 1); EDX[1] inclusive, EDX[2] complex indexing, EDX[0] and the
 * rest 0. The number of mismatches. */
static int check_cache(const spmu_profile *p, const struct spmu_part_desc *d,
                       unsigned sub, const struct spmu_part_cache *c)
{
  static const unsigned type[4] = {1, 2, 3, 3}, level[4] = {1, 1, 2, 3};
  uint32_t r[4];
  unsigned size, edx;
  int bad = 0;

  if (spmu_profile_cpuid(p, 0x4, sub, r) != SPMU_OK)
    return expect(d->name, sub, "answered", 0, 1);
  size = (field(r[EBX], 22, 10) + 1) * (field(r[EBX], 12, 10) + 1) *
         (field(r[EBX], 0, 12) + 1) * (r[ECX] + 1);
  edx = (c->inclusive ? 2u : 0) | (c->complex_index ? 4u : 0);
  bad += expect(d->name, sub, "the type", field(r[EAX], 0, 5), type[sub]);
  bad += expect(d->name, sub, "the level", field(r[EAX], 5, 3), level[sub]);
  bad += expect(d->name, sub, "EAX[9:8]", field(r[EAX], 8, 2), 1);
  bad += expect(d->name, sub, "sharing", field(r[EAX], 14, 12) + 1, c->sharing);
  bad += expect(d->name, sub, "cores", field(r[EAX], 26, 6) + 1, d->cores);
  bad += expect(d->name, sub, "the line", field(r[EBX], 0, 12) + 1, d->line);
  bad += expect(d->name, sub, "partitions", field(r[EBX], 12, 10) + 1, 1);
  bad += expect(d->name, sub, "ways", field(r[EBX], 22, 10) + 1, c->ways);
  bad += expect(d->name, sub, "the size", size, c->size);
  bad += expect(d->name, sub, "EDX", r[EDX], edx);
  return bad;
}

/* p's leaf 04H is part d's caches, then type 0 from sub-leaf 4 on. */
static int check_leaf(const spmu_profile *p, const struct spmu_part_desc *d)
{
  const struct spmu_part_cache *c[4] = {&d->l1d, &d->l1i, &d->l2, &d->llc};
  uint32_t r[4];
  int bad = 0;

  for (unsigned i = 0; i < 4; i++)
    bad += check_cache(p, d, i, c[i]);
  if (spmu_profile_cpuid(p, 0x4, 4, r) != SPMU_OK ||
      (r[EAX] | r[EBX] | r[ECX] | r[EDX]))
    bad += expect(d->name, 4, "type 0 (no more caches)", 0, 1);
  return bad;
}

/* Every part's leaf 04H follows the encodings (check_cache), whatever
 * profile names the part. */
static void test_every_part_leaf_04h_derived(void **state)
{
  const struct spmu_part_desc *d;
  spmu_profile p = {.name = "custom", .threads = 1};
  unsigned i;

  (void)state;
  for (i = 0; (d = spmu_part_at(i)) != NULL; i++) {
    p.part = (uint8_t)d->id;
    assert_int_equal(check_leaf(&p, d), 0);
    assert_ptr_equal(spmu_part_by_id(d->id), d);
    assert_ptr_equal(spmu_part_by_name(d->name, strlen(d->name)), d);
  }
  assert_true(i >= 5);
}

/* The preset `name`: its part is named after it, its leaf 04H is that
 * part's caches by the encodings, and uarch's part:NAME has the geometry
 * each sub-leaf reports (size, ways, line) and the L3's inclusiveness
 * (EDX[1]) as its llc_inclusive. */
static int check_preset(const char *name)
{
  const struct spmu_part_desc *d;
  spmu_profile p;
  spmu_uarch_config cfg;
  const spmu_uarch_geom *want[4];
  char spec[64], err[256];
  uint32_t r[4];
  spmu_uarch_geom g;
  unsigned i;
  int bad;

  if (spmu_profile_parse(name, &p, err, sizeof err) != SPMU_OK ||
      !spmu_profile_part_name(&p) ||
      strcmp(spmu_profile_part_name(&p), name) != 0 ||
      !(d = spmu_part_by_id(p.part))) {
    fprintf(stderr, "%s: no preset with a part of that name\n", name);
    return 1;
  }
  bad = check_leaf(&p, d);
  snprintf(spec, sizeof spec, "part:%s", name);
  if (spmu_uarch_config_parse(spec, &cfg, err, sizeof err) != 0) {
    fprintf(stderr, "%s: %s\n", spec, err);
    return 1;
  }
  want[0] = &cfg.l1d;
  want[1] = &cfg.l1i;
  want[2] = &cfg.l2;
  want[3] = &cfg.llc;
  for (i = 0; i < 4; i++) {
    spmu_profile_cpuid(&p, 0x4, i, r);
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
  if (!bad)
    printf("%s: leaf 04H = part %s's caches = uarch %s\n", name, d->name, spec);
  return bad != 0;
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_skylake_leaf_04h_registers),
      cmocka_unit_test(test_no_part_no_leaf_04h),
      cmocka_unit_test(test_core_cpuid_leaf_04h),
      cmocka_unit_test(test_part_key),
      cmocka_unit_test(test_every_part_leaf_04h_derived),
  };

  if (argc > 1)
    return check_preset(argv[1]);
  return cmocka_run_group_tests(tests, NULL, NULL);
}

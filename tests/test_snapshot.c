/* SPDX-License-Identifier: MIT */
/* Save and restore of a core, the host (VMM) write path, RESET and INIT.
 *
 * The blob layout is the one documented at the top of src/core/snapshot.c
 * (format 4), restated here so that the tests can build damaged blobs:
 *   0   "SPMU", u16 format, u16 logical processors, u64 profile fingerprint
 *   16  per logical processor: u16 n, then n x (u32 address, u64 value),
 *       then u32 edge-detect state and u32 PEBS-armed counters, then for a
 *       profile with LBRs the last-branch latch (3 x u64)
 *   end u64 FNV-1a-64 of every byte before it
 * All little-endian. */
#include "helpers.h"

#include <stdbool.h>

#define HDR_LEN 16u
#define ENTRY_LEN 12u
#define ENGINE_LEN 8u /* u32 edge state + u32 PEBS armed, after each LP */
#define LATCH_LEN 24u /* the last-branch latch, after them (LBR profiles) */
#define SUM_LEN 8u
#define BLOB_MAX 8192u
#define MAX_MSRS 256u

#define BIT(n) (UINT64_C(1) << (n))
/* A canonical 48-bit linear address in the upper half (SDM 3.3.7.1). */
#define DS_BASE UINT64_C(0xffff800000001000)

typedef struct blob {
  uint8_t b[BLOB_MAX];
  size_t len;
  size_t latch; /* LATCH_LEN for a profile with LBRs, else 0 */
} blob;

/* ---- helpers --------------------------------------------------------- */

static uint64_t get_le(const uint8_t *p, unsigned n)
{
  uint64_t v = 0;
  unsigned i;

  for (i = 0; i < n; i++)
    v |= (uint64_t)p[i] << (8 * i);
  return v;
}

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
  unsigned i;

  for (i = 0; i < n; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

/* FNV-1a-64 (offset basis 0xcbf29ce484222325, prime 0x100000001b3). */
static uint64_t fnv1a64(const uint8_t *p, size_t n)
{
  uint64_t h = UINT64_C(0xcbf29ce484222325);

  while (n--) {
    h ^= *p++;
    h *= UINT64_C(0x100000001b3);
  }
  return h;
}

/* Make the checksum match the (edited) content again. */
static void reseal(blob *bl)
{
  put_le(bl->b + bl->len - SUM_LEN, fnv1a64(bl->b, bl->len - SUM_LEN), 8);
}

static void save(const spmu_core *c, blob *out)
{
  memset(out->b, 0xA5, sizeof out->b);
  out->len = 0;
  assert_int_equal(spmu_core_save(c, out->b, sizeof out->b, &out->len),
                   SPMU_OK);
  out->latch =
      spmu_lbr_read(spmu_core_lp((spmu_core *)(uintptr_t)c, 0), NULL, 0) > 0
          ? LATCH_LEN
          : 0;
}

/* Offset of the value of MSR addr of logical processor lp in the blob. */
static size_t value_offset(const blob *bl, unsigned lp, uint32_t addr)
{
  size_t off = HDR_LEN;
  unsigned i, n;

  for (i = 0; i < lp; i++)
    off +=
        2 + (size_t)get_le(bl->b + off, 2) * ENTRY_LEN + ENGINE_LEN + bl->latch;
  n = (unsigned)get_le(bl->b + off, 2);
  off += 2;
  for (i = 0; i < n; i++, off += ENTRY_LEN)
    if (get_le(bl->b + off, 4) == addr)
      return off + 4;
  fail_msg("MSR %#x of LP %u is not in the blob", addr, lp);
  return 0;
}

/* Set one stored value and recompute the checksum: a blob that is intact
 * as bytes but carries the given register value. */
static void patch_value(blob *bl, unsigned lp, uint32_t addr, uint64_t v)
{
  put_le(bl->b + value_offset(bl, lp, addr), v, 8);
  reseal(bl);
}

static bool has_msr(const spmu_core *c, uint32_t addr)
{
  spmu_msr_info info;

  return spmu_msr_info_get(spmu_core_profile(c), addr, &info) == SPMU_OK;
}

static void wr(spmu_lp *lp, uint32_t msr, uint64_t v)
{
  int rc = spmu_wrmsr(lp, msr, v);

  if (rc != SPMU_OK)
    fail_msg("WRMSR %#x <- %#llx: %s", msr, (unsigned long long)v,
             spmu_errname(rc));
}

static void host_wr(spmu_lp *lp, uint32_t msr, uint64_t v)
{
  int rc = spmu_host_wrmsr(lp, msr, v);

  if (rc != SPMU_OK)
    fail_msg("host WRMSR %#x <- %#llx: %s", msr, (unsigned long long)v,
             spmu_errname(rc));
}

/* Put distinct, valid state into every logical processor of c: counters,
 * event selects, fixed counters and their control, GLOBAL_CTRL, DEBUGCTL,
 * PEBS_ENABLE and DS_AREA through the guest path, GLOBAL_STATUS and one
 * full-width counter through the host path. seed makes cores differ. */
static void program(spmu_core *c, unsigned seed)
{
  const spmu_profile *p = spmu_core_profile(c);
  unsigned i, j;

  for (i = 0; i < spmu_core_threads(c); i++) {
    spmu_lp *lp = spmu_core_lp(c, i);
    unsigned k = seed * SPMU_MAX_THREADS + i + 1;
    uint64_t gp_en = (UINT64_C(1) << p->gp) - 1;
    uint64_t ctrl = 0, fixed_ctrl = 0;

    for (j = 0; j < p->gp; j++) {
      wr(lp, MSR_PMC0 + j, 0x1000u * k + j);
      /* EVENT (nonzero), USR, OS, EN: valid in every version. */
      wr(lp, MSR_EVTSEL0 + j, 0x430000u | ((k * 16 + j) & 0xff));
    }
    if (p->gp)
      host_wr(lp, MSR_PMC0, (UINT64_C(1) << (p->gp_width - 1)) | k);
    for (j = 0; j < SPMU_MAX_FIXED; j++) {
      if (!(p->fixed_mask & (UINT32_C(1) << j)))
        continue;
      wr(lp, MSR_FIXED_CTR0 + j, 0x2000u * k + j);
      fixed_ctrl |= (uint64_t)((j + k) % 3 + 1) << (4 * j);
      if ((j + k) % 2)
        ctrl |= BIT(32 + j);
    }
    if (has_msr(c, MSR_FIXED_CTR_CTRL))
      wr(lp, MSR_FIXED_CTR_CTRL, fixed_ctrl);
    if (has_msr(c, MSR_GLOBAL_CTRL))
      wr(lp, MSR_GLOBAL_CTRL, ctrl | (gp_en & (k % 2 ? 0x5 : 0xA)));
    if (has_msr(c, MSR_GLOBAL_STATUS))
      host_wr(lp, MSR_GLOBAL_STATUS,
              (p->gp ? BIT(k % p->gp) : 0) | (k % 2 ? BIT(63) : BIT(62)));
    wr(lp, MSR_DEBUGCTL, k % 2 ? 0x1 : 0x2); /* LBR or BTF */
    if (has_msr(c, MSR_PEBS_ENABLE))
      wr(lp, MSR_PEBS_ENABLE, k % 2);
    if (has_msr(c, MSR_DS_AREA))
      wr(lp, MSR_DS_AREA, DS_BASE + 0x1000u * k);
  }
}

/* Every MSR of the profile reads the same on every logical processor of a
 * and b (same profile). */
static void assert_same_msrs(spmu_core *a, spmu_core *b)
{
  uint32_t addrs[MAX_MSRS];
  size_t n = spmu_msr_list(spmu_core_profile(a), addrs, MAX_MSRS);
  unsigned i;
  size_t m;

  assert_true(n <= MAX_MSRS);
  assert_int_equal(spmu_core_threads(a), spmu_core_threads(b));
  for (i = 0; i < spmu_core_threads(a); i++)
    for (m = 0; m < n; m++) {
      uint64_t va = rd(spmu_core_lp(a, i), addrs[m]);
      uint64_t vb = rd(spmu_core_lp(b, i), addrs[m]);
      if (va != vb)
        fail_msg("LP %u MSR %#x: %#llx vs %#llx", i, addrs[m],
                 (unsigned long long)va, (unsigned long long)vb);
    }
}

/* Every MSR of one logical processor, in spmu_msr_list order. */
static size_t read_lp(spmu_core *c, unsigned lp, uint64_t *vals)
{
  uint32_t addrs[MAX_MSRS];
  size_t n = spmu_msr_list(spmu_core_profile(c), addrs, MAX_MSRS), m;

  assert_true(n <= MAX_MSRS);
  for (m = 0; m < n; m++)
    vals[m] = rd(spmu_core_lp(c, lp), addrs[m]);
  return n;
}

/* Restore of bad must fail with rc and leave c exactly as it was. */
static void assert_rejected(spmu_core *c, const uint8_t *bad, size_t len,
                            int rc)
{
  blob before, after;

  save(c, &before);
  assert_int_equal(spmu_core_restore(c, bad, len), rc);
  save(c, &after);
  assert_int_equal(after.len, before.len);
  assert_memory_equal(after.b, before.b, before.len);
}

/* ---- round trip ------------------------------------------------------ */

/* Program a core of spec, save it, restore into a fresh core of the same
 * profile and save again: same bytes, same MSR values. */
static void check_round_trip(const char *spec)
{
  spmu_core *src = core_for(spec);
  spmu_core *dst = core_for(spec);
  spmu_core *fresh = core_for(spec);
  blob a, b, f;

  program(src, 1);
  save(src, &a);
  save(fresh, &f);
  assert_int_equal(f.len, a.len);
  assert_memory_not_equal(a.b, f.b, a.len); /* the state was programmed */

  assert_int_equal(spmu_core_restore(dst, a.b, a.len), SPMU_OK);
  save(dst, &b);
  assert_int_equal(b.len, a.len);
  assert_memory_equal(b.b, a.b, a.len);
  assert_same_msrs(src, dst);
  spmu_core_free(src);
  spmu_core_free(dst);
  spmu_core_free(fresh);
}

/* API contract (pmu.h, snapshot) and the KVM-suite check that save/restore
 * preserves the guest-visible PMU state: save, restore into a fresh core of
 * the same profile, save again gives the same bytes, and every MSR in
 * spmu_msr_list reads the same on both cores. */
static void test_save_restore_round_trip_every_preset(void **state)
{
  const char *custom[] = {"base=skylake,threads=4",
                          "version=5,gp=8,fixed_mask=0x5,threads=2"};
  const char *name;
  size_t i;

  (void)state;
  FOR_EACH_PRESET(name) {
    check_round_trip(name);
  }
  for (i = 0; i < sizeof custom / sizeof custom[0]; i++)
    check_round_trip(custom[i]);
}

/* API contract (pmu.h): restore overwrites a core that already has other
 * state, not only a fresh one. */
static void test_restore_over_programmed_core(void **state)
{
  spmu_core *src = core_for("icelake");
  spmu_core *dst = core_for("icelake");
  blob a, b;

  (void)state;
  program(src, 1);
  program(dst, 2);
  save(src, &a);
  assert_int_equal(spmu_core_restore(dst, a.b, a.len), SPMU_OK);
  save(dst, &b);
  assert_memory_equal(b.b, a.b, a.len);
  assert_same_msrs(src, dst);
  spmu_core_free(src);
  spmu_core_free(dst);
}

/* Snapshot format 4 (src/core/snapshot.c): magic "SPMU", format
 * SPMU_SNAPSHOT_FORMAT, the number of logical processors, per logical
 * processor the stored MSRs in ascending address order, the two u32
 * counting-engine words and (Skylake has LBRs) the three u64 of the
 * last-branch latch, nothing recorded yet, and an FNV-1a-64
 * of everything before the checksum. */
static void test_blob_layout_format4(void **state)
{
  spmu_core *c = core_for("skylake");
  blob bl;
  size_t off = HDR_LEN;
  unsigned i, j, n0;

  (void)state;
  program(c, 1);
  save(c, &bl);
  assert_memory_equal(bl.b, "SPMU", 4);
  assert_int_equal(get_le(bl.b + 4, 2), SPMU_SNAPSHOT_FORMAT);
  assert_int_equal(SPMU_SNAPSHOT_FORMAT, 4);
  assert_int_equal(get_le(bl.b + 6, 2), 2);
  n0 = (unsigned)get_le(bl.b + HDR_LEN, 2);
  for (i = 0; i < 2; i++) {
    uint32_t last = 0;

    assert_int_equal(get_le(bl.b + off, 2), n0);
    off += 2;
    for (j = 0; j < n0; j++, off += ENTRY_LEN) {
      uint32_t addr = (uint32_t)get_le(bl.b + off, 4);
      if (j)
        assert_true(addr > last);
      last = addr;
    }
    assert_int_equal(get_le(bl.b + off, 4), 0);     /* no edge state yet */
    assert_int_equal(get_le(bl.b + off + 4, 4), 0); /* nothing armed */
    off += ENGINE_LEN;
    for (j = 0; j < 3; j++, off += 8)
      assert_int_equal(get_le(bl.b + off, 8), 0); /* latch: no branch yet */
  }
  assert_int_equal(off + SUM_LEN, bl.len);
  assert_int_equal(get_le(bl.b + off, 8), fnv1a64(bl.b, off));
  /* Stored values are what RDMSR returns: LP 1's EVTSEL0 as programmed. */
  assert_int_equal(get_le(bl.b + value_offset(&bl, 1, MSR_EVTSEL0), 8),
                   rd(spmu_core_lp(c, 1), MSR_EVTSEL0));
  spmu_core_free(c);
}

/* API contract (pmu.h): with buf == NULL or cap too small, spmu_core_save
 * returns SPMU_ENOSPC and sets *len to the size the blob needs. */
static void test_save_reports_needed_size(void **state)
{
  spmu_core *c = core_for("skylake");
  uint8_t small[64];
  blob bl;
  size_t len = 0, n;

  (void)state;
  save(c, &bl);
  n = (size_t)get_le(bl.b + HDR_LEN, 2);
  assert_int_equal(bl.len,
                   HDR_LEN + 2 * (2 + n * ENTRY_LEN + ENGINE_LEN + LATCH_LEN) +
                       SUM_LEN);

  assert_int_equal(spmu_core_save(c, NULL, 0, &len), SPMU_ENOSPC);
  assert_int_equal(len, bl.len);
  len = 0;
  assert_int_equal(spmu_core_save(c, NULL, BLOB_MAX, &len), SPMU_ENOSPC);
  assert_int_equal(len, bl.len);
  len = 0;
  assert_int_equal(spmu_core_save(c, small, sizeof small, &len), SPMU_ENOSPC);
  assert_int_equal(len, bl.len);
  len = 0;
  assert_int_equal(spmu_core_save(c, bl.b, bl.len - 1, &len), SPMU_ENOSPC);
  assert_int_equal(len, bl.len);
  assert_int_equal(spmu_core_save(c, bl.b, bl.len, &len), SPMU_OK);
  assert_int_equal(len, bl.len);
  spmu_core_free(c);
}

/* ---- rejected blobs leave the core untouched ------------------------- */

/* API contract (pmu.h): another format version is SPMU_EVERSION (even with
 * a correct checksum), and the core is untouched. */
static void test_restore_rejects_other_format(void **state)
{
  spmu_core *src = core_for("skylake");
  spmu_core *dst = core_for("skylake");
  blob bl;

  (void)state;
  program(src, 1);
  program(dst, 2);
  save(src, &bl);
  put_le(bl.b + 4, SPMU_SNAPSHOT_FORMAT + 1, 2);
  reseal(&bl);
  assert_rejected(dst, bl.b, bl.len, SPMU_EVERSION);
  put_le(bl.b + 4, 0x0101, 2); /* byte 5 matters: the field is a u16 */
  reseal(&bl);
  assert_rejected(dst, bl.b, bl.len, SPMU_EVERSION);
  put_le(bl.b + 4, 0, 2);
  reseal(&bl);
  assert_rejected(dst, bl.b, bl.len, SPMU_EVERSION);
  spmu_core_free(src);
  spmu_core_free(dst);
}

/* API contract (pmu.h): a blob of another profile is SPMU_EMISMATCH, and
 * the core is untouched: another generation, another SMT width, another
 * counter count. */
static void test_restore_rejects_other_profile(void **state)
{
  const char *others[] = {"haswell", "base=skylake,threads=1",
                          "base=skylake,gp=8", "icelake"};
  spmu_core *src = core_for("skylake");
  blob bl;
  size_t i;

  (void)state;
  program(src, 1);
  save(src, &bl);
  for (i = 0; i < sizeof others / sizeof others[0]; i++) {
    spmu_core *dst = core_for(others[i]);
    blob theirs;

    program(dst, 2);
    assert_rejected(dst, bl.b, bl.len, SPMU_EMISMATCH);
    /* And the other way round. */
    save(dst, &theirs);
    assert_rejected(src, theirs.b, theirs.len, SPMU_EMISMATCH);
    spmu_core_free(dst);
  }
  spmu_core_free(src);
}

/* API contract (pmu.h): a damaged blob is SPMU_ECORRUPT: each single
 * flipped byte of the payload or the checksum is caught, and the core is
 * untouched. */
static void test_restore_rejects_flipped_byte(void **state)
{
  spmu_core *src = core_for("skylake");
  spmu_core *dst = core_for("skylake");
  blob bl;
  size_t i;

  (void)state;
  program(src, 1);
  program(dst, 2);
  save(src, &bl);
  for (i = HDR_LEN; i < bl.len; i++) {
    bl.b[i] ^= 0x01;
    assert_rejected(dst, bl.b, bl.len, SPMU_ECORRUPT);
    bl.b[i] ^= 0x01;
  }
  bl.b[bl.len - SUM_LEN - 1] ^= 0x80; /* top bit of the last value */
  assert_rejected(dst, bl.b, bl.len, SPMU_ECORRUPT);
  spmu_core_free(src);
  spmu_core_free(dst);
}

/* API contract (pmu.h): a truncated (or over-long) blob is SPMU_ECORRUPT,
 * and the core is untouched. */
static void test_restore_rejects_truncated(void **state)
{
  spmu_core *src = core_for("haswell");
  spmu_core *dst = core_for("haswell");
  blob bl;
  blob longer;

  (void)state;
  program(src, 1);
  program(dst, 2);
  save(src, &bl);
  assert_rejected(dst, bl.b, bl.len - 1, SPMU_ECORRUPT);
  assert_rejected(dst, bl.b, bl.len - SUM_LEN, SPMU_ECORRUPT);
  assert_rejected(dst, bl.b, bl.len - ENTRY_LEN, SPMU_ECORRUPT);
  assert_rejected(dst, bl.b, HDR_LEN, SPMU_ECORRUPT);
  assert_rejected(dst, bl.b, 3, SPMU_ECORRUPT);
  assert_rejected(dst, bl.b, 0, SPMU_ECORRUPT);

  /* Truncated to a whole number of entries, checksum recomputed. */
  memcpy(longer.b, bl.b, bl.len);
  longer.len = bl.len - ENTRY_LEN;
  reseal(&longer);
  assert_rejected(dst, longer.b, longer.len, SPMU_ECORRUPT);

  /* One byte too many, checksum recomputed over it. */
  memcpy(longer.b, bl.b, bl.len);
  longer.len = bl.len + 1;
  longer.b[bl.len] = 0;
  reseal(&longer);
  assert_rejected(dst, longer.b, longer.len, SPMU_ECORRUPT);
  spmu_core_free(src);
  spmu_core_free(dst);
}

/* API contract (pmu.h): a blob without the "SPMU" magic is SPMU_ECORRUPT,
 * and the core is untouched. */
static void test_restore_rejects_bad_magic(void **state)
{
  spmu_core *src = core_for("skylake");
  spmu_core *dst = core_for("skylake");
  blob bl;
  unsigned i;

  (void)state;
  program(src, 1);
  program(dst, 2);
  save(src, &bl);
  for (i = 0; i < 4; i++) {
    bl.b[i] ^= 0x20;
    reseal(&bl);
    assert_rejected(dst, bl.b, bl.len, SPMU_ECORRUPT);
    bl.b[i] ^= 0x20;
  }
  spmu_core_free(src);
  spmu_core_free(dst);
}

/* API contract (pmu.h) "spmu_core_restore checks everything before
 * changing anything": a blob with a valid checksum whose LAST logical
 * processor holds a reserved bit (SDM 18.2.1.1: reserved EVTSEL bits #GP;
 * 18.2.2.2: GLOBAL_CTRL bits outside the counters #GP; 18.2.5: counter
 * bits above the width; 3.3.7.1: DS_AREA must be canonical) is
 * SPMU_ERESERVED, and LP 0, whose records come first and are valid, keeps
 * its registers. */
static void test_restore_reserved_bit_never_half_applies(void **state)
{
  static const struct {
    uint32_t addr;
    uint64_t value;
  } bad[] = {
      {MSR_EVTSEL0, BIT(63) | 0x4300C0},
      {MSR_GLOBAL_CTRL, BIT(40) | 0xF},
      {MSR_GLOBAL_STATUS, BIT(40)},
      {MSR_PMC0, BIT(48)},
      {MSR_FIXED_CTR0, BIT(48)},
      {MSR_DS_AREA, UINT64_C(0x0000800000000000)},
  };
  spmu_core *src = core_for("skylake");
  spmu_core *dst = core_for("skylake");
  blob good;
  size_t i;

  (void)state;
  program(src, 1);
  program(dst, 2);
  save(src, &good);
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    uint64_t lp0_before[MAX_MSRS], lp0_after[MAX_MSRS];
    size_t n;
    blob bl = good;

    patch_value(&bl, 1, bad[i].addr, bad[i].value);
    n = read_lp(dst, 0, lp0_before);
    assert_rejected(dst, bl.b, bl.len, SPMU_ERESERVED);
    assert_int_equal(read_lp(dst, 0, lp0_after), n);
    assert_memory_equal(lp0_after, lp0_before, n * sizeof lp0_before[0]);
  }
  /* The unpatched blob still restores. */
  assert_int_equal(spmu_core_restore(dst, good.b, good.len), SPMU_OK);
  assert_same_msrs(src, dst);
  spmu_core_free(src);
  spmu_core_free(dst);
}

/* Vol. 3C Table 35-2 (IA32_MISC_ENABLE bits 7, 11, 12 are read-only) and
 * pmu.h (read-only state accepts only its current value): a blob that
 * changes them is SPMU_EREADONLY and applies nothing. */
static void test_restore_read_only_bit_never_half_applies(void **state)
{
  spmu_core *src = core_for("skylake");
  spmu_core *dst = core_for("skylake");
  uint64_t misc = rd(spmu_core_lp(src, 1), MSR_MISC_ENABLE);
  blob bl;

  (void)state;
  assert_int_equal(misc & BIT(7), BIT(7)); /* perfmon available */
  program(src, 1);
  program(dst, 2);
  save(src, &bl);
  patch_value(&bl, 1, MSR_MISC_ENABLE, misc & ~BIT(7));
  assert_rejected(dst, bl.b, bl.len, SPMU_EREADONLY);
  spmu_core_free(src);
  spmu_core_free(dst);
}

/* ---- host path ------------------------------------------------------- */

/* SDM 18.2.2.2: IA32_PERF_GLOBAL_STATUS is read-only to the guest (WRMSR
 * #GP); the host path sets any bit the profile defines (Skylake: Ovf_PMC0-3,
 * Ovf_FixedCtr0-2, Trace_ToPA_PMI 55, LBR_Frz 58, CTR_Frz 59, ASCI 60,
 * Ovf_Uncore 61, OvfBuf 62, CondChgd 63) and reports an undefined one
 * (bit 40; bit 48 without PERF_METRICS) as SPMU_ERESERVED. */
static void test_host_global_status_defined_bits_only(void **state)
{
  spmu_core *c = core_for("skylake");
  spmu_lp *lp = spmu_core_lp(c, 0);
  const uint64_t all = UINT64_C(0xFC8000070000000F);

  (void)state;
  assert_int_equal(spmu_wrmsr(lp, MSR_GLOBAL_STATUS, BIT(0)), SPMU_GP);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 0);

  assert_int_equal(spmu_host_wrmsr(lp, MSR_GLOBAL_STATUS, BIT(0) | BIT(63)),
                   SPMU_OK);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), BIT(0) | BIT(63));
  assert_int_equal(spmu_host_wrmsr(lp, MSR_GLOBAL_STATUS, BIT(40)),
                   SPMU_ERESERVED);
  assert_int_equal(spmu_host_wrmsr(lp, MSR_GLOBAL_STATUS, BIT(48)),
                   SPMU_ERESERVED);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), BIT(0) | BIT(63));

  assert_int_equal(spmu_host_wrmsr(lp, MSR_GLOBAL_STATUS, all), SPMU_OK);
  assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), all);
  assert_int_equal(rd(spmu_core_lp(c, 1), MSR_GLOBAL_STATUS), 0);
  spmu_core_free(c);
}

/* SDM 18.2.5 and pmu.h: a guest write to IA32_PMCx sets bits 31:0 and
 * sign-extends bit 31 to the counter width; the host path takes the full
 * width as given (no sign extension), and a value above the width is
 * SPMU_ERESERVED. */
static void test_host_pmc_full_width_no_sign_extension(void **state)
{
  spmu_core *c = core_for("skylake"); /* 48-bit counters */
  spmu_lp *lp = spmu_core_lp(c, 0);
  uint64_t v = 0;

  (void)state;
  assert_int_equal(spmu_host_wrmsr(lp, MSR_PMC0, UINT64_C(0xff0123456789)),
                   SPMU_OK);
  assert_int_equal(rd(lp, MSR_PMC0), UINT64_C(0xff0123456789));
  assert_int_equal(spmu_rdpmc(lp, 0, 0, false, &v), SPMU_OK);
  assert_int_equal(v, UINT64_C(0xff0123456789));

  assert_int_equal(spmu_host_wrmsr(lp, MSR_PMC0, UINT64_C(0x80000000)),
                   SPMU_OK);
  assert_int_equal(rd(lp, MSR_PMC0), UINT64_C(0x80000000));
  wr(lp, MSR_PMC0, UINT64_C(0x80000000)); /* the guest sign-extends */
  assert_int_equal(rd(lp, MSR_PMC0), UINT64_C(0xffff80000000));

  assert_int_equal(spmu_host_wrmsr(lp, MSR_PMC0, UINT64_C(0x1000000000000)),
                   SPMU_ERESERVED);
  assert_int_equal(spmu_host_wrmsr(lp, MSR_PMC0, ~UINT64_C(0)), SPMU_ERESERVED);
  assert_int_equal(rd(lp, MSR_PMC0), UINT64_C(0xffff80000000));
  spmu_core_free(c);
}

/* SDM 18.6.2.4 / Vol. 3C Table 35-2: IA32_PERF_CAPABILITIES is read-only; the
 * host may write only its current value (SPMU_EREADONLY otherwise), the
 * guest not at all (#GP). */
static void test_host_perf_capabilities_read_only(void **state)
{
  spmu_core *c = core_for("skylake");
  spmu_lp *lp = spmu_core_lp(c, 0);

  (void)state;
  assert_int_equal(rd(lp, MSR_PERF_CAPABILITIES), 0x33C5);
  assert_int_equal(spmu_host_wrmsr(lp, MSR_PERF_CAPABILITIES, 0x33C4),
                   SPMU_EREADONLY);
  assert_int_equal(spmu_host_wrmsr(lp, MSR_PERF_CAPABILITIES, 0),
                   SPMU_EREADONLY);
  assert_int_equal(spmu_host_wrmsr(lp, MSR_PERF_CAPABILITIES, 0x33C5), SPMU_OK);
  assert_int_equal(spmu_wrmsr(lp, MSR_PERF_CAPABILITIES, 0x33C5), SPMU_GP);
  assert_int_equal(rd(lp, MSR_PERF_CAPABILITIES), 0x33C5);
  spmu_core_free(c);
}

/* SDM 18.2.4.3 Figure 18-13: IA32_PERF_GLOBAL_INUSE is read-only and
 * computed (PERFEVTSEL0[7:0] != 0 -> bit 0, FIXED_CTR_CTRL[1:0] != 0 ->
 * bit 32); a host write of another value is SPMU_EREADONLY, of the computed
 * one SPMU_OK; a guest write #GP. */
static void test_host_inuse_read_only(void **state)
{
  spmu_core *c = core_for("skylake");
  spmu_lp *lp = spmu_core_lp(c, 0);
  const uint64_t inuse = BIT(32) | BIT(0);

  (void)state;
  wr(lp, MSR_EVTSEL0, 0x4300C0);
  wr(lp, MSR_FIXED_CTR_CTRL, 0x3);
  assert_int_equal(rd(lp, MSR_GLOBAL_INUSE), inuse);
  assert_int_equal(spmu_host_wrmsr(lp, MSR_GLOBAL_INUSE, 0), SPMU_EREADONLY);
  assert_int_equal(spmu_host_wrmsr(lp, MSR_GLOBAL_INUSE, BIT(1)),
                   SPMU_EREADONLY);
  assert_int_equal(spmu_host_wrmsr(lp, MSR_GLOBAL_INUSE, inuse), SPMU_OK);
  assert_int_equal(spmu_wrmsr(lp, MSR_GLOBAL_INUSE, inuse), SPMU_GP);
  assert_int_equal(rd(lp, MSR_GLOBAL_INUSE), inuse);
  spmu_core_free(c);
}

/* ---- RESET and INIT -------------------------------------------------- */

/* SDM Vol. 3A 9.1.1 Table 9-1 (counters and event selects 0 at power-on)
 * and SDM 18.2.2 with the KVM comment "At RESET, Intel CPUs set all enable
 * bits for general purpose counters": after spmu_core_reset every MSR has
 * its power-on value, the core is byte-for-byte a fresh one, and
 * GLOBAL_CTRL = the GP enable bits (0xF on Skylake, 0xFF on Ice Lake). */
static void test_core_reset_power_on_values(void **state)
{
  const char *name;

  (void)state;
  FOR_EACH_PRESET(name) {
    spmu_core *c = core_for(name);
    spmu_core *fresh = core_for(name);
    const spmu_profile *p = spmu_core_profile(c);
    blob a, f;
    unsigned i, j;

    program(c, 1);
    assert_int_equal(spmu_core_reset(c), SPMU_OK);
    for (i = 0; i < spmu_core_threads(c); i++) {
      spmu_lp *lp = spmu_core_lp(c, i);

      for (j = 0; j < p->gp; j++) {
        assert_int_equal(rd(lp, MSR_PMC0 + j), 0);
        assert_int_equal(rd(lp, MSR_EVTSEL0 + j), 0);
      }
      for (j = 0; j < SPMU_MAX_FIXED; j++)
        if (p->fixed_mask & (UINT32_C(1) << j))
          assert_int_equal(rd(lp, MSR_FIXED_CTR0 + j), 0);
      assert_int_equal(rd(lp, MSR_DEBUGCTL), 0);
      if (p->version >= 2) {
        assert_int_equal(rd(lp, MSR_FIXED_CTR_CTRL), 0);
        assert_int_equal(rd(lp, MSR_GLOBAL_STATUS), 0);
        assert_int_equal(rd(lp, MSR_GLOBAL_CTRL), (UINT64_C(1) << p->gp) - 1);
      }
      if (has_msr(c, MSR_DS_AREA))
        assert_int_equal(rd(lp, MSR_DS_AREA), 0);
      if (has_msr(c, MSR_PEBS_ENABLE))
        assert_int_equal(rd(lp, MSR_PEBS_ENABLE), 0);
    }
    save(c, &a);
    save(fresh, &f);
    assert_int_equal(a.len, f.len);
    assert_memory_equal(a.b, f.b, a.len);
    spmu_core_free(c);
    spmu_core_free(fresh);
  }
  {
    spmu_core *sk = core_for("skylake");
    spmu_core *icl = core_for("icelake");

    program(sk, 1);
    program(icl, 1);
    assert_int_equal(spmu_core_reset(sk), SPMU_OK);
    assert_int_equal(spmu_core_reset(icl), SPMU_OK);
    assert_int_equal(rd(spmu_core_lp(sk, 1), MSR_GLOBAL_CTRL), 0xF);
    assert_int_equal(rd(spmu_core_lp(icl, 1), MSR_GLOBAL_CTRL), 0xFF);
    spmu_core_free(sk);
    spmu_core_free(icl);
  }
}

/* SDM Vol. 3A 9.1: "during an INIT, the internal caches, MSRs, MTRRs, and
 * x87 FPU state are left unchanged": spmu_lp_init_signal changes no MSR, on the
 * logical processor it targets or any other. */
static void test_lp_init_leaves_msrs_unchanged(void **state)
{
  const char *name;

  (void)state;
  FOR_EACH_PRESET(name) {
    spmu_core *c = core_for(name);
    spmu_core *copy = core_for(name);
    blob before, after;
    unsigned i;

    program(c, 1);
    save(c, &before);
    assert_int_equal(spmu_core_restore(copy, before.b, before.len), SPMU_OK);
    for (i = 0; i < spmu_core_threads(c); i++)
      assert_int_equal(spmu_lp_init_signal(spmu_core_lp(c, i)), SPMU_OK);
    save(c, &after);
    assert_int_equal(after.len, before.len);
    assert_memory_equal(after.b, before.b, before.len);
    assert_same_msrs(c, copy);
    spmu_core_free(c);
    spmu_core_free(copy);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_save_restore_round_trip_every_preset),
      cmocka_unit_test(test_restore_over_programmed_core),
      cmocka_unit_test(test_blob_layout_format4),
      cmocka_unit_test(test_save_reports_needed_size),
      cmocka_unit_test(test_restore_rejects_other_format),
      cmocka_unit_test(test_restore_rejects_other_profile),
      cmocka_unit_test(test_restore_rejects_flipped_byte),
      cmocka_unit_test(test_restore_rejects_truncated),
      cmocka_unit_test(test_restore_rejects_bad_magic),
      cmocka_unit_test(test_restore_reserved_bit_never_half_applies),
      cmocka_unit_test(test_restore_read_only_bit_never_half_applies),
      cmocka_unit_test(test_host_global_status_defined_bits_only),
      cmocka_unit_test(test_host_pmc_full_width_no_sign_extension),
      cmocka_unit_test(test_host_perf_capabilities_read_only),
      cmocka_unit_test(test_host_inuse_read_only),
      cmocka_unit_test(test_core_reset_power_on_values),
      cmocka_unit_test(test_lp_init_leaves_msrs_unchanged),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

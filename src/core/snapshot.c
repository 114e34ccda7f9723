/* SPDX-License-Identifier: MIT */
/* Save and restore of a whole core as a versioned, little-endian blob.
 *
 * Format 4:
 *   0   "SPMU"                       magic
 *   4   u16 format (4)
 *   6   u16 logical processors
 *   8   u64 profile fingerprint      FNV-1a of the profile's key=value form
 *                                    (name and part left out: neither
 *                                    changes a register)
 *   16  per logical processor: u16 n, then n x (u32 address, u64 value)
 *       for every stored MSR of the profile, in ascending address order,
 *       then the counting engine's state: u32 edge-detect conditions
 *       (bit i = GP counter i), u32 PEBS counters armed (bit i = PMCi,
 *       bit 8 + j = FIXED_CTRj), then for a profile with LBRs the
 *       last-branch latch the last exception record copies from: u64
 *       from, to, info (core/state.h)
 * The stored MSRs include the LBR stack and its controls (FROM/TO/INFO,
 * TOS, LBR_SELECT; IA32_LBR_CTL, IA32_LBR_DEPTH) and the LER MSRs, which
 * the logical processor's LBR file holds. (Format 1 had no armed word;
 * format 2 no LBRs; format 3 neither the model-specific LER MSRs nor the
 * latch: a format 1, 2 or 3 blob gets SPMU_EVERSION, and a core of a
 * profile without LBRs saves exactly what format 2 saved.)
 *
 * NetBurst profiles: the shared MSRs (counters, CCCRs, ESCRs, tagging
 * MSRs) appear in every logical processor's records, as each one reads
 * them, and a restore requires the copies to agree. The two words are the
 * NetBurst engine's (src/netburst/engine.c): threshold-output
 * state of the 18 counters (logical processor 0 only), and the counters
 * owing the logical processor a PMI plus bit 31 for its PEBS counter
 * armed.
 *   end u64 FNV-1a of every byte before it
 */
#include <stdint.h>
#include <string.h>

#include "core/engine.h"
#include "core/msr.h"
#include "core/objects.h"
#include "softpmu/error.h"

#define HDR_LEN 16u
#define ENTRY_LEN 12u
#define LATCH_LEN 24u

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  while (n--) {
    h ^= *p++;
    h *= UINT64_C(0x100000001b3);
  }
  return h;
}

static uint64_t profile_fingerprint(const spmu_profile *p)
{
  spmu_profile anon = *p;
  char buf[512];
  int n;

  anon.name[0] = '\0';
  anon.part = SPMU_PART_NONE;
  n = spmu_profile_format(&anon, buf, sizeof buf);
  return n > 0 ? fnv1a((const uint8_t *)buf, (size_t)n) : 0;
}

static unsigned saved_count(const struct spmu_applied *a)
{
  unsigned i, n = 0;
  for (i = 0; i < a->nmsr; i++)
    n += spmu_msr_saved(&a->msr[i]);
  return n;
}

/* The bytes of the last-branch latch per logical processor. */
static size_t latch_len(const spmu_core *c)
{
  return c->a.lbr_entries ? LATCH_LEN : 0;
}

static size_t blob_len(const spmu_core *c)
{
  return HDR_LEN +
         c->nlp *
             (2 + (size_t)saved_count(&c->a) * ENTRY_LEN + 8 + latch_len(c)) +
         8;
}

/* The stored MSRs in ascending address order: walk the address index. */
static const struct spmu_msr_rt *next_saved(const struct spmu_applied *a,
                                            uint32_t *addr)
{
  for (; *addr < SPMU_MSR_SPAN; (*addr)++) {
    const struct spmu_msr_rt *m = spmu_applied_find(a, *addr);
    if (m && spmu_msr_saved(m)) {
      (*addr)++;
      return m;
    }
  }
  return NULL;
}

/* The counting engine's two words of logical processor i. */
static void engine_words(const spmu_core *c, unsigned i, uint32_t *edge,
                         uint32_t *armed)
{
  c->engine->save_words(c, i, edge, armed);
}

static bool engine_words_valid(const spmu_core *c, unsigned i, uint32_t edge,
                               uint32_t armed)
{
  return c->engine->words_valid(c, i, edge, armed);
}

int spmu_core_save(const spmu_core *core, void *buf, size_t cap, size_t *len)
{
  uint8_t *p = buf;
  size_t need;
  unsigned i;

  if (!core || !len)
    return SPMU_EINVAL;
  need = blob_len(core);
  *len = need;
  if (!buf || cap < need)
    return SPMU_ENOSPC;

  memcpy(p, "SPMU", 4);
  spmu_put_le(p + 4, SPMU_SNAPSHOT_FORMAT, 2);
  spmu_put_le(p + 6, core->nlp, 2);
  spmu_put_le(p + 8, profile_fingerprint(&core->a.prof), 8);
  p += HDR_LEN;
  for (i = 0; i < core->nlp; i++) {
    const struct spmu_msr_rt *m;
    uint32_t addr = 0, edge, armed;
    struct spmu_regfiles f = spmu_lp_file((spmu_lp *)(uintptr_t)&core->lp[i]);

    spmu_put_le(p, saved_count(&core->a), 2);
    p += 2;
    while ((m = next_saved(&core->a, &addr)) != NULL) {
      spmu_put_le(p, m->addr, 4);
      spmu_put_le(p + 4, spmu_msr_read(&core->a, &f, m), 8);
      p += ENTRY_LEN;
    }
    engine_words(core, i, &edge, &armed);
    spmu_put_le(p, edge, 4);
    spmu_put_le(p + 4, armed, 4);
    p += 8;
    if (latch_len(core)) {
      const struct spmu_lbr_regs *l = &core->lbr[i];
      spmu_put_le(p, l->last_from, 8);
      spmu_put_le(p + 8, l->last_to, 8);
      spmu_put_le(p + 16, l->last_info, 8);
      p += LATCH_LEN;
    }
  }
  spmu_put_le(p, fnv1a(buf, need - 8), 8);
  return SPMU_OK;
}

/* Stage one record into f. A shared MSR (NetBurst) is staged by logical
 * processor 0; the others' copies must read back the same. */
static int restore_msr(const spmu_core *c, const struct spmu_regfiles *f,
                       const struct spmu_msr_rt *m, uint64_t v)
{
  if (m->def->shared && f->index > 0)
    return spmu_msr_read(&c->a, f, m) == v ? SPMU_OK : SPMU_ECORRUPT;
  switch (spmu_msr_write(&c->a, f, m, v, true)) {
  case SPMU_WR_OK:
    return SPMU_OK;
  case SPMU_WR_READONLY:
    return SPMU_EREADONLY;
  default:
    return SPMU_ERESERVED;
  }
}

/* Check one logical processor's records and stage them into f, *edge,
 * *armed. */
static int restore_lp(const spmu_core *c, const uint8_t **pp,
                      const struct spmu_regfiles *f, uint32_t *edge,
                      uint32_t *armed)
{
  const uint8_t *p = *pp;
  const struct spmu_msr_rt *m;
  uint32_t addr = 0;
  int rc;

  if (spmu_get_le(p, 2) != saved_count(&c->a))
    return SPMU_ECORRUPT;
  p += 2;
  while ((m = next_saved(&c->a, &addr)) != NULL) {
    if (spmu_get_le(p, 4) != m->addr)
      return SPMU_ECORRUPT;
    rc = restore_msr(c, f, m, spmu_get_le(p + 4, 8));
    if (rc != SPMU_OK)
      return rc;
    p += ENTRY_LEN;
  }
  *edge = (uint32_t)spmu_get_le(p, 4);
  *armed = (uint32_t)spmu_get_le(p + 4, 4);
  if (!engine_words_valid(c, f->index, *edge, *armed))
    return SPMU_ECORRUPT;
  p += 8;
  if (latch_len(c)) {
    f->lbr->last_from = spmu_get_le(p, 8);
    f->lbr->last_to = spmu_get_le(p + 8, 8);
    f->lbr->last_info = spmu_get_le(p + 16, 8);
    p += LATCH_LEN;
  }
  *pp = p;
  return SPMU_OK;
}

int spmu_core_restore(spmu_core *core, const void *buf, size_t len)
{
  const uint8_t *p = buf;
  unsigned i;
  int rc;

  if (!core || !buf)
    return SPMU_EINVAL;
  if (len < HDR_LEN + 8 || memcmp(p, "SPMU", 4) != 0)
    return SPMU_ECORRUPT;
  if (spmu_get_le(p + 4, 2) != SPMU_SNAPSHOT_FORMAT)
    return SPMU_EVERSION;
  if (spmu_get_le(p + 6, 2) != core->nlp ||
      spmu_get_le(p + 8, 8) != profile_fingerprint(&core->a.prof))
    return SPMU_EMISMATCH;
  if (len != blob_len(core) || spmu_get_le(p + len - 8, 8) != fnv1a(p, len - 8))
    return SPMU_ECORRUPT;

  /* Check every record on staging copies: one register file at a time,
   * and the shared NetBurst file, which later logical processors compare
   * against. Nothing real has changed if a record is refused. */
  p = (const uint8_t *)buf + HDR_LEN;
  core->nb_scratch = core->nb_regs;
  for (i = 0; i < core->nlp; i++) {
    struct spmu_regfiles f = {&core->scratch, &core->nb_scratch, i,
                              &core->lbr_scratch};
    uint32_t edge, armed;
    core->scratch = core->lp[i].r;
    core->lbr_scratch = core->lbr[i];
    rc = restore_lp(core, &p, &f, &edge, &armed);
    if (rc != SPMU_OK)
      return rc;
  }
  /* Every record passed: replay them onto the real registers. Each write
   * starts from the state the check started from, so it gives the same
   * result and cannot fail. */
  p = (const uint8_t *)buf + HDR_LEN;
  for (i = 0; i < core->nlp; i++) {
    struct spmu_regfiles f = spmu_lp_file(&core->lp[i]);
    uint32_t edge, armed;
    (void)restore_lp(core, &p, &f, &edge, &armed);
    core->engine->load_words(core, i, edge, armed);
    spmu_lp_touch(&core->lp[i]);
  }
  return SPMU_OK;
}

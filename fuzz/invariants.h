/* SPDX-License-Identifier: MIT */
/* State invariants of a softpmu core, stated with the public API only.
 *
 * Used by the fuzz harnesses after the steps of their sample (harness.h),
 * and usable from the tests
 * (#include "invariants.h" with fuzz/ on the include path, link
 * fuzz/invariants.c). Each violation is reported as one line that starts
 * with the invariant's name, e.g.
 *   "counter-width: LP1 IA32_PMC2 = 0x1000000000000 has bits above 48".
 *
 * The invariants, for every logical processor (LP):
 *   read-agree      RDMSR succeeds on every MSR of spmu_msr_list and
 *                   returns what spmu_host_rdmsr returns; an MSR outside
 *                   the list faults (RDMSR) or is SPMU_ENOMSR (host).
 *   write-only-zero W1C/W1S registers (OVF_CTRL, STATUS_RESET, STATUS_SET)
 *                   read 0.
 *   counter-width   every counter holds no bit at or above its width.
 *   reserved-clear  a stored register (RW, RO) has no reserved bit set:
 *                   GLOBAL_STATUS holds only bits the profile defines,
 *                   GLOBAL_CTRL only existing enables, ...
 *   readonly-kept   read-only fields of RW registers (IA32_MISC_ENABLE's
 *                   perf bits) keep their power-on value; CONST registers
 *                   (PERF_CAPABILITIES) equal it.
 *   alias-agree     an alias (IA32_A_PMCi) reads as the MSR it aliases.
 *   ds-canonical    IA32_DS_AREA holds a canonical 48-bit address.
 *   rdpmc-agree     RDPMC at CPL 0 of every present counter (and ECX =
 *                   1<<29 for PERF_METRICS) returns its RDMSR value.
 *   inuse           IA32_PERF_GLOBAL_INUSE (392H, v4+) is exactly
 *                   (SDM 18.2.4.3, Figure 18-13):
 *                     bit i    (i < gp)  IA32_PERFEVTSELi[7:0] != 0
 *                              (the event select field, not EN);
 *                     bit 32+j (fixed j present)
 *                              IA32_FIXED_CTR_CTRL[4j+1:4j] != 0
 *                              (the 2-bit enable field, not its PMI bit);
 *                     bit 63   any PERFEVTSELi.INT (bit 20), any
 *                              FIXED_CTR_CTRL PMI bit (4j+3) of a present
 *                              counter, or any IA32_PEBS_ENABLE bit that
 *                              enables PEBS on a GP or fixed counter (the
 *                              fields named PEBS_EN_*; not LL_EN_PMCi nor
 *                              PS_EN);
 *                     every other bit 0.
 * and for the core:
 *   snapshot-roundtrip  spmu_core_save, spmu_core_restore into a second
 *                       core of the same profile, spmu_core_save again
 *                       give the same bytes.
 *
 * spmu_check_invariants() is self-contained (it creates and frees a
 * scratch core each call). The harnesses use a context prepared once per
 * profile instead, which caches the register descriptions. */
#ifndef SPMU_FUZZ_INVARIANTS_H
#define SPMU_FUZZ_INVARIANTS_H

#include <stddef.h>
#include <stdint.h>

#include <softpmu/softpmu.h>

/* Upper bound on the MSRs a profile has (the library's own bound is 96). */
#define SPMU_INV_MAX_MSRS 256

/* What the checker knows about a profile, computed once. */
typedef struct spmu_inv_ctx {
  spmu_profile prof;
  size_t nmsr;
  spmu_msr_info msr[SPMU_INV_MAX_MSRS]; /* ascending address order */
  uint64_t pebs_en;   /* PEBS_ENABLE bits of the PEBS_EN_* fields */
  spmu_core *scratch; /* second core for the snapshot round trip */
  uint8_t *blob_a;    /* after spmu_inv_check: the core's snapshot */
  uint8_t *blob_b;
  uint8_t *verified; /* the last snapshot whose round trip held */
  int have_verified;
  size_t blob_len;
} spmu_inv_ctx;

/* Prepare ctx for cores of profile p: SPMU_OK or a negative error. */
int spmu_inv_ctx_init(spmu_inv_ctx *ctx, const spmu_profile *p);
void spmu_inv_ctx_fini(spmu_inv_ctx *ctx);

/* The description of MSR addr in ctx's profile, or NULL if absent. */
const spmu_msr_info *spmu_inv_msr(const spmu_inv_ctx *ctx, uint32_t addr);

/* Check every invariant of core (whose profile must be ctx's). Returns 0
 * when all hold, else -1 with the first violation in why[0..len). On
 * return ctx->blob_a holds the core's snapshot (ctx->blob_len bytes). The
 * round trip is skipped when that snapshot is byte for byte the last one
 * whose round trip held (its outcome depends on those bytes alone). */
int spmu_inv_check(spmu_inv_ctx *ctx, spmu_core *core, char *why, size_t len);

/* The same, self-contained. */
int spmu_check_invariants(spmu_core *core, char *why, size_t len);

/* Save core into buf (ctx->blob_len bytes): 0, or -1 with why. */
int spmu_inv_save(spmu_inv_ctx *ctx, const spmu_core *core, uint8_t *buf,
                  char *why, size_t len);

#endif

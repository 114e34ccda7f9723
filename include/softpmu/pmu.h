/* SPDX-License-Identifier: MIT */
/* softpmu — the PMU of one processor core, and its logical processors.
 *
 * A core is created from a profile; it holds one PMU state per logical
 * processor (hyper-thread); on NetBurst profiles the counters, CCCRs, ESCRs
 * and tagging MSRs are one set per core that every logical processor reads
 * and writes (SDM 18.16, Table 35-41 "Shared"). All memory is allocated by
 * spmu_core_new(); nothing else allocates, performs I/O or reads a clock. A
 * core is not thread-safe: serialise calls on one core; distinct cores share
 * nothing.
 *
 * Guest path: spmu_wrmsr/spmu_rdmsr/spmu_rdpmc behave exactly as the
 * instructions do and return SPMU_OK or SPMU_GP (#GP(0)); a negative code
 * means the call itself was wrong (NULL pointer).
 *
 * Host path: spmu_host_wrmsr/spmu_host_rdmsr are for a VMM saving and
 * restoring state. They may set state the guest cannot (GLOBAL_STATUS, full
 * 64-bit counter values), never raise faults, and report bad values as
 * negative error codes.
 *
 * Results (every header of softpmu): a function's int result is a
 * negative error (error.h) or a non-negative answer, never both: an error
 * is never also a valid result. Where an answer could take any value (a
 * count, a deadline, an MSR value), it is returned through a pointer and
 * the int is only SPMU_OK (or tick bits) or an error; a pointer is only
 * written as the function says (spmu_deadline: untouched on an error).
 */
#ifndef SOFTPMU_PMU_H
#define SOFTPMU_PMU_H

#include "export.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Counter numbers, as every public call and struct uses them (spmu_event,
 * spmu_counter_enabled, the agent's counter sets): a counter's bit in
 * IA32_PERF_GLOBAL_CTRL and IA32_PERF_GLOBAL_STATUS (SDM 18.2.2.2, Figures
 * 18-3 and 18-4). GP counter i is i, fixed counter j is 32 + j; NetBurst
 * counter n (MSR 300H + n) is n. RDPMC has its own numbering (ECX[30]
 * selects the fixed counters, see spmu_rdpmc). */
#define SPMU_COUNTER_GP(i) (i)
#define SPMU_COUNTER_FIXED(j) (32u + (j))

typedef struct spmu_core spmu_core;
typedef struct spmu_lp spmu_lp;

/* Create a core for a valid profile (see spmu_profile_validate), in the
 * power-on state. Returns SPMU_OK, SPMU_EINVAL, SPMU_EPROFILE, SPMU_ENOMEM. */
SPMU_API int spmu_core_new(const spmu_profile *profile, spmu_core **out);
SPMU_API void spmu_core_free(spmu_core *core);

SPMU_API const spmu_profile *spmu_core_profile(const spmu_core *core);
SPMU_API unsigned spmu_core_threads(const spmu_core *core);
/* Logical processor i of the core, or NULL if i is out of range. */
SPMU_API spmu_lp *spmu_core_lp(spmu_core *core, unsigned i);
SPMU_API spmu_core *spmu_lp_core(const spmu_lp *lp);
/* lp's index in its core (0..threads-1), or SPMU_EINVAL for NULL. */
SPMU_API int spmu_lp_index(const spmu_lp *lp);

/* Power-on (RESET#) of the whole core: every PMU MSR takes its reset value
 * (SDM Vol. 3A 9.1.1, Table 9-1; GLOBAL_CTRL per SDM 18.2.2). */
SPMU_API int spmu_core_reset(spmu_core *core);
/* The INIT# signal to one logical processor (not an initialisation of
 * the object: spmu_core_new does that). SDM Vol. 3A 9.1: "during an INIT,
 * the internal caches, MSRs, MTRRs, and x87 FPU state are left unchanged",
 * so every PMU MSR keeps its value and the model's state with them: a
 * legacy freeze on PMI (GLOBAL_CTRL cleared, SDM 18.2.4.1) lasts until
 * software writes GLOBAL_CTRL, PEBS counters stay armed, the edge-detect
 * state stays. Changes nothing; SPMU_EINVAL for NULL
 * (docs/decisions.md #6). */
SPMU_API int spmu_lp_init_signal(spmu_lp *lp);

/* WRMSR / RDMSR from the guest. */
SPMU_API int spmu_wrmsr(spmu_lp *lp, uint32_t msr, uint64_t value);
SPMU_API int spmu_rdmsr(spmu_lp *lp, uint32_t msr, uint64_t *value);

/* RDPMC with ECX = ecx at privilege level cpl (0-3) with CR4.PCE = cr4_pce
 * (SDM Vol. 2B RDPMC): ECX[30] selects the fixed counters, ECX[29:0] is the
 * index; ECX = 1<<29 reads MSR_PERF_METRICS where present. #GP at CPL > 0
 * without CR4.PCE, and for any ECX that names no present counter (the
 * ECX[31] fast-read form included: architectural perfmon has none).
 * *value gets the counter's width bits (EDX:EAX). On a NetBurst core
 * ECX[30:0] is the counter n (0-17, MSR 300H + n) and ECX[31] the fast
 * read: EAX = bits 31:0, EDX = 0. */
SPMU_API int spmu_rdpmc(spmu_lp *lp, uint32_t ecx, unsigned cpl, bool cr4_pce,
                        uint64_t *value);

/* Whether counter `counter` of lp is enabled by its controls: 1 yes, 0
 * no, SPMU_EINVAL for NULL or a counter the profile lacks. `counter` is a
 * counter number (SPMU_COUNTER_GP / SPMU_COUNTER_FIXED). SDM 18.2.2: a GP
 * counter needs IA32_PERFEVTSELi.EN, a fixed counter a nonzero enable field
 * (bits 4j+1:4j) of IA32_FIXED_CTR_CTRL, and from perfmon v2 both also their
 * IA32_PERF_GLOBAL_CTRL bit; SDM 18.15.5.1: a NetBurst counter its
 * CCCR.ENABLE. Only the enables: what the counter then counts also
 * depends on its filters (CPL, AnyThread) and on a freeze. */
SPMU_API int spmu_counter_enabled(const spmu_lp *lp, unsigned counter);

/* CPUID of this logical processor's profile (see spmu_profile_cpuid). */
SPMU_API int spmu_cpuid(const spmu_lp *lp, uint32_t leaf, uint32_t subleaf,
                        uint32_t regs[4]);

/* Host (VMM) access. Writes: counters take the full width as given (no
 * sign extension); GLOBAL_STATUS takes any bit the profile defines;
 * OVF_CTRL/STATUS_RESET/STATUS_SET act as for the guest; read-only state
 * (PERF_CAPABILITIES, INUSE, MISC_ENABLE perf bits) accepts only its current
 * value. Errors: SPMU_ENOMSR, SPMU_ERESERVED, SPMU_EREADONLY, SPMU_EINVAL. */
SPMU_API int spmu_host_wrmsr(spmu_lp *lp, uint32_t msr, uint64_t value);
SPMU_API int spmu_host_rdmsr(const spmu_lp *lp, uint32_t msr, uint64_t *value);

/* Snapshot of the whole core as a versioned, little-endian byte blob.
 * spmu_core_save writes at most cap bytes and sets *len to the size the
 * blob needs; with buf == NULL or cap too small it returns SPMU_ENOSPC
 * (and *len) so the caller can size the buffer. spmu_core_restore checks
 * everything before changing anything: another format version
 * (SPMU_EVERSION), another profile (SPMU_EMISMATCH), a damaged blob
 * (SPMU_ECORRUPT) or an invalid value (SPMU_ERESERVED...) leave the core
 * untouched. */
SPMU_API int spmu_core_save(const spmu_core *core, void *buf, size_t cap,
                            size_t *len);
SPMU_API int spmu_core_restore(spmu_core *core, const void *buf, size_t len);

#define SPMU_SNAPSHOT_FORMAT 4

#ifdef __cplusplus
}
#endif
#endif

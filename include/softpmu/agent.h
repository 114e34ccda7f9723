/* SPDX-License-Identifier: MIT */
/* softpmu — the agent library: the software side of the SDM.
 *
 * What a driver or a VMM does to a PMU, written once: discover it through
 * CPUID.0AH, share it with other agents by the protocol of SDM 18.2.4.3
 * (scan, claim, verify by reading back, release), program counters by the
 * SDM's procedures (GLOBAL_CTRL last, 18.2.4.1; overflow indications
 * cleared, 18.6.2.2) and handle PMIs by the classic flow (18.2.2, 17.4.7)
 * or the perfmon v4 freeze flow (18.2.4.1).
 *
 * An agent reaches the PMU only through a backend: four function pointers
 * and an opaque pointer. Two backends come with the library: the
 * in-process model (a spmu_lp) and real hardware through Linux's
 * /dev/cpu/N/msr and /dev/cpu/N/cpuid.
 *
 * Counters are named by their counter number (pmu.h: their bit in
 * IA32_PERF_GLOBAL_CTRL / _STATUS / _INUSE; SPMU_AGENT_GP and
 * SPMU_AGENT_FIXED are SPMU_COUNTER_GP and SPMU_COUNTER_FIXED). Counter
 * sets are uint64_t masks of those bits.
 *
 * Results: SPMU_OK; SPMU_GP when an MSR access faulted (the backend's PMU is
 * not what its CPUID says; spmu_agent_fault_msr names the MSR); a negative
 * SPMU_E* code otherwise, SPMU_EBUSY when the sharing protocol finds the
 * resource taken by another agent.
 *
 * An agent is not thread-safe; it runs on the logical processor whose PMU
 * its backend reaches.
 *
 * A Pentium 4 (NetBurst) PMU has no architectural perfmon: CPUID.0AH reads
 * 0 there, and spmu_agent_new refuses it. spmu_agent_new_netburst makes an
 * agent for it, which programs counters through ESCRs and CCCRs by the
 * SDM's procedure (18.15.5.1); see "NetBurst" below.
 */
#ifndef SOFTPMU_AGENT_H
#define SOFTPMU_AGENT_H

#include "export.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- backends ------------------------------------------------------------
 * Each call returns SPMU_OK, SPMU_GP (the instruction faulted) or a
 * negative error (SPMU_EIO: the backend itself failed). */
typedef struct spmu_backend {
  void *opaque;
  int (*rdmsr)(void *opaque, uint32_t msr, uint64_t *value);
  int (*wrmsr)(void *opaque, uint32_t msr, uint64_t value);
  /* RDPMC at CPL 0 (ECX as the instruction takes it); NULL: the agent
   * reads counters with RDMSR. */
  int (*rdpmc)(void *opaque, uint32_t ecx, uint64_t *value);
  /* regs = {EAX, EBX, ECX, EDX}. */
  int (*cpuid)(void *opaque, uint32_t leaf, uint32_t subleaf, uint32_t regs[4]);
  /* Clear the Mask bit of the local APIC's LVT performance-counter entry,
   * which the APIC sets when it delivers a PMI (SDM 10.5.1); the PMI
   * handler calls it at the step the flow prescribes. NULL: the host
   * unmasks it itself. */
  int (*pmi_unmask)(void *opaque);
} spmu_backend;

/* The in-process model: the guest path of lp (spmu_wrmsr, spmu_rdmsr,
 * spmu_rdpmc at CPL 0, spmu_cpuid). A #GP of the model is SPMU_GP. */
SPMU_API int spmu_backend_model(spmu_lp *lp, spmu_backend *out);

/* Real hardware through Linux's msr and cpuid drivers: RDMSR/WRMSR are
 * 8-byte pread/pwrite at offset = MSR address of /dev/cpu/N/msr (EIO from
 * the driver is the instruction's #GP), CPUID a 16-byte pread (EAX, EBX,
 * ECX, EDX) at offset = leaf | subleaf << 32 of /dev/cpu/N/cpuid. No RDPMC.
 *
 * spmu_hw_open opens CPU cpu's devices; spmu_hw_open_paths opens the given
 * files instead (regular files stand in for the devices in tests; there, a
 * read past the end of the file is a #GP). cpuid_path may be NULL (CPUID
 * then fails with SPMU_ENOENT). On failure, *out is NULL, the result is
 * SPMU_ENOENT (no such file: the driver is not loaded) or SPMU_EIO (no
 * permission, or another error), and why (when not NULL) gets the reason
 * from spmu_hw_explain. */
typedef struct spmu_hw spmu_hw;
SPMU_API int spmu_hw_open(unsigned cpu, spmu_hw **out, char *why,
                          size_t whylen);
SPMU_API int spmu_hw_open_paths(const char *msr_path, const char *cpuid_path,
                                spmu_hw **out, char *why, size_t whylen);
SPMU_API void spmu_hw_close(spmu_hw *hw);
/* The backend of an open spmu_hw, valid until spmu_hw_close (free the
 * agents using it first: spmu_agent_free releases through it). */
SPMU_API int spmu_hw_backend(spmu_hw *hw, spmu_backend *out);
/* Why opening path failed with errno sys_errno, in plain words: ENOENT
 * names the driver to load (`modprobe msr` / `modprobe cpuid`),
 * EACCES/EPERM say root or CAP_SYS_RAWIO is needed. Writes a one-line
 * reason to why and returns the code spmu_hw_open gives for it. */
SPMU_API int spmu_hw_explain(const char *path, int sys_errno, char *why,
                             size_t whylen);

/* ---- the agent ------------------------------------------------------- */
typedef struct spmu_agent spmu_agent;

#define SPMU_AGENT_GP(i) SPMU_COUNTER_GP(i)
#define SPMU_AGENT_FIXED(j) SPMU_COUNTER_FIXED(j)
#define SPMU_AGENT_PMI_INUSE (UINT64_C(1) << 63) /* INUSE.PMI_InUse */

/* The PMU as CPUID.0AH (and IA32_PERF_CAPABILITIES) enumerates it. */
typedef struct spmu_agent_pmu {
  uint8_t version;            /* CPUID.0AH:EAX[7:0] */
  uint8_t gp;                 /* EAX[15:8] (at most SPMU_MAX_GP used) */
  uint8_t gp_width;           /* EAX[23:16] */
  uint8_t fixed_width;        /* EDX[12:5] (v2+) */
  uint32_t fixed_mask;        /* FxCtr[i]_supported: ECX[i] || EDX[4:0] > i */
  uint32_t events_available;  /* bit i: architectural event i usable (EBX) */
  bool any_thread;            /* AnyThread usable (v3+, not EDX[15]) */
  bool full_width_writes;     /* PERF_CAPABILITIES[13]: IA32_A_PMCx */
  uint64_t perf_capabilities; /* 0 without CPUID.01H:ECX[15] PDCM */
  /* A NetBurst agent (spmu_agent_new_netburst): version 0, no GP or fixed
   * counters in the architectural sense, gp_width 40 (the width of its 18
   * counters, SDM 18.15.2); spmu_agent_present gives counters 0-17. */
  bool netburst;
} spmu_agent_pmu;

/* Event flags (PERFEVTSEL fields; fixed counters take USR, OS and ANY). */
enum spmu_agent_flag {
  SPMU_AGENT_USR = 1u << 0,  /* count at CPL > 0 */
  SPMU_AGENT_OS = 1u << 1,   /* count at CPL 0 */
  SPMU_AGENT_EDGE = 1u << 2, /* E: count deasserted-to-asserted edges */
  SPMU_AGENT_INV = 1u << 3,  /* INV: invert the CMASK comparison */
  SPMU_AGENT_ANY = 1u << 4,  /* AnyThread (needs spmu_agent_pmu.any_thread) */
  /* NetBurst only (SDM 18.16.1-18.16.2): count logical processor 0's /
   * 1's events (ESCR T0_OS/T0_USR, T1_OS/T1_USR) and, when sampling, send
   * the PMI to it (CCCR OVF_PMI_T0 / OVF_PMI_T1). */
  SPMU_AGENT_T0 = 1u << 5,
  SPMU_AGENT_T1 = 1u << 6,
};

/* What to count on a counter. INT and EN are the agent's: INT is set iff
 * period != 0, EN when the counter is started. */
typedef struct spmu_agent_event {
  uint8_t event; /* PERFEVTSEL[7:0]; non-zero on GP counters */
  uint8_t umask; /* PERFEVTSEL[15:8] */
  uint8_t cmask; /* PERFEVTSEL[31:24] (GP counters only) */
  uint8_t flags; /* enum spmu_agent_flag; USR and/or OS required */
  /* 0: count from 0. Otherwise sample: preset to -period, PMI on
   * overflow, reload in the PMI handler. At most 2^31 on GP counters
   * without full-width writes, else 2^(width-1). */
  uint64_t period;
} spmu_agent_event;

/* Create an agent on a backend (copied) and discover the PMU through
 * CPUID.0AH, CPUID.01H:ECX[15] and IA32_PERF_CAPABILITIES. SPMU_ENOMSR when
 * CPUID.0AH reports no architectural PMU (version 0): on a NetBurst PMU,
 * use spmu_agent_new_netburst. */
SPMU_API int spmu_agent_new(const spmu_backend *be, spmu_agent **out);
/* Create an agent for a NetBurst PMU (SDM 18.15-18.16). The caller says it
 * is one: nothing architectural enumerates it (CPUID.0AH is 0, and the
 * model's CPUID.01H reports no family). The agent checks what it can:
 * when CPUID.01H answers with a family (EAX[11:8]) other than 0 (not
 * reported) or 0FH, SPMU_ENOMSR; when RDMSR of MSR_BPU_CCCR0 (360H)
 * faults, SPMU_ENOMSR. Whether the part has Hyper-Threading is not
 * probed: a T1 bit on a part without it faults (SPMU_GP) at the claim. */
SPMU_API int spmu_agent_new_netburst(const spmu_backend *be, spmu_agent **out);
/* Release every counter the agent holds (spmu_agent_release_all, errors
 * ignored), then free it. */
SPMU_API void spmu_agent_free(spmu_agent *a);

SPMU_API int spmu_agent_pmu_get(const spmu_agent *a, spmu_agent_pmu *out);
/* Counters present (bits as above). */
SPMU_API uint64_t spmu_agent_present(const spmu_agent *a);
/* Counters this agent holds, and those of them started. */
SPMU_API uint64_t spmu_agent_owned(const spmu_agent *a);
SPMU_API uint64_t spmu_agent_running(const spmu_agent *a);
/* Does this agent hold the PMI (it has a sampling counter)? */
SPMU_API bool spmu_agent_pmi_owned(const spmu_agent *a);
/* The MSR whose access last returned SPMU_GP (0 if none yet). */
SPMU_API uint32_t spmu_agent_fault_msr(const spmu_agent *a);

/* The sharing protocol (SDM 18.2.4.3, Figure 18-13).
 *
 * spmu_agent_scan reads which resources are in use, in the layout of
 * IA32_PERF_GLOBAL_INUSE: from that MSR on v4+; before v4 by computing it
 * from the event selects (EVTSELn[7:0] != 0), IA32_FIXED_CTR_CTRL
 * (ENi != 0) and, for PMI_InUse, the INT and PMI bits and the PEBS
 * enables. The agent's own counters are included. */
SPMU_API int spmu_agent_scan(spmu_agent *a, uint64_t *inuse);

/* Claim a free counter for ev: a fixed counter that counts the event if one
 * is free, else the lowest free GP counter. The claim reads the shared state
 * afresh, writes the counter's control with EN clear (so it shows in use),
 * and reads it back (and INUSE on v4+): a counter another agent took first
 * is skipped for the next free one. A sampling event also needs the PMI:
 * SPMU_EBUSY if PMI_InUse shows another agent holds it. The counter is then
 * preset (0, or -period) and its overflow indication cleared (18.6.2.2);
 * it counts after spmu_agent_start. *counter gets its number.
 * SPMU_EBUSY when no suitable counter is free. */
SPMU_API int spmu_agent_claim(spmu_agent *a, const spmu_agent_event *ev,
                              unsigned *counter);
/* The same for one given counter: SPMU_EBUSY if it is in use, SPMU_EINVAL
 * if it is absent, cannot count ev, or is already this agent's (see
 * spmu_agent_reprogram). */
SPMU_API int spmu_agent_claim_counter(spmu_agent *a, unsigned counter,
                                      const spmu_agent_event *ev);
/* Give a counter back, restoring what the claim found: its control (event
 * select, or FIXED_CTR_CTRL field), its value (bits 31:0 sign-extended on
 * GP counters without full-width writes) and its GLOBAL_CTRL bit, after
 * stopping it and clearing its overflow indication (18.6.2.2). The last
 * sampling counter also gives back the PMI and restores
 * DEBUGCTL.FREEZE_PERFMON_ON_PMI. */
SPMU_API int spmu_agent_release(spmu_agent *a, unsigned counter);
SPMU_API int spmu_agent_release_all(spmu_agent *a);

/* Programming (SDM 18.2.4.1, 18.6.2.2).
 *
 * spmu_agent_start enables every held counter not yet running: event
 * selects get EN, then IA32_PERF_GLOBAL_CTRL gets their bits in one write,
 * the last (SDM 18.2.4.1). spmu_agent_stop clears the GLOBAL_CTRL bits
 * first, then EN, then the overflow indications (SDM 18.6.2.2); values
 * are kept, so start resumes. Before v2 EN alone enables. */
SPMU_API int spmu_agent_start(spmu_agent *a);
SPMU_API int spmu_agent_stop(spmu_agent *a);
/* Put a new event on a held counter: stop it, write the new control,
 * preset the value, clear its overflow indication (18.6.2.2), restart it
 * if it was running (GLOBAL_CTRL last). The sample count restarts at 0. */
SPMU_API int spmu_agent_reprogram(spmu_agent *a, unsigned counter,
                                  const spmu_agent_event *ev);
/* The value of any present counter (width bits), by RDPMC when the backend
 * has it, else RDMSR. */
SPMU_API int spmu_agent_read(spmu_agent *a, unsigned counter, uint64_t *value);
/* Samples taken on a held counter since its claim or reprogramming. */
SPMU_API int spmu_agent_samples(const spmu_agent *a, unsigned counter,
                                uint64_t *samples);

/* PMI handling (SDM 18.2.2, 17.4.7; perfmon v4: 18.2.4.1).
 *
 * spmu_agent_set_freeze sets (or clears) IA32_DEBUGCTL.FREEZE_PERFMON_ON_PMI
 * (bit 12), which only the PMI's holder may do (SPMU_EINVAL otherwise, and
 * before v2). With it, v2-v3 hardware clears GLOBAL_CTRL at the PMI; v4+
 * sets GLOBAL_STATUS.CTR_Frz instead (SDM 17.4.7, 18.2.4.1).
 *
 * spmu_agent_handle_pmi is what the host calls when the PMI arrives (for
 * the model: from its spmu_host.pmi callback, or when spmu_deliver returns
 * SPMU_TICK_PMI). It handles the agent's own counters only:
 *  - classic flow (v2+, freeze off, or v2-v3 with freeze): save GLOBAL_CTRL
 *    and write 0; read GLOBAL_STATUS; acknowledge the agent's overflow bits
 *    through OVF_CTRL / STATUS_RESET and reload each overflowed sampling
 *    counter, reading the status again until none is left; write
 *    GLOBAL_CTRL back with the agent's running counters; unmask the LVT.
 *  - v4 freeze flow (v4+, freeze on): read GLOBAL_STATUS; reload the
 *    overflowed sampling counters; unmask the LVT; then, as the last step,
 *    one STATUS_RESET write acknowledges the overflow bits and clears
 *    CTR_Frz (and LBR_Frz), which unfreezes the counters.
 *  - v1 (no GLOBAL_STATUS): a sampling counter whose top bit is clear has
 *    overflowed; reload it; unmask the LVT.
 * A reload carries the events counted past the overflow into the next
 * period (preset -(period - overshoot)), with EN clear while the counter is
 * written (SDM 18.2.1.1); the counter's sample count grows by one per
 * period elapsed. *overflowed (may be NULL) gets the agent's counters that
 * overflowed. SPMU_EIO if the status still shows them after 100 passes. */
SPMU_API int spmu_agent_set_freeze(spmu_agent *a, bool on);
SPMU_API int spmu_agent_handle_pmi(spmu_agent *a, uint64_t *overflowed);

/* ---- NetBurst (SDM 18.15-18.16) ----------------------------------------
 *
 * Counter n (0-17) is MSR 300H + n, its CCCR 360H + n, RDPMC index n; the
 * counter sets of the calls above use bit n. Sharing (the rules of SDM
 * 18.2.4.3 applied to the NetBurst registers; the two logical processors of a
 * Hyper-Threading core share them all, SDM 18.16):
 *  - counter n is in use when its CCCR has ENABLE (bit 12), CASCADE (bit
 *    30) or extended cascading (bit 11) set: it counts, or will when
 *    another counter overflows;
 *  - an ESCR is in use when it is not 0 (its reset value: no event, no
 *    thread, no tag) or when a counter in use that it feeds selects it
 *    (CCCR ESCR select = the ESCR's select value, Table 18-63);
 *  - the PMI of logical processor t is in use when a CCCR has
 *    OVF_PMI_Tt (bit 26 + t) set.
 * An ESCR is never shared: each claim takes one of its own.
 *
 * On a NetBurst agent, spmu_agent_scan gives bit n for each counter in use
 * and SPMU_AGENT_PMI_INUSE when any CCCR has OVF_PMI_T0 or OVF_PMI_T1;
 * spmu_agent_claim, spmu_agent_claim_counter and spmu_agent_reprogram are
 * SPMU_EINVAL (claim with spmu_agent_nb_claim; to change the event,
 * release and claim again); spmu_agent_stop clears the ESCR's OS/USR bits,
 * so that it counts nothing while the counter keeps ENABLE and stays in
 * use, and spmu_agent_start writes them back; spmu_agent_read reads by
 * RDPMC n, else RDMSR 300H + n; spmu_agent_samples counts as for the
 * architectural flows.
 *
 * spmu_agent_handle_pmi runs the P4 flow (SDM 18.15.5.8, as Linux's
 * p4_pmu_handle_irq does): for each of the agent's sampling counters, read the
 * CCCR; if OVF is set, write the CCCR with OVF cleared, read the counter
 * and reload it with -(period - overshoot) & (2^40 - 1), so that no event
 * is lost, one sample per period elapsed; unmask the LVT when every OVF is
 * clear. The PMI comes at the counter's first increment after the
 * overflow (SDM 18.15.5.8), so by then the counter has run past 0. */

/* The CCCR's active-thread field (SDM 18.16.2, CCCR[17:16]). */
enum spmu_agent_nb_active {
  SPMU_AGENT_NB_ANY = 0,    /* 11B: either logical processor active (the
                               default, and the only value without HT) */
  SPMU_AGENT_NB_SINGLE = 1, /* 01B: exactly one active */
  SPMU_AGENT_NB_BOTH = 2,   /* 10B: both active */
  SPMU_AGENT_NB_NONE = 3,   /* 00B: neither active */
};

typedef struct spmu_agent_nb_event {
  /* "event[:MASK[:MASK...]]" as spmu_nb_event_parse takes it (netburst.h),
   * e.g. "instr_retired:NBOGUSNTAG"; only read during the claim. */
  const char *spec;
  /* SPMU_AGENT_USR and/or SPMU_AGENT_OS (one required), SPMU_AGENT_T0
   * and/or SPMU_AGENT_T1 (neither: T0, the only logical processor
   * without Hyper-Threading). */
  uint8_t flags;
  uint8_t active; /* enum spmu_agent_nb_active */
  /* 0: count from 0. Otherwise sample: preset to -period (40 bits),
   * OVF_PMI_Tt for each thread named, reload in the PMI handler. At most
   * 2^39. */
  uint64_t period;
} spmu_agent_nb_event;

/* Claim a counter for ev by the setup procedure of SDM 18.15.5.1, with
 * step 9 of 18.15.5.3 (set ENABLE):
 *  1. the event, from the SDM's table (spmu_nb_event_parse against every
 *     ESCR of the catalogue; an ESCR whose RDMSR faults is absent);
 *  2. the ESCR: ESCR0 if it is free and feeds a free counter, else ESCR1;
 *  3. the counter: the lowest free one that ESCR feeds;
 *  4. the ESCR's, the counter's and the CCCR's addresses (Table 18-63);
 *  5. WRMSR the ESCR with the event select, the event mask and the OS/USR
 *     bits of the threads named; read it back; preset the counter (0, or
 *     -period) while its CCCR still has ENABLE clear;
 *  6. WRMSR the CCCR with the ESCR select, the active-thread field,
 *     OVF_PMI_Tt when sampling and ENABLE (step 9), in one write as SDM
 *     18.15.5.1 notes software typically does, so that the counter is
 *     never configured yet free; read it back.
 * The counter counts from then on (it is running). A read-back showing
 * another agent's value leaves that register to it: the claim goes on with
 * the other ESCR, or with the next free counter after restoring the ESCR
 * it wrote. *counter gets n.
 *
 * SPMU_EBUSY: no free ESCR of the event feeds a free counter, or a
 * sampling claim needs the PMI of a thread whose OVF_PMI bit a CCCR the
 * agent does not hold has. SPMU_ENOENT / SPMU_ENOMSR: as
 * spmu_nb_event_parse (unknown name; no ESCR for it). SPMU_ERANGE: period
 * above 2^39. SPMU_EINVAL: not a NetBurst agent, no spec, no OS/USR flag,
 * another flag, an active value above 3. SPMU_GP: a write faulted (a T1
 * bit, or an active field other than 11B, without Hyper-Threading); the
 * claim's writes are undone.
 *
 * spmu_agent_release restores what the claim found: the ESCR (which stops
 * the counting while ENABLE still shows the counter in use), the counter's
 * value, then the CCCR, the last write. */
SPMU_API int spmu_agent_nb_claim(spmu_agent *a, const spmu_agent_nb_event *ev,
                                 unsigned *counter);

#ifdef __cplusplus
}
#endif
#endif

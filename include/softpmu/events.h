/* softpmu — feeding events to the model (the counting engine).
 *
 * The host tells a logical processor what happened in one clock: the CPL,
 * a few context flags, and a list of event lines with their increments in
 * that clock. An event line is the (event select, umask) pair a
 * PERFEVTSEL would program; the model knows nothing of what an event
 * means, exactly like the counter logic in hardware (SDM 18.2.1).
 *
 * The fixed counters count these lines (SDM 18.2.2.1, Table 18-2; the
 * pseudo-encodings of 2 and 3 are Linux's: event 00H, umask = index + 1):
 *   IA32_FIXED_CTR0  C0H/00H  INST_RETIRED.ANY
 *   IA32_FIXED_CTR1  3CH/00H  CPU_CLK_UNHALTED.THREAD
 *   IA32_FIXED_CTR2  00H/03H  CPU_CLK_UNHALTED.REF_TSC
 *   IA32_FIXED_CTR3  00H/04H  TOPDOWN.SLOTS
 *   fixed counter j >= 4: 00H/(j+1)
 */
#ifndef SOFTPMU_EVENTS_H
#define SOFTPMU_EVENTS_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>

#include "pmu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct spmu_event_line {
  uint8_t event;   /* PERFEVTSEL[7:0] */
  uint8_t umask;   /* PERFEVTSEL[15:8] */
  uint32_t count;  /* increments of this event in the clock */
} spmu_event_line;

/* Context of a clock. */
enum spmu_clock_flag {
  SPMU_CLK_IN_TX = 1u << 0,    /* inside a transactional region (IN_TX) */
  SPMU_CLK_ENCLAVE = 1u << 1,  /* inside an SGX enclave (sets ASCI) */
  SPMU_CLK_SMM = 1u << 2,      /* in SMM (DEBUGCTL.FREEZE_WHILE_SMM) */
};

typedef struct spmu_clock {
  const spmu_event_line *lines;
  size_t nlines;
  uint8_t cpl;   /* current privilege level, 0-3 */
  uint8_t flags; /* enum spmu_clock_flag */
} spmu_clock;

/* What the host provides. pmi() is called when the PMU requests a PMI
 * (through the local APIC's LVT performance-counter entry), at the clock
 * the condition happens, with the logical processor that requests it; it
 * may be NULL. */
typedef struct spmu_host {
  void *opaque;
  void (*pmi)(void *opaque, spmu_lp *lp);
} spmu_host;

/* Install the host callbacks (copied); NULL removes them. */
SPMU_API int spmu_core_set_host(spmu_core *core, const spmu_host *host);

/* Results of delivery: a bit set. */
#define SPMU_TICK_PMI 1 /* a PMI was requested at the last clock consumed */

/* Deliver `clocks` repetitions of the same clock of lp (clocks >= 1) and
 * stop early, right after the clock at which a PMI is requested. *consumed
 * (may be NULL) gets the number of clocks delivered. Costs O(counters), not
 * O(clocks). Returns SPMU_TICK_* bits (>= 0) or a negative error.
 *
 * AnyThread (SDM 18.2.3): counters of the other logical processors of the
 * core with ANY set count these events too, matching clk->cpl against their
 * own OS/USR (ENABLE) setting. Their overflows, PMIs and freezes are their
 * own logical processor's; pmi() is then called for each logical processor
 * that requests a PMI in the last clock, lp first, then by index.
 *
 * Never allocates; a core is not safe to use from two threads at once. */
SPMU_API int spmu_deliver(spmu_lp *lp, const spmu_clock *clk, uint64_t clocks,
                          uint64_t *consumed);

/* How many repetitions of clk can be delivered before and including the
 * clock at which the next PMI is requested (UINT64_MAX: never). Changes
 * nothing. */
SPMU_API uint64_t spmu_deadline(const spmu_lp *lp, const spmu_clock *clk);

/* Conditions raised outside the core PMU's counters, which the host (its
 * Intel PT, uncore or power-management model) reports to a logical
 * processor. Each sets its IA32_PERF_GLOBAL_STATUS bit. */
enum spmu_signal {
  /* Bit 55 Trace_ToPA_PMI: a ToPA output region with INT=1 filled. Requests
   * a PMI, with freeze-on-PMI as for a counter overflow (SDM 36.2.7.2). */
  SPMU_SIGNAL_TOPA_PMI = 1,
  /* Bit 61 Ovf_Uncore: an uncore counter overflowed. Requests a PMI iff
   * IA32_DEBUGCTL.ENABLE_UNCORE_PMI (bit 13) is set. */
  SPMU_SIGNAL_UNCORE_OVF = 2,
  /* Bit 63 CondChgd: the PMU's state changed. No PMI. */
  SPMU_SIGNAL_COND_CHGD = 3,
};

/* Raise signal sig (enum spmu_signal) on lp. Returns SPMU_TICK_PMI when a
 * PMI was requested (pmi() has been called), 0 when not, SPMU_EINVAL for
 * an unknown signal, SPMU_ERESERVED when the profile's GLOBAL_STATUS has no
 * such bit (no Intel PT, no uncore PMI, or no GLOBAL_STATUS at all). */
SPMU_API int spmu_signal(spmu_lp *lp, unsigned sig);

#ifdef __cplusplus
}
#endif
#endif

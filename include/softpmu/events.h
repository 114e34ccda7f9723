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

#include "netburst.h"
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
  SPMU_CLK_IA32E = 1u << 3,    /* IA-32e mode is active: the DS save area
                                  has the 64-bit layout even without
                                  DTES64 (SDM 17.4.9) */
};

/* The memory access of a clock's instruction, for load-latency counting
 * (SDM 18.6.1.2: LL_EN counters count loads slower than
 * MSR_PEBS_LD_LAT_THRESHOLD) and the PEBS record's memory fields. */
typedef struct spmu_mem_access {
  uint64_t addr;    /* data linear address */
  uint64_t source;  /* data source (SDM Table 18-24), or store status */
  uint64_t latency; /* load latency in core cycles */
  uint8_t store;    /* 1: a store (precise store PEBS), 0: a load */
} spmu_mem_access;

/* A branch the clock's instruction took, for the branch trace store
 * (BTS, SDM 17.4.8-17.4.9). */
typedef struct spmu_branch {
  uint64_t from, to; /* linear addresses of the branch and its target */
  uint8_t predicted; /* 1: the branch was predicted (record flags bit 4) */
} spmu_branch;

/* Initialise with designated initializers (or zero it first): fields are
 * added over time, and one left uninitialised is a stray pointer. */
typedef struct spmu_clock {
  const spmu_event_line *lines;
  size_t nlines;
  uint8_t cpl;   /* current privilege level, 0-3 */
  uint8_t flags; /* enum spmu_clock_flag */
  const spmu_mem_access *mem; /* the clock's memory access, or NULL */
  const spmu_branch *branch;  /* the clock's taken branch, or NULL */
} spmu_clock;

/* The architectural state a PEBS assist records, filled by the host's
 * machine_state() (zeroed first). */
typedef struct spmu_machine_state {
  uint64_t rflags;
  uint64_t ip;      /* the instruction that caused the event (EventingIP;
                       RIP of a fault-like record) */
  uint64_t next_ip; /* the instruction after it (RIP of a trap-like record,
                       IA32_PERF_CAPABILITIES[6] = 1) */
  uint64_t gpr[16]; /* by register number: RAX, RCX, RDX, RBX, RSP, RBP,
                       RSI, RDI, R8-R15 */
  uint64_t xmm[16][2]; /* low, high quadword */
  uint64_t tsc;
  uint64_t tx_abort; /* TSX abort information (format 2+) */
  unsigned nlbr;     /* valid entries in lbr, most recent first */
  struct {
    uint64_t from, to, info;
  } lbr[32];
} spmu_machine_state;

/* What the host provides. pmi() is called when the PMU requests a PMI
 * (through the local APIC's LVT performance-counter entry), at the clock
 * the condition happens, with the logical processor that requests it; it
 * may be NULL. */
typedef struct spmu_host {
  void *opaque;
  void (*pmi)(void *opaque, spmu_lp *lp);
  /* Guest linear memory, for the DS save area and the PEBS records: read or
   * write len bytes at linear address la. Return 0 on success; anything
   * else fails the access (the model then drops the record, see
   * SPMU_TICK_MEM_FAULT). NULL: every access fails. */
  int (*read_mem)(void *opaque, spmu_lp *lp, uint64_t la, void *buf,
                  size_t len);
  int (*write_mem)(void *opaque, spmu_lp *lp, uint64_t la, const void *buf,
                   size_t len);
  /* The machine state at a PEBS assist (st is zeroed first); may be NULL. */
  void (*machine_state)(void *opaque, spmu_lp *lp, spmu_machine_state *st);
} spmu_host;

/* Install the host callbacks (copied); NULL removes them. */
SPMU_API int spmu_core_set_host(spmu_core *core, const spmu_host *host);

/* Results of delivery: a bit set, about the last clock consumed. */
#define SPMU_TICK_PMI 1        /* a PMI was requested */
#define SPMU_TICK_PEBS 2       /* a PEBS assist wrote a record */
#define SPMU_TICK_PEBS_LOST 4  /* a PEBS assist was due and wrote nothing:
                                  the bounds check failed (SDM 17.4.9) or a
                                  memory access failed */
#define SPMU_TICK_MEM_FAULT 8  /* a read_mem/write_mem callback failed */
#define SPMU_TICK_BTS 16       /* a branch record was stored (BTS) */

/* Deliver `clocks` repetitions of the same clock of lp (clocks >= 1) and
 * stop early, right after a clock at which a PMI is requested, a PEBS
 * assist takes place (SDM 18.4.4, seed 003: the first event after a
 * PEBS-enabled counter overflows), a branch record is stored (BTS) or a
 * memory callback fails. *consumed
 * (may be NULL) gets the number of clocks delivered. Costs O(counters), not
 * O(clocks). Returns SPMU_TICK_* bits (>= 0) or a negative error.
 *
 * AnyThread (SDM 18.2.3): counters of the other logical processors of the
 * core with ANY set count these events too, matching clk->cpl against their
 * own OS/USR (ENABLE) setting. Their overflows, PMIs and freezes are their
 * own logical processor's; pmi() is then called for each logical processor
 * that requests a PMI in the last clock, lp first, then by index.
 *
 * Never allocates; a core is not safe to use from two threads at once.
 * A NetBurst core has no architectural counters: there it only stores
 * branch records (spmu_deliver_netburst counts its events). */
SPMU_API int spmu_deliver(spmu_lp *lp, const spmu_clock *clk, uint64_t clocks,
                          uint64_t *consumed);

/* How many repetitions of clk can be delivered before and including the
 * clock at which the next PMI is requested or PEBS assist is due
 * (UINT64_MAX: never); 1 when clk stores a branch record, since every such
 * clock needs the host's memory. Changes nothing and touches no memory. */
SPMU_API uint64_t spmu_deadline(const spmu_lp *lp, const spmu_clock *clk);

/* ---- NetBurst (Pentium 4) --------------------------------------------
 *
 * A NetBurst core (netburst.h; SDM 18.15-18.16) counts events that its
 * ESCRs select. A line is one event-mask bit of one event of one ESCR pair
 * (unit): the ESCRs of that unit whose event select matches and whose mask
 * has the bit see it. Each ESCR sums the lines its mask selects, for the
 * CPL and logical processor their T0_OS/T0_USR/T1_OS/T1_USR bits qualify
 * (thread-independent mask bits of the event table: either thread's bits),
 * and presents the sum, 0 to 15 (four binary-weighted input lines, seed
 * 004; larger sums saturate at 15), to the counters whose CCCR selects it.
 */
typedef struct spmu_nb_line {
  uint8_t unit;   /* enum spmu_nb_unit; SPMU_NB_UNIT_NONE: ignored */
  uint8_t evsel;  /* ESCR[30:25] */
  uint8_t bit;    /* event-mask bit k (ESCR bit 9 + k), 0-15 */
  uint32_t count; /* occurrences in this clock */
} spmu_nb_line;

/* Retiring uops, for the at-retirement events and their tagging (SDM
 * 18.15.6): the model tags them as the ESCRs, MSR_PEBS_ENABLE and
 * MSR_PEBS_MATRIX_VERT say and counts them for instr_retired (NBOGUS/BOGUS,
 * tagged or not), uops_retired, front_end_event, execution_event and
 * replay_event. */
typedef struct spmu_nb_retire {
  uint32_t uops;   /* uops retiring with these attributes in the clock */
  uint32_t instrs; /* instructions they complete (instr_retired) */
  uint8_t bogus;   /* 1: on a mispredicted path */
  uint8_t kind;    /* uop type, MSR_PEBS_MATRIX_VERT numbering: bit 0 load,
                      bit 1 store, bit 4 branch (also uop_type's TAGLOADS /
                      TAGSTORES front-end tagging) */
  uint16_t replay; /* replay causes met: bit k = MSR_PEBS_ENABLE metric
                      bit k (SDM Table 19-33: 0 1stL miss, 1 2ndL miss,
                      2 DTLB miss, 9 MOB load replay, 10 split access) */
  /* The execution event the uops met (execution tagging, SDM 18.15.6.3):
   * ESCRs with TAG_ENABLE that select it OR their TAG_VALUE into the uops'
   * tag bits. exec_unit = SPMU_NB_UNIT_NONE: none. */
  uint8_t exec_unit, exec_evsel, exec_bit;
} spmu_nb_retire;

typedef struct spmu_nb_clock {
  const spmu_nb_line *lines;
  size_t nlines;
  const spmu_nb_retire *retire;
  size_t nretire;
  uint8_t cpl;      /* CPL of the delivering logical processor, 0-3 */
  uint8_t flags;    /* enum spmu_clock_flag: SPMU_CLK_IA32E (DS layout) */
  uint8_t inactive; /* logical processors of the core (bit = index) that
                       are halted or wait for SIPI in this clock (CCCR
                       active-thread filter, SDM 18.16.2); 0: all active */
  const spmu_branch *branch; /* the clock's taken branch (BTS), or NULL */
} spmu_nb_clock;

/* Deliver `clocks` repetitions (>= 1) of the same clock of lp to a NetBurst
 * core, stopping early right after a clock at which a PMI is requested
 * (for any logical processor: OVF_PMI_T0 / OVF_PMI_T1), a PEBS assist
 * takes place, a branch record is stored or a memory callback fails.
 * *consumed (may be NULL) gets the clocks delivered. pmi() is called for
 * each logical processor that requests a PMI in the last clock, lp first.
 *
 * Counting follows SDM 18.15.5: the ESCR's sum, then the CCCR's compare /
 * complement / threshold (a passing clock adds 1) and edge filters, the
 * enable (ENABLE, or CASCADE / extended cascading while the starting
 * counter's OVF is set) and the active-thread filter. An overflow sets OVF
 * (sticky); the PMI is requested at the counter's next increment (SDM
 * 18.15.3). Cost: O(counters x lines) per call plus one such step per
 * overflow that changes state (an OVF flag going from 0 to 1, a PEBS
 * counter arming); batches are otherwise added in closed form.
 * SPMU_EINVAL if the core is not NetBurst. Returns SPMU_TICK_* bits. */
SPMU_API int spmu_deliver_netburst(spmu_lp *lp, const spmu_nb_clock *clk,
                                   uint64_t clocks, uint64_t *consumed);

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

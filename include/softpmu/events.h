/* SPDX-License-Identifier: MIT */
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
  uint8_t event;  /* PERFEVTSEL[7:0] */
  uint8_t umask;  /* PERFEVTSEL[15:8] */
  uint32_t count; /* increments of this event in the clock */
} spmu_event_line;

/* Context of a clock. */
enum spmu_clock_flag {
  SPMU_CLK_IN_TX = 1u << 0,   /* inside a transactional region (IN_TX) */
  SPMU_CLK_ENCLAVE = 1u << 1, /* inside an SGX enclave (sets ASCI) */
  SPMU_CLK_SMM = 1u << 2,     /* in SMM (DEBUGCTL.FREEZE_WHILE_SMM) */
  SPMU_CLK_IA32E = 1u << 3,   /* IA-32e mode is active: the DS save area
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

/* The kind of a branch, as the LBR filters tell them apart (SDM 17.7.2
 * Table 17-11 MSR_LBR_SELECT; IA32_LBR_CTL and IA32_LBR_x_INFO.BR_TYPE of
 * architectural LBRs). The model cannot tell a branch's kind from its
 * addresses: the host says it, or leaves SPMU_BR_UNKNOWN (0), and then
 * (decisions.md, LBR) the branch passes the type filters only when they
 * record every type, is neither a call nor a return in call-stack mode,
 * and an architectural LBR entry records it as "other" (BR_TYPE 1000B). */
enum spmu_branch_type {
  SPMU_BR_UNKNOWN = 0,       /* the host does not say */
  SPMU_BR_JCC = 1,           /* conditional (Jcc, J*CXZ, LOOP*) */
  SPMU_BR_NEAR_REL_CALL = 2, /* near relative CALL */
  SPMU_BR_NEAR_IND_CALL = 3, /* near indirect CALL */
  SPMU_BR_NEAR_RET = 4,      /* near RET */
  SPMU_BR_NEAR_IND_JMP = 5,  /* near indirect JMP */
  SPMU_BR_NEAR_REL_JMP = 6,  /* near relative JMP */
  SPMU_BR_FAR = 7,           /* far branch, interrupt, exception, IRET,
                                SYSCALL, ... (LBR_SELECT.FAR_BRANCH) */
};

/* Facts about a branch that only the host knows. */
enum spmu_branch_flag {
  SPMU_BRANCH_TSX_ABORT = 1u << 0, /* a transactional abort (LBR TSX_ABORT) */
  SPMU_BRANCH_CYCLES = 1u << 1,    /* `cycles` is given */
  /* The branch delivers an exception or an interrupt (hardware or software:
   * INT n, INT3, INTO), from the interrupted instruction to the handler;
   * give it type SPMU_BR_FAR. The last exception record (MSR_LER_FROM_LIP
   * / MSR_LER_TO_LIP, SDM 17.4.8.3; IA32_LER_FROM_IP / TO_IP / INFO of
   * architectural LBRs) then takes the last branch the LBRs recorded
   * before it, while the LBRs are enabled and not frozen. */
  SPMU_BRANCH_EVENT = 1u << 2,
};

/* A branch the clock's instruction took, for the branch trace store
 * (BTS, SDM 17.4.8-17.4.9) and the LBRs (SDM 17.4.8, "Architectural Last
 * Branch Records"). IN_TX comes from the clock's SPMU_CLK_IN_TX.
 * Growth: type, flags and cycles took the struct's padding (its size
 * stays 24 bytes); zero them (designated initialisers do). */
typedef struct spmu_branch {
  uint64_t from, to; /* linear addresses of the branch and its target */
  uint8_t predicted; /* 1: the branch was predicted (record flags bit 4);
                        0: mispredicted (LBR MISPRED) */
  uint8_t type;      /* enum spmu_branch_type */
  uint8_t flags;     /* enum spmu_branch_flag */
  uint8_t pad_;      /* zero */
  uint32_t cycles;   /* core cycles since the previous LBR update, with
                        SPMU_BRANCH_CYCLES (LBR_INFO.CYC_CNT saturates at
                        FFFFH) */
} spmu_branch;

/* One clock of one logical processor, for either PMU family: an
 * architectural core counts `lines`, a NetBurst core counts `nb_lines` and
 * `retire` (see "NetBurst" below); each ignores the other's members.
 *
 * Growth: initialise with designated initialisers (or zero it first).
 * Members are only ever appended into `reserved_`, which must be zero, so
 * the struct's size and layout stay the same across 0.x releases and a
 * binary built against an older header keeps working. */
struct spmu_nb_line;
struct spmu_nb_retire;
typedef struct spmu_clock {
  const spmu_event_line *lines;
  size_t nlines;
  uint8_t cpl;   /* current privilege level, 0-3 */
  uint8_t flags; /* enum spmu_clock_flag */
  /* NetBurst cores: logical processors (bit = index) halted or waiting
   * for SIPI in this clock (CCCR active-thread filter, SDM 18.16.2). */
  uint8_t inactive;
  const spmu_mem_access *mem; /* the clock's memory access, or NULL */
  const spmu_branch *branch;  /* the clock's taken branch, or NULL */
  /* NetBurst cores: the ESCR event lines and the retiring uops. */
  const struct spmu_nb_line *nb_lines;
  size_t nb_nlines;
  const struct spmu_nb_retire *retire;
  size_t nretire;
  void *reserved_[4];
} spmu_clock;

/* The architectural state a PEBS assist records, filled by the host's
 * machine_state() (zeroed first). */
typedef struct spmu_machine_state {
  uint64_t rflags;
  uint64_t ip;         /* the instruction that caused the event (EventingIP;
                          RIP of a fault-like record) */
  uint64_t next_ip;    /* the instruction after it (RIP of a trap-like record,
                          IA32_PERF_CAPABILITIES[6] = 1) */
  uint64_t gpr[16];    /* by register number: RAX, RCX, RDX, RBX, RSP, RBP,
                          RSI, RDI, R8-R15 */
  uint64_t xmm[16][2]; /* low, high quadword */
  uint64_t tsc;
  uint64_t tx_abort; /* TSX abort information (format 2+) */
  /* LBR entries, most recent first, for the adaptive PEBS record's LBR
   * group: read only when the profile has no LBRs of its own (lbr_depth 0
   * and no arch_lbr), i.e. for hosts that keep their own LBRs. A profile
   * with LBRs records the model's stack (spmu_lbr_read) instead. */
  unsigned nlbr; /* valid entries in lbr */
  struct {
    uint64_t from, to, info;
  } lbr[32];
  /* Growth: members are appended here; the model zeroes the whole struct
   * before machine_state() fills it, so a host built against an older
   * header leaves them 0. */
  uint64_t reserved_[8];
} spmu_machine_state;

/* ---- What the model reports ---------------------------------------------
 *
 * With spmu_host.event set, the model reports what it does, when it does
 * it: one call per occurrence, in the order the hardware does them, from
 * inside the call that caused it (spmu_deliver, spmu_signal, spmu_wrmsr,
 * spmu_host_wrmsr). A host traces, samples (softpmu record) or checks from
 * this stream instead of working out again what the model did.
 *
 * Counters in events are counter numbers (pmu.h: SPMU_COUNTER_GP,
 * SPMU_COUNTER_FIXED; NetBurst counter n is n).
 *
 * With an event callback installed, a batch also stops right after every
 * clock at which a counter overflows (not only at PMIs), so that every
 * overflow is reported at its clock, and returns SPMU_TICK_OVERFLOW; a
 * delivery call stays O(counters). Without one (NULL), nothing is
 * reported and nothing is spent on it. spmu_deadline reports nothing.
 *
 * Order within one clock (architectural PMU), as the model applies them:
 *  1. for each logical processor the clock reaches (the delivering one,
 *     then AnyThread counters of the others by index): OVERFLOW of each
 *     counter that wrapped, in counter order (GP, then fixed); if one of
 *     them requests a PMI: FREEZE (counters, then LBRs);
 *  2. a PEBS assist due at this clock: PEBS or PEBS_DROP, RELOAD of each
 *     reloaded counter, then at the interrupt threshold THRESHOLD, FREEZE;
 *  3. a branch record: BTS or BTS_DROP, then at the threshold THRESHOLD,
 *     FREEZE;
 *  4. when the call ends, for each logical processor that requested a
 *     PMI in it, in the order of the pmi() callbacks (the delivering one
 *     first, then the others by index): PMI, then its pmi() call.
 * FREEZE is reported only when the freeze starts (not when already
 * frozen), PMI once per logical processor and call. NetBurst (18.15.3):
 * per counter in counter order, its overflow (OVERFLOW); a PMI an earlier
 * overflow owes is requested at the counter's next increment; then PEBS /
 * PEBS_DROP, RELOAD, THRESHOLD; then BTS; then PMI as in 4. No freeze on
 * NetBurst.
 */
enum spmu_event_kind {
  /* A counter wrapped past its width (SDM 18.2.2.2; NetBurst 18.15.3): it
   * held `old` before the clock and holds `now` after it, having passed
   * its width `wraps` times in that clock (1, unless the clock added more
   * than 2^width; 0 for a NetBurst FORCE_OVF overflow that did not wrap,
   * SDM 18.15.5.8): the clock counted now - old + wraps * 2^width. */
  SPMU_EV_OVERFLOW = 1,
  /* A PMI was requested during the call (through the LVT
   * performance-counter entry), reported as the call ends, right before
   * its pmi() call, at the clock of the request. `status` is GLOBAL_STATUS
   * then (NetBurst: 0). */
  SPMU_EV_PMI = 2,
  /* Freeze on PMI started or ended (SDM 18.2.4.1, 17.4.7): `reg` is the
   * MSR whose bits changed and `old`/`now` its values: legacy (v2-v3)
   * IA32_PERF_GLOBAL_CTRL cleared (counters) or IA32_DEBUGCTL.LBR
   * cleared (LBRs); v4+ GLOBAL_STATUS.CTR_Frz / LBR_Frz set. A write of
   * software or the host that sets CTR_Frz (v4+: GLOBAL_STATUS_SET, or a
   * host write of GLOBAL_STATUS) starts a counter freeze too (FREEZE,
   * counters = 1, reg GLOBAL_STATUS, clock 0). The counter
   * freeze ends (UNFREEZE, counters = 1) when software writes GLOBAL_CTRL
   * after a legacy freeze (reg GLOBAL_CTRL: old 0, now the value written;
   * a restored snapshot does not carry a legacy freeze) or CTR_Frz goes
   * from 1 to 0 (v4+: STATUS_RESET / OVF_CTRL or a host write; reg
   * GLOBAL_STATUS). `counters` is 1 for a counter freeze, 0 for LBRs. */
  SPMU_EV_FREEZE = 3,
  SPMU_EV_UNFREEZE = 4,
  /* A PEBS record was written (SDM 17.4.9, 18.6.2): at linear address
   * `addr`, `size` bytes, for the counters in `counters` (GLOBAL_STATUS
   * bit layout; NetBurst: bit n of its PEBS counter); `index` is the PEBS
   * index after it. */
  SPMU_EV_PEBS = 5,
  /* A PEBS assist was due and wrote nothing: see `why`. `addr` and
   * `index` are the PEBS index, `abs_max` the absolute maximum and `base`
   * the buffer's base (0 all when the DS management area itself could not
   * be read). */
  SPMU_EV_PEBS_DROP = 6,
  /* A PEBS assist reloaded counter `counter` from its DS reset slot
   * (SDM 18.4.4.4): `old` the count before, `now` the reset value. */
  SPMU_EV_RELOAD = 7,
  /* A branch record was stored in the BTS buffer (SDM 17.4.8) at `addr`,
   * `size` bytes; `index` is the BTS index after it. */
  SPMU_EV_BTS = 8,
  /* A branch record was due and not stored: see `why`; `addr`, `index`,
   * `abs_max` and `base` as for SPMU_EV_PEBS_DROP. */
  SPMU_EV_BTS_DROP = 9,
  /* A buffer's index reached its interrupt threshold: OvfBuf set (v2+)
   * and a PMI requested (SDM 17.4.9.2, 18.6.2.4). `pebs` says which. */
  SPMU_EV_THRESHOLD = 10,
  /* spmu_signal set a GLOBAL_STATUS bit: `bit` is its mask (1 << 55,
   * 1 << 61 or 1 << 63), `sig` the enum spmu_signal. */
  SPMU_EV_SIGNAL = 11,
};

/* Why a PEBS or BTS record was not written. */
enum spmu_drop_reason {
  /* SDM 17.4.9: no room below the absolute maximum (PEBS: the record
   * does not fit between the index and it; BTS without BTINT: not even
   * one record fits at the buffer's base). */
  SPMU_DROP_BOUNDS = 1,
  /* A read_mem/write_mem callback failed: `addr`, `len`, `write` say
   * which access. */
  SPMU_DROP_MEM_FAULT = 2,
  /* BTS with BTINT set (SDM 17.4.9.3, decisions.md #34): the buffer is
   * full (no record fits between the index and the absolute maximum) and
   * does not wrap to its base. */
  SPMU_DROP_FULL = 3,
};

typedef struct spmu_event {
  unsigned kind; /* enum spmu_event_kind */
  /* The logical processor it happened to: for an AnyThread counter of
   * another logical processor, that counter's owner. */
  spmu_lp *lp;
  /* Where in the current spmu_deliver call it happened: the clock's
   * number, 1 for the first clock of the call. 0 outside delivery
   * (spmu_signal, WRMSR). */
  uint64_t clock;
  union {
    struct { /* SPMU_EV_OVERFLOW, SPMU_EV_RELOAD */
      unsigned counter;
      uint64_t old, now;
      uint64_t wraps; /* OVERFLOW: times past the width */
    } ctr;
    struct { /* SPMU_EV_PMI */
      uint64_t status;
    } pmi;
    struct { /* SPMU_EV_FREEZE, SPMU_EV_UNFREEZE */
      uint32_t reg;
      unsigned counters;
      uint64_t old, now;
    } freeze;
    struct {             /* SPMU_EV_PEBS, SPMU_EV_BTS, SPMU_EV_*_DROP */
      uint64_t addr;     /* the record's address (drops: the index) */
      uint32_t size;     /* record size in bytes (drops: 0) */
      uint32_t why;      /* drops: enum spmu_drop_reason */
      uint64_t counters; /* PEBS: the counters it records */
      uint64_t index;    /* the buffer's index after the call */
      uint64_t abs_max;  /* the buffer's absolute maximum */
      uint64_t base;     /* the buffer's base */
      /* SPMU_DROP_MEM_FAULT: the failed access */
      uint64_t fault_addr;
      uint32_t fault_len;
      uint8_t fault_write;
    } rec;
    struct {         /* SPMU_EV_THRESHOLD */
      unsigned pebs; /* 1: the PEBS buffer, 0: the BTS buffer */
    } threshold;
    struct { /* SPMU_EV_SIGNAL */
      unsigned sig;
      uint64_t bit;
    } signal;
    /* Growth: new kinds add members here, within this size. */
    uint64_t reserved_[8];
  } u;
} spmu_event;

/* What the host provides. pmi() is called when the PMU requests a PMI
 * (through the local APIC's LVT performance-counter entry), at the clock
 * the condition happens, with the logical processor that requests it; it
 * may be NULL.
 *
 * Growth: initialise with designated initialisers. New callbacks are only
 * appended into `reserved_` (must be NULL), so the size stays the same
 * across 0.x releases. */
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
  /* What the model did (see spmu_event above); may be NULL. The event is
   * valid during the call only. The callback must not call back into the
   * core. */
  void (*event)(void *opaque, const spmu_event *ev);
  void (*reserved_[7])(void);
} spmu_host;

/* ---- Last branch records ------------------------------------------------
 *
 * A profile with LBRs (lbr_depth, or arch_lbr) records the taken branch of
 * every clock delivered to a logical processor (spmu_clock.branch), as the
 * SDM says (17.4.8, 17.7-17.12, "Architectural Last Branch Records"):
 * while IA32_DEBUGCTL.LBR (model-specific) or IA32_LBR_CTL.LBREn
 * (architectural) is set and, from perfmon v4, GLOBAL_STATUS.LBR_Frz is
 * clear; filtered by MSR_LBR_SELECT / IA32_LBR_CTL (CPL, branch type);
 * in call-stack mode a near call pushes and a near return pops. A clock
 * delivered n times records its branch n times. The branch of the clock
 * that requests a PMI is recorded before the freeze. The stack is read
 * and written through its MSRs; these calls read it as a whole. */
typedef struct spmu_lbr_entry {
  uint64_t from, to, info; /* as the MSRs read (info: 0 without LBR_INFO) */
} spmu_lbr_entry;

/* The LBR stack of lp, most recent entry first (model-specific stacks:
 * from MSR_LASTBRANCH_TOS downwards; architectural LBRs: entry 0 up),
 * up to cap entries into out. Returns the stack's depth (entries in use:
 * the profile's lbr_depth, or IA32_LBR_DEPTH), 0 without LBRs, or
 * SPMU_EINVAL. */
SPMU_API int spmu_lbr_read(const spmu_lp *lp, spmu_lbr_entry *out,
                           unsigned cap);

/* The architectural LBR state component of XSAVES / XRSTORS (component
 * 15, supervisor state): IA32_LBR_CTL, IA32_LBR_DEPTH, IA32_LER_FROM_IP,
 * IA32_LER_TO_IP, IA32_LER_INFO, then for i = 0 up to the deepest depth
 * of CPUID.1CH IA32_LBR_i_FROM_IP, _TO_IP, _INFO: 8 bytes each, little
 * endian (40 + 24 * depth bytes; SPMU_LBR_XSAVE_SIZE(32) = 808).
 * spmu_lbr_xsave writes it as XSAVES does; *len gets the size
 * (SPMU_ENOSPC with buf NULL or cap short). spmu_lbr_xrstor loads it as
 * XRSTORS does: SPMU_GP, nothing changed, when a value is one a WRMSR of
 * its MSR would #GP; the depth is loaded without clearing the entries.
 * SPMU_ENOENT without architectural LBRs; SPMU_EINVAL for a wrong len. */
#define SPMU_LBR_XSAVE_SIZE(depth) (40u + 24u * (depth))
SPMU_API int spmu_lbr_xsave(const spmu_lp *lp, void *buf, size_t cap,
                            size_t *len);
SPMU_API int spmu_lbr_xrstor(spmu_lp *lp, const void *buf, size_t len);

/* Install the host callbacks (copied); NULL removes them. */
SPMU_API int spmu_core_set_host(spmu_core *core, const spmu_host *host);

/* Results of delivery: a bit set, about the last clock consumed. */
enum spmu_tick {
  SPMU_TICK_PMI = 1,       /* a PMI was requested */
  SPMU_TICK_PEBS = 2,      /* a PEBS assist wrote a record */
  SPMU_TICK_PEBS_LOST = 4, /* a PEBS assist was due and wrote nothing:
                              the bounds check failed (SDM 17.4.9) or a
                              memory access failed */
  SPMU_TICK_MEM_FAULT = 8, /* a read_mem/write_mem callback failed */
  SPMU_TICK_BTS = 16,      /* a branch record was stored (BTS) */
  SPMU_TICK_OVERFLOW = 32, /* a counter overflowed (reported only with an
                              event callback installed) */
};

/* Deliver `clocks` repetitions of the same clock of lp (clocks >= 1) and
 * stop early, right after a clock at which a PMI is requested, a PEBS
 * assist takes place (SDM 18.4.4: the first event after a PEBS-enabled
 * counter overflows), a branch record is stored (BTS), a memory callback
 * fails or, with an event callback, a counter overflows. *consumed
 * (may be NULL) gets the number of clocks delivered. Costs O(counters), not
 * O(clocks). Returns SPMU_TICK_* bits (>= 0) or a negative error.
 *
 * AnyThread (SDM 18.2.3): counters of the other logical processors of the
 * core with ANY set count these events too, matching clk->cpl against their
 * own OS/USR (ENABLE) setting. Their overflows, PMIs and freezes are their
 * own logical processor's; pmi() is then called for each logical processor
 * that requests a PMI in the last clock, lp first, then by index.
 *
 * A NetBurst core counts clk->nb_lines and clk->retire (see below).
 * Never allocates; a core is not safe to use from two threads at once. */
SPMU_API int spmu_deliver(spmu_lp *lp, const spmu_clock *clk, uint64_t clocks,
                          uint64_t *consumed);

/* SPMU_DEADLINE_NEVER: no repetition of the clock ever requests a PMI. */
#define SPMU_DEADLINE_NEVER UINT64_MAX

/* How many repetitions of clk can be delivered before and including the
 * clock at which the next PMI is requested or PEBS assist is due, into
 * *clocks (SPMU_DEADLINE_NEVER: never); 1 when clk stores a branch
 * record, since every such clock needs the host's memory. Changes nothing
 * and touches no memory. Both PMU families. Returns SPMU_OK, or
 * SPMU_EINVAL for a bad argument (*clocks then untouched). */
SPMU_API int spmu_deadline(const spmu_lp *lp, const spmu_clock *clk,
                           uint64_t *clocks);

/* ---- NetBurst (Pentium 4) --------------------------------------------
 *
 * A NetBurst core (netburst.h; SDM 18.15-18.16) counts events that its
 * ESCRs select. A line is one event-mask bit of one event of one ESCR pair
 * (unit): the ESCRs of that unit whose event select matches and whose mask
 * has the bit see it. Each ESCR sums the lines its mask selects, for the
 * CPL and logical processor their T0_OS/T0_USR/T1_OS/T1_USR bits qualify
 * (thread-independent mask bits of the event table: either thread's bits),
 * and presents the sum, 0 to 15 (four binary-weighted input lines, SDM
 * 18.15.5.2; larger sums saturate at 15), to the counters whose CCCR
 * selects it.
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

/* spmu_deliver with a NetBurst clock: the same call, for hosts that build
 * an spmu_nb_clock (its members are copied into an spmu_clock). Deliver
 * `clocks` repetitions (>= 1) of the same clock of lp to a NetBurst
 * core, stopping early right after a clock at which a PMI is requested
 * (for any logical processor: OVF_PMI_T0 / OVF_PMI_T1), a PEBS assist
 * takes place, a branch record is stored, a memory callback fails or,
 * with an event callback, a counter overflows.
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

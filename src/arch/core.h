/* The core and logical-processor objects (private to src/arch). */
#ifndef SPMU_ARCH_CORE_H
#define SPMU_ARCH_CORE_H

#include <stdbool.h>

#include "arch/msr.h"
#include "arch/state.h"
#include "util/bits.h"
#include "netburst/nb.h"
#include "regs/applied.h"
#include "softpmu/events.h"
#include "softpmu/pmu.h"

/* Counter index c: GP counter i is c = i, fixed counter j is
 * c = SPMU_MAX_GP + j (the order of struct spmu_regs ctr). */
#define SPMU_NCTR (SPMU_MAX_GP + SPMU_MAX_FIXED)

/* The counting engine's compiled view of one counter: what its event
 * select (or FIXED_CTR_CTRL block) and GLOBAL_CTRL say, decoded once when
 * they change instead of on every clock (src/arch/count.c). */
struct spmu_pe {
  /* Where the counter finds its raw count in the clock's line sums, by
   * clock variant (bit 0: CPL > 0, bit 1: inside a transaction). A clock
   * the counter filters out (USR/OS, ENABLE, IN_TX) points at a zero sum. */
  uint8_t kd[4];
  uint8_t c;      /* counter index (struct spmu_regs ctr[c]); for GP
                     counters also the edge state bit */
  uint8_t cmask;
  uint8_t flags;  /* SPMU_PE_* */
};

enum {
  SPMU_PE_GP = 1u << 0,    /* a GP counter (CMASK/INV/E logic, edge state) */
  SPMU_PE_COND = 1u << 1,  /* CMASK != 0 or E: the count is not the raw sum */
  SPMU_PE_PMI = 1u << 2,   /* overflow requests a PMI (INT / PMI) */
  SPMU_PE_INV = 1u << 3,
  SPMU_PE_EDGE = 1u << 4,
  SPMU_PE_ANY = 1u << 6,   /* AnyThread */
  SPMU_PE_LL = 1u << 7,    /* load-latency PEBS (LL_EN): counts only loads
                              slower than MSR_PEBS_LD_LAT_THRESHOLD */
};

/* Line-sum slots past the program's keys (count.c line_sums): ZERO always
 * holds 0 (filtered clocks read it), DUMP takes lines no counter counts.
 * They are not adjacent, so their two zero stores stay two scalar stores
 * (a merged 16-byte store cannot forward to DUMP's 8-byte reads). */
#define SPMU_KEY_ZERO SPMU_NCTR
#define SPMU_KEY_DUMP (SPMU_NCTR + 2)
#define SPMU_KEY_SUMS (SPMU_NCTR + 3) /* line_sums' array */
#define SPMU_KEY_SLOTS 64 /* the program's key hash table (6 bits) */

struct spmu_prog {
  uint32_t en_at[2]; /* entries enabled at CPL 0 / CPL > 0 (bit k = e[k]) */
  uint32_t any;      /* entries with AnyThread set */
  uint32_t any_gp;   /* GP counters with AnyThread set (bit i = PMCi) */
  uint64_t pmi_ctrs; /* counters whose overflow requests a PMI (bit c) */
  uint32_t pebs_ctrs; /* counters whose overflow arms PEBS (bit c) */
  uint32_t stop_entries; /* entries whose wrap ends a batch (PMI or PEBS) */
  /* Multiplier of the key hash (count.c key_slot): no two keys share a
   * slot; 0 when none of the candidates managed that. */
  uint32_t hash_mult;
  uint8_t n;         /* entries */
  uint8_t ngp;       /* entries 0..ngp-1 are GP counters, the rest fixed */
  uint8_t nkeys;     /* distinct lines counted */
  bool has_edge;     /* some entry uses edge detection */
  uint32_t careful; /* entries that need more than the raw count (CMASK,
                       E, load latency) */
  bool fast;         /* one clock may take the plain path (count.c
                        plain_clock): none careful, every entry enabled at
                        every CPL, not frozen by CTR_Frz, widths < 64 */
  uint8_t slot[SPMU_KEY_SLOTS]; /* key hash -> index in keys, or DUMP */
  uint16_t keys[SPMU_KEY_SUMS]; /* (event select, umask) as one uint16_t
                                   in host byte order (count.c
                                   native_key); ZERO and DUMP unused */
  struct spmu_pe e[SPMU_NCTR];
};

struct spmu_lp {
  spmu_core *core;
  unsigned index;
  struct spmu_regs r;
  /* Counting-engine state that is not an MSR: bit i = the CMASK/INV
   * condition of GP counter i held in the previous clock (edge detect). */
  uint32_t edge;
  /* After a plain clock (count.c plain_clock) the edge state is pending:
   * SPMU_EDGE_PENDING, the clock variant, and bit d for each of the
   * program's keys d with a nonzero count. spmu_lp_edge derives it. */
  uint32_t edge_keys;
  /* PEBS counters that overflowed and wait for their next event to
   * perform the assist (bit c; SDM 18.4.4). */
  uint32_t armed;
  /* Legacy freeze (v2-v3, SDM 18.2.4.1): a PMI request cleared
   * GLOBAL_CTRL and software has not written it since. Not an MSR and
   * not in the snapshot: it only decides when SPMU_EV_UNFREEZE is
   * reported (decisions.md). RESET clears it; INIT leaves it. */
  bool pmi_frozen;
  /* Derived from r; valid unless the core marks this lp stale. */
  struct spmu_prog prog;
};

struct spmu_core {
  struct spmu_applied a;
  spmu_host host;
  unsigned nlp;
  uint32_t stale;   /* lps whose prog must be rebuilt (bit = lp index) */
  uint32_t any_lps; /* lps whose prog has AnyThread entries */
  uint32_t pmi_lps; /* lps that requested a PMI in the current call */
  /* Where events go: host.event, or NULL while nothing may be reported
   * (spmu_deadline's dry runs). */
  void (*report)(void *opaque, const spmu_event *ev);
  uint64_t clock; /* the clock's number within spmu_deliver, 0 outside */
  struct spmu_lp lp[SPMU_MAX_THREADS];
  /* NetBurst profiles: the shared register file and the engine's state
   * (src/netburst); nb_stale asks for a recompile before the next clock. */
  struct spmu_nb_regs nb_regs;
  struct spmu_nb nb;
  bool nb_stale;
  /* Staging for spmu_core_restore, so a restore never half-applies and
   * never allocates: each logical processor's records are checked here
   * first, then replayed onto the real registers (snapshot.c). */
  struct spmu_regs scratch;
  struct spmu_nb_regs nb_scratch;
};

#define SPMU_EDGE_PENDING (UINT32_C(1) << 31)
#define SPMU_EDGE_VARIANT_SHIFT 29

/* The edge-detect state of lp's GP counters (bit i = PMCi's CMASK/INV
 * condition in the last clock), pending or not (src/arch/count.c). */
uint32_t spmu_lp_edge(const spmu_lp *lp);

/* The GLOBAL_STATUS bit number of counter index c. */
#define SPMU_STATUS_BIT(c) \
  ((c) < SPMU_MAX_GP ? (unsigned)(c) : 32u + (unsigned)(c) - SPMU_MAX_GP)

/* GLOBAL_STATUS bit of each counter in ctrs (counter index c: GP i is
 * bit i, fixed j is bit 32 + j). */
static inline uint64_t spmu_status_of(uint64_t ctrs)
{
  return (ctrs & spmu_width_mask(SPMU_MAX_GP)) | (ctrs >> SPMU_MAX_GP) << 32;
}

/* ---- The PMI path (src/arch/core.c) -------------------------------------
 * An engine requests a PMI with spmu_request_pmi at the clock the
 * condition happens (the freeze-on-PMI rules apply there); the requests of
 * a call are collected in core->pmi_lps, and spmu_raise_pmis calls the
 * host's pmi() for them when the call ends. It is the one caller of
 * host.pmi. */

/* Request a PMI on lp. Architectural PMU: freeze-on-PMI (SDM 18.2.4.1,
 * 17.4.7). NetBurst has no freeze on PMI (its DEBUGCTLA has no such bit,
 * SDM 17.11.1): only the request. */
void spmu_request_pmi(spmu_lp *lp);

/* A DS buffer's index reached its interrupt threshold (SDM 17.4.9.2,
 * 18.6.2.4; pebs: the PEBS buffer, else BTS): OvfBuf in GLOBAL_STATUS
 * (architectural PMU) and a PMI request. The DS code reports the
 * threshold; the engine that called it calls this. */
void spmu_buffer_threshold(spmu_lp *lp, bool pebs);

/* ---- What the model reports (events.h) -----------------------------------
 * Every emitter tests spmu_reporting first (one branch, on rare paths
 * only), so nothing is built without an event callback. */
static inline bool spmu_reporting(const spmu_core *core)
{
  return core->report != NULL;
}

/* Report ev (kind and union filled) as happening to lp at the current
 * clock. */
void spmu_emit(spmu_lp *lp, spmu_event *ev);

/* Report a counter event (SPMU_EV_OVERFLOW, SPMU_EV_RELOAD) of counter
 * `counter` (GLOBAL_STATUS numbering; NetBurst: n). */
void spmu_emit_ctr(spmu_lp *lp, unsigned kind, unsigned counter,
                   uint64_t old, uint64_t now);

/* Call the host's pmi() for every logical processor with a PMI requested
 * since the last call (first, then the others by index) and forget the
 * requests. */
void spmu_raise_pmis(spmu_core *core, spmu_lp *first);

/* Something in lp's register file changed: its compiled counters must be
 * rebuilt before the next clock. Every path that writes registers calls it. */
static inline void spmu_lp_touch(struct spmu_lp *lp)
{
  lp->core->stale |= UINT32_C(1) << lp->index;
  lp->core->nb_stale = true;
}

/* The register files an access of lp reaches (its own and the core's
 * shared NetBurst file). */
static inline struct spmu_file spmu_lp_file(struct spmu_lp *lp)
{
  return (struct spmu_file){&lp->r, &lp->core->nb_regs, lp->index};
}

#endif

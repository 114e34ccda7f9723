/* softpmu run: the state of a run, shared by the runner (cmd_run.c), which
 * drives the model, and the trace (run_trace.c), which prints what the
 * PMU did as text or JSON lines.
 */
#ifndef SOFTPMU_CLI_RUN_H
#define SOFTPMU_CLI_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include <softpmu/events.h>
#include <softpmu/pmu.h>

#include "cli.h"
#include "script.h"
#include "timeline.h"

/* One counter of one logical processor, as the trace follows it. */
struct ctr {
  unsigned lp;
  uint32_t addr; /* IA32_PMCi or IA32_FIXED_CTRj */
  char name[40];
  uint64_t mask;       /* the counter width */
  uint64_t status_bit; /* its IA32_PERF_GLOBAL_STATUS bit; 0 on v1 */
  uint32_t ctl;        /* IA32_PERFEVTSELi or IA32_FIXED_CTR_CTRL */
  char en[8];          /* the enable field there: "EN", "EN1" */
  char global[24];     /* the IA32_PERF_GLOBAL_CTRL field: "EN_PMC0" */
  uint64_t val;        /* the value last read */
  uint64_t start;      /* the value when the current deliver began */
  uint64_t gained;     /* what it counted since (wraps included) */
  uint64_t inc;        /* what it gains per clock, as last measured */
  int lane;            /* timeline id; -1 without --svg */
};

/* The registers a PMI's freeze changes (SDM 18.2.4.1, 17.4.7). */
struct globals {
  uint64_t ctrl, status, debugctl;
};

struct lpstate {
  uint64_t pmis;             /* requested since the start or reset-pmis */
  uint64_t counts[3];        /* enum script_count: PEBS records, BTS records and
                                lost PEBS records, since the start */
  struct script_state state; /* the last `state` */
  unsigned reset_line;       /* that reset-pmis; 0 if none */
  bool legacy_frozen;        /* GLOBAL_CTRL cleared by a PMI, not re-enabled */
  bool frozen;               /* as last given to the timeline */
};

/* What the catalogue says of an MSR, looked up once per run: each query of
 * the public API applies the profile anew, too slow for every PMI. */
struct desc {
  spmu_msr_info info;
  spmu_field_info *f; /* info.nfields of them */
};

struct descs {
  struct desc *d;
  size_t n, cap;
  bool oom;
};

/* A window of guest memory; mapped once its `memory` statement ran. */
struct window {
  uint64_t base, size;
  uint8_t *data;
  bool mapped;
};

/* Which buffer of the DS save area the model is serving, as told by the
 * management fields it read last (SDM 17.4.9: BTS at 00H, PEBS at 20H, or
 * 10H in the 32-bit layout). */
enum ds_phase { DS_NONE, DS_BTS, DS_PEBS };

/* A guest memory access the script's memory did not hold. */
struct fault {
  bool write;
  uint64_t la;
  size_t len;
  enum ds_phase phase;
};

#define RUN_MAX_FAULTS 4

/* Where the DS management area of the current logical processor is, for
 * the clock being delivered. */
struct ds_view {
  bool present; /* the profile has IA32_DS_AREA */
  bool wide;    /* the 64-bit layout (DTES64, or IA-32e mode) */
  uint64_t base;
};

/* An MSR the run reads on its own, if the profile has it. */
struct reg {
  bool present;
  uint32_t addr;
  char name[40];
};

struct run {
  const struct script *s;
  const spmu_profile *p;
  spmu_core *core;
  unsigned threads, lp;
  bool show_lp; /* name the logical processor (the script has `lp`) */
  bool json, oom;
  struct timeline *tl;
  struct descs *descs;
  uint64_t clock; /* clocks delivered so far, on every logical processor */
  uint64_t steps; /* spmu_deliver calls so far (bounded: RUN_MAX_STEPS) */
  struct ctr *ctr;
  size_t nctr;
  /* Per counter, for the last spmu_deliver call: its value before a PEBS
   * reload, and whether the call's assist reloaded it. */
  uint64_t *counted;
  bool *reloaded;
  struct lpstate st[SPMU_MAX_THREADS];
  unsigned pending[SPMU_MAX_THREADS]; /* PMIs reported by the host hook */
  size_t npending;
  uint64_t pmis, expects;
  struct reg ctrl, status, debugctl, ds_area;
  /* Guest memory (the script's windows) and what the model asked of it
   * during the current spmu_deliver call. */
  struct window *win;
  size_t nwin;
  struct ds_view ds;
  enum ds_phase phase;
  struct fault faults[RUN_MAX_FAULTS];
  size_t nfaults;
  /* A second core on which a clock can be tried first, without guest
   * memory, to see what the counters count before a PEBS reload; NULL
   * when the script has no memory (no assist can then reload). */
  spmu_core *scratch;
  void *snap;
  size_t snap_cap;
  struct {
    unsigned line;
    const char *op;
    int rc; /* SPMU_OK, SPMU_GP, or the host path's error */
  } last;
};

/* ---- cmd_run.c ----------------------------------------------------------- */

/* What the catalogue says of MSR addr; NULL if the profile lacks it. */
const struct desc *run_desc(const struct run *r, uint32_t addr);

static inline uint64_t run_field_value(const spmu_field_info *f, uint64_t reg)
{
  return (reg >> f->lsb) &
         (f->width >= 64 ? UINT64_MAX : (UINT64_C(1) << f->width) - 1);
}

/* ---- run_trace.c: one line (text) or object (JSON) per event --------------
 */

/* The processor; source is "script", "--cpu" or "default". */
void run_trace_cpu(const struct run *r, const char *source);
/* A wrmsr or host-wrmsr (op) with result rc; target is the register the
 * write changes, old and new its values. */
void run_trace_wrmsr(const struct run *r, const struct script_stmt *st,
                     const char *op, int rc, uint32_t target, uint64_t old,
                     uint64_t new);
void run_trace_rdmsr(const struct run *r, const struct script_stmt *st, int rc,
                     uint64_t value);
void run_trace_rdpmc(const struct run *r, const struct script_stmt *st, int rc,
                     uint64_t value);
/* At r->clock: counter c wrapped; lp requested a PMI (status: its
 * GLOBAL_STATUS); a PMI froze what (old -> new). */
void run_trace_overflow(const struct run *r, const struct script_stmt *st,
                        const struct ctr *c);
void run_trace_pmi(const struct run *r, const struct script_stmt *st,
                   unsigned lp, uint64_t status);
void run_trace_freeze(const struct run *r, const struct script_stmt *st,
                      unsigned lp, const char *what, uint64_t old,
                      uint64_t new);
/* The end of a deliver that began at clock first (counters' start and
 * gained say what they counted). */
void run_trace_deliver(const struct run *r, const struct script_stmt *st,
                       uint64_t first);
void run_trace_signal(const struct run *r, const struct script_stmt *st,
                      uint64_t old, uint64_t new);
/* memory, poke (old: the bytes before), state. */
void run_trace_memory(const struct run *r, const struct script_stmt *st);
void run_trace_poke(const struct run *r, const struct script_stmt *st,
                    uint64_t old);
void run_trace_state(const struct run *r, const struct script_stmt *st,
                     const struct script_state *state);
/* At r->clock: a PEBS record of size bytes written at addr, and the
 * counters it reloaded (reloaded[k]: r->ctr[k], now at its value). */
void run_trace_pebs(const struct run *r, const struct script_stmt *st,
                    uint64_t addr, uint64_t size, const bool *reloaded);
/* A PEBS record lost, a BTS record stored at addr, or a BTS record not
 * stored; why is a sentence. */
void run_trace_pebs_lost(const struct run *r, const struct script_stmt *st,
                         const char *why);
void run_trace_bts(const struct run *r, const struct script_stmt *st,
                   uint64_t addr, const spmu_branch *br);
void run_trace_bts_lost(const struct run *r, const struct script_stmt *st,
                        const char *why);
/* The failed expectation that ends the run (JSON only; the message itself
 * goes to stderr). */
void run_trace_failure(const struct run *r, const struct script_stmt *st,
                       const char *msg);
void run_trace_end(const struct run *r);

#endif

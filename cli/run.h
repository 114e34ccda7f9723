/* SPDX-License-Identifier: MIT */
/* softpmu run: the state of a run and the layers that share it.
 *
 * `run` is split by job, in layers. Each file calls only the files below
 * it, never one above or beside it on the same level:
 *
 *   cmd_run.c          the command: reading SCRIPT, setting a run up
 *        |             (the model's host callbacks included) and tearing
 *        |             it down, the SVG file, the manual
 *   run_exec.c         the script interpreter: one function per statement
 *        |             (wrmsr, rdmsr, rdpmc, deliver, signal, memory, poke,
 *        |             state, lp, reset-pmis, expect)
 *   run_model_view.c   what the model reported during a call (its events,
 *        |             spmu_host.event): deliver's calls, overflows and
 *        |             what each counter counted, PMIs and freezes, PEBS
 *        |             and BTS records and why one was lost
 *   run_trace.c  timeline.c
 *        |             the output: the trace (text or JSON lines, and the
 *        |             messages of a failed call) and the SVG timeline
 *   run_regs.c   run_mem.c
 *                      the registers as the run reads them (the
 *                      catalogue's descriptions, host-path reads); guest
 *                      memory (the script's windows and machine states,
 *                      and the host's read_mem/write_mem/machine_state)
 *
 * The model calls in through spmu_host (cmd_run.c installs it): event
 * goes to run_model_view.c, which keeps the events of the current call;
 * read_mem, write_mem and machine_state go to run_mem.c.
 *
 * The run works out nothing the model already knows: what happened in a
 * call is what the model's events say (events.h), and the registers are
 * read through the host path.
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
  unsigned index;  /* its number in the model's events and queries:
                      PMCi i, FIXED_CTRj 32 + j (GLOBAL_STATUS bits) */
  uint64_t mask;   /* the counter width */
  uint64_t val;    /* the value last read */
  uint64_t start;  /* the value when the current deliver began */
  uint64_t gained; /* what it counted since (wraps included) */
  int lane;        /* timeline id; -1 without --svg */
};

/* lp's IA32_PERF_GLOBAL_CTRL, _STATUS and IA32_DEBUGCTL. */
struct globals {
  uint64_t ctrl, status, debugctl;
};

struct lpstate {
  uint64_t pmis;       /* requested since the start or reset-pmis */
  uint64_t counts[3];  /* enum script_count: PEBS records, BTS records and
                          lost PEBS records, since the start */
  unsigned reset_line; /* that reset-pmis; 0 if none */
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

/* An MSR the run reads on its own, if the profile has it. */
struct reg {
  bool present;
  uint32_t addr;
  char name[40];
};

/* ---- run_mem.c's part: guest memory ------------------------------------ */

/* A window of guest memory; mapped once its `memory` statement ran. */
struct window {
  uint64_t base, size;
  uint8_t *data;
  bool mapped;
};

struct guest {
  struct window *win;
  size_t nwin;
  /* The machine state of each logical processor's last `state`. */
  struct script_state state[SPMU_MAX_THREADS];
};

/* ---- run_model_view.c's part: what the model reported -------------------- */

struct model_view {
  /* The events of the current model call, in the order reported. */
  spmu_event *ev;
  size_t nev, cap;
  bool overrun; /* more than cap: the run stops */
  /* Per counter, for the last spmu_deliver call: whether its PEBS assist
   * reloaded it. */
  bool *reloaded;
  /* Whether each logical processor's counters are frozen, as last given
   * to the timeline. */
  bool frozen[SPMU_MAX_THREADS];
};

/* ---- the run ------------------------------------------------------------- */

struct run {
  const struct script *s;
  const spmu_profile *p;
  spmu_core *core;
  /* The model's delivery call: spmu_deliver (a test harness may count the
   * calls through a wrapper of its own). */
  int (*deliver)(spmu_lp *lp, const spmu_clock *clk, uint64_t clocks,
                 uint64_t *consumed);
  unsigned threads, lp;
  bool show_lp; /* name the logical processor (the script has `lp`) */
  bool json, oom;
  struct timeline *tl;
  struct descs *descs;
  uint64_t clock; /* clocks delivered so far, on every logical processor */
  uint64_t steps; /* spmu_deliver calls so far (bounded: RUN_MAX_STEPS) */
  struct ctr *ctr;
  size_t nctr;
  struct lpstate st[SPMU_MAX_THREADS];
  uint64_t pmis, expects;
  struct reg ctrl, status, debugctl, ds_area;
  struct guest mem;
  struct model_view view;
  struct {
    unsigned line;
    const char *op;
    int rc; /* SPMU_OK, SPMU_GP, or the host path's error */
  } last;
};

/* A timeline call's result: out of memory is noted, and reported after
 * the statement. */
static inline void run_tl_check(struct run *r, bool ok)
{
  if (!ok)
    r->oom = true;
}

/* ---- run_regs.c: the registers as the run reads them --------------------- */

/* The profile's IA32_PERF_GLOBAL_CTRL, _STATUS, IA32_DEBUGCTL and
 * IA32_DS_AREA, and room to describe every MSR; false if out of memory. */
bool run_regs_init(struct run *r);
void run_regs_free(struct run *r);
/* Whether profile p has MSR `name`: into *out. */
bool run_find_reg(const spmu_profile *p, const char *name, struct reg *out);
/* What the catalogue says of MSR addr; NULL if the profile lacks it. */
const struct desc *run_desc(const struct run *r, uint32_t addr);

static inline uint64_t run_field_value(const spmu_field_info *f, uint64_t reg)
{
  return (reg >> f->lsb) &
         (f->width >= 64 ? UINT64_MAX : (UINT64_C(1) << f->width) - 1);
}

/* Field `name` of value reg of MSR addr; 0 if there is no such field. */
uint64_t run_field(const struct run *r, uint32_t addr, const char *name,
                   uint64_t reg);
/* MSR addr of lp through the host path (no side effects); 0 if absent. */
uint64_t run_rd(const struct run *r, unsigned lp, uint32_t addr);
/* lp's GLOBAL_CTRL, GLOBAL_STATUS and DEBUGCTL (0 where absent). */
struct globals run_globals(const struct run *r, unsigned lp);

/* ---- run_mem.c: guest memory --------------------------------------------- */

/* The script's memory windows, zero-filled and not yet mapped; false if
 * out of memory. */
bool run_mem_init(struct guest *g, const struct script *s);
void run_mem_free(struct guest *g);
/* Map the window declared at base (its `memory` statement ran). */
void run_mem_map(struct guest *g, uint64_t base);
/* The mapped window that holds the len bytes at la; NULL if none. */
struct window *run_mem_window(const struct guest *g, uint64_t la, size_t len);
/* The len (1-8) bytes at la as a little-endian number, read without the
 * model; false (and 0) if the memory does not hold them. */
bool run_mem_peek(const struct guest *g, uint64_t la, unsigned len,
                  uint64_t *v);
/* Copy len bytes at la out of or into guest memory: 0, or -1 if no window
 * holds them (the contract of spmu_host.read_mem and write_mem). */
int run_mem_read(const struct guest *g, uint64_t la, void *buf, size_t len);
int run_mem_write(struct guest *g, uint64_t la, const void *buf, size_t len);
/* spmu_host.machine_state (opaque: the struct run): the machine state of
 * lp's last `state`. */
void run_mem_host_state(void *opaque, spmu_lp *lp, spmu_machine_state *m);
/* spmu_host.read_mem and write_mem (opaque: the struct run): the script's
 * memory windows. */
int run_mem_host_read(void *opaque, spmu_lp *lp, uint64_t la, void *buf,
                      size_t len);
int run_mem_host_write(void *opaque, spmu_lp *lp, uint64_t la, const void *buf,
                       size_t len);

/* ---- run_trace.c: one line (text) or object (JSON) per event --------------
 */

/* "FILE:LINE: what: error" on stderr for a model call that failed;
 * returns CLI_EXIT_USAGE. */
int run_trace_call_failed(const struct run *r, const struct script_stmt *st,
                          const char *what, int rc);
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

/* ---- run_model_view.c: what the model reported ----------------------------
 */

/* Room for the events of one model call; call after the counters are
 * known. False if out of memory. */
bool run_view_init(struct run *r);
void run_view_free(struct run *r);
/* The host callback through which the model reports (into h). */
void run_view_host(spmu_host *h);
/* Before a model call: forget the events of the last one. */
void run_view_begin(struct run *r);
/* After a model call other than deliver (wrmsr, host-wrmsr, signal):
 * trace the PMIs it reported and their freezes, and give the timeline
 * every freeze that started or ended. CLI_EXIT_OK, or CLI_EXIT_USAGE
 * after a message. */
int run_view_report(struct run *r, const struct script_stmt *st);
/* Deliver clk st->clocks times on r->lp and trace each overflow, PMI,
 * freeze, PEBS and BTS record at its clock, counters' gained and val
 * updated; CLI_EXIT_OK, or CLI_EXIT_USAGE after a message. */
int run_view_deliver(struct run *r, const struct script_stmt *st,
                     const spmu_clock *clk);

/* ---- run_exec.c: the script interpreter ---------------------------------- */

/* Run statement st: CLI_EXIT_OK, CLI_EXIT_FAIL (an expect failed) or
 * CLI_EXIT_USAGE (after a message). */
int run_exec(struct run *r, const struct script_stmt *st);

#endif

/* libsoftpmu-qemu's parts (README.md in this directory):
 *   classify.c  what each instruction of a translated block is (Zydis)
 *   count.c     executions counted per block, handed to the model in bulk;
 *               per instruction in the block that reaches an overflow
 *   inline.c    counting by QEMU's inline adds alone (no callback per
 *               block), while that is exact
 *   model.c     the modelled micro-architecture (model=SPEC): caches,
 *               branch predictors and cycles fed per thread, their counts
 *               handed to the model as lines.h's modelled lines
 *   mux.c       multiplexing: one PMU time-sliced among the events
 *   pebs.c      record mode with PEBS: the DS area, the records' samples
 *   lbr.c       record mode with branch stacks: the model's LBRs
 *   sample.c    record mode: the samples of the PMIs, call chains, the
 *               stream of record.h
 *   plugin.c    arguments, threads, processes, results
 */
#ifndef SOFTPMU_QEMU_PLUGIN_H
#define SOFTPMU_QEMU_PLUGIN_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <Zydis/Zydis.h>
#include <softpmu/agent.h>
#include <softpmu/events.h>
#include <softpmu/profile.h>

#include "insn.h"
#include "lines.h"
#include "qemu_plugin_api.h"
#include "results.h"

#define MAX_EVENTS 32
#define MAX_VCPUS 4096
#define NVARIANTS 4
#define VAR_TAKEN 1u /* the block's conditional branch was taken */
#define VAR_CONT 2u  /* the block began by repeating a REP string insn */
#define STATUS_UNKNOWN SPMU_RESULTS_STATUS_UNKNOWN
#define STATUS_EXECVE SPMU_RESULTS_STATUS_EXECVE /* ends at an execve */
#define STATUS_SIGNAL(sig) SPMU_RESULTS_STATUS_SIGNAL(sig) /* killed by sig */
#define MAX_CHAIN 127 /* call-chain entries kept per sample */

/* A block's lines as vectors (GCC and Clang vector extensions), so that
 * adding a block to a thread's sums is a few vector adds. */
#define LANES 4
#define NVECS ((NLINES + LANES - 1) / LANES)
typedef uint32_t lanes __attribute__((vector_size(16)));

typedef struct insn_class {
  uint8_t kind; /* enum insn_kind */
  uint8_t load, store;
} insn_class;

/* A translated block: its totals, computed once at translation, and each
 * instruction (for placing an overflow on the exact one). */
struct tb {
  uint64_t vaddr;
  uint64_t fallthrough;       /* the address after its last instruction */
  uint64_t rep_addr;          /* its last instruction if a REP string one */
  uint32_t id;                /* index into the per-thread execution counts */
  uint8_t cond_last;          /* the last instruction is a conditional branch */
  uint8_t rep_first;          /* the first instruction is a REP string one */
  uint8_t last_kind;          /* enum insn_kind of the last instruction */
  uint32_t total[NLINES];     /* not taken, not a continuation */
  uint32_t first[NLINES];     /* what the first instruction contributes */
  uint32_t charge[NVARIANTS]; /* the budget each variant takes (count.c) */
  lanes vlines[NVARIANTS][NVECS]; /* each variant's lines (count.c) */
  uint64_t *inline_count;         /* executions counted inline (inline.c) */
  uint64_t *inline_cont;          /* of them, repeats of its REP instruction */
  struct tb *same_vaddr;          /* another block at vaddr (classify.c) */
  uint32_t ninsns;
  uint64_t *insn_vaddr;        /* [ninsns] */
  insn_class *insn;            /* [ninsns] */
  struct spmu_qemu_mtb *model; /* what model.c keeps of it, or NULL */
};

/* A guest thread: its model cores and what it has counted. */
struct vcpu {
  const struct tb *prev; /* the block that ran last, not yet counted */
  unsigned prev_cont;    /* VAR_CONT: prev began by repeating its REP */
  lanes sum[NVECS];      /* lines of the blocks counted, not delivered */
  uint64_t budget;       /* events until a sampling counter may overflow */
  uint64_t insns;        /* instructions delivered to the model */
  unsigned ncores;
  spmu_core *cores[MAX_EVENTS];
  spmu_agent *agents[MAX_EVENTS];
  unsigned core_of[MAX_EVENTS], counter_of[MAX_EVENTS];
  uint64_t base[MAX_EVENTS]; /* counter values at a fork (the child's 0) */
  int tid;                   /* 0 until the thread runs */
  struct spmu_qemu_pebs *pebs[MAX_EVENTS]; /* each core's DS area (pebs.c) */
  uint64_t base_insns, base_running[MAX_EVENTS]; /* at a fork, an execve */
  /* Multiplexing (mux.c). */
  unsigned group_of[MAX_EVENTS], ngroups, cur_group;
  uint64_t slice_start, slice_left;
  uint64_t mux_count[MAX_EVENTS], mux_running[MAX_EVENTS];
  uint64_t cur_ip, cur_next_ip; /* the instruction being delivered alone */
  uint64_t *stack;              /* return addresses, outermost first */
  size_t depth, stackcap;
  struct spmu_qemu_lbr *lbr;     /* branch stacks (lbr.c) */
  struct spmu_qemu_model *model; /* the thread's modelled uarch (model.c) */
};

struct plugin {
  qemu_plugin_id_t id;
  spmu_profile profile;
  char out[4096];
  unsigned nevents;
  uint64_t evtsel[MAX_EVENTS];
  int line_of[MAX_EVENTS]; /* the line event i counts, or -1 */
  /* model=SPEC (model.c): the modelled micro-architecture is on; the
   * modelled line event i counts (lines.h enum mline), or -1; a sampled
   * event counts a modelled line. */
  bool model, model_sampled;
  char model_spec[256];
  int mline_of[MAX_EVENTS];
  ZydisDecoder dec;
  pthread_mutex_t lock; /* tbs, vcpus[], totals, threads, the stream */
  struct tb **tbs;
  size_t ntbs, tbcap;
  struct vcpu *vcpus[MAX_VCPUS];
  uint64_t totals[MAX_EVENTS];                       /* threads already gone */
  uint64_t enabled[MAX_EVENTS], running[MAX_EVENTS]; /* their times */
  unsigned threads;
  int status; /* exit status, or STATUS_UNKNOWN, STATUS_EXECVE */
  bool failed;
  /* Record mode (record.h). */
  char record[4096]; /* the stream's path; "" when counting */
  uint64_t period;
  bool callgraph, precise;
  uint64_t branch; /* branch=: perf's branch_sample_type bits; 0: none */
  uint64_t mux;    /* multiplex=N: slices of N instructions; 0: off */
  char comm[16];
  /* Inline counting (inline.c): on while one guest thread runs and no
   * event needs what only a callback per block sees. */
  bool inline_mode;
  bool began_inline;
  bool installed; /* QEMU installed the plugin (not only preloaded) */
};

extern struct plugin g;

void spmu_qemu_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* classify.c */
bool spmu_qemu_decoder_init(void);
struct tb *spmu_qemu_describe_tb(const struct qemu_plugin_tb *qtb);
bool spmu_qemu_register_tb(struct tb *t);
struct tb *spmu_qemu_tbs_at(uint64_t vaddr);
void spmu_qemu_free_tb(struct tb *t);
void spmu_qemu_insn_lines(const insn_class *c, uint32_t lines[NLINES]);

/* count.c */
void spmu_qemu_on_tb_exec(unsigned int vcpu_index, void *udata);
void spmu_qemu_on_rep_exec(unsigned int vcpu_index, void *udata);
void spmu_qemu_flush_vcpu(struct vcpu *v);
void spmu_qemu_deliver(struct vcpu *v, const struct tb *t, unsigned var,
                       uint64_t execs);
bool spmu_qemu_taken_matters(void);
void spmu_qemu_start_budget(struct vcpu *v);
void spmu_qemu_charge_tb(struct tb *t);

/* plugin.c */
void spmu_qemu_thread_first(struct vcpu *v, unsigned vcpu_index);
spmu_agent_event spmu_qemu_agent_event(uint64_t sel);

/* inline.c */
void spmu_qemu_inline_tb(struct qemu_plugin_tb *qtb, struct tb *t);
void spmu_qemu_inline_flush(struct vcpu *v);
void spmu_qemu_inline_forget(void);

/* model.c */
bool spmu_qemu_model_init(const char *spec, char *why, size_t len);
bool spmu_qemu_model_attach(struct vcpu *v, char *why, size_t len);
void spmu_qemu_model_free(struct vcpu *v);
bool spmu_qemu_model_tb(struct qemu_plugin_tb *qtb, struct tb *t);
void spmu_qemu_model_free_tb(struct tb *t);
void spmu_qemu_model_begin(struct vcpu *v, const struct tb *t, unsigned cont);
void spmu_qemu_model_end(struct vcpu *v, const struct tb *p,
                         const struct tb *next);
uint32_t spmu_qemu_model_charge(struct vcpu *v, uint32_t charge);
void spmu_qemu_model_near(struct vcpu *v, bool near);
bool spmu_qemu_model_pending(struct vcpu *v);
size_t spmu_qemu_model_lines(struct vcpu *v, spmu_event_line *out);
size_t spmu_qemu_model_insn_lines(struct vcpu *v, uint32_t j,
                                  spmu_event_line *out);
void spmu_qemu_model_fork_child(struct vcpu *v);

/* mux.c */
int spmu_qemu_mux_plan(struct vcpu *v, char *why, size_t len);
uint64_t spmu_qemu_mux_value(struct vcpu *v, unsigned i);
uint64_t spmu_qemu_mux_running(const struct vcpu *v, unsigned i);
void spmu_qemu_mux_rotate(struct vcpu *v);

/* pebs.c */
struct spmu_qemu_pebs;
bool spmu_qemu_pebs_init(char *why, size_t len);
bool spmu_qemu_pebs_needs_gp(void);
int spmu_qemu_pebs_arm(struct vcpu *v, char *why, size_t len);
void spmu_qemu_pebs_drain(struct vcpu *v, unsigned k);
void spmu_qemu_pebs_free(struct vcpu *v);

/* lbr.c */
struct spmu_qemu_lbr;
struct spmu_branch;
struct spmu_rec_brstack;
bool spmu_qemu_lbr_init(char *why, size_t len);
int spmu_qemu_lbr_arm(struct vcpu *v, char *why, size_t len);
void spmu_qemu_lbr_free(struct vcpu *v);
void spmu_qemu_lbr_note(struct vcpu *v, const struct tb *p, unsigned var,
                        uint64_t next);
void spmu_qemu_lbr_replay(struct vcpu *v);
const struct spmu_branch *spmu_qemu_lbr_branch(struct vcpu *v,
                                               const struct tb *p, unsigned var,
                                               uint64_t next,
                                               struct spmu_branch *out);
void spmu_qemu_lbr_pmi(struct vcpu *v, unsigned k);
size_t spmu_qemu_lbr_size(const struct vcpu *v);
void spmu_qemu_lbr_put(const struct vcpu *v, struct spmu_rec_brstack *out);

/* sample.c */
bool spmu_qemu_record_open(void);
void spmu_qemu_sample(struct vcpu *v, unsigned event, uint64_t ip);
void spmu_qemu_stack_update(struct vcpu *v, const struct tb *p, uint64_t next);
void spmu_qemu_thread_start(struct vcpu *v);
void spmu_qemu_thread_exit(struct vcpu *v);
void spmu_qemu_record_lost(struct vcpu *v, uint64_t count);
void spmu_qemu_record_flush(void);
void spmu_qemu_record_fork_child(void);

#endif

/* libsoftpmu-qemu: a QEMU TCG plugin (qemu-user, x86-64 guests) that runs
 * the guest's retired instructions through softpmu's PMU model and writes
 * the counts of the events programmed (README.md in this directory says
 * what each event means in this engine and what a clock is).
 *
 * How counting works:
 *  - at translation, each instruction of a translation block (TB) is
 *    classified once with Zydis, and the block's event totals are summed
 *    (struct tb);
 *  - at execution, a small per-TB callback counts the executions of the
 *    previous block of the same guest thread by variant: whether its last
 *    branch was taken (the block now starting is not its fall-through) and
 *    whether it began as a continuation of a REP string instruction;
 *  - each variant is handed to the model as a batch of identical clocks
 *    (spmu_deliver with clocks = executions) when the thread or the process
 *    exits, and whenever an execution count would overflow.
 * One model core per guest thread (more when the events outnumber the
 * counters); the process's counts are the sum over its threads. */
#define _GNU_SOURCE /* O_CLOEXEC */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <Zydis/Zydis.h>
#include <softpmu/agent.h>
#include <softpmu/error.h>
#include <softpmu/events.h>
#include <softpmu/profile.h>
#include <softpmu/regs.h>

#include "lines.h"

#include "qemu_plugin_api.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT int qemu_plugin_version = SPMU_QEMU_PLUGIN_API;

#define MAX_EVENTS 32
#define MAX_VCPUS 4096
#define NVARIANTS 4
#define VAR_TAKEN 1u /* the block's conditional branch was taken */
#define VAR_CONT 2u  /* the block began by repeating a REP string insn */
/* An execution count is handed to the model when it reaches this (the
 * tests build a plugin with a small one, to run that path). */
#ifndef SPMU_QEMU_COUNT_MAX
#define SPMU_QEMU_COUNT_MAX UINT32_MAX
#endif
#define PAGE_SIZE_X86 4096u
#define MAX_INSN_LEN 15u /* SDM Vol. 2A 2.3.11: at most 15 bytes */

/* Linux x86-64 system call numbers of exit and exit_group. */
#define NR_EXIT 60
#define NR_EXIT_GROUP 231
#define NR_EXECVE 59
#define NR_EXECVEAT 322
#define STATUS_UNKNOWN (-1)
#define STATUS_EXECVE (-2) /* the block ends at an execve */

/* IA32_PERFEVTSELx fields: softpmu/regs.h (SDM Vol. 3B 18.2.1.1, Figure
 * 18-1); CMASK is bits 31:24. */
#define EVTSEL_CMASK (UINT64_C(0xff) << SPMU_EVTSEL_CMASK_SHIFT)

/* ---- the events this engine produces: lines.h ----------------------- */

/* What one instruction contributes, from its decoding. */
enum insn_kind {
  K_OTHER,
  K_COND,      /* Jcc, JrCXZ, LOOPcc: taken or not */
  K_JMP,       /* near jump, direct */
  K_JMP_IND,   /* near jump, indirect */
  K_CALL,      /* near call, direct */
  K_CALL_IND,  /* near call, indirect */
  K_RET,       /* near return */
  K_FAR,       /* far jump, call, return; IRET; SYSCALL; INT n */
  K_REP_STRING /* a string instruction with a REP prefix */
};

typedef struct insn_class {
  uint8_t kind; /* enum insn_kind */
  uint8_t load, store;
} insn_class;

/* A translated block: its totals, computed once at translation. */
struct tb {
  uint64_t vaddr;
  uint64_t fallthrough;   /* the address after its last instruction */
  uint64_t rep_addr;      /* its last instruction if a REP string one */
  uint32_t id;            /* index into the per-thread execution counts */
  uint8_t cond_last;      /* the last instruction is a conditional branch */
  uint8_t rep_first;      /* the first instruction is a REP string one */
  uint32_t total[NLINES]; /* not taken, not a continuation */
  uint32_t first[NLINES]; /* what the first instruction contributes */
};

/* A guest thread: its model cores and its execution counts. */
struct vcpu {
  bool used;
  const struct tb *prev; /* the block that ran last, not yet counted */
  bool prev_cont;
  uint32_t (*counts)[NVARIANTS]; /* by tb id */
  size_t cap;
  unsigned ncores;
  spmu_core *cores[MAX_EVENTS];
  spmu_agent *agents[MAX_EVENTS];
  unsigned core_of[MAX_EVENTS], counter_of[MAX_EVENTS];
  uint64_t base[MAX_EVENTS]; /* counter values at a fork (the child's 0) */
};

static struct {
  spmu_profile profile;
  char out[4096];
  unsigned nevents;
  uint64_t evtsel[MAX_EVENTS];
  ZydisDecoder dec;
  pthread_mutex_t lock; /* tbs, vcpus[], totals, threads */
  struct tb **tbs;
  size_t ntbs, tbcap;
  struct vcpu *vcpus[MAX_VCPUS];
  uint64_t totals[MAX_EVENTS]; /* threads already gone */
  unsigned threads;
  int status; /* exit status, or STATUS_UNKNOWN, STATUS_EXECVE */
  bool failed;
} g = {.lock = PTHREAD_MUTEX_INITIALIZER, .status = STATUS_UNKNOWN};

/* The guest thread running on this host thread (a fork's child keeps its
 * own). */
static _Thread_local int tls_vcpu __attribute__((tls_model("initial-exec"))) =
    -1;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  fputs("softpmu-qemu: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

/* ---- classification (Zydis) ------------------------------------------ */

static bool is_cond_branch(ZydisMnemonic m, ZydisInstructionCategory c)
{
  return c == ZYDIS_CATEGORY_COND_BR || m == ZYDIS_MNEMONIC_LOOP ||
         m == ZYDIS_MNEMONIC_LOOPE || m == ZYDIS_MNEMONIC_LOOPNE ||
         m == ZYDIS_MNEMONIC_JCXZ || m == ZYDIS_MNEMONIC_JECXZ ||
         m == ZYDIS_MNEMONIC_JRCXZ;
}

static bool is_far_transfer(const ZydisDecodedInstruction *in)
{
  switch (in->mnemonic) {
  case ZYDIS_MNEMONIC_IRET:
  case ZYDIS_MNEMONIC_IRETD:
  case ZYDIS_MNEMONIC_IRETQ:
  case ZYDIS_MNEMONIC_SYSCALL:
  case ZYDIS_MNEMONIC_SYSENTER:
  case ZYDIS_MNEMONIC_INT:
  case ZYDIS_MNEMONIC_INT1:
  case ZYDIS_MNEMONIC_INT3:
  case ZYDIS_MNEMONIC_INTO:
    return true;
  default:
    return in->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR;
  }
}

/* A near jump or call through a register or memory operand. */
static bool is_indirect(const ZydisDecodedOperand *ops)
{
  return ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER ||
         ops[0].type == ZYDIS_OPERAND_TYPE_MEMORY;
}

static uint8_t branch_kind(const ZydisDecodedInstruction *in,
                           const ZydisDecodedOperand *ops)
{
  if (is_far_transfer(in))
    return K_FAR;
  if (is_cond_branch(in->mnemonic, in->meta.category))
    return K_COND;
  if (in->mnemonic == ZYDIS_MNEMONIC_JMP)
    return is_indirect(ops) ? K_JMP_IND : K_JMP;
  if (in->mnemonic == ZYDIS_MNEMONIC_CALL)
    return is_indirect(ops) ? K_CALL_IND : K_CALL;
  if (in->mnemonic == ZYDIS_MNEMONIC_RET)
    return K_RET;
  if (in->meta.category == ZYDIS_CATEGORY_STRINGOP &&
      (in->attributes &
       (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE | ZYDIS_ATTRIB_HAS_REPNE)))
    return K_REP_STRING;
  return K_OTHER;
}

/* Loads and stores: memory operands, hidden ones included (PUSH, POP,
 * CALL and RET reach the stack), that the instruction reads or writes;
 * not LEA's address generation, nor NOP's operand. */
static void memory_access(const ZydisDecodedInstruction *in,
                          const ZydisDecodedOperand *ops, insn_class *c)
{
  unsigned i;

  if (in->mnemonic == ZYDIS_MNEMONIC_NOP)
    return;
  for (i = 0; i < in->operand_count; i++) {
    if (ops[i].type != ZYDIS_OPERAND_TYPE_MEMORY)
      continue;
    if (ops[i].mem.type != ZYDIS_MEMOP_TYPE_MEM &&
        ops[i].mem.type != ZYDIS_MEMOP_TYPE_VSIB)
      continue;
    if (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_READ)
      c->load = 1;
    if (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE)
      c->store = 1;
  }
}

/* Decode one instruction; false when its bytes do not decode to exactly
 * their length (an instruction QEMU cut at a page end). */
static bool classify(const void *bytes, size_t len, insn_class *c)
{
  ZydisDecodedInstruction in;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];

  memset(c, 0, sizeof(*c));
  if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&g.dec, bytes, len, &in, ops)))
    return false;
  if (in.length != len)
    return false;
  c->kind = branch_kind(&in, ops);
  memory_access(&in, ops, c);
  return true;
}

/* What one instruction adds to the block's lines (not-taken variant: a
 * conditional branch's NEAR_TAKEN is added by the taken variant). */
static void insn_lines(const insn_class *c, uint32_t lines[NLINES])
{
  memset(lines, 0, NLINES * sizeof(lines[0]));
  lines[L_INST] = 1;
  lines[L_LOADS] = c->load;
  lines[L_STORES] = c->store;
  switch (c->kind) {
  case K_COND:
    lines[L_BR_ALL] = lines[L_BR_COND] = 1;
    break;
  case K_JMP:
  case K_JMP_IND:
    lines[L_BR_ALL] = lines[L_BR_TAKEN] = 1;
    break;
  case K_CALL:
  case K_CALL_IND:
    lines[L_BR_ALL] = lines[L_BR_CALL] = lines[L_BR_TAKEN] = 1;
    break;
  case K_RET:
    lines[L_BR_ALL] = lines[L_BR_RET] = lines[L_BR_TAKEN] = 1;
    break;
  case K_FAR:
    lines[L_BR_ALL] = lines[L_BR_FAR] = 1;
    break;
  default:
    break;
  }
}

/* QEMU 7.2 lists, as a block's last instruction, one that crosses into
 * the next page and that the block does not execute (it ends the block
 * before it; the next block starts at it). Its bytes are truncated. */
static bool cut_at_page_end(uint64_t vaddr, bool decoded)
{
  uint64_t left = PAGE_SIZE_X86 - (vaddr & (PAGE_SIZE_X86 - 1));

  return left < MAX_INSN_LEN && !decoded;
}

static void add_insn(struct tb *t, size_t i, const insn_class *c,
                     uint64_t vaddr, size_t len)
{
  uint32_t lines[NLINES];
  unsigned l;

  insn_lines(c, lines);
  for (l = 0; l < NLINES; l++)
    t->total[l] += lines[l];
  if (i == 0) {
    memcpy(t->first, lines, sizeof(lines));
    t->rep_first = c->kind == K_REP_STRING;
  }
  t->cond_last = c->kind == K_COND;
  t->rep_addr = c->kind == K_REP_STRING ? vaddr : UINT64_MAX;
  t->fallthrough = vaddr + len;
}

static struct tb *describe_tb(const struct qemu_plugin_tb *qtb)
{
  size_t n = qemu_plugin_tb_n_insns(qtb), i;
  struct tb *t = calloc(1, sizeof(*t));

  if (!t)
    return NULL;
  t->vaddr = qemu_plugin_tb_vaddr(qtb);
  t->fallthrough = t->vaddr;
  t->rep_addr = UINT64_MAX;
  for (i = 0; i < n; i++) {
    const struct qemu_plugin_insn *qi = qemu_plugin_tb_get_insn(qtb, i);
    uint64_t va = qemu_plugin_insn_vaddr(qi);
    size_t len = qemu_plugin_insn_size(qi);
    insn_class c;
    bool ok = classify(qemu_plugin_insn_data(qi), len, &c);

    if (i == n - 1 && i > 0 && cut_at_page_end(va, ok))
      break;
    add_insn(t, i, &c, va, len);
  }
  return t;
}

static bool register_tb(struct tb *t)
{
  bool ok = true;

  pthread_mutex_lock(&g.lock);
  if (g.ntbs == g.tbcap) {
    size_t cap = g.tbcap ? g.tbcap * 2 : 4096;
    struct tb **p = realloc(g.tbs, cap * sizeof(*p));

    if (p) {
      g.tbs = p;
      g.tbcap = cap;
    } else {
      ok = false;
    }
  }
  if (ok) {
    t->id = (uint32_t)g.ntbs;
    g.tbs[g.ntbs++] = t;
  }
  pthread_mutex_unlock(&g.lock);
  return ok;
}

/* ---- delivery to the model ---------------------------------------------- */

static void variant_clock(const struct tb *t, unsigned var,
                          spmu_event_line lines[NLINES])
{
  unsigned l;

  for (l = 0; l < NLINES; l++) {
    uint32_t n = t->total[l];

    if (var & VAR_CONT)
      n -= t->first[l];
    if (l == L_BR_TAKEN && (var & VAR_TAKEN))
      n++;
    lines[l] = (spmu_event_line){
        .event = line_code[l][0], .umask = line_code[l][1], .count = n};
  }
}

/* One clock = one execution of the block (README.md); cpl 3: qemu-user
 * runs user-mode code only. */
static void deliver(struct vcpu *v, const struct tb *t, unsigned var,
                    uint64_t execs)
{
  spmu_event_line lines[NLINES];
  spmu_clock clk = {
      .lines = lines, .nlines = NLINES, .cpl = 3, .flags = SPMU_CLK_IA32E};
  unsigned k;

  variant_clock(t, var, lines);
  if (lines[L_INST].count == 0)
    return; /* nothing retired (a repeat of a REP string instruction) */
  for (k = 0; k < v->ncores; k++) {
    uint64_t left = execs;

    while (left) {
      uint64_t done = 0;

      if (spmu_deliver(spmu_core_lp(v->cores[k], 0), &clk, left, &done) < 0 ||
          done == 0) {
        g.failed = true; /* reported at exit */
        break;
      }
      left -= done;
    }
  }
}

static void count_prev(struct vcpu *v, const struct tb *p, unsigned var)
{
  uint32_t *c;

  if (p->id >= v->cap) {
    size_t cap = v->cap ? v->cap : 1024;
    uint32_t(*n)[NVARIANTS];

    while (cap <= p->id)
      cap *= 2;
    n = realloc(v->counts, cap * sizeof(*n));
    if (!n) {
      deliver(v, p, var, 1);
      return;
    }
    memset(n + v->cap, 0, (cap - v->cap) * sizeof(*n));
    v->counts = n;
    v->cap = cap;
  }
  c = &v->counts[p->id][var];
  if (++*c == SPMU_QEMU_COUNT_MAX) {
    deliver(v, p, var, *c);
    *c = 0;
  }
}

/* Count the block that ran before t on this thread, now that t tells
 * whether its branch was taken: taken when t is not its fall-through. */
static void on_tb_exec(unsigned int vcpu_index, void *udata)
{
  const struct tb *t = udata;
  struct vcpu *v = vcpu_index < MAX_VCPUS ? g.vcpus[vcpu_index] : NULL;
  const struct tb *p;

  if (!v)
    return;
  tls_vcpu = (int)vcpu_index;
  p = v->prev;
  if (p) {
    unsigned var = v->prev_cont ? VAR_CONT : 0;

    if (p->cond_last && t->vaddr != p->fallthrough)
      var |= VAR_TAKEN;
    count_prev(v, p, var);
  }
  /* A REP string instruction repeats by ending its block and starting a
   * new one at itself; hardware retires it once (SDM Vol. 2B, REP). */
  v->prev_cont = p && t->rep_first && p->rep_addr == t->vaddr;
  v->prev = t;
}

static void on_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *qtb)
{
  struct tb *t;

  (void)id;
  t = describe_tb(qtb);
  if (!t || !register_tb(t)) {
    free(t);
    g.failed = true;
    return;
  }
  qemu_plugin_register_vcpu_tb_exec_cb(qtb, on_tb_exec, QEMU_PLUGIN_CB_NO_REGS,
                                       t);
}

/* Hand every execution count of v to its cores; the caller holds g.lock. */
static void flush_vcpu(struct vcpu *v)
{
  size_t id, n = v->cap < g.ntbs ? v->cap : g.ntbs;
  unsigned var;

  if (v->prev) {
    count_prev(v, v->prev, v->prev_cont ? VAR_CONT : 0);
    v->prev = NULL;
  }
  for (id = 0; id < n; id++)
    for (var = 0; var < NVARIANTS; var++)
      if (v->counts[id][var]) {
        deliver(v, g.tbs[id], var, v->counts[id][var]);
        v->counts[id][var] = 0;
      }
}

static uint64_t read_event(struct vcpu *v, unsigned i)
{
  uint64_t value = 0;

  spmu_agent_read(v->agents[v->core_of[i]], v->counter_of[i], &value);
  return value - v->base[i];
}

/* ---- programming the model, as a driver does ------------------------- */

static int new_core(struct vcpu *v, char *why, size_t len)
{
  spmu_backend be;
  unsigned k = v->ncores;
  int rc = spmu_core_new(&g.profile, &v->cores[k]);

  if (rc == 0 &&
      (rc = spmu_backend_model(spmu_core_lp(v->cores[k], 0), &be)) == 0)
    rc = spmu_agent_new(&be, &v->agents[k]);
  if (rc != 0) {
    snprintf(why, len, "cannot make a model core of profile %s: %s",
             g.profile.name, spmu_strerror(rc));
    if (v->cores[k])
      spmu_core_free(v->cores[k]);
    v->cores[k] = NULL;
    return rc;
  }
  v->ncores++;
  return 0;
}

static spmu_agent_event agent_event(uint64_t sel)
{
  spmu_agent_event ev = {.event = (uint8_t)sel, .umask = (uint8_t)(sel >> 8)};

  if (sel & SPMU_EVTSEL_USR)
    ev.flags |= SPMU_AGENT_USR;
  if (sel & SPMU_EVTSEL_OS)
    ev.flags |= SPMU_AGENT_OS;
  return ev;
}

/* A fixed counter where the event is a fixed counter's, else a GP
 * counter (spmu_agent_claim); a new core when every one is taken. */
static int claim_event(struct vcpu *v, unsigned i, char *why, size_t len)
{
  spmu_agent_event ev = agent_event(g.evtsel[i]);
  unsigned k;
  int rc;

  for (k = 0;; k++) {
    if (k == v->ncores && (rc = new_core(v, why, len)) != 0)
      return rc;
    rc = spmu_agent_claim(v->agents[k], &ev, &v->counter_of[i]);
    if (rc == 0) {
      v->core_of[i] = k;
      return 0;
    }
    if (rc != SPMU_EBUSY || k + 1 == MAX_EVENTS) {
      snprintf(why, len, "event=0x%" PRIx64 ": the model refuses it (%s)",
               g.evtsel[i], spmu_strerror(rc));
      return rc;
    }
  }
}

static void free_cores(struct vcpu *v)
{
  unsigned k;

  for (k = 0; k < v->ncores; k++) {
    spmu_agent_free(v->agents[k]);
    spmu_core_free(v->cores[k]);
  }
  v->ncores = 0;
}

static int program_vcpu(struct vcpu *v, char *why, size_t len)
{
  unsigned i, k;
  int rc = 0;

  for (i = 0; i < g.nevents && rc == 0; i++)
    rc = claim_event(v, i, why, len);
  for (k = 0; k < v->ncores && rc == 0; k++)
    if ((rc = spmu_agent_start(v->agents[k])) != 0)
      snprintf(why, len, "cannot start the counters: %s", spmu_strerror(rc));
  if (rc != 0)
    free_cores(v);
  return rc;
}

/* ---- guest threads and processes -------------------------------------- */

static void on_vcpu_init(qemu_plugin_id_t id, unsigned int vcpu_index)
{
  struct vcpu *v;
  char why[256];

  (void)id;
  if (vcpu_index >= MAX_VCPUS) {
    fail("guest thread %u: more threads than the plugin counts", vcpu_index);
    g.failed = true;
    return;
  }
  v = calloc(1, sizeof(*v));
  if (!v || program_vcpu(v, why, sizeof(why)) != 0) {
    fail("%s", v ? why : "out of memory");
    free(v);
    g.failed = true;
    return;
  }
  v->used = true;
  pthread_mutex_lock(&g.lock);
  if (g.vcpus[vcpu_index]) { /* an index QEMU reuses: keep the old counts */
    free_cores(v);
    free(v);
  } else {
    g.vcpus[vcpu_index] = v;
  }
  g.threads++;
  pthread_mutex_unlock(&g.lock);
}

/* A thread's counts go into the process totals when it ends. */
static void retire_vcpu(unsigned idx)
{
  struct vcpu *v = g.vcpus[idx];
  unsigned i;

  flush_vcpu(v);
  for (i = 0; i < g.nevents; i++)
    g.totals[i] += read_event(v, i);
  free_cores(v);
  free(v->counts);
  free(v);
  g.vcpus[idx] = NULL;
}

static void on_vcpu_exit(qemu_plugin_id_t id, unsigned int vcpu_index)
{
  (void)id;
  pthread_mutex_lock(&g.lock);
  if (vcpu_index < MAX_VCPUS && g.vcpus[vcpu_index])
    retire_vcpu(vcpu_index);
  pthread_mutex_unlock(&g.lock);
}

static void write_block_before_execve(void);

static void on_syscall(qemu_plugin_id_t id, unsigned int vcpu_index,
                       int64_t num, uint64_t a1, uint64_t a2, uint64_t a3,
                       uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7,
                       uint64_t a8)
{
  (void)id, (void)vcpu_index, (void)a2, (void)a3, (void)a4, (void)a5;
  (void)a6, (void)a7, (void)a8;
  if (num == NR_EXIT_GROUP || num == NR_EXIT)
    g.status = (int)(a1 & 0xff);
  if (num == NR_EXECVE || num == NR_EXECVEAT)
    write_block_before_execve();
}

static size_t format_results(char *buf, size_t cap)
{
  size_t n = 0;
  unsigned i;
  char status[16] = "unknown";

  if (g.status >= 0)
    snprintf(status, sizeof(status), "%d", g.status);
  else if (g.status == STATUS_EXECVE)
    snprintf(status, sizeof(status), "execve");
  n += (size_t)snprintf(buf + n, cap - n,
                        "softpmu-qemu 1 pid=%ld threads=%u status=%s\n",
                        (long)getpid(), g.threads, status);
  for (i = 0; i < g.nevents && n < cap; i++)
    n += (size_t)snprintf(buf + n, cap - n, "event %u %" PRIu64 "\n", i,
                          g.totals[i]);
  if (n < cap)
    n += (size_t)snprintf(buf + n, cap - n, "end\n");
  return n < cap ? n : cap;
}

/* Append this process's block in one write (O_APPEND), so that the blocks
 * of forked children and their parent never interleave. */
static void write_results(void)
{
  char buf[64 + MAX_EVENTS * 48];
  size_t n = format_results(buf, sizeof(buf));
  int fd = open(g.out, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);

  if (fd < 0 || write(fd, buf, n) != (ssize_t)n)
    fail("cannot write %s: %s", g.out, strerror(errno));
  if (fd >= 0)
    close(fd);
}

static void on_exit_process(qemu_plugin_id_t id, void *udata)
{
  unsigned idx;

  (void)id, (void)udata;
  pthread_mutex_lock(&g.lock);
  for (idx = 0; idx < MAX_VCPUS; idx++)
    if (g.vcpus[idx])
      retire_vcpu(idx);
  if (g.failed)
    fail("the counts are incomplete (see the messages above)");
  write_results();
  pthread_mutex_unlock(&g.lock);
}

/* fork(): the child is a copy of this process, counts included; it counts
 * from the fork on, in a block of its own. Only the forking thread lives
 * on in it, and the block it was running (the system call) is the
 * parent's. */
static void before_fork(void)
{
  pthread_mutex_lock(&g.lock);
}

static void after_fork_parent(void)
{
  pthread_mutex_unlock(&g.lock);
}

static void start_child_counts(struct vcpu *v)
{
  unsigned i;

  v->prev = NULL;
  v->prev_cont = false;
  if (v->counts)
    memset(v->counts, 0, v->cap * sizeof(*v->counts));
  for (i = 0; i < g.nevents; i++) {
    v->base[i] = 0;
    v->base[i] = read_event(v, i);
  }
}

static void after_fork_child(void)
{
  unsigned idx;

  for (idx = 0; idx < MAX_VCPUS; idx++) {
    struct vcpu *v = g.vcpus[idx];

    if (!v)
      continue;
    if ((int)idx == tls_vcpu) {
      start_child_counts(v);
      continue;
    }
    free_cores(v);
    free(v->counts);
    free(v);
    g.vcpus[idx] = NULL;
  }
  memset(g.totals, 0, sizeof(g.totals));
  g.threads = 1;
  g.status = STATUS_UNKNOWN;
  pthread_mutex_unlock(&g.lock);
}

/* execve: qemu-user hands the new program to the kernel, which runs it
 * without QEMU, so nothing after it is counted. The counts up to it (the
 * execve instruction included) are written now; should the execve fail,
 * counting goes on from 0 into the block written at exit. */
static void write_block_before_execve(void)
{
  unsigned idx;

  pthread_mutex_lock(&g.lock);
  for (idx = 0; idx < MAX_VCPUS; idx++) {
    struct vcpu *v = g.vcpus[idx];
    unsigned i;

    if (!v)
      continue;
    flush_vcpu(v);
    for (i = 0; i < g.nevents; i++) {
      g.totals[i] += read_event(v, i);
      v->base[i] += read_event(v, i);
    }
  }
  g.status = STATUS_EXECVE;
  write_results();
  memset(g.totals, 0, sizeof(g.totals));
  g.status = STATUS_UNKNOWN;
  pthread_mutex_unlock(&g.lock);
}

/* ---- arguments ------------------------------------------------------------
 */

/* CMASK, INV and edge detect compare a clock's increment (SDM Vol. 3B
 * 18.2.1.1); a clock here is a whole block, so they would apply per block,
 * which is not what hardware counts per cycle: refused for now. */
static bool parse_event(const char *s)
{
  char *end;
  uint64_t sel;

  errno = 0;
  sel = strtoull(s, &end, 16);
  if (errno || end == s || *end) {
    fail("event=%s: not a hexadecimal IA32_PERFEVTSELx value", s);
    return false;
  }
  if (sel & (EVTSEL_CMASK | SPMU_EVTSEL_INV | SPMU_EVTSEL_E)) {
    fail("event=%s: CMASK, INV and edge detect are not supported yet (a "
         "clock of this engine is a whole translation block)",
         s);
    return false;
  }
  if (!(sel & (SPMU_EVTSEL_USR | SPMU_EVTSEL_OS))) {
    fail("event=%s: neither USR (bit 16) nor OS (bit 17) is set", s);
    return false;
  }
  if (g.nevents == MAX_EVENTS) {
    fail("event=%s: at most 32 events", s);
    return false;
  }
  g.evtsel[g.nevents++] = sel;
  return true;
}

static bool parse_arg(const char *a)
{
  char why[256];

  if (strncmp(a, "profile=", 8) == 0) {
    if (spmu_profile_parse(a + 8, &g.profile, why, sizeof(why)) != 0) {
      fail("profile=%s: %s", a + 8, why);
      return false;
    }
    return true;
  }
  if (strncmp(a, "out=", 4) == 0) {
    if (strlen(a + 4) >= sizeof(g.out) || !a[4]) {
      fail("out=%s: empty or too long a path", a + 4);
      return false;
    }
    strcpy(g.out, a + 4);
    return true;
  }
  if (strncmp(a, "event=", 6) == 0)
    return parse_event(a + 6);
  fail("unknown argument '%s' (profile=NAME, out=PATH, event=HEX)", a);
  return false;
}

static bool parse_args(int argc, char **argv)
{
  int i;

  g.nevents = 0;
  g.out[0] = '\0';
  if (spmu_profile_parse("skylake", &g.profile, NULL, 0) != 0)
    return false;
  for (i = 0; i < argc; i++)
    if (!parse_arg(argv[i]))
      return false;
  if (!g.out[0] || g.nevents == 0) {
    fail("out=PATH and at least one event=HEX are required");
    return false;
  }
  return true;
}

static bool check_qemu(const qemu_info_t *info)
{
  char ver[64];

  if (info->version.min > SPMU_QEMU_PLUGIN_API ||
      info->version.cur < SPMU_QEMU_PLUGIN_API) {
    snprintf(ver, sizeof(ver), "%d to %d", info->version.min,
             info->version.cur);
    fail("this QEMU supports plugin API versions %s; the plugin is written "
         "for version 1 (QEMU 7.2, Debian 12's qemu-user)",
         ver);
    return false;
  }
  if (info->system_emulation || strcmp(info->target_name, "x86_64") != 0) {
    fail("runs under qemu-x86_64 (user mode) only, not %s%s", info->target_name,
         info->system_emulation ? " (system)" : "");
    return false;
  }
  return true;
}

/* Program one thread's worth of cores now, so that a bad event fails the
 * start rather than the first thread. */
static bool dry_run(void)
{
  struct vcpu v;
  char why[256];

  memset(&v, 0, sizeof(v));
  if (program_vcpu(&v, why, sizeof(why)) != 0) {
    fail("%s", why);
    return false;
  }
  free_cores(&v);
  return true;
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                               int argc, char **argv);
EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                               int argc, char **argv)
{
  if (!check_qemu(info) || !parse_args(argc, argv) || !dry_run())
    return -1;
  if (!ZYAN_SUCCESS(ZydisDecoderInit(&g.dec, ZYDIS_MACHINE_MODE_LONG_64,
                                     ZYDIS_STACK_WIDTH_64)))
    return -1;
  pthread_atfork(before_fork, after_fork_parent, after_fork_child);
  qemu_plugin_register_vcpu_init_cb(id, on_vcpu_init);
  qemu_plugin_register_vcpu_exit_cb(id, on_vcpu_exit);
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_trans);
  qemu_plugin_register_vcpu_syscall_cb(id, on_syscall);
  qemu_plugin_register_atexit_cb(id, on_exit_process, NULL);
  return 0;
}

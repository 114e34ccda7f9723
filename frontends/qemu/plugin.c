/* libsoftpmu-qemu: a QEMU TCG plugin (qemu-user, x86-64 guests) that runs
 * the guest's retired instructions through softpmu's PMU model and writes
 * the counts of the events programmed, or, in record mode, the samples of
 * their overflows (README.md in this directory says what each event means
 * in this engine and what a clock is; plugin.h lists the parts).
 *
 * This file: the arguments, the model cores each guest thread gets
 * (programmed through the agent library, as a driver programs hardware),
 * the lives of threads and processes (fork, execve, exit) and the results
 * file. One model core per guest thread (more when the events outnumber
 * the counters); the process's counts are the sum over its threads. */
#define _GNU_SOURCE /* O_CLOEXEC */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <softpmu/error.h>
#include <softpmu/events.h>
#include <softpmu/regs.h>

#include "args.h"
#include "plugin.h"
#include "results.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT int qemu_plugin_version = SPMU_QEMU_PLUGIN_API;

/* Linux x86-64 system call numbers of exit and exit_group. */
#define NR_EXIT 60
#define NR_EXIT_GROUP 231
#define NR_EXECVE 59
#define NR_EXECVEAT 322

/* IA32_PERFEVTSELx fields: softpmu/regs.h (SDM Vol. 3B 18.2.1.1, Figure
 * 18-1); CMASK is bits 31:24. */
#define EVTSEL_CMASK (UINT64_C(0xff) << SPMU_EVTSEL_CMASK_SHIFT)

struct plugin g = {.lock = PTHREAD_MUTEX_INITIALIZER, .status = STATUS_UNKNOWN};

/* The guest thread running on this host thread (a fork's child keeps its
 * own). */
static _Thread_local int tls_vcpu __attribute__((tls_model("initial-exec"))) =
    -1;

void spmu_qemu_fail(const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  fputs("softpmu-qemu: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

#define fail spmu_qemu_fail

static uint64_t read_event(struct vcpu *v, unsigned i)
{
  uint64_t value = 0;

  if (g.mux)
    value = spmu_qemu_mux_value(v, i);
  else
    spmu_agent_read(v->agents[v->core_of[i]], v->counter_of[i], &value);
  return value - v->base[i];
}

/* The instructions during which event i was counted on v (all of them
 * unless multiplexing). */
static uint64_t running_of(const struct vcpu *v, unsigned i)
{
  if (g.mux)
    return spmu_qemu_mux_running(v, i) - v->base_running[i];
  return v->insns - v->base_insns;
}

/* A thread's counts and times into the process's (its blocks handed to
 * the model first). */
static void add_totals(struct vcpu *v)
{
  unsigned i;

  for (i = 0; i < g.nevents; i++) {
    g.totals[i] += read_event(v, i);
    g.enabled[i] += v->insns - v->base_insns;
    g.running[i] += running_of(v, i);
  }
}

static void clear_totals(void)
{
  memset(g.totals, 0, sizeof(g.totals));
  memset(g.enabled, 0, sizeof(g.enabled));
  memset(g.running, 0, sizeof(g.running));
}

/* Count from here as from 0 (a fork's child, after an execve). */
static void rebase(struct vcpu *v)
{
  unsigned i;

  for (i = 0; i < g.nevents; i++) {
    v->base_running[i] += running_of(v, i);
    v->base[i] += read_event(v, i);
  }
  v->base_insns = v->insns;
}

/* Every live thread's counts into the totals (g.lock held), and with
 * restart, counting from 0 again after. */
static void add_every_thread(bool restart)
{
  unsigned idx;

  for (idx = 0; idx < MAX_VCPUS; idx++) {
    struct vcpu *v = g.vcpus[idx];

    if (!v)
      continue;
    spmu_qemu_flush_vcpu(v);
    add_totals(v);
    if (restart)
      rebase(v);
  }
}

/* Each block is described once, when QEMU translates it; it is then
 * counted by inline adds (inline.c) or by a callback per execution
 * (count.c). */
static void on_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *qtb)
{
  struct tb *t;

  (void)id;
  t = spmu_qemu_describe_tb(qtb);
  if (!t || !spmu_qemu_register_tb(t)) {
    spmu_qemu_free_tb(t);
    g.failed = true;
    return;
  }
  spmu_qemu_charge_tb(t);
  if (g.model && !spmu_qemu_model_tb(qtb, t))
    g.failed = true;
  if (g.inline_mode)
    spmu_qemu_inline_tb(qtb, t);
  else
    qemu_plugin_register_vcpu_tb_exec_cb(qtb,
                                         t->rep_first && t->ninsns == 1
                                             ? spmu_qemu_on_rep_exec
                                             : spmu_qemu_on_tb_exec,
                                         QEMU_PLUGIN_CB_NO_REGS, t);
}

/* The first block a guest thread runs (or the first after its counts were
 * flushed): which host thread it is. */
void spmu_qemu_thread_first(struct vcpu *v, unsigned vcpu_index)
{
  tls_vcpu = (int)vcpu_index;
  if (!v->tid)
    spmu_qemu_thread_start(v);
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

spmu_agent_event spmu_qemu_agent_event(uint64_t sel)
{
  spmu_agent_event ev = {
      .event = (uint8_t)sel, .umask = (uint8_t)(sel >> 8), .period = g.period};

  if (sel & SPMU_EVTSEL_USR)
    ev.flags |= SPMU_AGENT_USR;
  if (sel & SPMU_EVTSEL_OS)
    ev.flags |= SPMU_AGENT_OS;
  return ev;
}

/* The lowest free GP counter, for PEBS where only GP counters have it
 * (before PERF_CAPABILITIES.PEBS_BASELINE, SDM Vol. 3B 18.9.2). */
static int claim_gp(spmu_agent *a, const spmu_agent_event *ev,
                    unsigned *counter)
{
  spmu_agent_pmu pmu;
  unsigned n;
  int rc = spmu_agent_pmu_get(a, &pmu);

  for (n = 0; rc == 0 && n < pmu.gp; n++) {
    rc = spmu_agent_claim_counter(a, SPMU_AGENT_GP(n), ev);
    if (rc == 0) {
      *counter = SPMU_AGENT_GP(n);
      return 0;
    }
    if (rc == SPMU_EBUSY || rc == SPMU_EINVAL)
      rc = 0;
  }
  return rc ? rc : SPMU_EBUSY;
}

/* A fixed counter where the event is a fixed counter's, else a GP
 * counter (spmu_agent_claim); a new core when every one is taken. */
static int claim_event(struct vcpu *v, unsigned i, char *why, size_t len)
{
  spmu_agent_event ev = spmu_qemu_agent_event(g.evtsel[i]);
  unsigned k;
  int rc;

  for (k = 0;; k++) {
    if (k == v->ncores && (rc = new_core(v, why, len)) != 0)
      return rc;
    if (g.precise && spmu_qemu_pebs_needs_gp())
      rc = claim_gp(v->agents[k], &ev, &v->counter_of[i]);
    else
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

  spmu_qemu_pebs_free(v);
  spmu_qemu_lbr_free(v);
  spmu_qemu_model_free(v);
  for (k = 0; k < v->ncores; k++) {
    spmu_agent_free(v->agents[k]);
    spmu_core_free(v->cores[k]);
  }
  v->ncores = 0;
}

static void free_vcpu(struct vcpu *v)
{
  free_cores(v);
  free(v->stack);
  free(v);
}

static int program_vcpu(struct vcpu *v, char *why, size_t len)
{
  unsigned i, k;
  int rc = 0;

  if (g.mux) {
    if ((rc = new_core(v, why, len)) == 0)
      return spmu_qemu_mux_plan(v, why, len);
    return rc;
  }
  for (i = 0; i < g.nevents && rc == 0; i++)
    rc = claim_event(v, i, why, len);

  for (k = 0; k < v->ncores && rc == 0; k++)
    if ((rc = spmu_agent_start(v->agents[k])) != 0)
      snprintf(why, len, "cannot start the counters: %s", spmu_strerror(rc));
  /* PEBS after the start, which writes the event selects with INT (the
   * thread has run nothing yet). */
  if (rc == 0 && g.precise)
    rc = spmu_qemu_pebs_arm(v, why, len);
  if (rc == 0 && g.branch)
    rc = spmu_qemu_lbr_arm(v, why, len);
  if (rc != 0)
    free_cores(v);
  return rc;
}

/* ---- guest threads and processes -------------------------------------- */

static void on_vcpu_init(qemu_plugin_id_t id, unsigned int vcpu_index);
static void register_callbacks(qemu_plugin_id_t id);

static void after_reset(qemu_plugin_id_t id)
{
  register_callbacks(id);
}

/* A second guest thread: QEMU 7.2's inline adds are not atomic, so the
 * plugin resets itself (its callbacks removed, the translated code
 * flushed) and counts with a callback per block from then on (inline.c).
 * The reset is asynchronous: it takes effect before this thread runs
 * another block. */
static void leave_inline_mode(void)
{
  g.inline_mode = false;
  qemu_plugin_reset(g.id, after_reset);
}

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
  if (!v || !spmu_qemu_model_attach(v, why, sizeof(why)) ||
      program_vcpu(v, why, sizeof(why)) != 0) {
    fail("%s", v ? why : "out of memory");
    if (v)
      spmu_qemu_model_free(v);
    free(v);
    g.failed = true;
    return;
  }
  spmu_qemu_start_budget(v);
  pthread_mutex_lock(&g.lock);
  if (g.vcpus[vcpu_index]) { /* an index QEMU reuses: keep the old counts */
    free_cores(v);
    free(v);
  } else {
    g.vcpus[vcpu_index] = v;
  }
  if (g.threads++ && g.inline_mode)
    leave_inline_mode();
  pthread_mutex_unlock(&g.lock);
}

/* A thread's counts go into the process totals when it ends. */
static void retire_vcpu(unsigned idx)
{
  struct vcpu *v = g.vcpus[idx];

  spmu_qemu_flush_vcpu(v);
  spmu_qemu_thread_exit(v);
  add_totals(v);
  free_vcpu(v);
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

/* This process's block of the results file (protocol/results.h). */
static size_t format_results(char *buf, size_t cap)
{
  struct spmu_results_block b = {
      .head = {.pid = (long)getpid(),
               .threads = g.threads,
               .status = g.status,
               .counting = !g.began_inline ? SPMU_RESULTS_CALLBACK
                           : g.inline_mode ? SPMU_RESULTS_INLINE
                                           : SPMU_RESULTS_INLINE_CALLBACK},
      .nevents = g.nevents};
  unsigned i;

  for (i = 0; i < g.nevents; i++)
    b.ev[i] = (struct spmu_results_event){
        .count = g.totals[i], .enabled = g.enabled[i], .running = g.running[i]};
  return spmu_results_format(&b, buf, cap);
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
  if (g.out[0])
    write_results();
  pthread_mutex_unlock(&g.lock);
  spmu_qemu_record_flush();
}

/* ---- a fatal signal ------------------------------------------------------
 *
 * QEMU 7.2 ends a process that a signal kills without calling the plugin's
 * exit callback: it restores the signal's default action and sends it to
 * itself with kill(). softpmu stat preloads this library into qemu-x86_64
 * (LD_PRELOAD, unset for the guest with -U) so that this kill() runs
 * first: when the process sends itself a signal whose action is now the
 * default one that ends it, the counts so far are written, with
 * status=signal:N. The other threads of the process run on meanwhile:
 * their blocks during the writing may be missed. */

static bool ends_process(int sig)
{
  struct sigaction sa;

  if (sigaction(sig, NULL, &sa) != 0 || sa.sa_handler != SIG_DFL)
    return false;
  switch (sig) {
  case SIGCHLD:
  case SIGCONT:
  case SIGURG:
  case SIGWINCH:
  case SIGSTOP:
  case SIGTSTP:
  case SIGTTIN:
  case SIGTTOU:
    return false;
  default:
    return sig > 0 && sig < SIGRTMIN;
  }
}

static void write_before_signal(int sig)
{
  static bool written;

  pthread_mutex_lock(&g.lock);
  if (!written) {
    written = true;
    add_every_thread(false);
    g.status = STATUS_SIGNAL(sig);
    if (g.out[0])
      write_results();
  }
  pthread_mutex_unlock(&g.lock);
  spmu_qemu_record_flush();
}

EXPORT int kill(pid_t pid, int sig);
EXPORT int kill(pid_t pid, int sig)
{
  union {
    void *p;
    int (*f)(pid_t, int);
  } next = {.p = dlsym(RTLD_NEXT, "kill")};

  if (g.installed && pid == getpid() && ends_process(sig))
    write_before_signal(sig);
  if (!next.p) {
    errno = ENOSYS;
    return -1;
  }
  return next.f(pid, sig);
}

/* fork(): the child is a copy of this process, counts included; it counts
 * from the fork on, in a block of its own. Only the forking thread lives
 * on in it, and the block it was running (the system call) is the
 * parent's. */
static void before_fork(void)
{
  spmu_qemu_record_flush(); /* the child starts with an empty buffer */
  pthread_mutex_lock(&g.lock);
}

static void after_fork_parent(void)
{
  pthread_mutex_unlock(&g.lock);
}

static void start_child_counts(struct vcpu *v)
{
  v->prev = NULL;
  v->prev_cont = 0;
  v->tid = 0; /* a new thread: its first block says which */
  memset(v->sum, 0, sizeof(v->sum));
  spmu_qemu_model_fork_child(v);
  spmu_qemu_inline_forget();
  memset(v->base, 0, sizeof(v->base));
  memset(v->base_running, 0, sizeof(v->base_running));
  rebase(v);
}

static void after_fork_child(void)
{
  unsigned idx;

  for (idx = 0; idx < MAX_VCPUS; idx++) {
    struct vcpu *v = g.vcpus[idx];

    if (!v)
      continue;
    /* Counting inline, the process has one thread: this one. */
    if ((int)idx == tls_vcpu || g.inline_mode) {
      start_child_counts(v);
      continue;
    }
    free_vcpu(v);
    g.vcpus[idx] = NULL;
  }
  spmu_qemu_record_fork_child();
  clear_totals();
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
  pthread_mutex_lock(&g.lock);
  add_every_thread(true);
  g.status = STATUS_EXECVE;
  if (g.out[0])
    write_results();
  clear_totals();
  g.status = STATUS_UNKNOWN;
  pthread_mutex_unlock(&g.lock);
  spmu_qemu_record_flush();
}

/* ---- arguments ------------------------------------------------------------
 */

/* CMASK, INV and edge detect compare a clock's increment (SDM Vol. 3B
 * 18.2.1.1); a clock here is a whole block, so they would apply per block,
 * which is not what hardware counts per cycle: refused for now. */
static bool check_event(uint64_t sel)
{
  if (sel & (EVTSEL_CMASK | SPMU_EVTSEL_INV | SPMU_EVTSEL_E)) {
    fail("event=%" PRIx64 ": CMASK, INV and edge detect are not supported "
         "yet (a clock of this engine is a whole translation block)",
         sel);
    return false;
  }
  if (!(sel & (SPMU_EVTSEL_USR | SPMU_EVTSEL_OS))) {
    fail("event=%" PRIx64 ": neither USR (bit 16) nor OS (bit 17) is set", sel);
    return false;
  }
  return true;
}

/* What the arguments name (protocol/args.h): the profile, the model, the
 * events. */
static bool take_args(const struct spmu_plugin_args *a)
{
  char why[256];
  unsigned i;

  if (spmu_profile_parse(a->profile, &g.profile, why, sizeof(why)) != 0) {
    fail("profile=%s: %s", a->profile, why);
    return false;
  }
  if (a->model[0]) {
    if (!spmu_qemu_model_init(a->model, why, sizeof(why))) {
      fail("%s", why);
      return false;
    }
    snprintf(g.model_spec, sizeof(g.model_spec), "%s", a->model);
    g.model = true;
  }
  for (i = 0; i < a->nevents; i++)
    if (!check_event(a->event[i]))
      return false;
  memcpy(g.evtsel, a->event, sizeof(g.evtsel));
  g.nevents = a->nevents;
  snprintf(g.out, sizeof(g.out), "%s", a->out);
  snprintf(g.record, sizeof(g.record), "%s", a->record);
  snprintf(g.comm, sizeof(g.comm), "%s", a->comm);
  g.period = a->period;
  g.callgraph = a->callgraph;
  g.precise = a->precise;
  g.mux = a->multiplex;
  g.branch = a->branch;
  return true;
}

/* The line of lines.h that event i counts: its (event, umask), or the
 * fixed counter's event (INST_RETIRED.ANY on fixed counter 0). */
static int line_of(uint64_t sel)
{
  unsigned l;

  for (l = 0; l < NLINES; l++)
    if (line_code[l][0] == (uint8_t)sel &&
        line_code[l][1] == (uint8_t)(sel >> 8))
      return (int)l;
  return -1;
}

/* The modelled line of lines.h that event i counts (enum mline), or -1;
 * fixed counters 1 and 2 count M_CYCLES and M_REF_TSC (events.h). */
static int mline_of(uint64_t sel)
{
  unsigned l;

  for (l = 0; l < NMLINES; l++)
    if (mline_code[l][0] == (uint8_t)sel &&
        mline_code[l][1] == (uint8_t)(sel >> 8))
      return (int)l;
  return -1;
}

/* Events on modelled lines need model=SPEC; which of them sample. */
static bool check_modelled_events(void)
{
  unsigned i;

  for (i = 0; i < g.nevents; i++) {
    g.mline_of[i] = mline_of(g.evtsel[i]);
    if (g.mline_of[i] < 0)
      continue;
    if (!g.model) {
      fail("event=%" PRIx64 ": event %02XH umask %02XH is produced by the "
           "modelled micro-architecture only: give model=SPEC (cachegrind:"
           "I1=S,A,L:D1=S,A,L:LL=S,A,L or part:NAME)",
           g.evtsel[i], (unsigned)(uint8_t)g.evtsel[i],
           (unsigned)(uint8_t)(g.evtsel[i] >> 8));
      return false;
    }
    if (g.record[0])
      g.model_sampled = true;
  }
  return true;
}

static bool parse_args(int argc, char **argv)
{
  struct spmu_plugin_args a;
  char why[SPMU_PLUGIN_ARGS_PATH_MAX + 512];
  unsigned i;

  if (spmu_plugin_args_parse(&a, argc, argv, why, sizeof(why)) != 0) {
    fail("%s", why);
    return false;
  }
  if (!take_args(&a))
    return false;
  if (g.precise && !spmu_qemu_pebs_init(why, sizeof(why))) {
    fail("%s", why);
    return false;
  }
  if (g.branch && !spmu_qemu_lbr_init(why, sizeof(why))) {
    fail("%s", why);
    return false;
  }
  for (i = 0; i < g.nevents; i++)
    g.line_of[i] = line_of(g.evtsel[i]);
  if (!check_modelled_events())
    return false;
  /* The model needs the callback per block (model.c). */
  g.inline_mode = !a.count_callback && !g.record[0] && !g.mux && !g.model &&
                  !spmu_qemu_taken_matters();
  g.began_inline = g.inline_mode;
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
  if (g.record[0] && !spmu_qemu_record_open())
    return -1;
  if (!spmu_qemu_decoder_init())
    return -1;
  g.id = id;
  g.installed = true;
  pthread_atfork(before_fork, after_fork_parent, after_fork_child);
  register_callbacks(id);
  return 0;
}

static void register_callbacks(qemu_plugin_id_t id)
{
  qemu_plugin_register_vcpu_init_cb(id, on_vcpu_init);
  qemu_plugin_register_vcpu_exit_cb(id, on_vcpu_exit);
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_trans);
  qemu_plugin_register_vcpu_syscall_cb(id, on_syscall);
  qemu_plugin_register_atexit_cb(id, on_exit_process, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libsoftpmu-qemu: a QEMU TCG plugin (qemu-user, x86-64 guests) that runs
 * the guest's retired instructions through softpmu's PMU model and writes
 * the counts of the events programmed, or, in record mode, the samples of
 * their overflows (README.md in this directory says what each event means
 * in this engine and what a clock is).
 *
 * The parts, each calling only those below it:
 *   plugin.c    this file: the install, QEMU's callbacks of threads,
 *               translations, system calls and exit, fork, execve and a
 *               fatal signal, the results file
 *   exec.c      an execve followed: the new program under qemu and the
 *               plugin again
 *   setup.c     the configuration (config.h) from the arguments
 *   threads.c   the registry of the process's guest threads, their totals
 *   cores.c     a thread's model cores, programmed through the agent
 *   inline.c    counting by QEMU's inline adds alone, while that is exact
 *   budget.c    record mode by an inline budget (plugin API 2 on)
 *   count.c     counting by a callback per block, handed to the model in
 *               bulk; per instruction in the block that reaches an overflow
 *   interval.c  each thread's rows of intervals (interval=N)
 *   pebs.c      record mode with PEBS: the DS area, the records' samples
 *   sample.c    record mode: the stream of protocol/record.h, the samples,
 *               call chains
 *   lbr.c       record mode with branch stacks: the model's LBRs
 *   mux.c       multiplexing: one PMU time-sliced among the events; every
 *               event's count as read, multiplexed or not
 *   classify.c  the translated blocks: what each instruction is (Zydis)
 *   model.c     the modelled micro-architecture (model=SPEC)
 *   seed.c      getrandom(2)'s bytes from a seed (seed=N)
 *   procmaps.c  the guest's /proc/self/maps as QEMU 7.2 writes it
 *   fail.c      the messages
 *   api.c       the plugin API versions: the calls that differ
 * and the types they share: config.h (the configuration, const once set),
 * tb.h (a block), vcpu.h (a thread). Each part sees the configuration and
 * the thread it works on as parameters (a thread's struct vcpu holds the
 * configuration); the blocks carry the registry's table to the callbacks
 * of their executions.
 *
 * The one global: root, below, which only this file sees. QEMU calls the
 * callbacks of a vCPU's start and end, of a translation and of a system
 * call with no userdata, and the fork, kill and sigaction hooks take none
 * either: they reach the process's state through it. It is set when an
 * install succeeds and never changes. (api.c exports the variable QEMU
 * reads the API version from, set once, at load.) */
#define _GNU_SOURCE /* O_CLOEXEC, gettid */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "auxv.h"
#include "budget.h"
#include "classify.h"
#include "config.h"
#include "cores.h"
#include "count.h"
#include "exec.h"
#include "fail.h"
#include "inline.h"
#include "layout.h"
#include "model.h"
#include "procmaps.h"
#include "qemu_plugin_api.h"
#include "regs.h"
#include "results.h"
#include "sample.h"
#include "seed.h"
#include "setup.h"
#include "threads.h"
#include "vcpu.h"

#define EXPORT __attribute__((visibility("default")))

/* Linux x86-64 system call numbers of exit and exit_group. */
#define NR_EXIT 60
#define NR_EXIT_GROUP 231
#define NR_EXECVE 59
#define NR_EXECVEAT 322
#define NR_KILL 62
#define NR_TKILL 200
#define NR_TGKILL 234
#define NR_GETRANDOM 318

struct plugin {
  struct spmu_qemu_config cfg; /* set by setup.c; const to every part */
  struct spmu_qemu_api api;    /* set at install (api.c); const after */
  qemu_plugin_id_t id;
  pthread_mutex_t lock; /* the threads, the blocks, status */
  struct spmu_qemu_blocks *blocks;
  struct spmu_qemu_inline *inl;
  struct spmu_qemu_budget *budget; /* record mode inline (budget.c), or NULL */
  struct spmu_qemu_regs *regs;     /* regs=1 (regs.c), or NULL */
  struct spmu_qemu_threads *threads;
  struct spmu_qemu_stream *stream; /* record mode, else NULL */
  int status;                      /* exit status, or SPMU_RESULTS_STATUS_* */
  bool inline_mode;                /* counting inline (inline.c) now */
  bool failed;                     /* a block or a thread could not be set up */
  bool signal_written;
  bool exit_deferred;    /* at exit with no exit call: a signal may follow */
  bool catch_signals;    /* QEMU's handler on more signals (API 2 on) */
  bool have_qemu_action; /* qemu_action is QEMU's handler */
  struct sigaction qemu_action;      /* set by the sigaction hook, once */
  int fork_tid;                      /* the host thread that forks */
  unsigned vcpu_span;                /* 1 + the highest vCPU index seen */
  struct spmu_qemu_exec_probe probe; /* the first instruction translated */
  struct spmu_qemu_auxv auxv;        /* the vDSO withheld (auxv.c) */
  struct spmu_qemu_seed *seed;       /* seed=N, else NULL */
  bool seed_failed;                  /* said that a write failed */
  struct spmu_qemu_layout *layout;   /* 7.2's placement kept, or NULL */
  /* With the layout and 7.2's start, 7.2's maps (procmaps.c); or NULL. */
  struct spmu_qemu_procmaps *procmaps;
};

static struct plugin *root;

/* ---- the results file ------------------------------------------------- */

/* Append this process's block (protocol/results.h) in one write
 * (O_APPEND), so that the blocks of forked children and their parent
 * never interleave. */
static void write_results(struct plugin *p)
{
  struct spmu_results_block b = {
      .head = {.pid = (long)getpid(),
               .status = p->status,
               .counting = !p->cfg.inline_start ? SPMU_RESULTS_CALLBACK
                           : p->inline_mode     ? SPMU_RESULTS_INLINE
                                            : SPMU_RESULTS_INLINE_CALLBACK}};
  char *buf;
  size_t n = 0;
  int fd;

  if (!p->cfg.out[0])
    return;
  spmu_qemu_threads_results(p->threads, &b);
  if (!(buf = spmu_results_text(&b, &n))) {
    spmu_qemu_fail("cannot write %s: out of memory", p->cfg.out);
    return;
  }
  fd = open(p->cfg.out, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 || write(fd, buf, n) != (ssize_t)n)
    spmu_qemu_fail("cannot write %s: %s", p->cfg.out, strerror(errno));
  if (fd >= 0)
    close(fd);
  free(buf);
}

static bool failed(const struct plugin *p)
{
  return p->failed || spmu_qemu_threads_failed(p->threads) ||
         spmu_qemu_stream_failed(p->stream);
}

/* ---- translations ------------------------------------------------------ */

/* The first instruction's bytes as QEMU translated them, and the guest's
 * memory found from them (guest.c: its guest address plus QEMU's guest
 * base must hold them), for exec.c and auxv.c. */
static void take_probe(struct spmu_qemu_exec_probe *probe,
                       const struct spmu_qemu_api *api,
                       const struct qemu_plugin_tb *qtb)
{
  const struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(qtb, 0);
  size_t n =
      insn ? spmu_qemu_insn_bytes(api, insn, probe->bytes, sizeof(probe->bytes))
           : 0;

  if (n) {
    spmu_qemu_guest_mem_find(&probe->mem, api, insn, probe->bytes, n);
    probe->n = n;
  }
}

/* Each block is described once, when QEMU translates it; it is then
 * counted by inline adds (inline.c) or by a callback per execution
 * (count.c). */
static void on_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *qtb)
{
  struct plugin *p = root;
  struct tb *t;
  bool ok;

  (void)id;
  pthread_mutex_lock(&p->lock);
  t = spmu_qemu_describe_tb(p->blocks, &p->api, qtb);
  ok = t != NULL;
  if (ok) {
    t->vcpus = spmu_qemu_threads_table(p->threads);
    ok = spmu_qemu_register_tb(p->blocks, t);
    if (!p->probe.n) {
      take_probe(&p->probe, &p->api, qtb);
      spmu_qemu_stream_set_base(p->stream, p->probe.mem.base);
      if (p->probe.n)
        spmu_qemu_auxv_arm(&p->auxv, &p->api, qtb, &p->probe.mem,
                           p->cfg.args.vdso);
      /* before any block is counted inline: one that cannot be left */
      if (!spmu_qemu_api_can_reset(&p->api, p->auxv.vdso))
        p->inline_mode = false;
    }
  }
  pthread_mutex_unlock(&p->lock);
  if (!ok) {
    spmu_qemu_free_tb(t);
    p->failed = true;
    return;
  }
  spmu_qemu_charge_tb(&p->cfg, t);
  if (p->cfg.model && !spmu_qemu_model_tb(&p->cfg, qtb, t))
    p->failed = true;
  if (p->inline_mode) {
    if (!spmu_qemu_inline_tb(p->inl, qtb, t))
      p->failed = true;
  } else if (p->budget) {
    spmu_qemu_budget_instrument(p->budget, qtb, t);
  } else {
    qemu_plugin_register_vcpu_tb_exec_cb(qtb,
                                         spmu_qemu_exec_callback(&p->cfg, t),
                                         spmu_qemu_regs_cb_flags(p->regs), t);
    if (p->regs && !spmu_qemu_regs_tb(p->regs, qtb, t))
      p->failed = true;
  }
}

/* ---- guest threads and processes -------------------------------------- */

static void register_callbacks(qemu_plugin_id_t id);

/* The reset has taken effect: QEMU calls this in its exclusive section,
 * the translated code flushed, no vCPU running. The threads that started
 * before it ran blocks counted inline, on their own vCPUs' words from
 * API 2: those counts join vCPU 0's (inline.c). */
static void after_reset(qemu_plugin_id_t id)
{
  struct plugin *p = root;

  pthread_mutex_lock(&p->lock);
  if (p->inl)
    spmu_qemu_inline_gather(p->inl, p->vcpu_span);
  pthread_mutex_unlock(&p->lock);
  register_callbacks(id);
}

/* A second guest thread: QEMU 7.2's inline adds are not atomic, so the
 * plugin resets itself (its callbacks removed, the translated code
 * flushed) and counts with a callback per block from then on (inline.c).
 * The reset is asynchronous: it takes effect when QEMU next stops every
 * vCPU, before this thread runs a block; a thread that starts before
 * then runs the blocks counted inline (after_reset). */
static void leave_inline_mode(struct plugin *p)
{
  p->inline_mode = false;
  qemu_plugin_reset(p->id, after_reset);
}

static void on_vcpu_init(qemu_plugin_id_t id, unsigned int vcpu_index)
{
  struct plugin *p = root;
  struct vcpu *v;
  char why[256];

  (void)id;
  if (vcpu_index >= MAX_VCPUS) {
    spmu_qemu_fail("guest thread %u: more threads than the plugin counts",
                   vcpu_index);
    p->failed = true;
    return;
  }
  v = spmu_qemu_vcpu_new(&p->cfg, p->stream, why, sizeof(why));
  if (!v) {
    spmu_qemu_fail("%s", why);
    p->failed = true;
    return;
  }
  v->ib = p->budget;
  v->regs = p->regs;
  v->vcpu_index = vcpu_index;
  pthread_mutex_lock(&p->lock);
  if (vcpu_index >= p->vcpu_span)
    p->vcpu_span = vcpu_index + 1;
  if (spmu_qemu_threads_add(p->threads, vcpu_index, v) > 1 && p->inline_mode)
    leave_inline_mode(p);
  pthread_mutex_unlock(&p->lock);
}

/* A thread's counts go into the process totals when it ends. */
static void on_vcpu_exit(qemu_plugin_id_t id, unsigned int vcpu_index)
{
  struct plugin *p = root;

  (void)id;
  pthread_mutex_lock(&p->lock);
  spmu_qemu_threads_retire(p->threads, vcpu_index);
  pthread_mutex_unlock(&p->lock);
}

/* An execve about to succeed: the counts up to it (the execve instruction
 * included) are written now, with status (exec: the plugin follows it;
 * execve: the program runs without QEMU, uncounted). Should it fail after
 * all, counting goes on from 0 into the block written at exit. The
 * instructions the calling thread has retired (its records' time). */
static uint64_t write_block_before_execve(struct plugin *p, int status,
                                          unsigned vcpu_index)
{
  struct vcpu *v;
  uint64_t time = p->cfg.args.exec_time;

  pthread_mutex_lock(&p->lock);
  spmu_qemu_threads_collect(p->threads, true);
  v = spmu_qemu_vcpu_at(spmu_qemu_threads_table(p->threads), vcpu_index);
  if (v)
    time += v->insns;
  p->status = status;
  write_results(p);
  spmu_qemu_threads_clear_totals(p->threads);
  p->status = SPMU_RESULTS_STATUS_UNKNOWN;
  pthread_mutex_unlock(&p->lock);
  spmu_qemu_stream_flush(p->stream);
  return time;
}

/* execve and execveat (exec.c): left to fail natively when they would;
 * else followed, the process replaced by qemu-x86_64 running the new
 * program under this plugin; else (a setuid program...) run natively,
 * uncounted, with the reason said. */
static void on_execve(struct plugin *p, unsigned vcpu_index,
                      const struct spmu_qemu_exec_call *call)
{
  struct spmu_qemu_exec_probe probe;
  struct spmu_qemu_exec *x;
  char why[PATH_MAX + 256];
  uint64_t time;

  pthread_mutex_lock(&p->lock);
  probe = p->probe;
  pthread_mutex_unlock(&p->lock);
  switch (spmu_qemu_exec_prepare(&p->cfg, &probe, call, &x, why, sizeof(why))) {
  case SPMU_QEMU_EXEC_FAILS:
    return;
  case SPMU_QEMU_EXEC_NATIVE:
    spmu_qemu_fail("execve: %s; the program runs without the plugin", why);
    write_block_before_execve(p, SPMU_RESULTS_STATUS_EXECVE, vcpu_index);
    return;
  case SPMU_QEMU_EXEC_FOLLOW:
    break;
  }
  time = write_block_before_execve(p, SPMU_RESULTS_STATUS_EXEC, vcpu_index);
  spmu_qemu_exec_run(x, time, why, sizeof(why));
  spmu_qemu_exec_free(x);
  /* qemu-x86_64 could not be executed: the execve runs natively. */
  spmu_qemu_fail("execve: %s; the program runs without the plugin", why);
  write_block_before_execve(p, SPMU_RESULTS_STATUS_EXECVE, vcpu_index);
}

static bool ends_process(int sig);
static void write_before_signal(struct plugin *p, int sig);

/* kill, tkill or tgkill of this process by itself. QEMU 10 leaves the
 * host's default action on a signal that ends a process without a core
 * dump while the guest's is the default: the kernel then ends QEMU with
 * no callback, so the counts are written at the call (a signal whose host
 * action is QEMU's own handler is left to the kill() hook below). */
static void on_self_kill(struct plugin *p, int64_t num, uint64_t a1,
                         uint64_t a2, uint64_t a3)
{
  int sig = -1;

  if (num == NR_KILL && (pid_t)a1 == getpid())
    sig = (int)a2;
  else if (num == NR_TKILL && (pid_t)a1 == gettid())
    sig = (int)a2;
  else if (num == NR_TGKILL && (pid_t)a1 == getpid())
    sig = (int)a3;
  /* SIGKILL ends it with no counts under every QEMU. */
  if (sig > 0 && sig != SIGKILL && ends_process(sig))
    write_before_signal(p, sig);
}

/* An open, which may be of the file 7.2's maps go into (procmaps.c). */
static void on_open(struct plugin *p, unsigned vcpu_index, int64_t num,
                    const uint64_t *args)
{
  struct spmu_qemu_guest_mem mem;

  pthread_mutex_lock(&p->lock);
  mem = p->probe.mem;
  pthread_mutex_unlock(&p->lock);
  spmu_qemu_procmaps_syscall(p->procmaps, &mem, vcpu_index, num, args);
}

static void on_syscall(qemu_plugin_id_t id, unsigned int vcpu_index,
                       int64_t num, uint64_t a1, uint64_t a2, uint64_t a3,
                       uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7,
                       uint64_t a8)
{
  struct spmu_qemu_exec_call call = {num, {a1, a2, a3, a4, a5}};

  (void)id, (void)a6, (void)a7, (void)a8;
  spmu_qemu_layout_syscall(root->layout, vcpu_index, num, call.a);
  if (root->procmaps && spmu_qemu_procmaps_follows(num))
    on_open(root, vcpu_index, num, call.a);
  if (num == NR_EXIT_GROUP || num == NR_EXIT)
    root->status = (int)(a1 & 0xff);
  if (num == NR_EXECVE || num == NR_EXECVEAT)
    on_execve(root, vcpu_index, &call);
  if (num == NR_KILL || num == NR_TKILL || num == NR_TGKILL)
    on_self_kill(root, num, a1, a2, a3);
  if (num == NR_GETRANDOM && root->seed)
    spmu_qemu_seed_call(root->seed, vcpu_index, a1);
}

/* QEMU's own restart of a system call (QEMU_ERESTARTSYS, 512, which
 * QEMU 7.2 to 10 return when a host signal came between the guest's
 * SYSCALL and the call's start, or in rt_sigprocmask and the like while
 * a signal is pending): QEMU steps the guest back to the SYSCALL and
 * executes it again after the signal is delivered. The instruction
 * retired once (SDM Vol. 3A 6.6: an interrupt or signal is taken on an
 * instruction boundary, never half-way through SYSCALL), so the second
 * execution counts nothing (README.md, "Restarted system calls"). */
#define QEMU_ERESTARTSYS_ 512

/* getrandom returned: with seed=N its bytes are the generator's
 * (seed.c). */
static void on_getrandom_ret(struct plugin *p, unsigned int vcpu_index,
                             int64_t ret)
{
  bool ok;

  pthread_mutex_lock(&p->lock);
  ok = spmu_qemu_seed_return(p->seed, &p->probe.mem, vcpu_index, ret);
  if (!ok && !p->seed_failed)
    spmu_qemu_fail("seed=%" PRIu64 ": getrandom's buffer could not be "
                   "written: the host's bytes stay",
                   p->cfg.args.seed.value);
  p->seed_failed |= !ok;
  pthread_mutex_unlock(&p->lock);
}

static void on_syscall_ret(qemu_plugin_id_t id, unsigned int vcpu_index,
                           int64_t num, int64_t ret)
{
  struct plugin *p = root;
  struct vcpu *v;

  (void)id;
  if (num == NR_GETRANDOM && p->seed)
    on_getrandom_ret(p, vcpu_index, ret);
  spmu_qemu_layout_syscall_ret(p->layout, vcpu_index, num, ret);
  spmu_qemu_procmaps_syscall_ret(p->procmaps, vcpu_index, num, ret);
  if (ret != -QEMU_ERESTARTSYS_)
    return;
  if (p->inline_mode) {
    spmu_qemu_inline_restart(p->inl);
    return;
  }
  v = spmu_qemu_vcpu_at(spmu_qemu_threads_table(p->threads), vcpu_index);
  if (v)
    v->restarts++;
}

/* QEMU 10 calls the exit callback before ending the process by a signal
 * too: with no exit call seen, the block waits for the kill() that may
 * follow (below), else for the process's end (write_deferred). */
static void on_exit_process(qemu_plugin_id_t id, void *udata)
{
  struct plugin *p = udata;

  (void)id;
  pthread_mutex_lock(&p->lock);
  spmu_qemu_threads_retire_all(p->threads);
  if (failed(p))
    spmu_qemu_fail("the counts are incomplete (see the messages above)");
  if (p->status == SPMU_RESULTS_STATUS_UNKNOWN)
    p->exit_deferred = true;
  else
    write_results(p);
  pthread_mutex_unlock(&p->lock);
  spmu_qemu_stream_flush(p->stream);
}

/* At the process's end (exit() runs it): the block on_exit_process left,
 * if no signal wrote it. Only then does it take the lock: another thread
 * may still run (and hold it) while exit() runs. */
__attribute__((destructor)) static void write_deferred(void)
{
  if (!root || !root->exit_deferred)
    return;
  pthread_mutex_lock(&root->lock);
  if (root->exit_deferred && !root->signal_written) {
    root->signal_written = true;
    write_results(root);
  }
  pthread_mutex_unlock(&root->lock);
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

/* The signals whose default action dumps core (signal(7)). */
static bool dumps_core(int sig)
{
  switch (sig) {
  case SIGABRT:
  case SIGBUS:
  case SIGFPE:
  case SIGILL:
  case SIGQUIT:
  case SIGSEGV:
  case SIGSYS:
  case SIGTRAP:
  case SIGXCPU:
  case SIGXFSZ:
    return true;
  default:
    return false;
  }
}

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

/* The block, status=signal:sig, once; p->lock held. */
static void write_signal_block(struct plugin *p, int sig)
{
  if (!p->signal_written) {
    p->signal_written = true;
    if (!p->exit_deferred)
      spmu_qemu_threads_collect(p->threads, false);
    p->status = SPMU_RESULTS_STATUS_SIGNAL(sig);
    write_results(p);
  }
}

static void write_before_signal(struct plugin *p, int sig)
{
  pthread_mutex_lock(&p->lock);
  write_signal_block(p, sig);
  pthread_mutex_unlock(&p->lock);
  spmu_qemu_stream_flush(p->stream);
}

/* QEMU 10 (plugin API 2 on) leaves the host's default action on the
 * signals that end a process without a core dump (SIGINT, SIGTERM,
 * SIGHUP, SIGPIPE...) while the guest's is the default, where QEMU 7.2
 * installs its own handler on every signal: the kernel would end QEMU
 * with no callback. softpmu stat preloads the plugin (the kill() hook
 * above), so QEMU's sigaction calls come here: the first time QEMU
 * installs its handler (on a signal that dumps core, as it sets up its
 * signals, after the plugin's install), the plugin installs the same
 * handler on those signals, and puts it back whenever QEMU would set the
 * default there again for the guest (QEMU's guest-side calls have
 * SA_SIGINFO; its own reset before it kills itself has not, and is left
 * alone). QEMU then takes such a signal as 7.2 does: queued to the guest,
 * whose default action ends it through the exit callback and the kill()
 * hook, at a point where the plugin may write. */
static int real_sigaction(int sig, const struct sigaction *act,
                          struct sigaction *old)
{
  union {
    void *p;
    int (*f)(int, const struct sigaction *, struct sigaction *);
  } next = {.p = dlsym(RTLD_NEXT, "sigaction")};

  if (!next.p) {
    errno = ENOSYS;
    return -1;
  }
  return next.f(sig, act, old);
}

/* The signals taken over: those that end a process without a core dump
 * (signal(7)). */
static bool caught(int sig)
{
  return sig > 0 && sig < SIGRTMIN && sig != SIGKILL && sig != SIGSTOP &&
         !dumps_core(sig) && sig != SIGCHLD && sig != SIGCONT &&
         sig != SIGURG && sig != SIGWINCH && sig != SIGTSTP && sig != SIGTTIN &&
         sig != SIGTTOU;
}

static bool qemu_default(const struct sigaction *act)
{
  return act->sa_handler == SIG_DFL && (act->sa_flags & SA_SIGINFO);
}

/* QEMU's handler, just installed on sig: on every caught signal whose
 * host action is the default too. */
static void take_over(struct plugin *p, const struct sigaction *act)
{
  int sig;

  p->qemu_action = *act;
  p->have_qemu_action = true;
  for (sig = 1; sig < SIGRTMIN; sig++)
    if (caught(sig) && ends_process(sig))
      real_sigaction(sig, &p->qemu_action, NULL);
}

EXPORT int sigaction(int sig, const struct sigaction *act,
                     struct sigaction *old);
EXPORT int sigaction(int sig, const struct sigaction *act,
                     struct sigaction *old)
{
  struct plugin *p = root;
  int rc;

  if (!p || !p->catch_signals || !act)
    return real_sigaction(sig, act, old);
  if (!p->have_qemu_action && dumps_core(sig) && (act->sa_flags & SA_SIGINFO) &&
      act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN) {
    rc = real_sigaction(sig, act, old);
    if (rc == 0)
      take_over(p, act);
    return rc;
  }
  if (p->have_qemu_action && caught(sig) && qemu_default(act))
    act = &p->qemu_action;
  return real_sigaction(sig, act, old);
}

EXPORT int kill(pid_t pid, int sig);
EXPORT int kill(pid_t pid, int sig)
{
  union {
    void *p;
    int (*f)(pid_t, int);
  } next = {.p = dlsym(RTLD_NEXT, "kill")};

  if (root && pid == getpid() && ends_process(sig))
    write_before_signal(root, sig);
  if (!next.p) {
    errno = ENOSYS;
    return -1;
  }
  return next.f(pid, sig);
}

/* QEMU 8.2 (at least) on hands each ELF file it loads (the program, its dynamic
 * linker) to elfutils (dwfl_report_elf, for its own debug output), which
 * maps the whole file, at an address of the host's choosing: while the
 * plugin keeps 7.2's placement (layout.c), that mapping would sit among
 * the guest's (QEMU 7.2's are elsewhere), so the file is not reported:
 * QEMU's log loses the program's symbols and line numbers, nothing
 * else. */
struct Dwfl;
struct Dwfl_Module;
EXPORT struct Dwfl_Module *dwfl_report_elf(struct Dwfl *dwfl, const char *name,
                                           const char *file, int fd,
                                           uint64_t bias, bool preload);
EXPORT struct Dwfl_Module *dwfl_report_elf(struct Dwfl *dwfl, const char *name,
                                           const char *file, int fd,
                                           uint64_t bias, bool preload)
{
  union {
    void *p;
    struct Dwfl_Module *(*f)(struct Dwfl *, const char *, const char *, int,
                             uint64_t, bool);
  } next = {.p = dlsym(RTLD_NEXT, "dwfl_report_elf")};

  if ((root && root->layout) || !next.p)
    return NULL;
  return next.f(dwfl, name, file, fd, bias, preload);
}

/* QEMU's mmap (QEMU 10 calls mmap64, libraries mmap), preloaded: while
 * the plugin keeps 7.2's placement, a mapping the host kernel would put
 * at a 2 MiB boundary goes where it fits first, as 7.2's placement puts
 * it (layout.c); any other goes to the kernel as it is. */
EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd,
                  off_t off);
EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd,
                  off_t off)
{
  return spmu_qemu_layout_mmap(root ? root->layout : NULL, addr, len, prot,
                               flags, fd, off);
}

/* The same function (off_t is 64 bits on x86-64). */
EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd,
                    off_t off) __attribute__((alias("mmap")));

/* One malloc arena for all of QEMU's threads. QEMU 8.1 on lets the host
 * kernel place a guest's mmap without an address; a host thread's first
 * malloc (QEMU's RCU thread, a guest thread's) maps a new arena of 64 MiB
 * at a moment that races the guest's own mappings, and in the bottom-up
 * layout softpmu runs QEMU in (perf/qemu_run.c) it then takes the
 * addresses the guest's next library would have had: the modelled counts
 * changed from run to run. With the main arena alone, QEMU's mallocs grow
 * its heap and take none of the guest's addresses. Runs as the plugin is
 * preloaded, before QEMU starts a thread. */
__attribute__((constructor)) static void one_malloc_arena(void)
{
  (void)mallopt(M_ARENA_MAX, 1);
}

/* fork(): the child is a copy of this process, counts included; it counts
 * from the fork on, in a block of its own. Only the forking thread lives
 * on in it, and the block it was running (the system call) is the
 * parent's. */
static void before_fork(void)
{
  spmu_qemu_stream_flush(root->stream); /* the child starts with it empty */
  pthread_mutex_lock(&root->lock);
  root->fork_tid = (int)gettid();
}

static void after_fork_parent(void)
{
  pthread_mutex_unlock(&root->lock);
}

static void after_fork_child(void)
{
  struct plugin *p = root;

  /* Counting inline, the process has one thread: this one. */
  spmu_qemu_threads_fork_child(p->threads, p->fork_tid, p->inline_mode);
  spmu_qemu_stream_fork_child(p->stream);
  p->status = SPMU_RESULTS_STATUS_UNKNOWN;
  pthread_mutex_unlock(&p->lock);
}

/* ---- the install ------------------------------------------------------ */

static bool check_qemu(struct spmu_qemu_api *api, const qemu_info_t *info)
{
  char why[256];

  if (!spmu_qemu_api_resolve(api, info, why, sizeof(why))) {
    spmu_qemu_fail("%s", why);
    return false;
  }
  if (info->system_emulation || strcmp(info->target_name, "x86_64") != 0) {
    spmu_qemu_fail("runs under qemu-x86_64 (user mode) only, not %s%s",
                   info->target_name,
                   info->system_emulation ? " (system)" : "");
    return false;
  }
  return true;
}

static void drop(struct plugin *p)
{
  spmu_qemu_threads_free(p->threads);
  spmu_qemu_inline_free(p->inl);
  spmu_qemu_budget_free(p->budget);
  spmu_qemu_regs_free(p->regs);
  spmu_qemu_blocks_free(p->blocks);
  spmu_qemu_stream_free(p->stream);
  spmu_qemu_seed_free(p->seed);
  spmu_qemu_layout_free(p->layout);
  spmu_qemu_procmaps_free(p->procmaps);
  pthread_mutex_destroy(&p->lock);
  free(p);
}

/* The configuration from the arguments, one thread's worth of cores
 * programmed now (so that a bad event fails the start rather than the
 * first thread), then the process's state. */
static struct plugin *make(const struct spmu_qemu_api *api, int argc,
                           char **argv)
{
  struct plugin *p = calloc(1, sizeof(*p));
  char why[SPMU_PLUGIN_ARGS_PATH_MAX + 256];

  if (!p || pthread_mutex_init(&p->lock, NULL) != 0) {
    spmu_qemu_fail("out of memory");
    free(p);
    return NULL;
  }
  p->api = *api;
  if (!spmu_qemu_setup(&p->cfg, argc, argv))
    goto fail;
  if (!spmu_qemu_cores_try(&p->cfg, why, sizeof(why)) ||
      (p->cfg.record[0] &&
       !(p->stream = spmu_qemu_stream_open(&p->cfg, why, sizeof(why))))) {
    spmu_qemu_fail("%s", why);
    goto fail;
  }
  /* Found by address only for counting inline (inline.c). */
  p->blocks = spmu_qemu_blocks_new(p->cfg.inline_start);
  p->inl = p->blocks ? spmu_qemu_inline_new(p->blocks, &p->api) : NULL;
  p->threads = p->inl ? spmu_qemu_threads_new(&p->cfg, p->inl) : NULL;
  if (!p->threads)
    goto fail;
  p->status = SPMU_RESULTS_STATUS_UNKNOWN;
  p->inline_mode = p->cfg.inline_start;
  p->budget = spmu_qemu_budget_new(&p->cfg, &p->api);
  if (p->cfg.args.seed.given &&
      !(p->seed = spmu_qemu_seed_new(p->cfg.args.seed.value))) {
    spmu_qemu_fail("out of memory");
    goto fail;
  }
  p->regs = spmu_qemu_regs_new(&p->cfg, &p->api, why, sizeof(why));
  if (!p->regs && why[0]) {
    spmu_qemu_fail("%s", why);
    goto fail;
  }
  return p;
fail:
  drop(p);
  return NULL;
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                               int argc, char **argv);
EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                               int argc, char **argv)
{
  struct spmu_qemu_api api;
  struct plugin *p;

  if (!check_qemu(&api, info) || !(p = make(&api, argc, argv)))
    return -1;
  /* the guest at 7.2's addresses where the host places its mmaps */
  p->layout = spmu_qemu_layout_new(!spmu_qemu_api_host_places(&api));
  if (p->layout && !p->cfg.args.vdso) /* 7.2's mappings and start */
    p->procmaps = spmu_qemu_procmaps_new();
  p->id = id;
  root = p;
  pthread_atfork(before_fork, after_fork_parent, after_fork_child);
  p->catch_signals = spmu_qemu_api_per_vcpu(&p->api);
  register_callbacks(id);
  return 0;
}

static void register_callbacks(qemu_plugin_id_t id)
{
  qemu_plugin_register_vcpu_init_cb(id, on_vcpu_init);
  qemu_plugin_register_vcpu_exit_cb(id, on_vcpu_exit);
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_trans);
  qemu_plugin_register_vcpu_syscall_cb(id, on_syscall);
  qemu_plugin_register_vcpu_syscall_ret_cb(id, on_syscall_ret);
  qemu_plugin_register_atexit_cb(id, on_exit_process, root);
}

/* SPDX-License-Identifier: MIT */
/* One run of softpmu stat or softpmu record, from the command line to
 * the program's exit status: what the two commands share, written once.
 *
 *   session_init           the command's descriptor and context
 *   session_parse          the options (its own and the shared ones:
 *                          -h, -e, --cpu, -o, --model, --no-model,
 *                          --from, --qemu; perf's -a, -p, -t, -C, -G refused
 *                          with the reason), attached values (-eX,
 *                          --event=X), `--`, then the program and its
 *                          arguments
 *   session_load_profile   --cpu: a preset of an architectural PMU
 *   session_choose_model   --model, --no-model (stat_model.h)
 *   session_add_events     each event of a list resolved (stat_events.h),
 *   session_add_given_events  or of every -e list
 *   session_find           qemu-x86_64 (--qemu, $SOFTPMU_QEMU or PATH's,
 *                          a chosen one asked whether it loads
 *                          plugins), the plugin and the program
 *                          (qemu_run.h: PATH, "#!" scripts)
 *   session_plugin_args    the plugin's arguments both commands give it
 *   session_start          the temporary file the plugin writes (in
 *                          $TMPDIR, else /tmp) and the qemu-x86_64
 *                          command line
 *   session_run            one run, Ctrl-C and Ctrl-\ left to the program
 *   session_exit_status    the program's status passed through (128 + N,
 *                          said, for one killed by signal N)
 *   session_end            the temporary file removed, on every path
 *                          (the command's guard callback is told of it
 *                          and of the child, for a signal's handler)
 *
 * What differs stays with the command: its own options (through its
 * option callback), what it makes of each event (its event callback), the
 * plugin arguments of its mode, and what it does with the file the plugin
 * wrote.
 *
 * Nothing is printed here (perf/README.md): every message goes to the
 * command's say callback without the command's prefix, which the command
 * adds ("softpmu: stat: "), with its usage line when usage is true.
 * Functions returning int return an exit status: 0, SESSION_EXIT_USAGE,
 * or the shell's 126 and 127 for a program that cannot be run. */
#ifndef SOFTPMU_SESSION_H
#define SOFTPMU_SESSION_H

#include <stdbool.h>
#include <sys/types.h>

#include <softpmu/profile.h>

#include "qemu_run.h"
#include "stat_events.h"
#include "stat_model.h"

struct spmu_plugin_args; /* protocol/args.h */

#define SESSION_EXIT_USAGE 2  /* the commands' status for bad usage */
#define SESSION_HELP (-1)     /* session_parse: -h or --help was given */
#define SESSION_MAX_EVENTS 32 /* the plugin's limit (args.h) */
#define SESSION_PATH_MAX 4096

/* How an option takes its value. */
enum session_arg {
  SESSION_FLAG,     /* none: -j, --no-model */
  SESSION_VALUE,    /* the next argument or attached: -e X, -eX, --event=X */
  SESSION_OPTIONAL, /* attached (--multiplex=N), or the next argument when
                       it is one of next_values (--call-graph lbr); else
                       none: the callback gets NULL */
};

/* The options session_parse handles itself; a command's own keys start
 * at SESSION_KEY_COMMAND. */
enum session_key {
  SESSION_KEY_HELP = 1, /* -h, --help */
  SESSION_KEY_EVENT,    /* -e, --event: a list, repeatable */
  SESSION_KEY_CPU,      /* --cpu PROFILE */
  SESSION_KEY_OUTPUT,   /* -o, --output FILE */
  SESSION_KEY_MODEL,    /* --model SPEC */
  SESSION_KEY_NO_MODEL, /* --no-model */
  SESSION_KEY_FROM,     /* --from FILE: run nothing */
  SESSION_KEY_QEMU,     /* --qemu PATH: the qemu-x86_64 to run */
  SESSION_KEY_VDSO,     /* --vdso: the program keeps QEMU's vDSO */
  SESSION_KEY_SEED,     /* --seed N: the program's random bytes from N */
  SESSION_KEY_TARGET,   /* -a, -p, -t, -C, -G: refused (session_target.c) */
  SESSION_KEY_COMMAND = 64
};

/* One option of a command line. */
struct session_option {
  const char *short_name, *long_name; /* "-e", "--event"; either NULL */
  enum session_arg arg;
  int key;                        /* enum session_key, or the command's */
  const char *const *next_values; /* SESSION_OPTIONAL; NULL-terminated */
};

struct session;

/* A command over the session: constant, one per command. */
struct session_command {
  const char *name; /* "stat": in messages and the temporary file's name */
  bool sampling;    /* the plugin records (record=) rather than counts */
  bool groups;      /* -e takes perf's groups {a,b} and {a,b}:MODS */
  /* With groups: a group's modifiers may have perf's S, leader sampling
   * ({a,b}:S: only a samples, reading b at each of its samples). */
  bool sample_read;
  /* A SIGINT sent to the command while the program runs stops the
   * program (SIGTERM, as perf record sends it) rather than being ignored
   * (perf stat); the results are written either way. */
  bool sigint_stops;
  /* Its own options, ending with an entry of no names; searched after
   * the shared ones. */
  const struct session_option *options;
  /* One of its own options (val NULL for a flag): an exit status. */
  int (*option)(struct session *s, void *ctx, int key, const char *val);
  /* A resolved event, s->ev[s->nev] (spec as the user wrote it): an exit
   * status; on 0 the session counts it in. */
  int (*event)(struct session *s, void *ctx, const char *spec);
  /* Told what a signal that kills the command must clean up (optional):
   * the temporary file (NULL once removed) and the running child (0 when
   * none); called with qemu_run_blocked's signals blocked, so that
   * a handler never sees half of a change. */
  void (*guard)(const char *tmp, pid_t child);
  /* Say msg: an error or a note (usage: the usage line follows). */
  void (*say)(const void *opaque, bool usage, const char *msg);
  const void *say_opaque;
};

struct session {
  const struct session_command *cmd;
  void *ctx; /* the command's, given to its callbacks */

  /* The command line (session_parse); profile_name and out may be given
   * defaults before. */
  const char *profile_name; /* --cpu */
  const char *out;          /* -o */
  const char *from;         /* --from */
  const char *qemu_given;   /* --qemu; NULL: $SOFTPMU_QEMU, else PATH's */
  bool describe_qemu;       /* say which QEMU runs (the command's -v) */
  const char *model_spec;   /* --model */
  bool no_model;            /* --no-model */
  bool vdso;                /* --vdso: vdso=1 to the plugin */
  bool seeded;              /* --seed N: -seed N to QEMU, seed=N to the */
  uint64_t seed;            /* plugin */
  char seed_text[24];       /* N in decimal, for QEMU's command line */
  const char *event_lists[SESSION_MAX_EVENTS]; /* each -e */
  unsigned nlists;
  char **prog_argv; /* the program and its arguments, NULL-terminated */

  /* Set up (session_load_profile, _choose_model, _add_events). */
  spmu_profile profile;
  struct stat_model model;
  struct stat_event ev[SESSION_MAX_EVENTS];
  unsigned nev;
  unsigned group[SESSION_MAX_EVENTS]; /* ev[i]'s group, 1..ngroups; 0: none */
  unsigned ngroups;
  bool leader_sampled[SESSION_MAX_EVENTS + 1]; /* group g had :S */

  /* The run (session_find, _start, _run). */
  char qemu[SESSION_PATH_MAX], plugin[SESSION_PATH_MAX], prog[SESSION_PATH_MAX];
  char tmp[SESSION_PATH_MAX]; /* the file the plugin writes, in $TMPDIR
                                 (else /tmp); "" when there is none */
  char *parg;                 /* qemu-x86_64's -plugin argument */
  int qemu_major;             /* the asked QEMU's major version; 0 unknown */
  int qemu_minor;             /* and its minor version */
  char **qargv;               /* its command line */
  struct qemu_child child;    /* the last run */
};

/* perf's target options (-a, -p PID, -t TID, -C CPUS, -G CGROUP), which
 * every command over the session refuses: there is no system, other
 * process, CPU or cgroup to count under qemu-user. */
extern const struct session_option session_target_options[];

/* What there is none of here, for the reason of refusing o. */
const char *session_target_none_of(const struct session_option *o);

void session_init(struct session *s, const struct session_command *cmd,
                  void *ctx);

/* argv[0] is the command's name; options end at the first argument not
 * starting with '-' or after `--`. 0, SESSION_HELP, or an exit status
 * (an unknown option, a missing value, no program unless --from). */
int session_parse(struct session *s, int argc, char **argv);

/* --cpu: a preset (QEMU splits the plugin's arguments at commas, so no
 * key=value profile) of an architectural PMU. */
int session_load_profile(struct session *s);

/* The model of the run (stat_model_choose). */
int session_choose_model(struct session *s);

/* Resolve each event of list with the model as use says, into s->ev,
 * each handed to the command's event callback. */
int session_add_events(struct session *s, enum stat_model_use use,
                       const char *list);

/* Each -e list given, with the model chosen. */
int session_add_given_events(struct session *s);

/* Does a supported event need the model? Only then is it loaded. */
bool session_needs_model(const struct session *s);

/* qemu-x86_64 and the plugin, then the program (a path, or a name in
 * PATH): 0, SESSION_EXIT_USAGE, or 127 / 126 for the program. A
 * qemu-x86_64 the user chose (--qemu, else $SOFTPMU_QEMU) is refused
 * before anything runs unless it loads plugins (qemu_run_probe); with
 * describe_qemu, a note says its path, its version and the plugin API
 * version softpmu's plugin is built for. */
int session_find(struct session *s);

/* The arguments both commands give the plugin (protocol/args.h): the
 * profile, the supported events in order, and the model when one is
 * needed; the command adds those of its mode. */
void session_plugin_args(const struct session *s, struct spmu_plugin_args *a);

/* Make the temporary file, put its path into a (out= or record=, as the
 * command counts or samples) and build the qemu-x86_64 command line with
 * the plugin given a; a NULL: the program runs without the plugin.
 * session_end undoes it, after a failure too. */
int session_start(struct session *s, struct spmu_plugin_args *a);

/* Run the program once, the temporary file emptied first; its status in
 * s->child. 0 when it ran, else SESSION_EXIT_USAGE. */
int session_run(struct session *s);

/* The last run's exit status as a shell gives it (128 + N, said, for a
 * program killed by signal N). */
int session_exit_status(const struct session *s);

/* Remove the temporary file and free the command line. */
void session_end(struct session *s);

#endif

/* SPDX-License-Identifier: MIT */
/* One run of softpmu stat or softpmu record, from the command line to the
 * program's exit status (session.h). */
#define _GNU_SOURCE /* mkstemp */
#include "session.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h" /* protocol/: the plugin's arguments */

_Static_assert(SESSION_MAX_EVENTS == SPMU_PLUGIN_ARGS_MAX_EVENTS,
               "a session's events are the plugin's");

/* Say a message through the command: SESSION_EXIT_USAGE. A message
 * longer than the buffer is formatted again in memory of its size, so
 * that nothing the user typed is cut. */
static int session_error(const struct session *s, bool usage, const char *fmt,
                         ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int session_error(const struct session *s, bool usage, const char *fmt,
                         ...)
{
  char buf[1024], *big = NULL;
  va_list ap;
  int n;

  va_start(ap, fmt);
  n = vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  if (n >= (int)sizeof(buf) && (big = malloc((size_t)n + 1)) != NULL) {
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
  }
  s->cmd->say(s->cmd->say_opaque, usage, big ? big : buf);
  free(big);
  return SESSION_EXIT_USAGE;
}

void session_init(struct session *s, const struct session_command *cmd,
                  void *ctx)
{
  memset(s, 0, sizeof(*s));
  s->cmd = cmd;
  s->ctx = ctx;
}

/* ---- the command line ---------------------------------------------------- */

/* The options every command over the session takes. */
static const struct session_option session_shared[] = {
    {"-h", "--help", SESSION_FLAG, SESSION_KEY_HELP, NULL},
    {"-e", "--event", SESSION_VALUE, SESSION_KEY_EVENT, NULL},
    {NULL, "--cpu", SESSION_VALUE, SESSION_KEY_CPU, NULL},
    {"-o", "--output", SESSION_VALUE, SESSION_KEY_OUTPUT, NULL},
    {NULL, "--model", SESSION_VALUE, SESSION_KEY_MODEL, NULL},
    {NULL, "--no-model", SESSION_FLAG, SESSION_KEY_NO_MODEL, NULL},
    {NULL, "--from", SESSION_VALUE, SESSION_KEY_FROM, NULL},
    {NULL, "--qemu", SESSION_VALUE, SESSION_KEY_QEMU, NULL},
    {NULL, "--vdso", SESSION_FLAG, SESSION_KEY_VDSO, NULL},
    {NULL, "--seed", SESSION_VALUE, SESSION_KEY_SEED, NULL},
    {NULL, NULL, SESSION_FLAG, 0, NULL},
};

static bool session_named(const char *name, const char *a, size_t len)
{
  return name && strlen(name) == len && strncmp(name, a, len) == 0;
}

/* The option whose name is the first len characters of a, or NULL. */
static const struct session_option *session_option(const struct session *s,
                                                   const char *a, size_t len)
{
  const struct session_option *tables[] = {session_shared, s->cmd->options,
                                           session_target_options};
  const struct session_option *o;
  size_t t;

  for (t = 0; t < 3; t++)
    for (o = tables[t]; o->short_name || o->long_name; o++)
      if (session_named(o->short_name, a, len) ||
          session_named(o->long_name, a, len))
        return o;
  return NULL;
}

static bool session_listed(const char *const *values, const char *a)
{
  for (; values && *values; values++)
    if (strcmp(*values, a) == 0)
      return true;
  return false;
}

/* --seed N: a number from 0 to 2^64 - 1, in decimal or in hexadecimal
 * after 0x, kept in decimal for QEMU's -seed (which would read a leading
 * 0 as octal). */
static int session_set_seed(struct session *s, const char *val)
{
  int base = strncmp(val, "0x", 2) == 0 || strncmp(val, "0X", 2) == 0 ? 16 : 10;
  const char *digits = val + (base == 16 ? 2 : 0);
  char *end;

  errno = 0;
  s->seed = strtoull(digits, &end, base);
  if (!isxdigit((unsigned char)digits[0]) || *end || errno)
    return session_error(s, true,
                         "--seed %s: a number from 0 to 2^64 - 1 (decimal, "
                         "or hexadecimal after 0x)",
                         val);
  s->seeded = true;
  snprintf(s->seed_text, sizeof(s->seed_text), "%" PRIu64, s->seed);
  return 0;
}

/* A shared option, or the command's (its callback). */
static int session_set(struct session *s, const struct session_option *o,
                       const char *val)
{
  switch (o->key) {
  case SESSION_KEY_HELP:
    return SESSION_HELP;
  case SESSION_KEY_EVENT:
    if (s->nlists == SESSION_MAX_EVENTS)
      return session_error(s, true, "at most %d events", SESSION_MAX_EVENTS);
    s->event_lists[s->nlists++] = val;
    return 0;
  case SESSION_KEY_CPU:
    s->profile_name = val;
    return 0;
  case SESSION_KEY_OUTPUT:
    s->out = val;
    return 0;
  case SESSION_KEY_MODEL:
    s->model_spec = val;
    return 0;
  case SESSION_KEY_NO_MODEL:
    s->no_model = true;
    return 0;
  case SESSION_KEY_FROM:
    s->from = val;
    return 0;
  case SESSION_KEY_QEMU:
    s->qemu_given = val;
    return 0;
  case SESSION_KEY_VDSO:
    s->vdso = true;
    return 0;
  case SESSION_KEY_SEED:
    return session_set_seed(s, val);
  case SESSION_KEY_TARGET:
    return session_error(s, false,
                         "%s: the program runs under qemu-x86_64, in user "
                         "mode: %s, only the program %s starts (its threads "
                         "and forked children)",
                         o->short_name, session_target_none_of(o),
                         s->cmd->name);
  default:
    return s->cmd->option(s, s->ctx, o->key, val);
  }
}

/* An option with its value attached, as perf (getopt) takes them: "-c1009"
 * (a short option that takes a value, and the value) or "--event=X" (a
 * long one, '=' and the value). NULL when a is not one. */
static const struct session_option *
session_attached(const struct session *s, const char *a, const char **val)
{
  const struct session_option *o;
  const char *eq = strchr(a, '=');

  if (a[1] != '-' && a[1] && a[2]) {
    o = session_option(s, a, 2);
    *val = a + 2;
    return o && o->arg == SESSION_VALUE ? o : NULL;
  }
  if (a[1] == '-' && eq) {
    o = session_option(s, a, (size_t)(eq - a));
    *val = eq + 1;
    return o && o->arg != SESSION_FLAG ? o : NULL;
  }
  return NULL;
}

/* The option at argv[*i], and its value (which may be the next
 * argument: *i then moves past it). */
static int session_parse_option(struct session *s, int argc, char **argv,
                                int *i)
{
  const char *a = argv[*i], *val = NULL;
  const struct session_option *o = session_option(s, a, strlen(a));

  if (!o) {
    o = session_attached(s, a, &val);
    if (!o)
      return session_error(s, true, "unknown option '%s'", a);
  } else if (o->arg == SESSION_VALUE) {
    if (*i + 1 >= argc)
      return session_error(s, true, "%s needs a value", a);
    val = argv[++*i];
  } else if (o->arg == SESSION_OPTIONAL && *i + 1 < argc &&
             session_listed(o->next_values, argv[*i + 1]))
    val = argv[++*i];
  return session_set(s, o, val);
}

int session_parse(struct session *s, int argc, char **argv)
{
  int i, rc;

  for (i = 1; i < argc && argv[i][0] == '-'; i++) {
    if (strcmp(argv[i], "--") == 0) {
      i++;
      break;
    }
    if ((rc = session_parse_option(s, argc, argv, &i)) != 0)
      return rc;
  }
  if (i >= argc && !s->from)
    return session_error(s, true, "no program to run");
  s->prog_argv = argv + i;
  return 0;
}

/* ---- the profile, the model, the events ---------------------------------- */

int session_load_profile(struct session *s)
{
  const char *name = s->profile_name;
  char why[256];

  if (strpbrk(name, "=, "))
    return session_error(s, true,
                         "--cpu %s: %s takes a preset name, not a key=value "
                         "profile",
                         name, s->cmd->name);
  if (spmu_profile_parse(name, &s->profile, why, sizeof(why)) != 0)
    return session_error(s, true, "--cpu %s: %s", name, why);
  if (s->profile.features & SPMU_FEAT_NETBURST)
    return session_error(s, true,
                         "--cpu %s: a NetBurst PMU; %s %s on architectural "
                         "PMUs",
                         name, s->cmd->name,
                         s->cmd->sampling ? "samples" : "counts");
  return 0;
}

int session_choose_model(struct session *s)
{
  char why[256];

  if (stat_model_choose(&s->model, &s->profile, s->model_spec, s->no_model, why,
                        sizeof(why)) != 0)
    return session_error(s, true, "%s", why);
  return 0;
}

/* One event (spec): resolved, kept to the levels lv allows (user,
 * kernel) when lv is not NULL, in group g (0: none), then handed to the
 * command. */
static int session_add_event(struct session *s, enum stat_model_use use,
                             const char *spec, const bool *lv, unsigned g)
{
  char why[512];
  int rc;

  if (s->nev == SESSION_MAX_EVENTS)
    return session_error(s, true, "at most %d events", SESSION_MAX_EVENTS);
  if (stat_event_resolve(&s->profile, use, spec, &s->ev[s->nev], why,
                         sizeof(why)) != 0) {
    session_error(s, false, "%s", why);
    /* A part the model does not know: say so (stat_model.h). */
    if (s->model.why[0] && spmu_profile_part_name(&s->profile))
      session_error(s, false, "note: %s", s->model.why);
    return SESSION_EXIT_USAGE;
  }
  if (lv)
    stat_event_restrict(&s->ev[s->nev], lv[0], lv[1]);
  s->group[s->nev] = g;
  if ((rc = s->cmd->event(s, s->ctx, spec)) != 0)
    return rc;
  s->nev++;
  return 0;
}

int session_add_events(struct session *s, enum stat_model_use use,
                       const char *list)
{
  char buf[sizeof(s->ev[0].name)];
  int rc;

  while (*list) {
    if (!stat_event_next(&list, buf, sizeof(buf)))
      return session_error(s, true, "event '%.40s...' is too long", list);
    if ((rc = session_add_event(s, use, buf, NULL, 0)) != 0)
      return rc;
  }
  return 0;
}

/* One member of group g with the group's modifiers mods: a member
 * without its own takes them ("cycles" in {cycles}:u is cycles:u, as perf
 * names it); one with its own keeps its name and counts at the levels
 * both allow (stat_event_restrict). */
static int session_add_member(struct session *s, const char *member,
                              const char *mods, unsigned g)
{
  char spec[sizeof(s->ev[0].name) + 24]; /* the member, ':', mods */
  bool lv[2];

  if (*mods && !stat_event_modifier_levels(mods, &lv[0], &lv[1]))
    return session_error(s, true, "{...}:%s: not perf's modifiers", mods);
  if (*mods && stat_event_has_modifiers(member))
    return session_add_event(s, s->model.use, member, lv, g);
  if (*mods)
    snprintf(spec, sizeof spec, "%s:%s", member, mods);
  else
    snprintf(spec, sizeof spec, "%s", member);
  return session_add_event(s, s->model.use, spec, NULL, g);
}

/* perf's S among a group's modifiers (leader sampling, perf-list(1)),
 * where the command takes it: kept in s->leader_sampled[g] and taken out
 * of mods, the rest being the members' modifiers. */
static void session_take_sample_read(struct session *s, char *mods, unsigned g)
{
  char *r = mods, *w = mods;

  if (!s->cmd->sample_read)
    return;
  for (; *r; r++)
    if (*r == 'S')
      s->leader_sampled[g] = true;
    else
      *w++ = *r;
  *w = '\0';
}

static int session_add_group(struct session *s, const char *members, char *mods)
{
  char member[sizeof(s->ev[0].name)];
  unsigned g = ++s->ngroups;
  int rc;

  if (g > SESSION_MAX_EVENTS)
    return session_error(s, true, "at most %d events", SESSION_MAX_EVENTS);
  session_take_sample_read(s, mods, g);
  while (*members) {
    if (!stat_event_next(&members, member, sizeof member))
      return session_error(s, true, "event '%.40s...' is too long", members);
    if ((rc = session_add_member(s, member, mods, g)) != 0)
      return rc;
  }
  return 0;
}

/* One -e list with perf's groups in it: events, {a,b} and {a,b}:MODS. */
static int session_add_grouped(struct session *s, const char *list)
{
  char buf[1024], mods[16];
  int rc = 0;

  while (rc == 0) {
    const char *at = list;

    switch (stat_event_item(&list, buf, sizeof buf, mods, sizeof mods)) {
    case STAT_ITEM_END:
      return 0;
    case STAT_ITEM_EVENT:
      rc = session_add_events(s, s->model.use, buf);
      break;
    case STAT_ITEM_GROUP:
      rc = session_add_group(s, buf, mods);
      break;
    case STAT_ITEM_BAD:
      rc = *at != '{'
               ? session_error(s, true, "event '%.40s...' is too long", at)
               : session_error(s, true,
                               "-e %.60s: a group is {EVENT,...} "
                               "or {EVENT,...}:MODIFIERS",
                               at);
      break;
    }
  }
  return rc;
}

int session_add_given_events(struct session *s)
{
  unsigned l;
  int rc;

  for (l = 0; l < s->nlists; l++) {
    const char *list = s->event_lists[l];

    /* -e '' or -e ,: no event named, which would print an empty table. */
    if (list[strspn(list, ",")] == '\0')
      return session_error(s, true, "-e '%s': an empty event list", list);
    rc = s->cmd->groups ? session_add_grouped(s, list)
                        : session_add_events(s, s->model.use, list);
    if (rc != 0)
      return rc;
  }
  return 0;
}

bool session_needs_model(const struct session *s)
{
  unsigned i;

  for (i = 0; i < s->nev; i++)
    if (s->ev[i].supported && s->ev[i].modelled)
      return true;
  return false;
}

/* ---- running ------------------------------------------------------------- */

/* The qemu-x86_64 the user chose: --qemu wins over $SOFTPMU_QEMU; NULL
 * when neither (PATH's), what naming where it came from. */
static const char *session_qemu_given(const struct session *s, char *what,
                                      size_t len)
{
  const char *env = getenv("SOFTPMU_QEMU");

  if (s->qemu_given) {
    snprintf(what, len, "--qemu %s", s->qemu_given);
    return s->qemu_given;
  }
  if (env && *env) {
    snprintf(what, len, "SOFTPMU_QEMU=%s", env);
    return env;
  }
  return NULL;
}

/* The major and minor version in QEMU's --version line; 0 if it names
 * none. */
static void session_qemu_version(const char *version, int *major, int *minor)
{
  const char *v = strstr(version, "version ");

  *major = *minor = 0;
  if (!v || sscanf(v + 8, "%d.%d", major, minor) < 1 || *major < 0 ||
      *minor < 0)
    *major = *minor = 0;
}

/* The QEMU plugin API version the plugin takes from QEMU major.minor
 * (session_qemu_version; frontends/qemu/api.c: 1 before QEMU 9, 2 on 9.0
 * and 9.1, 4 from 9.2), at most the newest it knows. */
static int session_plugin_api(int major, int minor)
{
  if (major < 9)
    return 1;
  if (major == 9 && minor < 2)
    return 2;
  return SPMU_QEMU_PLUGIN_API_VERSION;
}

/* qemu-x86_64 and the plugin; the qemu-x86_64 asked whether it
 * loads plugins, and with describe_qemu the one that runs said. */
static int session_find_qemu(struct session *s)
{
  char why[8192], what[SESSION_PATH_MAX + 16], version[256];
  const char *given = session_qemu_given(s, what, sizeof what);

  if (!given)
    snprintf(what, sizeof what, "%s", "qemu-x86_64");
  if (qemu_run_find_tools(given, what, s->qemu, sizeof(s->qemu), s->plugin,
                          sizeof(s->plugin), why, sizeof(why)) != 0)
    return session_error(s, false, "%s", why);
  /* Asked every time, found or given: its major version decides the
   * command line (qemu_run_argv: the guest base, -tb-size, the stack's
   * padding), and the default one may be any version (Ubuntu 24.04's 8.2
   * on PATH, a scripts/qemu-user build in the cache). About 4 ms. */
  if (!given)
    snprintf(what, sizeof what, "%s", s->qemu);
  if (qemu_run_probe(s->qemu, what, s->plugin, version, sizeof version, why,
                     sizeof why) != 0)
    return session_error(s, false, "%s", why);
  session_qemu_version(version, &s->qemu_major, &s->qemu_minor);
  if (s->describe_qemu)
    session_error(s, false, "qemu: %s (%s), plugin API version %d", s->qemu,
                  version, session_plugin_api(s->qemu_major, s->qemu_minor));
  return 0;
}

int session_find(struct session *s)
{
  char why[8192];
  int rc;

  /* The program first: a missing one is 127, as a shell says, whatever
   * the QEMU. */
  rc = qemu_run_find_program(s->prog_argv[0], s->prog, sizeof(s->prog), why,
                             sizeof(why));
  if (rc != 0) {
    session_error(s, false, "%s", why);
    return rc;
  }
  return session_find_qemu(s);
}

void session_plugin_args(const struct session *s, struct spmu_plugin_args *a)
{
  unsigned i;

  spmu_plugin_args_init(a);
  snprintf(a->profile, sizeof(a->profile), "%s", s->profile.name);
  for (i = 0; i < s->nev && a->nevents < SPMU_PLUGIN_ARGS_MAX_EVENTS; i++)
    if (s->ev[i].supported)
      a->event[a->nevents++] = s->ev[i].evtsel;
  /* The model is loaded only for a modelled event. */
  if (session_needs_model(s) && s->model.use == STAT_MODEL_ON)
    snprintf(a->model, sizeof(a->model), "%s", s->model.spec);
  a->vdso = s->vdso;
  a->count_callback = qemu_run_reset_hangs(s->qemu_major);
  a->seed.given = s->seeded;
  a->seed.value = s->seed;
}

/* Tell the command's guard what a signal must clean up. */
static void session_guard(const struct session *s, pid_t child)
{
  if (s->cmd->guard)
    s->cmd->guard(s->tmp[0] ? s->tmp : NULL, child);
}

static void session_watch(void *opaque, pid_t child)
{
  session_guard(opaque, child);
}

/* mkstemp, and the guard told of the file before a signal can come. */
struct session_mkstemp {
  struct session *s;
  int fd, err;
};

static void session_mkstemp_guarded(void *opaque)
{
  struct session_mkstemp *m = opaque;

  if ((m->fd = mkstemp(m->s->tmp)) < 0) {
    m->err = errno;
    m->s->tmp[0] = '\0';
  } else
    session_guard(m->s, 0);
}

/* The temporary file, in $TMPDIR as mkstemp(3)'s callers take it, else
 * /tmp. */
static int session_make_tmp(struct session *s)
{
  const char *dir = getenv("TMPDIR");
  struct session_mkstemp m = {.s = s};

  if (!dir || !*dir)
    dir = "/tmp";
  if (snprintf(s->tmp, sizeof(s->tmp), "%s/softpmu-%s-XXXXXX", dir,
               s->cmd->name) >= (int)sizeof(s->tmp)) {
    s->tmp[0] = '\0';
    return session_error(s, false, "TMPDIR %s: too long a path", dir);
  }
  qemu_run_blocked(session_mkstemp_guarded, &m);
  if (m.fd < 0)
    return session_error(s, false, "cannot make a temporary file in %s: %s",
                         dir, strerror(m.err));
  close(m.fd);
  return 0;
}

int session_start(struct session *s, struct spmu_plugin_args *a)
{
  int rc;

  if ((rc = session_make_tmp(s)) != 0)
    return rc;
  if (a) {
    snprintf(s->cmd->sampling ? a->record : a->out, SPMU_PLUGIN_ARGS_PATH_MAX,
             "%s", s->tmp);
    s->parg = spmu_plugin_args_option(s->plugin, a);
  }
  if (!a || s->parg)
    s->qargv = qemu_run_argv(&s->profile, s->qemu, s->qemu_major, s->qemu_minor,
                             s->seeded ? s->seed_text : NULL, s->parg,
                             a && !a->vdso, s->prog, s->prog_argv);
  if (!s->qargv)
    return session_error(s, false, "out of memory");
  return 0;
}

int session_run(struct session *s)
{
  char why[8192];
  int rc;

  if (truncate(s->tmp, 0) != 0 && errno != ENOENT)
    return session_error(s, false, "%s: %s", s->tmp, strerror(errno));
  rc = qemu_run_spawn(s->qargv, s->cmd->sigint_stops, session_watch, s,
                      &s->child, why, sizeof(why));
  if (why[0])
    session_error(s, false, "%s", why);
  return rc != 0 ? SESSION_EXIT_USAGE : 0;
}

int session_exit_status(const struct session *s)
{
  char why[256];
  int rc = qemu_run_exit_status(&s->child, why, sizeof(why));

  if (rc != 0 && why[0])
    session_error(s, false, "%s", why);
  return rc;
}

/* The temporary file removed, and the guard told. */
static void session_unlink_guarded(void *opaque)
{
  struct session *s = opaque;

  if (s->tmp[0])
    unlink(s->tmp);
  s->tmp[0] = '\0';
  session_guard(s, 0);
}

void session_end(struct session *s)
{
  qemu_run_blocked(session_unlink_guarded, s);
  free(s->parg);
  free(s->qargv);
  s->parg = NULL;
  s->qargv = NULL;
}

/* SPDX-License-Identifier: MIT */
/* One run of softpmu stat or record (perf/session.h), without running
 * anything: the command line as perf's getopt takes it (attached values,
 * `--`, an option's value taken only when it is one), the shared options
 * against a command's own, the messages said through the command, the
 * profile's checks, an empty event list refused, and the temporary file
 * made and removed, the command's guard told of it and of the child. */
#define _POSIX_C_SOURCE 200809L

#include "helpers.h"

#include <stdlib.h>
#include <unistd.h>

#include "args.h" /* protocol/: the plugin's arguments */
#include "session.h"

enum { K_PERIOD = SESSION_KEY_COMMAND, K_JSON, K_MUX, K_GRAPH };

static const char *const graph_modes[] = {"fp", "lbr", NULL};

static const struct session_option test_options[] = {
    {"-c", NULL, SESSION_VALUE, K_PERIOD, NULL},
    {"-j", "--json", SESSION_FLAG, K_JSON, NULL},
    {NULL, "--mux", SESSION_OPTIONAL, K_MUX, NULL},
    {NULL, "--graph", SESSION_OPTIONAL, K_GRAPH, graph_modes},
    {NULL, NULL, SESSION_FLAG, 0, NULL},
};

/* What the command was told: its options and the messages. */
struct heard {
  int key[8];
  const char *val[8];
  unsigned n;
  char said[4096];
  bool usage;
  unsigned nsaid;
};

static int test_option(struct session *s, void *ctx, int key, const char *val)
{
  struct heard *h = ctx;

  (void)s;
  h->key[h->n] = key;
  h->val[h->n++] = val;
  return 0;
}

static int test_event(struct session *s, void *ctx, const char *spec)
{
  (void)s;
  (void)ctx;
  (void)spec;
  return 0;
}

static void test_say(const void *opaque, bool usage, const char *msg)
{
  struct heard *h = (struct heard *)opaque;

  snprintf(h->said, sizeof(h->said), "%s", msg);
  h->usage = usage;
  h->nsaid++;
}

static struct heard heard;

/* What the guard was last told: the temporary file and the child. */
static struct {
  char tmp[SESSION_PATH_MAX];
  pid_t child, seen; /* seen: the last child other than 0 */
  int calls;
} guarded;

static void test_guard(const char *tmp, pid_t child)
{
  snprintf(guarded.tmp, sizeof(guarded.tmp), "%s", tmp ? tmp : "");
  guarded.child = child;
  if (child)
    guarded.seen = child;
  guarded.calls++;
}

static const struct session_command test_cmd = {
    .name = "test",
    .sampling = false,
    .options = test_options,
    .option = test_option,
    .event = test_event,
    .guard = test_guard,
    .say = test_say,
    .say_opaque = &heard,
};

static int parse(struct session *s, char **argv)
{
  int argc = 0;

  while (argv[argc])
    argc++;
  memset(&heard, 0, sizeof(heard));
  session_init(s, &test_cmd, &heard);
  s->profile_name = "skylake";
  return session_parse(s, argc, argv);
}

static void test_shared_options(void **state)
{
  char *argv[] = {"test",    "-e",      "a",           "-eb",    "--event=c",
                  "--cpu",   "icelake", "--cpu=core2", "-o",     "f",
                  "--model", "part:x",  "--no-model",  "--from", "r",
                  "--",      "-prog",   "arg",         NULL};
  struct session s;

  (void)state;
  assert_int_equal(parse(&s, argv), 0);
  assert_int_equal(s.nlists, 3);
  assert_string_equal(s.event_lists[0], "a");
  assert_string_equal(s.event_lists[1], "b");
  assert_string_equal(s.event_lists[2], "c");
  assert_string_equal(s.profile_name, "core2");
  assert_string_equal(s.out, "f");
  assert_string_equal(s.model_spec, "part:x");
  assert_true(s.no_model);
  assert_string_equal(s.from, "r");
  /* After `--`, a name starting with '-' is the program's. */
  assert_string_equal(s.prog_argv[0], "-prog");
  assert_string_equal(s.prog_argv[1], "arg");
  assert_null(s.prog_argv[2]);
  assert_int_equal(heard.n, 0);
  assert_int_equal(heard.nsaid, 0);
}

static void test_own_options(void **state)
{
  char *argv[] = {"test",    "-c",    "5",       "-c7",     "-j",
                  "--json",  "--mux", "--mux=9", "--graph", "lbr",
                  "--graph", "prog",  NULL};
  struct session s;

  (void)state;
  assert_int_equal(parse(&s, argv), 0);
  assert_int_equal(heard.n, 8);
  assert_int_equal(heard.key[0], K_PERIOD);
  assert_string_equal(heard.val[0], "5");
  assert_string_equal(heard.val[1], "7");
  assert_int_equal(heard.key[2], K_JSON);
  assert_null(heard.val[2]);
  assert_int_equal(heard.key[3], K_JSON);
  /* An optional value: attached, or the next argument if it is one. */
  assert_null(heard.val[4]);
  assert_string_equal(heard.val[5], "9");
  assert_string_equal(heard.val[6], "lbr");
  assert_int_equal(heard.key[7], K_GRAPH);
  assert_null(heard.val[7]);
  assert_string_equal(s.prog_argv[0], "prog");
}

/* Each refusal: the message said, as a usage error. */
static void assert_refused(char **argv, const char *msg)
{
  struct session s;

  assert_int_equal(parse(&s, argv), SESSION_EXIT_USAGE);
  assert_int_equal(heard.nsaid, 1);
  assert_true(heard.usage);
  assert_string_equal(heard.said, msg);
}

static void test_refused(void **state)
{
  char *flag_attached[] = {"test", "-jx", "prog", NULL};
  char *long_flag_value[] = {"test", "--json=1", "prog", NULL};
  char *dash[] = {"test", "-", NULL};
  char *unknown[] = {"test", "--bogus", "--help", NULL};
  char *no_value[] = {"test", "-e", NULL};
  char *no_program[] = {"test", "-e", "x", NULL};
  char *after[] = {"test", "--", NULL};

  (void)state;
  assert_refused(flag_attached, "unknown option '-jx'");
  assert_refused(long_flag_value, "unknown option '--json=1'");
  assert_refused(dash, "unknown option '-'");
  assert_refused(unknown, "unknown option '--bogus'");
  assert_refused(no_value, "-e needs a value");
  assert_refused(no_program, "no program to run");
  assert_refused(after, "no program to run");
}

/* perf's target options (-a, -p, -t, -C, -G) are refused with the
 * reason, not as unknown options, their values attached or not; the
 * message says nothing of usage. */
static void test_targets_refused(void **state)
{
  char *pid[] = {"test", "-p1234", "prog", NULL};
  char *all[] = {"test", "--all-cpus", "prog", NULL};
  char *cgroup[] = {"test", "-G", "grp", "prog", NULL};
  struct session s;

  (void)state;
  assert_int_equal(parse(&s, pid), SESSION_EXIT_USAGE);
  assert_int_equal(heard.nsaid, 1);
  assert_false(heard.usage);
  assert_non_null(strstr(heard.said, "-p: the program runs under "
                                     "qemu-x86_64, in user mode: there is no "
                                     "other process to count"));
  assert_int_equal(parse(&s, all), SESSION_EXIT_USAGE);
  assert_non_null(strstr(heard.said, "-a: the program runs under qemu-x86_64, "
                                     "in user mode: there is no system"));
  assert_int_equal(parse(&s, cgroup), SESSION_EXIT_USAGE);
  assert_non_null(strstr(heard.said, "-G: the program runs under qemu-x86_64, "
                                     "in user mode: there is no cgroup"));
}

static void test_help_and_from(void **state)
{
  char *help[] = {"test", "-c", "1", "-h", "--bogus", NULL};
  char *from[] = {"test", "--from", "file", NULL};
  struct session s;

  (void)state;
  assert_int_equal(parse(&s, help), SESSION_HELP);
  assert_int_equal(heard.n, 1);
  assert_int_equal(heard.nsaid, 0);
  assert_int_equal(parse(&s, from), 0);
  assert_null(s.prog_argv[0]);
}

static void test_event_lists_limit(void **state)
{
  char *argv[2 * (SESSION_MAX_EVENTS + 1) + 4]; /* -e x, one too many */
  int i, n = 0;

  (void)state;
  argv[n++] = "test";
  for (i = 0; i <= SESSION_MAX_EVENTS; i++) {
    argv[n++] = "-e";
    argv[n++] = "instructions";
  }
  argv[n++] = "prog";
  argv[n] = NULL;
  assert_refused(argv, "at most 32 events");
}

/* A message longer than the session's buffer is said whole. */
static void test_long_message(void **state)
{
  char arg[2000], *argv[] = {"test", arg, NULL};
  struct session s;

  (void)state;
  memset(arg, 'x', sizeof(arg) - 1);
  arg[0] = arg[1] = '-';
  arg[sizeof(arg) - 1] = '\0';
  assert_int_equal(parse(&s, argv), SESSION_EXIT_USAGE);
  assert_int_equal(strlen(heard.said),
                   strlen("unknown option ''") + strlen(arg));
}

static void test_profile(void **state)
{
  char *argv[] = {"test", "prog", NULL};
  struct session s;

  (void)state;
  parse(&s, argv);
  s.profile_name = "base=skylake,gp=8";
  assert_int_equal(session_load_profile(&s), SESSION_EXIT_USAGE);
  assert_string_equal(heard.said, "--cpu base=skylake,gp=8: test takes a "
                                  "preset name, not a key=value profile");
  s.profile_name = "pentium4";
  assert_int_equal(session_load_profile(&s), SESSION_EXIT_USAGE);
  assert_string_equal(heard.said, "--cpu pentium4: a NetBurst PMU; test "
                                  "counts on architectural PMUs");
  s.profile_name = "icelake";
  assert_int_equal(session_load_profile(&s), 0);
  assert_string_equal(s.profile.name, "icelake");
}

/* -e '' and -e , name no event: refused (an empty table otherwise). */
static void test_empty_event_list(void **state)
{
  char *empty[] = {"test", "-e", "", "prog", NULL};
  char *commas[] = {"test", "-e", "instructions", "-e", ",,", "prog", NULL};
  struct session s;

  (void)state;
  assert_int_equal(parse(&s, empty), 0);
  assert_int_equal(session_load_profile(&s), 0);
  assert_int_equal(session_add_given_events(&s), SESSION_EXIT_USAGE);
  assert_true(heard.usage);
  assert_string_equal(heard.said, "-e '': an empty event list");
  assert_int_equal(parse(&s, commas), 0);
  assert_int_equal(session_load_profile(&s), 0);
  assert_int_equal(session_add_given_events(&s), SESSION_EXIT_USAGE);
  assert_string_equal(heard.said, "-e ',,': an empty event list");
  assert_int_equal(s.nev, 1);
}

/* A session of `prog` started (QEMU of major version major, 0: unknown)
 * with the guard's record cleared: its QEMU command line in s->qargv. */
static void start_prog(struct session *s, struct spmu_plugin_args *a, int major,
                       int minor)
{
  static char *argv[] = {"test", "prog", NULL}; /* s->prog_argv points here */

  memset(&guarded, 0, sizeof(guarded));
  parse(s, argv);
  assert_int_equal(session_load_profile(s), 0);
  snprintf(s->qemu, sizeof(s->qemu), "/usr/bin/qemu-x86_64");
  snprintf(s->plugin, sizeof(s->plugin), "/lib/plugin.so");
  snprintf(s->prog, sizeof(s->prog), "/bin/prog");
  s->qemu_major = major;
  s->qemu_minor = minor;
  session_plugin_args(s, a);
  assert_int_equal(session_start(s, a), 0);
}

/* The temporary file is made in $TMPDIR (else /tmp), its path in the
 * plugin's out= argument and told to the guard (what a signal's handler
 * removes), and gone after session_end, the guard told so. */
static void test_temporary_file(void **state)
{
  struct spmu_plugin_args a;
  struct session s;
  char tmp[sizeof(s.tmp)], dir[] = "/tmp/softpmu-test-dir-XXXXXX", want[64];

  (void)state;
  assert_non_null(mkdtemp(dir));
  assert_int_equal(setenv("TMPDIR", dir, 1), 0);
  snprintf(want, sizeof(want), "%s/softpmu-test-", dir);
  start_prog(&s, &a, 0, 0);
  assert_memory_equal(s.tmp, want, strlen(want));
  assert_string_equal(a.out, s.tmp);
  assert_int_equal(access(s.tmp, F_OK), 0);
  assert_string_equal(guarded.tmp, s.tmp);
  assert_int_equal(guarded.child, 0);
  assert_string_equal(s.qargv[0], "/usr/bin/qemu-x86_64");
  assert_string_equal(s.qargv[3], "-B"); /* a fixed guest base */
  assert_string_equal(s.qargv[5], "-plugin");
  snprintf(tmp, sizeof(tmp), "%s", s.tmp);
  session_end(&s);
  assert_int_not_equal(access(tmp, F_OK), 0);
  assert_string_equal(guarded.tmp, "");
  assert_null(s.qargv);
  session_end(&s); /* twice: nothing left to undo */
  assert_int_equal(rmdir(dir), 0);
  assert_int_equal(unsetenv("TMPDIR"), 0);
}

/* QEMU 8 on gets its own guest base (the plugin places the guest at QEMU
 * 7.2's addresses above it: frontends/qemu/layout.c) and the stack's
 * padding after the guest's LD_PRELOAD (two variables, 4064 bytes with
 * their NULs: protocol/args.h); QEMU 10 on -tb-size 127 after the base
 * too (a translation buffer the host kernel does not align to 2 MiB:
 * perf/qemu_run.c; QEMU 8 and 9.2 have no -tb-size in user mode); QEMU
 * 7.2 and an unknown version none of them, 7.2's base. */
static void test_tb_size_from_qemu10(void **state)
{
  const int majors[] = {0, 7, 8, 9, 10};
  struct spmu_plugin_args a;
  struct session s;
  size_t i, k, bytes;
  int q;

  (void)state;
  for (i = 0; i < sizeof(majors) / sizeof(majors[0]); i++) {
    start_prog(&s, &a, majors[i], 0);
    assert_string_equal(s.qargv[3], "-B");
    if (majors[i] >= 8) {
      q = majors[i] >= 10 ? 7 : 5;
      assert_string_equal(s.qargv[4], "0x2a6c00000000");
      if (majors[i] >= 10) {
        assert_string_equal(s.qargv[5], "-tb-size");
        assert_string_equal(s.qargv[6], "127");
      }
      assert_string_equal(s.qargv[q], "-plugin");
      for (k = 0, bytes = 0; k < SPMU_PLUGIN_PADS; k++) {
        assert_string_equal(s.qargv[q + 4 + 2 * k], "-E");
        assert_memory_equal(s.qargv[q + 5 + 2 * k], "SOFTPMU_PAD", 11);
        bytes += strlen(s.qargv[q + 5 + 2 * k]) + 1;
      }
      assert_int_equal(bytes, 4064);
      assert_string_equal(s.qargv[q + 4 + 2 * k], "/bin/prog");
    } else {
      assert_string_equal(s.qargv[4], "0x100000000000");
      assert_string_equal(s.qargv[5], "-plugin");
      assert_string_equal(s.qargv[9], "/bin/prog");
    }
    session_end(&s);
  }
}

/* QEMU 10.1 on gets -cpu MODEL,x-consistent-cache=off,
 * x-vendor-cpuid-only-v2=off (CPUID leaf 02H and the extended leaves as
 * 7.2 to 10.0 fill them, SDM Vol. 2A, CPUID: perf/qemu_run.c); 10.0 and
 * before the model alone. */
static void test_cpu_from_qemu10_1(void **state)
{
  const int versions[][2] = {{0, 0}, {9, 2}, {10, 0}, {10, 1}, {11, 0}};
  const char *opt = ",x-consistent-cache=off,x-vendor-cpuid-only-v2=off";
  struct spmu_plugin_args a;
  struct session s;
  size_t i, n;

  (void)state;
  for (i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
    start_prog(&s, &a, versions[i][0], versions[i][1]);
    assert_string_equal(s.qargv[1], "-cpu");
    n = strlen(s.qargv[2]);
    if (versions[i][0] * 100 + versions[i][1] >= 1001) {
      assert_true(n > strlen(opt));
      assert_string_equal(s.qargv[2] + n - strlen(opt), opt);
      assert_memory_equal(s.qargv[2], "Skylake-Client,", 15);
    } else
      assert_null(strstr(s.qargv[2], "x-vendor"));
    session_end(&s);
  }
}

/* QEMU 9.x's qemu_plugin_reset leaves its plugin lock held (perf/
 * qemu_run.h): the plugin is told to count by callbacks (count=callback)
 * under 9 only; 8.2's plugin finds that out by itself, 10 is fixed. */
static void test_count_callback_under_qemu9(void **state)
{
  const int majors[] = {0, 7, 8, 9, 10, 11};
  struct spmu_plugin_args a;
  struct session s;
  size_t i;

  (void)state;
  for (i = 0; i < sizeof(majors) / sizeof(majors[0]); i++) {
    start_prog(&s, &a, majors[i], 2);
    assert_int_equal(a.count_callback, majors[i] == 9);
    assert_int_equal(strstr(s.parg, "count=callback") != NULL, majors[i] == 9);
    session_end(&s);
  }
}

/* A run: the guard is told of the child while it runs, and of none once
 * it is reaped. */
static void test_guard_told_of_child(void **state)
{
  char *argv[] = {"test", "prog", NULL};
  struct session s;

  (void)state;
  memset(&guarded, 0, sizeof(guarded));
  parse(&s, argv);
  assert_int_equal(session_load_profile(&s), 0);
  snprintf(s.qemu, sizeof(s.qemu), "/bin/true");
  snprintf(s.prog, sizeof(s.prog), "/bin/true");
  assert_int_equal(session_start(&s, NULL), 0);
  assert_int_equal(session_run(&s), 0);
  /* tmp made, child forked, child reaped. */
  assert_int_equal(guarded.calls, 3);
  assert_true(guarded.seen > 0);
  assert_int_equal(guarded.child, 0);
  assert_string_equal(guarded.tmp, s.tmp);
  assert_int_equal(session_exit_status(&s), 0);
  session_end(&s);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_shared_options),
      cmocka_unit_test(test_own_options),
      cmocka_unit_test(test_refused),
      cmocka_unit_test(test_targets_refused),
      cmocka_unit_test(test_help_and_from),
      cmocka_unit_test(test_event_lists_limit),
      cmocka_unit_test(test_long_message),
      cmocka_unit_test(test_profile),
      cmocka_unit_test(test_empty_event_list),
      cmocka_unit_test(test_temporary_file),
      cmocka_unit_test(test_tb_size_from_qemu10),
      cmocka_unit_test(test_cpu_from_qemu10_1),
      cmocka_unit_test(test_count_callback_under_qemu9),
      cmocka_unit_test(test_guard_told_of_child),
  };

  return cmocka_run_group_tests(tests, NULL, NULL);
}

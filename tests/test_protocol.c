/* SPDX-License-Identifier: MIT */
/* protocol/: the QEMU plugin's argument string, results file and sample
 * stream, each written and read back by the same definitions. */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "args.h"
#include "record.h"
#include "results.h"

/* ---- the argument string ------------------------------------------------- */

#define MAX_PIECES 64

/* s split as QEMU splits -plugin's value (its option syntax: a single
 * comma ends a value, a doubled one is a comma of it) into pieces[], in
 * buf; how many. */
static int qemu_split(const char *s, char *buf, char *pieces[MAX_PIECES])
{
  int n = 0;

  pieces[n++] = buf;
  for (; *s; s++) {
    if (*s == ',' && s[1] == ',') {
      *buf++ = ',';
      s++;
    } else if (*s == ',') {
      *buf++ = '\0';
      assert_true(n < MAX_PIECES);
      pieces[n++] = buf;
    } else {
      *buf++ = *s;
    }
  }
  *buf = '\0';
  return n;
}

/* build, then parse what QEMU hands the plugin: the same struct. */
static void round_trip(const struct spmu_plugin_args *a)
{
  char *opt = spmu_plugin_args_option("/p/libsoftpmu-qemu.so", a);
  char *buf, *pieces[MAX_PIECES], why[512] = "";
  struct spmu_plugin_args back;
  int n;

  assert_non_null(opt);
  buf = malloc(strlen(opt) + 1);
  assert_non_null(buf);
  n = qemu_split(opt, buf, pieces);
  assert_string_equal(pieces[0], "/p/libsoftpmu-qemu.so");
  if (spmu_plugin_args_parse(&back, n - 1, pieces + 1, why, sizeof(why)) != 0)
    fail_msg("%s: %s", opt, why);
  assert_memory_equal(&back, a, sizeof(back));
  free(buf);
  free(opt);
}

/* softpmu stat's arguments: profile, out, the events, multiplexing, a
 * model whose specification has commas (doubled on the way, QEMU's
 * option syntax), in the builder's order. */
static void test_args_stat_round_trip(void **state)
{
  struct spmu_plugin_args a;
  char s[512];
  size_t n;

  (void)state;
  spmu_plugin_args_init(&a);
  snprintf(a.out, sizeof(a.out), "/tmp/softpmu-stat-AbC123");
  a.event[a.nevents++] = 0x4300c0;
  a.event[a.nevents++] = 0x4320c4;
  a.multiplex = 4000000;
  a.grouped = 0x2; /* {event 0, event 1} */
  snprintf(a.model, sizeof(a.model),
           "cachegrind:I1=32768,8,64:D1=32768,8,64:LL=8388608,16,64");
  n = spmu_plugin_args_build(&a, s, sizeof(s));
  assert_int_equal(n, strlen(s));
  assert_string_equal(
      s, "profile=skylake,out=/tmp/softpmu-stat-AbC123,"
         "event=4300c0,event=4320c4,multiplex=4000000,"
         "grouped=2,model=cachegrind:I1=32768,,8,,64:D1=32768,,8,,64:"
         "LL=8388608,,16,,64");
  round_trip(&a);
}

/* softpmu record's: every record-mode key away from its default (but
 * precise, which branch stacks do not go with), commas in a path and a
 * comm too. */
static void test_args_record_round_trip(void **state)
{
  struct spmu_plugin_args a;
  unsigned i;

  (void)state;
  spmu_plugin_args_init(&a);
  snprintf(a.profile, sizeof(a.profile), "base=skylake,gp=8");
  snprintf(a.record, sizeof(a.record), "/tmp/a,b/stream");
  a.period = 100003;
  for (i = 0; i < SPMU_PLUGIN_ARGS_MAX_EVENTS; i++)
    a.event[a.nevents++] = 0x5300c0 + i;
  a.callgraph = true;
  snprintf(a.comm, sizeof(a.comm), "a,b");
  a.branch = 0x10009;
  snprintf(a.model, sizeof(a.model), "part:icelake");
  a.count_callback = true;
  a.read = 0x6; /* {a,b,c}:S as events 0 to 2 */
  round_trip(&a);
  a.branch = 0;
  a.read = 0;
  a.precise = true;
  round_trip(&a);
  a.regs = true;
  round_trip(&a);
}

/* A key at its default is not written (profile is, always); what is not
 * written parses back to the default. */
static void test_args_defaults_omitted(void **state)
{
  struct spmu_plugin_args a;
  char s[256];

  (void)state;
  spmu_plugin_args_init(&a);
  snprintf(a.record, sizeof(a.record), "r");
  a.period = 7;
  a.event[a.nevents++] = 0x5300c4;
  spmu_plugin_args_build(&a, s, sizeof(s));
  assert_string_equal(s, "profile=skylake,record=r,period=7,event=5300c4");
  round_trip(&a);
}

/* The builder writes as snprintf: at most len bytes, NUL-terminated, and
 * says how long the whole string is. */
static void test_args_build_cut_short(void **state)
{
  struct spmu_plugin_args a;
  char s[8];

  (void)state;
  spmu_plugin_args_init(&a);
  snprintf(a.out, sizeof(a.out), "o");
  assert_int_equal(spmu_plugin_args_build(&a, NULL, 0),
                   strlen("profile=skylake,out=o"));
  assert_int_equal(spmu_plugin_args_build(&a, s, sizeof(s)),
                   strlen("profile=skylake,out=o"));
  assert_string_equal(s, "profile");
}

static void refused(const char *const *argv, int argc, const char *want)
{
  struct spmu_plugin_args a;
  char why[512] = "";

  assert_int_equal(
      spmu_plugin_args_parse(&a, argc, (char *const *)argv, why, sizeof(why)),
      -1);
  assert_string_equal(why, want);
}

/* seed=N (softpmu stat --seed N): written when given, 0 included, as a
 * decimal number, last; any 64-bit value goes and comes back. */
static void test_args_seed(void **state)
{
  static const char *const bad[] = {"seed=",     "seed=x",
                                    "seed=-1",   "seed=+1",
                                    "seed=0x10", "seed=18446744073709551616"};
  struct spmu_plugin_args a;
  char s[256];
  size_t i;

  (void)state;
  spmu_plugin_args_init(&a);
  snprintf(a.out, sizeof(a.out), "o");
  a.event[a.nevents++] = 0x4300c0;
  a.vdso = true;
  a.seed.given = true;
  spmu_plugin_args_build(&a, s, sizeof(s));
  assert_string_equal(s, "profile=skylake,out=o,event=4300c0,vdso=1,seed=0");
  round_trip(&a);
  a.seed.value = UINT64_MAX;
  spmu_plugin_args_build(&a, s, sizeof(s));
  assert_string_equal(s, "profile=skylake,out=o,event=4300c0,vdso=1,"
                         "seed=18446744073709551615");
  round_trip(&a);
  for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    const char *argv[] = {"out=o", "event=4300c0", bad[i]};
    char want[128];

    snprintf(want, sizeof(want), "%s: not a decimal number from 0 to 2^64 - 1",
             bad[i]);
    refused(argv, 3, want);
  }
}

/* What the parser refuses, and why: each value's syntax, then the rules
 * between keys (args.h). */
static void test_args_refusals(void **state)
{
  (void)state;
  refused((const char *[]){"out=o", "event=xyz"}, 2,
          "event=xyz: not a hexadecimal IA32_PERFEVTSELx value");
  refused((const char *[]){"out=o", "event=4300c0", "colour=blue"}, 3,
          "unknown argument 'colour=blue' (profile=NAME, out=PATH, event=HEX, "
          "record=PATH, period=N, callgraph=0|1, precise=0|1, regs=0|1, "
          "comm=NAME, branch=HEX, multiplex=N, grouped=HEX, interval=N, "
          "read=HEX, model=SPEC, count=inline|callback)");
  refused((const char *[]){"out=o", "event=4300c0", "count=sometimes"}, 3,
          "unknown argument 'count=sometimes' (profile=NAME, out=PATH, "
          "event=HEX, record=PATH, period=N, callgraph=0|1, precise=0|1, "
          "regs=0|1, comm=NAME, branch=HEX, multiplex=N, grouped=HEX, "
          "interval=N, read=HEX, model=SPEC, count=inline|callback)");
  refused((const char *[]){"out=", "event=4300c0"}, 2,
          "out=: empty or too long a path");
  refused((const char *[]){"record=r", "event=4300c0", "period=0"}, 3,
          "period=0: not a number of events from 1 up");
  refused((const char *[]){"record=r", "event=4300c0",
                           "period=9223372036854775808"},
          3, "period=9223372036854775808: not a number of events from 1 up");
  refused((const char *[]){"out=o", "event=4300c0", "multiplex=-1"}, 3,
          "multiplex=-1: not a number from 1 up");
  refused(
      (const char *[]){"record=r", "event=4300c0", "period=1", "callgraph=2"},
      4, "callgraph=2: 0 or 1");
  refused((const char *[]){"record=r", "event=4300c0", "period=1", "branch=0"},
          4, "branch=0: not a nonzero hexadecimal branch_sample_type");
  refused((const char *[]){"out=o"}, 1,
          "out=PATH or record=PATH, and at least one event=HEX, are required");
  refused((const char *[]){"event=4300c0"}, 1,
          "out=PATH or record=PATH, and at least one event=HEX, are required");
  refused((const char *[]){"record=r", "event=4300c0"}, 2,
          "record=r: period=N is required");
  refused((const char *[]){"out=o", "event=4300c0", "precise=1"}, 3,
          "period, callgraph and precise go with record=PATH");
  /* regs=1: the registers of the PEBS records. */
  refused((const char *[]){"record=r", "event=4300c0", "period=5", "regs=1"}, 4,
          "regs=1 goes with precise=1");
  refused((const char *[]){"out=o", "event=4300c0", "branch=9"}, 3,
          "branch= goes with record=PATH, without precise=1");
  refused(
      (const char *[]){"record=r", "event=4300c0", "period=5", "multiplex=10"},
      4, "multiplex=N counts; it does not go with record=PATH");
  refused((const char *[]){"out=o", "event=4300c0", "grouped=2"}, 3,
          "grouped=HEX goes with multiplex=N");
  /* Leader sampling: members read at their leader's samples, in record
   * mode only, and event 0 has no leader before it. */
  refused((const char *[]){"out=o", "event=4300c0", "event=4300c4", "read=2"},
          4,
          "read=HEX goes with record=PATH, without precise=1, and event 0 "
          "leads its group");
  refused((const char *[]){"record=r", "event=4300c0", "period=5", "read=1"}, 4,
          "read=HEX goes with record=PATH, without precise=1, and event 0 "
          "leads its group");
}

/* At most SPMU_PLUGIN_ARGS_MAX_EVENTS events. */
static void test_args_at_most_32_events(void **state)
{
  const char *argv[SPMU_PLUGIN_ARGS_MAX_EVENTS + 2];
  int i;

  (void)state;
  argv[0] = "out=o";
  for (i = 1; i <= SPMU_PLUGIN_ARGS_MAX_EVENTS + 1; i++)
    argv[i] = "event=4300c0";
  refused(argv, SPMU_PLUGIN_ARGS_MAX_EVENTS + 2,
          "event=4300c0: at most 32 events");
}

/* comm is cut to 15 characters, as the kernel keeps a name. */
static void test_args_comm_cut(void **state)
{
  char *argv[] = {"record=r", "event=4300c0", "period=1",
                  "comm=a-very-long-program-name"};
  struct spmu_plugin_args a;
  char why[256];

  (void)state;
  assert_int_equal(spmu_plugin_args_parse(&a, 4, argv, why, sizeof(why)), 0);
  assert_string_equal(a.comm, "a-very-long-pro");
}

/* ---- the results file ---------------------------------------------------- */

/* Every line parsed back, into a block: the block written. */
static void results_round_trip(const struct spmu_results_block *b)
{
  char text[4096], why[256], *line, *save = NULL;
  struct spmu_results_block back;
  struct spmu_results_line r;
  int ends = 0;

  memset(&back, 0, sizeof(back));
  spmu_results_format(b, text, sizeof(text));
  for (line = strtok_r(text, "\n", &save); line;
       line = strtok_r(NULL, "\n", &save)) {
    assert_int_equal(spmu_results_parse_line(line, &r, why, sizeof(why)), 0);
    if (r.kind == SPMU_RESULTS_HEAD)
      back.head = r.head;
    else if (r.kind == SPMU_RESULTS_EVENT) {
      assert_int_equal(r.index, back.nevents);
      back.ev[back.nevents++] = r.ev;
    } else {
      assert_int_equal(r.kind, SPMU_RESULTS_END);
      ends++;
    }
  }
  assert_int_equal(ends, 1);
  assert_int_equal(back.head.pid, b->head.pid);
  assert_int_equal(back.head.threads, b->head.threads);
  assert_int_equal(back.head.status, b->head.status);
  assert_int_equal(back.head.counting, b->head.counting);
  assert_int_equal(back.nevents, b->nevents);
  assert_memory_equal(back.ev, b->ev, b->nevents * sizeof(b->ev[0]));
}

/* A block's text, exactly as results.h gives it, and read back. */
static void test_results_block_text(void **state)
{
  struct spmu_results_block b = {
      .head = {.pid = 4242,
               .threads = 3,
               .status = 0,
               .counting = SPMU_RESULTS_INLINE_CALLBACK},
      .nevents = 2,
      .ev = {{17006, 17006, 17006}, {40000, 17006, 8503}}};
  char text[512];
  size_t n;

  (void)state;
  n = spmu_results_format(&b, text, sizeof(text));
  assert_int_equal(n, strlen(text));
  assert_string_equal(text, "softpmu-qemu 2 pid=4242 threads=3 status=0 "
                            "counting=inline,callback\n"
                            "event 0 17006 17006 17006\n"
                            "event 1 40000 17006 8503\n"
                            "end\n");
  results_round_trip(&b);
}

/* A block's threads (results.h): each one's line, its counts and its
 * rows of intervals, in order, exactly; read back line by line. */
static void test_results_threads_text(void **state)
{
  struct spmu_results_event rows[] = {
      {10, 10, 10}, {4, 10, 10}, {3, 3, 3}, {1, 3, 3}};
  struct spmu_results_thread t[] = {
      {.tid = 4242,
       .clock = 13,
       .comm = "a prog",
       .ev = {{13, 13, 13}, {5, 13, 13}},
       .first = 1,
       .nrows = 2,
       .rows = rows},
      {.tid = 4243, .clock = 7, .comm = "a prog", .ev = {{7, 7, 7}}}};
  struct spmu_results_block b = {
      .head = {.pid = 4242, .threads = 2, .counting = SPMU_RESULTS_CALLBACK},
      .nevents = 2,
      .ev = {{20, 20, 20}, {5, 20, 20}},
      .nthreads = 2,
      .thread = t};
  const char *want = "softpmu-qemu 2 pid=4242 threads=2 status=0 "
                     "counting=callback\n"
                     "event 0 20 20 20\n"
                     "event 1 5 20 20\n"
                     "thread 4242 13 a prog\n"
                     "tevent 0 13 13 13\n"
                     "tevent 1 5 13 13\n"
                     "interval 1 0 10 10 10\n"
                     "interval 1 1 4 10 10\n"
                     "interval 2 0 3 3 3\n"
                     "interval 2 1 1 3 3\n"
                     "thread 4243 7 a prog\n"
                     "tevent 0 7 7 7\n"
                     "tevent 1 0 0 0\n"
                     "end\n";
  char text[1024], why[64];
  struct spmu_results_line r;
  size_t len = 0;
  char *heap = spmu_results_text(&b, &len);

  (void)state;
  assert_non_null(heap);
  assert_string_equal(heap, want);
  assert_int_equal(len, strlen(want));
  free(heap);
  assert_int_equal(spmu_results_format(&b, text, sizeof(text)), strlen(want));
  assert_int_equal(spmu_results_format(&b, text, 8), 7); /* cut short */
  assert_string_equal(text, "softpmu");
  assert_int_equal(
      spmu_results_parse_line("thread 4242 13 a prog\n", &r, why, sizeof(why)),
      0);
  assert_int_equal(r.kind, SPMU_RESULTS_THREAD);
  assert_int_equal(r.tid, 4242);
  assert_int_equal(r.clock, 13);
  assert_string_equal(r.comm, "a prog");
  assert_int_equal(
      spmu_results_parse_line("tevent 1 5 13 12", &r, why, sizeof(why)), 0);
  assert_int_equal(r.kind, SPMU_RESULTS_TEVENT);
  assert_int_equal(r.index, 1);
  assert_int_equal(r.ev.running, 12);
  assert_int_equal(
      spmu_results_parse_line("interval 2 1 1 3 2\n", &r, why, sizeof(why)), 0);
  assert_int_equal(r.kind, SPMU_RESULTS_ROW);
  assert_int_equal(r.row, 2);
  assert_int_equal(r.index, 1);
  assert_int_equal(r.ev.count, 1);
  assert_int_equal(r.ev.enabled, 3);
  assert_int_equal(r.ev.running, 2);
}

/* Every status and counting word goes through. */
static void test_results_statuses(void **state)
{
  const int status[] = {0, 255, SPMU_RESULTS_STATUS_UNKNOWN,
                        SPMU_RESULTS_STATUS_EXECVE,
                        SPMU_RESULTS_STATUS_SIGNAL(9)};
  struct spmu_results_block b = {
      .head = {.pid = 1, .threads = 1}, .nevents = 1, .ev = {{1, 2, 3}}};
  size_t i;

  (void)state;
  for (i = 0; i < sizeof(status) / sizeof(status[0]); i++) {
    b.head.status = status[i];
    b.head.counting = (enum spmu_results_counting)(i % 3);
    results_round_trip(&b);
  }
}

/* The reader checks the version: a block of another one is refused with
 * the reason; lines the format does not have are ignored. */
static void test_results_version_checked(void **state)
{
  struct spmu_results_line r;
  char why[256] = "";

  (void)state;
  assert_int_equal(spmu_results_parse_line("softpmu-qemu 1 pid=1 threads=1 "
                                           "status=0 counting=inline\n",
                                           &r, why, sizeof(why)),
                   -1);
  assert_string_equal(why, "a results block of format version 1: this "
                           "softpmu reads version 2");
  assert_int_equal(
      spmu_results_parse_line("# a comment\n", &r, why, sizeof(why)), 0);
  assert_int_equal(r.kind, SPMU_RESULTS_OTHER);
}

/* ---- the sample stream --------------------------------------------------- */

/* A PROCESS record written and read states the version; one of the size
 * before the field is version 1; another version is refused. */
static void test_record_process_version(void **state)
{
  struct spmu_rec_process w, r;
  char why[256] = "";

  (void)state;
  spmu_rec_process_fill(&w, 42, 7, "a-very-long-program-name");
  assert_int_equal(w.head.type, SPMU_REC_PROCESS);
  assert_int_equal(w.head.size, sizeof(w));
  assert_int_equal(w.head.size % 8, 0);
  assert_int_equal(w.version, SPMU_REC_VERSION);
  assert_int_equal(spmu_rec_process_read(&w, sizeof(w), &r, why, sizeof(why)),
                   0);
  assert_memory_equal(&r, &w, sizeof(r));
  assert_string_equal(r.comm, "a-very-long-pro");
  assert_int_equal(
      spmu_rec_process_read(&w, SPMU_REC_PROCESS_V1_SIZE, &r, why, sizeof(why)),
      0);
  assert_int_equal(r.version, 1);
  assert_int_equal(spmu_rec_process_read(&w, 24, &r, why, sizeof(why)), -1);
  assert_string_equal(why, "a short PROCESS record");
  w.version = SPMU_REC_VERSION + 1;
  assert_int_equal(spmu_rec_process_read(&w, sizeof(w), &r, why, sizeof(why)),
                   -1);
  assert_string_equal(why, "a PROCESS record of format version 3 (this "
                           "softpmu reads versions 1 to 2)");
}

/* Records are multiples of 8 bytes. */
static void test_record_sizes(void **state)
{
  (void)state;
  assert_int_equal(spmu_rec_size(1), 8);
  assert_int_equal(spmu_rec_size(8), 8);
  assert_int_equal(spmu_rec_size(sizeof(struct spmu_rec_mmap) + 6), 48);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_args_stat_round_trip),
      cmocka_unit_test(test_args_record_round_trip),
      cmocka_unit_test(test_args_defaults_omitted),
      cmocka_unit_test(test_args_seed),
      cmocka_unit_test(test_args_build_cut_short),
      cmocka_unit_test(test_args_refusals),
      cmocka_unit_test(test_args_at_most_32_events),
      cmocka_unit_test(test_args_comm_cut),
      cmocka_unit_test(test_results_block_text),
      cmocka_unit_test(test_results_threads_text),
      cmocka_unit_test(test_results_statuses),
      cmocka_unit_test(test_results_version_checked),
      cmocka_unit_test(test_record_process_version),
      cmocka_unit_test(test_record_sizes),
  };

  return cmocka_run_group_tests(tests, NULL, NULL);
}

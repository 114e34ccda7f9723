/* softpmu stat's output (cli/stat_print.h): whole outputs compared with
 * the layouts of perf stat 6.1 (perf-stat(1)): the default layout with and
 * without digit grouping, -r N with the spread, a time-sliced counter,
 * -x SEP ("CSV FORMAT") and -j. */
#define _POSIX_C_SOURCE 200809L

#include "helpers.h"

#include <math.h>
#include <stdlib.h>

#include "stat_print.h"

static char *argv_prog[] = {"./prog", "a"};

/* Print into a string; the caller frees it. */
static char *print(const struct stat_print_opts *o, const struct stat_run *run,
                   const struct stat_result *res, size_t n)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);

  assert_non_null(f);
  stat_print(f, o, run, res, n);
  assert_int_equal(fclose(f), 0);
  return buf;
}

static void assert_printed(const struct stat_print_opts *o,
                           const struct stat_run *run,
                           const struct stat_result *res, size_t n,
                           const char *expect)
{
  char *got = print(o, run, res, n);

  assert_string_equal(got, expect);
  free(got);
}

/* One run of three events: counted, zero, and one the engine does not
 * produce. */
static void one_run(struct stat_run *run, struct stat_result res[3])
{
  memset(run, 0, sizeof *run);
  run->argc = 2;
  run->argv = argv_prog;
  run->runs = 1;
  stat_stats_add(&run->elapsed, 0.00433095);
  run->user_s = 0.0;
  run->sys_s = 0.006001;
  memset(res, 0, 3 * sizeof res[0]);
  res[0] = (struct stat_result){.name = "instructions:u",
                                .supported = true,
                                .run_ns = 4330950,
                                .pcnt_running = 100.0};
  stat_stats_add(&res[0].count, 1234567);
  res[1] = (struct stat_result){.name = "branches:u",
                                .supported = true,
                                .run_ns = 4330950,
                                .pcnt_running = 100.0};
  stat_stats_add(&res[1].count, 0);
  res[2] = (struct stat_result){
      .name = "cycles:u", .supported = false, .pcnt_running = 100.0};
}

/* The default layout: header, counts right-aligned in 18 columns with
 * thousands grouped, <not supported>, and the elapsed/user/sys footer. */
static void test_default_layout(void **state)
{
  struct stat_print_opts o = {.format = STAT_FMT_STD, .big_num = true};
  struct stat_run run;
  struct stat_result res[3];

  (void)state;
  one_run(&run, res);
  assert_printed(&o, &run, res, 3,
                 "\n Performance counter stats for './prog a':\n\n"
                 "         1,234,567      instructions:u                    "
                 "                                 \n"
                 "                 0      branches:u                        "
                 "                                 \n"
                 "   <not supported>      cycles:u                          "
                 "                          \n"
                 "\n"
                 "       0.004330950 seconds time elapsed\n"
                 "\n"
                 "       0.000000000 seconds user\n"
                 "       0.006001000 seconds sys\n"
                 "\n\n");
}

/* --no-big-num: digits not grouped. */
static void test_default_layout_plain_digits(void **state)
{
  struct stat_print_opts o = {.format = STAT_FMT_STD, .big_num = false};
  struct stat_run run;
  struct stat_result res[3];
  char *got;

  (void)state;
  one_run(&run, res);
  got = print(&o, &run, res, 1);
  assert_non_null(strstr(got, "\n           1234567      instructions:u   "));
  free(got);
}

/* -r 3: the mean count and its standard error relative to it; the elapsed
 * time as mean +- standard error, to two decimals past the spread's
 * first significant digit; no user/sys lines. */
static void test_repeat_spread(void **state)
{
  struct stat_print_opts o = {.format = STAT_FMT_STD, .big_num = true};
  struct stat_run run = {.argc = 1, .argv = argv_prog, .runs = 3};
  struct stat_result res[2] = {
      {.name = "instructions",
       .supported = true,
       .run_ns = 1000,
       .pcnt_running = 100.0},
      {.name = "branches",
       .supported = true,
       .run_ns = 1000,
       .pcnt_running = 100.0},
  };
  int i;

  (void)state;
  for (i = 0; i < 3; i++) {
    stat_stats_add(&res[0].count, 5000);
    stat_stats_add(&res[1].count, 90 + 10 * i);
    stat_stats_add(&run.elapsed, 0.003 + 0.001 * i);
  }
  /* 90, 100, 110: s = 10, s / sqrt(3) = 5.7735, 5.77% of 100. Elapsed
   * 3, 4, 5 ms: 0.000577 s, 14.43% of 4 ms. */
  assert_printed(
      &o, &run, res, 2,
      "\n Performance counter stats for './prog' (3 runs):\n\n"
      "             5,000      instructions                      "
      "                                   ( +-  0.00% )\n"
      "               100      branches                          "
      "                                   ( +-  5.77% )\n"
      "\n"
      "          0.004000 +- 0.000577 seconds time elapsed  ( +- 14.43% )\n"
      "\n");
}

/* --multiplex: a counter that ran part of the time shows the share. */
static void test_time_sliced_percentage(void **state)
{
  struct stat_print_opts o = {.format = STAT_FMT_STD, .big_num = true};
  struct stat_run run;
  struct stat_result res[3];
  char *got;

  (void)state;
  one_run(&run, res);
  res[0].pcnt_running = 50.0;
  got = print(&o, &run, res, 1);
  /* "instructions:u" padded to 32 columns, then the 35 blank metric
   * columns. */
  assert_non_null(strstr(got, "\n         1,234,567      instructions:u"
                              "                  "
                              "                                   "
                              "  (50.00%)\n"));
  free(got);
}

/* -x SEP: value, unit, event, run time, percentage, metric value, metric
 * unit; <not supported> has run time 0; no header or footer. */
static void test_csv_fields(void **state)
{
  struct stat_print_opts o = {.format = STAT_FMT_CSV, .sep = ","};
  struct stat_run run;
  struct stat_result res[3];

  (void)state;
  one_run(&run, res);
  assert_printed(&o, &run, res, 3,
                 "1234567,,instructions:u,4330950,100.00,,\n"
                 "0,,branches:u,4330950,100.00,,\n"
                 "<not supported>,,cycles:u,0,100.00,,\n");
  o.sep = ";";
  res[0].pcnt_running = 25.0;
  assert_printed(&o, &run, res, 1, "1234567;;instructions:u;4330950;25.00;;\n");
}

/* A supported event no run gave a count for (the plugin wrote none):
 * <not counted>, as perf prints a counter that never ran; never 0. */
static void test_not_counted(void **state)
{
  struct stat_print_opts csv = {.format = STAT_FMT_CSV, .sep = ","};
  struct stat_print_opts json = {.format = STAT_FMT_JSON};
  struct stat_run run = {.argc = 1, .argv = argv_prog};
  struct stat_result r = {.name = "instructions",
                          .supported = true,
                          .run_ns = 7,
                          .pcnt_running = 100.0};

  (void)state;
  assert_printed(&csv, &run, &r, 1, "<not counted>,,instructions,0,100.00,,\n");
  assert_printed(&json, &run, &r, 1,
                 "{\"counter-value\" : \"<not counted>\", \"unit\" : \"\", "
                 "\"event\" : \"instructions\", \"event-runtime\" : 0, "
                 "\"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, "
                 "\"metric-unit\" : \"\"}\n");
}

/* -x with -r: the variance follows the event name. */
static void test_csv_repeat_variance(void **state)
{
  struct stat_print_opts o = {.format = STAT_FMT_CSV, .sep = ","};
  struct stat_run run = {.argc = 1, .argv = argv_prog, .runs = 2};
  struct stat_result res[2] = {
      {.name = "instructions",
       .supported = true,
       .run_ns = 7,
       .pcnt_running = 100.0},
      {.name = "cycles", .supported = false, .pcnt_running = 100.0},
  };

  (void)state;
  stat_stats_add(&res[0].count, 10);
  stat_stats_add(&res[0].count, 30);
  /* s = 14.142, s / sqrt(2) = 10, 50% of 20. */
  assert_printed(&o, &run, res, 2,
                 "20,,instructions,50.00%,7,100.00,,\n"
                 "<not supported>,,cycles,0.00%,0,100.00,,\n");
}

/* -j: one object per line; "variance" only with -r; names escaped. */
static void test_json_objects(void **state)
{
  struct stat_print_opts o = {.format = STAT_FMT_JSON};
  struct stat_run run;
  struct stat_result res[3];

  (void)state;
  one_run(&run, res);
  res[1].name = "a\"b\\c";
  assert_printed(&o, &run, res, 3,
                 "{\"counter-value\" : \"1234567.000000\", \"unit\" : \"\", "
                 "\"event\" : \"instructions:u\", \"event-runtime\" : 4330950, "
                 "\"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, "
                 "\"metric-unit\" : \"\"}\n"
                 "{\"counter-value\" : \"0.000000\", \"unit\" : \"\", "
                 "\"event\" : \"a\\\"b\\\\c\", \"event-runtime\" : 4330950, "
                 "\"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, "
                 "\"metric-unit\" : \"\"}\n"
                 "{\"counter-value\" : \"<not supported>\", \"unit\" : \"\", "
                 "\"event\" : \"cycles:u\", \"event-runtime\" : 0, "
                 "\"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, "
                 "\"metric-unit\" : \"\"}\n");
  run.runs = 2;
  stat_stats_add(&res[0].count, 1234567);
  assert_printed(&o, &run, res, 1,
                 "{\"counter-value\" : \"1234567.000000\", \"unit\" : \"\", "
                 "\"event\" : \"instructions:u\", \"variance\" : 0.00, "
                 "\"event-runtime\" : 4330950, \"pcnt-running\" : 100.00, "
                 "\"metric-value\" : 0.000000, \"metric-unit\" : \"\"}\n");
}

/* The spread: the sample standard deviation over sqrt(n). */
static void test_stats_standard_error(void **state)
{
  struct stat_stats s = {0};

  (void)state;
  stat_stats_add(&s, 2);
  assert_true(stat_stats_stderr(&s) == 0.0);
  stat_stats_add(&s, 4);
  stat_stats_add(&s, 6);
  /* mean 4, sample variance 4, 4 / 3 under the root. */
  assert_true(s.mean == 4.0);
  assert_true(fabs(stat_stats_stderr(&s) - 1.1547005383792515) < 1e-12);
  assert_true(fabs(stat_stats_rel_pct(&s) - 28.867513459481287) < 1e-9);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_default_layout),
      cmocka_unit_test(test_default_layout_plain_digits),
      cmocka_unit_test(test_repeat_spread),
      cmocka_unit_test(test_time_sliced_percentage),
      cmocka_unit_test(test_csv_fields),
      cmocka_unit_test(test_not_counted),
      cmocka_unit_test(test_csv_repeat_variance),
      cmocka_unit_test(test_json_objects),
      cmocka_unit_test(test_stats_standard_error),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

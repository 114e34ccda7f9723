/* SPDX-License-Identifier: MIT */
/* softpmu stat's output (perf/stat_print.h): whole outputs compared with
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

/* perf's default set with the modelled events: cycles 40000 (model),
 * instructions 17006 exact, branches 8001 exact, branch-misses 1001,
 * cache-references 3000 and cache-misses 1200 (model); every event
 * counted for user and kernel code. */
static const char *model_line = "part:skylake (L1I 32K 8-way)";

static void default_set(struct stat_run *run, struct stat_result res[6])
{
  static const struct {
    const char *name;
    double n;
    bool modelled;
    enum stat_hw hw;
  } ev[6] = {
      {"cycles", 40000, true, STAT_HW_CYCLES},
      {"instructions", 17006, false, STAT_HW_INSTRUCTIONS},
      {"branches", 8001, false, STAT_HW_BRANCHES},
      {"branch-misses", 1001, true, STAT_HW_BRANCH_MISSES},
      {"cache-references", 3000, true, STAT_HW_CACHE_REFS},
      {"cache-misses", 1200, true, STAT_HW_CACHE_MISSES},
  };
  int i;

  memset(run, 0, sizeof *run);
  run->argc = 1;
  run->argv = argv_prog;
  run->runs = 1;
  run->model = model_line;
  stat_stats_add(&run->elapsed, 0.5);
  for (i = 0; i < 6; i++) {
    res[i] = (struct stat_result){.name = ev[i].name,
                                  .supported = true,
                                  .run_ns = 500,
                                  .pcnt_running = 100.0,
                                  .modelled = ev[i].modelled,
                                  .hw = ev[i].hw,
                                  .user = true,
                                  .kernel = true};
    stat_stats_add(&res[i].count, ev[i].n);
  }
}

/* The default layout: a modelled count has " (model)" after its name; the
 * metrics as perf 6.1 prints them (" # ", the value in "%7.2f " for insn
 * per cycle, "%7.2f%%" of all branches, "%8.3f %%" of all cache refs, the
 * unit in the rest of the 35 columns), marked when derived from a
 * modelled count; then the model's line. 17006 / 40000 = 0.43; 1001 /
 * 8001 = 12.51%; 1200 / 3000 = 40.000%. */
static void test_modelled_default_layout(void **state)
{
  struct stat_print_opts o = {.format = STAT_FMT_STD, .big_num = true};
  struct stat_run run;
  struct stat_result res[6];

  (void)state;
  default_set(&run, res);
  assert_printed(&o, &run, res, 6,
                 "\n Performance counter stats for './prog':\n\n"
                 "            40,000      cycles (model)                    "
                 "                                 \n"
                 "            17,006      instructions                    "
                 " #    0.43  insn per cycle (model) \n"
                 "             8,001      branches                          "
                 "                                 \n"
                 "             1,001      branch-misses (model)           "
                 " #   12.51% of all branches (model)\n"
                 "             3,000      cache-references (model)          "
                 "                                 \n"
                 "             1,200      cache-misses (model)            "
                 " #   40.000 % of all cache refs (model)\n"
                 "\n"
                 " model: part:skylake (L1I 32K 8-way)\n"
                 "\n"
                 "       0.500000000 seconds time elapsed\n"
                 "\n"
                 "       0.000000000 seconds user\n"
                 "       0.000000000 seconds sys\n"
                 "\n\n");
}

/* -r N with modelled lines: the spread in one column, after the widest
 * line's metric column, which a " (model)" mark widens ("40.000 % of all
 * cache refs (model)" overflows perf's 35; perf prints the variance
 * after the metric column every line shares). */
static void test_repeat_spread_modelled_aligned(void **state)
{
  struct stat_print_opts o = {.format = STAT_FMT_STD, .big_num = true};
  struct stat_run run;
  struct stat_result res[6];
  const char *line, *mark;
  char *got;
  long col = -1;
  int i, lines = 0;

  (void)state;
  default_set(&run, res);
  run.runs = 2;
  for (i = 0; i < 6; i++)
    stat_stats_add(&res[i].count, res[i].count.mean);
  got = print(&o, &run, res, 6);
  for (line = got; (mark = strstr(line, "( +- ")) != NULL;
       line = strchr(mark, '\n') + 1) {
    const char *start = mark;

    while (start > got && start[-1] != '\n')
      start--;
    if (strncmp(mark - strlen("elapsed  "), "elapsed  ", 9) == 0)
      break; /* the elapsed time's spread: the footer */
    if (col < 0)
      col = mark - start;
    assert_int_equal(mark - start, col);
    lines++;
  }
  assert_int_equal(lines, 6);
  /* The widest line, cache-misses', ends its metric column at 95. */
  assert_int_equal(col, 95 + 2);
  assert_non_null(strstr(got, "             8,001      branches    "));
  free(got);
}

/* -x SEP: perf's fields keep their places; a modelled line has one more,
 * "model"; the metric value without blanks or '%' and its unit; the model
 * in a "# model:" line first, and with --verbose its parameters. */
static void test_modelled_csv(void **state)
{
  struct stat_print_opts o = {.format = STAT_FMT_CSV, .sep = ","};
  const char *details[] = {"L1I  32768 B", "timing"};
  struct stat_run run;
  struct stat_result res[6];

  (void)state;
  default_set(&run, res);
  run.model_details = details;
  run.nmodel_details = 2;
  assert_printed(&o, &run, res, 6,
                 "# model: part:skylake (L1I 32K 8-way)\n"
                 "# L1I  32768 B\n"
                 "# timing\n"
                 "40000,,cycles,500,100.00,,,model\n"
                 "17006,,instructions,500,100.00,0.43,insn per cycle "
                 "(model)\n"
                 "8001,,branches,500,100.00,,\n"
                 "1001,,branch-misses,500,100.00,12.51,of all branches "
                 "(model),model\n"
                 "3000,,cache-references,500,100.00,,,model\n"
                 "1200,,cache-misses,500,100.00,40.000,of all cache refs "
                 "(model),model\n");
}

/* -j: "modelled" : true in a modelled event's object; the metric's value
 * and unit; the model first, as an object of its own. */
static void test_modelled_json(void **state)
{
  struct stat_print_opts o = {.format = STAT_FMT_JSON};
  const char *details[] = {"L2   262144 B"};
  struct stat_run run;
  struct stat_result res[6];

  (void)state;
  default_set(&run, res);
  run.model_details = details;
  run.nmodel_details = 1;
  assert_printed(&o, &run, res, 2,
                 "{\"model\" : \"part:skylake (L1I 32K 8-way)\", "
                 "\"model-details\" : [\"L2   262144 B\"]}\n"
                 "{\"counter-value\" : \"40000.000000\", \"unit\" : \"\", "
                 "\"event\" : \"cycles\", \"event-runtime\" : 500, "
                 "\"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, "
                 "\"metric-unit\" : \"\", \"modelled\" : true}\n"
                 "{\"counter-value\" : \"17006.000000\", \"unit\" : \"\", "
                 "\"event\" : \"instructions\", \"event-runtime\" : 500, "
                 "\"pcnt-running\" : 100.00, \"metric-value\" : 0.425150, "
                 "\"metric-unit\" : \"insn per cycle (model)\"}\n");
}

/* perf pairs the counts of one context: instructions:u has no insn per
 * cycle with cycles counting kernel code too; a base event that is <not
 * supported> gives no metric; exact counts give unmarked metrics. */
static void test_metric_pairs(void **state)
{
  struct stat_print_opts o = {.format = STAT_FMT_CSV, .sep = ","};
  struct stat_run run;
  struct stat_result res[6];

  (void)state;
  default_set(&run, res);
  run.model = NULL;
  res[1].kernel = false;
  res[4].supported = false;
  res[3].modelled = false;
  assert_printed(&o, &run, res, 6,
                 "40000,,cycles,500,100.00,,,model\n"
                 "17006,,instructions,500,100.00,,\n"
                 "8001,,branches,500,100.00,,\n"
                 "1001,,branch-misses,500,100.00,12.51,of all branches\n"
                 "<not supported>,,cache-references,0,100.00,,\n"
                 "1200,,cache-misses,500,100.00,,,model\n");
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
      cmocka_unit_test(test_modelled_default_layout),
      cmocka_unit_test(test_repeat_spread_modelled_aligned),
      cmocka_unit_test(test_modelled_csv),
      cmocka_unit_test(test_modelled_json),
      cmocka_unit_test(test_metric_pairs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

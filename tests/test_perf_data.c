/* SPDX-License-Identifier: MIT */
/* softpmu record's perf.data (perf/perf_data.h), checked byte by byte
 * against the layout perf.data-file-format.txt (Linux, tools/perf/
 * Documentation) and <linux/perf_event.h> give, then read back: the file
 * header and its sections, one attr per event, each record's fields, the
 * call chain in perf's convention, HEADER_EVENT_DESC's names. */
#define _POSIX_C_SOURCE 200809L

#include "helpers.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <unistd.h>

#include "perf_data.h"

static char path[64];

static int setup(void **state)
{
  int fd;

  (void)state;
  snprintf(path, sizeof(path), "/tmp/test-perf-data-XXXXXX");
  fd = mkstemp(path);
  if (fd < 0)
    return -1;
  close(fd);
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  unlink(path);
  return 0;
}

/* Two events (instructions; br_inst_retired.near_call, raw 0x2c4),
 * precise, with call chains, period 1009. */
static struct perf_data_desc two_events(void)
{
  struct perf_data_desc d;

  memset(&d, 0, sizeof(d));
  d.nev = 2;
  d.period = 1009;
  d.callchain = true;
  snprintf(d.ev[0].name, sizeof(d.ev[0].name), "instructions");
  d.ev[0].type = PERF_TYPE_HARDWARE;
  d.ev[0].config = PERF_COUNT_HW_INSTRUCTIONS;
  snprintf(d.ev[1].name, sizeof(d.ev[1].name), "br_inst_retired.near_call");
  d.ev[1].type = PERF_TYPE_RAW;
  d.ev[1].config = 0x2c4;
  d.ev[0].precise = d.ev[1].precise = true;
  return d;
}

static const uint64_t chain[2] = {0x401014, 0x401005};

static void write_file(const struct perf_data_desc *d)
{
  char why[256];
  struct perf_data_writer *w = perf_data_open(path, d, why, sizeof(why));

  assert_non_null(w);
  assert_int_equal(perf_data_comm(w, 10, 10, "prog"), 0);
  assert_int_equal(
      perf_data_mmap(w, 10, 10, 0x401000, 0x1000, 0x1000, "/bin/prog"), 0);
  assert_int_equal(perf_data_task(w, false, 10, 10, 11, 10, 5), 0);
  assert_int_equal(
      perf_data_sample(w, 1, 10, 11, 777, 0x40101e, 1009, chain, 2, NULL), 0);
  assert_int_equal(perf_data_lost(w, 3), 0);
  assert_int_equal(perf_data_task(w, true, 10, 10, 11, 10, 900), 0);
  assert_int_equal(perf_data_close(w, why, sizeof(why)), 0);
}

static unsigned char *slurp(size_t *len)
{
  FILE *f = fopen(path, "rb");
  unsigned char *b = malloc(1 << 16);

  assert_non_null(f);
  assert_non_null(b);
  *len = fread(b, 1, 1 << 16, f);
  fclose(f);
  return b;
}

static uint64_t u64_at(const unsigned char *b, size_t off)
{
  uint64_t v;

  memcpy(&v, b + off, 8);
  return v;
}

/* perf_header: "PERFILE2", its own size (104), attr_size (attr + ids
 * section: 128 + 16), the attrs, data and event_types sections, and the
 * feature bitmap with HEADER_EVENT_DESC (bit 12). */
static void header_layout_as_documented(void **state)
{
  struct perf_data_desc d = two_events();
  size_t len;
  unsigned char *b;

  (void)state;
  write_file(&d);
  b = slurp(&len);
  assert_memory_equal(b, "PERFILE2", 8);
  assert_int_equal(u64_at(b, 8), 104);
  assert_int_equal(u64_at(b, 16), 144);
  assert_int_equal(u64_at(b, 24), 104);                   /* attrs.offset */
  assert_int_equal(u64_at(b, 32), 2 * 144);               /* attrs.size */
  assert_int_equal(u64_at(b, 40), 104 + 2 * 144 + 2 * 8); /* data.offset */
  assert_int_equal(u64_at(b, 56), 0);                     /* event_types */
  assert_int_equal(u64_at(b, 64), 0);
  assert_int_equal(u64_at(b, 72), 1ULL << 12); /* HEADER_EVENT_DESC */
  /* Each attr's ids section: one id, its index + 1. */
  assert_int_equal(u64_at(b, 104 + 128), 104 + 288);
  assert_int_equal(u64_at(b, 104 + 136), 8);
  assert_int_equal(u64_at(b, 104 + 288), 1);
  assert_int_equal(u64_at(b, 104 + 296), 2);
  free(b);
}

/* perf_event_attr: type, size (PERF_ATTR_SIZE_VER7), config, the period,
 * sample_type IP|TID|TIME|PERIOD|CALLCHAIN|IDENTIFIER (two events), and
 * the flags exclude_kernel (bit 5), exclude_hv (bit 6), precise_ip = 3
 * (bits 15-16). */
static void attr_as_perf_record_sets_it(void **state)
{
  struct perf_data_desc d = two_events();
  const unsigned char *a;
  size_t len;
  unsigned char *b;
  uint32_t type, size;

  (void)state;
  write_file(&d);
  b = slurp(&len);
  a = b + 104 + 144; /* the second event */
  memcpy(&type, a, 4);
  memcpy(&size, a + 4, 4);
  assert_int_equal(type, PERF_TYPE_RAW);
  assert_int_equal(size, 128);
  assert_int_equal(u64_at(a, 8), 0x2c4);
  assert_int_equal(u64_at(a, 16), 1009);
  assert_int_equal(u64_at(a, 24), PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                                      PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
                                      PERF_SAMPLE_CALLCHAIN |
                                      PERF_SAMPLE_IDENTIFIER);
  assert_int_equal(u64_at(a, 40), 1ULL << 5 | 1ULL << 6 | 3ULL << 15);
  free(b);
}

/* PERF_RECORD_SAMPLE: misc USER and EXACT_IP (a precise event), then
 * IDENTIFIER, IP, pid and tid, TIME, PERIOD, and the call chain: its
 * length, PERF_CONTEXT_USER, the ip, the return addresses innermost
 * first. */
static void sample_record_fields_in_order(void **state)
{
  struct perf_data_desc d = two_events();
  size_t len, off;
  unsigned char *b;
  struct perf_event_header h;
  /* COMM (8 + 8 + "prog" padded to 8), MMAP (8 + 32 + "/bin/prog"
   * padded to 16), FORK (8 + 24): the sample follows. */
  const size_t sample_off = 104 + 288 + 16 + 24 + 56 + 32;

  (void)state;
  write_file(&d);
  b = slurp(&len);
  off = sample_off;
  memcpy(&h, b + off, sizeof(h));
  assert_int_equal(h.type, PERF_RECORD_SAMPLE);
  assert_int_equal(h.misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_EXACT_IP);
  assert_int_equal(h.size, 8 + 8 * 10);
  assert_int_equal(u64_at(b, off + 8), 2); /* the second event's id */
  assert_int_equal(u64_at(b, off + 16), 0x40101e);
  assert_int_equal(u64_at(b, off + 24), 11ULL << 32 | 10);
  assert_int_equal(u64_at(b, off + 32), 777);
  assert_int_equal(u64_at(b, off + 40), 1009);
  assert_int_equal(u64_at(b, off + 48), 4);
  assert_int_equal(u64_at(b, off + 56), (uint64_t)PERF_CONTEXT_USER);
  assert_int_equal(u64_at(b, off + 64), 0x40101e);
  assert_int_equal(u64_at(b, off + 72), 0x401014);
  assert_int_equal(u64_at(b, off + 80), 0x401005);
  free(b);
}

/* Read back: every record as written, the sample's event found by its
 * identifier, the names from HEADER_EVENT_DESC. */
static void read_back(void **state)
{
  struct perf_data_desc d = two_events();
  struct perf_data_file f;
  struct perf_data_rec r;
  char why[256];

  (void)state;
  write_file(&d);
  assert_int_equal(perf_data_load(path, &f, why, sizeof(why)), 0);
  assert_int_equal(f.nev, 2);
  assert_string_equal(f.ev[1].name, "br_inst_retired.near_call");
  assert_int_equal(perf_data_next(&f, &r, why, sizeof(why)), 1);
  assert_int_equal(r.type, PERF_RECORD_COMM);
  assert_string_equal(r.str, "prog");
  assert_int_equal(perf_data_next(&f, &r, why, sizeof(why)), 1);
  assert_int_equal(r.type, PERF_RECORD_MMAP);
  assert_int_equal(r.start, 0x401000);
  assert_int_equal(r.len, 0x1000);
  assert_int_equal(r.pgoff, 0x1000);
  assert_string_equal(r.str, "/bin/prog");
  assert_int_equal(perf_data_next(&f, &r, why, sizeof(why)), 1);
  assert_int_equal(r.type, PERF_RECORD_FORK);
  assert_int_equal(r.tid, 11);
  assert_int_equal(r.ptid, 10);
  assert_int_equal(perf_data_next(&f, &r, why, sizeof(why)), 1);
  assert_int_equal(r.type, PERF_RECORD_SAMPLE);
  assert_int_equal(r.ev, 1);
  assert_int_equal(r.pid, 10);
  assert_int_equal(r.tid, 11);
  assert_int_equal(r.time, 777);
  assert_int_equal(r.period, 1009);
  assert_int_equal(r.nr, 4);
  assert_int_equal(perf_data_chain(&r, 3), 0x401005);
  assert_int_equal(perf_data_next(&f, &r, why, sizeof(why)), 1);
  assert_int_equal(r.type, PERF_RECORD_LOST_SAMPLES);
  assert_int_equal(r.lost, 3);
  assert_int_equal(perf_data_next(&f, &r, why, sizeof(why)), 1);
  assert_int_equal(r.type, PERF_RECORD_EXIT);
  assert_int_equal(r.time, 900);
  assert_int_equal(perf_data_next(&f, &r, why, sizeof(why)), 0);
  perf_data_free(&f);
}

/* PERF_SAMPLE_BRANCH_STACK (<linux/perf_event.h>, PERF_RECORD_SAMPLE):
 * after the call chain, u64 nr, u64 hw_idx (with
 * PERF_SAMPLE_BRANCH_HW_INDEX), then each perf_branch_entry's from, to
 * and flags word (mispred bit 0, predicted 1, in_tx 2, abort 3, cycles
 * 19:4); attr.branch_sample_type at byte 72; HEADER_BRANCH_STACK (feature
 * 15, empty) with branch_feature, after HEADER_EVENT_DESC in the feature
 * table. Read back the same. */
static void branch_stack_as_perf_lays_it_out(void **state)
{
  struct perf_data_desc d = two_events();
  const struct perf_data_branch e[2] = {
      {0x401021, 0x401013, PERF_DATA_BR_PREDICTED},
      {0x40102c, 0x401018,
       PERF_DATA_BR_MISPRED | PERF_DATA_BR_IN_TX | PERF_DATA_BR_ABORT |
           7ULL << PERF_DATA_BR_CYCLES_SHIFT}};
  const struct perf_data_branches br = {2, 13, e};
  const uint64_t bst = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER |
                       PERF_SAMPLE_BRANCH_HW_INDEX;
  struct perf_data_writer *w;
  struct perf_data_file f;
  struct perf_data_rec r;
  char why[256];
  size_t len, off;
  unsigned char *b;

  (void)state;
  d.nev = 1;
  d.branch_sample_type = bst;
  d.branch_feature = true;
  w = perf_data_open(path, &d, why, sizeof(why));
  assert_non_null(w);
  assert_int_equal(
      perf_data_sample(w, 0, 10, 10, 5, 0x40101e, 1009, chain, 2, &br), 0);
  assert_int_equal(perf_data_close(w, why, sizeof(why)), 0);
  b = slurp(&len);
  assert_int_equal(u64_at(b, 104 + 24),
                   PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                       PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN |
                       PERF_SAMPLE_BRANCH_STACK);
  assert_int_equal(u64_at(b, 104 + 72), bst);
  assert_int_equal(u64_at(b, 72), 1ULL << 12 | 1ULL << 15); /* features */
  /* header, attr + ids section, one id; the sample's header; ip, pid/tid,
   * time, period; chain nr, USER, ip, 2 entries. */
  off = 104 + 144 + 8 + 8 + 4 * 8 + 5 * 8;
  assert_int_equal(u64_at(b, off), 2);
  assert_int_equal(u64_at(b, off + 8), 13);
  assert_int_equal(u64_at(b, off + 16), 0x401021);
  assert_int_equal(u64_at(b, off + 24), 0x401013);
  assert_int_equal(u64_at(b, off + 32), 2);
  assert_int_equal(u64_at(b, off + 40), 0x40102c);
  assert_int_equal(u64_at(b, off + 48), 0x401018);
  assert_int_equal(u64_at(b, off + 56), 0x7d);
  /* The record ends there: its size in its header. */
  assert_int_equal(b[104 + 144 + 8 + 6] | b[104 + 144 + 8 + 7] << 8,
                   off + 64 - (104 + 144 + 8));
  free(b);
  assert_int_equal(perf_data_load(path, &f, why, sizeof(why)), 0);
  assert_int_equal(perf_data_next(&f, &r, why, sizeof(why)), 1);
  assert_int_equal(r.type, PERF_RECORD_SAMPLE);
  assert_int_equal(r.nbr, 2);
  assert_int_equal(r.hw_idx, 13);
  assert_int_equal(perf_data_branch_at(&r, 1).from, 0x40102c);
  assert_int_equal(perf_data_branch_at(&r, 1).flags, 0x7d);
  perf_data_free(&f);
}

/* One event: no IDENTIFIER, no call chain unless asked. */
static void one_event_sample_type(void **state)
{
  struct perf_data_desc d = two_events();

  (void)state;
  d.nev = 1;
  d.callchain = false;
  assert_int_equal(perf_data_sample_type(&d), PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                                                  PERF_SAMPLE_TIME |
                                                  PERF_SAMPLE_PERIOD);
}

/* Not a perf.data file; a data section past the end of the file. */
static void bad_files_refused(void **state)
{
  struct perf_data_desc d = two_events();
  struct perf_data_file f;
  char why[256];
  FILE *out;

  (void)state;
  out = fopen(path, "wb");
  assert_non_null(out);
  fputs("not a perf.data file, but long enough to hold its header..........."
        "............................................",
        out);
  fclose(out);
  assert_int_equal(perf_data_load(path, &f, why, sizeof(why)), -1);
  assert_non_null(strstr(why, "not a perf.data file"));
  perf_data_free(&f);
  write_file(&d);
  assert_int_equal(truncate(path, 104 + 288 + 16 + 40), 0);
  assert_int_equal(perf_data_load(path, &f, why, sizeof(why)), -1);
  assert_non_null(strstr(why, "truncated"));
  perf_data_free(&f);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(header_layout_as_documented, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(attr_as_perf_record_sets_it, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(sample_record_fields_in_order, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(read_back, setup, teardown),
      cmocka_unit_test_setup_teardown(branch_stack_as_perf_lays_it_out, setup,
                                      teardown),
      cmocka_unit_test(one_event_sample_type),
      cmocka_unit_test_setup_teardown(bad_files_refused, setup, teardown),
  };

  return cmocka_run_group_tests(tests, NULL, NULL);
}

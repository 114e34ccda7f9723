/* SPDX-License-Identifier: MIT */
/* softpmu record's perf.data (perf/perf_data.h), checked byte by byte
 * against the layout perf.data-file-format.txt (Linux, tools/perf/
 * Documentation) and <linux/perf_event.h> give, then read back: the file
 * header and its sections, one attr per event, each record's fields, the
 * call chain in perf's convention, HEADER_EVENT_DESC's names; the other
 * header features perf record writes; perf's time order on reading. */
#define _POSIX_C_SOURCE 200809L

#include "helpers.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <unistd.h>

#include "perf_data.h"
#include "perf_env.h"

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

/* PERF_SAMPLE_REGS_INTR (<linux/perf_event.h>, PERF_RECORD_SAMPLE: "u64
 * abi; u64 regs[weight(mask)]", after the branch stack):
 * attr.sample_regs_intr at byte 96 of perf_event_attr; in each sample the
 * ABI (PERF_SAMPLE_REGS_ABI_64), then one value per bit of the mask,
 * lowest bit first; a sample with no registers known, ABI none alone. */
static void regs_intr_abi_then_mask_order(void **state)
{
  struct perf_data_desc d = two_events();
  /* AX, CX, FLAGS and R15 (perf's indices 0, 2, 9, 23). */
  const uint64_t mask = 1ULL << 0 | 1ULL << 2 | 1ULL << 9 | 1ULL << 23;
  uint64_t val[PERF_DATA_NREGS] = {0};
  struct perf_data_writer *w;
  struct perf_data_file f;
  struct perf_data_rec r;
  char why[256];
  size_t len, off, rec;
  unsigned char *b;
  unsigned i;

  (void)state;
  d.nev = 1;
  d.callchain = false;
  d.regs_intr = mask;
  for (i = 0; i < PERF_DATA_NREGS; i++)
    val[i] = 0x1000 + i;
  w = perf_data_open(path, &d, why, sizeof(why));
  assert_non_null(w);
  perf_data_set_regs(w, val);
  assert_int_equal(
      perf_data_sample(w, 0, 10, 10, 5, 0x40101e, 1009, NULL, 0, NULL), 0);
  assert_int_equal(
      perf_data_sample(w, 0, 10, 10, 6, 0x401021, 1009, NULL, 0, NULL), 0);
  assert_int_equal(perf_data_close(w, why, sizeof(why)), 0);
  b = slurp(&len);
  assert_int_equal(u64_at(b, 104 + 24),
                   PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                       PERF_SAMPLE_PERIOD | PERF_SAMPLE_REGS_INTR);
  assert_int_equal(u64_at(b, 104 + 96), mask); /* sample_regs_intr */
  /* header, attr + ids section, one id; the sample's header; ip, pid/tid,
   * time, period; then the ABI and AX, CX, FLAGS, R15. */
  rec = 104 + 144 + 8;
  off = rec + 8 + 4 * 8;
  assert_int_equal(u64_at(b, off), PERF_SAMPLE_REGS_ABI_64);
  assert_int_equal(u64_at(b, off + 8), 0x1000);
  assert_int_equal(u64_at(b, off + 16), 0x1002);
  assert_int_equal(u64_at(b, off + 24), 0x1009);
  assert_int_equal(u64_at(b, off + 32), 0x1017);
  assert_int_equal(b[rec + 6] | b[rec + 7] << 8, 8 + 4 * 8 + 5 * 8);
  /* The second sample: no registers set for it, ABI none, no values. */
  rec = off + 40;
  assert_int_equal(b[rec + 6] | b[rec + 7] << 8, 8 + 4 * 8 + 8);
  assert_int_equal(u64_at(b, rec + 8 + 4 * 8), PERF_SAMPLE_REGS_ABI_NONE);
  free(b);
  assert_int_equal(perf_data_load(path, &f, why, sizeof(why)), 0);
  assert_int_equal(perf_data_next(&f, &r, why, sizeof(why)), 1);
  assert_int_equal(r.regs_abi, PERF_SAMPLE_REGS_ABI_64);
  assert_int_equal(r.nregs, 4);
  assert_int_equal(perf_data_reg_at(&r, 2), 0x1009);
  assert_int_equal(perf_data_next(&f, &r, why, sizeof(why)), 1);
  assert_int_equal(r.regs_abi, PERF_SAMPLE_REGS_ABI_NONE);
  assert_int_equal(r.nregs, 0);
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

static uint32_t u32_at(const unsigned char *b, size_t off)
{
  uint32_t v;

  memcpy(&v, b + off, 4);
  return v;
}

/* A perf_header_string at off: u32 len (the string and its NUL rounded up
 * to 64), then the string NUL-padded to len. */
static void assert_header_string(const unsigned char *b, size_t off,
                                 const char *want)
{
  size_t i, n = strlen(want);

  assert_int_equal(u32_at(b, off), 64);
  assert_memory_equal(b + off + 4, want, n);
  for (i = n; i < 64; i++)
    assert_int_equal(b[off + 4 + i], 0);
}

/* The header features perf record writes (tools/perf/util/header.c's
 * layouts, in feature-bit order after the data): the table of (offset,
 * size); HEADER_BUILD_ID (2), one build_id_event: perf_event_header type
 * 0, misc PERF_RECORD_MISC_USER | the build-id-size flag (bit 15), size;
 * pid -1 (the host); the id in 20 bytes, its length, 3 zero bytes; the
 * path NUL-padded to 64. HOSTNAME (3), OSRELEASE (4), VERSION (5), ARCH
 * (6): perf_header_strings. NRCPUS (7): u32 available, u32 online.
 * CPUDESC (8), CPUID (9): strings. TOTAL_MEM (10): u64 kB. CMDLINE (11):
 * u32 nr, nr strings. EVENT_DESC (12) last. */
static void header_features_as_perf_writes_them(void **state)
{
  static const char *const argv[] = {"/usr/bin/softpmu", "record", "-g",
                                     "./prog"};
  const struct perf_data_env env = {.hostname = "host",
                                    .osrelease = "6.1.0-13-amd64",
                                    .version = "softpmu 0.1.0",
                                    .arch = "x86_64",
                                    .nr_cpus_avail = 4,
                                    .nr_cpus_online = 2,
                                    .cpudesc = "skylake (modelled by softpmu)",
                                    .cpuid = "GenuineIntel,6,85,4",
                                    .total_mem = 16384,
                                    .ncmdline = 4,
                                    .cmdline = argv};
  /* BUILD_ID, 4 strings, NRCPUS, 2 strings, TOTAL_MEM, CMDLINE,
   * EVENT_DESC (8 + attr 128 + nr_ids 4 + "instructions" 4 + 64 + id). */
  const uint64_t size[11] = {36 + 64, 68, 68, 68,         68, 8,
                             68,      68, 8,  4 + 4 * 68, 216};
  struct perf_data_desc d = two_events();
  unsigned char id[20], *b;
  struct perf_data_writer *w;
  char why[256];
  size_t len, off, table, i;

  (void)state;
  d.nev = 1;
  d.callchain = false;
  for (i = 0; i < sizeof(id); i++)
    id[i] = (unsigned char)(i + 1);
  w = perf_data_open(path, &d, why, sizeof(why));
  assert_non_null(w);
  perf_data_set_env(w, &env);
  assert_int_equal(perf_data_build_id(w, "/bin/prog", id, sizeof(id)), 0);
  assert_int_equal(perf_data_close(w, why, sizeof(why)), 0);
  b = slurp(&len);
  assert_int_equal(u64_at(b, 72), 0x1ffc); /* bits 2 to 12 */
  /* The header, one attr and its ids section, its id; no records. */
  table = u64_at(b, 40) + u64_at(b, 48);
  assert_int_equal(table, 104 + 144 + 8);
  off = table + 11 * 16;
  for (i = 0; i < 11; i++) {
    assert_int_equal(u64_at(b, table + 16 * i), off);
    assert_int_equal(u64_at(b, table + 16 * i + 8), size[i]);
    off += size[i];
  }
  assert_int_equal(off, len);
  off = table + 11 * 16;
  assert_int_equal(u32_at(b, off), 0); /* type */
  assert_int_equal(u32_at(b, off + 4),
                   2 | 1u << 15 | 100u << 16);       /* misc, size */
  assert_int_equal(u32_at(b, off + 8), 0xffffffffu); /* pid -1 */
  assert_memory_equal(b + off + 12, id, 20);
  assert_int_equal(b[off + 32], 20);
  assert_int_equal(b[off + 33] | b[off + 34] | b[off + 35], 0);
  assert_string_equal((const char *)b + off + 36, "/bin/prog");
  for (i = strlen("/bin/prog"); i < 64; i++)
    assert_int_equal(b[off + 36 + i], 0);
  off += size[0];
  assert_header_string(b, off, "host");
  assert_header_string(b, off += 68, "6.1.0-13-amd64");
  assert_header_string(b, off += 68, "softpmu 0.1.0");
  assert_header_string(b, off += 68, "x86_64");
  off += 68;
  assert_int_equal(u32_at(b, off), 4);
  assert_int_equal(u32_at(b, off + 4), 2);
  assert_header_string(b, off += 8, "skylake (modelled by softpmu)");
  assert_header_string(b, off += 68, "GenuineIntel,6,85,4");
  off += 68;
  assert_int_equal(u64_at(b, off), 16384);
  off += 8;
  assert_int_equal(u32_at(b, off), 4);
  for (i = 0; i < 4; i++)
    assert_header_string(b, off + 4 + 68 * i, argv[i]);
  off += size[9];
  assert_int_equal(u32_at(b, off), 1); /* EVENT_DESC: one event */
  assert_int_equal(u32_at(b, off + 4), 128);
  free(b);
}

/* A record into buf at *n: header, then body (len bytes). */
static void put_rec(unsigned char *buf, size_t *n, uint32_t type,
                    const void *body, size_t len)
{
  struct perf_event_header h = {type, 0, (uint16_t)(8 + len)};

  memcpy(buf + *n, &h, 8);
  if (len) /* a record may have no body (FINISHED_ROUND) */
    memcpy(buf + *n + 8, body, len);
  *n += 8 + len;
}

/* perf_data_sort, as perf delivers records (perf.data-file-format.txt,
 * "Ordering"): with sample_id_all a COMM's or LOST's time is its
 * sample_id's (pid/tid, then time, after its own fields); timed records
 * are held and delivered sorted at each FINISHED_ROUND (68) and at the
 * end; one without a time (perf's own types, 64 up) as it comes. */
static void sorted_by_time_per_round(void **state)
{
  const uint64_t pidtid = 1 | 1ULL << 32;
  const uint64_t comm_a[4] = {pidtid, 'a', pidtid, 45},
                 comm_b[4] = {pidtid, 'b', pidtid, 35};
  const uint64_t s50[4] = {0x1000, pidtid, 50, 7},
                 s40[4] = {0x1001, pidtid, 40, 7},
                 s30[4] = {0x1002, pidtid, 30, 7};
  const uint64_t lost[4] = {9, 2, pidtid, 1}, untimed = 0;
  /* Round 1 sorted; then the untimed record, round 2 sorted. */
  const uint32_t want_type[7] = {
      PERF_RECORD_SAMPLE, PERF_RECORD_COMM,   PERF_RECORD_SAMPLE, 70,
      PERF_RECORD_LOST,   PERF_RECORD_SAMPLE, PERF_RECORD_COMM};
  const uint64_t want_ip[7] = {0x1001, 0, 0x1000, 0, 0, 0x1002, 0};
  const char *want_comm[7] = {NULL, "a", NULL, NULL, NULL, NULL, "b"};
  unsigned char *buf = calloc(1, 1024);
  struct perf_data_file f;
  struct perf_data_rec r;
  char why[256];
  size_t n = 0;
  unsigned i;

  (void)state;
  assert_non_null(buf);
  put_rec(buf, &n, PERF_RECORD_COMM, comm_a, sizeof(comm_a));
  put_rec(buf, &n, PERF_RECORD_SAMPLE, s50, sizeof(s50));
  put_rec(buf, &n, PERF_RECORD_SAMPLE, s40, sizeof(s40));
  put_rec(buf, &n, 68, NULL, 0);
  put_rec(buf, &n, PERF_RECORD_COMM, comm_b, sizeof(comm_b));
  put_rec(buf, &n, PERF_RECORD_SAMPLE, s30, sizeof(s30));
  put_rec(buf, &n, PERF_RECORD_LOST, lost, sizeof(lost));
  put_rec(buf, &n, 70, &untimed, sizeof(untimed));
  memset(&f, 0, sizeof(f));
  f.buf = buf;
  f.len = f.data_end = n;
  f.nev = 1;
  f.ev[0].attr.sample_type =
      PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
  f.ev[0].attr.flags = PERF_DATA_ATTR_SAMPLE_ID_ALL;
  assert_int_equal(perf_data_sort(&f, why, sizeof(why)), 0);
  for (i = 0; i < 7; i++) {
    assert_int_equal(perf_data_next(&f, &r, why, sizeof(why)), 1);
    assert_int_equal(r.type, want_type[i]);
    if (want_ip[i])
      assert_int_equal(r.ip, want_ip[i]);
    if (want_comm[i])
      assert_string_equal(r.str, want_comm[i]);
  }
  assert_int_equal(perf_data_next(&f, &r, why, sizeof(why)), 0);
  perf_data_free(&f);
}

/* softpmu record's own files (no sample_id_all): every record but the
 * samples as it comes, then the samples by time. */
static void own_files_samples_last_by_time(void **state)
{
  struct perf_data_desc d = two_events();
  const uint32_t want[8] = {PERF_RECORD_COMM,   PERF_RECORD_MMAP,
                            PERF_RECORD_FORK,   PERF_RECORD_LOST_SAMPLES,
                            PERF_RECORD_EXIT,   PERF_RECORD_SAMPLE,
                            PERF_RECORD_SAMPLE, PERF_RECORD_SAMPLE};
  const uint64_t times[3] = {9, 3, 5}, want_time[3] = {3, 5, 9};
  struct perf_data_writer *w;
  struct perf_data_file f;
  struct perf_data_rec r;
  char why[256];
  unsigned i;

  (void)state;
  w = perf_data_open(path, &d, why, sizeof(why));
  assert_non_null(w);
  assert_int_equal(perf_data_comm(w, 10, 10, "prog"), 0);
  assert_int_equal(
      perf_data_sample(w, 0, 10, 10, times[0], 0x401000, 1009, NULL, 0, NULL),
      0);
  assert_int_equal(
      perf_data_mmap(w, 10, 10, 0x401000, 0x1000, 0x1000, "/bin/prog"), 0);
  assert_int_equal(perf_data_task(w, false, 10, 10, 11, 10, 5), 0);
  assert_int_equal(
      perf_data_sample(w, 0, 10, 11, times[1], 0x401001, 1009, NULL, 0, NULL),
      0);
  assert_int_equal(perf_data_lost(w, 3), 0);
  assert_int_equal(
      perf_data_sample(w, 1, 10, 10, times[2], 0x401002, 1009, NULL, 0, NULL),
      0);
  assert_int_equal(perf_data_task(w, true, 10, 10, 11, 10, 900), 0);
  assert_int_equal(perf_data_close(w, why, sizeof(why)), 0);
  assert_int_equal(perf_data_load(path, &f, why, sizeof(why)), 0);
  assert_int_equal(perf_data_sort(&f, why, sizeof(why)), 0);
  for (i = 0; i < 8; i++) {
    assert_int_equal(perf_data_next(&f, &r, why, sizeof(why)), 1);
    assert_int_equal(r.type, want[i]);
    if (i >= 5)
      assert_int_equal(r.time, want_time[i - 5]);
  }
  assert_int_equal(perf_data_next(&f, &r, why, sizeof(why)), 0);
  perf_data_free(&f);
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

/* HEADER_CPUID, perf's x86 form "GenuineIntel,FAMILY,MODEL,STEPPING", from
 * the modelled part's CPUID.01H:EAX (SDM Vol. 2A, CPUID, "Version
 * Information"): the extended model above the model for families 06H and
 * 0FH, the extended family added for family 0FH. */
static void cpuid_header_of_the_modelled_part(void **state)
{
  static const struct {
    const char *profile, *want;
  } cases[] = {
      {"skylake", "GenuineIntel,6,94,3"},
      {"sapphirerapids", "GenuineIntel,6,143,8"},
      {"core2", "GenuineIntel,6,15,6"},
      {"pentium4", "GenuineIntel,15,2,9"},
  };
  spmu_profile p;
  char why[256], buf[64];
  size_t i;

  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    assert_int_equal(spmu_profile_parse(cases[i].profile, &p, why, sizeof why),
                     SPMU_OK);
    perf_env_cpuid(&p, buf, sizeof buf);
    assert_string_equal(buf, cases[i].want);
  }
}

/* perf's leader sampling ({instructions,branches}:S, as perf record
 * writes it): both attrs with PERF_SAMPLE_READ and read_format ID |
 * GROUP, the member without a period; the leader's sample carries nr,
 * then value and id of each event after its period
 * (<linux/perf_event.h>); HEADER_GROUP_DESC (17) names the group:
 * "{anon_group}", leader 0, 2 events. softpmu's reader steps over READ. */
static void leader_sampled_group(void **state)
{
  struct perf_data_desc d = two_events();
  const uint64_t values[2] = {1009, 873};
  const uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
                      PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
                      PERF_SAMPLE_READ;
  struct perf_data_writer *w;
  struct perf_data_file f;
  struct perf_data_rec r;
  char why[256];
  size_t len, off, feat;
  unsigned char *b;

  (void)state;
  d.callchain = false;
  d.ev[0].precise = d.ev[1].precise = false;
  d.ev[0].group = d.ev[1].group = 1;
  d.ev[0].sample_read = d.ev[1].sample_read = true;
  w = perf_data_open(path, &d, why, sizeof(why));
  assert_non_null(w);
  perf_data_set_read(w, values, 2);
  assert_int_equal(
      perf_data_sample(w, 0, 10, 10, 5, 0x40101e, 1009, NULL, 0, NULL), 0);
  assert_int_equal(perf_data_close(w, why, sizeof(why)), 0);
  b = slurp(&len);
  assert_int_equal(u64_at(b, 104 + 24), st);
  assert_int_equal(u64_at(b, 104 + 32), PERF_FORMAT_ID | PERF_FORMAT_GROUP);
  assert_int_equal(u64_at(b, 104 + 144 + 16), 0); /* the member's period */
  assert_int_equal(u64_at(b, 104 + 144 + 24), st);
  assert_int_equal(u64_at(b, 72), 1ULL << 12 | 1ULL << 17); /* features */
  /* header, 2 attrs + ids, 2 ids; the sample's header; id, ip, pid/tid,
   * time, period; then READ. */
  off = 104 + 2 * 144 + 16 + 8 + 5 * 8;
  assert_int_equal(u64_at(b, off), 2);
  assert_int_equal(u64_at(b, off + 8), 1009);
  assert_int_equal(u64_at(b, off + 16), 1);
  assert_int_equal(u64_at(b, off + 24), 873);
  assert_int_equal(u64_at(b, off + 32), 2);
  /* The feature table after the data: EVENT_DESC's section, then
   * GROUP_DESC's. */
  feat = u64_at(b, 40) + u64_at(b, 48);
  off = u64_at(b, feat + 16);
  assert_int_equal(u64_at(b, feat + 24), 4 + 68 + 8);
  assert_int_equal(u32_at(b, off), 1);
  assert_header_string(b, off + 4, "{anon_group}");
  assert_int_equal(u32_at(b, off + 72), 0);
  assert_int_equal(u32_at(b, off + 76), 2);
  free(b);
  assert_int_equal(perf_data_load(path, &f, why, sizeof(why)), 0);
  assert_int_equal(perf_data_next(&f, &r, why, sizeof(why)), 1);
  assert_int_equal(r.type, PERF_RECORD_SAMPLE);
  assert_int_equal(r.ev, 0);
  assert_int_equal(r.ip, 0x40101e);
  assert_int_equal(r.period, 1009);
  perf_data_free(&f);
}

/* perf's tools take a hardware event with config bit 2 (branches,
 * branch-misses, bus-cycles) at period 1 for BTS (is_bts_event) and print no
 * branch stack for it: with branch stacks it is written raw, at another period
 * as perf writes it. */
static void bts_lookalike_written_raw(void **state)
{
  struct perf_data_desc d = two_events();
  struct perf_data_writer *w;
  char why[256];
  size_t len;
  unsigned char *b;
  uint64_t period;

  (void)state;
  d.nev = 1;
  d.callchain = false;
  d.ev[0].precise = false;
  d.ev[0].config = PERF_COUNT_HW_BRANCH_MISSES;
  d.ev[0].raw_config = 0xc5;
  d.branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
  for (period = 1; period <= 2; period++) {
    d.period = period;
    w = perf_data_open(path, &d, why, sizeof(why));
    assert_non_null(w);
    assert_int_equal(perf_data_close(w, why, sizeof(why)), 0);
    b = slurp(&len);
    assert_int_equal(u32_at(b, 104),
                     period == 1 ? PERF_TYPE_RAW : PERF_TYPE_HARDWARE);
    assert_int_equal(u64_at(b, 104 + 8),
                     period == 1 ? 0xc5 : PERF_COUNT_HW_BRANCH_MISSES);
    free(b);
  }
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
      cmocka_unit_test_setup_teardown(regs_intr_abi_then_mask_order, setup,
                                      teardown),
      cmocka_unit_test(one_event_sample_type),
      cmocka_unit_test_setup_teardown(header_features_as_perf_writes_them,
                                      setup, teardown),
      cmocka_unit_test(sorted_by_time_per_round),
      cmocka_unit_test_setup_teardown(own_files_samples_last_by_time, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(bad_files_refused, setup, teardown),
      cmocka_unit_test(cpuid_header_of_the_modelled_part),
      cmocka_unit_test_setup_teardown(leader_sampled_group, setup, teardown),
      cmocka_unit_test_setup_teardown(bts_lookalike_written_raw, setup,
                                      teardown),
  };

  return cmocka_run_group_tests(tests, NULL, NULL);
}

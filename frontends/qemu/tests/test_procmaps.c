/* SPDX-License-Identifier: GPL-2.0-or-later */
/* procmaps.c's text against QEMU 7.2's open_self_maps (linux-user/
 * syscall.c), rule by rule, from made-up host and QEMU 10 texts: each host
 * mapping whose pages are all the guest's, with its first page's flags;
 * "[stack]" at the stack's lowest page; the path padded to column 73
 * (printf's "%*s" with 73 less the characters printed, a negative width
 * padding on the left side); the vsyscall line last; the plugin's
 * reservations and QEMU 10's vDSO (withheld) left out. And which paths
 * 7.2 fakes (is_proc_myself). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "procmaps.h" /* frontends/qemu/ */

/* The guest's memory: not read by these tests. */
bool spmu_qemu_guest_read(const struct spmu_qemu_guest_mem *m, uint64_t addr,
                          void *buf, size_t n)
{
  (void)m, (void)addr, (void)buf, (void)n;
  return false;
}

#define BASE UINT64_C(0x2a6c00000000)
#define VSYSCALL                                                               \
  "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  "  \
  "[vsyscall]\n"

static void check(const char *host, const char *qemu10, const char *want)
{
  size_t n = 0;
  char *got = spmu_qemu_procmaps_text(host, qemu10, BASE, &n);

  assert_non_null(got);
  assert_string_equal(got, want);
  assert_int_equal(n, strlen(want));
  free(got);
}

/* A program's r--, r-x and r-- pages in one host mapping (QEMU maps
 * executable pages readable, not executable, on the host): one line, the
 * first page's flags; QEMU's own mappings (not guest pages) and the
 * vDSO's page, withheld, left out; the stack named at its lowest page;
 * an anonymous mapping (the host's sixth field empty) padded all the
 * same. */
static void test_first_page_flags(void **state)
{
  const char *host =
      "2aabffffe000-2aabfffff000 r--p 00000000 00:00 0 \n"
      "2aac00000000-2aac00003000 r--p 00000000 fe:00 42                     "
      "    /tmp/prog\n"
      "2aac00004000-2aac00005000 rw-p 00003000 fe:00 42                     "
      "    /tmp/prog\n"
      "2aac00005000-2aac00006000 ---p 00000000 00:00 0 \n"
      "2aac00006000-2aac00008000 rw-p 00000000 00:00 0 \n"
      "555555554000-555555590000 r--p 00000000 fe:00 7 /usr/bin/qemu\n";
  const char *qemu10 =
      "3fffffe000-3ffffff000 r-xp 00000000 00:00 0                     "
      "         [vdso]\n"
      "4000000000-4000001000 r--p 00000000 fe:00 42    /tmp/prog\n"
      "4000001000-4000002000 r-xp 00001000 fe:00 42    /tmp/prog\n"
      "4000002000-4000003000 r--p 00002000 fe:00 42    /tmp/prog\n"
      "4000004000-4000005000 rw-p 00003000 fe:00 42    /tmp/prog\n"
      "4000005000-4000006000 ---p 00000000 00:00 0\n"
      "4000006000-4000008000 rw-p 00000000 00:00 0     [stack]\n" VSYSCALL;

  (void)state;
  check(host, qemu10,
        "4000000000-4000003000 r--p 00000000 fe:00 42                        "
        "     /tmp/prog\n"
        "4000004000-4000005000 rw-p 00003000 fe:00 42                        "
        "     /tmp/prog\n"
        "4000005000-4000006000 ---p 00000000 00:00 0                         "
        "     \n"
        "4000006000-4000008000 rw-p 00000000 00:00 0                         "
        "     [stack]\n" VSYSCALL);
}

/* A guest's PROT_NONE page that the host merged with the plugin's
 * reservations on both sides (same flags): the guest's page alone, as
 * 7.2's host maps it; a mapping of the plugin's alone: nothing. */
static void test_reservations_left_out(void **state)
{
  const char *host = "2aac00010000-2aac00014000 ---p 00000000 00:00 0 \n"
                     "2aac00020000-2aac00030000 ---p 00000000 00:00 0 \n";
  const char *qemu10 = "4000011000-4000012000 ---p 00000000 00:00 0\n";

  (void)state;
  check(host, qemu10,
        "4000011000-4000012000 ---p 00000000 00:00 0                         "
        "     \n" VSYSCALL);
}

/* page_check_range: a readable first page, a later page not readable:
 * not listed; a first page writable now, a later one not writable: not
 * listed; the same with the first page write-protected (its translated
 * code: the host's r--, PAGE_WRITE clear): listed, with w (PAGE_WRITE_ORG). */
static void test_page_check(void **state)
{
  const char *qemu10 = "4000000000-4000001000 r--p 00000000 00:00 0\n"
                       "4000001000-4000002000 ---p 00000000 00:00 0\n"
                       "4000010000-4000011000 rw-p 00000000 00:00 0\n"
                       "4000011000-4000012000 r--p 00000000 00:00 0\n";

  (void)state;
  check("2aac00000000-2aac00002000 r--p 00000000 00:00 0 \n", qemu10, VSYSCALL);
  check("2aac00010000-2aac00012000 rw-p 00000000 00:00 0 \n", qemu10, VSYSCALL);
  check("2aac00010000-2aac00012000 r--p 00000000 00:00 0 \n", qemu10,
        "4000010000-4000012000 rw-p 00000000 00:00 0                         "
        "     \n" VSYSCALL);
}

/* The host's line split at its first five spaces (read_self_maps): no
 * sixth field, no path and no padding; the path's leading blanks removed
 * and the rest kept (spaces included); a part of a file mapping at its own
 * offset; a line longer than 73 characters before the path: padded by its
 * excess (printf's negative width). */
static void test_fields_and_padding(void **state)
{
  const char *qemu10 = "4000000000-4000001000 rw-p 00000000 00:00 0\n"
                       "4000002000-4000003000 r--p 00000000 00:00 0\n"
                       "4000004000-4000005000 r--p 00000000 00:00 0\n";

  (void)state;
  check(
      "2aac00000000-2aac00001000 rw-p 00000000 00:00 0\n"
      "2aac00001000-2aac00005000 r--p 00010000 fe:00 7       /a b (deleted)\n",
      qemu10,
      "4000000000-4000001000 rw-p 00000000 00:00 0\n"
      "4000002000-4000003000 r--p 00011000 fe:00 7                         "
      "     /a b (deleted)\n"
      "4000004000-4000005000 r--p 00013000 fe:00 7                         "
      "     /a b (deleted)\n" VSYSCALL);
  check("2aac00000000-2aac00001000 rw-p 00000000 1234567890abc:345678 "
        "1234567890123456789 /x\n",
        qemu10,
        "4000000000-4000001000 rw-p 00000000 1234567890abc:345678 "
        "1234567890123456789   /x\n" VSYSCALL);
}

/* Which paths 7.2 fakes: /proc/self/maps and /proc/PID/maps of itself,
 * as written (no other spelling, not smaps, not thread-self). */
static void test_is_self(void **state)
{
  (void)state;
  assert_true(spmu_qemu_procmaps_is_self("/proc/self/maps", 123));
  assert_true(spmu_qemu_procmaps_is_self("/proc/123/maps", 123));
  assert_false(spmu_qemu_procmaps_is_self("/proc/123/maps", 1234));
  assert_false(spmu_qemu_procmaps_is_self("/proc/1234/maps", 123));
  assert_false(spmu_qemu_procmaps_is_self("/proc/0123/maps", 123));
  assert_false(spmu_qemu_procmaps_is_self("/proc/self/smaps", 123));
  assert_false(spmu_qemu_procmaps_is_self("/proc/thread-self/maps", 123));
  assert_false(spmu_qemu_procmaps_is_self("/proc//self/maps", 123));
  assert_false(spmu_qemu_procmaps_is_self("proc/self/maps", 123));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_first_page_flags),
      cmocka_unit_test(test_reservations_left_out),
      cmocka_unit_test(test_page_check),
      cmocka_unit_test(test_fields_and_padding),
      cmocka_unit_test(test_is_self),
  };

  return cmocka_run_group_tests(tests, NULL, NULL);
}

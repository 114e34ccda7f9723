/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A dynamic libc program that reads its /proc/self/maps (test_qemu10.sh):
 * through fopen (openat) and through open, as /proc/self/maps and as
 * /proc/PID/maps, after an unmapped range and a PROT_NONE page mapped
 * back into it (MAP_NORESERVE, the flags of the plugin's reservations
 * under QEMU 10, with which the host kernel merges it), then asks glibc
 * for its stack (pthread_getattr_np, which reads the file too) and prints
 * the stack's lowest address. QEMU 7.2 and QEMU 10 with the plugin
 * (frontends/qemu/procmaps.c) give it the same text and the same counts.
 * The stack's size glibc computes is one page less under QEMU 10, whose
 * stack pointer starts one page below 7.2's (README.md, "QEMU
 * versions"): not printed. */
#define _GNU_SOURCE /* pthread_getattr_np */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The file at path, printed, opened by fopen or by the open call. */
static void print_file(const char *path, int by_open)
{
  char buf[4096];
  long n;
  int fd = by_open ? (int)syscall(SYS_open, path, O_RDONLY)
                   : (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);

  printf("== %s\n", by_open ? "open" : "openat");
  if (fd < 0) {
    printf("cannot open %s\n", path);
    return;
  }
  while ((n = read(fd, buf, sizeof(buf))) > 0)
    fwrite(buf, 1, (size_t)n, stdout);
  close(fd);
}

int main(void)
{
  char path[64];
  pthread_attr_t a;
  void *stack = NULL;
  size_t size = 0;
  long page = sysconf(_SC_PAGESIZE);
  char *m = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

  if (m == MAP_FAILED || munmap(m, 3 * page) != 0 ||
      mmap(m + page, page, PROT_NONE,
           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1,
           0) == MAP_FAILED)
    return 1;
  print_file("/proc/self/maps", 0);
  snprintf(path, sizeof(path), "/proc/%ld/maps", (long)getpid());
  print_file(path, 1);
  if (pthread_getattr_np(pthread_self(), &a) != 0 ||
      pthread_attr_getstack(&a, &stack, &size) != 0)
    return 1;
  printf("stack=%p\n", stack);
  pthread_attr_destroy(&a);
  return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A libc program whose path depends on where QEMU puts the stack and the
 * heap (test_qemu10.sh): strlen of a local array (glibc's vector strlen
 * checks how far its address is from a page's end, so the path follows
 * the stack pointer's start), copies from the stack to the heap and back
 * (memmove picks its direction by comparing the two addresses), and
 * prints the addresses it saw: the heap's and a large block's (mmap)
 * exactly, the stack's page offset. Under QEMU 10 the plugin gives it
 * QEMU 7.2's addresses and a stack pointer one page below 7.2's
 * (frontends/qemu/layout.c, auxv.c): the same counts and output. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t copy_and_measure(char *heap, size_t n, uintptr_t *where)
{
  char local[1000];
  size_t i, total = 0, len;

  *where = (uintptr_t)local;
  for (i = 0; i < n; i++) {
    len = sizeof(local) - 1 - i % 61;
    memset(local, 'a' + (int)(i % 26), len);
    local[len] = '\0';
    total += strlen(local + i % 7);
    memcpy(heap + i % 128, local, 512);
    memmove(local + 1, heap + i % 64, 300);
  }
  return total;
}

int main(void)
{
  char *heap = malloc(4096), *big = malloc(1 << 20);
  uintptr_t local, h = (uintptr_t)heap, b = (uintptr_t)big;
  size_t total;

  if (!heap || !big)
    return 1;
  total = copy_and_measure(heap, 300, &local);
  printf("total=%zu local%%4096=%lu heap=%#lx big=%#lx heap<local=%d "
         "big<local=%d\n",
         total, (unsigned long)(local % 4096), (unsigned long)h,
         (unsigned long)b, h < local, b < local);
  free(big);
  free(heap);
  return 0;
}

/* SPDX-License-Identifier: MIT */
/* A walk of N = 4096 new cache lines, one load per 64-byte line, each
 * line touched once: 2 + 4N + 3 instructions. The model's caches are
 * indexed by linear address, so each load misses every level (the line
 * was never referenced at this address; the kernel zeroes the page
 * through its own mapping): at least N LLC misses. */
#define N 4096
        .globl _start
        .text
_start:
        lea     buf(%rip), %rsi
        mov     $N, %ecx
walk:
        mov     (%rsi), %rax
        add     $64, %rsi
        dec     %ecx
        jnz     walk
        mov     $60, %eax
        xor     %edi, %edi
        syscall

        .bss
        .balign 64
buf:    .zero   N * 64

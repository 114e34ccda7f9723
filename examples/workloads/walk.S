/* SPDX-License-Identifier: MIT */
/* A walk of N cache lines, one load per 64-byte line, each line touched
 * once: 2 + 4N + 3 instructions; N first-time loads, each of which misses
 * every cache level of any model (the line was never referenced), so the
 * modelled L1D replacements and last-level misses are at least N. */
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

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* P passes over NL cache lines of 64 bytes, one 8-byte load per line
 * (stride 64), in a zero-filled buffer aligned to a line: every load is
 * in a line of its own, so a cache of fewer lines than NL misses every
 * load of every pass (true LRU, sequential walk), and one of more lines
 * misses each line once. The loop's text is between _start and text_end.
 * No stack is touched. */
        .globl _start
        .text
_start:
        mov     $P, %r9d
pass:
        lea     buf(%rip), %rsi
        mov     $NL, %ecx
miss:   mov     (%rsi), %rax          /* the load of each line */
        add     $64, %rsi
        dec     %ecx
        jnz     miss
        dec     %r9d
        jnz     pass
        mov     $60, %eax
        xor     %edi, %edi
        syscall
text_end:

        .bss
        .balign 64
buf:    .skip   NL * 64

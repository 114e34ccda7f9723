/* SPDX-License-Identifier: GPL-2.0-or-later */
/* N iterations of 9 instructions, two of them REP string instructions of
 * L repeats each: REP STOSB (one store) and REP MOVSB (one load, one
 * store). Hardware retires each as one instruction (SDM Vol. 2B, REP). */
        .globl _start
        .text
_start:
        mov     $N, %r8d
loop:
        lea     dst(%rip), %rdi
        mov     $L, %ecx
        rep stosb
        lea     src(%rip), %rsi
        lea     dst(%rip), %rdi
        mov     $L, %ecx
        rep movsb
        dec     %r8d
        jnz     loop
        mov     $60, %eax
        xor     %edi, %edi
        syscall

        .bss
src:    .skip   L
dst:    .skip   L

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A loop of 4 instructions whose second (MOV imm32, 5 bytes) starts 2
 * bytes before a page end, so that it crosses into the next page; N
 * iterations, entered by a JMP. */
        .globl _start
        .text
_start:
        mov     $N, %ecx
        jmp     loop
        .balign 4096
        .skip   4096 - 6
loop:
        add     $1, %rdx               /* 4 bytes: page end - 6 .. - 3 */
        mov     $0x12345678, %eax      /* 5 bytes: page end - 2 .. + 2 */
        dec     %ecx
        jnz     loop
        mov     $60, %eax
        xor     %edi, %edi
        syscall

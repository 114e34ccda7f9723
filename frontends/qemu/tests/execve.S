/* SPDX-License-Identifier: GPL-2.0-or-later */
/* N iterations of a 2-instruction loop, then execve(PATH, {PATH, NULL},
 * {NULL}): the program executed is not counted; everything up to the
 * execve instruction is. */
        .globl _start
        .text
_start:
        mov     $N, %ecx
1:      dec     %ecx
        jnz     1b
        lea     path(%rip), %rdi
        lea     argv(%rip), %rsi
        lea     envp(%rip), %rdx
        mov     $59, %eax              /* execve */
        syscall
        mov     $60, %eax              /* reached only if execve failed */
        mov     $99, %edi
        syscall

        .data
path:   .asciz  PATH
        .balign 8
argv:   .quad   path, 0
envp:   .quad   0

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* N iterations of a 2-instruction loop, then execve(PATH, {PATH, NULL},
 * {NULL}): everything up to the execve instruction is counted, and the
 * program executed is counted by its own (the plugin follows the execve).
 * Should the execve fail, the program exits with its errno (ENOENT: 2). */
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
        mov     %eax, %edi             /* reached only if execve failed: */
        neg     %edi                   /* exit(-rax), the errno */
        mov     $60, %eax
        syscall

        .data
path:   .asciz  PATH
        .balign 8
argv:   .quad   path, 0
envp:   .quad   0

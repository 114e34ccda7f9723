/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One conditional branch: a loop of N iterations (DEC, JNZ), taken N - 1
 * times, then not taken; then the exit system call. */
        .globl _start
        .text
_start:
        mov     $N, %ecx
back:   dec     %ecx
        jnz     back
        mov     $60, %eax
        xor     %edi, %edi
        syscall

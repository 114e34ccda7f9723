/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fork(); the parent runs P iterations of a 2-instruction loop and waits
 * for the child, the child runs C iterations; both exit(0). */
        .globl _start
        .text
_start:
        mov     $57, %eax              /* fork */
        syscall
        test    %eax, %eax
        jz      child
        mov     $P, %ecx
1:      dec     %ecx
        jnz     1b
        mov     $61, %eax              /* wait4(-1, NULL, 0, NULL) */
        mov     $-1, %rdi
        xor     %esi, %esi
        xor     %edx, %edx
        xor     %r10d, %r10d
        syscall
        mov     $60, %eax
        xor     %edi, %edi
        syscall
child:
        mov     $C, %ecx
2:      dec     %ecx
        jnz     2b
        mov     $60, %eax
        mov     $0, %edi
        syscall

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The load at `miss` misses: P passes over NL lines 64 bytes apart (more
 * lines than any L1D of the models), and the load at `hit` reads the same
 * line right after it, which hits. No stack is touched. */
        .globl _start
        .text
_start:
        mov     $P, %r9d
pass:
        lea     buf(%rip), %rsi
        mov     $NL, %ecx
miss:   mov     (%rsi), %rax
hit:    mov     8(%rsi), %rdx
        add     $64, %rsi
        dec     %ecx
        jnz     miss
        dec     %r9d
        jnz     pass
        mov     $60, %eax
        xor     %edi, %edi
        syscall

        .bss
        .balign 64
buf:    .skip   NL * 64

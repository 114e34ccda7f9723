/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every kind of near branch in a loop, for branch stacks (the LBRs'
 * types, SDM Vol. 3B 17.7.2 Table 17-11). Instructions retired, in order:
 *   1 LEA, 2 LEA, 3 MOV, then N iterations of 8:
 *     1 CALL f (near relative call)    5 JMP *%rdx (near indirect jump)
 *     2 RET in f (near return)         6 JMP k (near relative jump)
 *     3 CALL *%rbx (near indirect call)7 DEC
 *     4 RET in g                       8 JNZ loop (conditional; taken
 *                                        but in the last iteration)
 *   then MOV, XOR, SYSCALL: 3 + 8 N + 3 in all. */
        .globl _start, loop, f, g, r1, r2, j, k, jnz
        .text
_start:
        lea     g(%rip), %rbx
        lea     j(%rip), %rdx
        mov     $N, %ecx
loop:
        call    f
r1:
        call    *%rbx
r2:
        jmp     *%rdx
j:
        jmp     k
        nop
k:
        dec     %ecx
jnz:
        jnz     loop
        mov     $60, %eax
        xor     %edi, %edi
        syscall
f:
        ret
g:
        ret

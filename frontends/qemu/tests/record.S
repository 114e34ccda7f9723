/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A call chain around a loop, for record mode: _start calls outer, outer
 * calls inner, inner runs N iterations of 10 instructions (8 one-byte
 * NOPs, DEC, JNZ). Instructions retired, in order:
 *   1 CALL outer, 2 CALL inner, 3 MOV, then the loop (instruction j of an
 *   iteration at loop + j for j < 8, DEC at loop + 8, JNZ at loop + 10),
 *   then RET, RET, MOV, XOR, SYSCALL: 3 + 10 N + 5 in all.
 * Branches retired: CALL, CALL, N x JNZ, RET, RET, SYSCALL. */
        .globl _start
        .text
_start:
        call    outer
after_outer:
        mov     $60, %eax
        xor     %edi, %edi
        syscall
outer:
        call    inner
after_inner:
        ret
inner:
        mov     $N, %ecx
loop:
        nop
        nop
        nop
        nop
        nop
        nop
        nop
        nop
        dec     %ecx
        jnz     loop
        ret

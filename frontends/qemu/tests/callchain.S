/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A chain of functions, typed and sized so that perf names every address
 * by its function: _start calls a, a calls b, b calls c, c runs N
 * iterations of 10 instructions (8 NOPs, DEC, JNZ). Instructions
 * retired, in order: 1 CALL a, 2 CALL b, 3 CALL c, 4 MOV, the loop
 * (5 to 4 + 10 N), RET, RET, RET, MOV, XOR, SYSCALL: 4 + 10 N + 6. */
        .text
        .globl  _start
        .type   _start, @function
_start:
        call    a
        mov     $60, %eax
        xor     %edi, %edi
        syscall
        .size   _start, . - _start

        .type   a, @function
a:
        call    b
        ret
        .size   a, . - a

        .type   b, @function
b:
        call    c
        ret
        .size   b, . - b

        .type   c, @function
c:
        mov     $N, %ecx
.Lloop:
        nop
        nop
        nop
        nop
        nop
        nop
        nop
        nop
        dec     %ecx
        jnz     .Lloop
        ret
        .size   c, . - c

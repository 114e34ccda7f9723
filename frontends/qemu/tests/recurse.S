/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Recursion D calls deep, for the LBR call-stack mode past the stack's
 * depth. Instructions retired, in order: MOV, CALL r (at sc), then each
 * level L = 1..D of r: DEC, JZ (taken at L = D), CALL r (at rc; L < D),
 * and on the way back, at every level from D up: MOV, N x (DEC, JNZ),
 * RET; then MOV, XOR, SYSCALL. */
        .globl _start, sc, r, rc, back
        .text
_start:
        mov     $D, %edi
sc:
        call    r
        mov     $60, %eax
        xor     %edi, %edi
        syscall
r:
        dec     %edi
        jz      back
rc:
        call    r
back:
        mov     $N, %ecx
1:
        dec     %ecx
        jnz     1b
        ret

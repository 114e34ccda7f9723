/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A branch with a known period: N iterations; in iteration i (from 1) the
 * JNZ at `alt` is taken unless i is a multiple of PERIOD (a power of
 * two), so its outcome repeats every PERIOD iterations; the loop's JNZ at
 * `back` is taken but the last time. No memory is touched. */
        .globl _start
        .text
_start:
        mov     $N, %ecx
        xor     %edx, %edx
top:    inc     %edx
        test    $PERIOD - 1, %edx
alt:    jnz     skip
        nop
skip:   dec     %ecx
back:   jnz     top
        mov     $60, %eax
        xor     %edi, %edi
        syscall

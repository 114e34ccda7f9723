/* SPDX-License-Identifier: GPL-2.0-or-later */
/* N iterations of 9 instructions: which ones load and which store, where
 * a decoder can get the direction wrong (SIMD stores, TEST with a memory
 * operand) or see an access that is none (LEA, NOP). Per iteration: loads
 * 3 (MOVUPS load, TEST, ADD), stores 3 (MOVUPS store, MOVQ store, ADD). */
        .globl _start
        .text
_start:
        lea     buf(%rip), %rsi
        mov     $N, %ecx
loop:
        movups  %xmm0, (%rsi)
        movups  (%rsi), %xmm1
        movq    %xmm0, 16(%rsi)
        test    %rax, (%rsi)
        lea     8(%rsi), %rdx
        nopl    (%rsi)
        add     %rax, 24(%rsi)
        dec     %ecx
        jnz     loop
        mov     $60, %eax
        xor     %edi, %edi
        syscall

        .bss
        .balign 16
buf:    .skip   32

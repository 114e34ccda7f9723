/* SPDX-License-Identifier: MIT */
/* 100,000 conditional branches on a pseudo-random bit (bit 40 of a 64-bit
 * linear congruential generator, Knuth's MMIX constants): no predictor
 * can learn them, so about half are mispredicted. 7 instructions per
 * iteration, 8 when the random branch is not taken; 200,000 conditional
 * branches (the random one and the loop's). */
        .globl _start
        .text
_start:
        mov     $100000, %ecx
        mov     $1, %rax
        movabs  $6364136223846793005, %rbx
loop:
        imul    %rbx, %rax
        movabs  $1442695040888963407, %rdx
        add     %rdx, %rax
        bt      $40, %rax
        jc      skip
        nop
skip:
        dec     %ecx
        jnz     loop
        mov     $60, %eax
        xor     %edi, %edi
        syscall

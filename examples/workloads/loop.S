/* SPDX-License-Identifier: MIT */
/* The demo's freestanding workload (no libc): N iterations of a loop of
 * 6 instructions with one load, one store and one conditional branch,
 * then the exit system call. Counts by construction:
 *   instructions      2 + 6 N + 3    (MOV, LEA; the loop; MOV, XOR, SYSCALL)
 *   branches          N + 1          (JNZ each iteration, SYSCALL)
 *   conditional       N              (JNZ)
 *   loads, stores     N each         (ADD reads, MOV writes)
 * Build: cc -nostdlib -static -DN=1000000 -o loop loop.S */
        .globl _start
        .text
_start:
        mov     $N, %ecx
        lea     cell(%rip), %rsi
1:      mov     (%rsi), %rax
        add     $1, %rax
        mov     %rax, (%rsi)
        nop
        dec     %ecx
        jnz     1b
        mov     $60, %eax
        xor     %edi, %edi
        syscall
        .bss
cell:   .quad   0

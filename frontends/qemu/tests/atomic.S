/* SPDX-License-Identifier: GPL-2.0-or-later */
/* N iterations of three atomic read-modify-writes of memory, XCHG m, r
 * (locked whatever its prefix, SDM Vol. 2D, XCHG), LOCK ADD and LOCK
 * CMPXCHG (SDM Vol. 2A, LOCK), then a conditional branch taken once in
 * PERIOD iterations (at `alt`) and the loop's (at `back`). The processor
 * retires 2 N conditional branches. Valgrind's VEX makes XCHG m and LOCK
 * ADD a compare-and-swap and a conditional exit that restarts the
 * instruction if the swap failed, never taken here (one thread), which
 * cachegrind counts as a conditional branch: Bc = 4 N (LOCK CMPXCHG's
 * failure is its result: no exit). */
        .globl _start
        .text
_start:
        lea     cell(%rip), %rsi
        mov     $N, %ecx
        xor     %edx, %edx
loop:
        xchg    %rax, (%rsi)
        lock addq $1, 8(%rsi)
        lock cmpxchg %rdx, 16(%rsi)
        mov     %ecx, %eax
        and     $(PERIOD - 1), %eax
alt:
        jnz     skip
        nop
skip:
        dec     %ecx
back:
        jnz     loop
        mov     $60, %eax
        xor     %edi, %edi
        syscall

        .bss
        .balign 64
cell:   .skip   64

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* System calls that QEMU restarts: an interval timer sends SIGALRM every
 * 100 us while N rt_sigprocmask calls run; QEMU restarts one (executes its
 * SYSCALL again) when a signal is pending as it starts. Every SYSCALL
 * retires once. The last call blocks SIGALRM (CMOVE, no branch), so no
 * handler follows the loop's one not-taken branch (the plugin tells a
 * branch taken by the block after it). The handler counts the signals H,
 * written to stdout (8 bytes).
 * Instructions: 12 + 11 N + 8 + 4 H; far branches: N + 4 + H (each
 * SYSCALL, each handler's rt_sigreturn); near taken: N - 1 + H. */
        .globl _start
        .text
_start: lea act(%rip), %rsi
        mov $14, %edi           # SIGALRM
        xor %edx, %edx
        mov $8, %r10d
        mov $13, %eax           # rt_sigaction(SIGALRM, &act, NULL, 8)
        syscall
        xor %edi, %edi          # ITIMER_REAL
        lea itv(%rip), %rsi
        xor %edx, %edx
        mov $38, %eax           # setitimer
        syscall
        mov $N, %ebx
1:      xor %edi, %edi          # SIG_BLOCK
        lea none(%rip), %rsi    # an empty set: no change
        lea alrm(%rip), %rax
        cmp $1, %ebx
        cmove %rax, %rsi        # the last call blocks SIGALRM
        xor %edx, %edx
        mov $8, %r10d
        mov $14, %eax           # rt_sigprocmask
        syscall
        dec %ebx
        jnz 1b
        mov $1, %edi
        lea count(%rip), %rsi
        mov $8, %edx
        mov $1, %eax            # write(1, &count, 8)
        syscall
        xor %edi, %edi
        mov $231, %eax          # exit_group(0)
        syscall
handler: incq count(%rip)
        ret
restorer: mov $15, %eax         # rt_sigreturn
        syscall
        .data
        /* SA_RESTORER | SA_RESTART */
act:    .quad handler, 0x14000000, restorer, 0
itv:    .quad 0, 100, 0, 100    /* interval, value: 100 us */
none:   .quad 0
alrm:   .quad 1 << 13           /* SIGALRM's bit */
count:  .quad 0

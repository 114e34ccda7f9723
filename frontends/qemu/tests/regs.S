/* SPDX-License-Identifier: GPL-2.0-or-later */
/* RFLAGS.AC set (a system flag QEMU keeps in its eflags word; SDM Vol. 1
 * 3.4.3.3), every general-purpose register set to a value of its own, then
 * a loop of N iterations in which RAX, RBX, R8 and RCX change by known
 * steps: after the instruction at each address of iteration I (from 0),
 * the registers are known by construction (test_regs.sh). The stack is
 * not used after that: RSP holds a value of its own too. */
        .globl _start
        .text
_start:
        pushfq
        orq     $0x40000, (%rsp)
        popfq
        mov     $0x1111111111111100, %rax
        mov     $0x2222222222222200, %rbx
        mov     $0x3333333333333300, %rdx
        mov     $0x4444444444444400, %rsi
        mov     $0x5555555555555500, %rdi
        mov     $0x6666666666666600, %rbp
        mov     $0x7777777777777700, %rsp
        mov     $0x8888888888888800, %r8
        mov     $0x9999999999999900, %r9
        mov     $0xaaaaaaaaaaaaaa00, %r10
        mov     $0xbbbbbbbbbbbbbb00, %r11
        mov     $0xcccccccccccccc00, %r12
        mov     $0xdddddddddddddd00, %r13
        mov     $0xeeeeeeeeeeeeee00, %r14
        mov     $0xffffffffffffff00, %r15
        mov     $N, %ecx
        /* 19 instructions before the loop. */
loop:   inc     %rax            /* loop + 0 */
        add     $2, %rbx        /* loop + 3 */
        inc     %r8             /* loop + 7 */
        dec     %ecx            /* loop + 10 */
        jnz     loop            /* loop + 12 */
        mov     $60, %eax
        xor     %edi, %edi
        syscall

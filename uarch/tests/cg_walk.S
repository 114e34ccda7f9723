/* SPDX-License-Identifier: MIT */
/* A freestanding x86-64 program (no libc, no stack use) whose memory
 * accesses and branches are known by construction, for test_uarch_cg.c to
 * run under cachegrind and feed to the model. Linked with .text at
 * 0x401000 and .walk at 0x10000000; each branch sits at a fixed offset
 * (.org, padded with NOPs, which touch no memory), so its address is known.
 * Keep in step with test_uarch_cg.c, which replays the same stream. */
        .section .walk, "aw", @nobits
        .skip 0x300000

        .text
        .globl _start
_start:
/* Walk A: 3 passes reading 20 lines 4096 bytes apart from 0x10000800. */
        mov $3, %r8d
walk_a_pass:
        mov $0x10000800, %esi
        mov $20, %ecx
walk_a_line:
        mov (%rsi), %rax
        add $4096, %rsi
        dec %ecx
        .org 0x40, 0x90
        jnz walk_a_line            /* 0x401040 */
        dec %r8d
        .org 0x60, 0x90
        jnz walk_a_pass            /* 0x401060 */

/* Walk B: 2 passes writing 8 lines 4096 bytes apart from 0x10100800. */
        mov $2, %r8d
walk_b_pass:
        mov $0x10100800, %edi
        mov $8, %ecx
walk_b_line:
        mov %rax, (%rdi)
        add $4096, %rdi
        dec %ecx
        .org 0xa0, 0x90
        jnz walk_b_line            /* 0x4010a0 */
        dec %r8d
        .org 0xc0, 0x90
        jnz walk_b_pass            /* 0x4010c0 */

/* Straddling reads: both lines new; then within the second line; then
 * one line present, the next new. */
        mov $0x1020083c, %esi
        mov (%rsi), %r9            /* three registers: a load whose */
        mov 4(%rsi), %r10          /* value is dead would be dropped */
        mov 0x40(%rsi), %r11       /* by valgrind's optimiser */

/* A branch alternating with period 2: 100 iterations. */
        mov $100, %ecx
        xor %edx, %edx
alt_loop:
        xor $1, %edx
        test %edx, %edx
        .org 0x140, 0x90
        jz alt_skip                /* 0x401140: taken when edx == 0 */
        nop
alt_skip:
        dec %ecx
        .org 0x160, 0x90
        jnz alt_loop               /* 0x401160 */

/* Indirect jumps: 10 iterations; one site alternates between two
 * targets, the other always goes to the same one. */
        mov $10, %ecx
        xor %edx, %edx
ind_loop:
        xor $1, %edx
        lea ind_t1(%rip), %rax
        lea ind_t2(%rip), %rbx
        test %edx, %edx
        cmovz %rbx, %rax
        .org 0x200, 0x90
        jmp *%rax                  /* 0x401200 */
        .org 0x240, 0x90
ind_t1:
        jmp ind_next               /* 0x401240 */
        .org 0x280, 0x90
ind_t2:
        jmp ind_next               /* 0x401280 */
ind_next:
        lea ind_t3(%rip), %rax
        .org 0x300, 0x90
        jmp *%rax                  /* 0x401300 */
        .org 0x340, 0x90
ind_t3:
        dec %ecx
        .org 0x380, 0x90
        jnz ind_loop               /* 0x401380 */

        mov $60, %eax              /* exit(0) */
        xor %edi, %edi
        syscall
        .section .note.GNU-stack, "", @progbits

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* N iterations of 17 instructions: every kind of near branch the engine
 * counts, loads and stores, explicit and hidden (PUSH, POP, CALL, RET).
 * Per iteration: conditional 3 (JZ not taken, JE taken, JNZ taken but the
 * last time), near call 2 (direct, indirect), near return 2, indirect
 * jump 1; loads 4 (MOV, POP, RET x2), stores 4 (MOV, PUSH, CALL x2).
 * Then the exit system call (a far branch). */
        .globl _start
        .text
_start:
        lea     buf(%rip), %rsi
        lea     fn(%rip), %rbx
        mov     $N, %ecx
loop:
        mov     (%rsi), %rax
        add     $1, %rax
        mov     %rax, (%rsi)
        push    %rax
        pop     %rdx
        call    fn
        call    *%rbx
        lea     1f(%rip), %rdx
        jmp     *%rdx
1:      test    %ecx, %ecx
        jz      2f
        cmp     %ecx, %ecx
        je      2f
        add     $0, %r8          /* skipped: JE's target is not its fall-through */
2:      dec     %ecx
        jnz     loop
        mov     $60, %eax
        xor     %edi, %edi
        syscall
fn:     ret

        .bss
buf:    .quad   0

/* SPDX-License-Identifier: MIT */
/* A freestanding program that maps one page of its own file a second
 * time, executable, and calls the RET at its start N times from a loop
 * of 8 instructions (CALL, RET, 4 NOPs, DEC, JNZ): the branch stacks of
 * its samples hold both ends of those calls and returns, in a mapping no
 * sample's IP falls in when the period is a multiple of 8 (the samples
 * are then all at one place of the loop, in the first mapping). */
#ifndef N
#define N 1000
#endif
        .text
        .globl  _start
        .type   _start, @function
_start:
        mov     $2, %eax                /* open("/proc/self/exe", O_RDONLY) */
        lea     path(%rip), %rdi
        xor     %esi, %esi
        syscall
        mov     %rax, %r8               /* mmap(0, 4096, PROT_READ|PROT_EXEC, */
        mov     $9, %eax                /*   MAP_PRIVATE, fd, far's offset) */
        xor     %edi, %edi
        mov     $4096, %esi
        mov     $5, %edx
        mov     $2, %r10d
        lea     far(%rip), %r9
        lea     __executable_start(%rip), %rcx
        sub     %rcx, %r9
        syscall
        mov     %rax, %rbx
        mov     $N, %ecx
loop:
        call    *%rbx
        nop
        nop
        nop
        nop
        dec     %ecx
        jnz     loop
        mov     $60, %eax
        xor     %edi, %edi
        syscall
        .size   _start, . - _start

        .balign 4096
        .type   far, @function
far:
        ret
        .size   far, . - far
        .balign 4096

        .section .rodata
path:
        .asciz  "/proc/self/exe"
